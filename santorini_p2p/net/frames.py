"""The frames peers exchange around the log: hello, the handshake, records, status, stop.

Records are the game; frames only carry them and say who is who (protocol/SESSION.md). Each
frame is one canonical msgpack array (``wire.codec``) whose first element is its tag:

| tag | frame | fields |
| --- | --- | --- |
| 1 | ``Hello`` | protocol, public key, name, game id (empty when new), records held, signature |
| 2 | ``Welcome`` | protocol, game id, players, gods, move, bank, options, host key, host name,
|   |             | pool |
| 3 | ``Refuse`` | reason [, signature] |
| 4 | ``RecordFrame`` | index, envelope bytes |
| 5 | ``Status`` | records held (the acknowledgement that drives resending), clock ms |
| 6 | ``Stop`` | reason, record index, state hash here, state hash claimed, signature |
| 7 | ``Who`` | (none): the host asks an unknown connection to say hello again |
| 8 | ``Challenge`` | host nonce, host key: the host asks a connection to prove its key |
| 9 | ``Proof`` | joiner nonce, signature: the joiner's answer, and its own challenge |
| 10 | ``Proven`` | signature: the host's answer to the joiner's nonce |
| 11 | ``Rematch`` | finished game id, slots asking, slots declining, signature |
| 12 | ``Watch`` | protocol, nonce, game id (empty: any), records held, name: a spectator |
| 13 | ``Cheer`` | text, name, spectator key, signature: a spectator's chat line |
| 14 | ``Refused`` | game id, offer index, refusing key, signature: a takeback refused |
| 15 | ``Audience`` | spectators, most taken, first names, signature: who watches (host) |

A hello claims a key; only the handshake (challenge, proof, proven) proves it, for one
connection, with nonces fresh for that connection. Stop and refuse are signed by their sender
over the receiver's nonce for the connection, so that they cannot be sent by anyone else or
replayed from another connection (SESSION.md section 3); so is a rematch (SESSION.md 10).
A spectator proves nothing: it can never act, and what it is sent is the log, which proves
itself (SESSION.md section 11).

``decode_frame`` takes untrusted bytes and raises only ``WireError`` subclasses.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Final, TypeAlias

from santorini_p2p.errors import DecodeError, SignatureError
from santorini_p2p.wire.codec import MAX_RECORD_BYTES, Value, decode, encode
from santorini_p2p.wire.identity import MAX_NAME_BYTES, Identity, verify
from santorini_p2p.wire.text import as_line, line_fault
from santorini_p2p.wire.validator import check_chat

__all__ = [
    "AUDIENCE_DOMAIN",
    "CHEER_DOMAIN",
    "HELLO_DOMAIN",
    "HOST_PROOF_DOMAIN",
    "JOINER_PROOF_DOMAIN",
    "MAX_FRAME_BYTES",
    "NONCE_BYTES",
    "REFUSED_DOMAIN",
    "REFUSE_DOMAIN",
    "RELAYED_CHEER_DOMAIN",
    "REMATCH_DOMAIN",
    "SESSION_VERSION",
    "STOP_DOMAIN",
    "Audience",
    "Challenge",
    "Cheer",
    "Frame",
    "Hello",
    "Proof",
    "Proven",
    "RecordFrame",
    "Refuse",
    "Refused",
    "Rematch",
    "Status",
    "Stop",
    "Watch",
    "Welcome",
    "Who",
    "check_cheer_text",
    "decode_frame",
    "encode_frame",
    "host_proof_bytes",
    "joiner_proof_bytes",
    "refuse_bytes",
    "sign_audience",
    "sign_cheer",
    "sign_hello",
    "sign_refuse",
    "sign_refused",
    "sign_rematch",
    "sign_stop",
    "version_refusal",
    "versions_differ",
]

MAX_FRAME_BYTES: Final = MAX_RECORD_BYTES + 64
"""The largest frame: one record envelope plus the frame's own fields."""
SESSION_VERSION: Final = 4
"""The version of the session protocol: the frames, the handshake (hello and welcome carry it).

Distinct from the log's protocol version (the header's, ``wire.messages.PROTOCOL_VERSION``).
Version 3 added the welcome's god pool, which a joiner checks before it takes a seat, the
status's clock reading, and spectators (the watch frame). Version 4 added the refused frame
(a takeback refused, told to the asker) and the audience frame (who watches, told to all),
and carries games of log protocol 3: secret gods (the header's option ``secret``, the log's
records 11 to 15, SECRET.md 12), Party and Agora, and the ask and answer records that let a
seat choose in another seat's turn (Gaea's worker, SPEC.md 8.4); a peer of version 3 could
not check them, so it is refused at the hello."""
HELLO_DOMAIN: Final = b"santorini-p2p/1 hello\x00"
"""The prefix signed with a hello, so a hello signature can never pass for a record's.

The hello's layout and domain are the same in every version of the session protocol, so that
a peer of any version can read another's hello and refuse it by its version number."""
JOINER_PROOF_DOMAIN: Final = b"santorini-p2p/2 joiner proof\x00"
"""The prefix of what a joiner signs to prove its key on one connection."""
HOST_PROOF_DOMAIN: Final = b"santorini-p2p/2 host proof\x00"
"""The prefix of what the host signs to prove its key on one connection."""
STOP_DOMAIN: Final = b"santorini-p2p/2 stop\x00"
"""The prefix of what the sender of a stop frame signs."""
REFUSE_DOMAIN: Final = b"santorini-p2p/2 refuse\x00"
"""The prefix of what the sender of a signed refuse frame signs."""
REMATCH_DOMAIN: Final = b"santorini-p2p/3 rematch\x00"
"""The prefix of what the sender of a rematch frame signs."""
CHEER_DOMAIN: Final = b"santorini-p2p/3 spectator chat\x00"
"""The prefix of what a spectator signs with a chat line it sends the host."""
RELAYED_CHEER_DOMAIN: Final = b"santorini-p2p/3 relayed chat\x00"
"""The prefix of what the host signs with a spectator's chat line it relays."""
REFUSED_DOMAIN: Final = b"santorini-p2p/4 takeback refused\x00"
"""The prefix of what a seat signs when its player refuses a takeback."""
AUDIENCE_DOMAIN: Final = b"santorini-p2p/4 audience\x00"
"""The prefix of what the host signs with the list of its spectators."""
MAX_AUDIENCE: Final = 16
"""The most spectators' names an audience frame lists."""
NONCE_BYTES: Final = 32
"""The size of a handshake nonce."""
_MAX_TEXT: Final = 400
_MAX_INDEX: Final = 2**31
_MAX_POOL: Final = 64
_MAX_GOD: Final = 32
_MAX_MS: Final = 2**40


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
    pool: tuple[str, ...] = ()
    """The gods the game draws from, in god order (empty with no gods)."""


