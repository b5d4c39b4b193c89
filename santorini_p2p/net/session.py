"""The lockstep session: a sans-I/O state machine over the signed log (protocol/SESSION.md).

Feed it frames with :meth:`Session.receive`, let time pass with :meth:`Session.tick`, give it
the local player's actions with :meth:`Session.submit`, and send what :meth:`Session.outgoing`
returns. It never touches a socket, so tests drive two or more sessions over an in-memory link
that drops, duplicates, delays and reorders frames; its files (journal, note, stop report) are
kept by a ``net.store.GameStore``.

A connection counts only once it proves a seated key with nonces fresh for it (the handshake
of SESSION.md 3); stop and refuse frames are signed over the receiver's nonce; anything else
from a connection with no proven seat is dropped and counted (``dropped``).

The log is the game: every record goes through ``wire.log``'s validator (signature over the
exact bytes, chain, the signer's right to it, legality, state hash) and is appended to the
journal before it is sent (fsynced first when it is this peer's own, but for an ack or a
result: SESSION.md 8). Records have numbers, so acknowledgement and resending are a matter
of counting: each peer says how many records it holds (``Status``), and whoever holds more
sends the rest again; a record already held is ignored if it is the same bytes. The host
relays every record to every other peer; it cannot forge one.

Who writes the next record is fixed by the log (``Validator.expected_signers``); of several
allowed signers the first writes first, so two peers never race for one record number, except
for a timeout claim against a silent mover, which the host orders (a peer whose unconfirmed
own record lost that race takes it back). Anything wrong stops the game on every peer, with a
report.
"""

from __future__ import annotations

import logging
import os
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from enum import Enum
from pathlib import Path
from typing import Final, cast

from santorini_p2p.engine import (
    Action,
    GodMode,
    Position,
    format_position,
)
from santorini_p2p.engine.gods import ALL_GOD_NAMES, GOD_NAMES
from santorini_p2p.engine.setup import pool_name, resolve_pool
from santorini_p2p.errors import (
    DesyncError,
    IllegalTurnError,
    ReplayError,
    SantoriniError,
    StorageError,
    WireError,
)
from santorini_p2p.net.clock import TimeControl, is_flagged, read_clock
from santorini_p2p.net.frames import (
    NONCE_BYTES,
    SESSION_VERSION,
    Challenge,
    Cheer,
    Frame,
    Hello,
    Proof,
    Proven,
    RecordFrame,
    Refuse,
    Status,
    Stop,
    Watch,
    Welcome,
    Who,
    decode_frame,
    encode_frame,
    host_proof_bytes,
    joiner_proof_bytes,
    sign_cheer,
    sign_hello,
    sign_refuse,
    sign_stop,
)
from santorini_p2p.net.gallery import Gallery
from santorini_p2p.net.listeners import Listeners
from santorini_p2p.net.store import (
    GameStore,
    NoteError,
    game_dir,
    mark_saved,
    read_note,
    unfinished_games,
    unsaved_games,
)
from santorini_p2p.net.trust import ChangedKeyError, KnownPeers
from santorini_p2p.replay.timeline import describe_result
from santorini_p2p.wire.identity import Identity, check_name, fingerprint, verify
from santorini_p2p.wire.log import (
    Journal,
    Record,
    TakebackOffer,
    Validator,
    make_header,
    open_envelope,
    seal,
    verify_envelope,
)
from santorini_p2p.wire.messages import (
    Accept,
    Ack,
    Act,
    Chat,
    Header,
    Offer,
    Resign,
    Result,
    Timeout,
    decode_body,
)
from santorini_p2p.wire.validator import check_chat, game_pool

__all__ = [
    "GRACE_MS",
    "HOST_ID",
    "RESEND_MS",
    "GameSettings",
    "Note",
    "NoteKind",
    "ProvenLink",
    "SeatClock",
    "Session",
    "SessionError",
    "game_dir",
    "mark_saved",
    "unfinished_games",
    "unsaved_games",
]

LOG = logging.getLogger(__name__)

HOST_ID: Final = b"host"
"""The peer id a joining session uses for the host (the transport's ``HOST_PEER``)."""
RESEND_MS: Final = 300
"""How long a peer that lacks records waits before they are sent again, and the keepalive."""
DISCONNECT_MS: Final = 5000
"""Silence after which a peer is shown as disconnected."""
GRACE_MS: Final = 3000
"""Extra time a silent mover gets, beyond its clock, before another seat claims a timeout."""
ABANDON_MS: Final = 120_000
"""In an untimed game, how long the seat to move may be gone before the host claims the game."""
SLACK_MS: Final = 2000
"""A clock reading this far below what a peer observed is reported on screen."""
_BUFFER_LIMIT: Final = 256
_BATCH: Final = 64


class SessionError(SantoriniError):
    """A session cannot start or go on (refused by the peer, bad journal, changed key)."""


class NoteKind(Enum):
    """How a note is shown: ``ERROR`` and ``LOSS`` in red, ``WIN`` in green, ``INFO`` plain."""

    INFO = "info"
    WARNING = "warning"
    ERROR = "error"
    WIN = "win"
    LOSS = "loss"


@dataclass(frozen=True, slots=True)
class Note:
    """One event the player should see, already worded; ``chat``: a player's chat line."""

    text: str
    kind: NoteKind = NoteKind.INFO
    chat: bool = False


@dataclass(frozen=True, slots=True)
class SeatClock:
    """A seat's clock read now, in integer milliseconds (RULES.md section 5).

    ``move_ms`` is what is left of the current move's allowance (only meaningful while
    ``running``), ``bank_ms`` the bank that drains once the allowance is used up.
    """

    move_ms: int
    bank_ms: int
    running: bool


@dataclass(frozen=True, slots=True)
class GameSettings:
    """What a host offers: players, god selection, time control (None: untimed), options.

    ``pool`` is the gods the game draws from (empty: the ten simple gods), as
    ``engine.setup.resolve_pool`` gives it.
    """

    players: int = 2
    gods: str = "none"
    time: TimeControl | None = None
    options: tuple[str, ...] = ()
    pool: tuple[str, ...] = ()

    def __post_init__(self) -> None:
        if self.players not in (2, 3, 4):
            raise ValueError(f"players: expected 2, 3 or 4, got {self.players}")
        if self.gods not in ("none", "challenger", "draft", "random"):
            raise ValueError(f"gods: expected none, challenger, draft or random, not {self.gods}")
        if self.pool:
            # The same checks as the header's (SPEC.md 7), before anyone is asked to join.
            resolve_pool(",".join(self.pool), self.players, cast(GodMode, self.gods))

    @property
    def god_pool(self) -> tuple[str, ...]:
        """The gods the game draws from, in god order (empty with no gods)."""
        if self.gods == "none":
            return ()
        return tuple(sorted(self.pool, key=ALL_GOD_NAMES.index)) or GOD_NAMES


@dataclass(frozen=True, slots=True)
class ProvenLink:
    """A connection proven for a seated key: what frames signed over its nonces need.

    ``sign_over`` is the nonce this peer signs over for the other side (the receiver's: the
    host's challenge for a joiner, the joiner's proof nonce for the host); ``verify_over`` the
    nonces the other side signs over for this peer (a joiner's: every hello round's).
    """

    peer: bytes
    slot: int
    key: bytes
    sign_over: bytes
    verify_over: tuple[bytes, ...]


@dataclass(slots=True)
class _Peer:
    """What a session knows about one connection.

    The host's handshake state is per connection: the nonce it challenged the connection with,
    the hello that connection sent (a claim until proven), the key it proved, and the joiner's
    own nonce, over which the host signs what it sends there (stop, refuse).
    """

    have: int = 0
    last_sent_ms: int = -(10**9)
    last_heard_ms: int = 0
    slot: int | None = None
    name: str = ""
    connected: bool = True
    last_resend_ms: int = -(10**9)
    challenge: bytes = b""
    claim: Hello | None = None
    proven: bytes = b""
    their_nonce: bytes = b""
    # The host: the number at which this peer's record last lost a race (-1: never). Records
    # chained on one that lost are dropped, not refused: they come late, reordered or resent.
    lost_at: int = -1


@dataclass(slots=True)
class _Lobby:
    """The host's seats before the header: (public key, name, peer id) in join order."""

    seats: list[tuple[bytes, str, bytes]] = field(default_factory=list)
    #: Every seat is reserved for a known key (a rematch): peer id b"" while it is away.
    reserved: bool = False


