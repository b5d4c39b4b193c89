"""What every part of a session shares: its state, its settings and the small helpers.

``Session`` (``net.session``) is built from one part per sub-protocol of protocol/SESSION.md,
each a class over this base: the handshake and proofs (``net.handshake``), acknowledgement,
resending and races (``net.logsync``), the clocks and timeout claims (``net.timing``),
takeback and chat requests (``net.requests``), and what the session tells and keeps
(``net.reporting``). The state they share is made here, once, and each part reads it through
the helpers below; a part calls another's method through the stubs at the end of this class.
"""

from __future__ import annotations

import logging
import os
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Final, cast

from santorini_p2p.engine import (
    GodMode,
    Position,
    Turn,
)
from santorini_p2p.engine.gods import ALL_GOD_NAMES, GOD_NAMES
from santorini_p2p.engine.setup import resolve_pool
from santorini_p2p.errors import (
    SantoriniError,
)
from santorini_p2p.net.clock import TimeControl
from santorini_p2p.net.frames import (
    Frame,
    Hello,
    Status,
    Welcome,
    encode_frame,
)
from santorini_p2p.net.gallery import Gallery
from santorini_p2p.net.listeners import Listeners
from santorini_p2p.net.moveclock import DueTimes, MoveClock
from santorini_p2p.net.onlookers import Refusals
from santorini_p2p.net.store import (
    GameStore,
)
from santorini_p2p.net.told import Told
from santorini_p2p.net.trust import KnownPeers
from santorini_p2p.net.views import Note, NoteKind
from santorini_p2p.wire.identity import Identity
from santorini_p2p.wire.log import (
    Journal,
    Record,
    TakebackOffer,
    Validator,
)
from santorini_p2p.wire.messages import (
    Header,
)
from santorini_p2p.wire.validator import game_pool