@dataclass(frozen=True, slots=True)
class Refuse:
    """A peer will not play: the reason, worded for the screen.

    ``signature`` is empty for a refusal sent before the handshake (another protocol version),
    which is encoded with the reason alone, as every version reads it; otherwise it is the
    sender's signature over :func:`refuse_bytes` with the receiver's nonce.
    """

    reason: str
    signature: bytes = b""

    def is_signed_by(self, key: bytes, nonce: bytes) -> bool:
        """Return whether ``key`` signed this refusal for the connection of ``nonce``."""
        return len(self.signature) == 64 and verify(
            key, self.signature, refuse_bytes(self.reason, nonce)
        )


def refuse_bytes(reason: str, nonce: bytes) -> bytes:
    """What a signed refuse frame's signature covers (the reason as sent, at most 400 chars)."""
    return REFUSE_DOMAIN + encode((reason[:_MAX_TEXT], nonce))


def sign_refuse(identity: Identity, reason: str, nonce: bytes) -> Refuse:
    """Return a refuse frame signed by ``identity`` for the connection whose nonce is ``nonce``.

    The reason is made one printable line of at most 400 characters first (``as_line``).
    """
    reason = as_line(reason, _MAX_TEXT)
    return Refuse(reason, identity.sign(refuse_bytes(reason, nonce)))


def version_refusal(theirs: int, doing: str = "join") -> Refuse:
    """The unsigned refuse a host answers a hello or watch of protocol ``theirs`` with.

    It starts ``protocol N is not M``, as in every version, and says which side must update.
    """
    return Refuse(f"protocol {theirs} is not {SESSION_VERSION}" + _which_is_older(theirs, doing))


