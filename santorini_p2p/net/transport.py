"""ZeroMQ transport: moves opaque frames between peers; the only module that imports zmq.

The topology is a star. The host binds one ROUTER socket; every other peer connects one DEALER
socket to it. The host relays every record to every peer: it cannot forge one, because each
record is signed by its author and chained (protocol/SESSION.md), so a relay can only withhold,
which the clocks and the abandonment claim bound.

What this module guarantees is deliberately small: frames up to ``max_frame`` bytes, whole or
not at all, in order per connection while it lasts. Connections drop and come back by
themselves (DEALER reconnects, under a new routing id the ROUTER gives it; ZMTP heartbeats
detect a dead peer). Acknowledgement, resending and duplicate suppression are done
one level up by the session, which counts records (``net/session.py``), so a frame lost on a
dropped connection is sent again whatever the socket did with it.

Every wait is bounded: ``receive`` takes a timeout, ``send`` never blocks (a full queue drops
the frame, and the session resends it), and ``close`` uses ``linger=0``.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import math
import socket
from collections.abc import Awaitable
from dataclasses import dataclass
from typing import Final, Protocol, TypeAlias

import zmq
import zmq.asyncio

from santorini_p2p.errors import AddressError

__all__ = [
    "HOST_PEER",
    "Context",
    "FrameLink",
    "HostTransport",
    "JoinTransport",
    "TransportOptions",
    "bind_host",
    "check_listening",
    "close_context",
    "lan_address",
    "new_context",
    "parse_address",
    "resolve",
    "shown_address",
]

LOG = logging.getLogger(__name__)

_released: set[int] = set()
"""Ports that hosts of this process listened on and closed: ZeroMQ's I/O thread lets them go
a moment after ``close``, and ``bind_host`` waits for that."""

Context: TypeAlias = zmq.asyncio.Context
"""A ZeroMQ context, as ``new_context`` returns it (for those that must not import zmq)."""

HOST_PEER: Final = b"host"
"""The peer id under which a joining peer's transport reports frames from the host."""
_POLLIN: Final = int(zmq.POLLIN)
"""As a plain int: enum flag arithmetic costs microseconds on the receive path."""


@dataclass(frozen=True, slots=True)
class TransportOptions:
    """Socket settings shared by both ends (milliseconds and bytes)."""

    max_frame: int = 1 << 20
    heartbeat_ivl_ms: int = 1000
    heartbeat_timeout_ms: int = 3000
    reconnect_ivl_ms: int = 100
    reconnect_ivl_max_ms: int = 2000
    send_hwm: int = 1000


class FrameLink(Protocol):
    """What the session runner needs from a transport: send and receive frames by peer id."""

    def send(self, peer: bytes, frame: bytes) -> bool:
        """Queue ``frame`` for ``peer`` without blocking; return False if it was dropped."""
        ...

    async def receive(self, limit: float) -> tuple[bytes, bytes] | None:
        """Return the next ``(peer, frame)``, or None after ``limit`` seconds."""
        ...

    def close(self) -> None:
        """Close the socket at once (``linger=0``)."""
        ...


def parse_address(text: str) -> tuple[str, int]:
    """Split ``host:port`` into its parts.

    Raises:
        ValueError: not ``host:port`` with a port from 1 to 65535.
    """
    host, sep, port_text = text.rpartition(":")
    if not sep or not host or not port_text.isdigit():
        raise ValueError(f"address: expected host:port, got {text!r}")
    port = int(port_text)
    if not 1 <= port <= 65535:
        raise ValueError(f"address: port must be 1 to 65535, got {port}")
    return host.strip("[]"), port


def _endpoint_host(host: str) -> str:
    """``host`` as a ZeroMQ endpoint writes it: an IPv6 address in brackets."""
    host = host.strip("[]")
    return f"[{host}]" if ":" in host else host


