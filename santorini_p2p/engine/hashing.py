"""The canonical byte encoding of a position and its state hash (protocol/SPEC.md section 3).

The encoding holds every field that affects the rules and nothing else, as fixed-width bytes,
so every machine and Python version produces the same bytes and the same BLAKE2b-256 hash.
"""

from __future__ import annotations

import hashlib
from functools import lru_cache
from typing import Final

from santorini_p2p.engine.gods import god_id
from santorini_p2p.engine.position import NO_WINNER, UNDECIDED, Position
from santorini_p2p.engine.squares import SPREAD13

__all__ = ["STATE_ENCODING_VERSION", "state_bytes", "state_hash"]

STATE_ENCODING_VERSION: Final = 1
_MAGIC: Final = b"SNTS"


def _god_byte(name: str) -> int:
    return 0xFF if name == UNDECIDED else god_id(name)


def state_bytes(p: Position) -> bytes:
    """Return the canonical encoding of ``p`` (layout in protocol/SPEC.md section 3).

    >>> from santorini_p2p.engine.notation import parse_position
    >>> state_bytes(parse_position("00000/00B00A0/00000/00A00B0/00000 1 -,- -")).hex()[:16]
    '534e545301020000'
    """
    gods = p.gods
    to_move = p.to_move
    # A power's state (a flag such as ``a``) matters only while it can restrict another seat: at its
    # holder's own turn it affects nothing and is left out, so equal rule states hash equally.
    state = p.power_state
    held = (
        any(f and not f.startswith("[") for s, f in enumerate(state) if s != to_move)
        if state
        else False
    )
    flags = (1 if held else 0) | (2 if p.snake else 0) | (4 if p.naming else 0)
    pool = p.pool
    if p.offer:
        # The challenger's offer set, while it has still to offer, fills the (empty) pool
        # bytes, marked by bit 3: a game offering from the simple ten hashes as before.
        flags |= 8
        pool = p.offer
    head = _head(len(gods), to_move, flags, p.eliminated, p.winner, p.selection, gods, pool)
    # One byte a square: level, dome << 2, side + 1 << 3. Each bitboard is spread to one
    # bit a byte; the fields never overlap, so adding the spread boards builds every byte.
    # (Written out board by board, squares 0-12 then 13-24: this runs for every record of a
    # replay.)
    t = SPREAD13
    b = p.ge1
    cells = t[b & 8191] | t[b >> 13] << 104
    b = p.ge2
    cells += t[b & 8191] | t[b >> 13] << 104
    b = p.ge3
    cells += t[b & 8191] | t[b >> 13] << 104
    b = p.domes
    cells += (t[b & 8191] | t[b >> 13] << 104) << 2
    weight = 8
    for b in p.workers:
        cells += (t[b & 8191] | t[b >> 13] << 104) * weight
        weight += 8
    out = head + cells.to_bytes(25, "little")
    if state and any(f.startswith("[") for f in state):
        # The states in brackets (RULES.md 10.1), one length byte and the ASCII text per
        # seat: a position with none of them ends where it always did.
        for f in state:
            body = f[1:-1].encode("ascii") if f.startswith("[") else b""
            out += bytes((len(body),)) + body
    return out


@lru_cache(maxsize=4096)
def _head(
    players: int,
    to_move: int,
    flags: int,
    eliminated: int,
    winner: int,
    selection: int,
    gods: tuple[str, ...],
    pool: tuple[str, ...],
) -> bytes:
    """Everything before the squares: magic, version, the small fields and the god bytes.

    Cached: a game takes only a few dozen of these.
    """
    small = (
        STATE_ENCODING_VERSION,
        players,
        to_move,
        flags,
        eliminated,
        0xFF if winner < 0 else (0xFE if winner == NO_WINNER else winner),
        selection,
    )
    return _MAGIC + bytes(small) + _gods_bytes(gods, pool)


@lru_cache(maxsize=1024)
def _gods_bytes(gods: tuple[str, ...], pool: tuple[str, ...]) -> bytes:
    """The god bytes of a position: each seat's god, then the pool's length and gods."""
    return bytes((*(_god_byte(g) for g in gods), len(pool), *(god_id(g) for g in pool)))


_BLAKE2B_256: Final = hashlib.blake2b(digest_size=32)
"""An empty BLAKE2b-256 state, never updated: a copy of it is a third cheaper than a new one."""


def blake2b_256(data: bytes) -> bytes:
    """Return the BLAKE2b-256 digest of ``data`` (state hashes, chain hashes)."""
    h = _BLAKE2B_256.copy()
    h.update(data)
    return h.digest()


def state_hash(p: Position) -> bytes:
    """Return the BLAKE2b-256 digest of ``state_bytes(p)``: the state hash peers compare."""
    return blake2b_256(state_bytes(p))