def versions_differ(reason: str, doing: str = "join") -> str:
    """A refusal's reason as shown, with which side must update when it names two versions.

    A host of an earlier version answers ``protocol N is not M`` alone: the newer peer says
    which program is the older, so that its player knows what to do.
    """
    words = reason.split(" ")
    host = int(words[4]) if len(words) == 5 and words[4].isdigit() else SESSION_VERSION
    ours = words[:4] == ["protocol", str(SESSION_VERSION), "is", "not"]
    if ours and host < SESSION_VERSION:
        return (
            f"{reason}: the host runs an earlier santorini-p2p (session protocol {host}; this "
            f"one speaks {SESSION_VERSION}); both must run the same version to {doing}"
        )
    return reason


def _which_is_older(theirs: int, doing: str) -> str:
    if theirs < SESSION_VERSION:
        return (
            f": your santorini-p2p is earlier than the host's (session protocol {theirs}; the "
            f"host speaks {SESSION_VERSION}); update it to {doing}"
        )
    return (
        f": the host runs an earlier santorini-p2p (session protocol {SESSION_VERSION}; yours "
        f"speaks {theirs}); both must run the same version to {doing}"
    )


@dataclass(frozen=True, slots=True)
class RecordFrame:
    """One record of the log, at ``index``, as its exact envelope bytes."""

    index: int
    envelope: bytes


@dataclass(frozen=True, slots=True)
class Status:
    """How many records the sender holds: an acknowledgement, and a request for the rest.

    ``clock_ms`` is how long the move due in the sender's log has run by the sender's clock
    (0 when no move's clock runs): the host's lets a reconnected joiner and a spectator show
    the clock the host shows (SESSION.md 7). It is shown, never used to claim a timeout.
    """

    have: int
    clock_ms: int = 0


@dataclass(frozen=True, slots=True)
class Stop:
    """The sender stopped the game: why, at which record, and the two state hashes.

    ``signature`` is the sender's over :meth:`signed_bytes` with the receiver's nonce for the
    connection (:func:`sign_stop`); a stop that does not verify is dropped.
    """

    reason: str
    index: int
    mine: bytes
    theirs: bytes
    signature: bytes = b""

    def signed_bytes(self, nonce: bytes) -> bytes:
        """The bytes the signature covers, for the receiver's ``nonce``."""
        fields = (self.reason[:_MAX_TEXT], self.index, self.mine, self.theirs, nonce)
        return STOP_DOMAIN + encode(fields)

    def is_signed_by(self, key: bytes, nonce: bytes) -> bool:
        """Return whether ``key`` signed this stop for the connection of ``nonce``."""
        return len(self.signature) == 64 and verify(key, self.signature, self.signed_bytes(nonce))


def sign_stop(
    identity: Identity, reason: str, index: int, mine: bytes, theirs: bytes, nonce: bytes
) -> Stop:
    """Return a stop frame signed by ``identity`` for the connection whose nonce is ``nonce``.

    The reason is made one printable line of at most 400 characters first (``as_line``).
    """
    unsigned = Stop(as_line(reason, _MAX_TEXT), index, mine, theirs)
    return Stop(unsigned.reason, index, mine, theirs, identity.sign(unsigned.signed_bytes(nonce)))


@dataclass(frozen=True, slots=True)
class Who:
    """The host does not know this connection (it restarted): say hello again."""


@dataclass(frozen=True, slots=True)
class Watch:
    """A spectator asks to watch: sent in place of a hello, and never a claim to a seat.

    ``nonce`` is the spectator's own (fresh for each round), over which the host signs a stop
    or refusal it sends there; ``game_id`` is empty for whatever game the host has, ``have``
    the records the spectator holds (it catches up from there); ``name`` is shown, unproven.
    """

    protocol: int
    nonce: bytes
    game_id: bytes
    have: int
    name: str


@dataclass(frozen=True, slots=True)
class Challenge:
    """The host's answer to a hello: prove the key you claim, on this connection, with ``nonce``.

    ``host_key`` says which key the host will prove in return (:class:`Proven`).
    """

    nonce: bytes
    host_key: bytes


@dataclass(frozen=True, slots=True)
class Proof:
    """A joiner proves its key: its signature over :func:`joiner_proof_bytes`.

    ``nonce`` is the joiner's own, fresh for this connection: the host signs it in return.
    """

    nonce: bytes
    signature: bytes


@dataclass(frozen=True, slots=True)
class Proven:
    """The host proves its key on this connection: its signature over :func:`host_proof_bytes`."""

    signature: bytes


