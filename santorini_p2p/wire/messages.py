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
| 11 | ``Shuffle`` | cards (protocol 3, a secret deal's shuffle step: SECRET.md 3) |
| 12 | ``Strip`` | cards (protocol 3, a secret deal's strip step) |
| 13 | ``Open`` | god, key (protocol 3: the signer opens its hidden god, SECRET.md 4) |
| 14 | ``Object`` | objected seq, god, key (protocol 3: in place of an ack, SECRET.md 7.3) |
| 15 | ``Forfeit`` | late seat, reason (protocol 3: a seat withheld what it owed, SECRET.md 8) |
| 16 | ``Ask`` | the mover's turn so far, where another seat chooses (protocol 3) |
| 17 | ``Answer`` | that seat's choice: ``+sq``, or ``-`` for none (protocol 3) |

Public API: the classes, ``Message`` (their union), ``encode_body(message) -> bytes`` and
``decode_body(data) -> Message``, which checks the shape and the type and size of every field
and raises only ``WireError`` subclasses. Whether a record is allowed where it stands is the
log's business (``santorini_p2p.wire.log``), not this module's.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import ClassVar, Final, TypeAlias

from santorini_p2p.engine.frozen import quick_init
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
    "PASS_OPTION",
    "PROTOCOL_2_OPTIONS",
    "PROTOCOL_3_OPTIONS",
    "PROTOCOL_VERSION",
    "PROTOCOL_VERSIONS",
    "REASONS",
    "SECRET_OPTION",
    "SECRET_REASONS",
    "START_OPTION",
    "Accept",
    "Ack",
    "Act",
    "Answer",
    "Ask",
    "Chat",
    "Commit",
    "Forfeit",
    "Header",
    "Message",
    "Object",
    "Offer",
    "Open",
    "Resign",
    "Result",
    "Reveal",
    "Seat",
    "Shuffle",
    "Strip",
    "Timeout",
    "decode_body",
    "encode_body",
    "start_slot",
]

PROTOCOL_VERSION: Final = 3
"""The newest protocol version this program speaks (header field ``protocol``, SPEC.md 10).

Version 2 adds the header's last field, ``pool``, the options ``chat`` and ``takeback``, the
offer kind ``takeback`` and the chat record; a game of the ten simple gods with neither option
is written as version 1, which every earlier reader verifies. Version 3 adds the option
``secret`` and the records of a secret deal (types 11 to 15, SECRET.md 12), the options
``party`` and ``agora``, and the ask and answer records (types 16 and 17, SPEC.md 8.4) of a
pool with a god that chooses in another seat's turn (Gaea); only a game with one of those
options or such a god is written as version 3, with the header of version 2."""
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
REASONS: Final = ("win", "resign", "time", "draw", "abort", "forfeit", "fault")
"""How a game ended, as a result record states it (``forfeit`` and ``fault``: only in a game
with secret gods, SECRET.md 8)."""
SECRET_REASONS: Final = ("forfeit", "fault")
"""The reasons only a secret game ends by: a seat withheld a record it owed, or the audit
found a seat that broke its own god (or the deal)."""
OPTIONS: Final = ("agora", "chat", "party", "secret", "snake", "takeback")
"""The rule options a header may list (sorted, no repeats)."""

PROTOCOL_2_OPTIONS: Final = ("chat", "takeback")
"""The options only a protocol 2 header may list: ``chat`` allows chat records, ``takeback``
takeback offers."""

PROTOCOL_3_OPTIONS: Final = ("agora", "party", "secret")
"""The options only a protocol 3 header may list: ``secret`` deals the gods secretly
(SECRET.md 3), from the header's pool, in place of the draw's deal; ``party`` (with
``pass=K``) passes the cards on every K turns (SECRET.md 10); ``agora`` is the four-player
mode of shared workers where each player wins alone (SECRET.md 11)."""
SECRET_OPTION: Final = "secret"
PASS_OPTION: Final = "pass="
"""The prefix of the option ``pass=K`` of a Party game: the cards pass after every K turns."""

MAX_CHAT_CHARS: Final = 200
"""The longest line a chat record may carry."""
START_OPTION: Final = "start="
"""The prefix of the option ``start=K``: slot K (0-based) is seat 1, in place of the draw.

A rematch writes it (SPEC.md 11): the draw of the start slot is replaced by the rotation."""
_U63: Final = 2**63 - 1


@quick_init
@dataclass(frozen=True, slots=True)
class Seat:
    """One player in a header: public key (32 bytes) and display name."""

    public_key: bytes
    name: str


@quick_init
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


@quick_init
@dataclass(frozen=True, slots=True)
class Commit:
    """A slot's commitment to its random nonce (SPEC.md section 11)."""

    TYPE: ClassVar[int] = 1
    seq: int
    prev: bytes
    commitment: bytes


@quick_init
@dataclass(frozen=True, slots=True)
class Reveal:
    """A slot reveals the nonce it committed to."""

    TYPE: ClassVar[int] = 2
    seq: int
    prev: bytes
    nonce: bytes


@quick_init
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


@quick_init
@dataclass(frozen=True, slots=True)
class Ack:
    """A seat confirms record ``acked`` and the state hash it reached by applying it."""

    TYPE: ClassVar[int] = 4
    seq: int
    prev: bytes
    acked: int
    state_hash: bytes


@quick_init
@dataclass(frozen=True, slots=True)
class Resign:
    """The signer resigns; ``state_hash`` is the state after it."""

    TYPE: ClassVar[int] = 5
    seq: int
    prev: bytes
    state_hash: bytes


@quick_init
@dataclass(frozen=True, slots=True)
class Timeout:
    """The signer states that ``seat`` (0-based, the seat to move) ran out of time."""

    TYPE: ClassVar[int] = 6
    seq: int
    prev: bytes
    seat: int
    state_hash: bytes


@quick_init
@dataclass(frozen=True, slots=True)
class Offer:
    """An offer: to end the game by agreement (``draw``, ``abort``) or a takeback.

    ``kind`` ``takeback`` asks to take back the signer's last turn (SPEC.md 8.2).
    """

    TYPE: ClassVar[int] = 7
    seq: int
    prev: bytes
    kind: str


@quick_init
@dataclass(frozen=True, slots=True)
class Accept:
    """The signer accepts the standing offer made in record ``offer``."""

    TYPE: ClassVar[int] = 8
    seq: int
    prev: bytes
    kind: str
    offer: int


@quick_init
@dataclass(frozen=True, slots=True)
class Result:
    """The final result, which every seat signs: ``winner`` seat (0-based) or -1, and why."""

    TYPE: ClassVar[int] = 9
    seq: int
    prev: bytes
    winner: int
    reason: str
    state_hash: bytes


@quick_init
@dataclass(frozen=True, slots=True)
class Chat:
    """A line the signer says to the other players; it changes nothing in the game."""

    TYPE: ClassVar[int] = 10
    seq: int
    prev: bytes
    text: str


@quick_init
@dataclass(frozen=True, slots=True)
class Shuffle:
    """A seat's shuffle step of a secret deal: the deck before it, raised to its key, shuffled.

    ``cards`` are the pool's size of 256-byte group elements (SECRET.md 2 and 3).
    """

    TYPE: ClassVar[int] = 11
    seq: int
    prev: bytes
    cards: tuple[bytes, ...]


@quick_init
@dataclass(frozen=True, slots=True)
class Strip:
    """A seat's strip step: the hand with the signer's layer taken off every card but its own."""

    TYPE: ClassVar[int] = 12
    seq: int
    prev: bytes
    cards: tuple[bytes, ...]


@quick_init
@dataclass(frozen=True, slots=True)
class Open:
    """The signer opens its hidden god: the name and its deal key (32 bytes, SECRET.md 4)."""

    TYPE: ClassVar[int] = 13
    seq: int
    prev: bytes
    god: str
    key: bytes


@quick_init
@dataclass(frozen=True, slots=True)
class Object:
    """In place of an ack: the signer opens ``god`` and says act ``objected`` breaks it."""

    TYPE: ClassVar[int] = 14
    seq: int
    prev: bytes
    objected: int
    god: str
    key: bytes


@quick_init
@dataclass(frozen=True, slots=True)
class Forfeit:
    """The signer records that seat ``late`` (0-based) withheld a record it owed past its time."""

    TYPE: ClassVar[int] = 15
    seq: int
    prev: bytes
    late: int
    reason: str


@quick_init
@dataclass(frozen=True, slots=True)
class Ask:
    """The mover's turn so far (``asked``), at a point where another seat chooses (protocol 3).

    Signed by the seat to move; the seat that chooses there owes the :class:`Answer`.
    """

    TYPE: ClassVar[int] = 16
    seq: int
    prev: bytes
    asked: str


@quick_init
@dataclass(frozen=True, slots=True)
class Answer:
    """The choice a seat makes in another seat's turn: ``+sq`` or ``-`` (protocol 3)."""

    TYPE: ClassVar[int] = 17
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
    | Shuffle
    | Strip
    | Open
    | Object
    | Forfeit
    | Ask
    | Answer
)
"""Any record body."""

