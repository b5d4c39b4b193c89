"""``santorini watch ADDRESS`` over 127.0.0.1: spectators of real games, end to end.

The processes of ``test_loopback.py`` (each peer its own ``SANTORINI_HOME``), and in-process
games on real sockets where the test must hold play at a chosen point.
"""

from __future__ import annotations

import asyncio
import contextlib
import os
import random
import subprocess
import sys
import threading
from pathlib import Path

import pytest

from santorini_p2p.engine import Position, legal_actions
from santorini_p2p.net.clock import monotonic_ms
from santorini_p2p.net.game import NetworkGame, connect
from santorini_p2p.net.session import GameSettings, Session, SessionError
from santorini_p2p.net.transport import bind_host, close_context, new_context
from santorini_p2p.net.trust import KnownPeers
from santorini_p2p.net.watch import watch_lan
from santorini_p2p.replay.verify import verify_file
from santorini_p2p.wire.identity import Identity
from tests.net.test_loopback import WAIT_S, Peer, _check_replays, _host, _join


def _watcher(tmp: Path, name: str, port: int, *extra: str) -> Peer:
    return Peer(tmp, name, ["watch", f"127.0.0.1:{port}", "--name", name, *extra], home=tmp / name)


def test_a_spectators_saved_copy_is_the_players_replay_byte_for_byte(tmp_path):
    host, port = _host(tmp_path, 2, "none")
    watcher = _watcher(tmp_path, "carol", port, "--save", str(tmp_path / "rs"))
    host.wait_for(r"carol joined as a spectator \(1 of 4 spectators\)")
    joiner = _join(tmp_path, 1, port)
    codes = [p.finish() for p in (host, joiner, watcher)]
    assert codes == [0, 0, 0], "\n".join(p.text() for p in (host, joiner, watcher))
    _check_replays(tmp_path, 2)
    assert f"spectators watch with: santorini watch 127.0.0.1:{port}" in host.text()
    saved = (tmp_path / "rs").read_bytes()
    assert saved == (tmp_path / "r0").read_bytes() == (tmp_path / "r1").read_bytes()
    assert verify_file(tmp_path / "rs").ok
    verified = subprocess.run(
        [sys.executable, "-m", "santorini_p2p", "replay", "verify", str(tmp_path / "rs")],
        capture_output=True,
        text=True,
        timeout=WAIT_S,
        check=False,
    )
    assert verified.returncode == 0, verified.stdout + verified.stderr
    out = watcher.text()
    assert "game over:" in out
    assert f"saved to {tmp_path / 'rs'}" in out
    # Unattended, it printed the game as it went: the start, and every turn's player.
    assert "The game starts:" in out


def test_a_host_taking_no_spectators_refuses_them_with_a_clear_message(tmp_path):
    host, port = _host(tmp_path, 2, "none", ("--spectators", "0"))
    try:
        watcher = _watcher(tmp_path, "dave", port)
        assert watcher.finish() == 1
        assert "santorini: error: refused by the host: this game takes no spectators" in (
            watcher.text()
        )
    finally:
        host.kill()


def test_host_refuses_a_negative_number_of_spectators(tmp_path):
    host = Peer(tmp_path, "p0", ["host", "--bind", "127.0.0.1", "--spectators", "-1"])
    assert host.finish() == 2
    assert "santorini: error: spectators: expected 0 (none) to 64, got -1" in host.text()


def test_watch_by_address_takes_no_computer_players(tmp_path):
    peer = Peer(tmp_path, "w", ["watch", "127.0.0.1:9", "--loopback"])
    assert peer.finish() == 2
    assert "--loopback: computer players are not chosen" in peer.text()


def _gated_bot(gate: threading.Event, held: threading.Event, hold_at: int):
    """A random player that, at its turn number ``hold_at``, says so and waits for ``gate``."""
    turns = [0]

    def choose(position: Position, rng: random.Random, stop: threading.Event):
        del stop
        turns[0] += 1
        if turns[0] >= hold_at:
            held.set()
            assert gate.wait(WAIT_S), "the gate never opened"
        return rng.choice(legal_actions(position))

    return choose