def joiner_proof_bytes(
    host_nonce: bytes, joiner_nonce: bytes, joiner_key: bytes, host_key: bytes
) -> bytes:
    """What a joiner's proof signs: both nonces and both keys, after its own domain."""
    return JOINER_PROOF_DOMAIN + encode((host_nonce, joiner_nonce, joiner_key, host_key))


def host_proof_bytes(
    joiner_nonce: bytes, host_nonce: bytes, host_key: bytes, joiner_key: bytes
) -> bytes:
    """What the host's proof signs: both nonces and both keys, after its own domain."""
    return HOST_PROOF_DOMAIN + encode((joiner_nonce, host_nonce, host_key, joiner_key))


@dataclass(frozen=True, slots=True)
class Rematch:
    """Who asks for a rematch of a finished game, and who declines (SESSION.md 10).

    ``asking`` and ``declining`` are sets of header slots, bit s for slot s. A joiner sends
    its own answer (its bit in one of them); the host sends every answer it holds, its own
    included. ``signature`` is the sender's over :meth:`signed_bytes` with the receiver's
    nonce for the connection, as a stop's.
    """

    game_id: bytes
    asking: int
    declining: int
    signature: bytes = b""

    def signed_bytes(self, nonce: bytes) -> bytes:
        """The bytes the signature covers, for the receiver's ``nonce``."""
        return REMATCH_DOMAIN + encode((self.game_id, self.asking, self.declining, nonce))

    def is_signed_by(self, key: bytes, nonce: bytes) -> bool:
        """Return whether ``key`` signed this rematch frame for the connection of ``nonce``."""
        return len(self.signature) == 64 and verify(key, self.signature, self.signed_bytes(nonce))


def sign_rematch(
    identity: Identity, game_id: bytes, asking: int, declining: int, nonce: bytes
) -> Rematch:
    """Return a rematch frame signed by ``identity`` for the connection of ``nonce``."""
    unsigned = Rematch(game_id, asking, declining)
    return Rematch(game_id, asking, declining, identity.sign(unsigned.signed_bytes(nonce)))


@dataclass(frozen=True, slots=True)
class Cheer:
    """A spectator's chat line (SESSION.md 11): never a record, never in the log or a replay.

    A spectator sends it to the host with ``key`` its own key and ``signature`` its own, over
    :meth:`signed_bytes` with ``relayed`` False and the nonce of its latest watch. The host
    relays it with the spectator's ``name`` and ``key`` unchanged and ``signature`` its own,
    over the bytes with ``relayed`` True and the receiver's nonce for the connection.
    """

    text: str
    name: str
    key: bytes
    signature: bytes = b""

    def signed_bytes(self, nonce: bytes, *, relayed: bool) -> bytes:
        """The bytes the signature covers, for the receiver's ``nonce``."""
        domain = RELAYED_CHEER_DOMAIN if relayed else CHEER_DOMAIN
        return domain + encode((self.text, self.name, self.key, nonce))

    def is_signed_by(self, key: bytes, nonce: bytes, *, relayed: bool) -> bool:
        """Return whether ``key`` signed this line for the connection of ``nonce``."""
        return len(self.signature) == 64 and verify(
            key, self.signature, self.signed_bytes(nonce, relayed=relayed)
        )


def sign_cheer(
    identity: Identity, text: str, name: str, key: bytes, nonce: bytes, *, relayed: bool
) -> Cheer:
    """Return a chat line signed by ``identity`` for the connection of ``nonce``."""
    unsigned = Cheer(text, name, key)
    return Cheer(text, name, key, identity.sign(unsigned.signed_bytes(nonce, relayed=relayed)))


@dataclass(frozen=True, slots=True)
class Refused:
    """A seat's player refused a takeback (SESSION.md 5): told to the asker and the others.

    ``key`` is the refusing seat's and ``signature`` its own over :meth:`signed_bytes`: the
    game, the offer's record number and the key, so the frame proves itself to every peer and
    spectator whatever connection it came by (the host relays it unchanged). Sent again, it
    says nothing new: a receiver tells each seat's refusal of an offer once.
    """

    game_id: bytes
    index: int
    key: bytes
    signature: bytes = b""

    def signed_bytes(self) -> bytes:
        """The bytes the signature covers."""
        return REFUSED_DOMAIN + encode((self.game_id, self.index, self.key))

    def is_signed(self) -> bool:
        """Return whether the frame's key signed it."""
        return len(self.signature) == 64 and verify(self.key, self.signature, self.signed_bytes())


