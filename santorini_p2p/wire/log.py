"""The signed, hash-chained game log: the one reader, writer and validator (SPEC.md 4-9).

A log is a sequence of envelopes ``[version, signer, body, signature]`` (``seal`` builds one);
record 0 is the header, and every later record carries the chain hash of the record before.
A replay file, and a journal on disk, is a magic prefix then the length-prefixed envelopes
(a journal of a game in progress is followed by zeros written ahead, SPEC.md section 9).

Public API:

- ``seal(identity, message) -> bytes``: sign a body and return the envelope bytes;
  ``open_envelope(raw) -> Envelope`` decodes one without checking the signature;
  ``chain_hash(raw) -> bytes`` is BLAKE2b-256 of the exact envelope bytes;
  ``verify_envelope(raw) -> (Envelope, Message)`` runs every check that needs no log.
- ``Validator``: the incremental fold. ``feed(raw) -> Record`` checks one envelope (size,
  decoding, version, signature over the exact bytes, chain, the signer's right to the record,
  legality in the engine, the state hash) and applies it; on any failure it raises
  ``ReplayError`` whose ``record_index`` is the record's number and whose ``__cause__`` is the
  specific error (a ``WireError`` subclass, ``IllegalTurnError`` or ``DesyncError``), and the
  validator is left as it was. State: ``header``, ``position`` (``None`` until every slot has
  revealed), ``seats`` (public keys in seat order), ``names``, ``clocks`` (bank ms per seat),
  ``pending_acks``, ``records``, ``next_seq``, ``last_hash``, ``turns``, ``is_over``,
  ``is_complete``, ``result``. ``expected_signers()`` says who may sign the next record.
  ``make_*`` methods build the next record for an identity (not fed: feed it, journal it,
  send it).
- ``make_header(game_id, seats, ...) -> Header``: record 0 of a new game (the host seals it).
- ``validate(envelopes) -> Validator``: fold a whole log.
- ``encode_frames(envelopes) -> bytes`` / ``iter_frames(data)``: the replay file format;
  ``read_log(data, complete=True) -> Validator``: read and check a replay file or journal,
  reporting the first bad record by number (framing errors included, in order).
- ``Journal``: the live log on disk; ``Journal.create(path, header_envelope)``,
  ``Journal.open(path)`` (reads and verifies what is there, for resume), ``append(raw, own=)``
  (validates and writes; fsyncs a peer's own record but an ack or result), ``validator``,
  ``close()`` (cuts off the zeros written ahead, as does completing the log).
"""

from __future__ import annotations

import errno
import gc
import os
from collections.abc import Iterable, Iterator
from contextlib import contextmanager, suppress
from dataclasses import dataclass, field
from functools import lru_cache
from pathlib import Path
from typing import Final, NamedTuple, Self, TypeAlias, cast

from santorini_p2p.engine import (
    Action,
    GodMode,
    NameStart,
    Position,
    Turn,
    apply_action,
    end_by_agreement,
    format_action,
    format_position,
    lose_on_time,
    new_game,
    outcome,
    parse_action,
    resign,
    state_hash,
)
from santorini_p2p.engine.hashing import blake2b_256
from santorini_p2p.errors import (
    ChainError,
    DecodeError,
    DesyncError,
    IllegalTurnError,
    JournalInUseError,
    NotationError,
    RecordError,
    ReplayError,
    SignatureError,
    StorageError,
    TooLargeError,
    VersionError,
    WireError,
)
from santorini_p2p.wire.codec import MAX_RECORD_BYTES, decode, encode
from santorini_p2p.wire.draw import commitment, draw_seed, draw_setup
from santorini_p2p.wire.identity import (
    Identity,
    check_name,
    count_verified,
    fingerprint,
    verify,
)
from santorini_p2p.wire.messages import (
    GOD_MODES,
    OFFER_KINDS,
    OPTIONS,
    PROTOCOL_VERSION,
    Accept,
    Ack,
    Act,
    Commit,
    Header,
    Message,
    Offer,
    Resign,
    Result,
    Reveal,
    Seat,
    Timeout,
    decode_body,
    encode_body,
)
from santorini_p2p.wire.storage import cannot_write

__all__ = [
    "ENVELOPE_VERSION",
    "FILE_MAGIC",
    "FILE_VERSION",
    "MAX_RECORDS",
    "SIGNING_DOMAIN",
    "ZERO_HASH",
    "Envelope",
    "Journal",
    "Record",
    "Validator",
    "chain_hash",
    "encode_frames",
    "iter_frames",
    "make_header",
    "open_envelope",
    "read_log",
    "scan_journal",
    "seal",
    "signing_input",
    "validate",
    "verify_envelope",
]

