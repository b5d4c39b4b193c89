"""A rematch answer forged from another connection, over 127.0.0.1 (SESSION.md 10).

The host (``host_game``, a computer player with one rematch to ask for) waits for the joiner's
answer; the joiner's game offers a rematch that nobody here answers yet. A stranger connects
to the host and sends the joiner's "yes", signed with the joiner's own key over a nonce that is
not its connection's: the host drops it (its log says so), and no second game starts. The
joiner then declines, and both end.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import random

from santorini_p2p.engine import legal_actions
from santorini_p2p.net.clock import monotonic_ms
from santorini_p2p.net.frames import encode_frame, sign_rematch
from santorini_p2p.net.game import NetworkGame, PlayOptions, host_game
from santorini_p2p.net.session import GameSettings, Session
from santorini_p2p.net.transport import JoinTransport, close_context, new_context
from tests.net.harness import identity


class _Drops(logging.Handler):
    """Sets an event when the host's vote drops a rematch frame (its debug log)."""

    def __init__(self) -> None:
        super().__init__(logging.DEBUG)
        self.seen = asyncio.Event()

    def emit(self, record: logging.LogRecord) -> None:
        if record.getMessage().startswith("dropped a rematch frame"):
            self.seen.set()


def test_a_rematch_answer_forged_from_another_connection_starts_nothing(tmp_path):
    async def main() -> None:
        notes: list[str] = []
        ports: asyncio.Queue[int] = asyncio.Queue()
        opts = PlayOptions(
            home=tmp_path / "a",
            identity=identity(0, "ann"),
            bot="random",
            seed=1,
            on_note=notes.append,
            advertise=False,
            rematches=1,
        )
        host = asyncio.create_task(
            host_game(GameSettings(2), opts, bind="127.0.0.1", on_listening=ports.put_nowait)
        )
        drops = _Drops()
        log = logging.getLogger("santorini_p2p.net.rematch")
        log.addHandler(drops)
        log.setLevel(logging.DEBUG)
        ctx = new_context()
        bob = identity(1, "bob")
        links: list[JoinTransport] = []
        try:
            async with asyncio.timeout(60):
                port = await ports.get()
                link = JoinTransport(ctx, f"127.0.0.1:{port}")
                links.append(link)
                session = Session.join(bob, home=tmp_path / "b", now=monotonic_ms)
                joiner = NetworkGame(
                    session,
                    link,
                    bot=lambda p, rng, stop: rng.choice(legal_actions(p)),
                    rng=random.Random(3),
                )
                joiner.offer_rematch = True
                asked = asyncio.Event()
                joiner.listen(lambda: asked.set() if joiner.rematch_line else None)
                run = asyncio.create_task(joiner.run())
                await asked.wait()
                assert joiner.rematch_line == "ann asks for a rematch: accept (y) / decline (n)"
                game_id = session.game_id
                stranger = JoinTransport(ctx, f"127.0.0.1:{port}")
                links.append(stranger)
                forged = sign_rematch(bob, game_id, 0b10, 0, b"\x00" * 32)
                # Sent until the host has read it: a new connection drops frames until it is up.
                while not drops.seen.is_set():
                    stranger.send(b"", encode_frame(forged))
                    with contextlib.suppress(TimeoutError):
                        async with asyncio.timeout(0.1):
                            await drops.seen.wait()
                assert joiner.can_answer_rematch
                joiner.answer_rematch(False)
                await run
                out = await host
        finally:
            log.removeHandler(drops)
            for each in links:
                each.close()
            await close_context(ctx)
        assert out.complete
        assert out.rematches == ()
        assert "no rematch: bob declined" in notes
        assert "rematch agreed: the new game starts" not in notes

    asyncio.run(main())
