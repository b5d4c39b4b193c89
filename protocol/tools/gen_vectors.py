#!/usr/bin/env python3
"""Regenerate the wire vectors: codec, envelope, draw and replay cases (protocol/SPEC.md 13).

Writes protocol/vectors/codec.json, envelope.json, draw.json, replays.json and the complete
games in replays/*.sntr from the installed package. Keys come from fixed seeds (``01`` x 32 for
slot 0, ``02`` x 32 for slot 1, ...), and Ed25519 is deterministic, so a run gives the same
bytes every time. The tests only read these files; ``--check`` compares instead of writing.
"""

from __future__ import annotations

import argparse
import hashlib
import json
import random
import sys
from collections.abc import Callable
from dataclasses import replace
from pathlib import Path
from typing import Any, cast

from santorini_p2p.engine import format_action, legal_actions
from santorini_p2p.engine.choices import choice_options
from santorini_p2p.engine.gods import ADVANCED, GOD_NAMES, SIMPLE
from santorini_p2p.engine.squares import SQUARE_NAMES
from santorini_p2p.errors import ReplayError, WireError
from santorini_p2p.wire.codec import Value, decode, encode
from santorini_p2p.wire.draw import DrawStream, commitment, draw_seed, draw_setup
from santorini_p2p.wire.identity import Identity
from santorini_p2p.wire.log import (
    FILE_MAGIC,
    Validator,
    encode_frames,
    make_header,
    open_envelope,
    read_log,
    seal,
    signing_input,
    validate,
    verify_envelope,
)
from santorini_p2p.wire.messages import Ack, Act, Answer, Ask, Header, Offer, Result, Reveal
from santorini_p2p.wire.script import play_script, script_nonce

PROTOCOL = Path(__file__).resolve().parent.parent
VECTORS = PROTOCOL / "vectors"

ALICE = Identity.from_seed(b"\x01" * 32, "alice")
BOB = Identity.from_seed(b"\x02" * 32, "bob")
CAROL = Identity.from_seed(b"\x03" * 32, "carol")
DAVE = Identity.from_seed(b"\x04" * 32, "dave")
MALLORY = Identity.from_seed(b"\x77" * 32, "mallory")
PLAYERS = (ALICE, BOB, CAROL, DAVE)

NOTES = {
    "canonical": "the one encoding the spec allows",
    "non-canonical": "valid msgpack that is not the shortest or right-typed form",
    "malformed": "bytes that are not one msgpack value of the subset",
    "limit": "input over a size limit of SPEC.md section 9",
    "signature": "the signature or the signer's right to the record",
    "chain": "the previous-record hash or the record number",
    "version": "a version this program does not speak",
    "order": "a record that the log does not allow where it stands",
    "rules": "an action the rules engine refuses",
    "state-hash": "a state hash that differs from the engine's",
    "framing": "the replay file's magic, lengths or end",
    "spec-example": "a value worked by hand in SPEC.md",
    "tampered": "a real log altered after signing",
}

POOL_NOTES = {
    "pool": "a god pool other than the ten simple gods (header protocol 2, SPEC.md 7 and 11)",
}
"""Notes of the files that have pool cases (draw, replays); the other files keep NOTES alone."""

TAKEBACK_NOTES = {
    "takeback": "a takeback offer and its acceptance (header option takeback, protocol 2, "
    "SPEC.md 8.2)",
    "chat": "a chat record (type 10, header option chat, protocol 2, SPEC.md 8.3)",
}
"""Notes of the file that has takeback cases (replays)."""

REMATCH_NOTES = {
    "rematch": "a header option start=K: a rematch names its start slot (SPEC.md 7 and 11)",
}
"""Notes of the file that has rematch cases (replays)."""

MEMORY_NOTES = {
    "memory": "a god of RULES.md section 10: power states in the position, setup choices "
    "(place ..*, song D) and its turn text (SPEC.md 1.3.1, 2.1.1)",
}
"""Notes of the file that has section-10 cases (replays)."""

ASK_NOTES = {
    "ask": "protocol 3: a choice another seat makes in the mover's turn (Gaea's worker), "
    "asked by the mover and answered by that seat in records of its own (SPEC.md 8.4)",
}
"""Notes of the file that has ask and answer cases (replays)."""

EDGE_NOTES = {
    "edge": "an Ed25519 edge case where libraries differ (small-order or non-canonical "
    "points, S not below L): the verdict of SPEC.md 4",
}
"""Notes of the file that has signature edge cases (envelope)."""


def _typed(value: Value) -> Any:
    """Return ``value`` as typed JSON (big integers as strings, bytes as hex)."""
    if value is None:
        return {"nil": None}
    if isinstance(value, bool):
        return {"bool": value}
    if isinstance(value, int):
        return {"int": str(value)}
    if isinstance(value, str):
        return {"str": value}
    if isinstance(value, bytes):
        return {"bin": value.hex()}
    return {"array": [_typed(v) for v in value]}


class Cases:
    """Collects test cases with running tcIds."""

    def __init__(self) -> None:
        self.items: list[dict[str, Any]] = []

    def add(self, id_: str, comment: str, flags: list[str], **fields: Any) -> None:
        """Append a case; every flag must be defined in NOTES."""
        for f in flags:
            assert (
                f in NOTES
                or f in POOL_NOTES
                or f in TAKEBACK_NOTES
                or f in REMATCH_NOTES
                or f in MEMORY_NOTES
                or f in ASK_NOTES
                or f in EDGE_NOTES
            ), f
        self.items.append(
            {"tcId": len(self.items) + 1, "id": id_, "comment": comment, "flags": flags, **fields}
        )


def _doc(schema: str, cases: Cases, **extra: Any) -> dict[str, Any]:
    notes = NOTES
    if any("pool" in t["flags"] for t in cases.items):
        notes = {**NOTES, **POOL_NOTES}
    if any({"takeback", "chat"} & set(t["flags"]) for t in cases.items):
        notes = {**notes, **TAKEBACK_NOTES}
    if any("rematch" in t["flags"] for t in cases.items):
        notes = {**notes, **REMATCH_NOTES}
    if any("memory" in t["flags"] for t in cases.items):
        notes = {**notes, **MEMORY_NOTES}
    if any("ask" in t["flags"] for t in cases.items):
        notes = {**notes, **ASK_NOTES}
    if any("edge" in t["flags"] for t in cases.items):
        notes = {**notes, **EDGE_NOTES}
    return {"schema": schema, "version": 1, "notes": notes, **extra, "tests": cases.items}


# -- codec ------------------------------------------------------------------------------------


