"""The session's frame types, and what the signature of each signed one covers (SESSION.md).

One frozen dataclass per frame, with the bytes its signature covers and a ``sign_*`` helper
that makes a signed one; ``net.frames`` turns them into bytes and back, and is where other
modules import them from.

A hello claims a key; only the handshake (challenge, proof, proven) proves it, for one
connection, with nonces fresh for that connection. Stop and refuse are signed by their sender
over the receiver's nonce for the connection, so that they cannot be sent by anyone else or
replayed from another connection (SESSION.md section 3); so is a rematch (SESSION.md 10).
A spectator proves nothing: it can never act, and what it is sent is the log, which proves
itself (SESSION.md section 11).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Final, TypeAlias

from santorini_p2p.wire.codec import encode
from santorini_p2p.wire.identity import Identity, verify
from santorini_p2p.wire.text import as_line

__all__ = [
    "AUDIENCE_DOMAIN",
    "CHEER_DOMAIN",
    "HELLO_DOMAIN",
    "HOST_PROOF_DOMAIN",
    "JOINER_PROOF_DOMAIN",
    "MAX_AUDIENCE",
    "MAX_TEXT",
    "NONCE_BYTES",
    "REFUSED_DOMAIN",
    "REFUSE_DOMAIN",
    "RELAYED_CHEER_DOMAIN",
    "REMATCH_DOMAIN",
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
]

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
MAX_TEXT: Final = 400
"""The most characters of any text a frame carries; a longer reason (refuse, stop) is cut."""


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
    return REFUSE_DOMAIN + encode((reason[:MAX_TEXT], nonce))


def sign_refuse(identity: Identity, reason: str, nonce: bytes) -> Refuse:
    """Return a refuse frame signed by ``identity`` for the connection whose nonce is ``nonce``.

    The reason is made one printable line of at most 400 characters first (``as_line``).
    """
    reason = as_line(reason, MAX_TEXT)
    return Refuse(reason, identity.sign(refuse_bytes(reason, nonce)))


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
        fields = (self.reason[:MAX_TEXT], self.index, self.mine, self.theirs, nonce)
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
    unsigned = Stop(as_line(reason, MAX_TEXT), index, mine, theirs)
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
