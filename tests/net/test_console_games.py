"""The console's host and join entries (``LanGames``) over 127.0.0.1, answered by a script."""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import dataclasses
import io
import random
import sys
import time

import pytest

from santorini_p2p.engine import Phase, legal_actions
from santorini_p2p.net.game import NetworkGame
from santorini_p2p.ui.lan import LanGames
from santorini_p2p.wire.log import read_log
from tests.net.harness import identity
from tests.patience import patient


def _answers(*replies: str):
    queue = list(replies)

    async def answer(title, items):
        return queue.pop(0)

    return answer


def _typed(address: str, titles: list[str]):
    """The address field: ``address`` once, then Esc; every title it was shown with is kept.

    The name question (asked once, before the first connection) is answered with Enter.
    """
    queue: list[str | None] = [address, None]

    async def answer(title, prompt):
        if prompt.startswith("Your name"):
            return ""
        titles.append(title)
        return queue.pop(0)

    return answer


def test_console_host_and_join_play_a_game(tmp_path):
    async def main():
        host_lan = LanGames(
            tmp_path / "a",
            identity(0),
            _answers("2", "none", "timed"),
            _answers(""),  # the name: Enter keeps the identity's
            bind="127.0.0.1",
            discover=False,
        )
        host = await host_lan.host()
        assert isinstance(host, NetworkGame)
        port = host.title.split(":")[1].split()[0]
        join_lan = LanGames(
            tmp_path / "b",
            identity(1),
            _answers(""),
            _answers(f"127.0.0.1:{port}", ""),  # the address, then Enter at the name
            discover=False,
        )
        joiner = await join_lan.join()
        assert isinstance(joiner, NetworkGame)
        rng = random.Random(1)

        async def people():
            while not (host.session.is_complete and joiner.session.is_complete):
                for g in (host, joiner):
                    if g.awaiting is not None:
                        assert g.seats()[g.awaiting].local
                        g.submit(rng.choice(legal_actions(g.position)))
                await asyncio.sleep(0.005)

        async with asyncio.timeout(60), asyncio.TaskGroup() as tg:
            tg.create_task(host.run())
            tg.create_task(joiner.run())
            tg.create_task(people())
        assert host.session.journal_path.read_bytes() == joiner.session.journal_path.read_bytes()
        assert read_log(host.session.journal_path.read_bytes()).is_complete
        assert any(m.kind.value in ("win", "loss") for m in host.messages)
        # The finished journal is the replay file the game-over screen offers to review.
        assert host.replay == host.session.journal_path
        assert joiner.replay == joiner.session.journal_path

    asyncio.run(main())


def test_console_join_after_leaving_a_game_resumes_it_in_the_same_process(tmp_path):
    async def main():
        host_lan = LanGames(
            tmp_path / "a",
            identity(0),
            _answers("2", "none", "timed"),
            _answers(""),  # the name: Enter keeps the identity's
            bind="127.0.0.1",
            discover=False,
        )
        host = await host_lan.host()
        assert isinstance(host, NetworkGame)
        port = host.title.split(":")[1].split()[0]
        rng = random.Random(3)

        async def people(*games, until):
            while not until():
                for g in games:
                    if g.awaiting is not None:
                        g.submit(rng.choice(legal_actions(g.position)))
                await asyncio.sleep(0.005)

        def join_lan():
            return LanGames(
                tmp_path / "b",
                identity(1),
                _answers(""),
                _answers(f"127.0.0.1:{port}", ""),  # the address, then Enter at the name
                discover=False,
            )

        async with asyncio.timeout(60):
            hosting = asyncio.create_task(host.run())
            first = await join_lan().join()
            assert isinstance(first, NetworkGame)
            running = asyncio.create_task(first.run())
            await people(host, first, until=lambda: len(first.session.records) > 12)
            running.cancel()  # the player leaves the game screen mid-game
            with contextlib.suppress(asyncio.CancelledError):
                await running
            again = await join_lan().join()
            assert isinstance(again, NetworkGame), again
            assert len(again.session.records) > 12  # resumed, not a new game
            async with asyncio.TaskGroup() as tg:
                tg.create_task(again.run())
                tg.create_task(people(host, again, until=lambda: host.session.is_complete))
            await hosting
        assert host.session.journal_path.read_bytes() == again.session.journal_path.read_bytes()

    asyncio.run(main())