def codec_vectors() -> dict[str, Any]:
    """Values with their canonical bytes, and bytes that must be refused."""
    c = Cases()
    valid: list[tuple[str, Value, str]] = [
        ("nil", None, "nil"),
        ("false", False, "false"),
        ("true", True, "true"),
        ("int-0", 0, "zero as positive fixint"),
        ("int-127", 127, "largest positive fixint"),
        ("int-128", 128, "smallest uint8"),
        ("int-65535", 65535, "largest uint16"),
        ("int-65536", 65536, "smallest uint32"),
        ("int-2^32", 2**32, "smallest uint64"),
        ("int-2^64-1", 2**64 - 1, "largest integer"),
        ("int--1", -1, "negative fixint"),
        ("int--32", -32, "smallest negative fixint"),
        ("int--33", -33, "largest int8 outside fixint"),
        ("int--2^63", -(2**63), "smallest integer"),
        ("str-empty", "", "empty fixstr"),
        ("str-31", "x" * 31, "longest fixstr"),
        ("str-32", "x" * 32, "shortest str8"),
        ("str-utf8", "Zoë 王", "UTF-8 text"),
        ("bin-empty", b"", "empty bin8"),
        ("bin-32", bytes(range(32)), "a 32-byte key as bin8"),
        ("array-empty", (), "empty fixarray"),
        ("array-16", tuple(range(16)), "shortest array16"),
        ("array-nested", (1, (b"\xff", ("a",)), None), "nested arrays"),
        ("array-nested-4", ((((1,),),),), "arrays nested 4 deep, the deepest allowed"),
    ]
    for id_, value, comment in valid:
        c.add(
            f"valid-{id_}",
            comment,
            ["canonical"],
            input=encode(value).hex(),
            result="valid",
            value=_typed(value),
        )
    invalid = [
        ("cc01", "NonCanonicalError", "uint8 for a positive fixint", "non-canonical"),
        ("cd00ff", "NonCanonicalError", "uint16 for a value that fits uint8", "non-canonical"),
        ("d000", "NonCanonicalError", "int8 for zero", "non-canonical"),
        ("d1ffdf", "NonCanonicalError", "int16 for -33", "non-canonical"),
        ("d9016a", "NonCanonicalError", "str8 for a 1-byte string", "non-canonical"),
        ("c5000101", "NonCanonicalError", "bin16 for a 1-byte binary", "non-canonical"),
        ("dc000101", "NonCanonicalError", "array16 for a 1-element array", "non-canonical"),
        ("", "DecodeError", "empty input", "malformed"),
        ("c1", "DecodeError", "the never-used byte c1", "malformed"),
        ("ca3f800000", "DecodeError", "float32", "malformed"),
        ("cb3ff0000000000000", "DecodeError", "float64", "malformed"),
        ("81a16101", "DecodeError", "a map", "malformed"),
        ("d4010a", "DecodeError", "an extension type", "malformed"),
        ("d6ff00000001", "DecodeError", "the timestamp extension", "malformed"),
        ("0101", "DecodeError", "trailing bytes", "malformed"),
        ("92", "DecodeError", "a truncated array", "malformed"),
        ("a2c328", "DecodeError", "invalid UTF-8 in a str", "malformed"),
        ("ddffffffff", "DecodeError", "an array claiming 2^32-1 elements", "malformed"),
        ("91919191919101", "DecodeError", "arrays nested 6 deep", "malformed"),
        ("c0" * 4097, "TooLargeError", "4097 bytes, over the 4096-byte limit", "limit"),
        ("919191919101", "DecodeError", "arrays nested 5 deep, one too many", "malformed"),
    ]
    for hexed, error, comment, flag in invalid:
        try:
            decode(bytes.fromhex(hexed))
            got = "accepted"
        except WireError as e:
            got = type(e).__name__
        if got != error:
            raise SystemExit(f"codec case {hexed}: expected {error}, got {got}")
        c.add(
            f"invalid-{hexed[:16] or 'empty'}",
            comment,
            [flag],
            input=hexed,
            result="invalid",
            error=error,
        )
    return _doc("codec.schema.json", c)


# -- envelopes --------------------------------------------------------------------------------


def _envelope_case(c: Cases, id_: str, comment: str, flags: list[str], raw: bytes) -> None:
    try:
        env, msg = verify_envelope(raw)
    except WireError as e:
        c.add(id_, comment, flags, input=raw.hex(), result="invalid", error=type(e).__name__)
        return
    c.add(
        id_,
        comment,
        flags,
        input=raw.hex(),
        result="valid",
        signer=env.signer.hex(),
        body=env.body.hex(),
        type=type(msg).__name__.lower(),
    )


def _resign_body(raw: bytes, body: bytes, key: Identity) -> bytes:
    return encode((1, key.public_key, body, key.sign(signing_input(body))))


def envelope_vectors() -> dict[str, Any]:
    """Single envelopes: the worked example of SPEC.md 6.1 and one break per check."""
    c = Cases()
    offer = seal(ALICE, Offer(5, b"\x11" * 32, "draw"))
    _envelope_case(
        c,
        "spec-6.1-offer",
        "the envelope worked by hand in SPEC.md section 6.1",
        ["spec-example", "canonical"],
        offer,
    )
    header = make_header(bytes(range(16)), [(ALICE.public_key, "alice"), (BOB.public_key, "bob")])
    good = seal(ALICE, header)
    _envelope_case(c, "valid-header", "a header signed by slot 0", ["canonical"], good)
    e = open_envelope(offer)
    bad_sig = bytearray(offer)
    bad_sig[-1] ^= 1
    _envelope_case(
        c, "signature-flipped", "one bit of the signature flipped", ["signature"], bytes(bad_sig)
    )
    swapped = encode((1, BOB.public_key, e.body, e.signature))
    _envelope_case(c, "signer-swapped", "alice's signature under bob's key", ["signature"], swapped)
    prefixless = encode((1, ALICE.public_key, e.body, ALICE.sign(e.body)))
    _envelope_case(
        c,
        "signature-without-domain",
        "signed without the signing prefix",
        ["signature"],
        prefixless,
    )
    _envelope_case(
        c,
        "version-2",
        "envelope version 2",
        ["version"],
        encode((2, e.signer, e.body, e.signature)),
    )
    _envelope_case(
        c,
        "version-uint8",
        "version 1 written as uint8 cc01",
        ["non-canonical"],
        b"\x94\xcc\x01" + offer[2:],
    )
    _envelope_case(
        c,
        "three-fields",
        "an envelope with three fields",
        ["malformed"],
        encode((1, e.signer, e.body)),
    )
    _envelope_case(
        c,
        "signature-63",
        "a 63-byte signature",
        ["malformed"],
        encode((1, e.signer, e.body, e.signature[:63])),
    )
    _envelope_case(
        c,
        "body-as-str",
        "the body as str instead of bin",
        ["malformed"],
        encode((1, e.signer, "x", e.signature)),
    )
    _envelope_case(
        c,
        "body-non-canonical",
        "a signed body with seq 5 as uint8 cc05",
        ["non-canonical"],
        _resign_body(offer, b"\x94\x07\xcc\x05" + e.body[3:], ALICE),
    )
    _envelope_case(
        c,
        "body-unknown-type",
        "a signed body of record type 12",
        ["malformed"],
        _resign_body(offer, encode((12, 5, b"\x11" * 32)), ALICE),
    )
    _envelope_case(
        c,
        "body-wrong-arity",
        "an offer body with an extra field",
        ["malformed"],
        _resign_body(offer, encode((7, 5, b"\x11" * 32, "draw", 1)), ALICE),
    )
    _envelope_case(
        c,
        "body-bool-as-int",
        "true where seq (an int) belongs",
        ["malformed"],
        _resign_body(offer, encode((7, True, b"\x11" * 32, "draw")), ALICE),
    )
    _envelope_case(
        c,
        "body-short-hash",
        "a 31-byte previous-record hash",
        ["malformed"],
        _resign_body(offer, encode((7, 5, b"\x11" * 31, "draw")), ALICE),
    )
    _envelope_case(
        c,
        "body-float",
        "a float in the body",
        ["malformed"],
        _resign_body(
            offer, b"\x94\x07\x05\xc4\x20" + b"\x11" * 32 + b"\xca\x00\x00\x00\x00", ALICE
        ),
    )
    big = _resign_body(offer, encode((7, 5, b"\x11" * 32, "d" * 4000)), ALICE)
    _envelope_case(c, "too-large", "an envelope over 4096 bytes", ["limit"], big)
    _signature_edges(c, e.body)
    return _doc("envelope.schema.json", c)


