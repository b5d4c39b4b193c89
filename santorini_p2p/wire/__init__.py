"""Canonical msgpack codec, message types, identities and the signed hash-chained log.

The modules: ``codec`` (canonical msgpack), ``identity`` (Ed25519 keys), ``messages`` (record
bodies), ``draw`` (shared randomness from commit-reveal), ``log`` (envelopes, the validator,
replay files, the journal) and ``script`` (whole logs of scripted games). The most used names
are re-exported here; see each module's docstring for its full API.
"""

from __future__ import annotations

from santorini_p2p.wire.codec import decode, encode
from santorini_p2p.wire.identity import Identity, fingerprint, load_or_create_identity, verify
from santorini_p2p.wire.log import (
    Journal,
    Record,
    Validator,
    chain_hash,
    encode_frames,
    iter_frames,
    make_header,
    open_envelope,
    read_log,
    seal,
    validate,
    verify_envelope,
)
from santorini_p2p.wire.messages import (
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

__all__ = [
    "Accept",
    "Ack",
    "Act",
    "Commit",
    "Header",
    "Identity",
    "Journal",
    "Message",
    "Offer",
    "Record",
    "Resign",
    "Result",
    "Reveal",
    "Seat",
    "Timeout",
    "Validator",
    "chain_hash",
    "decode",
    "decode_body",
    "encode",
    "encode_body",
    "encode_frames",
    "fingerprint",
    "iter_frames",
    "load_or_create_identity",
    "make_header",
    "open_envelope",
    "read_log",
    "seal",
    "validate",
    "verify",
    "verify_envelope",
]