CARD_BYTES: Final = 256
"""A card of a secret deal: a group element, big-endian (SECRET.md 2)."""
MAX_CARDS: Final = 14
"""The most cards a shuffle or strip carries (the largest secret pool, SECRET.md 5)."""
KEY_BYTES: Final = 32
"""A deal key's exponent, as an opening carries it."""
MAX_REASON_CHARS: Final = 64
"""The longest reason a forfeit record carries."""

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
    "shuffle",
    "strip",
    "open",
    "object",
    "forfeit",
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
        case Shuffle() | Strip():
            return (*head, m.cards)
        case Open():
            return (*head, m.god, m.key)
        case Object():
            return (*head, m.objected, m.god, m.key)
        case Forfeit():
            return (*head, m.late, m.reason)
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


_ARITY: Final = (11, 4, 4, 6, 5, 4, 5, 4, 5, 6, 4, 4, 4, 5, 6, 5, 4, 4)


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
        arity += 1 if version >= 2 else 0  # version 3 keeps version 2's header
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
            return Shuffle(seq, prev, _cards(f, 3))
        case 12:
            return Strip(seq, prev, _cards(f, 3))
        case 13:
            return Open(seq, prev, f.text(3, 32), f.bin(4, KEY_BYTES))
        case 14:
            return Object(seq, prev, f.uint(3), f.text(4, 32), f.bin(5, KEY_BYTES))
        case 15:
            return Forfeit(seq, prev, f.uint(3, 3), f.text(4, MAX_REASON_CHARS))
        case 16:
            return Ask(seq, prev, f.text(3, MAX_ACTION_CHARS))
        case _:
            return Answer(seq, prev, f.text(3, MAX_ANSWER_CHARS))