# The identity point, its non-canonical encoding (y = p + 1) and the group order L.
_IDENTITY = b"\x01" + bytes(31)
_IDENTITY_Y_P1 = b"\xee" + b"\xff" * 30 + b"\x7f"
_ORDER_L = (2**252 + 27742317777372353535851937790883648493).to_bytes(32, "little")


def _signature_edges(c: Cases, body: bytes) -> None:
    """The edge cases of SPEC.md 4 where Ed25519 libraries differ: which verdict is ours.

    With the identity point as the key A and as R, [S]B = R + [k]A holds for S = 0 and every
    body: the cofactorless check accepts it (libsodium alone refuses small-order keys).
    """
    for id_, comment, key, r, s in [
        ("signer-small-order", "the identity point as key, R = identity, S = 0: valid",
         _IDENTITY, _IDENTITY, bytes(32)),
        ("signer-non-canonical", "the key encodes y = p + 1 (the identity): read modulo p, valid",
         _IDENTITY_Y_P1, _IDENTITY, bytes(32)),
        ("r-non-canonical", "R encodes y = p + 1: R is compared byte for byte, invalid",
         _IDENTITY, _IDENTITY_Y_P1, bytes(32)),
        ("s-equals-order", "S = L (the equation holds, S is not below L): invalid",
         _IDENTITY, _IDENTITY, _ORDER_L),
    ]:  # fmt: skip
        _envelope_case(c, id_, comment, ["signature", "edge"], encode((1, key, body, r + s)))


# -- draw -------------------------------------------------------------------------------------


def draw_vectors() -> dict[str, Any]:
    """Commitments, seeds, stream bytes and draws (SPEC.md section 11)."""
    c = Cases()
    game_id = bytes(range(16))
    setups = [
        ("spec-11-draft-2", 2, "draft", [b"\xaa" * 32, b"\xbb" * 32], ["spec-example"]),
        ("random-3", 3, "random", [b"\xaa" * 32, b"\xbb" * 32, b"\xcc" * 32], []),
        ("draft-4", 4, "draft", [bytes([i]) * 32 for i in range(4)], []),
        ("challenger-2", 2, "challenger", [bytes(32), b"\xff" * 32], []),
        ("none-3", 3, "none", [bytes([i * 7]) * 32 for i in range(3)], []),
    ]
    # Draws from a god pool (header protocol 2), after every older case.
    pooled: list[tuple[str, int, str, list[bytes], list[str], tuple[str, ...]]] = [
        (
            "pool-random-2",
            2,
            "random",
            [b"\xaa" * 32, b"\xbb" * 32],
            ["pool"],
            ("chronus", "medusa"),
        ),
        (
            "pool-draft-2-advanced",
            2,
            "draft",
            [b"\x11" * 32, b"\x22" * 32],
            ["pool"],
            tuple(g.name for g in ADVANCED),
        ),
        (
            "pool-random-3-all",
            3,
            "random",
            [b"\x33" * 32, b"\x44" * 32, b"\x55" * 32],
            ["pool"],
            tuple(g.name for g in SIMPLE + ADVANCED if g.name != "hypnus"),
        ),
        (
            "pool-random-2-ban-redraw",
            2,
            "random",
            [b"\x02" * 32, b"\x66" * 32],
            ["pool"],
            ("pan", "hades", "asteria"),
        ),
    ]
    for id_, players, gods, nonces, flags, pool in [
        *((*s, ()) for s in setups),
        *pooled,
    ]:
        keys = [p.public_key for p in PLAYERS[:players]]
        seed = draw_seed(game_id, tuple(nonces))
        stream = DrawStream(seed)
        start, drawn = draw_setup(seed, players, gods, pool or GOD_NAMES)
        extra: dict[str, Any] = {"pool": list(pool)} if pool else {}
        c.add(
            id_,
            f"the draw for {players} players, gods {gods}"
            + (f", from a pool of {len(pool)}" if pool else ""),
            flags,
            game_id=game_id.hex(),
            players=players,
            gods=gods,
            **extra,
            public_keys=[k.hex() for k in keys],
            nonces=[n.hex() for n in nonces],
            commitments=[
                commitment(game_id, k, n).hex() for k, n in zip(keys, nonces, strict=True)
            ],
            seed=seed.hex(),
            stream=bytes(stream.byte() for _ in range(16)).hex(),
            start_slot=start,
            drawn=list(drawn),
            result="valid",
        )
    return _doc("draw.schema.json", c)


# -- replays ----------------------------------------------------------------------------------


def _short_game() -> list[bytes]:
    """A short complete game: placements, one turn each, then a resignation."""
    return play_script(
        (ALICE, BOB),
        ["place b2,d4", "place b4,d2", "b2>c3^c4", "d2>d3^e4"],
        game_id=b"short game 00001",
        move_ms=60_000,
        bank_ms=300_000,
        clock_ms=2_000,
        created_ms=1_790_000_000_000,
    )


