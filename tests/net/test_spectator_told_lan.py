"""A spectator busy when the host's last word comes still reads it, on real sockets.

A joiner's or spectator's socket drops what it holds of a connection that closes before it
reads it; so a host that stops stays (bounded) while a spectator it told is connected, and
tells it again. Held in one process: the spectator reads nothing until the test lets it.
"""

from __future__ import annotations

import asyncio
from collections.abc import Callable
from pathlib import Path

from santorini_p2p.net.clock import monotonic_ms
from santorini_p2p.net.frames import Stop, decode_frame
from santorini_p2p.net.game import NetworkGame
from santorini_p2p.net.session import GameSettings, Session
from santorini_p2p.net.spectator import Spectator
from santorini_p2p.net.transport import (
    HostTransport,
    JoinTransport,
    bind_host,
    close_context,
    new_context,
)
from santorini_p2p.net.trust import KnownPeers
from santorini_p2p.wire.identity import Identity

WAIT_S = 10.0


class _Counting:
    """The host's link, counting the stops it sends each peer."""

    def __init__(self, link: HostTransport) -> None:
        self.link = link
        self.stops: dict[bytes, int] = {}

    def send(self, peer: bytes, frame: bytes) -> bool:
        if isinstance(decode_frame(frame), Stop):
            self.stops[peer] = self.stops.get(peer, 0) + 1
        return self.link.send(peer, frame)

    async def receive(self, limit: float) -> tuple[bytes, bytes] | None:
        return await self.link.receive(limit)

    def close(self) -> None:
        self.link.close()


async def _until(check: Callable[[], bool], what: str) -> None:
    loop = asyncio.get_running_loop()
    deadline = loop.time() + WAIT_S
    while not check():
        assert loop.time() < deadline, f"{what}: not within {WAIT_S} s"
        await asyncio.sleep(0.01)


async def _pump(w: Spectator, link: JoinTransport) -> None:
    """One round of the spectator's own loop: send what it has, read what came."""
    w.tick()
    for peer, data in w.outgoing():
        link.send(peer, data)
    got = await link.receive(0.02)
    while got is not None:
        w.receive(*got)
        got = await link.receive(0)


async def _stopped_host_and_a_busy_spectator(tmp: Path) -> None:
    ctx = new_context()
    raw = await bind_host(ctx, "127.0.0.1", 0)
    link = _Counting(raw)
    address = f"127.0.0.1:{raw.port}"
    session = Session.host(
        Identity.generate("ann"),
        GameSettings(2, "none", None),
        home=tmp / "ann",
        now=monotonic_ms,
        known=KnownPeers(tmp / "ann"),
        address=address,
    )
    game = NetworkGame(session, link)
    host = asyncio.create_task(game.run())
    wctx = new_context()
    wlink = JoinTransport(wctx, address)
    w = Spectator("carol", now=monotonic_ms, address=address)
    try:
        gallery = session.gallery
        assert gallery is not None

        async def watching() -> bool:
            await _pump(w, wlink)
            return w.welcome is not None and len(gallery) == 1

        loop = asyncio.get_running_loop()
        deadline = loop.time() + WAIT_S
        while not await watching():
            assert loop.time() < deadline, "carol never watched"
        [peer] = [p for p, _ in gallery.connections()]
        # Carol is busy: she reads nothing while the host stops and tells her.
        session._stop("a test stop", index=0)
        await _until(lambda: link.stops.get(peer, 0) >= 3, "the stop told again")
        assert not host.done(), "the host left a spectator that had not read its stop"
        # She reads it at last, and leaves; then the host ends.
        deadline = loop.time() + WAIT_S
        while w.stopped is None:
            assert loop.time() < deadline, "carol never read the stop"
            await _pump(w, wlink)
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
