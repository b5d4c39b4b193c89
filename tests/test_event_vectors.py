"""The event file vectors (protocol/vectors/event.json, EVENT.md 8): schema-valid and obeyed."""

from __future__ import annotations

import json
from pathlib import Path

import jsonschema
import pytest

from santorini_p2p.tournament.club import fold, verify_event
from santorini_p2p.tournament.event import EventError, read_event
from santorini_p2p.wire.identity import Identity

PROTOCOL = Path(__file__).resolve().parent.parent / "protocol"
DOC = json.loads((PROTOCOL / "vectors" / "event.json").read_text(encoding="utf-8"))
CASES = [pytest.param(t, id=t["id"]) for t in DOC["tests"]]


def test_event_vectors_match_their_schema():
    schema = json.loads((PROTOCOL / "schemas" / DOC["schema"]).read_text(encoding="utf-8"))
    jsonschema.Draft202012Validator.check_schema(schema)
    jsonschema.Draft202012Validator(schema).validate(DOC)
    assert DOC["tests"]
    for t in DOC["tests"]:
        assert set(t["flags"]) <= set(DOC["notes"])
    assert {t["result"] for t in DOC["tests"]} == {"valid", "invalid"}


@pytest.mark.parametrize("case", CASES)
def test_event_vector_verdict(case):
    data = bytes.fromhex(case["data"])
    if case["result"] == "valid":
        event = fold(read_event(data))
        director = Identity.from_seed(bytes.fromhex(DOC["keys"]["director"]), "d")
        assert event.log.director == director.public_key
        assert event.rounds_paired >= 1
        return
    with pytest.raises(EventError) as info:
        fold(read_event(data))
    assert case["error"] in info.value.reason
    assert info.value.record == case["record"]


def test_the_valid_event_with_a_result_reverifies_from_the_replay_vectors():
    case = next(t for t in DOC["tests"] if "replay" in t["flags"])
    result = verify_event(bytes.fromhex(case["data"]), PROTOCOL / "vectors" / case["replays"])
    assert result.ok, result.problems
    assert result.checked == 1
    event = result.event
    assert event is not None
    table = event.table()
    assert [event.name_of(s.player) for s in table] == ["bob", "alice"]
    assert [s.points for s in table] == [1, 0]