def sign_refused(identity: Identity, game_id: bytes, index: int) -> Refused:
    """Return ``identity``'s refusal of the takeback offer at record ``index`` of ``game_id``."""
    unsigned = Refused(game_id, index, identity.public_key)
    return Refused(game_id, index, identity.public_key, identity.sign(unsigned.signed_bytes()))


@dataclass(frozen=True, slots=True)
class Audience:
    """Who watches the host's game (SESSION.md 11), as the host tells everyone.

    Sent to each seated player and spectator whenever it changes, so that everyone counts the
    same spectators. ``count`` is how many watch now and ``most`` how many the host takes;
    ``names`` are the names of the first :data:`MAX_AUDIENCE` of them, in the order they came
    (empty: none given; unproven). ``signature`` is the host's over :meth:`signed_bytes` with the
    receiver's nonce.
    """

    count: int
    most: int
    names: tuple[str, ...]
    signature: bytes = b""

    def signed_bytes(self, nonce: bytes) -> bytes:
        """The bytes the signature covers, for the receiver's ``nonce``."""
        return AUDIENCE_DOMAIN + encode((self.count, self.most, self.names, nonce))

    def is_signed_by(self, key: bytes, nonce: bytes) -> bool:
        """Return whether ``key`` signed this list for the connection of ``nonce``."""
        return len(self.signature) == 64 and verify(key, self.signature, self.signed_bytes(nonce))


def sign_audience(identity: Identity, names: tuple[str, ...], most: int, nonce: bytes) -> Audience:
    """Return the host's list of its spectators ``names`` signed for the connection of ``nonce``."""
    unsigned = Audience(len(names), most, names[:MAX_AUDIENCE])
    signature = identity.sign(unsigned.signed_bytes(nonce))
    return Audience(unsigned.count, unsigned.most, unsigned.names, signature)


def check_cheer_text(text: str) -> str | None:
    """Return why ``text`` is not a chat line (SPEC.md 8.3's rules), or None if it is one."""
    try:
        check_chat(text)
    except ValueError as e:
        return str(e)
    return None


Frame: TypeAlias = (
    Hello
    | Welcome
    | Refuse
    | RecordFrame
    | Status
    | Stop
    | Who
    | Challenge
    | Proof
    | Proven
    | Rematch
    | Watch
    | Cheer
    | Refused
    | Audience
)
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
                frame.pool,
            )
        case Refuse():
            value = (
                (3, frame.reason[:_MAX_TEXT], frame.signature)
                if frame.signature
                else (3, frame.reason[:_MAX_TEXT])
            )
        case RecordFrame():
            value = (4, frame.index, frame.envelope)
        case Status():
            value = (5, frame.have, frame.clock_ms)
        case Stop():
            value = (
                6,
                frame.reason[:_MAX_TEXT],
                frame.index,
                frame.mine,
                frame.theirs,
                frame.signature,
            )
        case Who():
            value = (7,)
        case Challenge():
            value = (8, frame.nonce, frame.host_key)
        case Proof():
            value = (9, frame.nonce, frame.signature)
        case Proven():
            value = (10, frame.signature)
        case Rematch():
            value = (11, frame.game_id, frame.asking, frame.declining, frame.signature)
        case Watch():
            value = (12, frame.protocol, frame.nonce, frame.game_id, frame.have, frame.name)
        case Cheer():
            value = (13, frame.text, frame.name, frame.key, frame.signature)
        case Refused():
            value = (14, frame.game_id, frame.index, frame.key, frame.signature)
        case Audience():
            value = (15, frame.count, frame.most, frame.names, frame.signature)
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


def _spectator_name(v: Value) -> str:
    """A relayed spectator's name: empty (none given) or a display name (``check_name``)."""
    text = _text(v, "name")
    fault = line_fault(text, max_bytes=MAX_NAME_BYTES) if text else ""
    if fault:
        raise DecodeError(f"frame: name: {fault}")
    return text


def _line(v: Value, what: str, limit: int = _MAX_TEXT, *, empty: bool = False) -> str:
    """Text that must be one printable line (``wire.text``): a reason, a name, a god."""
    text = _text(v, what)
    if empty and not text:
        return text
    fault = line_fault(text, max_chars=limit)
    if fault:
        raise DecodeError(f"frame: {what}: {fault}")
    return text


