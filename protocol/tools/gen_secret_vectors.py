#!/usr/bin/env python3
"""Regenerate the secret-god vectors: cards, a worked deal, records, openings, chains.

Writes protocol/vectors/secret.json from the installed package (protocol/SECRET.md):

- ``cards``: every god of the secret pool and its card (SECRET.md 2);
- ``deal``: a 2-player deal over three gods worked step by step, with each seat's key and
  order seed, the decks, the hands and the gods they open to (SECRET.md 3);
- ``tests``: records and their canonical bytes (valid), records a reader refuses at decoding
  (``DecodeError``), and openings refused with their reason (SECRET.md 4 and 6);
- ``stream``: a hash chain and the draw seeds it gives (SECRET.md 9).

``--check`` compares instead of writing.
"""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path
from typing import Any

from santorini_p2p.engine.secrecy import SECRET_POOL
from santorini_p2p.errors import DecodeError
from santorini_p2p.wire.codec import encode
from santorini_p2p.wire.identity import Identity
from santorini_p2p.wire.partygame import (
    Anchor,
    Link,
    PartyRecord,
    decode_party_record,
    encode_party_record,
)
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
from santorini_p2p.wire.secretgame import (
    Ack,
    Forfeit,
    Move,
    Object,
    Open,
    Shuffle,
    Strip,
    decode_record,
)
from santorini_p2p.wire.secretlog import seal_record
from santorini_p2p.wire.stream import chain, draw_seed

PROTOCOL = Path(__file__).resolve().parent.parent
OUT = PROTOCOL / "vectors" / "secret.json"

GAME_ID = bytes(range(16))
POOL = ("athena", "atlas", "hera")
KEY_SEEDS = (b"\x11" * 32, b"\x22" * 32)
ORDER_SEEDS = (b"\x33" * 32, b"\x44" * 32)

NOTES = {
    "spec-example": "a value worked in SECRET.md",
    "record": "a record and its canonical bytes (SECRET.md 6)",
    "decode": "bytes that are not a record of SECRET.md 6",
    "opening": "an opening and whether it proves the god (SECRET.md 4)",
    "sealed": "a record sealed as a log envelope, key seed 01 x 32, seq 11, prev 07 x 32",
}


def _hex(b: bytes) -> str:
    return b.hex()


def _deal() -> tuple[dict[str, Any], list[DealKey], tuple[int, ...]]:
    keys = [DealKey.from_seed(s) for s in KEY_SEEDS]
    deck = tuple(card_of(g) for g in POOL)
    decks = []
    orders = []
    for j, key in enumerate(keys):
        order = shuffle_order(ORDER_SEEDS[j], len(POOL))
        orders.append(list(order))
        deck = shuffle(deck, key, order)
        decks.append([_hex(to_bytes(c)) for c in deck])
    hand = deck[:2]
    hands = []
    for j, key in enumerate(keys):
        hand = strip(hand, key, j)
        hands.append([_hex(to_bytes(c)) for c in hand])
    gods = [open_card(hand[j], key, POOL) for j, key in enumerate(keys)]
    doc = {
        "game_id": _hex(GAME_ID),
        "pool": list(POOL),
        "key_seeds": [_hex(s) for s in KEY_SEEDS],
        "keys": [f"{k.e:064x}" for k in keys],
        "order_seeds": [_hex(s) for s in ORDER_SEEDS],
        "orders": orders,
        "decks": decks,
        "hands": hands,
        "gods": gods,
    }
    return doc, keys, hand


def _record_case(n: int, name: str, r: PartyRecord, comment: str) -> dict[str, Any]:
    data = encode_party_record(r)
    assert decode_party_record(data) == r
    return {
        "tcId": n,
        "id": name,
        "comment": comment,
        "flags": ["record"],
        "bytes": _hex(data),
        "result": "valid",
    }


def _table() -> list[dict[str, Any]]:
    """The table's frames (SECRET.md 13), with the host's answer to a session hello."""
    from santorini_p2p.net.frames import Refuse, encode_frame
    from santorini_p2p.net.secrettable import SESSION_REFUSAL, TABLE_VERSION
    from santorini_p2p.wire.secretlog import seats_frame

    keys = tuple(Identity.from_seed(bytes([i + 1]) * 32, "a").public_key for i in range(4))
    k0 = keys[0]
    cases: list[tuple[str, str, tuple[Any, ...], bytes]] = [
        (
            "hello",
            "a joiner's hello: its key and the table's version",
            ("hello", k0, TABLE_VERSION),
            encode(("hello", k0, TABLE_VERSION)),
        ),
        (
            "seats-secret",
            "a 2-player secret game's seats (four fields, no options)",
            ("seats", GAME_ID, POOL, keys[:2]),
            seats_frame(GAME_ID, POOL, keys[:2]),
        ),
        (
            "seats-party",
            "a 3-player Party game passing every 6 turns",
            ("seats", GAME_ID, POOL, keys[:3], ("party", "pass=6")),
            seats_frame(GAME_ID, POOL, keys[:3], ("party", "pass=6")),
        ),
        (
            "seats-agora",
            "a 4-player Agora game",
            ("seats", GAME_ID, POOL, keys, ("agora",)),
            seats_frame(GAME_ID, POOL, keys, ("agora",)),
        ),
        (
            "refuse-version",
            "the host's answer to a table hello of version 2",
            ("refuse", "protocol 2 is not 1"),
            encode(("refuse", "protocol 2 is not 1")),
        ),
        (
            "refuse-full",
            "the host's answer to a hello from a peer not seated once the game has begun",
            ("refuse", "the table is full: the game has begun"),
            encode(("refuse", "the table is full: the game has begun")),
        ),
        (
            "refuse-session-hello",
            "the host's answer to a session hello (SESSION.md 3): an unsigned session refuse",
            (3, SESSION_REFUSAL),
            encode_frame(Refuse(SESSION_REFUSAL)),
        ),
    ]

    def shown(v: Any) -> Any:
        if isinstance(v, bytes):
            return _hex(v)
        if isinstance(v, tuple):
            return [shown(x) for x in v]
        return v

    return [
        {"id": name, "comment": comment, "frame": shown(frame), "bytes": _hex(data)}
        for name, comment, frame, data in cases
    ]


