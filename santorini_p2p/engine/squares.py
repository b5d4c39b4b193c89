"""Squares as ints (a1 = 0 .. e5 = 24), their names, and neighbour tables built once at import."""

from __future__ import annotations

from typing import Final, TypeAlias

__all__ = [
    "ALL",
    "BITS",
    "DELTAS",
    "DIAGONAL",
    "HEADING",
    "NEIGHBOURS",
    "NEIGHBOUR_LISTS",
    "PUSH",
    "SLANTED",
    "SPREAD10",
    "SPREAD13",
    "SQUARES",
    "SQUARE_NAMES",
    "STEP",
    "TOWARDS",
    "Square",
    "bits",
    "file_of",
    "levels",
    "rank_of",
    "square",
    "square_name",
]

Square: TypeAlias = int
"""A square index, ``(rank - 1) * 5 + file`` with files and ranks from 0 (RULES.md section 1)."""

SQUARES: Final = tuple(range(25))
SQUARE_NAMES: Final = tuple(f"{'abcde'[s % 5]}{s // 5 + 1}" for s in SQUARES)
ALL: Final = (1 << 25) - 1
"""The bitboard of every square."""


def file_of(s: Square) -> int:
    """Return the file of ``s``, 0 (a) to 4 (e)."""
    return s % 5


def rank_of(s: Square) -> int:
    """Return the rank of ``s``, 0 (rank 1) to 4 (rank 5)."""
    return s // 5


def square(file: int, rank: int) -> Square:
    """Return the square on ``file`` and ``rank`` (both 0-4).

    >>> square(2, 2)
    12
    """
    return rank * 5 + file


def square_name(s: Square) -> str:
    """Return the name of ``s``.

    >>> square_name(12)
    'c3'
    """
    return SQUARE_NAMES[s]


def _scan(mask: int) -> list[Square]:
    """The set bits of ``mask`` in ascending order, one at a time."""
    out: list[Square] = []
    while mask:
        low = mask & -mask
        out.append(low.bit_length() - 1)
        mask ^= low
    return out


def _table(first: int, count: int) -> tuple[list[Square], ...]:
    """``bits(m << first)`` for every ``m`` below ``1 << count``.

    Each mask's list is that of the mask without its highest bit, then that bit.
    """
    out: list[list[Square]] = [[]]
    for s in range(first, first + count):
        out += [[*known, s] for known in out]
    return tuple(out)


_LOW_BITS: Final = _table(0, 13)
"""``bits`` of every mask of the first 13 squares (a1 to c3)."""
_HIGH_BITS: Final = _table(13, 12)
"""``bits`` of every mask of the other 12 squares, shifted down by 13."""


def bits(mask: int) -> list[Square]:
    """Return the squares of a bitboard in ascending order (a new list).

    >>> bits(0b101)
    [0, 2]
    """
    if not mask >> 25:
        # Two table look-ups: the engine asks this of every worker and step it tries.
        return _LOW_BITS[mask & 8191] + _HIGH_BITS[mask >> 13]
    return _scan(mask)


def _neighbours(s: Square) -> int:
    f, r = file_of(s), rank_of(s)
    mask = 0
    for df in (-1, 0, 1):
        for dr in (-1, 0, 1):
            if (df or dr) and 0 <= f + df < 5 and 0 <= r + dr < 5:
                mask |= 1 << square(f + df, r + dr)
    return mask


def _push(origin: Square, target: Square) -> Square:
    """Return the square one step beyond ``target`` away from ``origin``, or -1 off the board."""
    df = file_of(target) - file_of(origin)
    dr = rank_of(target) - rank_of(origin)
    f, r = file_of(target) + df, rank_of(target) + dr
    return square(f, r) if 0 <= f < 5 and 0 <= r < 5 else -1


