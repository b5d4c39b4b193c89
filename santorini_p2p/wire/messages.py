"""Record bodies: one frozen dataclass per message type, and their canonical bytes.

Every body is a positional msgpack array ``[type, seq, prev, field...]`` (protocol/SPEC.md
section 7): ``type`` is the tag below, ``seq`` the record's index in its log (the header is 0),
``prev`` the chain hash of the record before (32 zero bytes in the header).

| tag | class | fields after ``prev`` |
| --- | --- | --- |
| 0 | ``Header`` | game_id, protocol, created_ms, seats, gods, move_ms, bank_ms, options [, pool] |
| 1 | ``Commit`` | commitment |
| 2 | ``Reveal`` | nonce |
| 3 | ``Act`` | action text, clock_ms, state_hash |
| 4 | ``Ack`` | acked seq, state_hash |
| 5 | ``Resign`` | state_hash |
| 6 | ``Timeout`` | seat, state_hash |
| 7 | ``Offer`` | kind (``draw``, ``abort``, or ``takeback`` in protocol 2) |
| 8 | ``Accept`` | kind, offer seq |
| 9 | ``Result`` | winner seat or -1, reason, state_hash |
| 10 | ``Chat`` | text (protocol 2, in a game whose header lists the option ``chat``) |
| 11 | ``Ask`` | the mover's turn so far, where another seat chooses (protocol 3) |
| 12 | ``Answer`` | that seat's choice: ``+sq``, or ``-`` for none (protocol 3) |

Public API: the classes, ``Message`` (their union), ``encode_body(message) -> bytes`` and
``decode_body(data) -> Message``, which checks the shape and the type and size of every field
and raises only ``WireError`` subclasses. Whether a record is allowed where it stands is the
log's business (``santorini_p2p.wire.log``), not this module's.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import ClassVar, Final, TypeAlias

from santorini_p2p.errors import DecodeError, VersionError
from santorini_p2p.wire.codec import MAX_RECORD_BYTES, Value, decode_read, encode

__all__ = [
    "GOD_MODES",
    "HASH_BYTES",
    "MAX_ACTION_CHARS",
    "MAX_ANSWER_CHARS",
    "MAX_CHAT_CHARS",
    "OFFER_KINDS",
    "OPTIONS",
    "PROTOCOL_2_OPTIONS",
    "PROTOCOL_VERSION",
    "PROTOCOL_VERSIONS",
    "REASONS",
    "START_OPTION",
    "Accept",
    "Ack",
    "Act",
    "Answer",
    "Ask",
    "Chat",
    "Commit",
    "Header",
    "Message",
    "Offer",
    "Resign",
    "Result",
    "Reveal",
    "Seat",
    "Timeout",
    "decode_body",
    "encode_body",
    "start_slot",
]

PROTOCOL_VERSION: Final = 3
"""The newest protocol version this program speaks (header field ``protocol``, SPEC.md 10).

Version 2 adds the header's last field, ``pool``, the options ``chat`` and ``takeback``, the
offer kind ``takeback`` and the chat record; a game of the ten simple gods with neither option
is written as version 1, which every earlier reader verifies. Version 3, written only for a
pool with a god that chooses in another seat's turn (Gaea), adds the ask and answer records
(SPEC.md 8.4); its header has version 2's fields."""
PROTOCOL_VERSIONS: Final = (1, 2, 3)
"""Every header version this program reads."""
HASH_BYTES: Final = 32
GAME_ID_BYTES: Final = 16
NONCE_BYTES: Final = 32
MAX_ACTION_CHARS: Final = 64
"""The longest action text a record may carry."""
GOD_MODES: Final = ("none", "challenger", "draft", "random")
OFFER_KINDS: Final = ("draw", "abort", "takeback")
"""What an offer may be: to end the game (``draw``, ``abort``) or to take back the signer's
last turn (``takeback``, protocol 2, in a game whose header lists the option)."""
REASONS: Final = ("win", "resign", "time", "draw", "abort")
"""How a game ended, as a result record states it."""
OPTIONS: Final = ("chat", "snake", "takeback")
"""The rule options a header may list (sorted, no repeats)."""

PROTOCOL_2_OPTIONS: Final = ("chat", "takeback")
"""The options only a protocol 2 header may list: ``chat`` allows chat records, ``takeback``
takeback offers."""

MAX_CHAT_CHARS: Final = 200
"""The longest line a chat record may carry."""
START_OPTION: Final = "start="
"""The prefix of the option ``start=K``: slot K (0-based) is seat 1, in place of the draw.

A rematch writes it (SPEC.md 11): the draw of the start slot is replaced by the rotation."""
_U63: Final = 2**63 - 1


@dataclass(frozen=True, slots=True)
class Seat:
    """One player in a header: public key (32 bytes) and display name."""

    public_key: bytes
    name: str