async def _mid_game(tmp: Path, players: int) -> tuple[list[Path], object, int]:
    """A game of ``players`` bots held mid-game until a spectator caught up; its outcome."""
    gate, held = threading.Event(), threading.Event()
    ctx = new_context()
    link = await bind_host(ctx, "127.0.0.1", 0)
    address = f"127.0.0.1:{link.port}"
    ids = [Identity.from_seed(bytes([i + 1]) * 32, f"p{i}") for i in range(players)]
    host = Session.host(
        ids[0],
        GameSettings(players, "none"),
        home=tmp / "p0",
        now=monotonic_ms,
        known=KnownPeers(tmp / "p0"),
        address=address,
    )
    games = [NetworkGame(host, link, bot=_gated_bot(gate, held, 4), rng=random.Random(0))]
    closers = []
    for i in range(1, players):
        s, joined, close = await connect(address, ids[i], tmp / f"p{i}")
        games.append(NetworkGame(s, joined, bot=_gated_bot(gate, held, 4), rng=random.Random(i)))
        closers.append(close)
    tasks = [asyncio.create_task(g.run()) for g in games]
    try:
        # The first bot at its fourth turn holds the game there: mid-game, and still.
        assert await asyncio.to_thread(held.wait, WAIT_S)
        held_at_start = len(host.records)

        async def watching(game) -> None:
            caught = asyncio.Event()

            def check() -> None:
                if len(game.spectator.records) >= held_at_start:
                    caught.set()

            game.listen(check)
            run = asyncio.create_task(game.run())
            async with asyncio.timeout(WAIT_S):
                await caught.wait()
            gate.set()  # caught up mid-game: play on
            await run

        async with asyncio.timeout(WAIT_S * 2):
            out = await watch_lan(address, "late", tmp / "w", play=watching)
            await asyncio.gather(*tasks)
    finally:
        gate.set()
        for t in tasks:
            t.cancel()
        for close in closers:
            await close()
        link.close()
        await close_context(ctx)
    return [g.session.journal_path for g in games], out, held_at_start


@pytest.mark.parametrize("players", [2, 3])
def test_a_spectator_that_comes_mid_game_ends_with_the_players_replay(tmp_path, players):
    journals, out, held = asyncio.run(_mid_game(tmp_path, players))
    assert held > 2 * players + 1  # the draw, and turns, were played before it came
    assert out.complete, out
    data = out.replay.read_bytes()
    assert out.replay.name.endswith("-watched.sntr")
    assert all(j.read_bytes() == data for j in journals)
    assert verify_file(out.replay).ok


@pytest.mark.parametrize("key", ["q", "\r"])
def test_a_spectator_on_a_terminal_sees_the_game_read_only_and_q_leaves(tmp_path, key):
    from tests.terminal import Terminal, clean_env

    host, port = _host(tmp_path, 2, "none")
    env = clean_env(tmp_path / "carol-home")
    argv = [sys.executable, "-m", "santorini_p2p", "watch", f"127.0.0.1:{port}", "--no-mouse"]
    with Terminal(argv, env=env, cwd=tmp_path) as term:
        host.wait_for(r"joined as a spectator \(1 of 4 spectators\)")
        joiner = _join(tmp_path, 1, port)
        screen = term.wait_for(lambda s: "The game is over" in s and "q leave" in s, timeout=WAIT_S)
        assert "  > " not in screen  # no input line: nothing can be played here
        assert "Ctrl-Q leave" not in screen
        assert host.finish() == 0
        assert joiner.finish() == 0
        term.send(key)  # q leaves at any time; Enter once the game is over, as the hint says
        code = term.wait_exit()
        assert code == 0, term.text()
        assert "game over:" in term.text()
    kept = list((tmp_path / "carol-home" / "santorini" / "games").glob("*-watched.sntr"))
    assert len(kept) == 1
    assert kept[0].read_bytes() == (tmp_path / "r0").read_bytes()


