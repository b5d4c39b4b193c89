"""Chat over 127.0.0.1 on the console's game screen: say, see, mute (SPEC.md 8.3)."""

from __future__ import annotations

import asyncio
import contextlib
import dataclasses
import random
import threading

from prompt_toolkit.application import create_app_session
from prompt_toolkit.application.current import get_app_or_none
from prompt_toolkit.input import create_pipe_input
from prompt_toolkit.output import DummyOutput

from santorini_p2p.engine import legal_actions
from santorini_p2p.net.game import NetworkGame
from santorini_p2p.wire.log import read_log
from santorini_p2p.wire.messages import Chat
from tests.net.harness import identity
from tests.net.test_console_games import _cli_options
from tests.net.test_takeback_loopback import _poll
from tests.ui.test_app import screen_text


def _chats(data: bytes) -> list[tuple[str, str]]:
    v = read_log(data, complete=False)
    names = {s.public_key: s.name for s in v.header.seats}
    return [(names[r.signer], r.message.text) for r in v.records if isinstance(r.message, Chat)]


def test_chat_on_the_console_screen_reaches_the_other_player_and_both_journals(
    tmp_path, monkeypatch
):
    from santorini_p2p.net.clock import monotonic_ms
    from santorini_p2p.net.game import host_game
    from santorini_p2p.net.session import GameSettings, Session
    from santorini_p2p.net.transport import JoinTransport, close_context, new_context

    opts = _cli_options(tmp_path, monkeypatch, "alice")
    go = threading.Event()

    def waits(position, rng, stop):
        while not go.wait(0.01) and not stop.is_set():
            pass
        return rng.choice(legal_actions(position))

    async def main():
        shown: list[NetworkGame] = []
        ports: asyncio.Queue[int] = asyncio.Queue()

        async def on_screen(game):
            shown.append(game)
            await opts.play(game)

        with create_pipe_input() as keys, create_app_session(input=keys, output=DummyOutput()):
            hosting = asyncio.create_task(
                host_game(
                    GameSettings(2, "none", None, ("chat", "takeback")),
                    dataclasses.replace(opts, play=on_screen),
                    bind="127.0.0.1",
                    on_listening=ports.put_nowait,
                )
            )
            port = await asyncio.wait_for(ports.get(), 10)
            ctx = new_context()
            link = JoinTransport(ctx, f"127.0.0.1:{port}")
            session = Session.join(identity(1, "bob"), home=tmp_path / "b", now=monotonic_ms)
            joiner = NetworkGame(session, link, bot=waits, rng=random.Random(2))
            joining = asyncio.create_task(joiner.run())
            try:
                async with asyncio.timeout(60):
                    await _poll(lambda: shown and shown[0].session.can_chat and session.can_chat)
                    host = shown[0]
                    keys.send_text("say hello bob\r")
                    said = "alice says: hello bob"
                    await _poll(lambda: any(n.text == said for n in session.notes))
                    joiner.say("hi alice")
                    await _poll(lambda: any(n.text == "bob says: hi alice" for n in host.messages))
                    app = get_app_or_none()
                    assert app is not None
                    await _poll(lambda: "bob says: hi alice" in screen_text(app))
                    keys.send_text("mute\r")
                    await _poll(lambda: "Chat muted" in screen_text(app))
                    assert "bob says: hi alice" not in screen_text(app)
                    keys.send_text("mute\r")
                    await _poll(lambda: "bob says: hi alice" in screen_text(app))
                    # A line the rules refuse is said on the screen, and nothing is written.
                    count = len(host.session.records)
                    keys.send_text("say " + "x" * 201 + "\r")
                    await _poll(lambda: "1 to 200 characters" in screen_text(app))
                    assert len(host.session.records) == count
                    await _poll(
                        lambda: (
                            len(session.records) == len(host.session.records)
                            and len(_chats(host.session.journal_path.read_bytes())) == 2
                        )
                    )
                    assert host.stopped is None
            finally:
                for task in (joining, hosting):
                    task.cancel()
                    with contextlib.suppress(asyncio.CancelledError):
                        await task
                link.close()
                await close_context(ctx)
            return host.session.journal_path, session.journal_path

    hosted, joined = asyncio.run(main())
    want = [("alice", "hello bob"), ("bob", "hi alice")]
    assert _chats(hosted.read_bytes()) == want
    assert _chats(joined.read_bytes()) == want
