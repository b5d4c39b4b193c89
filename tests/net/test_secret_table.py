"""Secret-god games between bots over 127.0.0.1 (SECRET.md 6 to 8): every peer holds the same
signed log, which verifies; openings, objections and forfeits travel as the document says."""

from __future__ import annotations

import asyncio
from pathlib import Path

import pytest

from santorini_p2p.cli import main
from santorini_p2p.net.secrettable import SecretBot, SecretPeer, play_table
from santorini_p2p.wire.secret import card_of, to_bytes
from santorini_p2p.wire.secretgame import (
    DEFAULT_POOL,
    Forfeit,
    Object,
    Open,
    SecretGame,
    SecretRecord,
)
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
def test_secret_games_finish_with_identical_logs_that_verify(
    players: int, tag: bytes, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    peers = _play([SecretBot(s, tag + bytes([s])) for s in range(players)])
    records, (winner, reason) = _verified(peers)
    assert len({p.replay() for p in peers}) == 1
    good = tmp_path / "secret.sntr"
    good.write_bytes(peers[1].replay())
    assert main(["replay", "verify", str(good)]) == 0
    line = capsys.readouterr().out
    assert "secret gods" in line
    assert "audited" in line
    assert line.rstrip().endswith("ok")
    data = bytearray(good.read_bytes())
    data[-100] ^= 1  # inside the last record's body: its signature no longer verifies
    bad = tmp_path / "bad.sntr"
    bad.write_bytes(bytes(data))
    assert main(["replay", "verify", str(bad)]) == 1
    assert "the signature does not verify" in capsys.readouterr().err
    assert "audited" in reason
    assert winner == peers[0].game.position.winner if peers[0].game else False
    # Before each seat's opening, the log's bytes hold neither its god's name nor its card.
    for seat, peer in enumerate(sorted(peers, key=lambda p: p.bot.seat)):
        opened = next(
            i for i, r in enumerate(records) if isinstance(r, Open | Object) and r.seat == seat
        )
        before = b"".join(peer.log[:opened])
        assert peer.bot.god.encode() not in before
        assert to_bytes(card_of(peer.bot.god)) not in before
        assert peer.bot.god in b"".join(peer.log[opened : opened + 1]).decode("latin-1")


def test_a_forged_opening_is_refused_with_a_reason_and_the_game_goes_on() -> None:
    bots = [SecretBot(0, b"f0"), SecretBot(1, b"f1", forge=True)]
    peers = _play(bots)
    _, (_, reason) = _verified(peers)
    forger = next(p for p in peers if p.bot.forge)
    assert any(
        "opening is refused" in r and "does not give the seat's card" in r for r in forger.refused
    )
    assert "audited" in reason


def test_a_peer_withholding_its_opening_forfeits_and_the_log_says_so() -> None:
    bots = [SecretBot(0, b"w0"), SecretBot(1, b"w1", withhold=True)]
    peers = _play(bots, clock=0.5)
    records, (winner, reason) = _verified(peers)
    withholder = next(p for p in peers if p.bot.withhold)
    forfeits = [r for r in records if isinstance(r, Forfeit)]
    assert [f.late for f in forfeits] == [withholder.bot.seat]
    assert winner == 1 - withholder.bot.seat
    assert f"seat {withholder.bot.seat + 1} forfeits" in reason