ENVELOPE_VERSION: Final = 1
SIGNING_DOMAIN: Final = b"santorini-p2p/1 record\x00"
"""Prefix of the signed bytes, so a record signature is never valid for anything else."""
FILE_MAGIC: Final = b"SNTR"
FILE_VERSION: Final = 1
MAX_RECORDS: Final = 20_000
"""The longest log, in records (SPEC.md section 9)."""
ZERO_HASH: Final = bytes(32)
_HEAD: Final = FILE_MAGIC + bytes([FILE_VERSION])


def _short(h: bytes) -> str:
    return h.hex()[:16]


def chain_hash(raw: bytes) -> bytes:
    """Return the chain hash of an envelope: BLAKE2b-256 of its exact bytes."""
    return blake2b_256(raw)


def signing_input(body: bytes) -> bytes:
    """Return the bytes a record signature covers: ``SIGNING_DOMAIN || body``."""
    return SIGNING_DOMAIN + body


@dataclass(frozen=True, slots=True)
class Envelope:
    """A decoded envelope: version, signer public key, body bytes, signature."""

    version: int
    signer: bytes
    body: bytes
    signature: bytes


def seal(identity: Identity, message: Message) -> bytes:
    """Sign ``message`` with ``identity`` and return the canonical envelope bytes."""
    body = encode_body(message)
    sig = identity.sign(signing_input(body))
    return encode((ENVELOPE_VERSION, identity.public_key, body, sig))


_ENVELOPE_START: Final = b"\x94\x01\xc4\x20"
"""A canonical version-1 envelope begins: array of 4, version 1, bin8 of 32 bytes (the key)."""
_SIGNATURE_HEAD: Final = b"\xc4\x40"


def _split(raw: bytes) -> tuple[bytes, bytes, bytes]:
    """Return ``(signer, body, signature)`` of envelope bytes, checked as ``open_envelope``.

    A canonical version-1 envelope has one fixed layout (SPEC.md section 6), so it is read by
    its bytes without building and re-encoding msgpack values; anything else goes through the
    general decoder, which names what is wrong.
    """
    n = len(raw)
    if type(raw) is bytes and 104 <= n <= MAX_RECORD_BYTES and raw[:4] == _ENVELOPE_START:
        # The body is bin8 below 256 bytes and bin16 from 256 (the smallest form).
        kind = raw[36]
        if kind == 0xC4:
            at, size = 38, raw[37]
        elif kind == 0xC5:
            at, size = 39, raw[37] << 8 | raw[38]
        else:
            at, size = 0, 0
        end = at + size
        if (
            at
            and (size >= 256) == (at == 39)
            and end + 66 == n
            and raw[end : end + 2] == _SIGNATURE_HEAD
        ):
            return raw[4:36], raw[at:end], raw[end + 2 :]
    env = _open_general(raw)
    return env.signer, env.body, env.signature


def open_envelope(raw: bytes) -> Envelope:
    """Decode envelope bytes and check their shape and version (not the signature).

    Raises:
        WireError: ``TooLargeError``, ``DecodeError``, ``NonCanonicalError`` or
            ``VersionError``.
    """
    signer, body, sig = _split(raw)
    return Envelope(ENVELOPE_VERSION, signer, body, sig)


def _open_general(raw: bytes) -> Envelope:
    """``open_envelope`` through the general canonical decoder."""
    value = decode(raw, MAX_RECORD_BYTES)
    if type(value) is not tuple or len(value) != 4:
        raise DecodeError("envelope: expected an array [version, signer, body, signature]")
    version, signer, body, sig = value
    if type(version) is not int:
        raise DecodeError(f"envelope: version must be an integer, got {version!r}")
    if version != ENVELOPE_VERSION:
        raise VersionError(
            f"unsupported envelope version {version} (this program speaks {ENVELOPE_VERSION})"
        )
    if type(signer) is not bytes or len(signer) != 32:
        raise DecodeError("envelope: the signer must be a 32-byte public key")
    if type(body) is not bytes:
        raise DecodeError("envelope: the body must be binary")
    if type(sig) is not bytes or len(sig) != 64:
        raise DecodeError("envelope: the signature must be 64 bytes")
    return Envelope(version, signer, body, sig)


