"""A secret game's records signed and chained (SECRET.md 6, 12): tampering is found by number."""

from __future__ import annotations

import pytest

from santorini_p2p.errors import ChainError, SignatureError
from santorini_p2p.wire.envelope import chain_hash
from santorini_p2p.wire.identity import Identity
from santorini_p2p.wire.secretgame import (
    Ack,
    Move,
    Open,
    SecretGame,
    SecretRecord,
    decode_record,
)
from santorini_p2p.wire.secretlog import read_records, seal_record
from tests.test_secret_game import Bot, Table, _deal, _pool

IDS = [Identity.from_seed(bytes([s + 1]) * 32, f"p{s}") for s in range(3)]
KEYS = [i.public_key for i in IDS]
PREV = b"\x07" * 32


def _seal(records: list[SecretRecord], first: int = 11) -> list[bytes]:
    out, prev = [], PREV
    for i, r in enumerate(records):
        raw = seal_record(IDS[r.seat], first + i, prev, r)
        out.append(raw)
        prev = chain_hash(raw)
    return out


def test_a_whole_game_signed_and_chained_reads_back_and_verifies() -> None:
    bots = [Bot(s, "c") for s in range(3)]
    pool = _pool("c")
    table = Table(bots, pool)
    table.play(pool)
    records = [decode_record(d) for d in table.log]
    sealed = _seal(records)
    assert all(len(raw) <= 4096 for raw in sealed)
    back = read_records(sealed, KEYS, 11, PREV)
    assert back == records
    reader = SecretGame(pool, 3)
    for r in back:
        reader.feed(r)
    assert reader.result == table.game.result


def test_tampering_is_found_at_its_record() -> None:
    bots = [Bot(s, "t") for s in range(2)]
    records: list[SecretRecord] = [*_deal(bots, _pool("a")), Move(0, "c3,a1")]
    sealed = _seal(records)
    bad = bytearray(sealed[2])
    bad[-70] ^= 1
    with pytest.raises(SignatureError, match="record 13: the signature does not verify"):
        read_records([*sealed[:2], bytes(bad), *sealed[3:]], KEYS[:2], 11, PREV)
    with pytest.raises(ChainError, match="record 12"):
        read_records([sealed[0], sealed[2]], KEYS[:2], 11, PREV)
    with pytest.raises(SignatureError, match="holds no seat"):
        read_records(sealed, KEYS[1:], 11, PREV)


def test_a_record_signed_by_another_seat_is_that_seat_s() -> None:
    raw = seal_record(IDS[1], 11, PREV, Ack(0, 9))
    (r,) = read_records([raw], KEYS, 11, PREV)
    assert r == Ack(1, 9)
    raw = seal_record(IDS[0], 11, PREV, Open(0, "athena", b"\x80" * 32))
    assert read_records([raw], KEYS, 11, PREV) == [Open(0, "athena", b"\x80" * 32)]
