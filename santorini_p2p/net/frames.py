"""The session's frames as bytes: the protocol's version, each frame's tag and fields, the checks.

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

This module is the session protocol as bytes: its version, each frame's encoding, and the
checks on untrusted bytes. The frame types and what their signatures cover are in
``net.frametypes``; they are re-exported here, so that a frame and its bytes are imported
from one place.

``decode_frame`` takes untrusted bytes and raises only ``WireError`` subclasses.
"""

from __future__ import annotations

from typing import Final

from santorini_p2p.errors import DecodeError, SignatureError
from santorini_p2p.net.frametypes import (
    AUDIENCE_DOMAIN,
    CHEER_DOMAIN,
    HELLO_DOMAIN,
    HOST_PROOF_DOMAIN,
    JOINER_PROOF_DOMAIN,
    MAX_AUDIENCE,
    MAX_TEXT,
    NONCE_BYTES,
    REFUSE_DOMAIN,
    REFUSED_DOMAIN,
    RELAYED_CHEER_DOMAIN,
    REMATCH_DOMAIN,
    STOP_DOMAIN,
    Audience,
    Challenge,
    Cheer,
    Frame,
    Hello,
    Proof,
    Proven,
    RecordFrame,
    Refuse,
    Refused,
    Rematch,
    Status,
    Stop,
    Watch,
    Welcome,
    Who,
    host_proof_bytes,
    joiner_proof_bytes,
    refuse_bytes,
    sign_audience,
    sign_cheer,
    sign_hello,
    sign_refuse,
    sign_refused,
    sign_rematch,
    sign_stop,
)
from santorini_p2p.wire.codec import MAX_RECORD_BYTES, Value, decode, encode
from santorini_p2p.wire.identity import MAX_NAME_BYTES
from santorini_p2p.wire.text import line_fault
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
_MAX_INDEX: Final = 2**31
_MAX_POOL: Final = 64
_MAX_GOD: Final = 32
_MAX_MS: Final = 2**40


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


def check_cheer_text(text: str) -> str | None:
    """Return why ``text`` is not a chat line (SPEC.md 8.3's rules), or None if it is one."""
    try:
        check_chat(text)
    except ValueError as e:
        return str(e)
    return None


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
                (3, frame.reason[:MAX_TEXT], frame.signature)
                if frame.signature
                else (3, frame.reason[:MAX_TEXT])
            )
        case RecordFrame():
            value = (4, frame.index, frame.envelope)
        case Status():
            value = (5, frame.have, frame.clock_ms)
        case Stop():
            value = (
                6,
                frame.reason[:MAX_TEXT],
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
    if type(v) is not str or len(v) > MAX_TEXT:
        raise DecodeError(f"frame: {what}: expected text of at most {MAX_TEXT} characters")
    return v


def _spectator_name(v: Value) -> str:
    """A relayed spectator's name: empty (none given) or a display name (``check_name``)."""
    text = _text(v, "name")
    fault = line_fault(text, max_bytes=MAX_NAME_BYTES) if text else ""
    if fault:
        raise DecodeError(f"frame: name: {fault}")
    return text


def _line(v: Value, what: str, limit: int = MAX_TEXT, *, empty: bool = False) -> str:
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