__all__ = [
    "ABANDON_MS",
    "BATCH",
    "BUFFER_LIMIT",
    "DISCONNECT_MS",
    "GRACE_MS",
    "HOST_ID",
    "RESEND_MS",
    "SLACK_MS",
    "GameSettings",
    "Lobby",
    "PeerState",
    "ProvenLink",
    "SessionBase",
    "SessionError",
    "Sources",
    "header_pool",
    "wall_clock_ms",
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
OWED_MS: Final = 120_000
"""With secret gods: how long a seat may owe a record that is not a move (a deal step, an ack
or objection, its opening at the end) before the next seat signs its forfeit (SECRET.md 12)."""
ABANDON_MS: Final = 120_000
"""In an untimed game, how long the seat to move may be gone before the host claims the game."""
SLACK_MS: Final = 2000
"""A clock reading this far below what a peer observed is reported on screen."""
BUFFER_LIMIT: Final = 256
BATCH: Final = 64


class SessionError(SantoriniError):
    """A session cannot start or go on (refused by the peer, bad journal, changed key)."""


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
class PeerState:
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
    # The host: the joiner's nonce over which it last told this connection who watches
    # (a connection is told once a hello round, and again whenever it changes).
    told_audience: bytes = b""


@dataclass(slots=True)
class Lobby:
    """The host's seats before the header: (public key, name, peer id) in join order."""

    seats: list[tuple[bytes, str, bytes]] = field(default_factory=list)
    #: Every seat is reserved for a known key (a rematch): peer id b"" while it is away.
    reserved: bool = False


def header_pool(h: Header) -> tuple[str, ...]:
    """The pool a header's game draws from, as a welcome states it (empty with no gods)."""
    return () if h.gods == "none" else game_pool(h)


def wall_clock_ms() -> int:
    """The wall clock in Unix milliseconds (a header's date; a journal's age on resume)."""
    return time.time_ns() // 1_000_000


@dataclass(frozen=True, slots=True)
class Sources:
    """Where a session draws randomness and reads the wall clock: tests pass fixed ones.

    ``entropy(n)`` returns ``n`` bytes from a cryptographic source (game ids, nonces);
    ``wall_ms()`` the wall clock in Unix milliseconds. The monotonic clock the session's
    timing reads is its own argument (``now``).
    """

    entropy: Callable[[int], bytes] = os.urandom
    wall_ms: Callable[[], int] = wall_clock_ms


class SessionBase:
    """The state of one peer's side of a network game, and the helpers every part uses."""

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
        sources: Sources | None = None,
    ) -> None:
        self.identity = identity
        #: Randomness and the wall clock, passed in (``Sources``).
        self.sources = sources or Sources()
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
        # The host, once stopped: the last word each seated connection was told (a stop, the
        # refusal of a game that cannot start); once stopped or complete, the connections found
        # gone since (a send failed).
        self._last_words: dict[bytes, Frame] = {}
        self._left = Told()
        self.welcome: Welcome | None = None
        self._peers: dict[bytes, PeerState] = {}
        self._lobby = Lobby()
        self._out: list[tuple[bytes, bytes]] = []
        self._buffer: dict[int, bytes] = {}
        self._nonce = b""
        self._created_ms = 0
        self._game_id = b""
        self._resign_requested = False
        # Choices of other seats in this seat's turn (SPEC.md 8.4): the turn it plays while
        # they answer its asks, and this seat's own answer once its player has chosen.
        self._plan: Turn | None = None
        self._answer_out: str | None = None
        # Takebacks (SPEC.md 8.2): this peer's wish to ask, the offer it agreed to, the one it
        # refused (a refusal writes nothing: the offer lapses with the next act), and the
        # offer open after the last record (for the notes when it is accepted or lapses).
        self._takeback_wanted = False
        self._takeback_yes = -1
        self._takeback_no = -1
        self._takeback_open: TakebackOffer | None = None
        # The refusals of takebacks this peer was told (a ``Refused`` frame, SESSION.md 5).
        self._refusals = Refusals()
        #: Who watches, as the host last said (``Audience``, SESSION.md 11): the first names,
        #: and (spectators, the most the host takes).
        self.audience: tuple[str, ...] = ()
        self.audience_count = (0, 0)
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
        self._clock = MoveClock(now)
        self._journal_clock = False
        self._last_record_ms = now()
        # When this process's log reached each recent position (never reset by a
        # reconnection): what a timeout claim is judged by (SESSION.md 7).
        self._due = DueTimes(now)
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
        #: This game's number in a series of rematches (SESSION.md 10): 1 for the first game,
        #: N for game N, whose ``--save FILE`` copy is ``FILE-N``. Kept in the note, so that a
        #: resumed rematch writes its own copy, never the first game's.
        self.series = 1
        self._announced = 0
        # The host: the slots whose records beyond the bounds on chat it has said it drops.
        self._flooded: set[int | None] = set()
        #: Frames dropped because their connection had not proved a seated key (or a stop or
        #: refusal whose signature did not verify): anyone on the LAN can send frames.
        self.dropped = 0
        #: Why the last of them was dropped (said when a game gives up waiting), or "".
        self.last_dropped = ""
        # A joiner's side of the handshake, for the current hello round: its own nonce (every
        # nonce it used, for the host's signed stop and refusals), the host's challenge and key.
        self._round_nonce = b""
        self._my_nonces: set[bytes] = set()
        self._host_challenge = b""
        self._host_key = b""
        self._host_proven = False
        #: The host's spectators (SESSION.md 11); None at a joiner (``Session`` sets it).
        self.gallery: Gallery | None = None
        if not is_host:
            self._peers[HOST_ID] = PeerState(connected=False, last_heard_ms=now())

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
    def record_count(self) -> int:
        """The number of records so far (without copying them)."""
        return self._count()

    def records_between(self, start: int, stop: int) -> list[Record]:
        """The records numbered ``start`` up to (not including) ``stop``, as far as held."""
        v = self.validator
        if v is None:
            return []
        return [v.record(i) for i in range(max(0, start), min(stop, v.next_seq))]

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

    def time_control(self) -> TimeControl | None:
        """The game's time control, from the header (or the offer)."""
        v = self.validator
        if v is not None and v.header is not None:
            h = v.header
            return TimeControl(h.move_ms, h.bank_ms) if h.move_ms else None
        return self.settings.time if self.settings else None

    def _count(self) -> int:
        """The number of records held (cheaper than ``len(records)``)."""
        v = self.validator
        return v.next_seq if v else 0

    def _raw(self, index: int) -> bytes:
        """The exact bytes of record ``index`` (which must be held)."""
        v = self.validator
        assert v is not None
        return v.record(index).raw

    @property
    def now(self) -> Callable[[], int]:
        """The monotonic clock (ms) this session reads; a rematch's session reads the same."""
        return self._now

    def _drop(self, peer: bytes, frame: Frame, why: str) -> None:
        """Count and log a frame that is not acted on (anyone on the LAN can send frames)."""
        self.dropped += 1
        self.last_dropped = f"a {type(frame).__name__.lower()} frame: {why}"
        LOG.debug("dropped a %s frame from %s: %s", type(frame).__name__, peer.hex()[:10], why)

    def _send(self, peer: bytes, frame: Frame) -> None:
        p = self._peers.get(peer)
        if p is not None:
            p.last_sent_ms = self._now()
        self._out.append((peer, encode_frame(frame)))

    def _tell_last(self, peer: bytes, frame: Frame) -> None:
        """Send ``frame``, the game's end here (a stop, a refusal), to ``peer``.

        The host tells a seated connection again until it has left (``players_told``).
        """
        self._send(peer, frame)
        if self.is_host:
            self._last_words[peer] = frame

    @property
    def players_told(self) -> list[bytes]:
        """The host, stopped: the seated connections told its last word, not known gone.

        A joiner leaves once it reads the stop (or refusal); one that has not read it yet would
        lose it if the host's connection closed under it (SESSION.md 6), so the host waits a
        moment for it and tells it again (``net.told``).
        """
        return self._left.listening(p for p in self._last_words if p in self._peers)

    def _tell_again(self, now: int) -> None:
        """The host, stopped: tell each player told and still connected again, every 300 ms.

        A send that fails (``undelivered``) says that player has read it and left.
        """
        for peer in self.players_told:
            if now - self._peers[peer].last_sent_ms >= RESEND_MS:
                self._send(peer, self._last_words[peer])

    def _say(self, text: str, kind: NoteKind = NoteKind.INFO) -> None:
        note = Note(text, kind)  # its text escaped for any terminal, and so is the log's
        self.notes.append(note)
        LOG.info("%s", note.text)

    def _changed(self) -> None:
        self._listeners.notify()

    def _own_move(self) -> bool:
        """Whether this peer's seat is to move, with no acknowledgement owed."""
        v = self.validator
        if v is None or v.position is None or v.is_over or v.pending_acks:
            return False
        return v.seat_of(self.identity.public_key) == v.position.to_move

    # -- what one part calls of another (each is defined by the part named) ---------------

    def _advance(self) -> None:
        """Defined by ``Session``."""
        raise NotImplementedError

    def _write(self, raw: bytes) -> None:
        """Defined by ``Session``."""
        raise NotImplementedError

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
        """Defined by ``Reporting``."""
        raise NotImplementedError

    def _from_host(self, signature: bytes, signed_by: Callable[[bytes, bytes], bool]) -> bool:
        """Defined by ``Handshake``."""
        raise NotImplementedError

    def _track_move(self) -> None:
        """Defined by ``Timing``."""
        raise NotImplementedError

    def _sync_shown_clock(self, clock_ms: int) -> None:
        """Defined by ``Timing``."""
        raise NotImplementedError

    def _save_note(self) -> None:
        """Defined by ``Reporting``."""
        raise NotImplementedError

    def move_clock_ms(self) -> int:
        """Defined by ``Timing``."""
        raise NotImplementedError

    def _claim_is_due(self, raw: bytes) -> bool:
        """Defined by ``Timing``."""
        raise NotImplementedError

    def _observe(self, rec: Record) -> None:
        """Defined by ``Timing``."""
        raise NotImplementedError

    def _note_takeback(self, rec: Record) -> None:
        """Defined by ``Requests``."""
        raise NotImplementedError

    def _note_chat(self, rec: Record) -> None:
        """Defined by ``Requests``."""
        raise NotImplementedError

    def _note_secret(self, rec: Record) -> None:
        """Defined by ``SecretSeat``."""
        raise NotImplementedError

    @property
    def awaiting(self) -> int | None:
        """Defined by ``Session``."""
        raise NotImplementedError

    def _status(self) -> Status:
        """Defined by ``LogSync``."""
        raise NotImplementedError

    def _send_missing(self, peer: bytes, p: PeerState) -> None:
        """Defined by ``LogSync``."""
        raise NotImplementedError

    def _broadcast(self, index: int, raw: bytes, skip: bytes | None = None) -> None:
        """Defined by ``LogSync``."""
        raise NotImplementedError

    def _new_round(self) -> None:
        """Defined by ``Handshake``."""
        raise NotImplementedError