def _ended(
    ids: tuple[Identity, ...],
    actions: list[str],
    end: tuple[str, object],
    answer: str | None,
) -> bytes:
    """A short game ended otherwise than by the rules, then every seat's result.

    ``end`` is an offer (by the seat to move, or the next one), a resignation by a given seat
    or a timeout naming the seat to move; ``answer`` "accept" makes every other seat accept.
    """
    env = play_script(
        ids,
        actions,
        game_id=hashlib.blake2b(repr(end).encode(), digest_size=16).digest(),
        move_ms=60_000,
        bank_ms=300_000,
        clock_ms=2_000,
        created_ms=1_790_000_000_000,
        finish=False,
    )
    v = validate(env)
    p = v.position
    assert p is not None
    by_key = {i.public_key: i for i in ids}

    def seat(k: int) -> Identity:
        return by_key[v.seats[k]]

    kind, arg = end
    offerer = p.to_move if kind != "offer-other" else (p.to_move + 1) % p.players
    if kind.startswith("offer"):
        env.append(v.make_offer(seat(offerer), str(arg)))
    elif kind == "resign-seat":
        assert isinstance(arg, int)
        env.append(v.make_resign(seat(arg)))
    else:
        assert isinstance(arg, int)
        claimer = (arg + 1) % p.players
        env.append(v.make_timeout(seat(claimer)))
    v.feed(env[-1])
    if answer == "accept":
        for k in range(p.players):
            if k != offerer and not v.is_over:
                env.append(v.make_accept(seat(k)))
                v.feed(env[-1])
    assert v.is_over
    for k in range(p.players):
        env.append(v.make_result(seat(k)))
        v.feed(env[-1])
    return encode_frames(env)


def _after(env: list[bytes], k: int) -> Validator:
    return validate(env[:k])


def _replay_case(
    c: Cases, id_: str, comment: str, flags: list[str], data: bytes, file: str | None = None
) -> None:
    fields: dict[str, Any] = {"file": file} if file else {"input": data.hex()}
    if file:
        fields["sha256"] = hashlib.sha256(data).hexdigest()
    try:
        v = read_log(data)
    except ReplayError as e:
        cause = e.__cause__
        c.add(
            id_,
            comment,
            flags,
            **fields,
            result="invalid",
            error=type(cause).__name__,
            record=e.record_index,
        )
        return
    res = v.result
    assert res is not None
    assert v.position is not None
    c.add(
        id_,
        comment,
        flags,
        **fields,
        result="valid",
        records=v.next_seq,
        turns=v.turns,
        winner=res[0],
        reason=res[1],
        state_hash=v.state_hash.hex(),
        seats=[k.hex() for k in v.seats],
        gods=list(v.position.gods),
        **({"pool": list(v.header.pool)} if v.header and v.header.pool else {}),
        # Only cases of a header with an option of protocol 2 name the version and options,
        # so every earlier case reads as it always did.
        **(
            {"protocol": v.header.protocol, "options": list(v.header.options)}
            if v.header and ({"takeback", "chat"} & set(v.header.options) or v.header.protocol >= 3)
            else {}
        ),
    )


def _tamper(env: list[bytes], k: int, make: Callable[[Validator], bytes]) -> bytes:
    """The file with record ``k`` replaced by ``make(validator after records 0..k-1)``."""
    out = list(env)
    out[k] = make(_after(env, k))
    return encode_frames(out)


