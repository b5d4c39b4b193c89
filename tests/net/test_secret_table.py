"""Secret-god games between bots over 127.0.0.1 (SECRET.md 6 to 8): every peer holds the same
signed log, which verifies; openings, objections and forfeits travel as the document says."""

from __future__ import annotations

import asyncio
import contextlib
from pathlib import Path

import pytest

from santorini_p2p.cli import main
from santorini_p2p.engine.party import AGORA_GODS, PARTY_POOL
from santorini_p2p.net.secrettable import (
    TABLE_VERSION,
    PartyBot,
    SecretBot,
    SecretPeer,
    _host,
    play_table,
)
from santorini_p2p.net.transport import (
    HOST_PEER,
    HostTransport,
    JoinTransport,
    bind_host,
    close_context,
    new_context,
)
from santorini_p2p.wire.codec import decode, encode
from santorini_p2p.wire.identity import Identity
from santorini_p2p.wire.partygame import PartyGame, decode_party_record
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


@pytest.mark.parametrize(("players", "every"), [(2, 4), (3, 6)])
def test_party_games_finish_over_loopback_and_the_cards_go_round(
    players: int, every: int, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    bots = [PartyBot(s, b"party" + bytes([players, s])) for s in range(players)]
    peers = asyncio.run(
        play_table(bots, PARTY_POOL, clock=5.0, limit=150.0, options=("party", f"pass={every}"))
    )
    assert len({p.replay() for p in peers}) == 1
    games = [p.game for p in peers]
    assert all(isinstance(g, PartyGame) for g in games)
    g = games[0]
    assert isinstance(g, PartyGame)
    assert g.result is not None
    assert g.passes == [t for t in range(1, g.turns + 1) if t % every == 0 and t < g.turns] or (
        g.passes == [t for t in range(1, g.turns + 1) if t % every == 0]
    )
    # The cards went round: the gods are the dealt ones, each moved on once per passing.
    assert g.position is not None
    shift = len(g.passes) % players
    assert g.position.gods == tuple(g.gods[(s - shift) % players] for s in range(players)) or (
        g.position.eliminated
    )
    path = tmp_path / "party.sntr"
    path.write_bytes(peers[0].replay())
    assert main(["replay", "verify", str(path)]) == 0
    assert "the cards passed" in capsys.readouterr().out


def test_a_seat_that_withholds_its_link_abandons_in_the_log() -> None:
    bots = [PartyBot(0, b"l0"), PartyBot(1, b"l1", withhold=True)]
    peers = asyncio.run(
        play_table(bots, PARTY_POOL, clock=0.5, limit=60.0, options=("party", "pass=4"))
    )
    g = peers[0].game
    assert isinstance(g, PartyGame)
    late = next(p.bot.seat for p in peers if isinstance(p.bot, PartyBot) and p.bot.withhold)
    assert g.result == (1 - late, f"seat {late + 1} abandons: no record within 0.5 s")
    records = read_records(peers[0].log, peers[0].keys, 1, peers[0].first_prev, decode_party_record)
    assert [r for r in records if isinstance(r, Forfeit)] == [
        Forfeit(1 - late, late, "no record within 0.5 s")
    ]


def test_a_hello_of_another_version_is_refused_at_once() -> None:
    async def hello_of(version: int) -> tuple[object, ...]:
        ctx = new_context()
        host = await bind_host(ctx, "127.0.0.1", 0)
        join = JoinTransport(ctx, f"127.0.0.1:{host.port}")
        bots = [SecretBot(0, b"v0"), SecretBot(1, b"v1")]
        table = asyncio.create_task(_host_only(bots, host))
        try:
            async with asyncio.timeout(20):
                while True:
                    join.send(HOST_PEER, encode(("hello", b"\x09" * 32, version)))
                    got = await join.receive(0.2)
                    if got is not None:
                        value = decode(got[1])
                        assert isinstance(value, tuple)
                        return value
        finally:
            table.cancel()
            with contextlib.suppress(asyncio.CancelledError):
                await table
            host.close()
            join.close()
            await close_context(ctx)

    assert asyncio.run(hello_of(2)) == ("refuse", f"protocol 2 is not {TABLE_VERSION}")


async def _host_only(bots: list[SecretBot], host: HostTransport) -> None:
    peer = SecretPeer(Identity.from_seed(b"\x01" * 32, "h"), bots[0])
    await _host(peer, host, 2, DEFAULT_POOL, 5.0, b"\x00" * 16, ())


def test_agora_games_finish_over_loopback_and_a_win_is_the_mover_s_alone(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    bots = [PartyBot(s, b"agora" + bytes([s])) for s in range(4)]
    peers = asyncio.run(play_table(bots, AGORA_GODS, clock=5.0, limit=150.0, options=("agora",)))
    assert len({p.replay() for p in peers}) == 1
    g = peers[0].game
    assert isinstance(g, PartyGame)
    assert g.agora
    assert g.result is not None
    assert g.position is not None
    winner = g.result[0]
    assert 0 <= winner < 4
    assert f"seat {winner + 1} wins alone (Agora)" in g.result[1]
    assert not g.position.eliminated >> winner & 1
    path = tmp_path / "agora.sntr"
    path.write_bytes(peers[0].replay())
    assert main(["replay", "verify", str(path)]) == 0
    assert "Agora" in capsys.readouterr().out


def test_a_host_that_leaves_mid_game_ends_it_for_the_joiner_with_its_records_kept() -> None:
    from santorini_p2p.net.secrettable import HostGone, host_table, join_table

    async def run() -> tuple[SecretPeer, str]:
        ids = [Identity.from_seed(bytes([i + 1]) * 32, f"p{i + 1}") for i in range(2)]
        host = SecretPeer(ids[0], PartyBot(0, b"gone0"))
        joiner = SecretPeer(ids[1], PartyBot(1, b"gone1"))
        port: asyncio.Future[int] = asyncio.get_running_loop().create_future()
        taken = asyncio.Event()

        def seen(peer: SecretPeer) -> None:
            if len(peer.log) >= 12:  # the anchors, links and placements are in: play is on
                taken.set()

        hosting = asyncio.create_task(
            host_table(
                host,
                2,
                PARTY_POOL,
                ("party", "pass=4"),
                bind="127.0.0.1",
                clock=30.0,
                on_listening=port.set_result,
                on_record=seen,
            )
        )
        async with asyncio.timeout(60):
            address = f"127.0.0.1:{await port}"
            joining = asyncio.create_task(join_table(joiner, address, clock=30.0, gone=1.5))
            await taken.wait()
            hosting.cancel()  # the host's process goes away mid-game
            with contextlib.suppress(asyncio.CancelledError):
                await hosting
            try:
                await joining
            except HostGone as e:
                return joiner, str(e)
        raise AssertionError("the joiner did not end the game")

    joiner, said = asyncio.run(run())
    assert said.startswith("the host left mid-game: nothing from it for 1.5 s after record ")
    assert joiner.game is not None
    assert joiner.game.result is None
    assert len(joiner.log) >= 8  # the anchors, links and placements at least
    # What it holds is the host's log so far, every record checked: its replay reads back.
    records = read_records(joiner.log, joiner.keys, 1, joiner.first_prev, decode_party_record)
    assert len(records) == len(joiner.log)


def test_a_table_host_says_bye_again_until_a_busy_joiner_has_read_it(monkeypatch) -> None:
    """The last joiner's bye is the host's last frame: a joiner busy when it comes would lose
    it with the host's connection and ask again for ATTEMPTS rounds. The host says it again
    until the joiner has left, on real sockets."""
    from santorini_p2p.net import secrettable
    from santorini_p2p.net.secrettable import host_table, join_table

    heard: list[bytes] = []

    class _BusyAfterDone(secrettable.JoinTransport):
        """A joiner's transport that reads nothing for 0.8 s after its first done."""

        busy = False

        def send(self, peer: bytes, frame: bytes) -> bool:
            if frame == encode(("done",)) and not self.busy:
                self.busy = True
                self.until = asyncio.get_running_loop().time() + 0.8
            return super().send(peer, frame)

        async def receive(self, limit: float) -> tuple[bytes, bytes] | None:
            if self.busy:
                await asyncio.sleep(max(0.0, self.until - asyncio.get_running_loop().time()))
            got = await super().receive(limit)
            if got is not None and self.busy:
                heard.append(got[1])
            return got

    monkeypatch.setattr(secrettable, "JoinTransport", _BusyAfterDone)

    async def run() -> None:
        ids = [Identity.from_seed(bytes([i + 1]) * 32, f"p{i + 1}") for i in range(2)]
        host = SecretPeer(ids[0], SecretBot(0, b"bye0"))
        joiner = SecretPeer(ids[1], SecretBot(1, b"bye1"))
        port: asyncio.Future[int] = asyncio.get_running_loop().create_future()
        async with asyncio.timeout(120):
            hosting = asyncio.create_task(
                host_table(
                    host,
                    2,
                    DEFAULT_POOL,
                    bind="127.0.0.1",
                    clock=30.0,
                    on_listening=port.set_result,
                )
            )
            await join_table(joiner, f"127.0.0.1:{await port}", clock=30.0)
            await hosting
        assert joiner.game is not None
        assert joiner.game.result is not None

    asyncio.run(run())
    assert encode(("bye",)) in heard, "the joiner never read the host's bye"
