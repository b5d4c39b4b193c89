"""The frames peers exchange around the log: hello, welcome, refuse, record, status, stop.

Records are the game; frames only carry them and say who is who (protocol/SESSION.md). Each
frame is one canonical msgpack array (``wire.codec``) whose first element is its tag:

| tag | frame | fields |
| --- | --- | --- |
| 1 | ``Hello`` | protocol, public key, name, game id (empty when new), records held, signature |
| 2 | ``Welcome`` | protocol, game id, players, gods, move, bank, options, host key, host name |
| 3 | ``Refuse`` | reason |
| 4 | ``RecordFrame`` | index, envelope bytes |
| 5 | ``Status`` | records held (the acknowledgement that drives resending) |
| 6 | ``Stop`` | reason, record index, state hash here, state hash claimed |
| 7 | ``Who`` | (none): the host asks an unknown connection to say hello again |

``decode_frame`` takes untrusted bytes and raises only ``WireError`` subclasses.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Final, TypeAlias

from santorini_p2p.errors import DecodeError, SignatureError
from santorini_p2p.wire.codec import MAX_RECORD_BYTES, Value, decode, encode
from santorini_p2p.wire.identity import Identity, check_name, verify

__all__ = [
    "HELLO_DOMAIN",
    "MAX_FRAME_BYTES",
    "Frame",
    "Hello",
    "RecordFrame",
    "Refuse",
    "Status",
    "Stop",
    "Welcome",
    "Who",
    "decode_frame",
    "encode_frame",
    "sign_hello",
]

MAX_FRAME_BYTES: Final = MAX_RECORD_BYTES + 64
"""The largest frame: one record envelope plus the frame's own fields."""
HELLO_DOMAIN: Final = b"santorini-p2p/1 hello\x00"
"""The prefix signed with a hello, so a hello signature can never pass for a record's."""
_MAX_TEXT: Final = 400
_MAX_INDEX: Final = 2**31


@dataclass(frozen=True, slots=True)
class Hello:
    """A joining peer introduces itself; ``game_id`` is empty for a new game."""

    protocol: int
    public_key: bytes
    name: str
    game_id: bytes
    have: int
    signature: bytes

    def signed_bytes(self) -> bytes:
        """The bytes the signature covers: the domain, then the other fields encoded."""
        fields = (self.protocol, self.public_key, self.name, self.game_id, self.have)
        return HELLO_DOMAIN + encode(fields)

    def is_signed(self) -> bool:
        """Return whether the signature is the key's over :meth:`signed_bytes`."""
        return verify(self.public_key, self.signature, self.signed_bytes())


def sign_hello(identity: Identity, protocol: int, game_id: bytes, have: int) -> Hello:
    """Return a hello from ``identity``, signed."""
    unsigned = Hello(protocol, identity.public_key, identity.name, game_id, have, b"")
    return Hello(
        protocol,
        identity.public_key,
        identity.name,
        game_id,
        have,
        identity.sign(unsigned.signed_bytes()),
    )


@dataclass(frozen=True, slots=True)
class Welcome:
    """The host's game offer, sent in answer to a hello while seats are free."""

    protocol: int
    game_id: bytes
    players: int
    gods: str
    move_ms: int
    bank_ms: int
    options: tuple[str, ...]
    host_key: bytes
    host_name: str


@dataclass(frozen=True, slots=True)
class Refuse:
    """A peer will not play: the reason, worded for the screen."""

    reason: str


@dataclass(frozen=True, slots=True)
class RecordFrame:
    """One record of the log, at ``index``, as its exact envelope bytes."""

    index: int
    envelope: bytes


@dataclass(frozen=True, slots=True)
class Status:
    """How many records the sender holds: an acknowledgement, and a request for the rest."""

    have: int


@dataclass(frozen=True, slots=True)
class Stop:
    """The sender stopped the game: why, at which record, and the two state hashes."""

    reason: str
    index: int
    mine: bytes
    theirs: bytes


@dataclass(frozen=True, slots=True)
class Who:
    """The host does not know this connection (it restarted): say hello again."""


Frame: TypeAlias = Hello | Welcome | Refuse | RecordFrame | Status | Stop | Who
"""Any frame."""


