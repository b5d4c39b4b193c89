"""Setup choices: which gods to offer and take, who starts, where workers go.

The gods are ranked by how much their power is worth to this program's search (the strong
movers first); the ranking and the placement weights are heuristics, not rules.
"""

from __future__ import annotations

import random
from itertools import combinations
from typing import Final

from santorini_p2p.engine import (
    Action,
    ChooseGods,
    NameStart,
    PickGod,
    Place,
    Position,
    legal_actions,
    placement_due,
)
from santorini_p2p.engine.squares import NEIGHBOURS

__all__ = ["GOD_RANKING", "choose_setup"]

GOD_RANKING: Final = (
    "artemis",
    "minotaur",
    "pan",
    "apollo",
    "athena",
    "demeter",
    "prometheus",
    "atlas",
    "hephaestus",
    "hermes",
)
"""Every god, strongest first (for picking and offering)."""

_CENTRE: Final = tuple(
    (0, 6, 14)[min(min(s % 5, 4 - s % 5), min(s // 5, 4 - s // 5))] for s in range(25)
)


def _rank(god: str) -> int:
    return GOD_RANKING.index(god)


def _distance(a: int, b: int) -> int:
    return max(abs(a % 5 - b % 5), abs(a // 5 - b // 5))


def _place_score(p: Position, squares: tuple[int, ...], side: int) -> int:
    """How good a placement is: central, own workers near each other, near opponents."""
    score = sum(_CENTRE[s] for s in squares)
    own = [s for s in range(25) if p.workers[side] >> s & 1] + list(squares)
    if len(own) == 2:
        d = _distance(own[0], own[1])
        score += (0, 6, 8, 3, 0)[d]
    opp = [s for i, m in enumerate(p.workers) if i != side for s in range(25) if m >> s & 1]
    for s in squares:
        for o in opp:
            score += 5 if NEIGHBOURS[o] >> s & 1 else 0
    return score


def _choose_place(p: Position, rng: random.Random) -> Place:
    side, count = placement_due(p)
    occupied = p.domes
    for m in p.workers:
        occupied |= m
    empty = [s for s in range(25) if not occupied >> s & 1 and not p.ge1 >> s & 1]
    if len(empty) < count:
        empty = [s for s in range(25) if not occupied >> s & 1]
    scored = [(_place_score(p, c, side), c) for c in combinations(empty, count)]
    top = max(score for score, _ in scored)
    good = [c for score, c in scored if score >= top - 3]
    return Place(rng.choice(good))


def choose_setup(p: Position, level: str, rng: random.Random) -> Action:
    """Return the setup action of ``level`` for the seat to move (god, start seat, placement).

    ``random`` picks uniformly among the legal actions; the other levels take the strongest
    god on offer, offer a set of strong gods of similar worth, name themselves start player
    and place workers centrally.
    """
    actions = legal_actions(p)
    if not actions:
        raise ValueError(f"no legal action: {p}")
    if level == "random":
        return rng.choice(actions)
    first = actions[0]
    if isinstance(first, ChooseGods):
        # The challenger keeps the god the others leave: offer gods of similar worth.
        n = p.players
        start = rng.randrange(0, 5 - n + 2)
        gods = tuple(sorted(GOD_RANKING[start : start + n], key=GOD_RANKING.index))
        for a in actions:
            if isinstance(a, ChooseGods) and sorted(a.gods) == sorted(gods):
                return a
        return rng.choice(actions)
    if isinstance(first, NameStart):
        return NameStart(p.to_move)
    if isinstance(first, Place):
        return _choose_place(p, rng)
    picks = [a for a in actions if isinstance(a, PickGod)]
    return min(picks, key=lambda a: _rank(a.god)) if picks else rng.choice(actions)