def test_console_host_offers_to_resume_a_hosted_game_left_unfinished(tmp_path):
    from santorini_p2p.net.clock import monotonic_ms
    from santorini_p2p.net.session import Session
    from santorini_p2p.net.transport import JoinTransport, close_context, new_context

    def host_lan(*menu: str) -> LanGames:
        return LanGames(
            tmp_path / "a",
            identity(0),
            _answers(*menu),
            _answers(""),  # the name: Enter keeps the identity's
            bind="127.0.0.1",
            discover=False,
        )

    async def main():
        host = await host_lan("2", "none", "timed").host()
        assert isinstance(host, NetworkGame)
        port = host.title.split(":")[1].split()[0]
        ctx = new_context()
        link = JoinTransport(ctx, f"127.0.0.1:{port}")
        session = Session.join(identity(1), home=tmp_path / "b", now=monotonic_ms)
        joiner = NetworkGame(session, link, bot=_quick, rng=random.Random(2))
        rng = random.Random(4)

        async def person(game, until):
            while not until():
                if game.awaiting is not None:
                    game.submit(rng.choice(legal_actions(game.position)))
                await asyncio.sleep(0.005)

        try:
            async with asyncio.timeout(60):
                joining = asyncio.create_task(joiner.run())
                hosting = asyncio.create_task(host.run())
                await person(host, until=lambda: len(host.session.records) > 12)
                hosting.cancel()  # the host leaves the game screen mid-game
                with contextlib.suppress(asyncio.CancelledError):
                    await hosting
                # Hosting again offers the unfinished game first; backing out changes nothing.
                assert await host_lan(None).host() is None
                again = await host_lan("resume").host()
                assert isinstance(again, NetworkGame), again
                assert again.title == f"LAN game at 127.0.0.1:{port} (resumed)"
                assert len(again.session.records) > 12
                async with asyncio.TaskGroup() as tg:
                    tg.create_task(again.run())
                    tg.create_task(person(again, until=lambda: again.session.is_complete))
                await joining
        finally:
            link.close()
            await close_context(ctx)
        assert again.session.journal_path.read_bytes() == session.journal_path.read_bytes()

    asyncio.run(main())


def test_console_join_reports_a_bad_or_unknown_address_and_writes_nothing(tmp_path, monkeypatch):
    import socket

    def no_such_name(host, *args, **kwargs):
        raise socket.gaierror(socket.EAI_NONAME, "Name or service not known")

    monkeypatch.setattr(socket, "getaddrinfo", no_such_name)  # no name service asked

    async def main(typed):
        titles: list[str] = []
        lan = LanGames(tmp_path, identity(1), _answers(""), _typed(typed, titles), discover=False)
        assert await lan.join() is None  # Esc at the address field asked again
        # The reason is shown under the field's title, which asks again.
        return titles[1].split("\n", 1)[1]

    assert "expected host:port" in asyncio.run(main("no port here"))
    said = asyncio.run(main("nobody.invalid:5555"))
    assert said.startswith("cannot find the host 'nobody.invalid'")
    assert not list(tmp_path.glob("games/*"))


def test_console_join_reports_a_port_where_nothing_listens(tmp_path):
    import socket

    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        port = s.getsockname()[1]

    async def main():
        titles: list[str] = []
        typed = f"127.0.0.1:{port}"
        lan = LanGames(tmp_path, identity(1), _answers(""), _typed(typed, titles), discover=False)
        assert await lan.join() is None
        return titles[1].split("\n", 1)[1]

    said = asyncio.run(main())
    assert said.startswith(f"nothing listens at 127.0.0.1:{port} (connection refused)")
    assert not list(tmp_path.glob("games/*"))