def verify_envelope(raw: bytes) -> tuple[Envelope, Message]:
    """Check one envelope on its own: size, decoding, version, signature, then the body.

    This is every check that needs no log (SPEC.md section 8, steps 1, 2, 4 and 5).

    Raises:
        WireError: ``TooLargeError``, ``DecodeError``, ``NonCanonicalError``,
            ``VersionError`` or ``SignatureError``.
    """
    env = open_envelope(raw)
    if not verify(env.signer, env.signature, signing_input(env.body)):
        raise SignatureError(f"bad signature (signer {fingerprint(env.signer)})")
    return env, decode_body(env.body)


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


_PENDING: Final = _State._fields.index("pending")


def _with_pending(s: _State, pending: tuple[int, ...]) -> _State:
    """``s._replace(pending=pending)``, three times cheaper (one ack per action goes here)."""
    return tuple.__new__(_State, (*s[:_PENDING], pending, *s[_PENDING + 1 :]))


def make_header(
    game_id: bytes,
    seats: Iterable[tuple[bytes, str]],
    *,
    gods: GodMode = "none",
    move_ms: int = 0,
    bank_ms: int = 0,
    options: Iterable[str] = (),
    created_ms: int = 0,
) -> Header:
    """Return a header record (seq 0) for a new game; the host (slot 0) seals it."""
    return Header(
        0,
        ZERO_HASH,
        game_id,
        PROTOCOL_VERSION,
        created_ms,
        tuple(Seat(k, n) for k, n in seats),
        gods,
        move_ms,
        bank_ms,
        tuple(sorted(set(options))),
    )


