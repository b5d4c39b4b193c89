"""Secret-god games between peers over the transport (SECRET.md 6 to 8, 12).

A star like every session: the host (seat 1) orders the records; every peer seals its own
(``wire.secretlog``), the host checks each with its ``SecretGame`` and relays it to every
joiner, and every joiner checks it again. A record the host refuses goes back to its author
as a signed-for reason; nothing else changes. A seat that owes a record (an ack, an objection,
its opening at the end) and sends none within ``clock`` seconds forfeits: the next seat in
order signs the forfeit.

This carries the records of SECRET.md as their own sub-protocol: the frames ``hello``
(joiner's key), ``seats`` (game id, pool and keys in seat order, which the first record's
``prev`` hashes), ``rec`` (one sealed record) and ``refuse`` (a reason). The main session
(handshake, header, clocks, journal) does not carry them yet (SECRET.md 12).

Public API: ``SecretBot`` and ``PartyBot`` (``net.tablebots``: a computer player's choices, and
the ways a test makes one misbehave), ``SecretPeer`` (one peer's state: log, checker, bot) and
``play_table(...)``, which plays a whole game between peers on 127.0.0.1 and returns every peer.
"""

from __future__ import annotations

import asyncio
import hashlib
import secrets
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass, field
from typing import Any

from santorini_p2p.errors import PeerError, WireError
from santorini_p2p.net.frames import Refuse, encode_frame
from santorini_p2p.net.tablebots import PartyBot, SecretBot
from santorini_p2p.net.told import Told
from santorini_p2p.net.transport import (
    HOST_PEER,
    HostTransport,
    JoinTransport,
    TransportOptions,
    bind_host,
    close_context,
    new_context,
)
from santorini_p2p.wire.codec import decode, encode
from santorini_p2p.wire.framing import encode_frames
from santorini_p2p.wire.identity import Identity
from santorini_p2p.wire.partygame import (
    PartyGame,
    decode_party_record,
    encode_party_record,
)
from santorini_p2p.wire.secretgame import (
    Forfeit,
    SecretGame,
    SecretRecordError,
    decode_record,
    encode_record,
)
from santorini_p2p.wire.secretlog import (
    first_prev,
    make_game,
    read_records,
    read_seats,
    seal_record,
    seats_frame,
)

__all__ = [
    "SESSION_REFUSAL",
    "TABLE_VERSION",
    "HostGone",
    "PartyBot",
    "SecretBot",
    "SecretPeer",
    "host_table",
    "join_table",
    "play_table",
]

_OPTIONS = TransportOptions(max_frame=8192)
TABLE_VERSION = 1
"""The table's protocol (SECRET.md 13): a hello of another version is refused at once."""
POLL_S = 0.05
"""How long a peer waits for a frame before it looks again at what it owes."""
RESEND_S = 0.2
"""A frame can be lost (the transport promises no more, net/transport.py): a joiner sends its
record again, and asks for the records after its last, after this long without news."""
ATTEMPTS = 10
"""How many times a joiner says it is done before it leaves anyway (its game is checked)."""
BYE_S = 2.0
"""How long a host whose game is over stays at most for its joiners to read its bye and leave."""
SESSION_REFUSAL = f"this host plays a secret-gods table (table protocol {TABLE_VERSION})"
"""What a table host answers a session hello (SESSION.md 3) with, as an unsigned refusal that
every session version reads: an older peer stops with it; ``santorini join`` goes on in the
table's protocol (SECRET.md 13)."""


class HostGone(PeerError):
    """A joiner heard nothing from the host for the clock mid-game: the host left.

    ``records`` is how many records the joiner holds (its replay keeps them).
    """

    def __init__(self, records: int, silent: float) -> None:
        super().__init__(
            f"the host left mid-game: nothing from it for {silent:g} s after record "
            f"{records}; the game ends unfinished"
        )
        self.records = records


