"""Takeback requests end to end over 127.0.0.1: the command line's host and the console."""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import io
import random
import sys

import pytest

from santorini_p2p.engine import Phase, legal_actions
from santorini_p2p.net.game import NetworkGame
from santorini_p2p.replay.export_html import export_html
from santorini_p2p.replay.export_text import export_text
from santorini_p2p.replay.timeline import read_timeline
from santorini_p2p.replay.verify import verify_bytes
from santorini_p2p.wire.messages import Accept, Offer
from tests.net.harness import identity
from tests.patience import patient


async def _poll(condition, limit: float = 30.0) -> None:
    """Wait, at most ``limit`` seconds, for ``condition``."""
    async with asyncio.timeout(patient(limit)):
        while not condition():  # noqa: ASYNC110
            await asyncio.sleep(0.005)


def _bot_options(tmp_path, monkeypatch, answer: str):
    """``santorini host --bot random --takebacks ANSWER`` as the command line builds it."""
    from santorini_p2p.cli import network

    monkeypatch.setenv("SANTORINI_HOME", str(tmp_path / "alice"))
    args = argparse.Namespace(
        name="alice",
        bot="random",
        seed=3,
        think=None,
        save=None,
        no_advertise=True,
        takebacks=answer,
    )
    return network.net_options(args)


def _asks_after_each_turn(game: NetworkGame, asked: list[int]) -> None:
    """Ask to take back this player's turn the moment every peer has acknowledged it."""
    loop = asyncio.get_running_loop()

    def ask() -> None:
        s = game.session
        v = s.validator
        if v is None or not s.can_ask_takeback() or v.last_turn is None:
            return
        n = len(s.records)
        if asked and asked[-1] == n:
            return
        asked.append(n)
        game.ask_takeback()

    game.listen(lambda: loop.call_soon(ask))


async def _versus_host_bot(tmp_path, opts, until) -> tuple[bytes, bytes, NetworkGame]:
    """A bot host (``opts``) against a scripted joiner; return both replays and the joiner."""
    from santorini_p2p.net.clock import monotonic_ms
    from santorini_p2p.net.game import host_game
    from santorini_p2p.net.session import GameSettings, Session
    from santorini_p2p.net.transport import JoinTransport, close_context, new_context

    ports: asyncio.Queue[int] = asyncio.Queue()
    hosting = asyncio.create_task(
        host_game(
            GameSettings(2, "none", None, ("takeback",)),
            opts,
            bind="127.0.0.1",
            on_listening=ports.put_nowait,
        )
    )
    port = await asyncio.wait_for(ports.get(), 10)
    ctx = new_context()
    link = JoinTransport(ctx, f"127.0.0.1:{port}")
    session = Session.join(identity(1, "bob"), home=tmp_path / "bob", now=monotonic_ms)
    joiner = NetworkGame(session, link, rng=random.Random(2))
    joining = asyncio.create_task(joiner.run())
    asked: list[int] = []
    _asks_after_each_turn(joiner, asked)
    rng = random.Random(7)
    try:
        async with asyncio.timeout(90):
            played = -1
            while not session.is_complete:
                assert session.stopped is None, session.stopped
                n = len(session.records)
                if joiner.awaiting is not None and played != n:
                    played = n
                    p = joiner.position
                    # Play on (and so let a refused request lapse) once ``until`` holds.
                    if until(joiner) and p.phase is Phase.PLAY:
                        joiner.resign()
                    else:
                        joiner.submit(rng.choice(legal_actions(p)))
                await asyncio.sleep(0.005)
            out = await hosting
            await joining
    finally:
        for task in (joining, hosting):
            task.cancel()
            with contextlib.suppress(asyncio.CancelledError):
                await task
        link.close()
        await close_context(ctx)
    return out.journal.read_bytes(), session.journal_path.read_bytes(), joiner


def _offer_stood(game: NetworkGame) -> bool:
    return any(
        isinstance(r.message, Offer) and r.message.kind == "takeback" for r in game.session.records
    )


def _said(game: NetworkGame, words: str) -> bool:
    return any(words in m.text for m in game.messages)


def test_host_bot_accepting_takebacks_takes_the_turn_back_and_the_replay_shows_it(
    tmp_path, monkeypatch
):
    monkeypatch.setattr(sys, "stdout", io.StringIO())
    opts = _bot_options(tmp_path, monkeypatch, "accept")
    assert opts.takebacks == "accept"
    host, joined, joiner = asyncio.run(
        _versus_host_bot(tmp_path, opts, lambda g: _said(g, "Taken back:"))
    )
    assert host == joined
    assert _said(joiner, "Taken back:")
    assert verify_bytes(host).ok
    t = read_timeline(host)
    steps = [(s.kind, s.text) for s in t.steps]
    taken = [i for i, (k, x) in enumerate(steps) if k == "accept" and "is taken back" in x]
    assert taken, steps
    i = taken[0]
    turn = steps[i - 1][1].removeprefix("asks to take back ")
    assert steps[i - 2] == ("act", turn)
    # The position after the acceptance is the one before the turn taken back.
    assert t.steps[i].position == t.steps[i - 3].position
    text = export_text(t)
    assert f"asks to take back {turn}" in text
    assert f"accepts the takeback: {turn} is taken back" in text
    page = export_html(t)  # the page's game data escapes ">" as in JSON for a script tag
    shown = turn.replace(">", "\\u003e")
    assert f"accepts the takeback: {shown} is taken back" in page
    assert "alice asks" not in sys.stdout.getvalue()  # the host bot is never asked aloud
    assert "the computer accepts" in sys.stdout.getvalue()