def _configure(sock: zmq.asyncio.Socket, options: TransportOptions) -> None:
    sock.setsockopt(zmq.LINGER, 0)
    sock.setsockopt(zmq.IPV6, 1)  # IPv6 addresses too ([::1]:PORT), IPv4 as before
    sock.setsockopt(zmq.MAXMSGSIZE, options.max_frame + 64)
    sock.setsockopt(zmq.HEARTBEAT_IVL, options.heartbeat_ivl_ms)
    sock.setsockopt(zmq.HEARTBEAT_TIMEOUT, options.heartbeat_timeout_ms)
    sock.setsockopt(zmq.HEARTBEAT_TTL, options.heartbeat_timeout_ms)
    sock.setsockopt(zmq.RECONNECT_IVL, options.reconnect_ivl_ms)
    sock.setsockopt(zmq.RECONNECT_IVL_MAX, options.reconnect_ivl_max_ms)
    sock.setsockopt(zmq.SNDHWM, options.send_hwm)
    sock.setsockopt(zmq.RCVHWM, options.send_hwm)


def _settled(sent: Awaitable[object], peer: bytes) -> bool:
    """Return whether a non-blocking send went out; drops on a full queue or unknown peer.

    With ``NOBLOCK`` and no send waiting, pyzmq's asyncio socket settles the future at once
    (an error is stored in it rather than raised).
    """
    assert isinstance(sent, asyncio.Future)
    if not sent.done():  # pragma: no cover - only when an awaited send is pending
        return True
    e = sent.exception()
    if e is None:
        return True
    if isinstance(e, zmq.ZMQError) and e.errno in (zmq.EHOSTUNREACH, zmq.EAGAIN):
        LOG.debug("frame to %s dropped: %s", peer.hex(), e)
        return False
    raise e


class _Base:
    """Shared receive and close logic of both ends."""

    def __init__(self, sock: zmq.asyncio.Socket, options: TransportOptions) -> None:
        self._sock = sock
        self._options = options
        self._closed = False

    def _split(self, parts: list[bytes]) -> tuple[bytes, bytes] | None:
        raise NotImplementedError

    def _ready(self) -> list[bytes] | None:
        """Return a message already queued, without waiting, or None."""
        events = self._sock.getsockopt(zmq.EVENTS)
        if not (isinstance(events, int) and events & _POLLIN):
            return None
        f = self._sock.recv_multipart(flags=zmq.NOBLOCK)
        assert isinstance(f, asyncio.Future)
        e = f.exception()
        if isinstance(e, zmq.Again):
            return None
        if e is not None:
            raise e
        parts: list[bytes] = f.result()
        return parts

    async def receive(self, limit: float) -> tuple[bytes, bytes] | None:
        """Return the next ``(peer, frame)``, or None after ``limit`` seconds (0: no wait).

        A message already queued is taken at once, with no timer and no wait on the loop.
        The wait is a poll, never a receive cut off by a timeout: a receive cancelled at its
        deadline loses a message that arrived in the same turn of the loop (which a loaded
        machine makes common), and a frame nobody sends again (a spectator's chat line) is
        then gone for good.
        """
        deadline: float | None = None
        while True:
            parts = self._ready()
            if parts is None:
                if limit <= 0:
                    return None
                loop = asyncio.get_running_loop()
                if deadline is None:
                    deadline = loop.time() + limit
                left = deadline - loop.time()
                if left <= 0:
                    return None
                await self._sock.poll(timeout=max(1, math.ceil(left * 1000)))  # POLLIN
                continue
            got = self._split(parts)
            if got is not None:
                return got

    def close(self) -> None:
        """Close the socket at once (``linger=0``); safe to call twice."""
        if not self._closed:
            self._closed = True
            self._sock.close(linger=0)


