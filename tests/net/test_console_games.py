"""The console's host and join entries (``LanGames``) over 127.0.0.1, answered by a script."""

from __future__ import annotations

import asyncio
import contextlib
import random

from santorini_p2p.engine import legal_actions
from santorini_p2p.net.game import LanGames, NetworkGame
from santorini_p2p.wire.log import read_log
from tests.net.harness import identity


def _answers(*replies: str):
    queue = list(replies)

    async def answer(title, items):
        return queue.pop(0)

    return answer


def test_console_host_and_join_play_a_game(tmp_path):
    async def main():
        host_lan = LanGames(
            tmp_path / "a",
            identity(0),
            _answers("2", "none"),
            _answers(),
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
            _answers(f"127.0.0.1:{port}"),
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

    asyncio.run(main())


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
                _answers("2", "random"),
                _answers(),
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
                bot=lambda p, rng: rng.choice(legal_actions(p)),
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

    asyncio.run(main())