def _cards(f: _Fields, i: int) -> tuple[bytes, ...]:
    raw = f.array(i)
    if not 1 <= len(raw) <= MAX_CARDS or any(
        type(c) is not bytes or len(c) != CARD_BYTES for c in raw
    ):
        raise f.fail(i, f"1 to {MAX_CARDS} cards of {CARD_BYTES} bytes", len(raw))
    return tuple(bytes(c) for c in raw if type(c) is bytes)


def decode_body(data: bytes) -> Message:
    """Decode a record body from untrusted bytes.

    Raises:
        WireError: ``TooLargeError``, ``DecodeError`` or ``NonCanonicalError``.
    """
    if type(data) is bytes:
        fast = _act_or_ack_bytes(data)
        if fast is not None:
            return fast
    got: Act | Ack | Value = decode_read(data, _act_or_ack, MAX_RECORD_BYTES)
    if isinstance(got, Act | Ack):
        return got
    return from_value(got)


_BIN32: Final = b"\xc4\x20"
"""The head of a 32-byte binary in its canonical (bin8) form."""


def _act_or_ack_bytes(b: bytes) -> Act | Ack | None:
    """An act or ack body in its one canonical layout, read by its bytes (speed).

    Nine records in ten are acts and acks: read straight from their bytes, they skip
    unpacking, the type checks and packing again to compare. Only an exact canonical body
    with every field in range is read here: an array of 6 (or 5) items, tag 3 (or 4), each
    integer in its smallest form, the hashes as bin8 of 32 bytes, the action as fixstr or
    str8 of valid UTF-8 of at most ``MAX_ACTION_CHARS`` characters. None for anything else,
    which :func:`decode_body`'s general path then reads, or refuses with its own error.
    """
    try:
        head = b[0]
        if head == 0x95 and b[1] == Ack.TYPE:
            seq, at = _canonical_uint(b, 2)
            if seq < 0 or b[at : at + 2] != _BIN32:
                return None
            prev = b[at + 2 : at + 34]
            acked, at = _canonical_uint(b, at + 34)
            if acked < 0 or b[at : at + 2] != _BIN32 or len(b) != at + 34:
                return None
            return Ack(seq, prev, acked, b[at + 2 :])
        if head == 0x96 and b[1] == Act.TYPE:
            seq, at = _canonical_uint(b, 2)
            if seq < 0 or b[at : at + 2] != _BIN32:
                return None
            prev = b[at + 2 : at + 34]
            at += 34
            c = b[at]
            if 0xA0 <= c <= 0xBF:  # fixstr: below 32 bytes
                size, at = c - 0xA0, at + 1
            elif c == 0xD9 and b[at + 1] >= 32:  # str8: 32 to 255 bytes
                size, at = b[at + 1], at + 2
            else:
                return None
            action = b[at : at + size].decode("utf-8")
            if len(action) > MAX_ACTION_CHARS or at + size > len(b):
                return None
            clock_ms, at = _canonical_uint(b, at + size)
            if clock_ms < 0 or b[at : at + 2] != _BIN32 or len(b) != at + 34:
                return None
            return Act(seq, prev, action, clock_ms, b[at + 2 :])
    except (IndexError, UnicodeDecodeError):
        return None
    return None


def _canonical_uint(b: bytes, at: int) -> tuple[int, int]:
    """The unsigned integer at ``at`` in its smallest msgpack form, at most 2**63 - 1.

    Returns the value and where the next item starts, or (-1, 0) for any other form.

    Raises:
        IndexError: the bytes end inside the integer.
    """
    c = b[at]
    if c < 0x80:  # positive fixint
        return c, at + 1
    if c == 0xCC:
        v = b[at + 1]
        ok = v >= 0x80
        end = at + 2
    elif c == 0xCD:
        end = at + 3
        v = int.from_bytes(b[at + 1 : end], "big")
        ok = v >= 0x100
    elif c == 0xCE:
        end = at + 5
        v = int.from_bytes(b[at + 1 : end], "big")
        ok = v >= 0x10000
    elif c == 0xCF:
        end = at + 9
        v = int.from_bytes(b[at + 1 : end], "big")
        ok = 0x100000000 <= v <= _U63
    else:
        return -1, 0
    if not ok or end > len(b):
        return -1, 0
    return v, end
