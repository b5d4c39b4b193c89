"""Perft: count complete-turn sequences of a given length, for testing the move generator.

A winning turn ends its line and counts at its own depth (RULES.md section 7). The base game
with two players has a dedicated counter over raw bitboards; every other position goes
through the general generator.
"""

from __future__ import annotations

from santorini_p2p.engine.position import Phase, Position, Turn
from santorini_p2p.engine.rules import apply_unchecked, count_turns, generate_turns
from santorini_p2p.engine.squares import ALL, NEIGHBOURS

__all__ = ["divide", "perft"]

_NB = NEIGHBOURS


def _base_count(g1: int, g2: int, g3: int, domes: int, me: int, opp: int) -> int:
    """Leaf count of one ply in the base game (no powers, no restriction) from raw bitboards."""
    occ = me | opp | domes
    free_all = ALL ^ occ
    total = 0
    m = me
    while m:
        wb = m & -m
        m ^= wb
        w = wb.bit_length() - 1
        h = (g1 >> w & 1) + (g2 >> w & 1) + (g3 >> w & 1)
        targets = _NB[w] & free_all
        if h == 0:
            targets &= ~g2
        elif h == 1:
            targets &= ~g3
        elif h == 2:
            wins = targets & g3
            total += wins.bit_count()
            targets ^= wins
        free = free_all | wb
        while targets:
            tb = targets & -targets
            targets ^= tb
            total += (_NB[tb.bit_length() - 1] & free).bit_count()
    return total


def _base_perft(g1: int, g2: int, g3: int, domes: int, me: int, opp: int, depth: int) -> int:
    if depth == 1:
        return _base_count(g1, g2, g3, domes, me, opp)
    occ = me | opp | domes
    free_all = ALL ^ occ
    total = 0
    m = me
    while m:
        wb = m & -m
        m ^= wb
        w = wb.bit_length() - 1
        h = (g1 >> w & 1) + (g2 >> w & 1) + (g3 >> w & 1)
        targets = _NB[w] & free_all
        if h == 0:
            targets &= ~g2
        elif h == 1:
            targets &= ~g3
        elif h == 2:
            targets &= ~g3  # a win ends its line, so it adds nothing deeper
        rest = me ^ wb
        free = free_all | wb
        while targets:
            tb = targets & -targets
            targets ^= tb
            me2 = rest | tb
            builds = _NB[tb.bit_length() - 1] & free
            while builds:
                bb = builds & -builds
                builds ^= bb
                if not g1 & bb:
                    total += _base_perft(g1 | bb, g2, g3, domes, opp, me2, depth - 1)
                elif not g2 & bb:
                    total += _base_perft(g1, g2 | bb, g3, domes, opp, me2, depth - 1)
                elif not g3 & bb:
                    total += _base_perft(g1, g2, g3 | bb, domes, opp, me2, depth - 1)
                else:
                    total += _base_perft(g1, g2, g3, domes | bb, opp, me2, depth - 1)
    return total


def _is_base(p: Position) -> bool:
    return p.players == 2 and not p.gods[0] and not p.gods[1]


def _perft(p: Position, depth: int) -> int:
    if _is_base(p):
        me = p.workers[p.to_move]
        opp = p.workers[1 - p.to_move]
        return _base_perft(p.ge1, p.ge2, p.ge3, p.domes, me, opp, depth)
    if depth == 1:
        return count_turns(p)
    total = 0
    for t in generate_turns(p):
        if t.is_win:
            continue
        child = apply_unchecked(p, t)
        if child.phase is Phase.PLAY:
            total += _perft(child, depth - 1)
    return total


def perft(p: Position, depth: int) -> int:
    """Return the number of complete-turn sequences of length ``depth`` from ``p``.

    >>> from santorini_p2p.engine.notation import parse_position
    >>> perft(parse_position("00000/00B00A0/00000/00A00B0/00000 1 -,- -"), 2)
    6176
    """
    if depth < 0:
        raise ValueError(f"depth must be at least 0, got {depth}")
    if p.phase is not Phase.PLAY:
        return 1 if depth == 0 else 0
    if depth == 0:
        return 1
    return _perft(p, depth)


def divide(p: Position, depth: int) -> list[tuple[Turn, int]]:
    """Return each legal turn with the perft count below it, sorted by turn text."""
    if depth < 1:
        raise ValueError(f"depth must be at least 1, got {depth}")
    out = []
    for t in sorted(generate_turns(p), key=str) if p.phase is Phase.PLAY else []:
        if depth == 1:
            out.append((t, 1))
            continue
        child = apply_unchecked(p, t)
        n = 0 if t.is_win or child.phase is not Phase.PLAY else _perft(child, depth - 1)
        out.append((t, n))
    return out