def encode_frame(frame: Frame) -> bytes:
    """Return the canonical bytes of ``frame``."""
    value: tuple[Value, ...]
    match frame:
        case Hello():
            value = (
                1,
                frame.protocol,
                frame.public_key,
                frame.name,
                frame.game_id,
                frame.have,
                frame.signature,
            )
        case Welcome():
            value = (
                2,
                frame.protocol,
                frame.game_id,
                frame.players,
                frame.gods,
                frame.move_ms,
                frame.bank_ms,
                frame.options,
                frame.host_key,
                frame.host_name,
            )
        case Refuse():
            value = (3, frame.reason[:_MAX_TEXT])
        case RecordFrame():
            value = (4, frame.index, frame.envelope)
        case Status():
            value = (5, frame.have)
        case Stop():
            value = (6, frame.reason[:_MAX_TEXT], frame.index, frame.mine, frame.theirs)
        case Who():
            value = (7,)
    return encode(value)


def _uint(v: Value, what: str, top: int = _MAX_INDEX) -> int:
    if type(v) is not int or not 0 <= v <= top:
        raise DecodeError(f"frame: {what}: expected an integer 0..{top}, got {v!r:.40}")
    return v


def _bin(v: Value, what: str, sizes: tuple[int, ...]) -> bytes:
    if type(v) is not bytes or len(v) not in sizes:
        raise DecodeError(f"frame: {what}: expected {'/'.join(map(str, sizes))} bytes")
    return v


def _text(v: Value, what: str) -> str:
    if type(v) is not str or len(v) > _MAX_TEXT:
        raise DecodeError(f"frame: {what}: expected text of at most {_MAX_TEXT} characters")
    return v


_ARITY: Final = {1: 7, 2: 10, 3: 2, 4: 3, 5: 2, 6: 5, 7: 1}


def decode_frame(data: bytes) -> Frame:
    """Decode a frame from untrusted bytes; a hello's signature is checked here.

    Raises:
        WireError: not a well-formed frame (``DecodeError``, ``TooLargeError``,
            ``NonCanonicalError``), or a hello whose signature fails (``SignatureError``).
    """
    v = decode(data, MAX_FRAME_BYTES)
    if type(v) is not tuple or not v or type(v[0]) is not int or v[0] not in _ARITY:
        raise DecodeError("frame: expected an array with a known tag")
    tag = v[0]
    if len(v) != _ARITY[tag]:
        raise DecodeError(f"frame {tag}: expected {_ARITY[tag]} fields, got {len(v)}")
    match tag:
        case 1:
            name = _text(v[3], "name")
            try:
                check_name(name)
            except ValueError as e:
                raise DecodeError(f"frame: hello: {e}") from None
            hello = Hello(
                _uint(v[1], "protocol"),
                _bin(v[2], "public key", (32,)),
                name,
                _bin(v[4], "game id", (0, 16)),
                _uint(v[5], "have"),
                _bin(v[6], "signature", (64,)),
            )
            if not hello.is_signed():
                raise SignatureError("hello: the signature does not verify")
            return hello
        case 2:
            opts = v[7]
            if type(opts) is not tuple or any(type(o) is not str for o in opts):
                raise DecodeError("frame: welcome: options must be text")
            return Welcome(
                _uint(v[1], "protocol"),
                _bin(v[2], "game id", (16,)),
                _uint(v[3], "players", 4),
                _text(v[4], "gods"),
                _uint(v[5], "move ms", 2**40),
                _uint(v[6], "bank ms", 2**40),
                tuple(str(o) for o in opts),
                _bin(v[8], "host key", (32,)),
                _text(v[9], "host name"),
            )
        case 3:
            return Refuse(_text(v[1], "reason"))
        case 4:
            env = v[2]
            if type(env) is not bytes:
                raise DecodeError("frame: record: expected the envelope as binary")
            return RecordFrame(_uint(v[1], "index"), env)
        case 5:
            return Status(_uint(v[1], "have"))
        case 7:
            return Who()
        case _:
            return Stop(
                _text(v[1], "reason"),
                _uint(v[2], "index"),
                _bin(v[3], "state hash", (0, 32)),
                _bin(v[4], "state hash", (0, 32)),
            )
