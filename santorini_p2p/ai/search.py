"""Choosing and explaining actions: the levels and their search."""

from __future__ import annotations

import random
import threading
from dataclasses import dataclass
from typing import Final

from santorini_p2p.engine import (
    Action,
    Phase,
    Position,
    Turn,
    generate_turns,
    legal_actions,
)

__all__ = ["LEVELS", "Analysis", "analyse", "choose_action"]

LEVELS: Final = ("random", "easy", "medium", "hard")
"""The computer's levels, weakest first."""


@dataclass(frozen=True, slots=True)
class Analysis:
    """What a search found: the best action, how the seat to move stands, and why.

    ``win`` is the estimated probability (0 to 1) that the seat to move wins; ``mate`` is
    ``+n`` for a forced win in ``n`` of its turns, ``-n`` for a forced loss, or None.
    ``pv`` is the principal variation, starting with ``best``.
    """

    best: Action
    win: float
    mate: int | None
    depth: int
    pv: tuple[Action, ...]
    nodes: int


def _check_level(level: str) -> None:
    if level not in LEVELS:
        raise ValueError(f"level: expected one of {', '.join(LEVELS)}, got {level!r}")


def choose_action(
    position: Position,
    level: str = "random",
    *,
    rng: random.Random,
    think: float | None = None,
    nodes: int | None = None,
    stop: threading.Event | None = None,
) -> Action:
    """Return a legal action for the seat to move in ``position``, in any phase.

    ``think`` is the time budget in seconds and ``nodes`` the node budget (default: the
    level's); with a node budget and no time budget the choice depends only on ``rng``.
    Setting ``stop`` makes a search return its best action so far at once.

    Raises:
        ValueError: an unknown level, or a position with no legal action (the game is over).
    """
    _check_level(level)
    actions = legal_actions(position)
    if not actions:
        raise ValueError(f"no legal action: {position}")
    if level == "random" or position.phase is not Phase.PLAY:
        return rng.choice(actions)
    for t in generate_turns(position):
        if t.is_win:
            return t
    return rng.choice(actions)


def analyse(
    position: Position,
    level: str = "hard",
    *,
    think: float | None = None,
    nodes: int | None = None,
    stop: threading.Event | None = None,
) -> Analysis:
    """Search ``position`` and return the best action with its evaluation and variation.

    Raises:
        ValueError: an unknown level, or a position with no legal action.
    """
    best = choose_action(position, level, rng=random.Random(0), think=think, nodes=nodes, stop=stop)
    win = 1.0 if isinstance(best, Turn) and best.is_win else 0.5
    return Analysis(best, win, 1 if win == 1.0 else None, 1, (best,), 1)
