"""Games offered on the LAN, by mDNS/DNS-SD through the ``zeroconf`` library.

Discovery is a convenience: an explicit ``host:port`` always works, including where multicast
is blocked. A host advertises one service of type :data:`SERVICE_TYPE` whose TXT properties
describe the offer (protocol version, host's display name and fingerprint, players, gods, god
pool, time control, how many spectators it takes, whether play has begun, and for a club
tournament's board the board's name); ``browse`` lists
the offers seen within a bounded time. Nothing learnt here is trusted: the handshake checks keys
and the offer again. A host that takes spectators goes on announcing its game once play has
begun (``state=playing``), so that it can be watched by name.
"""

from __future__ import annotations

import asyncio
import logging
import socket
from dataclasses import dataclass
from typing import Final

from zeroconf import IPVersion, ServiceStateChange, Zeroconf
from zeroconf.asyncio import AsyncServiceBrowser, AsyncServiceInfo, AsyncZeroconf

from santorini_p2p.wire.identity import check_name
from santorini_p2p.wire.text import line_fault

__all__ = [
    "SERVICE_TYPE",
    "Advertiser",
    "Offer",
    "board_round",
    "browse",
    "find_board",
    "find_offer",
    "fit_board",
]

LOG = logging.getLogger(__name__)

SERVICE_TYPE: Final = "_santorini._tcp.local."
"""The DNS-SD service type of a Santorini game offer."""

_MAX_LABEL: Final = 63
_MAX_TXT: Final = 250
"""The longest value of one TXT property (a TXT string holds 255 bytes with ``pool=``).

A pool named gods by gods longer than that (more than about 30 names) is announced with as
many names as fit and ``,...``; the announcement only shows it, the game's header holds it.
"""


def _fit(pool: str) -> str:
    """``pool`` cut after the last whole name that fits a TXT property, then ``,...``."""
    if len(pool) <= _MAX_TXT:
        return pool
    return pool[: pool.rfind(",", 0, _MAX_TXT - 4)] + ",..."


_MAX_BOARD_BYTES: Final = 255 - len("board=")
"""The longest board name a TXT string holds, in UTF-8 bytes."""


def fit_board(board: str) -> str:
    """``board`` as announced: cut to what one TXT string holds, at a character's edge."""
    data = board.encode("utf-8")
    if len(data) <= _MAX_BOARD_BYTES:
        return board
    return data[:_MAX_BOARD_BYTES].decode("utf-8", "ignore")