@dataclass
class SecretPeer:
    """One peer: its identity, its bot, the log as it holds it and its own checker.

    A Party game (the seats frame's options ``party``, ``pass=K``) runs ``PartyGame`` and a
    ``PartyBot`` on the same table.
    """

    identity: Identity
    bot: SecretBot | PartyBot
    pool: tuple[str, ...] = ()
    keys: tuple[bytes, ...] = ()
    game: SecretGame | PartyGame | None = None
    encoder: Callable[[Any], bytes] = encode_record
    decoder: Callable[[bytes], Any] = decode_record
    log: list[bytes] = field(default_factory=list)
    prev: bytes = b""
    refused: list[str] = field(default_factory=list)
    sent_at: int = -1
    seats: bytes = b""
    """The ``seats`` frame of the game (the first frame of its replay file)."""
    first_prev: bytes = b""
    """The first record's ``prev``: the hash of the seats frame."""
    records: list[Any] = field(default_factory=list)
    """Every record taken, decoded, in the log's order (what a view shows)."""
    party_bot: PartyBot | None = None
    """The player for a Party or Agora game, when a joiner learns the mode from the seats."""

    def start(self, seats: bytes) -> None:
        """Take the seats: the game's pool and every seat's key.

        Raises:
            DecodeError: not a seats frame.
        """
        _, self.pool, self.keys = read_seats(seats)
        self.seats = seats
        game = make_game(seats)
        if isinstance(game, PartyGame) and self.party_bot is not None:
            self.bot = self.party_bot
        self.bot.seat = self.keys.index(self.identity.public_key)
        self.game = make_game(seats)
        if isinstance(self.game, PartyGame):
            self.encoder, self.decoder = encode_party_record, decode_party_record
        self.prev = self.first_prev = first_prev(seats)

    def replay(self) -> bytes:
        """The game's replay file: the seats frame, then every record's envelope (SNTR)."""
        return encode_frames([self.seats, *self.log])

    def accept(self, raw: bytes) -> None:
        """Check a sealed record as the next of the log and take it.

        Raises:
            WireError: its signer, signature or chain is wrong.
            SecretRecordError: the record breaks SECRET.md's rules.
        """
        assert self.game is not None
        (record,) = read_records([raw], self.keys, len(self.log) + 1, self.prev, self.decoder)
        self.game.feed(record)
        self.records.append(record)
        self.log.append(raw)
        self.prev = hashlib.blake2b(raw, digest_size=32).digest()

    def proposal(self) -> bytes | None:
        """The sealed record this peer sends now, once per length of the log."""
        if self.game is None or self.sent_at == len(self.log):
            return None
        if isinstance(self.bot, PartyBot) and isinstance(self.game, PartyGame):
            record: Any = self.bot.next_record(self.game, len(self.log))
        elif isinstance(self.bot, SecretBot) and isinstance(self.game, SecretGame):
            record = self.bot.next_record(self.game, len(self.log))
        else:
            raise TypeError("a Party bot plays Party, a secret bot a secret game")
        if record is None:
            return None
        self.sent_at = len(self.log)
        return seal_record(self.identity, len(self.log) + 1, self.prev, record, self.encoder)

    def claim(self, quiet: float, clock: float) -> bytes | None:
        """A forfeit of the seat that owes a record, when this seat is the one to sign it."""
        g = self.game
        if g is None or g.result is not None or quiet < clock:
            return None
        owed = g.owed()
        if not owed:
            return None
        late = owed[0]
        claimer = next(s for s in range(g.players) if s != late)
        if claimer != self.bot.seat:
            return None
        record = Forfeit(claimer, late, f"no record within {clock:g} s")
        return seal_record(self.identity, len(self.log) + 1, self.prev, record, self.encoder)