class Session:
    """One peer's side of a network game; see the module docstring.

    Build one with :meth:`host`, :meth:`join` or :meth:`resume`. ``now`` is a monotonic clock
    in milliseconds. ``on_change`` is called after anything visible changed.
    """

    def __init__(
        self,
        identity: Identity,
        *,
        is_host: bool,
        home: Path,
        now: Callable[[], int],
        known: KnownPeers,
        settings: GameSettings | None = None,
        address: str = "",
        store: GameStore | None = None,
    ) -> None:
        self.identity = identity
        #: Where this game's files are: the session itself touches none.
        self.store = store or GameStore(home)
        self.is_host = is_host
        self.home = home
        self.address = address
        self.settings = settings
        self._now = now
        self._known = known
        self.journal: Journal | None = None
        self.notes: list[Note] = []
        self.stopped: str | None = None
        self.report_path: Path | None = None
        self.welcome: Welcome | None = None
        self._peers: dict[bytes, _Peer] = {}
        self._lobby = _Lobby()
        self._out: list[tuple[bytes, bytes]] = []
        self._buffer: dict[int, bytes] = {}
        self._nonce = b""
        self._created_ms = 0
        self._game_id = b""
        self._resign_requested = False
        # Takebacks (SPEC.md 8.2): this peer's wish to ask, the offer it agreed to, the one it
        # refused (a refusal writes nothing: the offer lapses with the next act), and the
        # offer open after the last record (for the notes when it is accepted or lapses).
        self._takeback_wanted = False
        self._takeback_yes = -1
        self._takeback_no = -1
        self._takeback_open: TakebackOffer | None = None
        #: How this peer answers a takeback offer by itself (a computer player): True accepts,
        #: False refuses; None asks the person (``takeback_asked``, ``answer_takeback``).
        self.takeback_answer: bool | None = None
        # Chat lines said here and not yet written (SPEC.md 8.3): each goes into the log as
        # soon as this peer owes no lockstep record first.
        self._chat_out: list[str] = []
        # After a resume, until this peer fsyncs a record of its own, every acknowledgement it
        # owes is signed as such, never replaced by a resignation: the run that crashed may
        # have sent it without fsync (SESSION.md section 8), and the same record must come out.
        self._acks_first = False
        self._move_key = -1
        self._journal_clock = False
        self._move_started = now()
        self._last_record_ms = now()
        # When this process last saw its log change (never reset by a reconnection): how long
        # the seat to move has had, by this peer's own clock, when a timeout is claimed.
        self._log_changed_ms = now()
        # The record count at which this process started (a resume): until its log changes,
        # it has not watched the current move's clock from its start.
        self._watched_from = -1
        # A joiner: since when it has heard the host without a break (a reconnection resets it).
        self._heard_since_ms = now()
        self._written = 0
        self._warned_move = -1
        self._started_ms = now()
        self._hello_sent_ms = -(10**9)
        # A joiner cut off while another seat moved shows that clock from the host's reading
        # in its next status (SESSION.md 7): the move's key and when it started, as shown.
        self._clock_sync = False
        self._shown_start: tuple[int, int] | None = None
        self._listeners = Listeners()
        #: Called as soon as a record of the log is queued to go out, so that the runner can
        #: send it before the session goes on with notes and listeners (it stays I/O free).
        self.on_record_out: Callable[[], None] | None = None
        #: No person plays this peer's seat (computer players being watched): the result is
        #: told without "you".
        self.onlooker = False
        #: A joiner's own check of the header it is sent (a rematch's: the same players, in
        #: the same slots, with the same settings): the reason it is refused, or None.
        self.check_header: Callable[[Header], str | None] | None = None
        #: Where the finished replay is to be copied (empty: nowhere), and whether it was:
        #: kept in the note, so that a game over whose copy is missing can be found again.
        self.save_to = ""
        self.saved = False
        #: Whether every peer was known to hold the whole finished game: until then, the same
        #: command run again resumes the finished game, to give a peer what it lacks.
        self.settled = False
        self._announced = 0
        #: Frames dropped because their connection had not proved a seated key (or a stop or
        #: refusal whose signature did not verify): anyone on the LAN can send frames.
        self.dropped = 0
        # A joiner's side of the handshake, for the current hello round: its own nonce (every
        # nonce it used, for the host's signed stop and refusals), the host's challenge and key.
        self._round_nonce = b""
        self._my_nonces: set[bytes] = set()
        self._host_challenge = b""
        self._host_key = b""
        self._host_proven = False
        #: The host's spectators (SESSION.md 11); None at a joiner.
        self.gallery: Gallery | None = Gallery(self, now, self._say) if is_host else None
        if not is_host:
            self._peers[HOST_ID] = _Peer(connected=False, last_heard_ms=now())
            self._new_round()

    # -- construction ------------------------------------------------------------------------

    @classmethod
    def host(
        cls,
        identity: Identity,
        settings: GameSettings,
        *,
        home: Path,
        now: Callable[[], int],
        known: KnownPeers | None = None,
        game_id: bytes | None = None,
        address: str = "",
        nonce: bytes | None = None,
        created_ms: int | None = None,
        seats: tuple[tuple[bytes, str], ...] = (),
    ) -> Session:
        """Return a host session offering a new game with ``settings``.

        ``game_id`` and ``nonce`` (the commit-reveal secret) default to fresh random bytes and
        ``created_ms``, the header's date (Unix ms), to the wall clock now; tests pass fixed
        ones to be reproducible. ``seats`` (a rematch, ``net.rematch``) reserves every slot for
        one identity, ``(public key, name)`` in slot order, the host's first: only those keys
        are seated, each in its own slot, whatever the order they come back in.
        """
        s = cls(
            identity,
            is_host=True,
            home=home,
            now=now,
            known=known or KnownPeers(home),
            settings=settings,
            address=address,
        )
        s._game_id = game_id or os.urandom(16)
        s._nonce = nonce or os.urandom(32)
        s._created_ms = time.time_ns() // 1_000_000 if created_ms is None else created_ms
        if seats:
            s._lobby.seats = [(k, n, b"") for k, n in seats]
            s._lobby.reserved = True
        else:
            s._lobby.seats.append((identity.public_key, identity.name, b""))
        s._save_note()
        s._say(f"Offering a {settings.players}-player game; waiting for players.")
        return s

    @classmethod
    def join(
        cls,
        identity: Identity,
        *,
        home: Path,
        now: Callable[[], int],
        known: KnownPeers | None = None,
        address: str = "",
        nonce: bytes | None = None,
    ) -> Session:
        """Return a joining session; it says hello to the host on the first tick.

        ``nonce`` (the commit-reveal secret) defaults to fresh random bytes.
        """
        s = cls(
            identity,
            is_host=False,
            home=home,
            now=now,
            known=known or KnownPeers(home),
            address=address,
        )
        s._nonce = nonce or os.urandom(32)
        s._say(f"Joining the game at {address or 'the host'}; waiting for the host to answer.")
        return s

    @classmethod
    def resume(
        cls,
        identity: Identity,
        journal_path: Path,
        *,
        home: Path,
        now: Callable[[], int],
        known: KnownPeers | None = None,
    ) -> Session:
        """Return the session of an unfinished game, from its journal and note file.

        Raises:
            SessionError: the note file is missing or this identity holds no seat.
            ReplayError: the journal does not verify.
        """
        try:  # before opening: opening the journal may write to it
            written_ms: int | None = journal_path.stat().st_mtime_ns // 1_000_000
        except OSError:
            written_ms = None
        try:
            note = read_note(journal_path)
        except NoteError as e:
            raise SessionError(str(e)) from None
        store = GameStore(home)
        journal = store.open_journal(journal_path)
        v = journal.validator
        header = v.header
        if header is None or identity.public_key not in [s.public_key for s in header.seats]:
            journal.close()
            held = header.seats if header is not None else ()
            seats = ", ".join(f"{s.name} ({fingerprint(s.public_key)})" for s in held)
            raise SessionError(
                f"{journal_path}: this player, {identity.name} ({identity.fingerprint}), holds "
                f"no seat in that game; its seats are {seats} (a journal copied from another "
                "player's home resumes only with that player's key)"
            )
        is_host = header.seats[0].public_key == identity.public_key
        s = cls(
            identity,
            is_host=is_host,
            home=home,
            now=now,
            known=known or KnownPeers(home),
            address=str(note.get("address", "")),
            store=store,
        )
        s.journal = journal
        s._game_id = header.game_id
        if not is_host:
            s._peers[HOST_ID].name = header.seats[0].name
        s._nonce = bytes.fromhex(str(note["nonce"]))
        s.save_to = str(note.get("save", ""))
        s.saved = bool(note.get("saved", False))
        s.settled = bool(note.get("settled", True))
        s._announced = v.next_seq
        s._watched_from = v.next_seq
        s._acks_first = True
        if written_ms is not None and not is_host:
            s._resume_move_clock(written_ms)
        s._say(f"Resumed the game from {journal_path.name} at record {v.next_seq}.")
        s._advance()
        return s

    def _own_move(self) -> bool:
        """Whether this peer's seat is to move, with no acknowledgement owed."""
        v = self.validator
        if v is None or v.position is None or v.is_over or v.pending_acks:
            return False
        return v.seat_of(self.identity.public_key) == v.position.to_move

    def _resume_move_clock(self, written_ms: int) -> None:
        """A resumed joiner: start the due move's clock when the journal was last written.

        The last record came in (and was journaled) when the move became due at every peer;
        the time since then, by this machine's wall clock, is what the others' clocks show
        elapsed, so the resumed joiner shows the same clock as the host (SESSION.md 7). A
        resumed host starts afresh instead, as its joiners do when they hear it again.
        """
        v = self.validator
        tc = self.time_control()
        if v is None or v.position is None or v.is_over or v.pending_acks or tc is None:
            return
        since = time.time_ns() // 1_000_000 - written_ms
        limit = tc.move_ms + v.clocks[v.position.to_move]
        self._move_key = v.next_seq
        self._move_started = self._now() - max(0, min(since, limit))
        self._journal_clock = True

    # -- reading -------------------------------------------------------------------------------

    @property
    def validator(self) -> Validator | None:
        """The log's validator, once the header is in."""
        return self.journal.validator if self.journal else None

    @property
    def game_id(self) -> bytes:
        """The game's 16-byte id (empty for a joiner before the welcome)."""
        return self._game_id

    @property
    def journal_path(self) -> Path:
        """Where this game's journal is (or will be) on disk."""
        return self.store.journal_path(self._game_id)

    @property
    def position(self) -> Position | None:
        """The current position (None before the draw)."""
        v = self.validator
        return v.position if v else None

    @property
    def records(self) -> tuple[Record, ...]:
        """Every record so far."""
        v = self.validator
        return v.records if v else ()

    @property
    def my_seat(self) -> int | None:
        """This peer's seat (0-based) now, or None before the draw."""
        v = self.validator
        if v is None or v.position is None:
            return None
        return v.seat_of(self.identity.public_key)

    @property
    def is_complete(self) -> bool:
        """Whether every seat has signed the result."""
        v = self.validator
        return v is not None and v.is_complete

    @property
    def is_settled(self) -> bool:
        """Whether the game is complete and every peer is known to hold every record."""
        if not self.is_complete:
            return False
        n = self._count()
        if self.is_host:
            # Every other seat, not merely every connection known: a host resumed after the
            # end knows none at first, and is there to give them what they lack.
            v = self.validator
            players = v.header.players if v is not None and v.header is not None else 0
            held = {p.slot for p in self._peers.values() if p.slot is not None and p.have >= n}
            return all(slot in held for slot in range(1, players))
        return all(p.have >= n for p in self._peers.values())

    @property
    def awaiting(self) -> int | None:
        """The local seat whose action is wanted now, or None."""
        v = self.validator
        if self.stopped or v is None or v.position is None or v.is_over or v.pending_acks:
            return None
        if self._resign_requested:
            return None
        seat = v.seat_of(self.identity.public_key)
        if seat is None or v.position.to_move != seat:
            return None
        return seat

    def seat_names(self) -> tuple[str, ...]:
        """Display names in seat order (header order before the draw)."""
        v = self.validator
        return v.names if v else tuple(n for _, n, _ in self._lobby.seats)

    def seat_keys(self) -> tuple[bytes, ...]:
        """Public keys in seat order (header order before the draw)."""
        v = self.validator
        return v.seats if v else tuple(k for k, _, _ in self._lobby.seats)

    @property
    def peers_hold_all(self) -> bool:
        """Whether every connected peer is known to hold every record this peer holds."""
        n = self._count()
        return all(
            p.have >= n
            for p in self._peers.values()
            if p.connected and (p.slot is not None or not self.is_host)
        )

    def is_connected(self, public_key: bytes) -> bool:
        """Whether the peer holding ``public_key`` is heard from (always True for oneself)."""
        if public_key == self.identity.public_key:
            return True
        if not self.is_host:
            return self._peers[HOST_ID].connected
        v = self.validator
        if v is None or v.header is None:
            return True
        slot = [s.public_key for s in v.header.seats].index(public_key)
        return any(p.slot == slot and p.connected for p in self._peers.values())

    def time_control(self) -> TimeControl | None:
        """The game's time control, from the header (or the offer)."""
        v = self.validator
        if v is not None and v.header is not None:
            h = v.header
            return TimeControl(h.move_ms, h.bank_ms) if h.move_ms else None
        return self.settings.time if self.settings else None

    def clocks(self) -> tuple[SeatClock, ...]:
        """Each seat's clock read now, in seat order (empty when untimed or before the draw)."""
        v = self.validator
        tc = self.time_control()
        if v is None or v.position is None or tc is None:
            return ()
        p = v.position
        running = p.winner < 0 and not v.pending_acks and not self.stopped
        flagged = self._flagged_seat()
        out = []
        start = self._move_started
        if self._shown_start is not None and self._shown_start[0] == self._move_key:
            start = self._shown_start[1]
        for seat, bank in enumerate(v.clocks):
            if running and seat == p.to_move:
                move_left, bank_left = read_clock(tc, bank, self._now() - start)
                out.append(SeatClock(move_left, bank_left, True))
            elif seat == flagged:
                out.append(SeatClock(0, 0, False))  # its time ran out: it shows none left
            else:
                out.append(SeatClock(tc.move_ms, bank, False))
        return tuple(out)

    def move_clock_ms(self) -> int:
        """How long the move due now has run by this peer's clock (0 when no move's clock runs).

        What a status frame carries (SESSION.md 7): a reconnected joiner and the spectators
        show the host's clock from it.
        """
        v = self.validator
        if v is None or v.position is None or v.is_over or v.pending_acks or self.stopped:
            return 0
        if self.time_control() is None:
            return 0
        self._track_move()  # the move due now (a chat line changes none)
        return max(0, self._now() - self._move_started)

    def offer(self) -> Welcome:
        """The welcome this host sends (its spectators get it too)."""
        return self._welcome()

    def _flagged_seat(self) -> int | None:
        """The seat a timeout record ended the game for, if the game ended on time."""
        v = self.validator
        if v is None or v.result is None or v.result[1] != "time":
            return None
        for rec in reversed(v.records):
            if isinstance(rec.message, Timeout):
                return rec.message.seat
        return None

    def _count(self) -> int:
        """The number of records held (cheaper than ``len(records)``)."""
        v = self.validator
        return v.next_seq if v else 0

    def _raw(self, index: int) -> bytes:
        """The exact bytes of record ``index`` (which must be held)."""
        v = self.validator
        assert v is not None
        return v.records[index].raw

    @property
    def now(self) -> Callable[[], int]:
        """The monotonic clock (ms) this session reads; a rematch's session reads the same."""
        return self._now

    def proven_links(self) -> tuple[ProvenLink, ...]:
        """The connections proven for a seated key, with their nonces (``net.rematch``).

        The host: one per seated joiner's connection. A joiner: the host's, whose ``nonce``
        is the host's challenge and ``theirs`` every nonce of this joiner's hello rounds.
        """
        if not self.is_host:
            key = self._expected_host_key()
            if not key or not self._host_challenge:
                return ()
            mine = tuple(sorted(self._my_nonces))
            return (ProvenLink(HOST_ID, 0, key, self._host_challenge, mine),)
        return tuple(
            ProvenLink(pid, p.slot, p.proven, p.their_nonce, (p.challenge,))
            for pid, p in self._peers.items()
            if p.slot is not None and p.proven and p.their_nonce
        )

    def outgoing(self, *, spectators: bool = True) -> list[tuple[bytes, bytes]]:
        """Return and forget the frames to send, as ``(peer id, frame bytes)``.

        The players' frames come first, then the spectators'; with ``spectators`` false the
        spectators' wait for the next call (a record on its way to a player goes out alone).
        """
        out, self._out = self._out, []
        if self.gallery is not None and spectators:
            out.extend(self.gallery.outgoing())
        return out

    @property
    def spectators_behind(self) -> bool:
        """Whether a spectator is not known to hold every record yet.

        Spectators are owed nothing, but the host waits a moment for them at the end, so that
        each can keep the whole game.
        """
        return self.gallery is not None and self.gallery.behind()

    def undelivered(self, peer: bytes) -> None:
        """A frame to ``peer`` could not be sent: a spectator is dropped; a player is resent to."""
        if self.gallery is not None:
            self.gallery.undelivered(peer)

    def listen(self, listener: Callable[[], None]) -> Callable[[], None]:
        """Call ``listener`` after every visible change; return the function that stops it."""
        return self._listeners.add(listener)

    # -- input ---------------------------------------------------------------------------------

    def submit(self, action: Action) -> None:
        """Play ``action`` for the local seat: sign it, journal it, send it.

        Raises:
            IllegalTurnError: no local action is awaited or the action is not legal.
        """
        seat = self.awaiting
        v = self.validator
        if seat is None or v is None or v.position is None:
            raise IllegalTurnError("no action of this player is awaited now")
        elapsed = max(0, self._now() - self._move_started)
        tc = self.time_control()
        if tc is not None and is_flagged(tc, v.clocks[seat], elapsed):
            self._write(v.make_timeout(self.identity))
        else:
            # make_act checks the action and keeps the position after it, which the journal's
            # check of the record then reuses: one engine pass on the way out.
            try:
                raw = v.make_act(self.identity, action, elapsed)
            except IllegalTurnError:
                raise
            except (ValueError, IndexError, KeyError) as e:
                raise IllegalTurnError(f"illegal action: {action!r}") from e
            self._write(raw)
        self._advance()

    def resign(self) -> None:
        """Resign the local seat at its next chance to sign (at once if it is to move).

        Raises:
            IllegalTurnError: the game is not in play or is over.
        """
        v = self.validator
        if v is None or v.position is None or v.is_over or self.stopped:
            raise IllegalTurnError("there is no game in play to resign")
        self._resign_requested = True
        self._say("You resign; waiting for your turn to sign it.", NoteKind.WARNING)
        self._advance()

    # -- takebacks (SPEC.md 8.2) ---------------------------------------------------------

    def can_ask_takeback(self) -> bool:
        """Whether the local seat may ask now to take back its last turn."""
        v = self.validator
        if self.stopped or v is None or self._takeback_wanted:
            return False
        return v.can_ask_takeback(self.identity.public_key)

    def ask_takeback(self) -> None:
        """Ask the other seats to take back the local seat's last turn (an offer record).

        Raises:
            IllegalTurnError: the game does not allow takebacks, or the last turn is not this
                seat's, not yet acknowledged by every seat, or someone has acted since.
        """
        v = self.validator
        if v is None or v.header is None or "takeback" not in v.header.options:
            raise IllegalTurnError("this game allows no takebacks (the host turned them off)")
        if not self.can_ask_takeback():
            last = v.last_turn
            if v.takeback_offer is not None or self._takeback_wanted:
                raise IllegalTurnError("your takeback request is waiting for an answer")
            if last is None or last[0] != v.seat_of(self.identity.public_key):
                raise IllegalTurnError("there is no turn of yours to take back now")
            if not v.pending_acks:
                raise IllegalTurnError("there is no turn of yours to take back now")
            # Asked before every seat acknowledged the turn: the offer goes out once they have.
        self._takeback_wanted = True
        self._advance()

    @property
    def takeback_asked(self) -> TakebackOffer | None:
        """The open takeback offer this player is asked to answer (not yet answered), or None."""
        v = self.validator
        o = v.takeback_offer if v is not None and not self.stopped else None
        seat = v.seat_of(self.identity.public_key) if v is not None else None
        if o is None or seat not in o.waiting or o.seq in (self._takeback_yes, self._takeback_no):
            return None
        return o

    def answer_takeback(self, accept: bool) -> None:
        """Accept (an accept record) or refuse (nothing is written) the open takeback offer.

        Raises:
            IllegalTurnError: no takeback offer awaits this player's answer.
        """
        o = self.takeback_asked
        if o is None:
            raise IllegalTurnError("no takeback request awaits your answer")
        if accept:
            self._takeback_yes = o.seq
            self._advance()
        else:
            self._takeback_no = o.seq
            self._say("You refuse the takeback; it lapses when you move.")
            self._changed()

    def _takeback_record(self, v: Validator) -> bytes | None:
        """The takeback offer or acceptance this peer is to write now, if any."""
        me = self.identity.public_key
        if self._takeback_wanted:
            if v.can_ask_takeback(me):
                self._takeback_wanted = False
                return v.make_offer(self.identity, "takeback")
            last = v.last_turn
            if not v.pending_acks or last is None or last[0] != v.seat_of(me):
                self._takeback_wanted = False  # the turn can no longer be taken back
        o = v.takeback_offer
        if o is None or v.seat_of(me) not in o.waiting:
            return None
        if o.seq == self._takeback_yes or (self.takeback_answer and o.seq != self._takeback_no):
            return v.make_accept(self.identity)
        return None

    def _note_takeback(self, rec: Record) -> None:
        """Say what a record did to a takeback: asked, accepted, taken back, lapsed."""
        v = self.validator
        if v is None:
            return
        was, now = self._takeback_open, v.takeback_offer
        self._takeback_open = now
        msg = rec.message
        names = v.names
        me = v.seat_of(self.identity.public_key)
        if isinstance(msg, Offer) and now is not None and now.seq == rec.index:
            asker = names[now.seat]
            if now.seat == me:
                waiting = ", ".join(names[i] for i in now.waiting)
                self._say(f"You ask to take back {now.turn}; waiting for {waiting}.")
            elif me in now.waiting and self.takeback_answer is not None:
                answer = "accepts" if self.takeback_answer else "refuses"
                self._say(f"{asker} asks to take back {now.turn}; the computer {answer}.")
            elif me in now.waiting:
                self._say(
                    f"{asker} asks to take back {now.turn}: accept (y) / refuse (n)",
                    NoteKind.WARNING,
                )
            else:
                self._say(f"{asker} asks to take back {now.turn}.")
        elif isinstance(msg, Accept) and msg.kind == "takeback" and was is not None:
            who = "You" if was.seat == me else names[was.seat]
            if now is None:
                self._say(f"Taken back: {was.turn}. {who} to move again.", NoteKind.WARNING)
            elif rec.seat is not None:
                self._say(f"{names[rec.seat]} accepts the takeback.")
        elif was is not None and now is None:
            who = "Your" if was.seat == me else f"{names[was.seat]}'s"
            self._say(f"{who} takeback of {was.turn} lapsed: the game went on.")

    # -- chat (SPEC.md 8.3) -------------------------------------------------------------------

    @property
    def can_chat(self) -> bool:
        """Whether this game takes chat lines now (the host allows chat, the game is on)."""
        v = self.validator
        return self.stopped is None and v is not None and v.can_chat() and not v.is_complete

    def say(self, text: str) -> None:
        """Say ``text`` to the other players: a signed chat record, written at once.

        Raises:
            SessionError: the game takes no chat now, or the line is empty, longer than 200
                characters or holds a control character (the message says which).
        """
        v = self.validator
        if v is None or v.header is None or "chat" not in v.header.options:
            raise SessionError("this game has no chat (the host turned it off)")
        if not self.can_chat:
            raise SessionError("chat: the game is not in play")
        try:
            check_chat(text.strip(" "))
        except ValueError as e:
            raise SessionError(str(e)) from None
        line = text.strip(" ")
        self._chat_out.append(line)
        # Shown when said; the record follows as soon as this peer may write it.
        name = v.names[v.seat_of(self.identity.public_key) or 0]
        self.notes.append(Note(f"{name} says: {line}", NoteKind.INFO, chat=True))
        self._changed()
        self._advance()

    def _chat_record(self, v: Validator) -> bytes | None:
        """The next chat line to write, once this peer owes no ack or result first."""
        if not self._chat_out or not v.can_chat():
            return None
        # A joiner keeps one line in flight: the next waits until the host holds the last, so
        # a line that loses its place to the host's record carries few others with it.
        if not self.is_host:
            unconfirmed = v.records_since(self._peers[HOST_ID].have)
            me = self.identity.public_key
            if any(isinstance(r.message, Chat) and r.signer == me for r in unconfirmed):
                return None
        signers = v.expected_signers()
        if signers[:1] == (self.identity.public_key,) and (v.pending_acks or v.is_over):
            return None  # its ack or result first (SESSION.md 8: an ack is signed alike)
        return v.make_chat(self.identity, self._chat_out.pop(0))

    def _note_chat(self, rec: Record) -> None:
        """Show a chat line in the message log, as ``name says: text``."""
        v = self.validator
        if v is None or not isinstance(rec.message, Chat):
            return
        if rec.signer == self.identity.public_key:
            return  # shown when said
        name = v.names[rec.seat] if rec.seat is not None else "?"
        self.notes.append(Note(f"{name} says: {rec.message.text}", NoteKind.INFO, chat=True))
        self._changed()

    def close(self) -> None:
        """Close the journal (it stays on disk); an offer that never started leaves no note."""
        if self.journal is not None:
            self.journal.close()
        elif self._game_id:
            self.store.drop_note(self._game_id)

    # -- frames in ----------------------------------------------------------------------------

    def receive(self, peer: bytes, data: bytes) -> None:
        """Handle one frame from ``peer``; never raises on bad input (it stops or ignores)."""
        now = self._now()
        try:
            frame = decode_frame(data)
        except WireError as e:
            # Anyone on the LAN can send bytes: counted, never acted on.
            self.dropped += 1
            LOG.debug("dropped a malformed frame from %s: %s", peer.hex()[:10], e)
            return
        if self.gallery is not None and self._for_gallery(peer, frame):
            self._changed()
            return
        state = self._peers.get(peer)
        if state is None:
            if not self.is_host:
                return
            state = self._peers[peer] = _Peer(last_heard_ms=now)
        state.last_heard_ms = now
        if not state.connected:
            state.connected = True
            if state.name:
                self._say(f"{state.name} is connected again.")
            if not self.is_host and self._journal_clock:
                # Resumed: the move's clock comes from the journal, not from a time cut off.
                self._journal_clock = False
            elif not self.is_host and not self._own_move():
                # What this peer saw of the others' clocks while cut off proves nothing: start
                # afresh. Its own move's clock goes on: it knows how long it has thought. The
                # clock shown is the host's, from its next status (display only).
                self._move_started = self._last_record_ms = now
                self._clock_sync = True
                if self.journal is not None:
                    self._heard_since_ms = now
        try:
            self._handle(peer, state, frame)
        except StorageError as e:
            self._halt(e)
        except Exception as e:
            # The receive pump is an edge (STYLE.md 6): log, stop with a report, keep the journal.
            LOG.error("stopping after an error: %s: %s", type(e).__name__, e)
            LOG.debug("the error's traceback", exc_info=True)
            self._stop(f"internal error: {type(e).__name__}: {e}", index=self._count())
        self._changed()

    def _for_gallery(self, peer: bytes, frame: Frame) -> bool:
        """Hand a watch, or any frame of a spectator's connection, to the gallery."""
        gallery = self.gallery
        assert gallery is not None
        if not isinstance(frame, Watch) and peer not in gallery:
            return False
        seated = self._peers.get(peer)
        if seated is not None and seated.slot is not None:
            self._drop(peer, frame, "a seated connection cannot watch")
            return True
        self._peers.pop(peer, None)  # a connection that watches holds no seat
        if not gallery.receive(peer, frame):
            self._drop(peer, frame, "a spectator can never act")
        return True

    def _handle(self, peer: bytes, state: _Peer, frame: Frame) -> None:
        if self.is_host:
            self._handle_at_host(peer, state, frame)
            return
        match frame:
            case Challenge():
                self._on_challenge(frame)
            case Proven():
                self._on_proven(frame)
            case Welcome():
                self._on_welcome(frame)
            case Refuse():
                self._on_refuse(peer, state, frame)
            case RecordFrame():
                self._on_record(peer, state, frame)
            case Status():
                self._on_status(peer, state, frame)
            case Stop():
                self._on_stop(peer, state, frame)
            case Who():
                self._new_round()
                self._say_hello(self._now())
            case Cheer():
                self._on_cheer(peer, frame)
            case _:
                self._drop(peer, frame, "a joiner's frame sent to a joiner")

    def _handle_at_host(self, peer: bytes, state: _Peer, frame: Frame) -> None:
        """The host: only a connection that proved a seated key may change anything."""
        match frame:
            case Hello():
                self._on_hello(peer, state, frame)
                return
            case Proof():
                self._on_proof(peer, state, frame)
                return
        if state.slot is None or not state.proven:
            if isinstance(frame, RecordFrame | Status) and self.journal is not None:
                # A seated peer's new connection (or the host restarted): ask who it is.
                self._on_unknown(peer)
            else:
                self._drop(peer, frame, "its connection holds no proven seat")
            return
        match frame:
            case Refuse():
                self._on_refuse(peer, state, frame)
            case RecordFrame():
                self._on_record(peer, state, frame)
            case Status():
                self._on_status(peer, state, frame)
            case Stop():
                self._on_stop(peer, state, frame)
            case _:
                self._drop(peer, frame, "a host's frame sent to the host")

    def _on_cheer(self, peer: bytes, line: Cheer) -> None:
        """A spectator's chat line the host relayed: shown if the host signed it for us."""
        if not self._from_host(line.signature, lambda k, n: line.is_signed_by(k, n, relayed=True)):
            self._drop(peer, line, "a spectator's chat line the host did not sign")
            return
        self._say_cheer(line.name, line.text)

    def cheered(self, name: str, line: Cheer) -> None:
        """The host: a spectator's line was accepted; show it and relay it to every player."""
        for pid, p in self._peers.items():
            if p.slot is not None and p.proven and p.their_nonce and p.connected:
                self._send(
                    pid,
                    sign_cheer(
                        self.identity, line.text, name, line.key, p.their_nonce, relayed=True
                    ),
                )
        self._say_cheer(name, line.text)

    def _say_cheer(self, name: str, text: str) -> None:
        """Show a spectator's line in the message log (a chat line: ``mute`` hides it)."""
        self.notes.append(Note(f"[watching] {name or 'a spectator'} says: {text}", chat=True))
        LOG.info("spectator %s says: %s", name, text)

    def _drop(self, peer: bytes, frame: Frame, why: str) -> None:
        """Count and log a frame that is not acted on (anyone on the LAN can send frames)."""
        self.dropped += 1
        LOG.debug("dropped a %s frame from %s: %s", type(frame).__name__, peer.hex()[:10], why)

    def _on_unknown(self, peer: bytes) -> None:
        """A frame from a connection not yet tied to a seat (after a restart): ask who it is."""
        self._send(peer, Who())

    # -- the handshake (SESSION.md section 3) -----------------------------------------------

    def _new_round(self) -> None:
        """A joiner starts a hello round: a fresh nonce, and the host unproven until it answers."""
        self._round_nonce = os.urandom(NONCE_BYTES)
        self._my_nonces.add(self._round_nonce)
        self._host_challenge = b""
        self._host_proven = False

    def _expected_host_key(self) -> bytes:
        """The host key a joiner already knows (the header's slot 0, or the offer's), or b''."""
        v = self.validator
        if v is not None and v.header is not None:
            return v.header.seats[0].public_key
        return self.welcome.host_key if self.welcome is not None else b""

    def _on_challenge(self, c: Challenge) -> None:
        known = self._expected_host_key()
        if known and c.host_key != known:
            self._drop(HOST_ID, c, "a challenge naming another host key")
            return
        if c.nonce != self._host_challenge or c.host_key != self._host_key:
            self._host_challenge, self._host_key = c.nonce, c.host_key
            self._host_proven = False
        self._send_proof()

    def _send_proof(self) -> None:
        signed = joiner_proof_bytes(
            self._host_challenge, self._round_nonce, self.identity.public_key, self._host_key
        )
        self._send(HOST_ID, Proof(self._round_nonce, self.identity.sign(signed)))

    def _on_proven(self, pr: Proven) -> None:
        if not self._host_challenge:
            self._drop(HOST_ID, pr, "no challenge to answer")
            return
        signed = host_proof_bytes(
            self._round_nonce, self._host_challenge, self._host_key, self.identity.public_key
        )
        if not verify(self._host_key, pr.signature, signed):
            self._drop(HOST_ID, pr, "the host's proof does not verify")
            return
        self._host_proven = True

    def _on_hello(self, peer: bytes, state: _Peer, hello: Hello) -> None:
        """A hello is a claim: answer it with a challenge."""
        if hello.protocol != SESSION_VERSION:
            # Unsigned and in the shape every version reads: the peers share no handshake.
            self._send(peer, Refuse(f"protocol {hello.protocol} is not {SESSION_VERSION}"))
            return
        try:
            check_name(hello.name)
        except ValueError as e:
            # Before any handshake too: the joiner has no game yet, and must pick another name.
            self._send(peer, Refuse(f"your display name is refused: {e}"))
            return
        # Even a proven connection's hello gets a challenge (the same nonce): the joiner may be
        # a new process behind it, which proves its key again before anything is answered.
        state.claim = hello
        if not state.challenge:
            state.challenge = os.urandom(NONCE_BYTES)
        self._send(peer, Challenge(state.challenge, self.identity.public_key))

    def _on_proof(self, peer: bytes, state: _Peer, proof: Proof) -> None:
        claim = state.claim
        if claim is None or not state.challenge:
            self._drop(peer, proof, "a proof with no hello and challenge before it")
            return
        key = claim.public_key
        host_key = self.identity.public_key
        signed = joiner_proof_bytes(state.challenge, proof.nonce, key, host_key)
        if not verify(key, proof.signature, signed):
            self._drop(peer, proof, "the proof does not verify")
            return
        state.proven, state.their_nonce = key, proof.nonce
        answer = host_proof_bytes(proof.nonce, state.challenge, host_key, key)
        self._send(peer, Proven(self.identity.sign(answer)))
        self._answer_hello(peer, state, claim)

    def _refuse(self, peer: bytes, state: _Peer, reason: str) -> None:
        """Refuse a proven connection, signed over its nonce, and forget it."""
        self._send(peer, sign_refuse(self.identity, reason, state.their_nonce))
        if state.slot is None:
            self._peers.pop(peer, None)

    def _answer_hello(self, peer: bytes, state: _Peer, hello: Hello) -> None:
        """Answer the hello of a connection that proved its key: seat it, or refuse it."""
        v = self.validator
        if v is not None and v.header is not None:
            keys = [s.public_key for s in v.header.seats]
            # An empty game id is a hello sent before the header reached that peer.
            if hello.public_key not in keys:
                self._refuse(
                    peer,
                    state,
                    f"this game has started without you: {hello.name} "
                    f"({fingerprint(hello.public_key)}) holds no seat in it; its seats are "
                    + ", ".join(f"{s.name} ({fingerprint(s.public_key)})" for s in v.header.seats),
                )
                return
            if hello.game_id not in (b"", self._game_id):
                self._refuse(peer, state, "this game is not the one you resume")
                return
            back = state.slot is None  # a seated player on a new connection, not a resend
            self._bind_peer(peer, state, keys.index(hello.public_key), hello.name)
            if back:
                self._say(f"{hello.name} is back.")
            state.have = hello.have
            if not hello.game_id:
                # It holds no header yet: it checks the header against the offer.
                self._send(peer, self._welcome())
            self._send(peer, self._status())
            self._send_missing(peer, state)
            return
        if hello.game_id and hello.game_id != self._game_id:
            self._refuse(peer, state, "no such game here")
            return
        for i, (k, n, _) in enumerate(self._lobby.seats):
            if k == hello.public_key and i > 0:
                self._lobby.seats[i] = (k, n, peer)
                self._bind_peer(peer, state, i, n)
                self._send(peer, self._welcome())
                if self._lobby.reserved and all(pid for _, _, pid in self._lobby.seats[1:]):
                    self._start()
                return
        if self._lobby.reserved:
            names = ", ".join(n for _, n, _ in self._lobby.seats)
            self._refuse(peer, state, f"this game is a rematch between {names}")
            return
        if any(n == hello.name for _, n, _ in self._lobby.seats):
            self._refuse(peer, state, f"the name {hello.name!r} is taken in this game")
            return
        try:
            self._known.check(hello.name, hello.public_key)
        except ChangedKeyError as e:
            self._say(str(e), NoteKind.ERROR)
            self._refuse(peer, state, e.refusal(self.identity.name))
            return
        assert self.settings is not None
        if len(self._lobby.seats) >= self.settings.players:
            self._refuse(peer, state, "the game is full")
            return
        self._lobby.seats.append((hello.public_key, hello.name, peer))
        self._bind_peer(peer, state, len(self._lobby.seats) - 1, hello.name)
        self._say(f"{hello.name} ({fingerprint(hello.public_key)}) joined.")
        self._send(peer, self._welcome())
        if len(self._lobby.seats) == self.settings.players:
            self._start()

    def _bind_peer(self, peer: bytes, state: _Peer, slot: int, name: str) -> None:
        """Attach proven connection ``peer`` to ``slot``; an older one is told and forgotten."""
        for other_id, other in list(self._peers.items()):
            if other.slot == slot and other_id != peer:
                LOG.info("seat %d moved to a new connection; the old one is forgotten", slot)
                if other.their_nonce:
                    self._send(
                        other_id,
                        sign_refuse(
                            self.identity,
                            "this seat is now played from another connection",
                            other.their_nonce,
                        ),
                    )
                del self._peers[other_id]
        state.slot, state.name = slot, name

    def _welcome(self) -> Welcome:
        """The offer: from the header once it exists (a resumed host has no settings)."""
        v = self.validator
        if v is not None and v.header is not None:
            h = v.header
            players, gods, move_ms, bank_ms, options = (
                h.players,
                h.gods,
                h.move_ms,
                h.bank_ms,
                h.options,
            )
            pool = header_pool(h)
        else:
            s = self.settings
            assert s is not None
            tc = s.time
            players, gods, options = s.players, s.gods, s.options
            move_ms, bank_ms = (tc.move_ms, tc.bank_ms) if tc else (0, 0)
            pool = s.god_pool
        return Welcome(
            SESSION_VERSION,
            self._game_id,
            players,
            gods,
            move_ms,
            bank_ms,
            options,
            self.identity.public_key,
            self.identity.name,
            pool,
        )

    def _start(self) -> None:
        """The host's lobby is full: write the header and start the log."""
        s = self.settings
        assert s is not None
        tc = s.time
        header = make_header(
            self._game_id,
            [(k, n) for k, n, _ in self._lobby.seats],
            gods=cast(GodMode, s.gods),
            move_ms=tc.move_ms if tc else 0,
            bank_ms=tc.bank_ms if tc else 0,
            options=s.options,
            created_ms=self._created_ms,
            pool=s.god_pool,
        )
        raw = seal(self.identity, header)
        self.journal = self.store.create_journal(self._game_id, raw)
        self._say("All seats are taken; drawing the start player.")
        self._broadcast(0, raw)
        self._advance()

    def _on_welcome(self, w: Welcome) -> None:
        if self.welcome is not None:
            return
        if not self._host_proven or w.host_key != self._host_key:
            self._drop(HOST_ID, w, "an offer from a connection whose host key is not proven")
            return
        if w.protocol != SESSION_VERSION:
            self._stop(f"the host speaks protocol {w.protocol}, not {SESSION_VERSION}", index=0)
            return
        unknown = [g for g in w.pool if g not in KNOWN_GODS]
        if unknown:
            # Refused before any record: a god this program cannot play would otherwise stop
            # the game at the header, or worse, at the first turn of that god.
            reason = (
                f"{w.host_name}'s game draws its gods from a pool with "
                + ", ".join(repr(g[:32]) for g in unknown[:3])
                + (" and more" if len(unknown) > 3 else "")
                + f", {'a god' if len(unknown) == 1 else 'gods'} this program does not know; "
                "a newer santorini-p2p may play it"
            )
            self._send(HOST_ID, sign_refuse(self.identity, reason, self._host_challenge))
            self._stop(reason, index=0, notify=False)
            return
        try:
            self._known.check(w.host_name, w.host_key)
        except ChangedKeyError as e:
            self._send(
                HOST_ID,
                sign_refuse(self.identity, e.refusal(self.identity.name), self._host_challenge),
            )
            self._stop(str(e), index=0, notify=False)
            return
        self.welcome = w
        self._peers[HOST_ID].name = w.host_name
        self._game_id = w.game_id
        self._save_note()
        tc = f"{w.move_ms // 1000}+{w.bank_ms // 1000}" if w.move_ms else "untimed"
        gods = w.gods if w.gods == "none" else f"{w.gods} from {pool_name(w.pool, w.players)}"
        self._say(
            f"Joined {w.host_name}'s {w.players}-player game (gods: {gods}, time: {tc}); "
            f"host fingerprint {fingerprint(w.host_key)}."
        )

    def _on_refuse(self, peer: bytes, state: _Peer, r: Refuse) -> None:
        if self.is_host:
            if not r.is_signed_by(state.proven, state.challenge):
                self._drop(peer, r, "a refusal that is not signed for this connection")
                return
        elif not self._from_host(r.signature, r.is_signed_by) and self.journal is not None:
            # Unsigned: the answer of whoever listens at the address. Before the game exists
            # there is nothing to lose; once it does, only the host's signed word counts.
            self._drop(peer, r, "an unsigned refusal once the game has started")
            return
        if self.is_host and self.validator is None:
            self._say(f"{state.name or 'a peer'} refused: {r.reason}", NoteKind.ERROR)
            if self._lobby.reserved:
                # A rematch's seat stays reserved for its key: it may come back.
                self._lobby.seats = [
                    (k, n, b"" if p == peer else p) for k, n, p in self._lobby.seats
                ]
                del self._peers[peer]
                return
            self._lobby.seats = [s for s in self._lobby.seats if s[2] != peer or s[2] == b""]
            del self._peers[peer]
            # Seats after the one given up move down a place.
            for i, (_, _, pid) in enumerate(self._lobby.seats):
                if pid in self._peers:
                    self._peers[pid].slot = i
            return
        self._stop(f"refused by {state.name or 'the host'}: {r.reason}", index=0, notify=False)

    def _on_status(self, peer: bytes, state: _Peer, st: Status) -> None:
        # Only the timer resends (``tick``): a status may be older than records in flight.
        # It may also be lower than before, from a peer that restarted with less: believe it.
        state.have = st.have
        if self._chat_out and not self.is_host:
            self._advance()  # the host holds this peer's last line: the next may go
        if not self.is_host and self._clock_sync and st.have == self._count():
            self._sync_shown_clock(st.clock_ms)

    def _sync_shown_clock(self, clock_ms: int) -> None:
        """A reconnected joiner shows the move's clock as the host reads it (SESSION.md 7).

        Display only: a timeout is still claimed and checked by this peer's own observation.
        """
        self._clock_sync = False
        v = self.validator
        if v is None or v.position is None or v.is_over or v.pending_acks or self._own_move():
            return
        self._track_move()
        self._shown_start = (self._move_key, self._now() - clock_ms)

    def _from_host(self, signature: bytes, signed_by: Callable[[bytes, bytes], bool]) -> bool:
        """Whether the host signed a frame for one of this joiner's nonces (any round)."""
        key = self._expected_host_key() or (self._host_key if self._host_proven else b"")
        return bool(signature) and bool(key) and any(signed_by(key, n) for n in self._my_nonces)

    def _on_stop(self, peer: bytes, state: _Peer, st: Stop) -> None:
        if self.is_host:
            signed = st.is_signed_by(state.proven, state.challenge)
        else:
            signed = self._from_host(st.signature, st.is_signed_by)
        if not signed:
            self._drop(peer, st, "a stop that is not signed for this connection")
            return
        if self.stopped:
            return
        who = state.name or "a peer"
        self._stop(
            f"{who} stopped the game: {st.reason}", index=st.index, theirs=st.mine, skip=peer
        )

    def _on_record(self, peer: bytes, state: _Peer, rf: RecordFrame) -> None:
        if self.stopped:
            return
        if self.journal is None:
            if rf.index != 0 or self.is_host:
                if rf.index > 0:
                    self._send(peer, self._status())
                return
            if not self._start_joined(rf.envelope):
                return
            self._ack_to(peer)
            self._advance()
            self._drain_buffer(peer)
            return
        v = self.journal.validator
        n = v.next_seq
        if rf.index < n:
            if self._raw(rf.index) != rf.envelope:
                self._conflict(peer, state, rf)
                return
            # Whoever sends record i holds every record up to i (when it is the same one).
            state.have = max(state.have, rf.index + 1)
            if rf.index == n - 1:
                # The sender resent what is held here: tell it, once per resent batch.
                self._ack_to(peer)
            return
        if rf.index > n:
            if len(self._buffer) < _BUFFER_LIMIT:
                self._buffer[rf.index] = rf.envelope
            self._ack_to(peer)
            return
        wrote = self._written
        if self._accept(peer, rf.envelope):
            state.have = max(state.have, rf.index + 1)
            self._drain_buffer(peer)
            self._advance()
        # A record of this peer's own, just sent, acknowledges as much as a status would.
        if self._written == wrote:
            self._ack_to(peer)

    def _drain_buffer(self, peer: bytes) -> None:
        if not self._buffer:
            return
        while self.journal is not None and not self.stopped:
            n = self.journal.validator.next_seq
            raw = self._buffer.pop(n, None)
            if raw is None:
                break
            if not self._accept(peer, raw):
                break
        if self.journal is not None:
            n = self.journal.validator.next_seq
            for i in [i for i in self._buffer if i < n]:
                del self._buffer[i]

    def _start_joined(self, raw: bytes) -> bool:
        """A joiner receives the header: check it against the offer and the known keys.

        Returns whether the journal was started.
        """
        v = Validator()
        try:
            v.feed(raw)
        except ReplayError as e:
            self._stop(f"the header is not valid: {e}", index=0, offending=raw)
            return False
        h = v.header
        assert h is not None
        keys = [s.public_key for s in h.seats]
        if self.identity.public_key not in keys:
            self._stop("the header gives this player no seat", index=0)
            return False
        if self.check_header is not None:
            wrong = self.check_header(h)
            if wrong:
                self._stop(f"the header is not the game agreed: {wrong}", index=0)
                return False
        w = self.welcome
        if w is None:
            # A header before the offer (lost, or from a connection never proven) is not
            # checked against anything: wait for the offer; the host sends the header again.
            LOG.debug("a header before the offer: ignored")
            return False
        if (
            h.game_id != w.game_id
            or h.players != w.players
            or h.gods != w.gods
            or header_pool(h) != w.pool
            or h.move_ms != w.move_ms
            or h.bank_ms != w.bank_ms
            or keys[0] != w.host_key
        ):
            self._stop("the header does not match the game offered", index=0)
            return False
        for seat in h.seats:
            if seat.public_key == self.identity.public_key:
                continue
            try:
                self._known.check(seat.name, seat.public_key)
            except ChangedKeyError as e:
                self._send(
                    HOST_ID,
                    sign_refuse(self.identity, e.refusal(self.identity.name), self._host_challenge),
                )
                self._stop(str(e), index=0, notify=False)
                return False
        self._game_id = h.game_id
        self._save_note()
        self.journal = self.store.create_journal(self._game_id, raw, fresh=True)
        names = ", ".join(f"{s.name} ({fingerprint(s.public_key)})" for s in h.seats)
        self._say(f"The game starts: {names}.")
        return True

    def _accept(self, peer: bytes, raw: bytes) -> bool:
        """Check and journal the next record from a peer; stop the game if it is bad."""
        assert self.journal is not None
        v = self.journal.validator
        index = v.next_seq
        h = v.header
        racing = h is not None and bool({"chat", "takeback"} & set(h.options))
        if racing and not self.is_host and v.records[-1].signer == self.identity.public_key:
            own = len(v.records)
            while own > 0 and v.records[own - 1].signer == self.identity.public_key:
                own -= 1
            if _prev_of(raw) != v.last_hash and own > 2 * len(v.seats):
                # The host's chain goes on from a record that took the place of one of this
                # peer's own (a lost race), and that record has not come yet: ask for the
                # host's records from where this peer's own begin (section 4, 5).
                self._send(HOST_ID, Status(own, self.move_clock_ms()))
                return False
        lost = racing and self.is_host and any(p.lost_at >= 0 for p in self._peers.values())
        if lost and _prev_of(raw) != v.last_hash:
            # Chained on a record that lost a race here (a chat line, a takeback offer):
            # its writer takes them back when it gets the host's records (SESSION.md 5).
            LOG.info("dropped record %d: it follows a record that lost its place", index)
            state = self._peers.get(peer)
            if state is not None:
                state.have = min(state.have, index)
                self._send_missing(peer, state)
            return False
        if not self._claim_is_due(raw):
            return False
        try:
            # Another's record: written, fsynced with this peer's next fsynced one (SESSION.md 8).
            rec = self.journal.append(raw)
        except ReplayError as e:
            cause = e.__cause__
            if isinstance(cause, DesyncError):
                theirs = _claimed_hash(raw)
                pair = (cause.expected, cause.actual)
                mine = pair[1] if pair[0] == theirs else pair[0]
                self._stop(
                    f"desync at record {index}: {e.reason}",
                    index=index,
                    mine=mine,
                    theirs=theirs,
                    offending=raw,
                )
            else:
                kind = type(cause).__name__ if cause else "ReplayError"
                self._stop(
                    f"refused record {index} ({kind}): {e.reason}", index=index, offending=raw
                )
            return False
        self._observe(rec)
        if not isinstance(rec.message, Chat):  # a chat line moves no clock (SESSION.md 7)
            self._last_record_ms = self._log_changed_ms = self._now()
        if self.is_host:
            self._broadcast(rec.index, raw, skip=peer)
        self._note_takeback(rec)
        self._note_chat(rec)
        return True

    def _claim_is_due(self, raw: bytes) -> bool:
        """Check a timeout claim against this peer's own clock before accepting it (SESSION.md 7).

        Returns whether the record may go on to the log's checks: anything but a timeout
        claimed by another seat, or a claim this peer's clock bears out within the grace
        (``GRACE_MS``: what network delay can account for), or one it could not watch (it
        resumed, or reconnected, since the move was due). A claim made earlier stops the
        game with a report, and this peer never signs its result.
        """
        v = self.validator
        p = v.position if v is not None else None
        if v is None or p is None or v.is_over:
            return True
        try:
            env = open_envelope(raw)
            if env.body[1:2] != bytes([Timeout.TYPE]):
                return True
            _, msg = verify_envelope(raw)
        except WireError:
            return True  # the log's checks refuse it, with their own reason
        if not isinstance(msg, Timeout) or msg.seq != v.next_seq or msg.prev != v.last_hash:
            return True
        claimer = v.seat_of(env.signer)
        if claimer is None or claimer == msg.seat or not 0 <= msg.seat < p.players:
            return True  # a seat that concedes on time, or a record the log refuses
        tc = self.time_control()
        need = tc.move_ms + v.clocks[msg.seat] if tc is not None else ABANDON_MS
        seen = self._now() - self._log_changed_ms
        # This peer watched the move from when it was due: it has not resumed since, and a
        # joiner had heard the host without a break for a while before (a record it got on
        # reconnecting may have been due long before it arrived).
        watched = v.next_seq != self._watched_from and (
            self.is_host or self._log_changed_ms - self._heard_since_ms >= DISCONNECT_MS
        )
        if seen + GRACE_MS >= need or not watched:
            return True
        names = v.names
        self._stop(
            f"premature timeout claim at record {v.next_seq}: {names[claimer]} says "
            f"{names[msg.seat]} ran out of time, but by this peer's clock "
            f"{names[msg.seat]} has had {seen} ms of {need} ms (grace {GRACE_MS} ms)",
            index=v.next_seq,
            offending=raw,
        )
        return False

    def _conflict(self, peer: bytes, state: _Peer, rf: RecordFrame) -> None:
        """A different record at a number already held: a lost race, or equivocation."""
        assert self.journal is not None
        v = self.journal.validator
        if self.is_host:
            LOG.info("dropped record %d from %s: that number is taken", rf.index, state.name)
            # The peer holds another record there: send it the host's from that number on.
            state.have = min(state.have, rf.index)
            state.lost_at = rf.index
            self._send_missing(peer, state)
            return
        mine = v.records[rf.index :]
        # The host orders the log: a record of this peer's that lost a race to another record
        # with that number (a timeout claim against a late mover) is taken back.
        if all(r.signer == self.identity.public_key for r in mine):
            acts = [r.message for r in mine if isinstance(r.message, Act)]
            self._take_back(rf.index)
            if self._accept(peer, rf.envelope):
                self._redo_act(acts, rf.envelope)
            self._advance()
            return
        self._stop(
            f"the host sent a different record {rf.index} than before (equivocation)",
            index=rf.index,
            offending=rf.envelope,
        )

    def _redo_act(self, acts: list[Act], raw: bytes) -> None:
        """Sign again this peer's act that lost its place to another's chat line only.

        A chat line changes nothing in the game, so the move is played as it was, at the next
        number: a player never sees a move undone by someone's chat.
        """
        v = self.validator
        last = v.records[-1].message if v is not None and v.records else None
        if not acts or v is None:
            return
        act = acts[0]
        if isinstance(last, Chat) and self.awaiting is not None:
            try:
                self._write(v.make_act(self.identity, act.action, act.clock_ms))
                return
            except (SantoriniError, ValueError) as e:
                LOG.info("the act taken back is not played again: %s", e)
        self._say(
            f"Your move {act.action} was not played: another record came first.",
            NoteKind.WARNING,
        )

    def _take_back(self, index: int) -> None:
        """Drop this peer's own unconfirmed records from ``index`` (it lost a race)."""
        assert self.journal is not None
        dropped = self.journal.validator.records[index:]
        # A chat line of this peer's that lost its place is said again after the host's.
        self._chat_out[:0] = [r.message.text for r in dropped if isinstance(r.message, Chat)]
        if any(isinstance(r.message, Offer) and r.message.kind == "takeback" for r in dropped):
            self._say("Too late to take back your turn: the game went on first.", NoteKind.WARNING)
        quiet = all(isinstance(r.message, Chat | Act | Offer) for r in dropped)
        keep = [r.raw for r in self.journal.validator.records[:index]]
        self.journal = self.store.rewrite_journal(self.journal, keep)
        self._announced = min(self._announced, index)
        if not quiet:  # a move, a chat line, a takeback request say so themselves
            self._say(f"Record {index} was superseded by the host's; taken back.", NoteKind.WARNING)

    # -- time ---------------------------------------------------------------------------------

    def tick(self) -> None:
        """Let time pass: say hello, resend what peers lack, watch clocks and connections."""
        now = self._now()
        if not self.is_host and self.stopped is None:
            host = self._peers[HOST_ID]
            if (self.journal is None or not host.connected) and (
                now - self._hello_sent_ms >= RESEND_MS
            ):
                self._say_hello(now)
        for peer_id, p in list(self._peers.items()):
            if p.connected and now - p.last_heard_ms > DISCONNECT_MS:
                p.connected = False
                if not self.is_host:
                    # The connection may be a new one by now: the host proves itself again.
                    self._new_round()
                if p.name or not self.is_host:
                    self._say(f"{p.name or 'The host'} is disconnected; waiting.", NoteKind.WARNING)
                    self._changed()
            if self.stopped is not None or (self.is_host and p.slot is None):
                continue
            if now - p.last_resend_ms >= RESEND_MS:
                self._send_missing(peer_id, p)
            # Once the game is complete and the peer holds it all, stay quiet: peers close
            # their sockets then, and a frame crossing a closing connection is wasted.
            settled = self.is_complete and p.have >= self._count()
            if now - p.last_sent_ms >= RESEND_MS and self.journal is not None and not settled:
                self._send(peer_id, self._status())
        if self.stopped is None:
            self._check_clocks(now)
            if self.gallery is not None:
                self.gallery.tick()

    def _say_hello(self, now: int) -> None:
        """Say hello again, or, once challenged in this round, answer the challenge again."""
        self._hello_sent_ms = now
        if self._host_challenge and not self._host_proven:
            self._send_proof()
            return
        gid = self._game_id if self.journal is not None else b""
        hello = sign_hello(self.identity, SESSION_VERSION, gid, self._count())
        self._send(HOST_ID, hello)

    def _check_abandoned(self, now: int) -> None:
        """Untimed games: the host claims a seat to move whose peer is gone for ABANDON_MS."""
        v = self.validator
        if not self.is_host or v is None or v.position is None or v.is_over:
            return
        if self.time_control() is not None or v.header is None:
            return
        key = v.seats[v.position.to_move]
        if key == self.identity.public_key:
            return
        slot = [s.public_key for s in v.header.seats].index(key)
        peers = [p for p in self._peers.values() if p.slot == slot]
        if any(p.connected for p in peers):
            return
        last = max([p.last_heard_ms for p in peers], default=self._started_ms)
        if now - max(last, self._last_record_ms) < ABANDON_MS:
            return
        name = v.names[v.position.to_move]
        self._say(f"{name} is gone: the game is claimed as abandoned.", NoteKind.WARNING)
        self._write(v.make_timeout(self.identity))
        self._advance()

    def _check_clocks(self, now: int) -> None:
        v = self.validator
        tc = self.time_control()
        if tc is None:
            self._check_abandoned(now)
            return
        if v is None or v.position is None or v.is_over:
            return
        p = v.position
        bank = v.clocks[p.to_move]
        mine = v.seat_of(self.identity.public_key)
        if v.pending_acks:
            # The seat to move that does not even acknowledge is as silent as one that does
            # not move: its time is counted from the last record (SESSION.md section 7).
            if p.to_move not in v.pending_acks or mine == p.to_move:
                return
            elapsed = now - self._last_record_ms
        else:
            self._track_move()
            elapsed = now - self._move_started
        if not self.is_host and not self._peers[HOST_ID].connected:
            return
        if mine == p.to_move:
            if is_flagged(tc, bank, elapsed):
                self._say("Your time is up.", NoteKind.LOSS)
                self._write(v.make_timeout(self.identity))
                self._advance()
            return
        if elapsed <= tc.move_ms + bank + GRACE_MS or mine is None:
            return
        active = [
            s
            for s in range(p.players)
            if s != p.to_move and not (p.players == 3 and p.eliminated >> s & 1)
        ]
        if active and active[0] == mine:
            self._say(f"{v.names[p.to_move]} ran out of time: claiming the game.", NoteKind.WARNING)
            self._write(v.make_timeout(self.identity))
            self._advance()

    def _track_move(self) -> None:
        """Restart the move clock when a new move becomes available."""
        v = self.validator
        if v is None or v.position is None or v.pending_acks or v.is_over:
            return
        # Keyed by the last record that is not a chat line: a chat line, the mover's own
        # included, neither restarts nor stops a move's clock (SESSION.md 7).
        key = v.next_seq
        while key > 0 and isinstance(v.records_since(key - 1)[0].message, Chat):
            key -= 1
        if key != self._move_key:
            self._move_key = key
            self._move_started = self._now()

    def _observe(self, rec: Record) -> None:
        """Check a peer's clock reading against what this peer observed (SESSION.md 5)."""
        if not isinstance(rec.message, Act) or self.time_control() is None:
            return
        observed = self._now() - self._move_started
        claimed = rec.message.clock_ms
        if observed - claimed > SLACK_MS and self._warned_move != rec.index:
            self._warned_move = rec.index
            who = self.validator.names[rec.seat] if self.validator and rec.seat is not None else "?"
            self._say(
                f"{who} reports the move took {claimed / 1000:.1f} s, but "
                f"{observed / 1000:.1f} s passed here since it was due: their clock counted "
                "less (a reconnection or a slow link); their reading is the one recorded.",
                NoteKind.WARNING,
            )

    # -- writing ------------------------------------------------------------------------------

    def _advance(self) -> None:
        """Write every record that is this peer's to write now (commit, reveal, ack, result)."""
        while self.journal is not None and self.stopped is None:
            v = self.journal.validator
            if v.is_complete:
                break
            # A takeback offer or acceptance is written out of the lockstep order, once every
            # ack is in (SPEC.md 8.2); the host's order settles a race with an act (section 5).
            took = self._takeback_record(v) or self._chat_record(v)
            if took is not None:
                self._write(took)
                continue
            signers = v.expected_signers()
            if not signers or signers[0] != self.identity.public_key:
                break
            h = v.header
            assert h is not None
            n = v.next_seq
            if n <= h.players:
                raw = v.make_commit(self.identity, self._nonce)
            elif n <= 2 * h.players:
                raw = v.make_reveal(self.identity, self._nonce)
            elif v.is_over:
                raw = v.make_result(self.identity)
            elif v.pending_acks:
                raw = (
                    v.make_resign(self.identity)
                    if self._resign_requested and not self._acks_first
                    else v.make_ack(self.identity)
                )
            elif self._resign_requested:
                raw = v.make_resign(self.identity)
            else:
                break
            self._write(raw)
        self._track_move()
        self._announce()

    def _write(self, raw: bytes) -> None:
        """Journal one of this peer's records (checked; fsynced but for an ack), then send it.

        A record the log refuses (this peer's engine disagreeing with itself) stops the game.
        """
        assert self.journal is not None
        try:
            rec = self.journal.append(raw, own=True)
        except ReplayError as e:
            self._own_refused(e, raw)
            return
        except StorageError as e:
            self._halt(e)
            return
        if not isinstance(rec.message, Chat):  # a chat line moves no clock (SESSION.md 7)
            self._last_record_ms = self._log_changed_ms = self._now()
        self._written += 1
        if self._resign_requested and isinstance(rec.message, Resign):
            self._resign_requested = False
        if not isinstance(rec.message, Ack | Result):
            self._acks_first = False
        self._broadcast(rec.index, raw)
        self._note_takeback(rec)
        self._note_chat(rec)
        self._changed()

    def _own_refused(self, e: ReplayError, raw: bytes) -> None:
        """The log refused a record this peer made: its engine and log disagree. Stop."""
        cause = e.__cause__
        index = self._count()
        if isinstance(cause, DesyncError):
            theirs = _claimed_hash(raw)
            pair = (cause.expected, cause.actual)
            mine = pair[1] if pair[0] == theirs else pair[0]
            reason = f"desync at record {index}: this peer's own record: {e.reason}"
            self._stop(reason, index=index, mine=mine, theirs=theirs, offending=raw)
            return
        reason = f"refused record {index}: this peer's own record: {e.reason}"
        self._stop(reason, index=index, offending=raw)

    def _broadcast(self, index: int, raw: bytes, skip: bytes | None = None) -> None:
        frame = RecordFrame(index, raw)
        for peer_id, p in self._peers.items():
            if peer_id == skip or (self.is_host and p.slot is None):
                continue
            p.last_resend_ms = self._now()
            self._send(peer_id, frame)
        if self.gallery is not None:
            self.gallery.relay(index, raw)
        if self.on_record_out is not None:
            self.on_record_out()

    def _send_missing(self, peer: bytes, p: _Peer) -> None:
        """Send (again) the records ``peer`` is not known to hold, a batch at a time."""
        v = self.validator
        if v is None or p.have >= v.next_seq:
            return
        p.last_resend_ms = self._now()
        for rec in v.records[p.have : p.have + _BATCH]:
            self._send(peer, RecordFrame(rec.index, rec.raw))

    def _ack_to(self, peer: bytes) -> None:
        self._send(peer, self._status())

    def _status(self) -> Status:
        """A status: the records held, and the clock of the move due as read here."""
        return Status(self._count(), self.move_clock_ms())

    def _send(self, peer: bytes, frame: Frame) -> None:
        p = self._peers.get(peer)
        if p is not None:
            p.last_sent_ms = self._now()
        self._out.append((peer, encode_frame(frame)))

    # -- stopping and reporting ---------------------------------------------------------------

    def _halt(self, e: StorageError) -> None:
        """A file could not be written (a full disk): stop here only, keeping the game.

        Unlike a stop, the peers are not told (to them this peer has gone, and they wait),
        no report is written and the note is left as it was: once there is room again, the
        same command resumes the game from the journal, whole up to its last record.
        """
        if self.stopped is not None:
            return
        LOG.error("%s", e)
        self.stopped = str(e)
        self._say(f"{e}. The game is kept as it was; the same command resumes it.", NoteKind.ERROR)
        self._changed()

    def _stop(
        self,
        reason: str,
        *,
        index: int,
        mine: bytes = b"",
        theirs: bytes = b"",
        offending: bytes | None = None,
        notify: bool = True,
        skip: bytes | None = None,
    ) -> None:
        """Stop the game here and on every peer; write the report and the records so far."""
        if self.stopped is not None:
            return
        v = self.validator
        if v is not None and not mine:
            mine = v.state_hash
        self.stopped = reason
        self.report_path = self._write_report(reason, index, mine, theirs, offending)
        try:
            self._save_note()
        except StorageError as e:
            LOG.error("cannot mark the game stopped in its note file: %s", e)
        where = f" Report: {self.report_path}" if self.report_path else ""
        self._say(f"The game is stopped: {reason.rstrip('.')}.{where}", NoteKind.ERROR)
        if notify:
            for peer_id, p in self._peers.items():
                if peer_id != skip and (p.slot is not None or not self.is_host):
                    nonce = p.their_nonce if self.is_host else self._host_challenge
                    self._send(
                        peer_id, sign_stop(self.identity, reason, index, mine, theirs, nonce)
                    )
            if self.gallery is not None:
                self.gallery.stop(reason, index, mine, theirs)
        self._changed()

    def _write_report(
        self, reason: str, index: int, mine: bytes, theirs: bytes, offending: bytes | None
    ) -> Path | None:
        """Write ``<game>-stop.sntr`` (the records so far, then the refused one) and ``.txt``."""
        if not self._game_id:
            return None
        name = f"{self._game_id.hex()}-stop.sntr"
        raws = [r.raw for r in self.records]
        if offending is not None and offending not in raws:
            raws.append(offending)
        p = self.position
        lines = [
            "santorini-p2p stop report",
            f"reason: {reason}",
            f"record: {index}",
            f"player: {self.identity.name} ({self.identity.fingerprint})",
            f"state hash here: {mine.hex() or '-'}",
            f"state hash claimed: {theirs.hex() or '-'}",
            f"position: {format_position(p) if p is not None else '-'}",
            f"records: {len(raws)} in {name} (santorini replay verify reads it)",
        ]
        for r in self.records:
            signer = fingerprint(r.signer)
            lines.append(f"  {r.index} {type(r.message).__name__.lower()} {signer}")
        if offending is not None:
            try:
                env = open_envelope(offending)
                lines.append(f"  {index} refused, signed by {fingerprint(env.signer)}")
            except WireError as e:
                lines.append(f"  {index} refused, undecodable: {e}")
        return self.store.write_report(self._game_id, raws, lines)

    # -- notes --------------------------------------------------------------------------------

    def _say(self, text: str, kind: NoteKind = NoteKind.INFO) -> None:
        self.notes.append(Note(text, kind))
        LOG.info("%s", text)

    def _changed(self) -> None:
        self._listeners.notify()

    def _announce(self) -> None:
        """Add a note for every record of play not yet announced."""
        v = self.validator
        if v is None:
            return
        recs = v.records_since(self._announced)
        for rec in recs:
            m = rec.message
            who = v.header.seats[rec.slot].name if v.header else "?"
            if isinstance(m, Act):
                self._say(f"{who}: {m.action}")
            elif isinstance(m, Resign):
                self._say(f"{who} resigned.", NoteKind.WARNING)
            elif isinstance(m, Timeout):
                # Seat order is final once play has begun: the names are in it.
                late = v.names[m.seat] if m.seat < len(v.names) else f"Seat {m.seat + 1}"
                claim = "" if late == who else f" ({who} claimed it)"
                self._say(f"{late} ran out of time{claim}.", NoteKind.WARNING)
            elif isinstance(m, Result) and v.is_complete and rec is recs[-1]:
                self._say_result(v)
        self._announced = v.next_seq
        if v.position is not None and v.position.winner >= 0:
            self._track_move()

    def result_text(self) -> str:
        """The result in words ("alice won", "bob won by resignation"), or "unfinished"."""
        v = self.validator
        res = v.result if v is not None else None
        if v is None or res is None or v.position is None:
            return "unfinished"
        return describe_result(res, list(v.names))

    def _say_result(self, v: Validator) -> None:
        res = v.result
        p = v.position
        if res is None or p is None:
            return
        winner, _ = res
        mine = v.seat_of(self.identity.public_key)
        if winner < 0 or self.onlooker:
            self._say(f"The game is over: {self.result_text()}.", NoteKind.WARNING)
        else:
            won = mine is not None and p.side_of(mine) == p.side_of(winner)
            text = f"{self.result_text()}." + (" You won!" if won else " You lost.")
            self._say(text, NoteKind.WIN if won else NoteKind.LOSS)
        if not self.onlooker:
            self._say(f"Saved the game as {self.journal_path}.")

    # -- the note file ------------------------------------------------------------------------

    def set_save(self, path: str) -> None:
        """Remember in the note where the finished replay is to be copied (``--save``)."""
        self.save_to = path
        self._save_note()

    def mark_settled(self) -> None:
        """Remember in the note that every peer holds the whole finished game."""
        if not self.settled:
            self.settled = True
            self._save_note()

    def mark_saved(self) -> None:
        """Remember in the note that the finished replay was copied to ``save_to``."""
        self.saved = True
        self._save_note()

    def _save_note(self) -> None:
        """Write ``<game>.json`` beside the journal: role, address, nonce (for resuming)."""
        if not self._game_id:
            return
        value: dict[str, object] = {
            "game": self._game_id.hex(),
            "role": "host" if self.is_host else "join",
            "address": self.address,
            "nonce": self._nonce.hex(),
            "stopped": self.stopped or "",
            "save": self.save_to,
            "saved": self.saved,
            "settled": self.settled,
        }
        self.store.write_note(self._game_id, value)


KNOWN_GODS: frozenset[str] = frozenset(ALL_GOD_NAMES)
"""The gods this program plays: a joiner refuses a pool with any other."""


def header_pool(h: Header) -> tuple[str, ...]:
    """The pool a header's game draws from, as a welcome states it (empty with no gods)."""
    return () if h.gods == "none" else game_pool(h)


def _prev_of(raw: bytes) -> bytes:
    """The ``prev`` a record's body claims (empty when it does not decode)."""
    try:
        return decode_body(open_envelope(raw).body).prev
    except WireError:
        return b""


def _claimed_hash(raw: bytes) -> bytes:
    """The state hash a record claims (empty if it carries none or does not decode)."""
    try:
        msg = decode_body(open_envelope(raw).body)
    except WireError:
        return b""
    claimed = getattr(msg, "state_hash", b"")
    return claimed if isinstance(claimed, bytes) else b""