def test_the_console_join_list_marks_games_to_watch_and_watches_the_chosen_one(
    tmp_path, monkeypatch
):
    from santorini_p2p.net import discovery
    from santorini_p2p.net.discovery import Offer
    from santorini_p2p.net.watch import SpectatorGame
    from santorini_p2p.ui.lan import LanGames

    async def main():
        ctx = new_context()
        link = await bind_host(ctx, "127.0.0.1", 0)
        host = Session.host(
            Identity.from_seed(b"\x01" * 32, "alice"),
            GameSettings(2, "none"),
            home=tmp_path / "a",
            now=monotonic_ms,
            known=KnownPeers(tmp_path / "a"),
        )
        hosting = asyncio.create_task(NetworkGame(host, link).run())

        def offer(port, **kw):
            return Offer("x", "127.0.0.1", port, "alice", "abcd", 2, "none", "none", 3, **kw)

        playing = offer(link.port, spectators=4, playing=True)
        listed = [playing, offer(9, spectators=2), offer(10)]

        async def found(wait):
            return listed

        monkeypatch.setattr(discovery, "browse", found)
        shown: list[list[tuple[str, str]]] = []

        async def choose(title, items):
            shown.append(list(items))
            return f"watch:127.0.0.1:{link.port}"

        async def ask(title, prompt):
            raise AssertionError("watching asks nothing")

        lan = LanGames(tmp_path / "c", Identity.from_seed(b"\x03" * 32, "carol"), choose, ask)
        try:
            game = await lan.join()
            assert isinstance(game, SpectatorGame)
            welcomed = asyncio.Event()
            game.listen(lambda: game.spectator.welcome is not None and welcomed.set())
            watching = asyncio.create_task(game.run())
            async with asyncio.timeout(WAIT_S):
                await welcomed.wait()
            assert game.awaiting is None
            assert any("carol joined as a spectator" in n.text for n in host.notes)
            watching.cancel()
            with contextlib.suppress(asyncio.CancelledError):
                await watching
        finally:
            hosting.cancel()
            with contextlib.suppress(asyncio.CancelledError):
                await hosting
            link.close()
            await close_context(ctx)
        return shown[0], link.port

    items, port = asyncio.run(main())
    keys = [k for k, _ in items]
    # In play: to watch only. Seats free and spectators taken: to join, and to watch.
    assert keys == [
        f"watch:127.0.0.1:{port}",
        "127.0.0.1:9",
        "watch:127.0.0.1:9",
        "127.0.0.1:10",
        "",
    ]
    labels = [label for _, label in items]
    assert labels[0].startswith("watch: alice (abcd), 2 players")
    assert labels[0].endswith(", in play")
    assert labels[2].endswith(", seats free")
    assert not labels[3].startswith("watch")


def test_the_command_lines_default_number_of_spectators_is_the_hosts():
    from santorini_p2p.cli.network import DEFAULT_SPECTATORS as SHOWN
    from santorini_p2p.net.gallery import DEFAULT_SPECTATORS

    assert SHOWN == DEFAULT_SPECTATORS


def test_a_bad_record_from_the_host_ends_watching_with_exit_1_naming_it(tmp_path):
    from santorini_p2p.net.frames import RecordFrame, Watch, decode_frame, encode_frame
    from tests.net.harness import Net

    net = Net.create(tmp_path, 2, seed=2)
    for _ in range(40):
        net.step()
    host = net.sessions[0]
    records = host.records
    assert len(records) > 4
    bad = bytearray(records[3].raw)
    bad[-1] ^= 1  # its signature no longer holds

    async def main():
        ctx = new_context()
        link = await bind_host(ctx, "127.0.0.1", 0)
        saved = tmp_path / "seen.sntr"
        watcher = await asyncio.create_subprocess_exec(
            sys.executable,
            "-m",
            "santorini_p2p",
            "watch",
            f"127.0.0.1:{link.port}",
            "--save",
            str(saved),
            stdout=asyncio.subprocess.PIPE,
            stderr=asyncio.subprocess.PIPE,
            env={**os.environ, "SANTORINI_HOME": str(tmp_path / "w")},
        )
        try:
            async with asyncio.timeout(WAIT_S):
                while True:  # a host that answers a watch with three good records, then a bad one
                    got = await link.receive(1.0)
                    if got is not None and isinstance(decode_frame(got[1]), Watch):
                        peer = got[0]
                        link.send(peer, encode_frame(host.offer()))
                        for r in records[:3]:
                            link.send(peer, encode_frame(RecordFrame(r.index, r.raw)))
                        link.send(peer, encode_frame(RecordFrame(3, bytes(bad))))
                        break
                out, err = await watcher.communicate()
        finally:
            if watcher.returncode is None:
                watcher.kill()
                await watcher.wait()
            link.close()
            await close_context(ctx)
        return watcher.returncode, out.decode(), err.decode(), saved.exists()

    code, out, err, saved = asyncio.run(main())
    assert code == 1, out + err
    assert "santorini: error: record 3 from the host is bad and was not trusted" in err
    assert "Watching stopped: record 3" in out  # shown as it came, unattended
    assert not saved  # nothing incomplete, let alone untrusted, is written


