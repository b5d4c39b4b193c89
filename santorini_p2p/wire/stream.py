"""Shared randomness after the start, from hash chains committed at the start (SECRET.md 9).

A mode that draws during play (Party's passing order, a redraw) must not let the last peer to
reveal choose the result. So every seat commits, before the game, to the anchor of a hash
chain: ``link[0]`` is 32 secret bytes, ``link[i + 1] = BLAKE2b-256(CHAIN_DOMAIN || game_id ||
seat || link[i])`` and the anchor is ``link[L]``. Draw ``k`` (1, 2, ...) takes each seat's
``link[L - k]``, which every peer checks against the link before it; nothing is left to
choose, and a seat that does not reveal abandons the game (its peers sign that in the log).

Public API:

- ``chain(secret, game_id, seat, length) -> tuple[bytes, ...]``: every link, ``link[0]`` first;
- ``link_error(link, before, game_id, seat) -> str | None``: why a revealed link is refused;
- ``draw_seed(game_id, k, links) -> bytes``: the seed of draw ``k`` from every seat's link;
- ``DrawStream(seed).below(n)`` (from ``wire.draw``) then reads uniform integers from it.
"""

from __future__ import annotations

import hashlib
from collections.abc import Sequence
from typing import Final

__all__ = ["CHAIN_DOMAIN", "MAX_DRAWS", "STREAM_DOMAIN", "chain", "draw_seed", "link_error"]

CHAIN_DOMAIN: Final = b"santorini-p2p/1 chain\x00"
STREAM_DOMAIN: Final = b"santorini-p2p/1 stream\x00"
LINK_BYTES: Final = 32
MAX_DRAWS: Final = 1024
"""The longest chain a header may ask for: more draws than any game makes."""


def _next(link: bytes, game_id: bytes, seat: int) -> bytes:
    return hashlib.blake2b(
        CHAIN_DOMAIN + game_id + bytes([seat]) + link, digest_size=LINK_BYTES
    ).digest()


def chain(secret: bytes, game_id: bytes, seat: int, length: int) -> tuple[bytes, ...]:
    """Return ``link[0] .. link[length]``: ``link[0]`` is ``secret``, the last the anchor.

    Raises:
        ValueError: a secret that is not 32 bytes, or a length outside 1 .. MAX_DRAWS.
    """
    if len(secret) != LINK_BYTES:
        raise ValueError(f"secret: expected {LINK_BYTES} bytes, got {len(secret)}")
    if not 1 <= length <= MAX_DRAWS:
        raise ValueError(f"length: expected 1 to {MAX_DRAWS}, got {length}")
    links = [secret]
    for _ in range(length):
        links.append(_next(links[-1], game_id, seat))
    return tuple(links)


def link_error(link: bytes, before: bytes, game_id: bytes, seat: int) -> str | None:
    """Why seat ``seat``'s revealed ``link`` does not hash to ``before`` (its last), or None."""
    if len(link) != LINK_BYTES:
        return f"seat {seat + 1}'s link: expected {LINK_BYTES} bytes, got {len(link)}"
    if _next(link, game_id, seat) != before:
        return f"seat {seat + 1}'s link does not hash to the one it revealed before"
    return None


def draw_seed(game_id: bytes, k: int, links: Sequence[bytes]) -> bytes:
    """Return BLAKE2b-256(STREAM_DOMAIN || game_id || k as 8 bytes || link of seat 1 || ...)."""
    if not 1 <= k <= MAX_DRAWS:
        raise ValueError(f"draw: expected 1 to {MAX_DRAWS}, got {k}")
    return hashlib.blake2b(
        STREAM_DOMAIN + game_id + k.to_bytes(8, "big") + b"".join(links), digest_size=32
    ).digest()
