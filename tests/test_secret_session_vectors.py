"""protocol/vectors/secret-session.json: records 11 to 15 of the log, and whole secret games."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import jsonschema
import pytest

from santorini_p2p.errors import DecodeError
from santorini_p2p.replay.verify import verify_bytes
from santorini_p2p.wire.codec import decode
from santorini_p2p.wire.log import read_log
from santorini_p2p.wire.messages import Object, Open, decode_body, encode_body

PROTOCOL = Path(__file__).resolve().parent.parent / "protocol"
VECTORS = PROTOCOL / "vectors"
DOC: dict[str, Any] = json.loads((VECTORS / "secret-session.json").read_text("utf-8"))


def test_the_file_matches_its_schema() -> None:
    schema = json.loads((PROTOCOL / "schemas" / DOC["schema"]).read_text("utf-8"))
    jsonschema.Draft202012Validator.check_schema(schema)
    jsonschema.Draft202012Validator(schema).validate(DOC)


@pytest.mark.parametrize("case", DOC["records"], ids=lambda c: c["id"])
def test_each_record_reads_and_writes_back_byte_for_byte(case: dict[str, Any]) -> None:
    data = bytes.fromhex(case["bytes"])
    msg = decode_body(data)
    assert case["type"] == msg.TYPE
    assert type(msg).__name__.lower() == case["id"]
    assert encode_body(msg) == data
    assert decode(data)[0] == case["type"]


@pytest.mark.parametrize("case", DOC["decode"], ids=lambda c: c["id"])
def test_malformed_records_are_refused_naming_the_field(case: dict[str, Any]) -> None:
    with pytest.raises(DecodeError) as got:
        decode_body(bytes.fromhex(case["bytes"]))
    assert str(got.value) == case["error"]


SECRET_GAMES = [c for c in DOC["games"] if "options" not in c and "leaves" not in c]
LEAVE_GAMES = [c for c in DOC["games"] if "leaves" in c]
MODE_GAMES = [c for c in DOC["games"] if "options" in c]


@pytest.mark.parametrize("case", MODE_GAMES, ids=lambda c: c["id"])
def test_each_party_or_agora_game_verifies_with_its_passes_and_result(
    case: dict[str, Any],
) -> None:
    from santorini_p2p.replay.timeline import read_timeline

    data = (VECTORS / case["file"]).read_bytes()
    assert verify_bytes(data).ok
    v = read_log(data)
    assert v.header is not None
    assert v.header.protocol == 3
    assert list(v.header.options) == case["options"]
    assert v.next_seq == case["records"]
    assert v.position is not None
    assert list(v.position.gods) == case["gods"]
    t = read_timeline(data)
    assert [int(s.text.rsplit(" ", 1)[1]) for s in t.steps if s.kind == "pass"] == case["passes"]
    assert t.result_text == case["result_text"]
    assert v.result == (case["winner"] - 1, case["reason"])


@pytest.mark.parametrize("case", SECRET_GAMES, ids=lambda c: c["id"])
def test_each_game_verifies_with_its_gods_openings_and_result(case: dict[str, Any]) -> None:
    data = (VECTORS / case["file"]).read_bytes()
    assert verify_bytes(data).ok
    v = read_log(data)
    g = v.secret
    assert g is not None
    assert v.header is not None
    assert v.header.protocol == 3
    assert v.next_seq == case["records"]
    assert list(g.gods) == case["gods"]
    assert v.result == (
        (case["winner"] - 1) if case["winner"] is not None else -1,
        case["reason"],
    )
    records = v.records
    assert sum(isinstance(r.message, Object) for r in records) == case["objections"]
    for seat, god in enumerate(case["gods"]):
        opened = case["opened_at"][seat]
        msg = records[opened].message
        assert isinstance(msg, Open | Object)
        assert records[opened].seat == seat
        assert msg.god == god
        # The god is nowhere in the log before the record that opens it (but the header's pool).
        assert all(god.encode() not in r.raw for r in records[1:opened])


@pytest.mark.parametrize("case", LEAVE_GAMES, ids=lambda c: c["id"])
def test_each_game_with_seats_leaving_verifies_and_the_last_one_left_wins(
    case: dict[str, Any],
) -> None:
    from santorini_p2p.replay.timeline import read_timeline
    from santorini_p2p.wire.messages import Act, Forfeit, Resign, Timeout

    data = (VECTORS / case["file"]).read_bytes()
    assert verify_bytes(data).ok
    v = read_log(data)
    g = v.secret
    assert g is not None
    assert v.next_seq == case["records"]
    records = v.records
    gone = []
    for leave in case["leaves"]:
        r = records[leave["record"]]
        m = r.message
        assert isinstance(m, Resign if leave["kind"] == "resign" else Timeout)
        seat = m.seat if isinstance(m, Timeout) else r.seat
        assert seat == leave["seat"] - 1
        gone.append(seat)
    # Play went on after the first seat left, without it.
    first = case["leaves"][0]["record"]
    later = [r for r in records[first:] if isinstance(r.message, Act)]
    assert later
    assert all(r.seat != gone[0] for r in later)
    assert g.left == sum(1 << s for s in gone)
    # A leaver's withheld opening is forfeited; its god stays unknown and the result stands.
    assert [r.message.late + 1 for r in records if isinstance(r.message, Forfeit)] == case[
        "withheld"
    ]
    assert list(g.gods) == case["gods"]
    assert all(not g.gods[s - 1] for s in case["withheld"])
    assert v.result == (case["winner"] - 1, case["reason"])
    assert case["winner"] - 1 not in gone
    assert read_timeline(data).result_text == case["result_text"]


def test_a_forged_or_wrong_opening_in_the_log_is_refused_with_the_reason() -> None:
    from santorini_p2p.errors import ReplayError
    from santorini_p2p.wire.framing import iter_frames
    from santorini_p2p.wire.identity import Identity
    from santorini_p2p.wire.log import Validator

    case = DOC["games"][0]
    data = (VECTORS / case["file"]).read_bytes()
    frames = list(iter_frames(data))
    v = read_log(data)
    first = min(case["opened_at"])
    seat = case["opened_at"].index(first)
    opener = v.records[first].signer
    ids = {Identity.from_seed(bytes([i + 1]) * 32, "x").public_key: i for i in range(4)}
    me = Identity.from_seed(bytes([ids[opener] + 1]) * 32, "x")
    real = v.records[first].message
    assert isinstance(real, Open | Object)
    other = next(g for g in case["gods"] if g != real.god)
    before = Validator()
    for raw in frames[:first]:
        before.feed(raw)
    assert before.seat_of(opener) == seat
    cases = [
        (real.god, bytes([0x80]) + bytes(31), f"{real.god} with this key does not give"),
        (other, real.key, f"{other} with this key does not give"),
        ("zeus", real.key, "'zeus' is not a god of this game's pool"),
    ]
    for god, key, said in cases:
        if isinstance(real, Open):
            forged = before.make_open(me, god, key)
        else:
            forged = before.make_object(me, god, key)
        with pytest.raises(ReplayError, match=said) as got:
            before.feed(forged)
        assert got.value.record_index == first
    before.feed(frames[first])  # the true opening still goes in
