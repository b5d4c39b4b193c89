"""Real-socket helpers for the tests of a host's last word: a link that counts the stops it
sends, a bounded wait for an event, and one round of a joiner's or spectator's own loop."""

from __future__ import annotations

import asyncio
from collections.abc import Callable
from pathlib import Path
from typing import Any

from santorini_p2p.net.clock import monotonic_ms
from santorini_p2p.net.frames import Stop, decode_frame
from santorini_p2p.net.session import GameSettings, Session
from santorini_p2p.net.transport import HostTransport, JoinTransport
from santorini_p2p.net.trust import KnownPeers
from santorini_p2p.wire.identity import Identity

WAIT_S = 10.0


class Counting:
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


async def until(check: Callable[[], bool], what: str) -> None:
    """Wait for ``check`` to hold, at most ``WAIT_S`` seconds (then fail naming ``what``)."""
    loop = asyncio.get_running_loop()
    deadline = loop.time() + WAIT_S
    while not check():
        assert loop.time() < deadline, f"{what}: not within {WAIT_S} s"
        await asyncio.sleep(0.01)


async def pump(peer: Any, link: JoinTransport, wait: float = 0.02) -> None:
    """One round of a joiner's or spectator's own loop: send what it has, read what came.

    ``wait``: how long the first read waits for a frame (0: it reads only what is queued).
    """
    peer.tick()
    for to, data in peer.outgoing():
        link.send(to, data)
    got = await link.receive(wait)
    while got is not None:
        peer.receive(*got)
        got = await link.receive(0)


async def pump_until(peer: Any, link: JoinTransport, check: Callable[[], bool], what: str) -> None:
    """Run ``peer``'s own loop until ``check`` holds, at most ``WAIT_S`` seconds."""
    loop = asyncio.get_running_loop()
    deadline = loop.time() + WAIT_S
    while not check():
        assert loop.time() < deadline, f"{what}: not within {WAIT_S} s"
        await pump(peer, link)


def ann_hosts(tmp: Path, address: str) -> Session:
    """Ann's session hosting a two-player base game at ``address``."""
    return Session.host(
        Identity.generate("ann"),
        GameSettings(2, "none", None),
        home=tmp / "ann",
        now=monotonic_ms,
        known=KnownPeers(tmp / "ann"),
        address=address,
    )


def bob_joins(tmp: Path, address: str) -> Session:
    """Bob's session joining the game at ``address``."""
    return Session.join(
        Identity.generate("bob"),
        home=tmp / "bob",
        now=monotonic_ms,
        known=KnownPeers(tmp / "bob"),
        address=address,
    )