@dataclass(frozen=True, slots=True)
class Offer:
    """A game offered on the LAN, as advertised (unverified until the handshake)."""

    name: str
    address: str
    port: int
    host_name: str
    fingerprint: str
    players: int
    gods: str
    time: str
    version: int
    pool: str = ""
    """The god pool: ``simple``, ``advanced``, ``all`` or god names joined by ``,``."""
    spectators: int = 0
    """How many spectators the host takes (0: none); ``santorini watch`` connects as one."""
    playing: bool = False
    """Whether play has begun: the seats are taken, and the game can only be watched."""
    spectator_chat: bool = False
    """Whether the host lets its spectators chat (``host --spectator-chat``)."""
    board: str = ""
    """A club tournament's board (``host --tournament``): ``EVENT: round R board N: A-B``."""

    @property
    def watchable(self) -> bool:
        """Whether the host takes spectators."""
        return self.spectators > 0

    @property
    def gods_shown(self) -> str:
        """The god selection and, when it is not the simple gods, the pool it draws from."""
        if self.gods == "none" or self.pool in ("", "simple"):
            return self.gods
        return f"{self.gods} from {self.pool}"

    @property
    def endpoint(self) -> str:
        """The ``host:port`` to join."""
        return f"{self.address}:{self.port}"

    def properties(self) -> dict[str, str]:
        """Return the TXT properties that advertise this offer."""
        return {
            "v": str(self.version),
            "host": self.host_name,
            "fp": self.fingerprint,
            "players": str(self.players),
            "gods": self.gods,
            "time": self.time,
            "pool": _fit(self.pool),
            "watch": str(self.spectators),
            "state": "playing" if self.playing else "open",
            **({"chat": "spectators"} if self.spectator_chat else {}),
            **({"board": fit_board(self.board)} if self.board else {}),
        }

    @classmethod
    def from_properties(
        cls, name: str, address: str, port: int, props: dict[bytes, bytes | None]
    ) -> Offer | None:
        """Return the offer described by TXT ``props``, or None if they are malformed."""

        def text(key: str, limit: int = _MAX_LABEL) -> str:
            raw = props.get(key.encode())
            value = raw.decode("utf-8", "strict") if raw else ""
            # Shown in lists and prompts: one printable line, or the offer is ignored.
            fault = line_fault(value, max_chars=limit) if value else ""
            if fault:
                raise ValueError(f"{key}: {fault}")
            return value

        try:
            if line_fault(name, max_chars=_MAX_TXT):
                raise ValueError(f"the service name is not a printable line: {name!r}")
            check_name(text("host", 64))
            return cls(
                name=name,
                address=address,
                port=port,
                host_name=text("host", 64),
                fingerprint=text("fp"),
                players=int(text("players")),
                gods=text("gods"),
                time=text("time"),
                version=int(text("v")),
                pool=text("pool", _MAX_TXT),
                spectators=int(text("watch") or "0"),
                playing=text("state") == "playing",
                spectator_chat=text("chat") == "spectators",
                board=text("board", _MAX_BOARD_BYTES),
            )
        except ValueError as e:  # UnicodeDecodeError included
            LOG.debug("ignored the malformed offer %r: %s", name, e)
            return None


def _instance(offer: Offer) -> str:
    label = f"{offer.host_name} {offer.fingerprint[:8]}"[:_MAX_LABEL]
    return f"{label}.{SERVICE_TYPE}"


def _interfaces(address: str) -> list[str] | None:
    """The interfaces to use: only loopback when bound there, else all (None)."""
    return [address] if address.startswith("127.") else None


class Advertiser:
    """Advertises one offer on the LAN while a host waits; failures only log a warning."""

    def __init__(self, offer: Offer) -> None:
        self.offer = offer
        self._zc: AsyncZeroconf | None = None
        self._info: AsyncServiceInfo | None = None

    async def start(self, limit: float = 5.0) -> bool:
        """Register the offer; return whether it worked within ``limit`` seconds."""
        interfaces = _interfaces(self.offer.address)
        try:
            self._zc = (
                AsyncZeroconf(interfaces=interfaces, ip_version=IPVersion.V4Only)
                if interfaces
                else AsyncZeroconf(ip_version=IPVersion.V4Only)
            )
            addresses = [socket.inet_aton(self.offer.address)]
            self._info = AsyncServiceInfo(
                SERVICE_TYPE,
                _instance(self.offer),
                port=self.offer.port,
                properties=self.offer.properties(),
                addresses=addresses,
            )
            async with asyncio.timeout(limit):
                await self._zc.async_register_service(self._info, allow_name_change=True)
        except Exception as e:
            # Advertising is a convenience: whatever goes wrong (no multicast, a name clash
            # the library will not resolve), the game goes on with its explicit address.
            LOG.warning("could not advertise the game on the LAN (%s); give the address instead", e)
            await self.stop()
            return False
        return True

    async def update(self, offer: Offer, limit: float = 3.0) -> None:
        """Announce ``offer`` in place of the one announced (its TXT properties changed)."""
        zc, info = self._zc, self._info
        if zc is None or info is None:
            return
        self.offer = offer
        new = AsyncServiceInfo(
            SERVICE_TYPE,
            info.name,
            port=offer.port,
            properties=offer.properties(),
            addresses=[socket.inet_aton(offer.address)],
            server=info.server,
        )
        try:
            async with asyncio.timeout(limit):
                await zc.async_update_service(new)
            self._info = new
        except Exception as e:
            LOG.warning("could not update the game's announcement on the LAN (%s)", e)

    async def stop(self, limit: float = 3.0) -> None:
        """Withdraw the offer and close the responder, bounded by ``limit`` seconds."""
        zc, info = self._zc, self._info
        self._zc = self._info = None
        if zc is None:
            return
        try:
            async with asyncio.timeout(limit):
                if info is not None:
                    await zc.async_unregister_service(info)
                await zc.async_close()
        except Exception as e:
            LOG.debug("closing the advertiser: %s", e)