_ARITY: Final = {
    **{1: 7, 2: 11, 3: 2, 4: 3, 5: 3, 6: 6, 7: 1, 8: 3, 9: 3, 10: 2, 11: 5, 12: 6, 13: 5},
    **{14: 5, 15: 5},
}
_SLOTS: Final = 15
"""The largest set of slots a rematch frame names: bits 0-3."""


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
    if tag == 3 and len(v) == 3:
        return Refuse(_line(v[1], "reason"), _bin(v[2], "signature", (64,)))
    if len(v) != _ARITY[tag]:
        raise DecodeError(f"frame {tag}: expected {_ARITY[tag]} fields, got {len(v)}")
    match tag:
        case 1:
            # A name that breaks the display-name rule is decoded all the same: the host
            # refuses it, naming the rule (``check_name``), rather than leave the joiner waiting.
            name = _text(v[3], "name")
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
            pool = v[10]
            if (
                type(pool) is not tuple
                or len(pool) > _MAX_POOL
                or any(type(g) is not str or len(g) > _MAX_GOD for g in pool)
            ):
                raise DecodeError(
                    f"frame: welcome: pool must be at most {_MAX_POOL} god names "
                    f"of at most {_MAX_GOD} characters"
                )
            for o in opts:
                _line(o, "welcome: option")
            for g in pool:
                _line(g, "welcome: god", _MAX_GOD)
            return Welcome(
                _uint(v[1], "protocol"),
                _bin(v[2], "game id", (16,)),
                _uint(v[3], "players", 4),
                _line(v[4], "gods"),
                _uint(v[5], "move ms", 2**40),
                _uint(v[6], "bank ms", 2**40),
                tuple(str(o) for o in opts),
                _bin(v[8], "host key", (32,)),
                _text(v[9], "host name"),
                tuple(str(g) for g in pool),
            )
        case 3:
            return Refuse(_line(v[1], "reason"))
        case 4:
            env = v[2]
            if type(env) is not bytes:
                raise DecodeError("frame: record: expected the envelope as binary")
            return RecordFrame(_uint(v[1], "index"), env)
        case 5:
            return Status(_uint(v[1], "have"), _uint(v[2], "clock ms", _MAX_MS))
        case 6:
            return Stop(
                _line(v[1], "reason"),
                _uint(v[2], "index"),
                _bin(v[3], "state hash", (0, 32)),
                _bin(v[4], "state hash", (0, 32)),
                _bin(v[5], "signature", (64,)),
            )
        case 7:
            return Who()
        case 8:
            return Challenge(_bin(v[1], "nonce", (NONCE_BYTES,)), _bin(v[2], "host key", (32,)))
        case 9:
            return Proof(_bin(v[1], "nonce", (NONCE_BYTES,)), _bin(v[2], "signature", (64,)))
        case 10:
            return Proven(_bin(v[1], "signature", (64,)))
        case 11:
            asking = _uint(v[2], "asking", _SLOTS)
            declining = _uint(v[3], "declining", _SLOTS)
            if asking & declining:
                raise DecodeError("frame: rematch: a slot both asks and declines")
            return Rematch(
                _bin(v[1], "game id", (16,)), asking, declining, _bin(v[4], "signature", (64,))
            )
        case 13:
            text = _text(v[1], "text")
            bad = check_cheer_text(text)
            if bad is not None:
                raise DecodeError(f"frame: spectator {bad}")
            return Cheer(
                text,
                _spectator_name(v[2]),
                _bin(v[3], "key", (32,)),
                _bin(v[4], "signature", (64,)),
            )
        case 14:
            return Refused(
                _bin(v[1], "game id", (16,)),
                _uint(v[2], "offer index"),
                _bin(v[3], "key", (32,)),
                _bin(v[4], "signature", (64,)),
            )
        case 15:
            count, most, names = _uint(v[1], "count"), _uint(v[2], "most"), v[3]
            if type(names) is not tuple or len(names) > min(count, MAX_AUDIENCE):
                raise DecodeError(
                    "frame: audience: expected at most the count of names, and at most "
                    f"{MAX_AUDIENCE}"
                )
            return Audience(
                count,
                most,
                tuple(_spectator_name(n) for n in names),
                _bin(v[4], "signature", (64,)),
            )
        case _:
            return Watch(
                _uint(v[1], "protocol"),
                _bin(v[2], "nonce", (NONCE_BYTES,)),
                _bin(v[3], "game id", (0, 16)),
                _uint(v[4], "have"),
                _text(v[5], "name"),
            )
