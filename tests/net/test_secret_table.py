"""Secret-god games between bots over 127.0.0.1 (SECRET.md 6 to 8): every peer holds the same
signed log, which verifies; openings, objections and forfeits travel as the document says."""

from __future__ import annotations

import asyncio

import pytest

from santorini_p2p.net.secrettable import SecretBot, SecretPeer, play_table
from santorini_p2p.wire.secretgame import DEFAULT_POOL, SecretGame, SecretRecord
from santorini_p2p.wire.secretlog import read_records


def _play(bots: list[SecretBot], clock: float = 5.0) -> list[SecretPeer]:
    return asyncio.run(play_table(bots, DEFAULT_POOL, clock=clock, limit=150.0))


def _records(peer: SecretPeer) -> list[SecretRecord]:
    return read_records(peer.log, peer.keys, 1, peer.first_prev)


def _verified(peers: list[SecretPeer]) -> tuple[list[SecretRecord], tuple[int, str]]:
    """Every peer's log is the same bytes, and a fresh reader reaches every peer's result."""
    assert len({b"".join(p.log) for p in peers}) == 1
    results = {p.game.result for p in peers if p.game is not None}
    assert len(results) == 1
    (result,) = results
    assert result is not None
    records = _records(peers[0])
    reader = SecretGame(peers[0].pool, len(peers))
    for r in records:
        reader.feed(r)
    assert reader.result == result
    return records, result


@pytest.mark.parametrize(("players", "tag"), [(2, b"two"), (3, b"three")])
def test_secret_games_finish_with_identical_logs_that_verify(players: int, tag: bytes) -> None:
    peers = _play([SecretBot(s, tag + bytes([s])) for s in range(players)])
    records, (winner, reason) = _verified(peers)
    print(players, [type(r).__name__ for r in records if type(r).__name__ in ("Object", "Open")], reason)
    assert "audited" in reason