class HostTransport(_Base):
    """The host's end: a ROUTER bound to ``bind:port`` (port 0 picks a free one).

    Peer ids are the ZeroMQ routing ids the ROUTER gives each connection: a joiner that
    reconnects comes back under a new one, and proves its key again (protocol/SESSION.md 3).
    """

    def __init__(
        self,
        context: zmq.asyncio.Context,
        bind: str = "127.0.0.1",
        port: int = 0,
        options: TransportOptions | None = None,
    ) -> None:
        opts = options or TransportOptions()
        sock = context.socket(zmq.ROUTER)
        _configure(sock, opts)
        sock.setsockopt(zmq.ROUTER_MANDATORY, 1)
        # A peer id is one connection: joiners set no routing id, so the ROUTER numbers each
        # connection itself (from a random start, never sent on the wire), and a connection
        # claiming an id already in use is ignored rather than handed the other's. The session
        # ties a seat to a peer id only once that connection has proved the seat's key.
        sock.setsockopt(zmq.ROUTER_HANDOVER, 0)
        super().__init__(sock, opts)
        try:
            if port == 0:
                self.port = sock.bind_to_random_port(f"tcp://{_endpoint_host(bind)}")
            else:
                sock.bind(f"tcp://{_endpoint_host(bind)}:{port}")
                self.port = port
        except zmq.ZMQError:
            self.close()
            raise
        self.bind = bind
        LOG.info("listening on %s:%d", bind, self.port)

    def close(self) -> None:
        """Close the socket at once; its port is released a moment later (see bind_host)."""
        if not self._closed and hasattr(self, "port"):
            _released.add(self.port)
        super().close()

    def _split(self, parts: list[bytes]) -> tuple[bytes, bytes] | None:
        if len(parts) != 2:
            LOG.warning("dropped a message of %d parts (expected 2)", len(parts))
            return None
        return parts[0], parts[1]

    def send(self, peer: bytes, frame: bytes) -> bool:
        """Queue ``frame`` for ``peer``; False if the peer is not connected or its queue is full."""
        if len(frame) > self._options.max_frame:
            raise ValueError(f"frame of {len(frame)} bytes over {self._options.max_frame}")
        return _settled(self._sock.send_multipart([peer, frame], flags=zmq.NOBLOCK), peer)


class JoinTransport(_Base):
    """A joining peer's end: a DEALER connected to the host, reconnecting by itself.

    Every frame received is reported as coming from :data:`HOST_PEER`; ``send`` ignores its
    peer argument.
    """

    def __init__(
        self,
        context: zmq.asyncio.Context,
        address: str,
        options: TransportOptions | None = None,
    ) -> None:
        host, port = parse_address(address)
        opts = options or TransportOptions()
        sock = context.socket(zmq.DEALER)
        _configure(sock, opts)
        sock.setsockopt(zmq.IMMEDIATE, 1)
        super().__init__(sock, opts)
        sock.connect(f"tcp://{_endpoint_host(host)}:{port}")
        self.address = f"{host}:{port}"

    def _split(self, parts: list[bytes]) -> tuple[bytes, bytes] | None:
        if len(parts) != 1:
            LOG.warning("dropped a message of %d parts (expected 1)", len(parts))
            return None
        return HOST_PEER, parts[0]

    def send(self, peer: bytes, frame: bytes) -> bool:
        """Queue ``frame`` for the host; False if it is not connected or the queue is full."""
        del peer
        if len(frame) > self._options.max_frame:
            raise ValueError(f"frame of {len(frame)} bytes over {self._options.max_frame}")
        return _settled(self._sock.send(frame, flags=zmq.NOBLOCK), HOST_PEER)


async def bind_host(
    context: zmq.asyncio.Context,
    bind: str = "127.0.0.1",
    port: int = 0,
    options: TransportOptions | None = None,
    limit: float = 5.0,
) -> HostTransport:
    """Return a :class:`HostTransport`, retrying while ``port`` is still held by a closed socket.

    A socket closed in this process releases its port in ZeroMQ's I/O thread a moment later,
    so a host that restarts on its old port retries, bounded by ``limit`` seconds. A port this
    process never listened on is held by another program: that is reported at once.

    Raises:
        AddressError: the port is still in use after ``limit``, or ``bind:port`` cannot be
            listened on at all (an address this machine does not have, a port out of range).
    """
    where = f"{bind}:{port}" if port else bind
    if not 0 <= port <= 65535:
        raise AddressError(f"cannot listen on {where}: the port must be 0 to 65535")
    deadline = asyncio.get_running_loop().time() + limit
    while True:
        try:
            return HostTransport(context, bind, port, options)
        except zmq.ZMQError as e:
            if e.errno != zmq.EADDRINUSE:
                raise AddressError(f"cannot listen on {where}: {e.strerror}") from e
            if port not in _released or asyncio.get_running_loop().time() >= deadline:
                raise AddressError(
                    f"cannot listen on {where}: the port is in use by another program"
                ) from e
            LOG.debug("port %d still in use; retrying", port)
        await asyncio.sleep(0.02)