async def _chat_over_loopback(tmp: Path, allow: bool) -> tuple[list[list[str]], str | None]:
    """Two players and two spectators over 127.0.0.1; carol says a line once both watch."""
    from santorini_p2p.net.watch import open_watch

    ctx = new_context()
    link = await bind_host(ctx, "127.0.0.1", 0)
    address = f"127.0.0.1:{link.port}"
    ids = [Identity.from_seed(bytes([i + 1]) * 32, f"p{i}") for i in range(2)]
    host = Session.host(
        ids[0],
        GameSettings(2, "none"),
        home=tmp / "p0",
        now=monotonic_ms,
        known=KnownPeers(tmp / "p0"),
        address=address,
    )
    assert host.gallery is not None
    host.gallery.chat = allow
    games: list = [NetworkGame(host, link)]
    s, joined, close_joiner = await connect(address, ids[1], tmp / "p1")
    games.append(NetworkGame(s, joined))
    carol, close_carol = await open_watch(address, "carol", context=ctx)
    dave, close_dave = await open_watch(address, "dave", context=ctx)
    tasks = [asyncio.create_task(g.run()) for g in (*games, carol, dave)]
    line = "[spectator] carol says: well played"
    receivers = (host, s, dave.spectator)
    arrived, welcomed = asyncio.Event(), asyncio.Event()

    def check() -> None:
        if all(w.spectator.welcome is not None for w in (carol, dave)) and s.records:
            welcomed.set()
        if all(any(n.text == line for n in r.notes) for r in receivers):
            arrived.set()

    for g in (*games, carol, dave):
        g.listen(check)
    refused = None
    try:
        async with asyncio.timeout(WAIT_S):
            await welcomed.wait()
        try:
            carol.say("well played")
        except SessionError as e:
            refused = str(e)
        if refused is None:
            async with asyncio.timeout(WAIT_S):
                await arrived.wait()
    finally:
        for t in tasks:
            t.cancel()
        for t in tasks:
            with contextlib.suppress(asyncio.CancelledError, Exception):
                await t
        await close_carol()
        await close_dave()
        await close_joiner()
        link.close()
        await close_context(ctx)
    return [[n.text for n in r.notes if n.chat] for r in receivers], refused


def test_a_spectators_line_reaches_both_players_and_the_other_spectator_over_loopback(tmp_path):
    lines, refused = asyncio.run(_chat_over_loopback(tmp_path, allow=True))
    assert refused is None
    assert lines == [["[spectator] carol says: well played"]] * 3
    for journal in (tmp_path / "p0").rglob("*.sntr"):
        assert b"well played" not in journal.read_bytes()


def test_a_spectator_is_told_when_the_host_does_not_allow_its_chat(tmp_path):
    lines, refused = asyncio.run(_chat_over_loopback(tmp_path, allow=False))
    assert refused == "not sent: this game's host does not let spectators chat"
    assert lines == [[], [], []]


def test_a_spectator_on_a_terminal_chats_when_the_host_allows_it(tmp_path):
    from tests.terminal import Terminal, clean_env

    host, port = _host(tmp_path, 2, "none", ("--spectator-chat",))
    env = clean_env(tmp_path / "carol-home")
    argv = [
        *[sys.executable, "-m", "santorini_p2p", "watch", f"127.0.0.1:{port}"],
        *["--name", "carol", "--no-mouse"],
    ]
    try:
        with Terminal(argv, env=env, cwd=tmp_path) as term:
            # Before any seat is taken: the host's welcome says spectators may chat.
            screen = term.wait_for(
                lambda s: "as a spectator" in s and "type a line and Enter to chat" in s,
                timeout=WAIT_S,
            )
            assert "cannot draw" not in screen
            term.send("q")  # a letter of the line, no longer a key that leaves
            term.send("uiet please\r")
            host.wait_for(r"\[spectator\] carol says: quiet please")
            term.wait_for("[spectator] carol says: quiet please", timeout=WAIT_S)
            term.send("say " + "x" * 201 + "\r")  # too long: refused, naming the rule
            term.wait_for("not sent: chat: expected 1 to 200 characters, got 201", timeout=WAIT_S)
            term.send("\x11")
            assert term.wait_exit() == 0, term.text()
    finally:
        host.kill()
    assert "x" * 201 not in host.text()
