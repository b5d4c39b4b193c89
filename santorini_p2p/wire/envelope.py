"""One record's envelope: ``[version, signer, body, signature]``, sealed and opened (SPEC.md 4, 6).

The first of the log's four parts (``wire.log`` re-exports them all): the envelope here; the
log's rules in ``wire.validator``; the replay-file framing in ``wire.framing``; the journal on
disk in ``wire.journal``.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Final

from santorini_p2p.engine.hashing import blake2b_256
from santorini_p2p.errors import (
    DecodeError,
    SignatureError,
    VersionError,
)
from santorini_p2p.wire.codec import MAX_RECORD_BYTES, decode, encode
from santorini_p2p.wire.identity import (
    Identity,
    fingerprint,
    verify,
)
from santorini_p2p.wire.messages import (
    Message,
    decode_body,
    encode_body,
)

__all__ = [
    "ENVELOPE_VERSION",
    "SIGNING_DOMAIN",
    "ZERO_HASH",
    "Envelope",
    "chain_hash",
    "open_envelope",
    "seal",
    "short_hex",
    "signing_input",
    "split_envelope",
    "verify_envelope",
]

ENVELOPE_VERSION: Final = 1
SIGNING_DOMAIN: Final = b"santorini-p2p/1 record\x00"
"""Prefix of the signed bytes, so a record signature is never valid for anything else."""
ZERO_HASH: Final = bytes(32)


def short_hex(h: bytes) -> str:
    """A hash as the first 16 hex digits, for messages."""
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


def split_envelope(raw: bytes) -> tuple[bytes, bytes, bytes]:
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
    signer, body, sig = split_envelope(raw)
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