@dataclass(frozen=True, slots=True)
class Header:
    """Record 0: who plays, how gods are chosen, the time control and rule options.

    ``seats`` are in join order (slots); the commit-reveal draw then picks which slot becomes
    seat 1. ``move_ms`` and ``bank_ms`` are the time per move and the bank (0 and 0: untimed).
    ``created_ms`` is wall-clock time, for information only. ``pool`` (protocol 2 only) is the
    gods the game draws from, in god order; empty in protocol 1, whose pool is the ten simple
    gods.
    """

    TYPE: ClassVar[int] = 0
    seq: int
    prev: bytes
    game_id: bytes
    protocol: int
    created_ms: int
    seats: tuple[Seat, ...]
    gods: str
    move_ms: int
    bank_ms: int
    options: tuple[str, ...] = ()
    pool: tuple[str, ...] = ()

    @property
    def players(self) -> int:
        """The number of players (one seat each)."""
        return len(self.seats)


@dataclass(frozen=True, slots=True)
class Commit:
    """A slot's commitment to its random nonce (SPEC.md section 11)."""

    TYPE: ClassVar[int] = 1
    seq: int
    prev: bytes
    commitment: bytes


@dataclass(frozen=True, slots=True)
class Reveal:
    """A slot reveals the nonce it committed to."""

    TYPE: ClassVar[int] = 2
    seq: int
    prev: bytes
    nonce: bytes


@dataclass(frozen=True, slots=True)
class Act:
    """An action of the seat to move: a god offer or pick, a start seat, a placement, a turn.

    ``action`` is the canonical action text (SPEC.md section 2), ``clock_ms`` the mover's clock
    reading: the milliseconds the move took. ``state_hash`` is the state hash after it.
    """

    TYPE: ClassVar[int] = 3
    seq: int
    prev: bytes
    action: str
    clock_ms: int
    state_hash: bytes


@dataclass(frozen=True, slots=True)
class Ack:
    """A seat confirms record ``acked`` and the state hash it reached by applying it."""

    TYPE: ClassVar[int] = 4
    seq: int
    prev: bytes
    acked: int
    state_hash: bytes


@dataclass(frozen=True, slots=True)
class Resign:
    """The signer resigns; ``state_hash`` is the state after it."""

    TYPE: ClassVar[int] = 5
    seq: int
    prev: bytes
    state_hash: bytes


@dataclass(frozen=True, slots=True)
class Timeout:
    """The signer states that ``seat`` (0-based, the seat to move) ran out of time."""

    TYPE: ClassVar[int] = 6
    seq: int
    prev: bytes
    seat: int
    state_hash: bytes


@dataclass(frozen=True, slots=True)
class Offer:
    """An offer: to end the game by agreement (``draw``, ``abort``) or a takeback.

    ``kind`` ``takeback`` asks to take back the signer's last turn (SPEC.md 8.2).
    """

    TYPE: ClassVar[int] = 7
    seq: int
    prev: bytes
    kind: str


@dataclass(frozen=True, slots=True)
class Accept:
    """The signer accepts the standing offer made in record ``offer``."""

    TYPE: ClassVar[int] = 8
    seq: int
    prev: bytes
    kind: str
    offer: int


@dataclass(frozen=True, slots=True)
class Result:
    """The final result, which every seat signs: ``winner`` seat (0-based) or -1, and why."""

    TYPE: ClassVar[int] = 9
    seq: int
    prev: bytes
    winner: int
    reason: str
    state_hash: bytes


@dataclass(frozen=True, slots=True)
class Chat:
    """A line the signer says to the other players; it changes nothing in the game."""

    TYPE: ClassVar[int] = 10
    seq: int
    prev: bytes
    text: str


@dataclass(frozen=True, slots=True)
class Ask:
    """The mover's turn so far (``asked``), at a point where another seat chooses (protocol 3).

    Signed by the seat to move; the seat that chooses there owes the :class:`Answer`.
    """

    TYPE: ClassVar[int] = 11
    seq: int
    prev: bytes
    asked: str


@dataclass(frozen=True, slots=True)
class Answer:
    """The choice a seat makes in another seat's turn: ``+sq`` or ``-`` (protocol 3)."""

    TYPE: ClassVar[int] = 12
    seq: int
    prev: bytes
    answer: str


MAX_ANSWER_CHARS: Final = 16
"""The longest answer a record may carry."""


Message: TypeAlias = (
    Header
    | Commit
    | Reveal
    | Act
    | Ack
    | Resign
    | Timeout
    | Offer
    | Accept
    | Result
    | Chat
    | Ask
    | Answer
)
"""Any record body."""

_NAMES: Final = (
    "header",
    "commit",
    "reveal",
    "act",
    "ack",
    "resign",
    "timeout",
    "offer",
    "accept",
    "result",
    "chat",
    "ask",
    "answer",
)