def test_a_network_game_on_the_console_screen(tmp_path):
    from prompt_toolkit.application import create_app_session
    from prompt_toolkit.input import create_pipe_input
    from prompt_toolkit.output import DummyOutput

    from santorini_p2p.net.clock import monotonic_ms
    from santorini_p2p.net.session import Session
    from santorini_p2p.net.transport import JoinTransport, close_context, new_context
    from santorini_p2p.ui.app import GameScreen

    async def main():
        with create_pipe_input() as keys, create_app_session(input=keys, output=DummyOutput()):
            lan = LanGames(
                tmp_path / "a",
                identity(0),
                _answers("2", "random", "advanced", "timed"),
                _answers(""),  # the name: Enter keeps the identity's
                bind="127.0.0.1",
                discover=False,
            )
            host = await lan.host()
            assert isinstance(host, NetworkGame)
            port = host.title.split(":")[1].split()[0]
            ctx = new_context()
            link = JoinTransport(ctx, f"127.0.0.1:{port}")
            session = Session.join(identity(1), home=tmp_path / "b", now=monotonic_ms)
            joiner = NetworkGame(
                session,
                link,
                bot=lambda p, rng, stop: rng.choice(legal_actions(p)),
                rng=random.Random(3),
            )
            screen = GameScreen(host)
            rng = random.Random(5)
            try:
                async with asyncio.timeout(60):
                    bot_task = asyncio.create_task(joiner.run())
                    screen_task = asyncio.create_task(screen.run())
                    changed = asyncio.Event()
                    host.listen(changed.set)
                    typed_at = -1
                    while not host.session.is_complete:
                        n = len(host.session.records)
                        if host.awaiting is not None and typed_at != n:
                            typed_at = n
                            action = rng.choice(legal_actions(host.position))
                            keys.send_text(str(action) + "\r")
                        changed.clear()
                        with contextlib.suppress(TimeoutError):
                            async with asyncio.timeout(0.2):
                                await changed.wait()
                    await bot_task
                    assert any(m.kind.value in ("win", "loss") for m in host.messages)
                    keys.send_text("\r")
                    await screen_task
            finally:
                link.close()
                await close_context(ctx)
        assert host.session.journal_path.read_bytes() == session.journal_path.read_bytes()
        header = read_log(host.session.journal_path.read_bytes()).header
        assert header is not None
        assert header.protocol == 2
        assert len(header.pool) == 15  # the advanced gods, chosen on the set-up screen

    asyncio.run(main())


async def _poll(condition, limit: float = 20.0) -> None:
    """Wait, at most ``limit`` seconds, for ``condition`` (screen input has no event)."""
    async with asyncio.timeout(patient(limit)):
        while not condition():  # noqa: ASYNC110
            await asyncio.sleep(0.005)


class _Terminal(io.StringIO):
    """Standard input or output that says it is a terminal."""

    def isatty(self) -> bool:
        return True


def _cli_options(tmp_path, monkeypatch, name: str):
    """``host``/``join`` options as the command line builds them on a terminal."""
    from santorini_p2p.cli import network

    monkeypatch.setenv("SANTORINI_HOME", str(tmp_path / name))
    monkeypatch.setattr(sys, "stdin", _Terminal())
    monkeypatch.setattr(sys, "stdout", _Terminal())
    args = argparse.Namespace(
        name=name, bot=None, seed=None, think=None, save=None, no_advertise=True
    )
    return network.net_options(args)


def test_without_a_terminal_host_and_join_read_a_line_prompt(tmp_path, monkeypatch):
    from santorini_p2p.cli import network

    monkeypatch.setenv("SANTORINI_HOME", str(tmp_path / "a"))
    args = argparse.Namespace(
        name="alice", bot=None, seed=None, think=None, save=None, no_advertise=True
    )
    opts = network.net_options(args)
    assert opts.play is None
    assert opts.on_start is not None
    assert opts.on_note is not None


def _quick(position, rng, stop):
    return rng.choice(legal_actions(position))


