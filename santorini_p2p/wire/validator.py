"""The log's rules: the incremental ``Validator`` fold, record by record (SPEC.md 7-8, 11-12).

Every check of SPEC.md 8 in order (size, decoding, signer, signature, body, chain, right,
content), the order of records, the draw, the clocks and the result; ``make_*`` build the next
record for an identity. Re-exported by ``wire.log``.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass
from functools import lru_cache
from typing import Final, NamedTuple, TypeAlias, cast

from santorini_p2p.engine import (
    Action,
    GodMode,
    NameStart,
    Phase,
    Position,
    Turn,
    apply_action,
    end_by_agreement,
    find_turn,
    format_action,
    format_position,
    new_game,
    outcome,
    parse_action,
    resign,
    state_hash,
)
from santorini_p2p.engine.choices import Choice, choice_options, choices, deciders
from santorini_p2p.engine.gods import ALL_GOD_NAMES, GOD_NAMES, power_of
from santorini_p2p.engine.legality import apply_checked
from santorini_p2p.engine.party import (
    AGORA_GODS,
    MAX_PASS,
    PARTY_POOL,
    agora_leave,
    agora_play,
    pass_cards,
    passes_after,
)
from santorini_p2p.engine.setup import pool_need
from santorini_p2p.errors import (
    ChainError,
    DesyncError,
    IllegalTurnError,
    NotationError,
    RecordError,
    ReplayError,
    SignatureError,
    TooLargeError,
    VersionError,
    WireError,
)
from santorini_p2p.wire.codec import MAX_RECORD_BYTES
from santorini_p2p.wire.draw import commitment, draw_seed, draw_setup
from santorini_p2p.wire.envelope import (
    SIGNING_DOMAIN,
    ZERO_HASH,
    chain_hash,
    seal,
    short_hex,
    split_envelope,
)
from santorini_p2p.wire.identity import (
    Identity,
    check_name,
    fingerprint,
    verify,
)
from santorini_p2p.wire.messages import (
    GOD_MODES,
    MAX_CHAT_CHARS,
    OFFER_KINDS,
    OPTIONS,
    PASS_OPTION,
    PROTOCOL_2_OPTIONS,
    PROTOCOL_3_OPTIONS,
    PROTOCOL_VERSION,
    PROTOCOL_VERSIONS,
    SECRET_OPTION,
    START_OPTION,
    Accept,
    Ack,
    Act,
    Answer,
    Ask,
    Chat,
    Commit,
    Forfeit,
    Header,
    Message,
    Object,
    Offer,
    Open,
    Resign,
    Result,
    Reveal,
    Seat,
    Shuffle,
    Strip,
    Timeout,
    decode_body,
    start_slot,
)
from santorini_p2p.wire.secret import DealKey
from santorini_p2p.wire.secretgame import NOT_WITH_SECRET, SecretGame, SecretRecordError
from santorini_p2p.wire.secretplay import (
    SeatSecret,
    deal_cards_for,
    decided_position,
    secret_owed,
    to_secret_record,
)
from santorini_p2p.wire.text import line_fault

__all__ = [
    "MAX_RECORDS",
    "OpenedRecord",
    "Record",
    "TakebackOffer",
    "Validator",
    "check_chat",
    "check_pool",
    "game_pool",
    "make_header",
    "validate",
]

MAX_RECORDS: Final = 20_000
"""The longest log, in records (SPEC.md section 9)."""


OpenedRecord: TypeAlias = tuple[bytes, bytes, Message, bytes]
"""A record opened ahead of the fold: exact bytes, signer, message and chain hash."""


class Record(NamedTuple):
    """One checked record: its number, exact bytes, chain hash, signer and message.

    ``slot`` is the signer's place in the header's seat list; ``seat`` the seat it held when
    it signed (0-based; ``None`` before the draw fixed the seats). A named tuple rather than a
    frozen dataclass: one is built per record read, and a tuple is several times cheaper.
    (The field ``index`` hides ``tuple.index``, which nothing calls on a record.)
    """

    index: int  # type: ignore[assignment]
    raw: bytes
    hash: bytes
    signer: bytes
    slot: int
    seat: int | None
    message: Message


@dataclass(frozen=True, slots=True)
class _Offer:
    kind: str
    seq: int
    accepted: frozenset[int]


class _Undo(NamedTuple):
    """What an accepted takeback restores: the position before the last act, and its signer."""

    position: Position
    hash: bytes
    slot: int
    action: str
    seq: int


@dataclass(frozen=True, slots=True)
class TakebackOffer:
    """An open takeback offer: its record, the asking seat, the turn and who has accepted."""

    seq: int
    seat: int
    turn: str
    accepted: tuple[int, ...]
    waiting: tuple[int, ...]


class _State(NamedTuple):
    """Everything the fold carries from record to record; replaced whole on success.

    A NamedTuple rather than a dataclass: ``_replace`` is several times cheaper than
    ``dataclasses.replace``, and it runs once per record.
    """

    header: Header | None = None
    keys: tuple[bytes, ...] = ()
    commitments: tuple[bytes, ...] = ()
    nonces: tuple[bytes, ...] = ()
    position: Position | None = None
    hash: bytes = b""
    seat_slots: tuple[int, ...] = ()
    banks: tuple[int, ...] = ()
    pending: tuple[int, ...] = ()
    last_act: int = -1
    offer: _Offer | None = None
    ended: str = ""
    results: tuple[int, ...] = ()
    turns: int = 0
    drawn: tuple[str, ...] = ()
    undo: _Undo | None = None
    every: int = 0
    """Party (SECRET.md 10): the cards pass after every ``every`` turns (0: no passing)."""
    agora: bool = False
    """Agora (SECRET.md 11): shared workers, each player wins alone."""
    secret: SecretGame | None = None
    """A game with secret gods (the header's option ``secret``): the deal, the openings and
    the audit (``wire.secretgame``), from the last reveal on; ``position`` is then its public
    position (SECRET.md 7.1)."""
    answered: tuple[Choice, ...] = ()
    asked: tuple[int, str] | None = None


_PENDING: Final = _State._fields.index("pending")


def make_header(
    game_id: bytes,
    seats: Iterable[tuple[bytes, str]],
    *,
    gods: GodMode = "none",
    move_ms: int = 0,
    bank_ms: int = 0,
    options: Iterable[str] = (),
    created_ms: int = 0,
    pool: Iterable[str] = (),
) -> Header:
    """Return a header record (seq 0) for a new game; the host (slot 0) seals it.

    ``pool`` is the gods the game draws from (SPEC.md 7). A game of the ten simple gods (or
    none) with no option of protocol 2 is written as protocol 1, which earlier readers verify;
    any other pool, or an option of protocol 2 (``takeback``), makes it protocol 2, whose
    header always lists the pool (empty with no gods).
    """
    chosen = tuple(sorted(set(pool), key=ALL_GOD_NAMES.index))
    opts = tuple(sorted(set(options)))
    simple = not chosen or chosen == GOD_NAMES or gods == "none"
    secret_options = any(o in PROTOCOL_3_OPTIONS or o.startswith(PASS_OPTION) for o in opts)
    needs_2 = not simple or secret_options or any(o in PROTOCOL_2_OPTIONS for o in opts)
    needs_3 = secret_options or (needs_2 and gods != "none" and chooses_elsewhere(chosen))
    if not needs_2:
        listed: tuple[str, ...] = ()
    elif gods == "none":
        listed = ()
    else:
        listed = chosen or GOD_NAMES
    return Header(
        0,
        ZERO_HASH,
        game_id,
        PROTOCOL_VERSION if needs_3 else 2 if needs_2 else 1,
        created_ms,
        tuple(Seat(k, n) for k, n in seats),
        gods,
        move_ms,
        bank_ms,
        opts,
        listed,
    )


def chooses_elsewhere(pool: Iterable[str]) -> bool:
    """Whether a god of ``pool`` chooses in another seat's turn (Gaea): protocol 3's games."""
    return any(power_of(g).reacts for g in pool)


def _table_mode(options: tuple[str, ...]) -> bool:
    """Whether a header's options name secret gods, Party or Agora (protocol 3's modes)."""
    return any(o in PROTOCOL_3_OPTIONS or o.startswith(PASS_OPTION) for o in options)


def game_pool(h: Header) -> tuple[str, ...]:
    """Return the gods a game draws from: the header's pool, or the ten simple gods."""
    return h.pool or GOD_NAMES