def replay_vectors() -> tuple[dict[str, Any], dict[str, bytes]]:
    """Complete games (as files) and tampered short games (inline), with the verdicts."""
    c = Cases()
    files: dict[str, bytes] = {}
    full = [
        ("2p-none", (ALICE, BOB), "none", 11, 0, 0),
        ("2p-challenger-timed", (ALICE, BOB), "challenger", 12, 60_000, 300_000),
        ("3p-draft", (ALICE, BOB, CAROL), "draft", 13, 0, 0),
        ("4p-random", PLAYERS, "random", 14, 0, 0),
        # The seed is one whose game ends with the seat to move left with no complete turn.
        ("2p-stuck", (ALICE, BOB), "none", 2, 0, 0),
    ]
    for name, ids, gods, seed, move_ms, bank_ms in full:
        rng = random.Random(seed)
        env = play_script(
            ids,
            lambda p, rng=rng: format_action(rng.choice(legal_actions(p))),  # type: ignore[misc]
            game_id=hashlib.blake2b(name.encode(), digest_size=16).digest(),
            gods=gods,  # type: ignore[arg-type]
            move_ms=move_ms,
            bank_ms=bank_ms,
            clock_ms=1_234 if move_ms else 0,
            created_ms=1_790_000_000_000,
        )
        data = encode_frames(env)
        files[f"replays/{name}.sntr"] = data
        _replay_case(
            c,
            f"game-{name}",
            f"a complete random game: {len(ids)} players, {gods}",
            ["canonical"],
            data,
            file=f"replays/{name}.sntr",
        )

    env = _short_game()
    good = encode_frames(env)
    _replay_case(c, "short-valid", "a short complete game ending by resignation", [], good)
    # Endings other than a win or a resignation by the seat to move: the position after
    # them (seat to move, winner) is in SPEC.md 8.1.
    _replay_case(
        c,
        "end-draw-accepted",
        "the seat to move offers a draw and the other accepts: no winner (-1), reason draw",
        [],
        _ended((ALICE, BOB), ["place b2,d4", "place b4,d2"], ("offer", "draw"), "accept"),
    )
    _replay_case(
        c,
        "end-abort-accepted",
        "an abort offered by the seat not to move and accepted: no winner, reason abort",
        [],
        _ended((ALICE, BOB), ["place b2,d4", "place b4,d2"], ("offer-other", "abort"), "accept"),
    )
    _replay_case(
        c,
        "end-4p-resign",
        "4 players: seat 3 resigns while seat 1 is to move; its team loses, and the winner "
        "is the seat after it (seat 4)",
        [],
        _ended(PLAYERS, ["place b2,d4", "place b4,d2"], ("resign-seat", 2), None),
    )
    _replay_case(
        c,
        "end-timeout",
        "seat 2 claims seat 1 (to move) out of time: seat 2 wins, reason time",
        [],
        _ended((ALICE, BOB), ["place b2,d4", "place b4,d2"], ("timeout", 0), None),
    )
    # Framing.
    _replay_case(c, "not-a-replay", "text, not a replay file", ["framing"], b"hello world\n")
    _replay_case(
        c,
        "file-version-2",
        "replay file format version 2",
        ["version", "framing"],
        FILE_MAGIC + b"\x02" + good[5:],
    )
    _replay_case(c, "empty-log", "the magic and version with no records", ["framing"], good[:5])
    cut = 5 + sum(4 + len(r) for r in env[:6]) + 30
    _replay_case(
        c, "truncated-mid-record", "the file ends inside record 6", ["framing"], good[:cut]
    )
    _replay_case(
        c,
        "truncated-at-boundary",
        "the file ends after record 9 (no result)",
        ["framing"],
        encode_frames(env[:10]),
    )
    at = 5 + sum(4 + len(r) for r in env[:4])
    big = good[:at] + (5000).to_bytes(4, "big") + good[at + 4 :]
    _replay_case(c, "frame-too-large", "record 4's length prefix says 5000 bytes", ["limit"], big)
    # Signatures and the signer's right.
    flipped = bytearray(good)
    flipped[5 + sum(4 + len(r) for r in env[:7]) - 1] ^= 0x01
    _replay_case(
        c,
        "signature-flipped",
        "the last byte of record 6's signature flipped",
        ["signature", "tampered"],
        bytes(flipped),
    )

    def wrong_seat(v: Validator) -> bytes:
        p = v.position
        assert p is not None
        other = ALICE if v.seats[p.to_move] == BOB.public_key else BOB
        return v.make_act(other, "place b2,d4")

    _replay_case(
        c,
        "act-by-wrong-seat",
        "the seat not to move signs the first placement",
        ["signature"],
        _tamper(env, 5, wrong_seat),
    )
    _replay_case(
        c,
        "act-by-stranger",
        "a key that holds no seat signs record 5",
        ["signature"],
        _tamper(env, 5, lambda v: v.make_act(MALLORY, "place b2,d4")),
    )
    _replay_case(
        c,
        "header-by-slot-1",
        "the header signed by slot 1, not the host",
        ["signature"],
        _tamper(env, 0, lambda v: seal(BOB, _header(env))),
    )
    # Chain.
    _replay_case(
        c,
        "record-dropped",
        "record 4 removed",
        ["chain", "tampered"],
        encode_frames(env[:4] + env[5:]),
    )
    _replay_case(
        c,
        "records-swapped",
        "records 6 and 7 swapped",
        ["chain", "tampered"],
        encode_frames([*env[:6], env[7], env[6], *env[8:]]),
    )
    _replay_case(
        c,
        "record-duplicated",
        "record 8 appears twice",
        ["chain", "tampered"],
        encode_frames([*env[:9], env[8], *env[9:]]),
    )

    def wrong_seq(v: Validator) -> bytes:
        p = v.position
        assert p is not None
        from santorini_p2p.engine import apply_action, parse_action, state_hash

        after = state_hash(apply_action(p, parse_action("place b2,d4")))
        who = ALICE if v.seats[p.to_move] == ALICE.public_key else BOB
        return seal(who, Act(v.next_seq + 1, v.last_hash, "place b2,d4", 0, after))

    _replay_case(
        c, "wrong-seq", "record 5 says it is record 6", ["chain"], _tamper(env, 5, wrong_seq)
    )
    # Versions.
    _replay_case(
        c,
        "protocol-2",
        "a header of protocol version 2",
        ["version"],
        _tamper(env, 0, lambda v: _seal_short_header(_header(env), 2)),
    )
    e3 = open_envelope(env[3])
    _replay_case(
        c,
        "envelope-version-2",
        "record 3 in envelope version 2",
        ["version"],
        encode_frames([*env[:3], encode((2, e3.signer, e3.body, e3.signature)), *env[4:]]),
    )
    _replay_case(
        c,
        "envelope-non-canonical",
        "record 3 with its version as uint8 cc01",
        ["non-canonical"],
        encode_frames([*env[:3], b"\x94\xcc\x01" + env[3][2:], *env[4:]]),
    )
    # Order and content.
    _replay_case(
        c,
        "reveal-mismatch",
        "slot 0 reveals a nonce it did not commit to",
        ["order"],
        _tamper(env, 3, lambda v: seal(ALICE, Reveal(3, v.last_hash, bytes(32)))),
    )

    def act_before_ack(v: Validator) -> bytes:
        p = v.position
        assert p is not None
        mover = ALICE if v.seats[p.to_move] == ALICE.public_key else BOB
        return seal(mover, Act(v.next_seq, v.last_hash, "place a1,e5", 0, bytes(32)))

    _replay_case(
        c,
        "act-before-ack",
        "the next placement comes before the ack of record 5",
        ["order"],
        _tamper(env, 6, act_before_ack),
    )
    _replay_case(
        c,
        "result-too-early",
        "a result while the game is still on",
        ["order"],
        _tamper(
            env, 7, lambda v: seal(_seat(v, 0), Result(7, v.last_hash, 0, "win", v.state_hash))
        ),
    )
    _replay_case(
        c,
        "stray-offer-after-result",
        "an offer after the first result",
        ["order"],
        encode_frames(
            [
                *env[:-1],
                _after(env, len(env) - 1).make_offer(_seat(_after(env, len(env) - 1), 1), "draw"),
            ]
        ),
    )

    def illegal(v: Validator) -> bytes:
        p = v.position
        assert p is not None
        mover = _seat(v, p.to_move)
        return seal(mover, Act(v.next_seq, v.last_hash, "place b2,c3", 0, v.state_hash))

    _replay_case(
        c,
        "illegal-placement",
        "the second side places on an occupied square",
        ["rules"],
        _tamper(env, 7, illegal),
    )
    _replay_case(
        c,
        "act-state-hash",
        "the first placement claims the wrong state hash",
        ["state-hash"],
        _tamper(
            env, 5, lambda v: seal(_seat(v, 0), Act(5, v.last_hash, "place b2,d4", 0, bytes(32)))
        ),
    )
    _replay_case(
        c,
        "ack-state-hash",
        "the ack of record 5 claims the wrong state hash",
        ["state-hash"],
        _tamper(env, 6, lambda v: seal(_seat(v, 1), Ack(6, v.last_hash, 5, bytes(32)))),
    )
    _pool_replays(c, files)
    _takeback_replays(c, files)
    _chat_replays(c, files)
    _rematch_replays(c, files)
    _memory_replays(c, files)
    _choice_replays(c, files)
    return _doc("replays.schema.json", c), files


def _memory_replays(c: Cases, files: dict[str, bytes]) -> None:
    """Games with the gods of RULES.md section 10, after every older case.

    The first names Selene's female worker at placement (``place ..*``) and has Siren sing
    (``song D``), each signed by the seat that decides; the second plays two heroes.
    """
    games: list[tuple[str, str, tuple[str, ...], int]] = [
        ("2p-memory-selene-siren", "random", ("selene", "siren"), 41),
        ("2p-heroes-adonis-jason", "random", ("adonis", "jason"), 42),
    ]
    for name, gods, pool, seed in games:
        rng = random.Random(seed)
        env = play_script(
            (ALICE, BOB),
            lambda p, rng=rng: format_action(rng.choice(legal_actions(p))),  # type: ignore[misc]
            game_id=hashlib.blake2b(name.encode(), digest_size=16).digest(),
            gods=gods,  # type: ignore[arg-type]
            created_ms=1_790_000_000_000,
            pool=pool,
        )
        data = encode_frames(env)
        files[f"replays/{name}.sntr"] = data
        _replay_case(
            c,
            f"game-{name}",
            f"a complete random game of {' and '.join(pool)} (RULES.md 10): their states, "
            "setup choices and turn texts",
            ["canonical", "pool", "memory"],
            data,
            file=f"replays/{name}.sntr",
        )