async def _host(
    peer: SecretPeer,
    t: HostTransport,
    players: int,
    pool: tuple[str, ...],
    clock: float,
    game_id: bytes,
    options: tuple[str, ...],
    on_record: Callable[[SecretPeer], None] | None = None,
) -> None:
    joiners: dict[bytes, bytes] = {}
    while len(joiners) < players - 1:
        got = await t.receive(1.0)
        if got is None:
            continue
        who, frame = got
        kind, *rest = _frame(frame)
        if kind == _SESSION_HELLO:
            t.send(who, encode_frame(Refuse(SESSION_REFUSAL)))
            continue
        if kind != "hello":
            continue
        if len(rest) != 2 or rest[1] != TABLE_VERSION:
            version = rest[1] if len(rest) == 2 else 0
            t.send(who, encode(("refuse", f"protocol {version} is not {TABLE_VERSION}")))
            continue
        if isinstance(rest[0], bytes) and rest[0] not in joiners.values():
            joiners[who] = rest[0]
    keys = (peer.identity.public_key, *joiners.values())
    seats = seats_frame(game_id, pool, keys, options)
    for who in joiners:
        t.send(who, seats)
    peer.start(seats)
    assert peer.game is not None
    if on_record is not None:
        on_record(peer)
    loop = asyncio.get_running_loop()
    last = loop.time()
    held: set[bytes] = set()
    done: set[bytes] = set()
    wait = False
    while peer.game.result is None or done != set(joiners):
        raw = None
        if peer.game.result is None and not wait:
            raw = peer.proposal() or peer.claim(loop.time() - last, clock)
        wait = False
        author = b""
        if raw is None:
            got = await t.receive(POLL_S)
            if got is None:
                continue
            author, frame = got
            kind, *rest = _frame(frame)
            if kind == "have" and rest and isinstance(rest[0], int):
                for i in range(max(0, rest[0]), len(peer.log)):
                    t.send(author, encode(("rec", i, peer.log[i])))
                if rest[0] >= len(peer.log):  # nothing new: say so, the joiner knows we are here
                    t.send(author, encode(("have", len(peer.log))))
                continue
            if kind == _SESSION_HELLO:
                t.send(author, encode_frame(Refuse(SESSION_REFUSAL)))
                continue
            if kind == "hello" and author not in joiners:
                t.send(author, encode(("refuse", "the table is full: the game has begun")))
                continue
            if kind == "done":
                done.add(author)
                t.send(author, encode(("bye",)))
                continue
            if kind != "rec" or not rest or not isinstance(rest[0], bytes) or rest[0] in held:
                continue
            raw = rest[0]
        try:
            peer.accept(raw)
        except (WireError, SecretRecordError, ValueError) as exc:
            if author:
                t.send(author, encode(("refuse", str(exc))))
            else:
                peer.refused.append(str(exc))
                peer.sent_at, wait = -1, True
            continue
        held.add(raw)
        last = loop.time()
        if on_record is not None:
            on_record(peer)
        for who in joiners:
            t.send(who, encode(("rec", len(peer.log) - 1, raw)))
    await _say_bye(t, joiners)


async def _say_bye(t: HostTransport, joiners: Iterable[bytes]) -> None:
    """Say bye again every RESEND_S to each joiner still connected until each has left.

    A joiner's socket drops a frame it has not read yet when the host's connection closes under
    it; one that lost the bye would ask again for :data:`ATTEMPTS` rounds. A send that fails
    says the joiner has read it and left (``net.told``); the host stays at most BYE_S.
    """
    told = Told()
    bye = encode(("bye",))
    loop = asyncio.get_running_loop()
    deadline = loop.time() + BYE_S
    while loop.time() < deadline:
        for who in told.listening(joiners):
            if not t.send(who, bye):
                told.gone(who)
        if not told.listening(joiners):
            return
        until = min(deadline, loop.time() + RESEND_S)
        while (left := until - loop.time()) > 0:
            await t.receive(left)  # the game is over: what comes now needs no answer


async def _join(
    peer: SecretPeer,
    t: JoinTransport,
    clock: float,
    on_record: Callable[[SecretPeer], None] | None = None,
    gone: float | None = None,
) -> None:
    hello = encode(("hello", peer.identity.public_key, TABLE_VERSION))
    while peer.game is None:
        t.send(HOST_PEER, hello)
        got = await t.receive(0.2)
        if got is None:
            continue
        kind, *rest = _frame(got[1])
        if kind == "refuse":
            raise PeerError(f"the host refused: {rest[0] if rest else 'no reason'}")
        if kind == "seats":
            try:
                seats = read_seats(got[1])
            except WireError:
                continue
            if peer.identity.public_key in seats[2]:
                peer.start(got[1])
                if on_record is not None:
                    on_record(peer)
    loop = asyncio.get_running_loop()
    last = heard = sent = alive = loop.time()
    silence = clock if gone is None else gone
    pending: bytes | None = None
    while peer.game is not None and peer.game.result is None:
        now = loop.time()
        if now - alive > silence:
            raise HostGone(len(peer.log), silence)
        fresh = peer.proposal() or peer.claim(now - last, clock)
        if fresh is not None:
            pending, sent = fresh, now - RESEND_S
        if pending is not None and now - sent >= RESEND_S:
            t.send(HOST_PEER, encode(("rec", pending)))
            sent = now
        if now - heard >= RESEND_S:
            t.send(HOST_PEER, encode(("have", len(peer.log))))
            heard = now
        got = await t.receive(POLL_S)
        if got is None:
            continue
        heard = alive = loop.time()
        kind, *rest = _frame(got[1])
        if kind == "refuse" and rest:
            peer.refused.append(str(rest[0]))
            peer.sent_at, pending = -1, None
        elif kind == "rec" and len(rest) == 2 and rest[0] == len(peer.log):
            raw = rest[1]
            if isinstance(raw, bytes):
                peer.accept(raw)
                last = loop.time()
                if on_record is not None:
                    on_record(peer)
                if raw == pending:
                    pending = None
    for _ in range(ATTEMPTS):
        t.send(HOST_PEER, encode(("done",)))
        got = await t.receive(RESEND_S)
        if got is not None and _frame(got[1])[0] == "bye":
            return


