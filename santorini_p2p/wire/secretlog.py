"""A secret game's records signed and chained as the log's envelopes (SECRET.md 6 and 12).

Each record of ``wire.secretgame`` becomes the body ``[type, seq, prev, field...]`` of
SPEC.md 7 (the type is the record's tag, the fields those after its seat), sealed in a version-1
envelope (SPEC.md 6) by its seat's identity; the seat is the signer's place among the game's
keys. ``prev`` chains each record to the envelope before it, the first to the envelope the
records follow (the last reveal of the game's setup, or any chain hash the caller names).

Public API:

- ``seal_record(identity, seq, prev, record) -> bytes``: the envelope of one record;
- ``read_records(envelopes, keys, first_seq, prev)``: every record checked (signer, signature,
  chain, shape) and returned in the checker's form; a ``WireError`` names the record.
"""

from __future__ import annotations

from collections.abc import Sequence

from santorini_p2p.errors import ChainError, DecodeError, SignatureError
from santorini_p2p.wire.codec import Value, decode, encode
from santorini_p2p.wire.envelope import (
    ENVELOPE_VERSION,
    chain_hash,
    signing_input,
    split_envelope,
)
from santorini_p2p.wire.identity import Identity, verify
from santorini_p2p.wire.secretgame import SecretRecord, decode_record, encode_record

__all__ = ["read_records", "seal_record"]


def seal_record(identity: Identity, seq: int, prev: bytes, record: SecretRecord) -> bytes:
    """Return the envelope of ``record`` as record ``seq`` of the log, after ``prev``."""
    value = decode(encode_record(record))
    assert isinstance(value, tuple)
    body = encode((value[0], seq, prev, *value[2:]))
    sig = identity.sign(signing_input(body))
    return encode((ENVELOPE_VERSION, identity.public_key, body, sig))


def read_records(
    envelopes: Sequence[bytes], keys: Sequence[bytes], first_seq: int, prev: bytes
) -> list[SecretRecord]:
    """Check every envelope and return its record (the seat from its signer's key).

    Raises:
        DecodeError: an envelope or body of the wrong shape (names the record);
        SignatureError: a signer not among ``keys``, or a signature that does not verify;
        ChainError: a ``seq`` or ``prev`` out of the chain.
    """
    records: list[SecretRecord] = []
    for i, raw in enumerate(envelopes):
        seq = first_seq + i
        signer, body, sig = split_envelope(raw)
        if signer not in keys:
            raise SignatureError(f"record {seq}: signed by a key that holds no seat")
        if not verify(signer, sig, signing_input(body)):
            raise SignatureError(f"record {seq}: the signature does not verify")
        value: Value = decode(body)
        if not isinstance(value, tuple) or len(value) < 3:
            raise DecodeError(f"record {seq}: expected a body [type, seq, prev, ...]")
        if value[1] != seq:
            raise ChainError(f"record {seq}: seq {value[1]!r} is out of order")
        if value[2] != prev:
            raise ChainError(f"record {seq}: prev is not the chain hash of the record before")
        try:
            records.append(decode_record(encode((value[0], keys.index(signer), *value[3:]))))
        except DecodeError as exc:
            raise DecodeError(f"record {seq}: {exc}") from None
        prev = chain_hash(raw)
    return records