def _to_value(m: Message) -> tuple[Value, ...]:
    head: tuple[Value, ...] = (m.TYPE, m.seq, m.prev)
    match m:
        case Header():
            seats = tuple((s.public_key, s.name) for s in m.seats)
            return (
                *head,
                m.game_id,
                m.protocol,
                m.created_ms,
                seats,
                m.gods,
                m.move_ms,
                m.bank_ms,
                m.options,
                # Only protocol 2 has the field: a protocol 1 header is what it always was,
                # byte for byte.
                *((m.pool,) if m.protocol >= 2 else ()),
            )
        case Commit():
            return (*head, m.commitment)
        case Reveal():
            return (*head, m.nonce)
        case Act():
            return (*head, m.action, m.clock_ms, m.state_hash)
        case Ack():
            return (*head, m.acked, m.state_hash)
        case Resign():
            return (*head, m.state_hash)
        case Timeout():
            return (*head, m.seat, m.state_hash)
        case Offer():
            return (*head, m.kind)
        case Accept():
            return (*head, m.kind, m.offer)
        case Result():
            return (*head, m.winner, m.reason, m.state_hash)
        case Chat():
            return (*head, m.text)
        case Ask():
            return (*head, m.asked)
        case Answer():
            return (*head, m.answer)


def encode_body(message: Message) -> bytes:
    """Return the canonical bytes of a record body."""
    return encode(_to_value(message))


class _Fields:
    """Typed access to a body's fields, naming the field in every error."""

    __slots__ = ("kind", "values")

    def __init__(self, kind: str, values: tuple[Value, ...]) -> None:
        self.kind = kind
        self.values = values

    def fail(self, i: int, what: str, got: Value) -> DecodeError:
        shown = repr(got)
        shown = shown if len(shown) <= 40 else shown[:37] + "..."
        return DecodeError(f"{self.kind} field {i}: expected {what}, got {shown}")

    def uint(self, i: int, top: int = _U63) -> int:
        v = self.values[i]
        if type(v) is not int or not 0 <= v <= top:
            raise self.fail(i, f"an integer 0..{top}", v)
        return v

    def int_(self, i: int, low: int, top: int) -> int:
        v = self.values[i]
        if type(v) is not int or not low <= v <= top:
            raise self.fail(i, f"an integer {low}..{top}", v)
        return v

    def bin(self, i: int, size: int) -> bytes:
        v = self.values[i]
        if type(v) is not bytes or len(v) != size:
            raise self.fail(i, f"{size} bytes of binary", v)
        return v

    def text(self, i: int, limit: int) -> str:
        v = self.values[i]
        if type(v) is not str or len(v) > limit:
            raise self.fail(i, f"text of at most {limit} characters", v)
        return v

    def array(self, i: int) -> tuple[Value, ...]:
        v = self.values[i]
        if type(v) is not tuple:
            raise self.fail(i, "an array", v)
        return v


_ARITY: Final = (11, 4, 4, 6, 5, 4, 5, 4, 5, 6, 4, 4, 4)


def _seats(f: _Fields, i: int) -> tuple[Seat, ...]:
    raw = f.array(i)
    if not 1 <= len(raw) <= 4:
        raise f.fail(i, "1 to 4 seats", len(raw))
    seats = []
    for entry in raw:
        if (
            type(entry) is not tuple
            or len(entry) != 2
            or type(entry[0]) is not bytes
            or len(entry[0]) != 32
            or type(entry[1]) is not str
        ):
            raise f.fail(i, "seats as [32-byte public key, name]", entry)
        seats.append(Seat(entry[0], entry[1]))
    return tuple(seats)


def _pool(f: _Fields, i: int) -> tuple[str, ...]:
    raw = f.array(i)
    if len(raw) > 64 or any(type(g) is not str or len(g) > 32 for g in raw):
        raise f.fail(i, "at most 64 god names", raw)
    return tuple(str(g) for g in raw)


def start_slot(options: tuple[str, ...], players: int) -> int | None:
    """Return the slot an option ``start=K`` names, None without one.

    Raises:
        ValueError: a ``start=`` option that is not one slot 0..players-1 in plain decimal.
    """
    found = [o for o in options if o.startswith(START_OPTION)]
    if not found:
        return None
    text = found[0][len(START_OPTION) :]
    if len(found) > 1 or text not in [str(i) for i in range(players)]:
        raise ValueError(
            f"option {found[-1]!r}: expected one start=K with K a slot 0..{players - 1}"
        )
    return int(text)


def _options(f: _Fields, i: int) -> tuple[str, ...]:
    raw = f.array(i)
    if len(raw) > 8 or any(type(o) is not str or len(o) > 32 for o in raw):
        raise f.fail(i, "at most 8 option names", raw)
    return tuple(str(o) for o in raw)