BITS: Final = tuple(1 << s for s in SQUARES)
NEIGHBOURS: Final = tuple(_neighbours(s) for s in SQUARES)
"""``NEIGHBOURS[s]`` is the bitboard of the up to 8 squares around ``s``."""
NEIGHBOUR_LISTS: Final = tuple(tuple(bits(NEIGHBOURS[s])) for s in SQUARES)
PUSH: Final = tuple(
    tuple(_push(o, t) if NEIGHBOURS[o] >> t & 1 else -1 for t in SQUARES) for o in SQUARES
)
"""``PUSH[origin][target]``: the square beyond ``target`` seen from ``origin`` (-1: off board)."""

SPREAD10: Final = tuple(sum(1 << (8 * i) for i in range(10) if x >> i & 1) for x in range(1024))
"""A 10-bit value with bit ``i`` moved to bit ``8 * i``: spreads a bitboard to a byte a square."""

SPREAD13: Final = tuple(SPREAD10[x & 1023] | SPREAD10[x >> 10] << 80 for x in range(8192))
"""``SPREAD10`` for 13 bits: a bitboard spreads in two lookups (squares 0-12, then 13-24).

(About 400 kB; half the cost of spreading in three lookups of ``SPREAD10``.)"""


DELTAS: Final = ((0, 1), (1, 1), (1, 0), (1, -1), (0, -1), (-1, -1), (-1, 0), (-1, 1))
"""(file, rank) steps of the eight directions n, ne, e, se, s, sw, w, nw (RULES.md 10.1)."""


def _step(d: int, s: Square) -> Square:
    f, r = s % 5 + DELTAS[d][0], s // 5 + DELTAS[d][1]
    return r * 5 + f if 0 <= f < 5 and 0 <= r < 5 else -1


STEP: Final = tuple(tuple(_step(d, s) for s in SQUARES) for d in range(8))
"""``STEP[d][s]``: the square one step from ``s`` in direction ``d``, or -1 off the board."""
TOWARDS: Final = tuple(
    tuple(1 << STEP[d][s] if STEP[d][s] >= 0 else 0 for s in SQUARES) for d in range(8)
)
"""``TOWARDS[d][s]``: the bitboard of ``STEP[d][s]`` (0 off the board)."""
DIAGONAL: Final = tuple(
    TOWARDS[1][s] | TOWARDS[3][s] | TOWARDS[5][s] | TOWARDS[7][s] for s in SQUARES
)
"""The diagonal neighbours of each square."""


def _heading(frm: Square, to: Square) -> int:
    """The direction (0-7) of a step from ``frm`` to ``to`` as played, or -1 (the same square).

    A file or rank distance of 4 is a wrapped step (a1 to e1 round the edge is westward); a
    distance of 2 is a jump, whose direction is that of its half.
    """
    df, dr = to % 5 - frm % 5, to // 5 - frm // 5
    df = -1 if df == 4 else 1 if df == -4 else (df > 0) - (df < 0)
    dr = -1 if dr == 4 else 1 if dr == -4 else (dr > 0) - (dr < 0)
    return DELTAS.index((df, dr)) if (df, dr) != (0, 0) else -1


HEADING: Final = tuple(
    tuple(sum(1 << t for t in SQUARES if _heading(s, t) == d) for s in SQUARES) for d in range(8)
)
"""``HEADING[d][s]``: every square a step, wrapped step or jump from ``s`` reaches going in
direction ``d`` (RULES.md 10.4: a step's direction is the one it is played in)."""
SLANTED: Final = tuple(
    HEADING[1][s] | HEADING[3][s] | HEADING[5][s] | HEADING[7][s] for s in SQUARES
)
"""Every square a step from each square reaches diagonally (wrapped steps and jumps too)."""


def levels(ge1: int, ge2: int, ge3: int) -> list[int]:
    """Return the level of every square from the three level bitboards (a1 first).

    >>> levels(0b11, 0b10, 0)[:3]
    [1, 2, 0]
    """
    t = SPREAD13
    cells = t[ge1 & 8191] + t[ge2 & 8191] + t[ge3 & 8191]
    cells |= (t[ge1 >> 13] + t[ge2 >> 13] + t[ge3 >> 13]) << 104
    return list(cells.to_bytes(25, "little"))
