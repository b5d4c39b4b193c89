"""A spectator busy when the host's last word comes still reads it, on real sockets.

A joiner's or spectator's socket drops what it holds of a connection that closes before it
reads it; so a host that stops stays (bounded) while a spectator it told is connected, and
tells it again. Held in one process: the spectator reads nothing until the test lets it.
"""

from __future__ import annotations

import asyncio
from pathlib import Path

from santorini_p2p.net.clock import monotonic_ms
from santorini_p2p.net.game import NetworkGame
from santorini_p2p.net.spectator import Spectator
from santorini_p2p.net.transport import (
    JoinTransport,
    bind_host,
    close_context,
    new_context,
)
from tests.net.lastword import WAIT_S, Counting, ann_hosts, pump, pump_until, until


async def _stopped_host_and_a_busy_spectator(tmp: Path) -> None:
    ctx = new_context()
    raw = await bind_host(ctx, "127.0.0.1", 0)
    link = Counting(raw)
    address = f"127.0.0.1:{raw.port}"
    session = ann_hosts(tmp, address)
    game = NetworkGame(session, link)
    host = asyncio.create_task(game.run())
    wctx = new_context()
    wlink = JoinTransport(wctx, address)
    w = Spectator("carol", now=monotonic_ms, address=address)
    try:
        gallery = session.gallery
        assert gallery is not None

        async def watching() -> bool:
            await pump(w, wlink)
            return w.welcome is not None and len(gallery) == 1

        loop = asyncio.get_running_loop()
        deadline = loop.time() + WAIT_S
        while not await watching():
            assert loop.time() < deadline, "carol never watched"
        [peer] = [p for p, _ in gallery.connections()]
        # Carol is busy: she reads nothing while the host stops and tells her.
        session._stop("a test stop", index=0)
        await until(lambda: link.stops.get(peer, 0) >= 3, "the stop told again")
        assert not host.done(), "the host left a spectator that had not read its stop"
        # She reads it at last, and leaves; then the host ends.
        await pump_until(w, wlink, lambda: w.stopped is not None, "carol never read the stop")
        assert "the host stopped the game at record 0: a test stop" in w.stopped
        wlink.close()
        await asyncio.wait_for(host, WAIT_S)
        assert game.stopped is not None
    finally:
        host.cancel()
        wlink.close()
        await close_context(wctx)
        raw.close()
        await close_context(ctx)


def test_a_stopped_host_waits_for_a_busy_spectator_to_read_the_stop(tmp_path):
    asyncio.run(_stopped_host_and_a_busy_spectator(tmp_path))