def _choice_replays(c: Cases, files: dict[str, bytes]) -> None:
    """Protocol 3: Gaea's choices in her opponent's turns, asked and answered (SPEC.md 8.4).

    A complete random game of Gaea against Hestia in which Gaea answers ``-`` twice and
    puts a worker on a4 once in Hestia's turns, then the invalid cases made from the place
    of its first ask, and a header of protocol 4.
    """
    name = "2p-gaea-asks"
    rng = random.Random(68)
    env = play_script(
        (ALICE, BOB),
        lambda p, rng=rng: format_action(rng.choice(legal_actions(p))),  # type: ignore[misc]
        game_id=hashlib.blake2b(name.encode(), digest_size=16).digest(),
        gods="random",
        created_ms=1_790_000_000_000,
        pool=("gaea", "hestia"),
    )
    data = encode_frames(env)
    files[f"replays/{name}.sntr"] = data
    _replay_case(
        c,
        f"game-{name}",
        "a complete random game of gaea and hestia (protocol 3): before each turn in "
        "which Gaea chooses, the mover's ask and her answer, signed by her seat; the third "
        "answer puts her worker on a4",
        ["canonical", "pool", "memory", "ask"],
        data,
        file=f"replays/{name}.sntr",
    )
    v = validate(env)
    k = next(r.index for r in v.records if isinstance(r.message, Ask))
    last = next(r.index for r in reversed(v.records) if isinstance(r.message, Answer))
    before = _after(env, k)
    p = before.position
    assert p is not None
    mover = _seat(before, p.to_move)
    gaea = _seat(before, 1 - p.to_move)
    asked = cast(Ask, v.records[k].message).asked
    act = next(r.message for r in v.records[k:] if isinstance(r.message, Act))
    assert isinstance(act, Act)

    def run(*steps: tuple[str, Identity, str]) -> bytes:
        w = _after(env, k)
        out = list(env[:k])
        for kind, who, text in steps:
            if kind == "ask":
                raw = w.make_ask(who, text)
            elif kind == "answer":
                raw = w.make_answer(who, text)
            else:
                raw = w.make_act(who, text)
            out.append(raw)
            try:
                w.feed(raw)
            except ReplayError:
                break
        return encode_frames(out)

    _replay_case(
        c,
        "ask-answer-wrong-seat",
        "the answer to the mover's ask signed by the mover, not by Gaea's seat",
        ["ask", "signature"],
        run(("ask", mover, asked), ("answer", mover, "-")),
    )
    _replay_case(
        c,
        "ask-by-other-seat",
        "an ask signed by Gaea's seat, whose turn it is not",
        ["ask", "signature"],
        run(("ask", gaea, asked)),
    )
    _replay_case(
        c,
        "ask-act-unanswered",
        "the mover's act with no ask and answer before it, where Gaea chooses",
        ["ask", "order"],
        run(("act", mover, act.action)),
    )
    allowed = choice_options(p, (), asked)[1]
    refused = next(f"+{n}" for n in SQUARE_NAMES if f"+{n}" not in allowed)
    _replay_case(
        c,
        "ask-answer-not-allowed",
        f"Gaea answers with a square she may not take ({refused[1:]})",
        ["ask", "rules"],
        run(("ask", mover, asked), ("answer", gaea, refused)),
    )
    _replay_case(
        c,
        "ask-nothing-to-choose",
        "an ask at a point where no other seat chooses (no dome)",
        ["ask", "rules"],
        run(("ask", mover, asked.split("^")[0])),
    )
    _replay_case(
        c,
        "ask-act-after-open-ask",
        "the mover acts while Gaea's answer is owed",
        ["ask", "order"],
        run(("ask", mover, asked), ("act", mover, act.action)),
    )
    # The last choice of the game put her worker down; an act that does otherwise is refused.
    w = _after(env, last + 1)
    lp = w.position
    assert lp is not None
    put = cast(Answer, v.records[last].message).answer
    placed = next(r.message for r in v.records[last:] if isinstance(r.message, Act))
    assert isinstance(placed, Act)
    assert put in placed.action
    out = list(env[: last + 1])
    out.append(w.make_act(_seat(w, lp.to_move), placed.action.replace(put, "")))
    _replay_case(
        c,
        "ask-act-against-answer",
        f"the mover's act leaves out the worker Gaea's signed answer put on {put[1:]}",
        ["ask", "rules"],
        encode_frames(out),
    )
    head = _header(env)
    _replay_case(
        c,
        "protocol-4",
        "a header of protocol version 4",
        ["version"],
        _tamper(env, 0, lambda v: seal(ALICE, replace(head, protocol=4))),
    )


def _chat_replays(c: Cases, files: dict[str, bytes]) -> None:
    """Games with chat lines (header option ``chat``, protocol 2), after every older case."""
    from santorini_p2p.wire.messages import Chat

    name = "2p-chat"
    ids = (ALICE, BOB)
    rng = random.Random(41)
    env = play_script(
        ids,
        [],
        game_id=hashlib.blake2b(name.encode(), digest_size=16).digest(),
        options=("chat", "takeback"),
        created_ms=1_790_000_000_000,
        finish=False,
    )
    v = validate(env)
    by_key = {i.public_key: i for i in ids}
    # The fourth line is 200 characters, the longest allowed.
    lines = ["good luck!", "héllo, ça va ? 🙂", "you too", ("well played, " * 16)[:199] + "!", "gg"]

    def say(who: Identity, text: str) -> None:
        env.append(v.make_chat(who, text))
        v.feed(env[-1])

    say(BOB, lines[0])
    k = 1
    while not v.is_over:
        p = v.position
        assert p is not None
        mover = by_key[v.seats[p.to_move]]
        env.append(v.make_act(mover, format_action(rng.choice(legal_actions(p)))))
        v.feed(env[-1])
        if k < len(lines) - 1 and v.turns in (1, 4, 9):
            say(mover, lines[k])  # between an act and its ack
            k += 1
        while v.pending_acks:
            env.append(v.make_ack(by_key[v.seats[v.pending_acks[0]]]))
            v.feed(env[-1])
    say(ALICE, lines[-1])  # after the game is over, before the first result
    for seat in range(2):
        env.append(v.make_result(by_key[v.seats[seat]]))
        v.feed(env[-1])
    data = encode_frames(env)
    files[f"replays/{name}.sntr"] = data
    _replay_case(
        c,
        f"game-{name}",
        "a complete random game with chat lines: before the first act, between an act and "
        "its ack, and after the game is over",
        ["canonical", "chat"],
        data,
        file=f"replays/{name}.sntr",
    )
    short = play_script(
        ids, ["place b2,d4"], game_id=b"chat game 000001", options=("chat",), finish=False
    )
    sv = validate(short)

    def chat_case(id_: str, comment: str, flags: list[str], record: bytes) -> None:
        _replay_case(c, id_, comment, ["chat", *flags], encode_frames([*short, record]))

    def sealed(text: str) -> bytes:
        return seal(BOB, Chat(sv.next_seq, sv.last_hash, text))

    chat_case("chat-too-long", "a chat line of 201 characters", ["limit"], sealed("x" * 201))
    chat_case("chat-empty", "an empty chat line", ["order"], sealed(""))
    chat_case("chat-newline", "a chat line with a line feed", ["order"], sealed("a\nb"))
    chat_case(
        "chat-bidi",
        "a chat line with a right-to-left override (format)",
        ["order"],
        sealed("a\u202eb"),
    )
    chat_case(
        "chat-stranger",
        "a chat line signed by a key with no seat",
        ["signature"],
        seal(MALLORY, Chat(sv.next_seq, sv.last_hash, "hi")),
    )
    plain = play_script(ids, ["place b2,d4"], game_id=b"chat game 000002", finish=False)
    pv = validate(plain)
    _replay_case(
        c,
        "chat-not-allowed",
        "a chat record in a game whose header does not list the option chat",
        ["chat", "order"],
        encode_frames([*plain, seal(ALICE, Chat(pv.next_seq, pv.last_hash, "hi"))]),
    )
    early = validate(short[:3])
    _replay_case(
        c,
        "chat-before-the-draw",
        "a chat record in place of a commit",
        ["chat", "order"],
        encode_frames([*short[:3], seal(BOB, Chat(3, early.last_hash, "hi"))]),
    )