@contextlib.asynccontextmanager
async def _hosted_on_screen(tmp_path, opts):
    """Host a game with ``opts`` on the game screen (keys from a pipe), joined by a bot.

    Yields the pipe, the hosting task and the host's game once the screen shows it.
    """
    from prompt_toolkit.application import create_app_session
    from prompt_toolkit.input import create_pipe_input
    from prompt_toolkit.output import DummyOutput

    from santorini_p2p.net.clock import monotonic_ms
    from santorini_p2p.net.game import host_game
    from santorini_p2p.net.session import GameSettings, Session
    from santorini_p2p.net.transport import JoinTransport, close_context, new_context

    shown: list[NetworkGame] = []
    ports: asyncio.Queue[int] = asyncio.Queue()

    async def on_screen(game):
        shown.append(game)
        await opts.play(game)

    with create_pipe_input() as keys, create_app_session(input=keys, output=DummyOutput()):
        hosting = asyncio.create_task(
            host_game(
                GameSettings(2, "none", None),
                dataclasses.replace(opts, play=on_screen),
                bind="127.0.0.1",
                on_listening=ports.put_nowait,
            )
        )
        port = await asyncio.wait_for(ports.get(), 10)
        ctx = new_context()
        link = JoinTransport(ctx, f"127.0.0.1:{port}")
        session = Session.join(identity(1), home=tmp_path / "b", now=monotonic_ms)
        joining = asyncio.create_task(
            NetworkGame(session, link, bot=_quick, rng=random.Random(2)).run()
        )
        try:
            async with asyncio.timeout(60):
                await _poll(lambda: shown)
                yield keys, hosting, shown[0]
        finally:
            for task in (joining, hosting):
                task.cancel()
                with contextlib.suppress(asyncio.CancelledError):
                    await task
            link.close()
            await close_context(ctx)


def test_host_on_a_terminal_is_played_on_the_game_screen(tmp_path, monkeypatch):
    opts = _cli_options(tmp_path, monkeypatch, "alice")
    assert opts.play is not None
    assert opts.on_note is None, "nothing is printed over the game screen"

    async def main():
        async with _hosted_on_screen(tmp_path, opts) as (keys, hosting, host):
            assert "LAN game at 127.0.0.1:" in host.title
            rng = random.Random(5)
            typed_at = -1
            while not host.session.is_complete:
                n = len(host.session.records)
                if host.awaiting is not None and typed_at != n:
                    typed_at = n
                    keys.send_text(str(rng.choice(legal_actions(host.position))) + "\r")
                await asyncio.sleep(0.01)
            keys.send_text("\r")  # Enter leaves the finished game
            return await hosting

    outcome = asyncio.run(main())
    assert outcome.complete
    joined = tmp_path / "b" / "games" / outcome.journal.name
    assert outcome.journal.read_bytes() == joined.read_bytes()


def test_leaving_the_screen_mid_game_keeps_the_journal_to_resume(tmp_path, monkeypatch):
    from santorini_p2p.net.game import find_unfinished

    opts = _cli_options(tmp_path, monkeypatch, "alice")

    async def main():
        async with _hosted_on_screen(tmp_path, opts) as (keys, hosting, host):
            await _poll(lambda: host.awaiting is not None)
            typed = len(host.session.records)
            keys.send_text(str(legal_actions(host.position)[0]) + "\r")
            # The host's action and the joiner's acknowledgement are in: leave.
            await _poll(lambda: len(host.session.records) >= typed + 2)
            keys.send_text("\x11\x11")  # Ctrl-Q twice: leave mid-game
            return await hosting

    outcome = asyncio.run(main())
    assert not outcome.complete
    assert outcome.stopped is None
    found = find_unfinished(tmp_path / "alice", role="host")
    assert found is not None
    assert found[0] == outcome.journal
    assert "left the game; run the same command again" in sys.stdout.getvalue()


