"""The turn effect vectors (protocol/vectors/effects.json, SPEC.md 14.2 and 14.5)."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import jsonschema  # type: ignore[import-untyped]
import pytest

from santorini_p2p.engine import find_turn, parse_position, turn_effects
from santorini_p2p.replay.export_json import effect_entry

PROTOCOL = Path(__file__).resolve().parent.parent / "protocol"
DOC = json.loads((PROTOCOL / "vectors" / "effects.json").read_text(encoding="utf-8"))
CASES: list[dict[str, Any]] = DOC["tests"]


def test_vectors_match_their_schema_and_cover_every_kind():
    schema = json.loads((PROTOCOL / "schemas" / DOC["schema"]).read_text())
    jsonschema.Draft202012Validator(schema).validate(DOC)
    kinds = {e["kind"] for c in CASES for e in c["effects"]}
    assert kinds == {"forced", "removed", "out", "unbuilt", "slid", "gained", "joined"}
    assert any(not c["effects"] for c in CASES)


@pytest.mark.parametrize("case", CASES, ids=[c["id"] for c in CASES])
def test_effect_vector(case):
    p = parse_position(case["position"])
    turn = find_turn(p, case["turn"])  # legal in the position
    entries = [effect_entry(p, e) for e in turn_effects(p, turn)]
    assert entries == case["effects"]
    assert [f"; {e['text']}" for e in entries] == case["comments"]