def test_host_bot_refusing_takebacks_lets_the_request_lapse(tmp_path, monkeypatch):
    monkeypatch.setattr(sys, "stdout", io.StringIO())
    opts = _bot_options(tmp_path, monkeypatch, "refuse")
    host, joined, joiner = asyncio.run(
        # A request can lose the race to the host's instant move: play on until one stands.
        _versus_host_bot(tmp_path, opts, _offer_stood)
    )
    assert host == joined
    assert verify_bytes(host).ok
    from santorini_p2p.wire.log import read_log

    msgs = [r.message for r in read_log(host).records]
    assert any(isinstance(m, Offer) and m.kind == "takeback" for m in msgs)
    assert not any(isinstance(m, Accept) for m in msgs)
    assert _said(joiner, "Your takeback of")
    # The computer's refusal writes no record, but the asker is told of it.
    assert _said(joiner, "alice refused the takeback of ")


def test_takebacks_answer_without_a_bot_is_a_usage_error(tmp_path, monkeypatch, capsys):
    from santorini_p2p.cli import main

    monkeypatch.setenv("SANTORINI_HOME", str(tmp_path))
    assert main(["join", "127.0.0.1:1", "--takebacks", "accept"]) == 2
    assert "takebacks: only with --bot" in capsys.readouterr().err


@pytest.mark.parametrize("accept", [True, False])
def test_takeback_on_the_console_screen(tmp_path, monkeypatch, accept):
    """The host types a turn, then ``takeback``; the joiner's computer answers."""
    import threading

    from prompt_toolkit.application import create_app_session
    from prompt_toolkit.input import create_pipe_input
    from prompt_toolkit.output import DummyOutput

    from santorini_p2p.net.clock import monotonic_ms
    from santorini_p2p.net.game import host_game
    from santorini_p2p.net.session import GameSettings, Session
    from santorini_p2p.net.transport import JoinTransport, close_context, new_context
    from tests.net.test_console_games import _cli_options

    opts = _cli_options(tmp_path, monkeypatch, "alice")
    go = threading.Event()

    def waits(position, rng, stop):
        # The joiner's computer moves only when the test lets it (or is stopped).
        while not go.wait(0.01) and not stop.is_set():
            pass
        return rng.choice(legal_actions(position))

    async def main():
        shown: list[NetworkGame] = []
        ports: asyncio.Queue[int] = asyncio.Queue()

        async def on_screen(game):
            shown.append(game)
            await opts.play(game)

        import dataclasses

        with create_pipe_input() as keys, create_app_session(input=keys, output=DummyOutput()):
            hosting = asyncio.create_task(
                host_game(
                    GameSettings(2, "none", None, ("takeback",)),
                    dataclasses.replace(opts, play=on_screen),
                    bind="127.0.0.1",
                    on_listening=ports.put_nowait,
                )
            )
            port = await asyncio.wait_for(ports.get(), 10)
            ctx = new_context()
            link = JoinTransport(ctx, f"127.0.0.1:{port}")
            session = Session.join(identity(1, "bob"), home=tmp_path / "b", now=monotonic_ms)
            session.takeback_answer = accept
            joiner = NetworkGame(session, link, bot=waits, rng=random.Random(2))
            joining = asyncio.create_task(joiner.run())
            try:
                async with asyncio.timeout(60):
                    await _poll(lambda: shown)
                    host = shown[0]
                    rng = random.Random(5)
                    # Setup and turns until the host has played a turn of play.
                    go.set()
                    while True:
                        await _poll(lambda: host.awaiting is not None)
                        p = host.position
                        if p.phase is Phase.PLAY:
                            go.clear()
                        n = len(host.session.records)
                        keys.send_text(str(rng.choice(legal_actions(p))) + "\r")
                        await _poll(lambda n=n: len(host.session.records) >= n + 2)
                        if p.phase is Phase.PLAY:
                            break
                    before = p
                    keys.send_text("takeback\r")
                    if accept:
                        await _poll(lambda: host.awaiting is not None)
                        assert host.position == before
                        assert _said(host, "Taken back:")
                    else:
                        await _poll(lambda: _said(host, "You ask to take back"))
                        go.set()
                        await _poll(lambda: _said(host, "lapsed"))
                        assert host.position != before
                    assert host.stopped is None
            finally:
                for task in (joining, hosting):
                    task.cancel()
                    with contextlib.suppress(asyncio.CancelledError):
                        await task
                link.close()
                await close_context(ctx)

    asyncio.run(main())