def _takeback_game(ids: tuple[Identity, ...], gods: str, seed: int, name: str) -> list[bytes]:
    """A random game allowing takebacks, some turns taken back, some requests lapsing.

    The mover of every third turn of play asks to take it back; every other seat still playing
    accepts every second such request (the others lapse with the next act).
    """
    from santorini_p2p.engine import Phase

    rng = random.Random(seed)
    env = play_script(
        ids,
        [],
        game_id=hashlib.blake2b(name.encode(), digest_size=16).digest(),
        gods=gods,  # type: ignore[arg-type]
        options=("takeback",),
        created_ms=1_790_000_000_000,
        finish=False,
    )
    v = validate(env)
    by_key = {i.public_key: i for i in ids}
    asked = 0
    while not v.is_over and v.next_seq < 300:
        p = v.position
        assert p is not None
        mover = by_key[v.seats[p.to_move]]
        playing = p.phase is Phase.PLAY
        env.append(v.make_act(mover, format_action(rng.choice(legal_actions(p)))))
        v.feed(env[-1])
        while v.pending_acks:
            env.append(v.make_ack(by_key[v.seats[v.pending_acks[0]]]))
            v.feed(env[-1])
        if playing and not v.is_over and v.turns % 3 == 0:
            env.append(v.make_offer(mover, "takeback"))
            v.feed(env[-1])
            asked += 1
            offer = v.takeback_offer
            if asked % 2 == 1 and offer is not None:
                for seat in offer.waiting:
                    env.append(v.make_accept(by_key[v.seats[seat]]))
                    v.feed(env[-1])
    if not v.is_over:
        p = v.position
        assert p is not None
        env.append(v.make_resign(by_key[v.seats[p.to_move]]))
        v.feed(env[-1])
    for k in range(len(ids)):
        env.append(v.make_result(by_key[v.seats[k]]))
        v.feed(env[-1])
    return env


def _takeback_replays(c: Cases, files: dict[str, bytes]) -> None:
    """Games allowing takebacks (header option ``takeback``, protocol 2), after every older case."""
    for name, ids, gods, seed in [
        ("2p-takeback", (ALICE, BOB), "none", 31),
        ("3p-takeback-random", (ALICE, BOB, CAROL), "random", 32),
    ]:
        data = encode_frames(_takeback_game(ids, gods, seed, name))
        files[f"replays/{name}.sntr"] = data
        _replay_case(
            c,
            f"game-{name}",
            f"a complete random game allowing takebacks: {len(ids)} players, {gods}; some "
            "turns taken back, other requests lapse",
            ["canonical", "takeback"],
            data,
            file=f"replays/{name}.sntr",
        )
    env = play_script(
        (ALICE, BOB),
        ["place b2,d4", "place b4,d2", "b2>c3^c4"],
        game_id=b"takeback game 01",
        options=("takeback",),
        finish=False,
    )
    # records: 0 header, 1-2 commits, 3-4 reveals, 5-8 placements and acks, 9 a turn, 10 ack
    v = validate(env)
    mover = _seat(v, v.seats.index(v.records[9].signer))
    other = ALICE if mover is BOB else BOB
    offer = v.make_offer(mover, "takeback")
    _replay_case(
        c,
        "takeback-wrong-signer",
        "a takeback offer signed by the seat that did not play the last turn",
        ["takeback", "signature"],
        encode_frames([*env, v.make_offer(other, "takeback")]),
    )
    early = validate(env[:10])
    _replay_case(
        c,
        "takeback-before-ack",
        "a takeback offer before the other seat acknowledged the turn",
        ["takeback", "order"],
        encode_frames([*env[:10], early.make_offer(mover, "takeback")]),
    )
    v.feed(offer)
    _replay_case(
        c,
        "takeback-accept-by-asker",
        "the asking seat signs the acceptance of its own takeback offer (a forged acceptance)",
        ["takeback", "signature"],
        encode_frames([*env, offer, v.make_accept(mover)]),
    )
    after = validate(env)
    p = after.position
    assert p is not None
    reply = after.make_act(other, format_action(legal_actions(p)[0]))
    after.feed(reply)
    ack = after.make_ack(mover)
    after.feed(ack)
    _replay_case(
        c,
        "takeback-after-the-next-turn",
        "a takeback offer of a turn after the opponent has moved",
        ["takeback", "signature"],
        encode_frames([*env, reply, ack, after.make_offer(mover, "takeback")]),
    )
    plain = play_script(
        (ALICE, BOB),
        ["place b2,d4", "place b4,d2", "b2>c3^c4"],
        game_id=b"takeback game 02",
        finish=False,
    )
    pv = validate(plain)
    asker = _seat(pv, pv.seats.index(pv.records[9].signer))
    _replay_case(
        c,
        "takeback-not-allowed",
        "a takeback offer in a game whose header does not list the option takeback",
        ["takeback", "order"],
        encode_frames([*plain, pv.make_offer(asker, "takeback")]),
    )
    head = _header(env)
    _replay_case(
        c,
        "takeback-option-protocol-1",
        "the option takeback in a protocol 1 header",
        ["takeback", "version"],
        _tamper(env, 0, lambda v: _seal_short_header(replace(head, protocol=1), 1)),
    )


