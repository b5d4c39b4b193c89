"""The text export vectors (protocol/vectors/text-export.json, SPEC.md section 14)."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import jsonschema  # type: ignore[import-untyped]
import pytest

from santorini_p2p.replay.export_text import (
    TextReplayError,
    check_text,
    export_text,
    read_text,
)
from santorini_p2p.replay.timeline import read_timeline
from santorini_p2p.replay.verify import verify_text

PROTOCOL = Path(__file__).resolve().parent.parent / "protocol"
DOC = json.loads((PROTOCOL / "vectors" / "text-export.json").read_text(encoding="utf-8"))
CASES: list[dict[str, Any]] = DOC["tests"]


def test_vectors_match_their_schema():
    schema = json.loads((PROTOCOL / "schemas" / DOC["schema"]).read_text())
    jsonschema.Draft202012Validator(schema).validate(DOC)
    assert len([c for c in CASES if c["result"] == "valid"]) >= 4
    assert len([c for c in CASES if c["result"] == "invalid"]) >= 10


def _text(case: dict[str, Any]) -> str:
    text: str = (PROTOCOL / "vectors" / case["file"]).read_text(encoding="utf-8")
    edit = case["edit"]
    if edit is None:
        return text
    lines = text.split("\n")
    if edit.get("delete"):
        del lines[edit["line"] - 1]
    else:
        lines[edit["line"] - 1] = edit["text"]
    return "\n".join(lines)


def _reported_line(data: bytes) -> int:
    try:
        tr = read_text(data)
        t = read_timeline(tr.data)
        if not t.ok:
            return tr.begin + 1 if t.bad_record is None else tr.lines_of(t.bad_record)[0]
        check_text(data)
    except TextReplayError as e:
        return e.line
    raise AssertionError("no fault found")


@pytest.mark.parametrize("case", CASES, ids=[c["id"] for c in CASES])
def test_text_vector(case):
    data = _text(case).encode()
    verdict = verify_text(data, "v")
    if case["result"] == "valid":
        assert verdict.ok, verdict.line()
        if case["replay"] is not None:
            replay = (PROTOCOL / "vectors" / case["replay"]).read_bytes()
            assert read_text(data).data == replay
            # Each format's text is written byte for byte: format 1 as it always was.
            assert export_text(read_timeline(replay), case.get("format", 1)).encode() == data
        return
    assert not verdict.ok
    assert verdict.kind == case["error"]
    assert verdict.record == case["record"]
    assert _reported_line(data) == case["line"]
