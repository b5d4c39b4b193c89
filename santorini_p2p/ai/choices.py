"""The computer's choices in another seat's turn, and its turn after another seat chose.

A seat with Gaea chooses in its opponent's turn (protocol/SPEC.md 8.4): :func:`answer_for`
picks its answer, the one whose worst continuation for it (the mover playing on as it likes
best) scores best by the static evaluation. :func:`go_on` picks the mover's turn when a
choice made in it broke the turn it had planned: the best of the turns that go on from the
choices signed so far, by the same evaluation one ply deep.
"""

from __future__ import annotations

from collections.abc import Sequence

from santorini_p2p.ai.evaluate import evaluate
from santorini_p2p.engine import Position, Turn, apply_unchecked
from santorini_p2p.engine.choices import Choice, choice_options, turns_after
from santorini_p2p.engine.position import NO_WINNER

__all__ = ["answer_for", "go_on"]

_WIN = 10**9


def _score(p: Position, turn: Turn, seat: int) -> int:
    """How good the position after ``turn`` is for ``seat``'s side (a win or loss: extreme)."""
    q = apply_unchecked(p, turn)
    side = q.side_of(seat)
    if 0 <= q.winner != NO_WINNER:
        return _WIN if q.side_of(q.winner) == side else -_WIN
    return evaluate(q, side)[0]


def answer_for(p: Position, answered: Sequence[Choice], asked: str) -> str:
    """The answer the computer gives where it chooses after ``asked`` in ``p``'s turn.

    Raises:
        ValueError: no seat chooses there.
    """
    seat, options = choice_options(p, answered, asked)
    if seat < 0:
        raise ValueError(f"no seat chooses after {asked!r}")
    best = options[0]
    best_score = -_WIN - 1
    for option in options:
        turns = turns_after(p, (*answered, Choice(seat, asked, option)))
        worst = min((_score(p, t, seat) for t in turns), default=-_WIN)
        if worst > best_score:
            best, best_score = option, worst
    return best


def go_on(p: Position, answered: Sequence[Choice]) -> Turn:
    """The mover's best turn among those that go on from ``answered``.

    Raises:
        ValueError: no legal turn goes on from them.
    """
    turns = turns_after(p, answered)
    if not turns:
        raise ValueError("no legal turn goes on from the choices made")
    return max(turns, key=lambda t: _score(p, t, p.to_move))
