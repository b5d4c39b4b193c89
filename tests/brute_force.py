"""Forced results by plain minimax over every turn, with no pruning: the reference for tests."""

from __future__ import annotations

from santorini_p2p.engine import NO_WINNER, Position, apply_unchecked, generate_turns


def _won_by(p: Position, side: int) -> bool:
    return p.winner >= 0 and p.winner != NO_WINNER and p.side_of(p.winner) == side


def wins_within(p: Position, n: int) -> bool:
    """Whether the side to move in ``p`` forces a win within ``n`` of its own turns."""
    me = p.side_of(p.to_move)
    for t in generate_turns(p):
        c = apply_unchecked(p, t)
        if _won_by(c, me):
            return True
        if c.winner >= 0 or n == 1:
            continue
        if all(
            _won_by(q, me) or (q.winner < 0 and wins_within(q, n - 1))
            for q in (apply_unchecked(c, r) for r in generate_turns(c))
        ):
            return True
    return False


def loses_within(p: Position, n: int) -> bool:
    """Whether every turn of the side to move in ``p`` lets the other side win within ``n``."""
    me = p.side_of(p.to_move)
    for t in generate_turns(p):
        c = apply_unchecked(p, t)
        if c.winner >= 0:
            if _won_by(c, me):
                return False
            continue
        if not wins_within(c, n):
            return False
    return True


def forced(p: Position, most: int) -> int | None:
    """The exact forced result within ``most`` turns: ``n`` wins in n, ``-n`` loses in n."""
    for n in range(1, most + 1):
        if wins_within(p, n):
            return n
        if loses_within(p, n):
            return -n
    return None