def _pool_replays(c: Cases, files: dict[str, bytes]) -> None:
    """Games drawing from a god pool (header protocol 2), after every older case."""
    games: list[tuple[str, tuple[Identity, ...], str, tuple[str, ...], int]] = [
        ("2p-pool-random", (ALICE, BOB), "random", ("chronus", "medusa"), 21),
        ("2p-pool-challenger", (ALICE, BOB), "challenger", ("bia", "hera", "limus", "zeus"), 22),
    ]
    for name, ids, gods, pool, seed in games:
        rng = random.Random(seed)
        env = play_script(
            ids,
            lambda p, rng=rng: format_action(rng.choice(legal_actions(p))),  # type: ignore[misc]
            game_id=hashlib.blake2b(name.encode(), digest_size=16).digest(),
            gods=gods,  # type: ignore[arg-type]
            created_ms=1_790_000_000_000,
            pool=pool,
        )
        data = encode_frames(env)
        files[f"replays/{name}.sntr"] = data
        _replay_case(
            c,
            f"game-{name}",
            f"a complete random game: {len(ids)} players, {gods} from the pool {','.join(pool)}",
            ["canonical", "pool"],
            data,
            file=f"replays/{name}.sntr",
        )
    env = play_script(
        (ALICE, BOB),
        ["place b2,d4", "place b4,d2"],
        game_id=bytes(range(16)),
        gods="random",
        pool=("chronus", "medusa"),
    )
    head = _header(env)
    _replay_case(
        c,
        "protocol-3",
        "a header of protocol version 3 with neither a secret, party or agora option nor a god "
        "that chooses in another seat's turn (gaea) in its pool: protocol 3 is written only then",
        ["version"],
        _tamper(env, 0, lambda v: seal(ALICE, replace(head, protocol=3))),
    )
    _replay_case(
        c,
        "pool-unknown-god",
        "a pool naming a god this reader does not know (odin)",
        ["pool", "order"],
        _tamper(env, 0, lambda v: seal(ALICE, replace(head, pool=("chronus", "odin")))),
    )
    _replay_case(
        c,
        "pool-out-of-order",
        "a pool not in god order",
        ["pool", "order"],
        _tamper(env, 0, lambda v: seal(ALICE, replace(head, pool=("medusa", "chronus")))),
    )
    _replay_case(
        c,
        "pool-simple-as-protocol-2",
        "the ten simple gods written as a protocol 2 pool (they are written as protocol 1)",
        ["pool", "order"],
        _tamper(env, 0, lambda v: seal(ALICE, replace(head, pool=GOD_NAMES))),
    )
    _replay_case(
        c,
        "pool-too-small",
        "a pool of one god for a random deal to 2 players",
        ["pool", "order"],
        _tamper(env, 0, lambda v: seal(ALICE, replace(head, pool=("zeus",)))),
    )


def _seal_short_header(h: Header, protocol: int) -> bytes:
    """``h`` sealed by slot 0 with its ``protocol`` set but protocol 1's 11 fields (no pool)."""
    from santorini_p2p.wire.envelope import signing_input
    from santorini_p2p.wire.messages import encode_body

    body = encode_body(replace(h, protocol=1))
    value = decode(body)
    assert isinstance(value, tuple)
    short = encode((*value[:4], protocol, *value[5:]))
    return encode((1, ALICE.public_key, short, ALICE.sign(signing_input(short))))


def _header(env: list[bytes]) -> Header:
    from santorini_p2p.wire.messages import decode_body

    h = decode_body(open_envelope(env[0]).body)
    assert isinstance(h, Header)
    return h


def _seat(v: Validator, seat: int) -> Identity:
    key = v.seats[seat]
    return next(i for i in (*PLAYERS, MALLORY) if i.public_key == key)


def _dump(doc: dict[str, Any]) -> str:
    return json.dumps(doc, indent=2, ensure_ascii=False) + "\n"


def _rematch_replays(c: Cases, files: dict[str, bytes]) -> None:
    """A rematch's game (header option start=K, SPEC.md 11), after every older case."""
    name = "2p-rematch"
    game_id = hashlib.blake2b(name.encode(), digest_size=16).digest()
    nonces = tuple(script_nonce(game_id, slot) for slot in range(2))
    drawn_start, drawn = draw_setup(draw_seed(game_id, nonces), 2, "random")
    start = 1 - drawn_start  # the option at work: the draw alone gives the other slot
    rng = random.Random(31)
    env = play_script(
        (ALICE, BOB),
        lambda p: format_action(rng.choice(legal_actions(p))),
        game_id=game_id,
        gods="random",
        options=(f"start={start}",),
        created_ms=1_790_000_000_000,
    )
    v = read_log(encode_frames(env))
    assert v.seats[0] == (ALICE, BOB)[start].public_key
    assert v.drawn == drawn
    data = encode_frames(env)
    files[f"replays/{name}.sntr"] = data
    _replay_case(
        c,
        f"game-{name}",
        f"a rematch's complete game, 2 players, random gods: the header option start={start} "
        f"makes slot {start} seat 1, where the draw gives slot {drawn_start}; the gods are "
        "drawn from the same bytes as without the option",
        ["canonical", "rematch"],
        data,
        file=f"replays/{name}.sntr",
    )
    short = play_script((ALICE, BOB), ["place b2,d4", "place b4,d2"], game_id=bytes(range(16)))
    head = _header(short)
    for ident, option, comment in (
        ("start-no-such-slot", ("start=2",), "start=2 with 2 players: no such slot"),
        ("start-leading-zero", ("start=01",), "start=01: a slot is written with no leading zero"),
        ("start-twice", ("start=0", "start=1"), "two start options"),
    ):
        _replay_case(
            c,
            ident,
            comment,
            ["rematch"],
            _tamper(short, 0, lambda v, o=option: seal(ALICE, replace(head, options=o))),  # type: ignore[misc]
        )


def main() -> int:
    """Write (or with ``--check`` compare) every wire vector file."""
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--check", action="store_true", help="compare, do not write")
    args = parser.parse_args()
    replays, files = replay_vectors()
    outputs: dict[str, bytes] = {
        "codec.json": _dump(codec_vectors()).encode(),
        "envelope.json": _dump(envelope_vectors()).encode(),
        "draw.json": _dump(draw_vectors()).encode(),
        "replays.json": _dump(replays).encode(),
        **files,
    }
    stale = []
    for name, data in outputs.items():
        path = VECTORS / name
        if args.check:
            if not path.exists() or path.read_bytes() != data:
                stale.append(name)
            continue
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_bytes(data)
        print(f"wrote {path.relative_to(PROTOCOL.parent)}")
    if stale:
        print("stale: " + ", ".join(stale), file=sys.stderr)
        return 1
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
