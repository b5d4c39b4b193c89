"""Shared randomness from commit-reveal records: the start slot and the god draw (SPEC.md 11).

Every peer must derive the same draw from the same records on any machine, so the algorithm
is written down in protocol/SPEC.md section 11 and uses BLAKE2b only (never ``random``).

Public API:

- ``commitment(game_id, public_key, nonce) -> bytes``: what a ``Commit`` record carries;
- ``draw_seed(game_id, nonces) -> bytes``: the seed from the revealed nonces in slot order;
- ``DrawStream(seed).below(n)``: uniform integers by rejection sampling over a counter stream;
- ``draw_setup(seed, players, gods) -> (start_slot, drawn)``: the header slot that becomes
  seat 1 (the challenger in ``challenger`` mode), and the gods for ``draft``/``random``.
"""

from __future__ import annotations

import hashlib
from itertools import combinations
from typing import Final

from santorini_p2p.engine import GOD_NAMES, ban_reason

__all__ = ["COMMIT_DOMAIN", "DRAW_DOMAIN", "DrawStream", "commitment", "draw_seed", "draw_setup"]

COMMIT_DOMAIN: Final = b"santorini-p2p/1 commit\x00"
DRAW_DOMAIN: Final = b"santorini-p2p/1 draw\x00"


def commitment(game_id: bytes, public_key: bytes, nonce: bytes) -> bytes:
    """Return BLAKE2b-256(COMMIT_DOMAIN || game_id || public_key || nonce)."""
    return hashlib.blake2b(COMMIT_DOMAIN + game_id + public_key + nonce, digest_size=32).digest()


def draw_seed(game_id: bytes, nonces: tuple[bytes, ...]) -> bytes:
    """Return BLAKE2b-256(DRAW_DOMAIN || game_id || nonce of slot 0 || nonce of slot 1 ...)."""
    return hashlib.blake2b(DRAW_DOMAIN + game_id + b"".join(nonces), digest_size=32).digest()


class DrawStream:
    """A byte stream: BLAKE2b-256(seed || counter as 8 bytes big-endian), counter 0, 1, ..."""

    def __init__(self, seed: bytes) -> None:
        self._seed = seed
        self._counter = 0
        self._buffer = b""
        self._at = 0

    def byte(self) -> int:
        """Return the next byte of the stream."""
        if self._at == len(self._buffer):
            block = self._seed + self._counter.to_bytes(8, "big")
            self._buffer = hashlib.blake2b(block, digest_size=32).digest()
            self._counter += 1
            self._at = 0
        b = self._buffer[self._at]
        self._at += 1
        return b

    def below(self, n: int) -> int:
        """Return a uniform integer in ``0 .. n-1`` (1 <= n <= 256) by rejection sampling.

        A byte ``b`` is used when ``b < 256 - 256 % n`` and gives ``b % n``; otherwise it is
        skipped and the next byte is tried.
        """
        if not 1 <= n <= 256:
            raise ValueError(f"n: expected 1..256, got {n}")
        limit = 256 - 256 % n
        while True:
            b = self.byte()
            if b < limit:
                return b % n


def draw_setup(
    seed: bytes, players: int, gods: str, pool: tuple[str, ...] = GOD_NAMES
) -> tuple[int, tuple[str, ...]]:
    """Return ``(start_slot, drawn)`` for a game; first the slot, then the gods.

    The gods are drawn without replacement from the game's ``pool`` in god order (the ten
    simple gods, apollo ... prometheus, unless the header names another): each draw takes
    index ``below(len(remaining))`` and removes it. ``draft`` draws 4 gods with 2 players and
    players + 2 otherwise; ``random`` draws one per seat, dealt to seats 1, 2, ... in order;
    other modes draw none. A draw with a banned pair (RULES.md section 9) sets the later god
    of the pair aside and draws its replacement from the gods left, until no ban remains.

    Raises:
        ValueError: the pool holds fewer gods than the draw needs.
    """
    stream = DrawStream(seed)
    start = stream.below(players)
    if gods == "draft":
        count = 4 if players == 2 else players + 2
    elif gods == "random":
        count = players
    else:
        count = 0
    if count > len(pool):
        raise ValueError(f"pool: {gods} with {players} players needs {count} gods, got {len(pool)}")
    remaining = list(pool)
    drawn = []
    for _ in range(count):
        drawn.append(remaining.pop(stream.below(len(remaining))))
    while True:
        aside = _set_aside(drawn, players, gods)
        if aside < 0:
            return start, tuple(drawn)
        if not remaining:
            raise ValueError(f"pool: no {gods} draw for {players} players without a banned pair")
        drawn[aside] = remaining.pop(stream.below(len(remaining)))


def _set_aside(drawn: list[str], players: int, gods: str) -> int:
    """The index of the drawn god to set aside and draw again for, or -1 (RULES.md 9, "Ban").

    A ``random`` deal with a banned pair sets aside the later-drawn god of the first such pair
    (in drawing order); a ``draft`` pool sets one aside so only when no seats could all take
    gods with no banned pair among them.
    """
    if gods == "draft" and any(ban_reason(c) is None for c in combinations(drawn, players)):
        return -1
    for j in range(1, len(drawn)):
        for i in range(j):
            if ban_reason((drawn[i], drawn[j])):
                return j
    return -1