class Validator:
    """The incremental fold of a log: feed envelopes one by one, read the game state."""

    def __init__(self) -> None:
        self._s = _State()
        self._records: list[Record] = []
        self._last = ZERO_HASH
        # The last action made here: (position before, action text, position after, hash),
        # so feeding that record back does not play and hash it again (a pure function).
        self._made: tuple[Position, str, Position, bytes] | None = None
        # The last record sealed here and its message: fed back as this peer's own record
        # (``verified``), its body is not decoded again.
        self._sealed: tuple[bytes, Message] | None = None

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
        p = self._s.position
        return p is not None and p.winner >= 0

    @property
    def is_complete(self) -> bool:
        """Whether every seat has signed the result: the log is a finished replay."""
        h = self._s.header
        return h is not None and len(self._s.results) == h.players

    @property
    def result(self) -> tuple[int, str] | None:
        """``(winner seat or -1, reason)`` once the game is over, else ``None``."""
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
        if s.pending:
            return (s.keys[s.pending[0]],)
        assert s.position is not None
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
            record, state = self._check(bytes(raw), index, verified)
        except (WireError, DesyncError, IllegalTurnError) as e:
            raise _replay_error(e, index) from e
        self._records.append(record)
        self._s = state
        self._last = record.hash
        return record

    def _feed_opened(self, opened: _Opened) -> None:
        """``feed`` for a record already opened and signature-checked by ``_open_all``."""
        index = len(self._records)
        raw, signer, msg, digest = opened
        try:
            if index >= MAX_RECORDS:
                raise TooLargeError(f"a log may hold at most {MAX_RECORDS} records")
            if index > 0 and signer not in self._s.keys:
                raise SignatureError(f"signed by {fingerprint(signer)}, which holds no seat")
            record, state = self._fold(raw, index, signer, msg, digest)
        except (WireError, DesyncError, IllegalTurnError) as e:
            raise _replay_error(e, index) from e
        self._records.append(record)
        self._s = state
        self._last = digest

    def _check(self, raw: bytes, index: int, verified: bool = False) -> tuple[Record, _State]:
        if index >= MAX_RECORDS:
            raise TooLargeError(f"a log may hold at most {MAX_RECORDS} records")
        if len(raw) > MAX_RECORD_BYTES:
            raise TooLargeError(f"{len(raw)} bytes is over the limit of {MAX_RECORD_BYTES}")
        signer, body, signature = _split(raw)
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

    def _fold(
        self, raw: bytes, index: int, signer: bytes, msg: Message, digest: bytes
    ) -> tuple[Record, _State]:
        """Check a decoded record against the log so far: chain, signer's right, the rules."""
        s = self._s
        if msg.prev != self._last:
            if index == 0:
                raise ChainError("the header's previous-record hash must be all zeros")
            raise ChainError(
                f"broken chain: previous-record hash {_short(msg.prev)} is not the hash "
                f"{_short(self._last)} of record {index - 1}"
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
            kind = type(msg)
            if kind is Act and s.position is not None and not s.results:
                state = self._act(cast(Act, msg), slot)
            elif kind is Ack and s.pending and not s.results:
                state = self._ack(cast(Ack, msg), slot)
            else:
                state = self._step(msg, slot, index)
        seat = None if not s.seat_slots else s.seat_slots.index(slot)
        return Record(index, raw, digest, signer, slot, seat, msg), state

    def _header(self, msg: Message, signer: bytes) -> _State:
        if not isinstance(msg, Header):
            raise RecordError(f"record 0 must be the header, got {type(msg).__name__.lower()}")
        if msg.protocol != PROTOCOL_VERSION:
            raise VersionError(
                f"unsupported protocol version {msg.protocol} (this program speaks "
                f"{PROTOCOL_VERSION})"
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
            if opt not in OPTIONS:
                raise RecordError(f"header: unknown rule option {opt!r}")
        if msg.move_ms == 0 and msg.bank_ms != 0:
            raise RecordError("header: a bank needs a time per move")
        return _State(header=msg, keys=keys, banks=(msg.bank_ms,) * len(keys))

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
        start, drawn = draw_setup(draw_seed(h.game_id, nonces), h.players, h.gods)
        p = new_game(h.players, cast(GodMode, h.gods), snake="snake" in h.options, drawn=drawn)
        slots = tuple((start + i) % h.players for i in range(h.players))
        return s._replace(
            nonces=nonces, position=p, hash=state_hash(p), seat_slots=slots, drawn=drawn
        )

    def _playing(self, what: str) -> Position:
        p = self._s.position
        assert p is not None
        if p.winner >= 0:  # over
            raise RecordError(f"{what} after the game is over")
        return p

    def _active_slots(self, p: Position, order: tuple[int, ...] = ()) -> frozenset[int]:
        order = order or self._s.seat_slots
        gone = p.eliminated if p.players == 3 else 0
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
        p = self._playing("an action")
        if s.pending:
            owing = ", ".join(str(self._seat_of_slot(i) + 1) for i in s.pending)
            raise RecordError(f"an action before seat {owing} acknowledged record {s.last_act}")
        mover = p.to_move
        if s.seat_slots[mover] != slot:
            raise SignatureError(
                f"signed by seat {self._seat_of_slot(slot) + 1}, but seat {mover + 1} is to move"
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
                q = apply_action(p, action)
            except IllegalTurnError:
                kind = "turn" if isinstance(action, Turn) else "action"
                raise IllegalTurnError(
                    f"illegal {kind} {msg.action!r} by seat {mover + 1} in {format_position(p)}"
                ) from None
            digest = self._check_hash(msg.state_hash, q)
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
                gone = q.eliminated if m == 3 else 0
                after = ((here + i) % m for i in range(1, m))
                pending = tuple(seat_slots[j] for j in after if not gone >> j & 1)
        # Positional, not _replace: this runs for half of all records and is 3x cheaper.
        return _State(
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
        )

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
        return _with_pending(s, s.pending[1:])

    def _resign(self, msg: Resign, slot: int) -> _State:
        s = self._s
        p = self._playing("a resignation")
        if slot not in self._active_slots(p):
            raise SignatureError(f"signed by slot {slot + 1}, which is no longer playing")
        q = resign(p, s.seat_slots.index(slot))
        digest = self._check_hash(msg.state_hash, q)
        return s._replace(
            position=q,
            hash=digest,
            pending=_without(s.pending, slot),
            offer=None,
            ended="resign" if q.winner >= 0 else s.ended,
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
        q = lose_on_time(p, msg.seat)
        digest = self._check_hash(msg.state_hash, q)
        return s._replace(
            position=q,
            hash=digest,
            pending=_without(s.pending, loser),
            offer=None,
            ended="time" if q.winner >= 0 else s.ended,
        )

    def _offer(self, msg: Offer, slot: int) -> _State:
        p = self._playing("an offer")
        if msg.kind not in OFFER_KINDS:
            raise RecordError(f"unknown offer {msg.kind!r} (expected draw or abort)")
        if slot not in self._active_slots(p):
            raise SignatureError(f"signed by slot {slot + 1}, which is no longer playing")
        return self._s._replace(offer=_Offer(msg.kind, msg.seq, frozenset({slot})))

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
        if accepted >= active:
            q = end_by_agreement(p)
            return s._replace(position=q, hash=state_hash(q), offer=None, ended=o.kind, pending=())
        return s._replace(offer=_Offer(o.kind, o.seq, accepted))

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
        a = parse_action(action) if isinstance(action, str) else action
        q = apply_action(p, a)
        text = format_action(a)
        digest = state_hash(q)
        self._made = (p, text, q, digest)
        return self._seal(identity, Act(self.next_seq, self._last, text, clock_ms, digest))

    def make_ack(self, identity: Identity) -> bytes:
        """Return the signed acknowledgement of the last action."""
        return self._seal(identity, Ack(self.next_seq, self._last, self._s.last_act, self._s.hash))

    def make_resign(self, identity: Identity) -> bytes:
        """Return the signed resignation of ``identity``'s seat.

        Raises:
            IllegalTurnError: the seat cannot resign now.
        """
        p, seat = self._position_and_seat(identity)
        return self._seal(identity, Resign(self.next_seq, self._last, state_hash(resign(p, seat))))

    def make_timeout(self, identity: Identity) -> bytes:
        """Return the signed claim that the seat to move ran out of time."""
        p, _ = self._position_and_seat(identity)
        after = state_hash(lose_on_time(p, p.to_move))
        return self._seal(identity, Timeout(self.next_seq, self._last, p.to_move, after))

    def make_offer(self, identity: Identity, kind: str) -> bytes:
        """Return the signed offer to end the game: ``kind`` is ``draw`` or ``abort``."""
        return self._seal(identity, Offer(self.next_seq, self._last, kind))

    def make_accept(self, identity: Identity) -> bytes:
        """Return the signed acceptance of the open offer."""
        o = self._s.offer
        if o is None:
            raise IllegalTurnError("there is no open offer to accept")
        return self._seal(identity, Accept(self.next_seq, self._last, o.kind, o.seq))

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
            f"state hash mismatch: the record says {_short(e.actual)}, the engine gives "
            f"{_short(e.expected)}"
        )
        return ReplayError(reason, index)
    return ReplayError(str(e), index)


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


def encode_frames(envelopes: Iterable[bytes]) -> bytes:
    """Return a replay file: ``SNTR``, version byte 1, then each envelope with a length prefix."""
    parts = [_HEAD]
    for raw in envelopes:
        parts.append(len(raw).to_bytes(4, "big"))
        parts.append(raw)
    return b"".join(parts)


def _check_magic(data: bytes) -> None:
    if len(data) < len(_HEAD) or data[:4] != FILE_MAGIC:
        raise DecodeError("not a replay file (no SNTR magic)")
    if data[4] != FILE_VERSION:
        raise VersionError(
            f"unsupported replay file version {data[4]} (this program reads {FILE_VERSION})"
        )


def iter_frames(data: bytes, *, padded: bool = False) -> Iterator[bytes]:
    """Yield the envelopes of a replay file in order; errors come when their record is reached.

    ``padded``: ``data`` is a journal on disk, which may end in zero bytes (the space a
    journal keeps written ahead, SPEC.md section 9): they end the log. Without it they are an
    error, since a replay file (a finished journal) has none.

    Raises:
        WireError: not a replay file or an unsupported version (``record`` None), an
            oversized record (``TooLargeError``), or a truncated one (``DecodeError``); the
            error's ``record`` is the number of the record that could not be read.
    """
    _check_magic(data)
    at = len(_HEAD)
    index = 0
    end = len(data)
    while at < end:
        if index >= MAX_RECORDS:
            raise TooLargeError(f"a log may hold at most {MAX_RECORDS} records", index)
        if end - at < 4:
            raise DecodeError(f"truncated file: {end - at} bytes of a length prefix", index)
        size = int.from_bytes(data[at : at + 4], "big")
        at += 4
        if size > MAX_RECORD_BYTES:
            raise TooLargeError(
                f"record length {size} is over the limit of {MAX_RECORD_BYTES}", index
            )
        if size == 0:
            if _zeros_from(data, at - 4):
                if padded:
                    return
                raise DecodeError(
                    "zero bytes after the last record: the journal of a game in progress or "
                    "cut short (a finished journal ends at its last record)",
                    index,
                )
            raise DecodeError("empty record", index)
        if end - at < size:
            raise DecodeError(
                f"truncated file: the record needs {size} bytes, {end - at} left", index
            )
        yield data[at : at + size]
        at += size
        index += 1


def _zeros_from(data: bytes, at: int) -> bool:
    """Whether every byte of ``data`` from ``at`` on is zero."""
    return data.count(0, at) == len(data) - at


def _torn(data: bytes, at: int, raw: bytes) -> bool:
    """Whether the bad frame ``raw`` at ``at`` is the last, its end lost to a power cut.

    A journal's zeros are written ahead of its records, so a record whose last pages never
    reached the disk reads as that record's start, then zeros to the end of the file.
    """
    end = at + 4 + len(raw)
    return raw.endswith(b"\0") and _zeros_from(data, end)


_Opened: TypeAlias = tuple[bytes, bytes, Message, bytes]
"""A record opened ahead of the fold: exact bytes, signer, message and chain hash."""


def _open_all(frames: list[bytes]) -> list[_Opened]:
    """Open, decode and signature-check the leading records of ``frames`` that pass.

    Stops at the first record that fails any of these checks (``feed`` then reports it).
    """
    opened: list[_Opened] = []
    signed: list[tuple[bytes, bytes, bytes]] = []
    for raw in frames:
        try:
            signer, body, signature = _split(raw)
            msg = decode_body(body)
        except WireError:
            break
        opened.append((raw, signer, msg, chain_hash(raw)))
        signed.append((signer, signature, SIGNING_DOMAIN + body))
    good = count_verified(signed)
    return opened if good == len(opened) else opened[:good]


def read_log(data: bytes, *, complete: bool = True) -> Validator:
    """Read and check a whole replay file (or, with ``complete=False``, a journal on disk).

    Raises:
        ReplayError: the first bad record by number (``record_index`` None when the file is
            not a replay file at all); with ``complete``, a log that ends before every seat
            signed the result fails at the index one past its last record.
    """
    with _collector_paused():
        return _read_log(data, complete)


@contextmanager
def _collector_paused() -> Iterator[None]:
    """Pause Python's cyclic garbage collector for a bulk read, then restore it.

    A log is read into many small objects that all stay alive and form no cycles; the
    collector would scan them again and again as they pile up, which costs about a third
    of the checks other than signatures (benchmarks/replay.py).
    """
    enabled = gc.isenabled()
    gc.disable()
    try:
        yield
    finally:
        if enabled:
            gc.enable()


def _read_log(data: bytes, complete: bool) -> Validator:
    frames: list[bytes] = []
    unreadable: WireError | None = None
    try:
        frames.extend(iter_frames(data, padded=not complete))
    except WireError as e:
        unreadable = e
    # In stages, each a tight loop: open and decode every envelope, check every signature,
    # then fold. Interleaved, each check costs more (benchmarks/replay.py). Stages stop at the
    # first record they cannot pass, which is then fed whole so that the first bad record is
    # reported with its own error, in the order feed checks.
    opened = _open_all(frames)
    v = Validator()
    try:
        for item in opened:
            v._feed_opened(item)
        for raw in frames[len(opened) :]:
            v.feed(raw)
    except WireError as e:
        raise ReplayError(e.reason, e.record) from e
    if unreadable is not None:
        raise ReplayError(unreadable.reason, unreadable.record) from unreadable
    if complete and not v.is_complete:
        n = v.next_seq
        reason = "truncated: the log ends before every seat signed the result"
        err = RecordError(reason, n)
        raise ReplayError(reason, n) from err
    return v


def scan_journal(data: bytes) -> tuple[Validator, int]:
    """Verify a journal's bytes as a resume reads them; return the log and its length.

    What a crash can leave after the last whole record is not part of the log: a frame cut
    short, the zeros written ahead, a last record whose end read back as zeros.

    Raises:
        ReplayError: not a journal (no magic), or a record is bad.
    """
    v = Validator()
    good = len(_HEAD)
    try:
        for raw in iter_frames(data, padded=True):
            try:
                v.feed(raw)
            except ReplayError:
                if not _torn(data, good, raw):
                    raise
                break
            good += 4 + len(raw)
    except WireError as e:
        if not (isinstance(e, DecodeError) and e.reason.startswith("truncated")):
            raise ReplayError(e.reason, e.record) from e
    return v, good


def _sync_directory(directory: Path) -> None:
    """Make a new file's directory entry durable too (POSIX; elsewhere a no-op)."""
    if os.name != "posix":
        return
    try:
        fd = os.open(directory, os.O_RDONLY)
    except OSError:
        return
    try:
        os.fsync(fd)
    except OSError:
        pass
    finally:
        os.close(fd)


# -- the journal ------------------------------------------------------------------------------


JOURNAL_RESERVE: Final = 1 << 16
"""Bytes of zeros a journal keeps written ahead of its last record (64 KiB, a whole game of
two players or most of one of four). Writing a record over them leaves the file's size and
blocks as they were, so the flush before a record is sent (``fdatasync``) writes the record
and no file-system metadata: a quarter less time, and a shorter tail (benchmarks/net.py)."""


def _lock(fd: int, path: Path) -> None:
    """Hold an exclusive lock on the open journal ``fd`` until it is closed (or the process ends).

    Two processes writing one journal would sign two different records with the same number,
    so a second one is refused. ``flock`` where the system has it; elsewhere, and on a file
    system that keeps no locks (some network mounts), no lock is taken.

    Raises:
        JournalInUseError: another process holds the journal open.
    """
    try:
        import fcntl
    except ImportError:  # pragma: no cover - Windows
        return
    try:
        fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
    except BlockingIOError:
        os.close(fd)
        raise JournalInUseError(
            f"{path}: this game is open in another santorini process; play it there, "
            "or end that process first"
        ) from None
    except OSError:  # ENOLCK and the like: play on without the lock
        return


def _sync_data(fd: int) -> None:
    """Flush ``fd``'s data, and the metadata needed to read it back, to stable storage."""
    sync = getattr(os, "fdatasync", None)  # not on macOS or Windows: fsync there
    (sync or os.fsync)(fd)


@dataclass(slots=True)
class Journal:
    """The live log on disk: each appended record is checked and written at once.

    A peer's own record (``own=True``) is fsynced before ``append`` returns: it must be on disk
    before it is sent, so that a crash can never make the peer sign a different record with
    the same number. Acknowledgements and results are the exception: each is a function of the
    records before it, and Ed25519 signatures are deterministic, so signing one again after a
    crash gives the same bytes (SESSION.md section 8). They, and records received from another
    peer, only need to reach the operating system (that survives the process being killed; a
    record lost to a power cut is signed again or sent again on resume); the next fsynced
    record, or ``close``, makes them durable too.

    While the game is open the file ends in up to ``JOURNAL_RESERVE`` zero bytes after the
    last record (``iter_frames(..., padded=True)`` reads it); the journal is cut to its last
    record as soon as the log is complete, and when it is closed.

    An open journal is locked: opening it again (``open``), from another process
    too, raises :class:`JournalInUseError` until this one is closed or its process ends.
    """

    path: Path
    validator: Validator
    _fd: int = field(repr=False)
    _end: int = field(repr=False)
    """Where the next frame goes: the length of the log's bytes."""
    _reserved: int = field(default=0, repr=False)
    """The file's length: ``_end`` and the zeros after it."""
    _unsynced: bool = field(default=False, repr=False)
    _broken: bool = field(default=False, repr=False)

    @classmethod
    def create(cls, path: Path | str, header: bytes) -> Self:
        """Create a new journal at ``path`` (which must not exist) starting with ``header``.

        A kill at any instant leaves either no journal at ``path`` or one that holds the
        header: the magic, the header and the zeros ahead are written to a temporary file
        beside it and fsynced, and only then is that file linked into place (``path`` is
        never replaced) and the directory fsynced. A temporary file a kill left behind is
        named ``.<name>.<pid>.new``; nothing reads it.

        Raises:
            ReplayError: the header record is bad.
            FileExistsError: ``path`` exists.
            OSError: the file cannot be written (a full disk, no permission).
        """
        v = Validator()
        v.feed(header)
        path = Path(path)
        if path.exists():
            raise FileExistsError(errno.EEXIST, "the journal exists", str(path))
        tmp = path.with_name(f".{path.name}.{os.getpid()}.new")
        try:
            fd = os.open(
                tmp, os.O_WRONLY | os.O_CREAT | os.O_TRUNC | getattr(os, "O_BINARY", 0), 0o600
            )
        except OSError as e:
            raise cannot_write("the journal", path, e) from None
        _lock(fd, tmp)  # a name of this process's own: only a lock-less file system fails
        try:
            j = cls(path, v, fd, 0)
            j._write(_HEAD + len(header).to_bytes(4, "big") + header)
            try:
                os.link(tmp, path)
            except FileExistsError:
                raise
            except OSError:  # a file system without hard links: checked above, then renamed
                os.replace(tmp, path)
        except BaseException as e:
            os.close(fd)
            with suppress(OSError):
                tmp.unlink(missing_ok=True)
            if isinstance(e, OSError) and not isinstance(e, FileExistsError):
                raise cannot_write("the journal", path, e) from None
            raise
        tmp.unlink(missing_ok=True)
        _sync_directory(path.parent)
        return j

    @classmethod
    def open(cls, path: Path | str) -> Self:
        """Open an existing journal to resume: read it, verify every record, append after.

        What a crash can leave after the last whole record is dropped: a frame cut short, or
        (after a power cut) a last record whose end never reached the disk, read as zeros.

        Raises:
            ReplayError: a record is bad (the game cannot resume from this journal).
            JournalInUseError: another process has the journal open.
        """
        fd = os.open(path, os.O_WRONLY | getattr(os, "O_BINARY", 0))
        _lock(fd, Path(path))
        try:
            return cls._read(Path(path), fd)
        except BaseException:
            os.close(fd)
            raise

    @classmethod
    def _read(cls, path: Path, fd: int) -> Self:
        """Verify the journal at ``path`` (locked, open as ``fd``) and cut what a crash left."""
        v, good = scan_journal(path.read_bytes())
        os.ftruncate(fd, good)
        return cls(path, v, fd, good, good)

    @staticmethod
    def in_use(path: Path) -> bool:
        """Whether another process holds the journal at ``path`` open (and locked)."""
        try:
            fd = os.open(path, os.O_RDONLY | getattr(os, "O_BINARY", 0))
        except OSError:
            return False
        try:
            _lock(fd, path)
        except JournalInUseError:
            return True  # _lock has closed fd
        os.close(fd)
        return False

    def _write(self, data: bytes, *, sync: bool = True) -> None:
        end = self._end + len(data)
        if end > self._reserved:
            # Zeros ahead, written (not only allocated: an allocated block that is written to
            # for the first time costs a metadata update at the flush again).
            self._put(self._reserved, bytes(end + JOURNAL_RESERVE - self._reserved))
            self._reserved = end + JOURNAL_RESERVE
        self._put(self._end, data)
        self._end = end
        if sync:
            _sync_data(self._fd)
        self._unsynced = not sync

    def _put(self, at: int, data: bytes) -> None:
        os.lseek(self._fd, at, os.SEEK_SET)  # os.pwrite is not on every system
        view = memoryview(data)
        while view:
            done = os.write(self._fd, view)
            view = view[done:]

    def _cut(self) -> None:
        """Drop the zeros after the last record: the file is a replay file again."""
        os.ftruncate(self._fd, self._end)
        self._reserved = self._end

    def append(self, raw: bytes, *, own: bool = False) -> Record:
        """Check ``raw`` as the next record, then write it; return the record.

        ``own``: this process has just signed ``raw`` (``Validator.feed``'s ``verified``);
        unless it is an acknowledgement or a result, it is fsynced before this returns.
        The record that completes the log also cuts the zeros off the end of the file, and
        the whole file is fsynced then: a finished game is durable before it is announced.

        Raises:
            ReplayError: the record is bad; nothing is written.
            StorageError: the record could not be written (a full disk): the file keeps
                every record before it, whole, and this journal takes no more.
        """
        if self._broken:
            raise StorageError(f"the journal {self.path} could not be written before")
        rec = self.validator.feed(raw, verified=own)
        sync = own and not isinstance(rec.message, Ack | Result)
        try:
            self._write(len(raw).to_bytes(4, "big") + raw, sync=sync)
            if self.validator.is_complete:
                # The result is on disk before anyone is told the game is over.
                self._cut()
                os.fsync(self._fd)
                self._unsynced = False
        except OSError as e:
            # The validator holds a record the file may not: this journal takes no more,
            # and ``close`` cuts the file to its last whole record.
            self._broken = True
            raise cannot_write("the journal", self.path, e) from None
        return rec

    def close(self) -> None:
        """Cut the zeros off, fsync what is not yet synced and close the file (it stays)."""
        if self._fd >= 0:
            try:
                if self._reserved > self._end or self._broken:
                    self._cut()
                    self._unsynced = True  # the new length, at least
                if self._unsynced:
                    os.fsync(self._fd)
            except OSError as e:
                raise cannot_write("the journal", self.path, e) from None
            finally:
                os.close(self._fd)
                self._fd = -1

    def __enter__(self) -> Self:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()