def test_a_computer_player_on_the_clock_is_stopped_before_its_time_runs_out(tmp_path):
    import threading

    from santorini_p2p.ai import CLOCK_MARGIN_MS
    from santorini_p2p.net.clock import TimeControl, monotonic_ms
    from santorini_p2p.net.session import GameSettings, Session
    from santorini_p2p.net.transport import HostTransport, JoinTransport, close_context, new_context

    stopped_after: list[float] = []

    def patient(position, rng, stop: threading.Event):
        # Thinks until told to stop (bounded, so a broken stop fails the test, not the run).
        started = time.monotonic()
        assert stop.wait(20), "the computer player was never stopped"
        stopped_after.append(time.monotonic() - started)
        return rng.choice(legal_actions(position))

    allowance_ms = 1_600

    async def main():
        ctx = new_context()
        host_link = HostTransport(ctx, "127.0.0.1", 0)
        join_link = JoinTransport(ctx, f"127.0.0.1:{host_link.port}")
        settings = GameSettings(2, "none", TimeControl(allowance_ms, 0))
        hs = Session.host(identity(0), settings, home=tmp_path / "a", now=monotonic_ms)
        js = Session.join(identity(1), home=tmp_path / "b", now=monotonic_ms)
        host = NetworkGame(hs, host_link, bot=patient, rng=random.Random(1))
        joiner = NetworkGame(js, join_link, bot=_quick, rng=random.Random(2))
        tasks = [asyncio.create_task(g.run()) for g in (host, joiner)]
        try:
            await _poll(lambda: len(stopped_after) >= 3, limit=30)
            assert hs.stopped is None
            assert hs.position.phase is not Phase.OVER, "no one lost on time"
        finally:
            for t in tasks:
                t.cancel()
            for t in tasks:
                with contextlib.suppress(asyncio.CancelledError):
                    await t
            join_link.close()
            host_link.close()
            await close_context(ctx)

    asyncio.run(main())
    left = (allowance_ms - CLOCK_MARGIN_MS) / 1000
    assert all(left - 0.05 <= s < allowance_ms / 1000 for s in stopped_after[:3]), stopped_after


@pytest.mark.parametrize("players", [2, 3])
def test_computer_players_over_loopback_play_a_whole_game_and_leave_nothing(
    tmp_path, monkeypatch, players
):
    import tempfile

    from santorini_p2p.net.game import loopback_game
    from santorini_p2p.net.session import GameSettings
    from santorini_p2p.wire.log import encode_frames

    monkeypatch.setattr(tempfile, "tempdir", str(tmp_path))
    levels = ["random"] * players

    async def main():
        game = await loopback_game(levels, GameSettings(players, "random"), seed=7)
        assert game.title.startswith("computer players over 127.0.0.1:")
        assert [s.name for s in game.seats()][:1] == ["Random Alpha"]
        async with asyncio.timeout(60):
            await game.run()
        return game

    game = asyncio.run(main())
    assert game.session.is_complete
    names = game.session.seat_names()
    signs = ["Alpha", "Bravo", "Charlie", "Delta"][:players]
    assert sorted(names) == [f"Random {sign}" for sign in signs]
    assert not any(ch.isdigit() for name in names for ch in name)  # no number to mistake
    # Every seat signed its records: the log, as sent, verifies and is complete.
    log = read_log(encode_frames(r.raw for r in game.session.records))
    assert log.is_complete
    assert len(set(log.seats)) == players
    # Told as a result, not as "you": no person plays the host's seat.
    said = " ".join(m.text for m in game.messages)
    assert "You " not in said
    assert "The game is over:" in said
    # The keys and journals of the seats went with the game.
    assert list(tmp_path.iterdir()) == []