def check_pool(h: Header) -> None:
    """Check a protocol 2 header's pool (SPEC.md 7).

    Raises:
        RecordError: a god this program does not know (named), gods out of order or repeated,
            a god not played with this many players, the ten simple gods or no pool in a
            header that lists no option of protocol 2 (it is written as protocol 1), a pool
            with no god selection, no pool with one, or one too small for the selection.
    """
    pool = h.pool
    needs_2 = any(o in PROTOCOL_2_OPTIONS + PROTOCOL_3_OPTIONS for o in h.options)
    table_mode = _table_mode(h.options)
    for g in pool:
        if g not in ALL_GOD_NAMES:
            raise RecordError(f"header: the god pool names {g!r}, a god this program does not know")
    if list(pool) != sorted(set(pool), key=ALL_GOD_NAMES.index):
        raise RecordError("header: the god pool must be in god order with no repeats")
    for g in pool:
        if h.players not in power_of(g).players:
            raise RecordError(f"header: {g} is not played with {h.players} players")
    if pool == GOD_NAMES and not needs_2:
        raise RecordError("header: a pool of the ten simple gods is written as protocol 1")
    if h.gods == "none":
        if h.protocol >= 3 and not table_mode:
            raise RecordError("header: a game without gods is not protocol 3")
        if pool:
            raise RecordError("header: a god pool needs a god selection")
        if not needs_2:
            raise RecordError("header: a game without gods or options of protocol 2 is protocol 1")
        return
    if not pool:
        raise RecordError(f"header: a game with gods ({h.gods}) lists its pool in protocol 2")
    if h.protocol >= 3 and not table_mode and not chooses_elsewhere(pool):
        raise RecordError(
            "header: protocol 3 is written only for secret gods, Party, Agora or a pool with a "
            "god that chooses in another seat's turn (gaea); this game is protocol 2"
        )
    need = pool_need(h.players, cast(GodMode, h.gods))
    if len(pool) < need:
        raise RecordError(
            f"header: {h.gods} with {h.players} players needs {need} gods, the pool has {len(pool)}"
        )


def check_chat(text: str) -> str:
    """Return ``text`` if it is a valid chat line (SPEC.md 8.3).

    A chat line is 1 to 200 characters with no character of Unicode category C (control,
    format, unassigned, private use) or Z (separators) other than the plain space, and no
    space at either end: one line, as a display name but longer.

    Raises:
        ValueError: the line breaks one of these rules; the message says which.
    """
    fault = line_fault(text, max_chars=MAX_CHAT_CHARS)
    if fault:
        raise ValueError(f"chat: {fault}")
    return text


