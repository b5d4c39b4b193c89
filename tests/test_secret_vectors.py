"""protocol/vectors/secret.json: schema-valid, and every value what the package computes."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import jsonschema
import pytest

from santorini_p2p.errors import DecodeError
from santorini_p2p.wire.identity import Identity
from santorini_p2p.wire.partygame import decode_party_record, encode_party_record
from santorini_p2p.wire.secret import (
    DealKey,
    card_of,
    open_card,
    reveal_error,
    shuffle,
    shuffle_order,
    strip,
    to_bytes,
)
from santorini_p2p.wire.secretgame import decode_record
from santorini_p2p.wire.secretlog import read_records, seal_record
from santorini_p2p.wire.stream import chain, draw_seed, link_error

PROTOCOL = Path(__file__).resolve().parent.parent / "protocol"
DOC: dict[str, Any] = json.loads((PROTOCOL / "vectors" / "secret.json").read_text("utf-8"))


def test_the_file_matches_its_schema() -> None:
    schema = json.loads((PROTOCOL / "schemas" / DOC["schema"]).read_text("utf-8"))
    jsonschema.Draft202012Validator.check_schema(schema)
    jsonschema.Draft202012Validator(schema).validate(DOC)
    for t in DOC["tests"]:
        assert set(t["flags"]) <= set(DOC["notes"])


def test_cards() -> None:
    for god, card in DOC["cards"].items():
        assert to_bytes(card_of(god)).hex() == card


def test_the_worked_deal() -> None:
    d = DOC["deal"]
    pool = tuple(d["pool"])
    keys = [DealKey.from_seed(bytes.fromhex(s)) for s in d["key_seeds"]]
    assert [f"{k.e:064x}" for k in keys] == d["keys"]
    deck = tuple(card_of(g) for g in pool)
    for j, key in enumerate(keys):
        order = shuffle_order(bytes.fromhex(d["order_seeds"][j]), len(pool))
        assert list(order) == d["orders"][j]
        deck = shuffle(deck, key, order)
        assert [to_bytes(c).hex() for c in deck] == d["decks"][j]
    hand = deck[: len(keys)]
    for j, key in enumerate(keys):
        hand = strip(hand, key, j)
        assert [to_bytes(c).hex() for c in hand] == d["hands"][j]
    assert [open_card(hand[j], k, pool) for j, k in enumerate(keys)] == d["gods"]


@pytest.mark.parametrize("case", DOC["tests"], ids=[t["id"] for t in DOC["tests"]])
def test_case(case: dict[str, Any]) -> None:
    if "envelope" in case:
        raw = bytes.fromhex(case["envelope"])
        key = Identity.from_seed(b"\x01" * 32, "a").public_key
        (record,) = read_records([raw], [key], 11, b"\x07" * 32)
        assert seal_record(Identity.from_seed(b"\x01" * 32, "a"), 11, b"\x07" * 32, record) == raw
        return
    if "bytes" in case:
        data = bytes.fromhex(case["bytes"])
        if case["result"] == "valid":
            assert encode_party_record(decode_party_record(data)) == data
        else:
            with pytest.raises(DecodeError):
                decode_record(data)
        return
    d = DOC["deal"]
    card = int(d["hands"][-1][case["seat"]], 16)
    why = reveal_error(card, case["god"], int(case["key"], 16), d["pool"])
    assert why == case.get("reason")
    assert (why is None) == (case["result"] == "valid")


def test_the_chain_and_its_draws() -> None:
    s = DOC["stream"]
    game = bytes.fromhex(s["game_id"])
    chains = [chain(bytes.fromhex(x), game, j, s["length"]) for j, x in enumerate(s["secrets"])]
    assert [c[-1].hex() for c in chains] == s["anchors"]
    last = [bytes.fromhex(a) for a in s["anchors"]]
    for draw in s["draws"]:
        links = [bytes.fromhex(x) for x in draw["links"]]
        for j, link in enumerate(links):
            assert link_error(link, last[j], game, j) is None
        assert draw_seed(game, draw["k"], links).hex() == draw["seed"]
        last = links


def _shown(v: Any) -> Any:
    if isinstance(v, bytes):
        return v.hex()
    if isinstance(v, tuple):
        return [_shown(x) for x in v]
    return v


@pytest.mark.parametrize("case", DOC["table"], ids=[t["id"] for t in DOC["table"]])
def test_table_frame(case: dict[str, Any]) -> None:
    from santorini_p2p.net.frames import Refuse, decode_frame, encode_frame
    from santorini_p2p.net.secrettable import SESSION_REFUSAL
    from santorini_p2p.wire.codec import decode, encode
    from santorini_p2p.wire.secretlog import make_game, read_seats, seats_options

    data = bytes.fromhex(case["bytes"])
    value = decode(data)
    assert _shown(value) == case["frame"]
    assert encode(value) == data  # canonical
    if case["id"].startswith("seats"):
        _, _, keys = read_seats(data)
        assert len(keys) == {"secret": 2, "party": 3, "agora": 4}[case["id"][6:]]
        assert make_game(data).players == len(keys)
        assert seats_options(data) == (tuple(case["frame"][4]) if len(value) == 5 else ())
    if case["id"] == "refuse-session-hello":
        # Every session version reads it as a refusal naming the table's protocol.
        assert decode_frame(data) == Refuse(SESSION_REFUSAL)
        assert encode_frame(Refuse(SESSION_REFUSAL)) == data