def _act_or_ack(value: object) -> Act | Ack | None:
    """The two records of every turn, when well-formed, read without ``_Fields`` (speed).

    ``value`` may be anything msgpack decodes: a result is returned only when the exact type
    of every field has been checked (``codec.decode_read``). None when ``value`` is anything
    else, or a malformed act or ack: the general path then reads it and names the bad field.
    """
    if type(value) is not tuple:
        return None
    n = len(value)
    if n != 5 and n != 6:
        return None
    tag, seq, prev, digest = value[0], value[1], value[2], value[-1]
    if not (
        type(tag) is int
        and type(seq) is int
        and 0 <= seq <= _U63
        and type(prev) is bytes
        and len(prev) == HASH_BYTES
        and type(digest) is bytes
        and len(digest) == HASH_BYTES
    ):
        return None
    if n == 6 and tag == 3:
        action, clock_ms = value[3], value[4]
        if (
            type(action) is str
            and len(action) <= MAX_ACTION_CHARS
            and type(clock_ms) is int
            and 0 <= clock_ms <= _U63
        ):
            return Act(seq, prev, action, clock_ms, digest)
    elif n == 5 and tag == 4:
        acked = value[3]
        if type(acked) is int and 0 <= acked <= _U63:
            return Ack(seq, prev, acked, digest)
    return None


def from_value(value: Value) -> Message:
    """Return the message a decoded body value describes.

    Raises:
        DecodeError: not an array of a known type with fields of the right types and sizes.
    """
    if type(value) is not tuple or not value:
        raise DecodeError("body: expected an array [type, seq, prev, ...]")
    fast = _act_or_ack(value)
    return fast if fast is not None else _from_fields(value)


def _from_fields(value: tuple[Value, ...]) -> Message:
    """``from_value`` field by field, naming the first bad one."""
    tag = value[0]
    if type(tag) is not int or not 0 <= tag < len(_NAMES):
        raise DecodeError(f"body: unknown record type {tag!r}")
    kind = _NAMES[tag]
    arity = _ARITY[tag]
    if tag == 0 and len(value) > 4 and type(value[4]) is int:
        # The version decides the header's shape, so it is read first: a header of a version
        # this program does not know, or not of its version's shape, is refused by its number.
        version = value[4]
        if version not in PROTOCOL_VERSIONS:
            raise VersionError(
                f"unsupported protocol version {version} (this program speaks "
                f"{', '.join(map(str, PROTOCOL_VERSIONS))})"
            )
        arity += min(version, 2) - 1
        if len(value) != arity:
            raise VersionError(f"header: protocol {version} has {arity} fields, got {len(value)}")
    if len(value) != arity:
        raise DecodeError(f"{kind}: expected {arity} fields, got {len(value)}")
    f = _Fields(kind, value)
    seq = f.uint(1)
    prev = f.bin(2, HASH_BYTES)
    h = HASH_BYTES
    match tag:
        case 0:
            return Header(
                seq,
                prev,
                f.bin(3, GAME_ID_BYTES),
                f.uint(4),
                f.uint(5),
                _seats(f, 6),
                f.text(7, 16),
                f.uint(8),
                f.uint(9),
                _options(f, 10),
                _pool(f, 11) if len(value) == 12 else (),
            )
        case 1:
            return Commit(seq, prev, f.bin(3, h))
        case 2:
            return Reveal(seq, prev, f.bin(3, NONCE_BYTES))
        case 3:
            return Act(seq, prev, f.text(3, MAX_ACTION_CHARS), f.uint(4), f.bin(5, h))
        case 4:
            return Ack(seq, prev, f.uint(3), f.bin(4, h))
        case 5:
            return Resign(seq, prev, f.bin(3, h))
        case 6:
            return Timeout(seq, prev, f.uint(3, 3), f.bin(4, h))
        case 7:
            return Offer(seq, prev, f.text(3, 16))
        case 8:
            return Accept(seq, prev, f.text(3, 16), f.uint(4))
        case 9:
            return Result(seq, prev, f.int_(3, -1, 3), f.text(4, 16), f.bin(5, h))
        case 10:
            return Chat(seq, prev, f.text(3, MAX_CHAT_CHARS))
        case 11:
            return Ask(seq, prev, f.text(3, MAX_ACTION_CHARS))
        case _:
            return Answer(seq, prev, f.text(3, MAX_ANSWER_CHARS))


def decode_body(data: bytes) -> Message:
    """Decode a record body from untrusted bytes.

    Raises:
        WireError: ``TooLargeError``, ``DecodeError`` or ``NonCanonicalError``.
    """
    got: Act | Ack | Value = decode_read(data, _act_or_ack, MAX_RECORD_BYTES)
    if isinstance(got, Act | Ack):
        return got
    return from_value(got)