class Validator:
    """The incremental fold of a log: feed envelopes one by one, read the game state."""

    def __init__(self) -> None:
        self._s = _State()
        self._records: list[Record] = []
        # The number of records up to the last one that is not a chat line, and how many chat
        # lines each key wrote after it: kept as records come, so reading them costs the same
        # however long the chat (SESSION.md 5, 7).
        self._lockstep = 0
        self._chat_run: dict[bytes, int] = {}
        self._last = ZERO_HASH
        # The last action made here: (position before, action text, position after, hash),
        # so feeding that record back does not play and hash it again (a pure function).
        self._made: tuple[Position, str, Position, bytes] | None = None
        # The last record sealed here and its message: fed back as this peer's own record
        # (``verified``), its body is not decoded again.
        self._sealed: tuple[bytes, Message] | None = None
        # The numbers of the act records an accepted takeback undid, in order.
        self._taken_back: list[int] = []

    # -- state -----------------------------------------------------------------------------

    @property
    def header(self) -> Header | None:
        """The header, once record 0 is in."""
        return self._s.header

    @property
    def position(self) -> Position | None:
        """The current position; ``None`` until every slot has revealed."""
        return self._s.position

    @property
    def state_hash(self) -> bytes:
        """The state hash of ``position`` (empty before it exists)."""
        return self._s.hash

    @property
    def seats(self) -> tuple[bytes, ...]:
        """Public keys in current seat order (header slot order before the draw)."""
        s = self._s
        if not s.seat_slots:
            return s.keys
        return tuple(s.keys[i] for i in s.seat_slots)

    @property
    def names(self) -> tuple[str, ...]:
        """Display names in the same order as ``seats``."""
        h = self._s.header
        if h is None:
            return ()
        order = self._s.seat_slots or tuple(range(h.players))
        return tuple(h.seats[i].name for i in order)

    @property
    def clocks(self) -> tuple[int, ...]:
        """Bank time left per seat in ms, in the order of ``seats`` (all 0 when untimed)."""
        s = self._s
        order = s.seat_slots or tuple(range(len(s.banks)))
        return tuple(s.banks[i] for i in order)

    @property
    def pending_acks(self) -> tuple[int, ...]:
        """Seats (0-based) that still owe an ack of the last action, in the order they ack."""
        if not self._s.pending:
            return ()
        return tuple(self._seat_of_slot(i) for i in self._s.pending)

    @property
    def drawn(self) -> tuple[str, ...]:
        """The gods the commit-reveal draw produced (draft pool or random deal)."""
        return self._s.drawn

    @property
    def records(self) -> tuple[Record, ...]:
        """Every record accepted so far, in order."""
        return tuple(self._records)

    def records_since(self, start: int) -> list[Record]:
        """The records from number ``start`` on (a copy of just those)."""
        return self._records[start:]

    def record(self, index: int) -> Record:
        """Record number ``index`` (negative: from the end), without copying the log."""
        return self._records[index]

    @property
    def lockstep_count(self) -> int:
        """The number of records up to the last one that is not a chat line.

        A move's clock runs from there (SESSION.md 7): chat lines after it move no clock.
        """
        return self._lockstep

    def chat_run(self, public_key: bytes) -> int:
        """How many chat lines ``public_key`` wrote since the last record that is not one."""
        return self._chat_run.get(public_key, 0)

    @property
    def taken_back(self) -> tuple[int, ...]:
        """The numbers of the act records that accepted takebacks undid (SPEC.md 8.2)."""
        return tuple(self._taken_back)

    def standing_acts(self) -> list[Record]:
        """The act records that stand, in order: every act but those taken back."""
        gone = set(self._taken_back)
        return [r for r in self._records if isinstance(r.message, Act) and r.index not in gone]

    @property
    def next_seq(self) -> int:
        """The number the next record must carry."""
        return len(self._records)

    @property
    def last_hash(self) -> bytes:
        """The chain hash the next record must carry as ``prev``."""
        return self._last

    @property
    def turns(self) -> int:
        """The number of turns of play (setup actions not counted)."""
        return self._s.turns

    @property
    def is_over(self) -> bool:
        """Whether the game has ended (a result may now be signed)."""
        s = self._s
        if s.secret is not None:
            return s.secret.result is not None
        p = s.position
        return p is not None and p.winner >= 0

    @property
    def is_complete(self) -> bool:
        """Whether every seat has signed the result: the log is a finished replay."""
        h = self._s.header
        return h is not None and len(self._s.results) == h.players

    @property
    def result(self) -> tuple[int, str] | None:
        """``(winner seat or -1, reason)`` once the game is over, else ``None``."""
        g = self._s.secret
        if g is not None:
            return None if g.result is None else (g.result[0], g.ending)
        p = self._s.position
        if p is None or p.winner < 0:
            return None
        won = outcome(p).winner
        return (-1 if won is None else won), (self._s.ended or "win")

    def seat_of(self, public_key: bytes) -> int | None:
        """Return the seat (0-based) ``public_key`` holds now, or ``None``."""
        s = self._s
        if public_key not in s.keys:
            return None
        return self._seat_of_slot(s.keys.index(public_key))

    def _seat_of_slot(self, slot: int) -> int:
        order = self._s.seat_slots
        return order.index(slot) if order else slot

    def expected_signers(self) -> tuple[bytes, ...]:
        """Public keys that may sign the next record of the lockstep order.

        Before play that is the one slot whose header, commit or reveal is due; in play, the
        seats owing an ack or, with none owed, the seat to move (any seat may also resign,
        claim a timeout or offer to end the game); at the end, seats yet to sign the result.
        """
        s = self._s
        n = len(self._records)
        if s.header is None:
            return ()
        players = s.header.players
        if n <= 2 * players:
            return (s.keys[(n - 1) % players],)
        if len(s.results) == players:
            return ()
        if s.results or self.is_over:
            return (s.keys[s.seat_slots[len(s.results)]],)
        g = s.secret
        if g is not None and not g.dealt:
            due = len(g.decks) if len(g.decks) < players else len(g.hands)
            return (s.keys[s.seat_slots[due]],)
        if s.pending:
            return (s.keys[s.pending[0]],)
        assert s.position is not None
        if s.asked is not None:
            return (s.keys[s.seat_slots[s.asked[0]]],)
        return (s.keys[s.seat_slots[s.position.to_move]],)

    # -- feeding ---------------------------------------------------------------------------

    def feed(self, raw: bytes, *, verified: bool = False) -> Record:
        """Check envelope ``raw`` as the next record and apply it; return the record.

        ``verified``: the signature is already known to be good (this process has just signed
        ``raw`` with a key it holds), so it is not checked again; every other check is made.

        Raises:
            ReplayError: the record is bad; ``record_index`` is its number and ``__cause__``
                the specific error. The validator is unchanged.
        """
        index = len(self._records)
        try:
            return self._check(bytes(raw), index, verified)
        except (WireError, DesyncError, IllegalTurnError) as e:
            raise _replay_error(e, index) from e

    def _feed_opened(self, opened: Iterable[OpenedRecord]) -> None:
        """``feed`` for records already opened and signature-checked by ``_open_all``.

        Raises:
            ReplayError: as ``feed``, at the first bad record; those before it are in.
        """
        records = self._records
        fold = self._fold
        for raw, signer, msg, digest in opened:
            index = len(records)
            try:
                if index >= MAX_RECORDS:
                    raise TooLargeError(f"a log may hold at most {MAX_RECORDS} records")
                if index > 0 and signer not in self._s.keys:
                    raise SignatureError(f"signed by {fingerprint(signer)}, which holds no seat")
                fold(raw, index, signer, msg, digest)
            except (WireError, DesyncError, IllegalTurnError) as e:
                raise _replay_error(e, index) from e

    def _check(self, raw: bytes, index: int, verified: bool = False) -> Record:
        if index >= MAX_RECORDS:
            raise TooLargeError(f"a log may hold at most {MAX_RECORDS} records")
        if len(raw) > MAX_RECORD_BYTES:
            raise TooLargeError(f"{len(raw)} bytes is over the limit of {MAX_RECORD_BYTES}")
        signer, body, signature = split_envelope(raw)
        if index > 0 and signer not in self._s.keys:
            raise SignatureError(f"signed by {fingerprint(signer)}, which holds no seat")
        if not verified and not verify(signer, signature, SIGNING_DOMAIN + body):
            raise SignatureError(f"bad signature (signer {fingerprint(signer)})")
        sealed = self._sealed
        if verified and sealed is not None and sealed[0] is raw:
            msg = sealed[1]
        else:
            msg = decode_body(body)
        return self._fold(raw, index, signer, msg, chain_hash(raw))

    def _fold(self, raw: bytes, index: int, signer: bytes, msg: Message, digest: bytes) -> Record:
        """Check a decoded record against the log so far, then append it.

        The chain, the signer's right and the rules; then the record is appended and its
        state taken. On any error nothing changes. Written out in one function: it runs for
        every record read.
        """
        s = self._s
        kind = type(msg)
        if msg.prev != self._last:
            if index == 0:
                raise ChainError("the header's previous-record hash must be all zeros")
            raise ChainError(
                f"broken chain: previous-record hash {short_hex(msg.prev)} is not the hash "
                f"{short_hex(self._last)} of record {index - 1}"
            )
        if msg.seq != index:
            raise ChainError(f"record number field says {msg.seq}")
        if index == 0:
            state = self._header(msg, signer)
            slot = 0
        else:
            slot = s.keys.index(signer)
            # Acts and acks in play (nine records in ten) go straight to their checks: a
            # position, or an ack due, means the draw is done, and no result that play goes on.
            if s.secret is not None and kind is not Result and kind is not Chat:
                if s.results:
                    raise RecordError("only result records may follow a result")
                state = self._secret_step(msg, slot)
            elif kind is Act and s.position is not None and not s.results:
                state = self._act(msg, slot)  # type: ignore[arg-type]
            elif kind is Ack and s.pending and not s.results:
                pending = s.pending
                ack: Ack = msg  # type: ignore[assignment]
                if (
                    slot == pending[0]
                    and ack.acked == s.last_act
                    and ack.state_hash == s.hash
                    and not s.every
                ):
                    # A good ack outside Party (every other ack goes to _ack, which names
                    # what is wrong): s._replace(pending=...), three times cheaper.
                    state = tuple.__new__(_State, (*s[:_PENDING], pending[1:], *s[_PENDING + 1 :]))
                else:
                    state = self._ack(msg, slot)  # type: ignore[arg-type]
            else:
                state = self._step(msg, slot, index)
        seat = None if not s.seat_slots else s.seat_slots.index(slot)
        # The checks are over: from here on nothing fails.
        record = tuple.__new__(Record, (index, raw, digest, signer, slot, seat, msg))
        u = s.undo
        if u is not None and state.undo is None and state.turns < s.turns:
            self._taken_back.append(u.seq)  # an accepted takeback undid that act
        records = self._records
        records.append(record)
        self._s = state
        self._last = digest
        if kind is Chat:
            self._chat_run[signer] = self._chat_run.get(signer, 0) + 1
        else:
            self._lockstep = len(records)
            if self._chat_run:
                self._chat_run = {}
        return record

    def _header(self, msg: Message, signer: bytes) -> _State:
        if not isinstance(msg, Header):
            raise RecordError(f"record 0 must be the header, got {type(msg).__name__.lower()}")
        if msg.protocol not in PROTOCOL_VERSIONS:
            raise VersionError(
                f"unsupported protocol version {msg.protocol} (this program speaks "
                f"{', '.join(map(str, PROTOCOL_VERSIONS))})"
            )
        keys = tuple(seat.public_key for seat in msg.seats)
        if not 2 <= len(keys) <= 4:
            raise RecordError(f"header: expected 2 to 4 seats, got {len(keys)}")
        if len(set(keys)) != len(keys):
            raise RecordError("header: a public key holds two seats")
        if signer != keys[0]:
            raise SignatureError("the header must be signed by the first seat's key")
        for i, seat in enumerate(msg.seats):
            try:
                check_name(seat.name)
            except ValueError as e:
                raise RecordError(f"header: seat {i + 1}: {e}") from None
        if msg.gods not in GOD_MODES:
            raise RecordError(f"header: unknown god selection {msg.gods!r}")
        if list(msg.options) != sorted(set(msg.options)):
            raise RecordError("header: options must be sorted with no repeats")
        for opt in msg.options:
            if opt not in OPTIONS and not opt.startswith((START_OPTION, PASS_OPTION)):
                raise RecordError(f"header: unknown rule option {opt!r}")
            if opt.startswith(PASS_OPTION) and msg.protocol < 3:
                raise RecordError(f"header: the option {opt!r} needs protocol 3")
            if opt in PROTOCOL_2_OPTIONS and msg.protocol < 2:
                raise RecordError(f"header: the option {opt!r} needs protocol 2")
            if opt in PROTOCOL_3_OPTIONS and msg.protocol < 3:
                raise RecordError(f"header: the option {opt!r} needs protocol 3")
        if (
            msg.protocol >= 3
            and not _table_mode(msg.options)
            and not (msg.gods != "none" and chooses_elsewhere(msg.pool))
        ):
            raise VersionError(
                f"header: protocol {msg.protocol} is for games with secret gods, Party or Agora "
                "(the options 'secret', 'party', 'agora') or a pool with a god that chooses in "
                "another seat's turn (gaea); any other game is written as protocol 2"
            )
        try:
            start_slot(msg.options, len(keys))
        except ValueError as e:
            raise RecordError(f"header: {e}") from None
        if msg.move_ms == 0 and msg.bank_ms != 0:
            raise RecordError("header: a bank needs a time per move")
        if msg.protocol >= 2:
            check_pool(msg)
        if SECRET_OPTION in msg.options:
            _check_secret_header(msg)
        every, agora = _party_header(msg)
        return _State(
            header=msg, keys=keys, banks=(msg.bank_ms,) * len(keys), every=every, agora=agora
        )

    def _step(self, msg: Message, slot: int, index: int) -> _State:
        s = self._s
        assert s.header is not None
        n = s.header.players
        if s.results and not isinstance(msg, Result):
            raise RecordError("only result records may follow a result")
        if index <= n:
            return self._commit(msg, slot, index)
        if index <= 2 * n:
            return self._reveal(msg, slot, index)
        if len(s.results) == n:
            raise RecordError("the game is complete: no record may follow")
        match msg:
            case Act():
                return self._act(msg, slot)
            case Ack():
                return self._ack(msg, slot)
            case Resign():
                return self._resign(msg, slot)
            case Timeout():
                return self._timeout(msg, slot)
            case Offer():
                return self._offer(msg, slot)
            case Accept():
                return self._accept(msg, slot)
            case Result():
                return self._result(msg, slot)
            case Chat():
                return self._chat(msg)
            case Ask():
                return self._ask(msg, slot)
            case Answer():
                return self._answer(msg, slot)
            case _:
                raise RecordError(f"a {type(msg).__name__.lower()} record is not allowed in play")

    def _commit(self, msg: Message, slot: int, index: int) -> _State:
        want = index - 1
        if not isinstance(msg, Commit):
            raise RecordError(f"expected slot {want + 1}'s commit, got {_kind(msg)}")
        if slot != want:
            raise SignatureError(f"signed by slot {slot + 1}, but slot {want + 1} commits here")
        return self._s._replace(commitments=(*self._s.commitments, msg.commitment))

    def _reveal(self, msg: Message, slot: int, index: int) -> _State:
        s = self._s
        h = s.header
        assert h is not None
        want = index - 1 - h.players
        if not isinstance(msg, Reveal):
            raise RecordError(f"expected slot {want + 1}'s reveal, got {_kind(msg)}")
        if slot != want:
            raise SignatureError(f"signed by slot {slot + 1}, but slot {want + 1} reveals here")
        if commitment(h.game_id, s.keys[slot], msg.nonce) != s.commitments[slot]:
            raise RecordError(f"slot {slot + 1}'s nonce does not match its commitment")
        nonces = (*s.nonces, msg.nonce)
        if len(nonces) < h.players:
            return s._replace(nonces=nonces)
        pool = game_pool(h)
        if SECRET_OPTION in h.options:
            # The draw picks seat 1 only; the gods are dealt secretly next (SECRET.md 3).
            start, _ = draw_setup(draw_seed(h.game_id, nonces), h.players, "none", pool)
            fixed = start_slot(h.options, h.players)  # a rematch's (SPEC.md 11)
            start = start if fixed is None else fixed
            g = SecretGame(pool, h.players)
            slots = tuple((start + i) % h.players for i in range(h.players))
            return s._replace(
                nonces=nonces,
                position=g.position,
                hash=state_hash(g.position),
                seat_slots=slots,
                secret=g,
                pending=(slots[0],),  # seat 1 shuffles first
            )
        start, drawn = draw_setup(draw_seed(h.game_id, nonces), h.players, h.gods, pool)
        # A rematch names its start slot (SPEC.md 11): the drawn one is read and set aside,
        # so the gods are drawn from the same bytes as without the option.
        fixed = start_slot(h.options, h.players)
        start = start if fixed is None else fixed
        p = new_game(
            h.players,
            cast(GodMode, h.gods),
            snake="snake" in h.options,
            drawn=drawn,
            offer=pool if h.gods == "challenger" else (),
        )
        slots = tuple((start + i) % h.players for i in range(h.players))
        return s._replace(
            nonces=nonces, position=p, hash=state_hash(p), seat_slots=slots, drawn=drawn
        )

    def _secret_step(self, msg: Message, slot: int) -> _State:
        """A record of a game with secret gods, after the draw (SECRET.md 6 to 8, 12)."""
        s = self._s
        h = s.header
        g = s.secret
        assert h is not None
        assert g is not None
        seat = s.seat_slots.index(slot)
        banks = s.banks
        nxt = g.clone()
        before = g.position
        match msg:
            case Act():
                _action_of(msg.action)  # canonical text
                if g.pending is not None:
                    raise RecordError(
                        f"an action before every seat acknowledged record {s.last_act}"
                    )
                if h.move_ms and g.dealt and g.result is None:
                    left = banks[slot] - max(0, msg.clock_ms - h.move_ms)
                    if left < 0:
                        raise RecordError(
                            f"seat {seat + 1} ran out of time: the move took {msg.clock_ms} ms "
                            f"with {h.move_ms} ms per move and {banks[slot]} ms in the bank"
                        )
                    banks = (*banks[:slot], left, *banks[slot + 1 :])
            case Ack() | Object():
                acked = msg.acked if isinstance(msg, Ack) else msg.objected
                if g.pending is None or acked != s.last_act:
                    raise RecordError(
                        f"answers record {acked}, but no action awaits acknowledgement"
                        if g.pending is None
                        else f"answers record {acked}, not the last action {s.last_act}"
                    )
                if isinstance(msg, Ack) and msg.state_hash != s.hash:
                    raise DesyncError(s.turns, s.hash, msg.state_hash)
            case Resign() | Timeout():
                self._secret_concede(nxt, msg, seat)
            case Shuffle() | Strip() | Open() | Forfeit():
                pass
            case _:
                raise RecordError(f"a {_kind(msg)} record is not allowed with secret gods")
        if not isinstance(msg, Resign | Timeout):
            try:
                nxt.feed(to_secret_record(msg, seat, nxt))
            except ValueError as e:
                reason = e.reason if isinstance(e, SecretRecordError) else str(e)
                raise RecordError(reason) from None
        p = decided_position(nxt)
        digest = state_hash(p)
        if isinstance(msg, Act | Resign | Timeout) and msg.state_hash != digest:
            raise DesyncError(s.turns, digest, msg.state_hash)
        played = isinstance(msg, Act) and before.phase is Phase.PLAY
        return s._replace(
            secret=nxt,
            position=p,
            hash=digest,
            banks=banks,
            pending=tuple(s.seat_slots[x] for x in secret_owed(nxt)),
            last_act=msg.seq if isinstance(msg, Act) else s.last_act,
            turns=s.turns + played - isinstance(msg, Object),
            ended=nxt.ending or s.ended,
        )

    def _secret_concede(self, g: SecretGame, msg: Resign | Timeout, seat: int) -> None:
        """A resignation, or a timeout claim against the seat to move, in a secret game."""
        if not g.dealt or g.result is not None or g.position.phase is Phase.OVER:
            what = "a resignation" if isinstance(msg, Resign) else "a timeout"
            raise RecordError(f"{what} is not allowed now (the deal or the end is under way)")
        if (g.left | g.position.eliminated) >> seat & 1:
            raise SignatureError(f"signed by seat {seat + 1}, which is no longer playing")
        try:
            if isinstance(msg, Resign):
                g.concede(seat, "resign", f"seat {seat + 1} resigns")
                return
            if g.pending is not None or msg.seat != g.position.to_move:
                raise RecordError(
                    f"claims seat {msg.seat + 1} ran out of time, but no move of that seat is due"
                )
            g.concede(msg.seat, "time", f"seat {msg.seat + 1} ran out of time")
        except SecretRecordError as e:
            raise RecordError(e.reason) from None

    def _playing(self, what: str) -> Position:
        p = self._s.position
        assert p is not None
        if p.winner >= 0:  # over
            raise RecordError(f"{what} after the game is over")
        return p

    def _leave(self, p: Position, seat: int) -> Position:
        """The position after ``seat`` resigns or loses on time (Agora: it leaves alone)."""
        if self._s.agora:
            try:
                return agora_leave(p, seat)
            except ValueError as e:
                raise IllegalTurnError(str(e)) from None
        return resign(p, seat)

    def _active_slots(self, p: Position, order: tuple[int, ...] = ()) -> frozenset[int]:
        order = order or self._s.seat_slots
        gone = p.eliminated if p.players == 3 or self._s.agora else 0
        return frozenset(order[i] for i in range(p.players) if not gone >> i & 1)

    def _check_hash(self, got: bytes, p: Position) -> bytes:
        want = state_hash(p)
        if got != want:
            raise DesyncError(self._s.turns, want, got)
        return want

    def _act(self, msg: Act, slot: int) -> _State:
        s = self._s
        h = s.header
        assert h is not None
        p = s.position
        assert p is not None
        if p.winner >= 0:  # over (``_playing`` written out: half of all records come here)
            raise RecordError("an action after the game is over")
        if s.pending:
            owing = ", ".join(str(self._seat_of_slot(i) + 1) for i in s.pending)
            raise RecordError(f"an action before seat {owing} acknowledged record {s.last_act}")
        mover = p.to_move
        if s.seat_slots[mover] != slot:
            raise SignatureError(
                f"signed by seat {self._seat_of_slot(slot) + 1}, but seat {mover + 1} is to move"
            )
        if s.asked is not None:
            raise RecordError(
                f"an action while seat {s.asked[0] + 1}'s answer to {s.asked[1]!r} is owed"
            )
        action = _action_of(msg.action)
        banks = s.banks
        if h.move_ms:
            left = banks[slot] - max(0, msg.clock_ms - h.move_ms)
            if left < 0:
                raise RecordError(
                    f"seat {mover + 1} ran out of time: the move took {msg.clock_ms} ms with "
                    f"{h.move_ms} ms per move and {banks[slot]} ms in the bank"
                )
            banks = (*banks[:slot], left, *banks[slot + 1 :])
        made = self._made
        if made is not None and made[0] is p and made[1] == msg.action:
            q, digest = made[2], made[3]
            if msg.state_hash != digest:
                raise DesyncError(s.turns, digest, msg.state_hash)
        else:
            try:
                q = apply_checked(p, action)
                if s.agora and isinstance(action, Turn) and p.phase is Phase.PLAY:
                    q = agora_play(p, action)  # each wins alone; who cannot play leaves
            except IllegalTurnError:
                kind = "turn" if isinstance(action, Turn) else "action"
                raise IllegalTurnError(
                    f"illegal {kind} {msg.action!r} by seat {mover + 1} in {format_position(p)}"
                ) from None
            digest = state_hash(q)
            if msg.state_hash != digest:
                raise DesyncError(s.turns, digest, msg.state_hash)
        if h.protocol >= 3 and isinstance(action, Turn) and (s.answered or deciders(p)):
            # The legal turn the text names (a last ``+`` reads as the position says).
            self._check_answered(p, find_turn(p, msg.action), s.answered)
        seat_slots = s.seat_slots
        if isinstance(action, NameStart):
            k, m = action.seat, len(seat_slots)
            seat_slots = tuple(seat_slots[(k + i) % m] for i in range(m))
        pending: tuple[int, ...] = ()
        if q.winner < 0:  # not over
            # Acks come in seat order after the mover, so every record's signer is fixed.
            m = len(seat_slots)
            here = seat_slots.index(slot)
            if m == 2:
                pending = (seat_slots[1 - here],)
            else:
                gone = q.eliminated if m == 3 or s.agora else 0
                late: list[int] = []
                for i in range(1, m):
                    j = (here + i) % m
                    if not gone >> j & 1:
                        late.append(seat_slots[j])
                pending = tuple(late)
        # Every field in order, not _replace: this runs for half of all records and is 3x
        # cheaper (and tuple.__new__ skips the named tuple's own __new__, a Python call).
        return tuple.__new__(
            _State,
            (
                s.header,
                s.keys,
                s.commitments,
                s.nonces,
                q,
                digest,
                seat_slots,
                banks,
                pending,
                msg.seq,
                None,
                s.ended,
                s.results,
                s.turns + isinstance(action, Turn),
                s.drawn,
                # Only a turn of play that leaves the game going may be taken back (SPEC.md 8.2).
                _Undo(p, s.hash, slot, msg.action, msg.seq)
                if q.winner < 0 and isinstance(action, Turn) and "takeback" in h.options
                else None,
                s.every,
                s.agora,
                None,  # secret: a game with secret gods goes through _secret_step
                (),  # answered: a turn closes the choices signed in it
                None,  # asked
            ),
        )

    def _check_answered(self, p: Position, turn: Turn, answered: tuple[Choice, ...]) -> None:
        """The choices other seats make in ``turn`` are exactly those they signed (SPEC.md 8.4)."""
        want = choices(p, turn)
        if want == answered:
            return
        for i, c in enumerate(want):
            if i >= len(answered) or answered[i] != c:
                raise RecordError(
                    f"the turn {str(turn)!r} writes seat {c.seat + 1}'s choice {c.answer!r} "
                    f"after {c.asked!r}, which that seat did not sign (its answer record is "
                    "missing or says otherwise)"
                )
        raise RecordError(
            f"the turn {str(turn)!r} does not go on from the choices signed before it "
            f"({', '.join(repr(c.asked + ' ' + c.answer) for c in answered)})"
        )

    def _ask(self, msg: Ask, slot: int) -> _State:
        """The mover asks the seat that chooses at ``asked`` in its turn (SPEC.md 8.4)."""
        s = self._s
        assert s.header is not None
        if s.header.protocol < 3:
            raise RecordError("an ask record in a game of protocol 2 or earlier")
        p = self._playing("an ask")
        if s.pending:
            raise RecordError(f"an ask before every seat acknowledged record {s.last_act}")
        if s.seat_slots[p.to_move] != slot:
            raise SignatureError(
                f"signed by seat {self._seat_of_slot(slot) + 1}, but only seat {p.to_move + 1}, "
                "whose turn it is, may ask"
            )
        if s.asked is not None:
            raise RecordError(f"an ask while seat {s.asked[0] + 1}'s answer is owed")
        seat, _ = choice_options(p, s.answered, msg.asked)
        if seat < 0:
            raise RecordError(
                f"no other seat chooses after {msg.asked!r} in {format_position(p)}"
                + (" (after the answers signed so far)" if s.answered else "")
            )
        return s._replace(asked=(seat, msg.asked))

    def _answer(self, msg: Answer, slot: int) -> _State:
        """The seat asked gives its choice: ``+sq`` or ``-`` (SPEC.md 8.4)."""
        s = self._s
        assert s.header is not None
        if s.header.protocol < 3:
            raise RecordError("an answer record in a game of protocol 2 or earlier")
        p = self._playing("an answer")
        if s.asked is None:
            raise RecordError("an answer with no ask open")
        seat, asked = s.asked
        if s.seat_slots[seat] != slot:
            signer = self._seat_of_slot(slot) + 1
            raise SignatureError(
                f"signed by seat {signer}, but the choice after {asked!r} is seat {seat + 1}'s "
                f"({p.gods[seat]}): only that seat may answer"
            )
        _, options = choice_options(p, s.answered, asked)
        if msg.answer not in options:
            raise RecordError(
                f"seat {seat + 1} answers {msg.answer!r} after {asked!r}; it may answer "
                + ", ".join(options)
            )
        return s._replace(answered=(*s.answered, Choice(seat, asked, msg.answer)), asked=None)

    def _ack(self, msg: Ack, slot: int) -> _State:
        s = self._s
        if not s.pending or slot != s.pending[0]:
            due = f"seat {self._seat_of_slot(s.pending[0]) + 1}'s" if s.pending else "no"
            raise SignatureError(
                f"signed by seat {self._seat_of_slot(slot) + 1}, but {due} acknowledgement is due"
            )
        if msg.acked != s.last_act:
            raise RecordError(f"acknowledges record {msg.acked}, not the last action {s.last_act}")
        if msg.state_hash != s.hash:
            raise DesyncError(self._s.turns, s.hash, msg.state_hash)
        if s.every and len(s.pending) == 1:
            return self._maybe_pass(s)
        # s._replace(pending=...), three times cheaper (one ack per action comes here).
        return tuple.__new__(_State, (*s[:_PENDING], s.pending[1:], *s[_PENDING + 1 :]))

    def _maybe_pass(self, s: _State) -> _State:
        """Party: the last ack of a turn; after every ``every`` turns the cards pass on."""
        p = s.position
        assert p is not None
        if p.phase is not Phase.PLAY or not passes_after(s.turns, s.every):
            return s._replace(pending=())
        q = pass_cards(p)
        return s._replace(pending=(), position=q, hash=state_hash(q), undo=None)

    def _resign(self, msg: Resign, slot: int) -> _State:
        s = self._s
        p = self._playing("a resignation")
        if slot not in self._active_slots(p):
            raise SignatureError(f"signed by slot {slot + 1}, which is no longer playing")
        q = self._leave(p, s.seat_slots.index(slot))
        digest = self._check_hash(msg.state_hash, q)
        return s._replace(
            position=q,
            hash=digest,
            pending=_without(s.pending, slot),
            offer=None,
            undo=None,
            ended="resign" if q.winner >= 0 else s.ended,
            answered=(),
            asked=None,
        )

    def _timeout(self, msg: Timeout, slot: int) -> _State:
        s = self._s
        p = self._playing("a timeout")
        if slot not in self._active_slots(p):
            raise SignatureError(f"signed by slot {slot + 1}, which is no longer playing")
        if msg.seat != p.to_move:
            raise RecordError(
                f"claims seat {msg.seat + 1} ran out of time, but seat {p.to_move + 1}'s clock runs"
            )
        loser = s.seat_slots[msg.seat]
        q = self._leave(p, msg.seat)
        digest = self._check_hash(msg.state_hash, q)
        return s._replace(
            position=q,
            hash=digest,
            pending=_without(s.pending, loser),
            offer=None,
            undo=None,
            ended="time" if q.winner >= 0 else s.ended,
            answered=(),
            asked=None,
        )

    def _offer(self, msg: Offer, slot: int) -> _State:
        s = self._s
        p = self._playing("an offer")
        if msg.kind not in OFFER_KINDS:
            raise RecordError(f"unknown offer {msg.kind!r} (expected draw, abort or takeback)")
        if slot not in self._active_slots(p):
            raise SignatureError(f"signed by slot {slot + 1}, which is no longer playing")
        if msg.kind == "takeback":
            self._check_takeback(slot)
        return s._replace(offer=_Offer(msg.kind, msg.seq, frozenset({slot})))

    def _check_takeback(self, slot: int) -> None:
        """A takeback offer: allowed by the header, right after the signer's own acked turn."""
        s = self._s
        assert s.header is not None
        if "takeback" not in s.header.options:
            raise RecordError("a takeback offer in a game whose header does not allow takebacks")
        if s.pending:
            raise RecordError(
                f"a takeback offer before every seat acknowledged record {s.last_act}"
            )
        if s.answered or s.asked is not None:
            raise RecordError("a takeback offer after the next turn began (an ask is in)")
        u = s.undo
        if u is None or u.seq != s.last_act:
            raise RecordError(
                "a takeback offer with no turn to take back (the last action is "
                "not a turn of play, or was taken back)"
            )
        if u.slot != slot:
            raise SignatureError(
                f"signed by seat {self._seat_of_slot(slot) + 1}, but the last turn "
                f"(record {u.seq}) is seat {self._seat_of_slot(u.slot) + 1}'s: only its mover "
                "may ask to take it back"
            )

    def _accept(self, msg: Accept, slot: int) -> _State:
        s = self._s
        p = self._playing("an acceptance")
        o = s.offer
        if o is None or o.kind != msg.kind or o.seq != msg.offer:
            raise RecordError(f"accepts a {msg.kind} offer in record {msg.offer} that is not open")
        active = self._active_slots(p)
        if slot not in active or slot in o.accepted:
            raise SignatureError(f"signed by slot {slot + 1}, which cannot accept this offer")
        accepted = o.accepted | {slot}
        if accepted >= active and o.kind == "takeback":
            # The position goes back to before the turn; the banks stay (SPEC.md 12).
            u = s.undo
            assert u is not None  # an act, resignation or timeout closes the offer with it
            return s._replace(
                position=u.position, hash=u.hash, offer=None, undo=None, turns=s.turns - 1
            )
        if accepted >= active:
            q = end_by_agreement(p)
            return s._replace(
                position=q,
                hash=state_hash(q),
                offer=None,
                ended=o.kind,
                pending=(),
                answered=(),
                asked=None,
            )
        return s._replace(offer=_Offer(o.kind, o.seq, accepted))

    def _chat(self, msg: Chat) -> _State:
        """A chat line (SPEC.md 8.3): allowed by the header, printable; it changes nothing."""
        s = self._s
        assert s.header is not None
        if "chat" not in s.header.options:
            raise RecordError("a chat record in a game whose header does not allow chat")
        try:
            check_chat(msg.text)
        except ValueError as e:
            raise RecordError(str(e)) from None
        return s

    def _result(self, msg: Result, slot: int) -> _State:
        s = self._s
        if not self.is_over:
            raise RecordError("a result before the game is over")
        due = s.seat_slots[len(s.results)]
        if slot != due:
            raise SignatureError(
                f"signed by seat {self._seat_of_slot(slot) + 1}, but seat "
                f"{self._seat_of_slot(due) + 1} signs the result next (seat order)"
            )
        res = self.result
        assert res is not None
        if (msg.winner, msg.reason) != res:
            raise RecordError(
                f"result says winner {msg.winner + 1 if msg.winner >= 0 else 'none'} by "
                f"{msg.reason!r}; the log gives {res[0] + 1 if res[0] >= 0 else 'none'} by "
                f"{res[1]!r}"
            )
        if msg.state_hash != s.hash:
            raise DesyncError(self._s.turns, s.hash, msg.state_hash)
        return s._replace(results=(*s.results, slot), pending=())

    # -- building the next record ----------------------------------------------------------

    def _seal(self, identity: Identity, message: Message) -> bytes:
        raw = seal(identity, message)
        self._sealed = (raw, message)
        return raw

    def make_commit(self, identity: Identity, nonce: bytes) -> bytes:
        """Return the signed commit to ``nonce`` (32 random bytes kept for the reveal)."""
        h = self._s.header
        assert h is not None, "the header comes first"
        c = commitment(h.game_id, identity.public_key, nonce)
        return self._seal(identity, Commit(self.next_seq, self._last, c))

    def make_reveal(self, identity: Identity, nonce: bytes) -> bytes:
        """Return the signed reveal of ``nonce``."""
        return self._seal(identity, Reveal(self.next_seq, self._last, nonce))

    def make_act(self, identity: Identity, action: str | Action, clock_ms: int = 0) -> bytes:
        """Return the signed action (canonical text of ``action``) with the state hash after.

        Raises:
            NotationError: ``action`` does not parse.
            IllegalTurnError: it is not legal now.
        """
        p = self._s.position
        if p is None:
            raise IllegalTurnError("no position yet: the draw is not complete")
        if self._s.secret is not None:
            return self._make_secret_act(identity, action, clock_ms)
        a = parse_action(action) if isinstance(action, str) else action
        q = apply_action(p, a)
        if self._s.agora and isinstance(a, Turn) and p.phase is Phase.PLAY:
            q = agora_play(p, a)
        text = format_action(a)
        digest = state_hash(q)
        self._made = (p, text, q, digest)
        return self._seal(identity, Act(self.next_seq, self._last, text, clock_ms, digest))

    def _make_secret_act(self, identity: Identity, action: str | Action, clock_ms: int) -> bytes:
        g = self._s.secret
        assert g is not None
        a = parse_action(action) if isinstance(action, str) else action
        text = format_action(a)
        seat = self.seat_of(identity.public_key)
        nxt = g.clone()
        try:
            nxt.feed(to_secret_record(Act(0, b"", text, 0, b""), -1 if seat is None else seat, nxt))
        except ValueError as e:
            raise IllegalTurnError(f"illegal action {text!r}: {e}") from None
        digest = state_hash(decided_position(nxt))
        return self._seal(identity, Act(self.next_seq, self._last, text, clock_ms, digest))

    @property
    def secret(self) -> SecretGame | None:
        """The secret game's checker, in a game with secret gods once the draw is done.

        Read only: the log owns it (each record replaces it).
        """
        return self._s.secret

    def make_deal_step(self, identity: Identity, key: DealKey, order_seed: bytes) -> bytes:
        """Return ``identity``'s shuffle or strip, whichever of its deal steps is due."""
        g = self._s.secret
        seat = self.seat_of(identity.public_key)
        assert g is not None
        assert seat is not None
        is_shuffle, cards = deal_cards_for(g, seat, SeatSecret(key, order_seed))
        kind = Shuffle if is_shuffle else Strip
        return self._seal(identity, kind(self.next_seq, self._last, cards))

    def make_open(self, identity: Identity, god: str, key: bytes) -> bytes:
        """Return ``identity``'s opening of its hidden ``god`` with its deal ``key``."""
        return self._seal(identity, Open(self.next_seq, self._last, god, key))

    def make_object(self, identity: Identity, god: str, key: bytes) -> bytes:
        """Return ``identity``'s objection to the act awaiting its ack, opening ``god``."""
        return self._seal(identity, Object(self.next_seq, self._last, self._s.last_act, god, key))

    def make_forfeit(self, identity: Identity, late: int, reason: str) -> bytes:
        """Return ``identity``'s record that seat ``late`` withheld what it owed."""
        return self._seal(identity, Forfeit(self.next_seq, self._last, late, reason[:64]))

    def make_ack(self, identity: Identity) -> bytes:
        """Return the signed acknowledgement of the last action."""
        return self._seal(identity, Ack(self.next_seq, self._last, self._s.last_act, self._s.hash))

    def make_resign(self, identity: Identity) -> bytes:
        """Return the signed resignation of ``identity``'s seat.

        Raises:
            IllegalTurnError: the seat cannot resign now.
        """
        p, seat = self._position_and_seat(identity)
        g = self._s.secret
        if g is not None:
            nxt = g.clone()
            self._secret_concede(nxt, Resign(0, b"", b""), seat)
            after = state_hash(decided_position(nxt))
            return self._seal(identity, Resign(self.next_seq, self._last, after))
        after = state_hash(self._leave(p, seat))
        return self._seal(identity, Resign(self.next_seq, self._last, after))

    def make_timeout(self, identity: Identity) -> bytes:
        """Return the signed claim that the seat to move ran out of time."""
        p, _ = self._position_and_seat(identity)
        g = self._s.secret
        if g is not None:
            nxt = g.clone()
            self._secret_concede(nxt, Timeout(0, b"", p.to_move, b""), p.to_move)
            after = state_hash(decided_position(nxt))
            return self._seal(identity, Timeout(self.next_seq, self._last, p.to_move, after))
        after = state_hash(self._leave(p, p.to_move))
        return self._seal(identity, Timeout(self.next_seq, self._last, p.to_move, after))

    def make_offer(self, identity: Identity, kind: str) -> bytes:
        """Return the signed offer: ``kind`` is ``draw``, ``abort`` or ``takeback``."""
        return self._seal(identity, Offer(self.next_seq, self._last, kind))

    @property
    def takeback_offer(self) -> TakebackOffer | None:
        """The open takeback offer, if any: who asks, the turn, who has yet to accept."""
        s = self._s
        o, u, p = s.offer, s.undo, s.position
        if o is None or o.kind != "takeback" or u is None or p is None:
            return None
        active = self._active_slots(p)
        return TakebackOffer(
            o.seq,
            self._seat_of_slot(u.slot),
            u.action,
            tuple(sorted(self._seat_of_slot(x) for x in o.accepted)),
            tuple(sorted(self._seat_of_slot(x) for x in active - o.accepted)),
        )

    def open_offer(self, public_key: bytes) -> tuple[str, int] | None:
        """The open offer ``public_key`` may still accept: its kind and record number, or None.

        None when no offer is open, or when this key made or already accepted it.
        """
        s = self._s
        o = s.offer
        if o is None or public_key not in s.keys or s.keys.index(public_key) in o.accepted:
            return None
        return o.kind, o.seq

    def can_ask_takeback(self, public_key: bytes) -> bool:
        """Whether ``public_key`` may sign a takeback offer as the next record."""
        s = self._s
        if s.header is None or s.position is None or self.is_over or s.results:
            return False
        if "takeback" not in s.header.options or s.pending or public_key not in s.keys:
            return False
        u = s.undo
        o = s.offer
        if o is not None and o.kind == "takeback":
            return False
        return u is not None and u.seq == s.last_act and s.keys[u.slot] == public_key

    @property
    def last_turn(self) -> tuple[int, str] | None:
        """The seat and text of the last act if it may still be taken back (else ``None``)."""
        u = self._s.undo
        return None if u is None else (self._seat_of_slot(u.slot), u.action)

    def make_accept(self, identity: Identity) -> bytes:
        """Return the signed acceptance of the open offer."""
        o = self._s.offer
        if o is None:
            raise IllegalTurnError("there is no open offer to accept")
        return self._seal(identity, Accept(self.next_seq, self._last, o.kind, o.seq))

    def make_ask(self, identity: Identity, asked: str) -> bytes:
        """Return ``identity``'s signed ask record (SPEC.md 8.4; not checked here)."""
        return self._seal(identity, Ask(self.next_seq, self._last, asked))

    def make_answer(self, identity: Identity, answer: str) -> bytes:
        """Return ``identity``'s signed answer record (SPEC.md 8.4; not checked here)."""
        return self._seal(identity, Answer(self.next_seq, self._last, answer))

    @property
    def open_ask(self) -> tuple[int, str] | None:
        """The seat (0-based) owing an answer and the text it was asked at, or None."""
        return self._s.asked

    @property
    def answered(self) -> tuple[Choice, ...]:
        """The choices other seats signed in the turn now being played (SPEC.md 8.4)."""
        return self._s.answered

    @property
    def asks(self) -> bool:
        """Whether this log's protocol carries other seats' choices as records (3 and later)."""
        h = self._s.header
        return h is not None and h.protocol >= 3

    def make_chat(self, identity: Identity, text: str) -> bytes:
        """Return ``identity``'s signed chat record saying ``text`` (not checked here)."""
        return self._seal(identity, Chat(self.next_seq, self._last, text))

    def can_chat(self) -> bool:
        """Whether a chat record may come next: the header allows chat, the draw is done."""
        s = self._s
        return (
            s.header is not None
            and "chat" in s.header.options
            and s.position is not None
            and not s.results
        )

    def make_result(self, identity: Identity) -> bytes:
        """Return ``identity``'s signed result record of the finished game."""
        res = self.result
        if res is None:
            raise IllegalTurnError("the game is not over")
        return self._seal(identity, Result(self.next_seq, self._last, res[0], res[1], self._s.hash))

    def _position_and_seat(self, identity: Identity) -> tuple[Position, int]:
        p = self._s.position
        seat = self.seat_of(identity.public_key)
        if p is None or seat is None:
            raise IllegalTurnError("no position yet, or the identity holds no seat")
        return p, seat


