"""A secret game's records signed and chained as the log's envelopes (SECRET.md 6 and 12).

Each record of ``wire.secretgame`` becomes the body ``[type, seq, prev, field...]`` of
SPEC.md 7 (the type is the record's tag, the fields those after its seat), sealed in a version-1
envelope (SPEC.md 6) by its seat's identity; the seat is the signer's place among the game's
keys. ``prev`` chains each record to the envelope before it, the first to the envelope the
records follow (the last reveal of the game's setup, or any chain hash the caller names).

Public API:

- ``seal_record(identity, seq, prev, record) -> bytes``: the envelope of one record;
- ``read_records(envelopes, keys, first_seq, prev)``: every record checked (signer, signature,
  chain, shape) and returned in the checker's form; a ``WireError`` names the record;
- ``seats_frame(game_id, pool, keys)`` / ``read_seats(frame)``: the frame that seats a secret
  table (SECRET.md 13), and ``first_prev(frame)``, the first record's ``prev``.
"""

from __future__ import annotations

import hashlib
from collections.abc import Callable, Sequence
from typing import Any

from santorini_p2p.errors import ChainError, DecodeError, SignatureError
from santorini_p2p.wire.codec import Value, decode, encode
from santorini_p2p.wire.envelope import (
    ENVELOPE_VERSION,
    chain_hash,
    signing_input,
    split_envelope,
)
from santorini_p2p.wire.identity import Identity, verify
from santorini_p2p.wire.partygame import PartyGame, decode_party_record
from santorini_p2p.wire.secretgame import SecretGame, decode_record, encode_record

__all__ = [
    "first_prev",
    "make_game",
    "read_records",
    "read_seats",
    "record_decoder",
    "seal_record",
    "seats_frame",
    "seats_options",
]


def seats_frame(
    game_id: bytes, pool: tuple[str, ...], keys: tuple[bytes, ...], options: tuple[str, ...] = ()
) -> bytes:
    """The ``seats`` frame: game id, pool, every seat's key and the mode's options.

    A secret game writes no options (four fields); Party writes ``party`` and ``pass=K``.
    """
    if options:
        return encode(("seats", game_id, pool, keys, options))
    return encode(("seats", game_id, pool, keys))


def read_seats(frame: bytes) -> tuple[bytes, tuple[str, ...], tuple[bytes, ...]]:
    """Read a ``seats`` frame: ``(game_id, pool, keys)`` (``seats_options`` gives the rest).

    Raises:
        DecodeError: not a seats frame (16-byte game id, names, 2 to 4 distinct 32-byte keys).
    """
    value = decode(frame)
    if not isinstance(value, tuple) or len(value) not in (4, 5) or value[0] != "seats":
        raise DecodeError('seats: expected ["seats", game_id, pool, keys(, options)]')
    _, game_id, pool, keys = value[:4]
    if not isinstance(game_id, bytes) or len(game_id) != 16:
        raise DecodeError("seats: the game id must be 16 bytes")
    if not isinstance(pool, tuple) or not all(isinstance(g, str) for g in pool):
        raise DecodeError("seats: the pool must be god names")
    if (
        not isinstance(keys, tuple)
        or not 2 <= len(keys) <= 4
        or not all(isinstance(k, bytes) and len(k) == 32 for k in keys)
        or len(set(keys)) != len(keys)
    ):
        raise DecodeError("seats: expected 2 to 4 distinct 32-byte keys")
    names = tuple(g for g in pool if isinstance(g, str))
    return game_id, names, tuple(k for k in keys if isinstance(k, bytes))


def seats_options(frame: bytes) -> tuple[str, ...]:
    """The options of a ``seats`` frame read by ``read_seats`` (empty: a secret game).

    Raises:
        DecodeError: options that are not a list of text.
    """
    value = decode(frame)
    if not isinstance(value, tuple) or len(value) != 5:
        return ()
    options = value[4]
    if not isinstance(options, tuple) or not all(isinstance(o, str) for o in options):
        raise DecodeError("seats: options must be text")
    return tuple(o for o in options if isinstance(o, str))


def first_prev(frame: bytes) -> bytes:
    """The first record's ``prev``: BLAKE2b-256 of the ``seats`` frame's bytes."""
    return hashlib.blake2b(frame, digest_size=32).digest()


def seal_record(
    identity: Identity,
    seq: int,
    prev: bytes,
    record: Any,
    encoder: Callable[[Any], bytes] = encode_record,
) -> bytes:
    """Return the envelope of ``record`` as record ``seq`` of the log, after ``prev``.

    ``encoder`` gives the record's ``[tag, seat, field...]`` bytes (another mode's records).
    """
    value = decode(encoder(record))
    assert isinstance(value, tuple)
    body = encode((value[0], seq, prev, *value[2:]))
    sig = identity.sign(signing_input(body))
    return encode((ENVELOPE_VERSION, identity.public_key, body, sig))


def read_records(
    envelopes: Sequence[bytes],
    keys: Sequence[bytes],
    first_seq: int,
    prev: bytes,
    decoder: Callable[[bytes], Any] = decode_record,
) -> list[Any]:
    """Check every envelope and return its record (the seat from its signer's key).

    ``decoder`` reads the record's ``[tag, seat, field...]`` bytes (another mode's records).

    Raises:
        DecodeError: an envelope or body of the wrong shape (names the record);
        SignatureError: a signer not among ``keys``, or a signature that does not verify;
        ChainError: a ``seq`` or ``prev`` out of the chain.
    """
    records: list[Any] = []
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
            records.append(decoder(encode((value[0], keys.index(signer), *value[3:]))))
        except DecodeError as exc:
            raise DecodeError(f"record {seq}: {exc}") from None
        prev = chain_hash(raw)
    return records


def make_game(seats: bytes) -> SecretGame | PartyGame:
    """The checker a seats frame asks for: Party's with ``party``, else the secret game's.

    Raises:
        DecodeError: the frame, or its ``pass=K``, is not readable.
    """
    game_id, pool, keys = read_seats(seats)
    options = seats_options(seats)
    if "agora" in options:
        return PartyGame(len(keys), game_id, 0, pool, agora=True)
    if "party" not in options:
        return SecretGame(pool, len(keys))
    every = [o.removeprefix("pass=") for o in options if o.startswith("pass=")]
    if len(every) != 1 or not every[0].isdigit():
        raise DecodeError("seats: Party needs one pass=K")
    return PartyGame(len(keys), game_id, int(every[0]), pool)


def record_decoder(game: SecretGame | PartyGame) -> Callable[[bytes], Any]:
    """The decoder of a game's records: Party's or the secret game's."""
    return decode_party_record if isinstance(game, PartyGame) else decode_record