async def browse(listen: float = 2.0, interfaces: list[str] | None = None) -> list[Offer]:
    """Return the offers seen on the LAN within ``listen`` seconds, sorted by name.

    ``interfaces`` restricts the query to those addresses (for example ``["127.0.0.1"]``).
    """
    names: set[str] = set()

    def on_change(
        zeroconf: Zeroconf, service_type: str, name: str, state_change: ServiceStateChange
    ) -> None:
        del zeroconf, service_type
        if state_change is not ServiceStateChange.Removed:
            names.add(name)

    zc = (
        AsyncZeroconf(interfaces=interfaces, ip_version=IPVersion.V4Only)
        if interfaces
        else AsyncZeroconf(ip_version=IPVersion.V4Only)
    )
    offers: list[Offer] = []
    try:
        browser = AsyncServiceBrowser(zc.zeroconf, SERVICE_TYPE, handlers=[on_change])
        await asyncio.sleep(listen)
        await browser.async_cancel()
        for name in sorted(names):
            info = AsyncServiceInfo(SERVICE_TYPE, name)
            async with asyncio.timeout(listen + 1.0):
                found = await info.async_request(zc.zeroconf, int(listen * 1000))
            addresses = info.parsed_addresses(IPVersion.V4Only)
            if not found or not addresses or info.port is None:
                continue
            label = name.removesuffix("." + SERVICE_TYPE)
            offer = Offer.from_properties(label, addresses[0], info.port, dict(info.properties))
            if offer is not None:
                offers.append(offer)
    finally:
        async with asyncio.timeout(3.0):
            await zc.async_close()
    return offers


def board_round(board: str) -> str:
    """A board's name without its event: ``round R board N: A-B``."""
    event, sep, rest = board.partition(": round ")
    return f"round {rest}" if sep and event else board


def find_offer(offers: list[Offer], wanted: str) -> Offer | None:
    """Return the one offer whose name, host name, fingerprint prefix or board is ``wanted``.

    A tournament board is found by its whole name (``EVENT: round R board N: A-B``) or by
    ``round R board N: A-B``. Returns None when none or several match.
    """
    w = " ".join(wanted.split()).casefold()
    hits = [
        o
        for o in offers
        if o.name.casefold() == w
        or o.host_name.casefold() == w
        or (len(w) >= 4 and o.fingerprint.casefold().startswith(w))
        or (o.board and w in (o.board.casefold(), board_round(o.board).casefold()))
    ]
    return hits[0] if len(hits) == 1 else None


def find_board(offers: list[Offer], board: str, fingerprint: str) -> Offer | None:
    """The offer of tournament ``board`` hosted by the key ``fingerprint``, or None.

    An announcement proves nothing, so the board's name alone is not enough: the host must be
    the board's other player. A host of a program before board names announces none: then
    its fingerprint alone finds it.
    """
    fp = fingerprint.casefold()
    mine = [o for o in offers if o.fingerprint.casefold() == fp and not o.playing]
    named = [o for o in mine if o.board == fit_board(board)]
    if len(named) == 1:
        return named[0]
    unnamed = [o for o in mine if not o.board]
    return unnamed[0] if not named and len(unnamed) == 1 else None