@lru_cache(maxsize=4096)
def _action_of(text: str) -> Action:
    """Return the action ``text`` writes, which must be its canonical text (SPEC.md 2).

    Cached: the text alone decides it, and the same few hundred turn texts recur in every
    game. Errors are not cached.

    Raises:
        RecordError: the text does not parse, or is not the canonical form.
    """
    try:
        action = parse_action(text)
    except NotationError as e:
        raise RecordError(f"action text {text!r} does not parse: {e.reason}") from None
    if format_action(action) != text:
        raise RecordError(f"action text {text!r} is not canonical ({format_action(action)!r})")
    return action


def _replay_error(e: WireError | DesyncError | IllegalTurnError, index: int) -> ReplayError:
    """The ``ReplayError`` that reports ``e`` at record ``index``."""
    if isinstance(e, WireError):
        e.record = index
        return ReplayError(e.reason, index)
    if isinstance(e, DesyncError):
        reason = (
            f"state hash mismatch: the record says {short_hex(e.actual)}, the engine gives "
            f"{short_hex(e.expected)}"
        )
        return ReplayError(reason, index)
    return ReplayError(str(e), index)


def _party_header(h: Header) -> tuple[int, bool]:
    """``(every, agora)`` of a Party or Agora header (SECRET.md 10, 11); ``(0, False)`` else.

    Raises:
        RecordError: a ``pass=K`` without ``party`` or a ``party`` without one, K not 1 to 99
            in plain decimal, Party with Agora or secret gods, a selection other than random,
            a takeback option, Agora not of 4 players, or a god the mode does not offer.
    """
    passes = [o for o in h.options if o.startswith(PASS_OPTION)]
    party, agora = "party" in h.options, "agora" in h.options
    if not party and not agora:
        if passes:
            raise RecordError("header: the option pass=K needs the option party")
        return 0, False
    if party and agora:
        raise RecordError("header: party and agora are different games")
    if SECRET_OPTION in h.options:
        mode = "party" if party else "agora"
        raise RecordError(f"header: {mode} with secret gods is refused: {NOT_WITH_SECRET[mode]}")
    if h.gods != "random":
        raise RecordError(f"header: party and agora deal the gods at random, not by {h.gods}")
    if "takeback" in h.options:
        raise RecordError("header: party and agora allow no takeback")
    bad = [g for g in game_pool(h) if g not in (AGORA_GODS if agora else PARTY_POOL)]
    if bad:
        raise RecordError(f"header: {bad[0]} is not offered in {'Agora' if agora else 'Party'}")
    if agora:
        if h.players != 4 or passes:
            raise RecordError("header: agora is 4 players and no passing")
        return 0, True
    text = passes[0][len(PASS_OPTION) :] if len(passes) == 1 else ""
    if text not in [str(k) for k in range(1, MAX_PASS + 1)]:
        raise RecordError("header: party needs one option pass=K, K from 1 to 99")
    return int(text), False


def _check_secret_header(h: Header) -> None:
    """A header with secret gods (SECRET.md 5, 12): a random deal from a secret pool.

    Raises:
        RecordError: another god selection, a takeback option, or a pool the deal refuses.
    """
    if h.gods != "random":
        raise RecordError(f"header: secret gods are dealt at random, not by {h.gods}")
    if "takeback" in h.options:
        raise RecordError("header: a game with secret gods allows no takeback")
    try:
        SecretGame(game_pool(h), h.players)
    except ValueError as e:
        raise RecordError(f"header: {e}") from None


def _without(items: tuple[int, ...], item: int) -> tuple[int, ...]:
    return tuple(x for x in items if x != item)


def _kind(msg: Message) -> str:
    return type(msg).__name__.lower()


def validate(envelopes: Iterable[bytes]) -> Validator:
    """Fold ``envelopes`` through a fresh ``Validator`` and return it.

    Raises:
        ReplayError: the first bad record, by number.
    """
    v = Validator()
    for raw in envelopes:
        v.feed(raw)
    return v


# -- the replay file ------------------------------------------------------------------------