def build() -> dict[str, Any]:
    """The whole vector file as a JSON value."""
    deal, keys, hand = _deal()
    tests: list[dict[str, Any]] = []
    key0 = keys[0].e.to_bytes(32, "big")
    records = [
        (
            "shuffle",
            Shuffle(0, tuple(bytes.fromhex(c) for c in deal["decks"][0])),
            "seat 1's shuffle",
        ),
        ("strip", Strip(1, tuple(bytes.fromhex(c) for c in deal["hands"][1])), "seat 2's strip"),
        ("move", Move(0, "b2>c2^b2"), "a turn in the public view"),
        ("open", Open(0, deal["gods"][0], key0), "seat 1 opens its god"),
        ("ack", Ack(1, 9), "seat 2 acks record 9 (a waiver while hidden)"),
        ("object", Object(0, 9, deal["gods"][0], key0), "seat 1 objects to record 9"),
        ("forfeit", Forfeit(0, 1, "no opening within the clock"), "seat 1 says seat 2 forfeits"),
        ("anchor", Anchor(1, b"\x5a" * 32), "seat 2's chain anchor (Party)"),
        ("link", Link(0, 1, b"\xa5" * 32), "seat 1's link for draw 1 (Party)"),
    ]
    for name, r, comment in records:
        tests.append(_record_case(len(tests) + 1, f"record-{name}", r, comment))
    bad = [
        ("decode-unknown-tag", encode((16, 0, b"")), "tag 16 is no record"),
        ("decode-seat", encode((13, 4, "athena", key0)), "a seat beyond 4"),
        ("decode-open-fields", encode((13, 0, "athena")), "an opening without its key"),
        ("decode-card-type", encode((11, 0, ("x",))), "a card that is not bytes"),
    ]
    for name, data, comment in bad:
        try:
            decode_record(data)
        except DecodeError:
            pass
        else:
            raise AssertionError(name)
        tests.append(
            {
                "tcId": len(tests) + 1,
                "id": name,
                "comment": comment,
                "flags": ["decode"],
                "bytes": _hex(data),
                "result": "invalid",
                "error": "DecodeError",
            }
        )
    g0, g1 = deal["gods"]
    openings = [
        ("opening-valid", 0, g0, keys[0].e, "seat 1's true opening"),
        ("opening-wrong-god", 0, g1, keys[0].e, "another god with the seat's key"),
        ("opening-wrong-key", 0, g0, keys[1].e, "the god with another seat's key"),
        ("opening-not-in-pool", 0, "zeus", keys[0].e, "a god outside the pool"),
        ("opening-short-key", 0, g0, 5, "a key that is not 256 bits"),
    ]
    for name, seat, god, e, comment in openings:
        why = reveal_error(hand[seat], god, e, POOL)
        case: dict[str, Any] = {
            "tcId": len(tests) + 1,
            "id": name,
            "comment": comment,
            "flags": ["opening"],
            "seat": seat,
            "god": god,
            "key": f"{e:x}",
            "result": "valid" if why is None else "invalid",
        }
        if why is not None:
            case["reason"] = why
        tests.append(case)
    sealed = seal_record(Identity.from_seed(b"\x01" * 32, "a"), 11, b"\x07" * 32, records[3][1])
    tests.append(
        {
            "tcId": len(tests) + 1,
            "id": "sealed-open",
            "comment": "seat 1's opening as record 11 of the log (SECRET.md 12)",
            "flags": ["sealed"],
            "envelope": _hex(sealed),
            "result": "valid",
        }
    )
    links = [chain(bytes([0xAA + s]) * 32, GAME_ID, s, 3) for s in range(2)]
    stream = {
        "game_id": _hex(GAME_ID),
        "secrets": [_hex(c[0]) for c in links],
        "length": 3,
        "anchors": [_hex(c[-1]) for c in links],
        "draws": [
            {
                "k": k,
                "links": [_hex(c[3 - k]) for c in links],
                "seed": _hex(draw_seed(GAME_ID, k, [c[3 - k] for c in links])),
            }
            for k in (1, 2, 3)
        ],
    }
    return {
        "schema": "secret.schema.json",
        "version": 1,
        "notes": NOTES,
        "cards": {g: _hex(to_bytes(card_of(g))) for g in SECRET_POOL},
        "deal": deal,
        "stream": stream,
        "tests": tests,
        "table": _table(),
    }


def main() -> int:
    """Write (or with --check, compare) protocol/vectors/secret.json."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--check", action="store_true", help="compare instead of writing")
    args = parser.parse_args()
    text = json.dumps(build(), indent=2) + "\n"
    if args.check:
        if OUT.read_text(encoding="utf-8") != text:
            print(f"{OUT} differs from what the package gives", file=sys.stderr)
            return 1
        return 0
    OUT.write_text(text, encoding="utf-8")
    return 0


if __name__ == "__main__":
    sys.exit(main())