_SESSION_HELLO = 1
"""The tag of a session hello (SESSION.md 3): a session joiner's first frame."""


def _frame(frame: bytes) -> tuple[object, ...]:
    value = decode(frame, 8192)
    if not isinstance(value, tuple) or not value:
        return ("",)
    return value


async def play_table(
    bots: Sequence[SecretBot | PartyBot],
    pool: tuple[str, ...],
    clock: float = 1.0,
    limit: float = 120.0,
    identities: list[Identity] | None = None,
    options: tuple[str, ...] = (),
    on_record: Callable[[SecretPeer], None] | None = None,
) -> list[SecretPeer]:
    """Play one secret game between ``bots`` (seat 1 hosts) over 127.0.0.1; return every peer.

    ``options`` are the seats frame's (``("party", "pass=K")`` for Party, with ``PartyBot``s).
    ``on_record`` is called with a peer after it takes the seats and after each record.
    ``identities`` sign each bot's records (default: keys from the fixed seeds ``01`` x 32,
    ``02`` x 32, ... of the vectors). Joiners take the seats in the order the host hears them.

    Raises:
        TimeoutError: the game did not end within ``limit`` seconds.
    """
    ctx = new_context()
    ids = identities or [Identity.from_seed(bytes([i + 1]) * 32, f"p{i + 1}") for i in range(9)]
    peers = [SecretPeer(ids[i], b) for i, b in enumerate(bots)]
    host = await bind_host(ctx, "127.0.0.1", 0, _OPTIONS)
    joins = [JoinTransport(ctx, f"127.0.0.1:{host.port}", _OPTIONS) for _ in bots[1:]]
    try:
        async with asyncio.timeout(limit):
            await asyncio.gather(
                _host(
                    peers[0],
                    host,
                    len(bots),
                    pool,
                    clock,
                    secrets.token_bytes(16),
                    options,
                    on_record,
                ),
                *(_join(p, t, clock, on_record) for p, t in zip(peers[1:], joins, strict=True)),
            )
    finally:
        for t in [host, *joins]:
            t.close()
        await close_context(ctx)
    return peers


async def host_table(
    peer: SecretPeer,
    players: int,
    pool: tuple[str, ...],
    options: tuple[str, ...] = (),
    bind: str = "0.0.0.0",
    port: int = 0,
    clock: float = 60.0,
    on_listening: Callable[[int], None] | None = None,
    on_record: Callable[[SecretPeer], None] | None = None,
) -> SecretPeer:
    """Host one table game on ``bind:port`` as seat 1 until it is over; return the peer.

    ``on_listening`` is told the port once it is bound; ``on_record`` is called with the peer
    after the seats frame and after each record it takes. The game id is drawn at random.

    Raises:
        AddressError: the address cannot be bound.
    """
    ctx = new_context()
    host = await bind_host(ctx, bind, port, _OPTIONS)
    try:
        if on_listening is not None:
            on_listening(host.port)
        game_id = secrets.token_bytes(16)
        await _host(peer, host, players, pool, clock, game_id, options, on_record)
    finally:
        host.close()
        await close_context(ctx)
    return peer


async def join_table(
    peer: SecretPeer,
    address: str,
    clock: float = 60.0,
    wait: float = 30.0,
    on_record: Callable[[SecretPeer], None] | None = None,
    gone: float | None = None,
) -> SecretPeer:
    """Join the table at ``address`` (host:port) and play until the game is over.

    ``gone``: how long the host may be silent mid-game (default ``clock``) before this
    joiner ends the game (``HostGone``); a live host answers every ``have`` (SECRET.md 13).

    Raises:
        PeerError: the host refused (another table protocol, names the version) or did not
            seat this peer within ``wait`` seconds.
        HostGone: the host left mid-game; ``peer`` keeps the records it took.
    """
    ctx = new_context()
    t = JoinTransport(ctx, address, _OPTIONS)
    try:
        task = asyncio.ensure_future(_join(peer, t, clock, on_record, gone))
        loop = asyncio.get_running_loop()
        deadline = loop.time() + wait
        while not task.done() and peer.game is None and loop.time() < deadline:
            await asyncio.wait({task}, timeout=POLL_S)
        if peer.game is None and not task.done():
            task.cancel()
            raise PeerError(f"the table at {address} did not seat this player in {wait:g} s")
        await task
    finally:
        t.close()
        await close_context(ctx)
    return peer