async def resolve(address: str, limit: float = 5.0) -> None:
    """Check that the host of ``address`` (``host:port``) resolves, bounded by ``limit`` seconds.

    ZeroMQ would keep retrying a name that does not resolve without a word; a joining peer
    checks it first so that a mistyped name is reported at once.

    Raises:
        ValueError: ``address`` is not ``host:port``.
        AddressError: the name does not resolve, or the name service did not answer in time.
    """
    host, port = parse_address(address)
    try:
        async with asyncio.timeout(limit):
            await asyncio.get_running_loop().getaddrinfo(host, port, type=socket.SOCK_STREAM)
    except socket.gaierror as e:
        raise AddressError(f"cannot find the host {host!r}: {e.strerror}") from e
    except TimeoutError as e:
        raise AddressError(f"cannot find the host {host!r}: no answer in {limit:g} s") from e


async def check_listening(address: str, limit: float = 5.0) -> None:
    """Check that something listens at ``address`` (``host:port``), bounded by ``limit`` s.

    ZeroMQ would retry a connection that fails without a word until the joiner gives up; a
    new joiner checks first, so that a mistyped port, a host that has left or an address
    nothing answers at is reported at once, the same for IPv4 and IPv6: a refusal, no route
    to the host, or no answer at all within ``limit`` seconds (a host on the LAN answers in
    milliseconds; a firewall that drops the connection would stop the game's as well). The
    probe's TCP connection closes before any ZMTP greeting, which the host's socket drops.

    Raises:
        ValueError: ``address`` is not ``host:port``.
        AddressError: the connection was refused, cannot be routed, or was never answered.
    """
    host, port = parse_address(address)
    family = socket.AF_INET6 if ":" in host else socket.AF_INET  # an IPv6 literal: IPv6
    check = "check the address the host gave, and that the game is still offered there"
    try:
        async with asyncio.timeout(limit):
            _, writer = await asyncio.open_connection(host, port, family=family)
    except ConnectionRefusedError as e:
        raise AddressError(f"nothing listens at {address} (connection refused): {check}") from e
    except TimeoutError as e:
        raise AddressError(
            f"nothing answers at {address} (no answer in {limit:g} s): {check}"
        ) from e
    except OSError as e:
        why = e.strerror or type(e).__name__
        raise AddressError(
            f"cannot reach {address} ({why.lower()}): {check}, and that this machine is on "
            "the same network"
        ) from e
    writer.close()
    with contextlib.suppress(OSError):
        await writer.wait_closed()


def new_context() -> zmq.asyncio.Context:
    """Return a new asyncio ZeroMQ context (never the shared singleton)."""
    return zmq.asyncio.Context()


async def close_context(context: zmq.asyncio.Context, limit: float = 5.0) -> None:
    """Terminate ``context`` in a thread, bounded by ``limit`` seconds."""
    try:
        async with asyncio.timeout(limit):
            await asyncio.to_thread(context.term)
    except TimeoutError:
        LOG.warning("the ZeroMQ context did not end within %.1f s", limit)


def shown_address(bind: str) -> str:
    """Return the address to give other players for a host bound to ``bind``.

    An IPv6 address is put in brackets, so that ``ADDRESS:PORT`` reads as one.
    """
    shown = bind if bind not in ("0.0.0.0", "", "::", "[::]") else lan_address()
    return f"[{shown}]" if ":" in shown and not shown.startswith("[") else shown


def lan_address() -> str:
    """Return this machine's address on the LAN, to give other players (127.0.0.1 if none)."""
    from santorini_p2p.net import address

    return address.lan_address()