def test_the_start_screen_watches_two_computer_players_over_loopback(tmp_path, monkeypatch):
    import tempfile

    from prompt_toolkit.application import create_app_session
    from prompt_toolkit.application.current import get_app_or_none
    from prompt_toolkit.input import create_pipe_input
    from prompt_toolkit.output import DummyOutput

    from santorini_p2p.ui.start import GameOptions, console
    from tests.ui.test_app import screen_text

    temp = tmp_path / "temp"
    temp.mkdir()
    monkeypatch.setattr(tempfile, "tempdir", str(temp))
    lan = LanGames(tmp_path / "home", identity(0), _answers(), _answers(), discover=False)

    async def main():
        with create_pipe_input() as keys, create_app_session(input=keys, output=DummyOutput()):
            run = asyncio.create_task(console(GameOptions(timed=False, mouse=False), lan))
            seen = []

            async def next_app():
                await _poll(
                    lambda: (a := get_app_or_none()) is not None and a.is_running and a not in seen
                )
                seen.append(get_app_or_none())

            await next_app()
            keys.send_text("5")  # watch two computer players
            await next_app()
            keys.send_text("\r")  # no gods
            await next_app()
            keys.send_text("\r")  # untimed (the options' default)
            await next_app()
            await _poll(lambda: any(temp.iterdir()))  # the seats' keys and journals
            assert "Santorini | computer players" in screen_text(seen[-1])
            keys.send_text("\x11")  # Ctrl-Q: back to the start screen
            await next_app()
            keys.send_text("7")  # quit
            return await asyncio.wait_for(run, 10)

    assert asyncio.run(main()) == 0
    assert list(temp.iterdir()) == []


def test_console_host_and_join_play_under_the_names_given_and_offer_them_next_time(tmp_path):
    from santorini_p2p.ui.lan import last_name

    prompts: list[str] = []

    def named(*replies):
        queue = list(replies)

        async def answer(title, prompt):
            prompts.append(prompt)
            return queue.pop(0)

        return answer

    async def main():
        me = identity(0)
        host_lan = LanGames(
            tmp_path / "a",
            me,
            _answers("2", "none", "untimed"),
            named("Ann"),
            bind="127.0.0.1",
            discover=False,
        )
        host = await host_lan.host()
        assert isinstance(host, NetworkGame)
        assert prompts == [f"Your name (Enter for {me.name}): "]
        port = host.title.split(":")[1].split()[0]
        join_lan = LanGames(
            tmp_path / "b",
            identity(1),
            _answers(""),
            named(f"127.0.0.1:{port}", "Ben"),
            discover=False,
        )
        joiner = await join_lan.join()
        assert isinstance(joiner, NetworkGame)
        assert prompts[1:] == ["host:port: ", f"Your name (Enter for {identity(1).name}): "]
        header = asyncio.Event()

        def seen() -> None:
            if joiner.session.validator is not None and joiner.session.validator.header:
                header.set()

        joiner.listen(seen)
        hosting = asyncio.create_task(host.run())
        joining = asyncio.create_task(joiner.run())
        try:
            async with asyncio.timeout(30):
                await header.wait()
        finally:
            for task in (hosting, joining):
                task.cancel()
                with contextlib.suppress(asyncio.CancelledError):
                    await task
        # The names are in the signed header the joiner received, each with its player's key.
        host_seat, join_seat = joiner.session.validator.header.seats
        assert host_seat.name == "Ann"
        assert host_seat.public_key == me.public_key
        assert join_seat.name == "Ben"
        assert join_seat.public_key == identity(1).public_key
        # Offered next time, and kept when Enter takes it.
        assert last_name(tmp_path / "a") == "Ann"
        assert last_name(tmp_path / "b") == "Ben"
        prompts.clear()
        again = LanGames(
            tmp_path / "a",
            me,
            _answers("new", "2", "none", "untimed"),  # not the unfinished game: a new one
            named(""),
            bind="127.0.0.1",
            discover=False,
        )
        game = await again.host()
        assert isinstance(game, NetworkGame)
        assert prompts == ["Your name (Enter for Ann): "]
        assert game.seats()[0].name == "Ann"
        running = asyncio.create_task(game.run())
        await asyncio.sleep(0)  # started: its run closes the socket and the journal when cancelled
        running.cancel()
        with contextlib.suppress(asyncio.CancelledError):
            await running

    asyncio.run(main())
