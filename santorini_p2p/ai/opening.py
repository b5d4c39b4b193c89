"""Setup choices: which gods to offer and take, who starts, where workers go.

The gods are ranked by how much their power is worth to this program's search (the strong
movers first); the ranking and the placement weights are heuristics, not rules.
"""

from __future__ import annotations

import random
from typing import Final

from santorini_p2p.engine import (
    GODS,
    Action,
    ChooseGods,
    NameStart,
    Phase,
    PickGod,
    Place,
    Position,
    apply_action,
    apply_unchecked,
    can_win_now,
    find_god,
    generate_turns,
    legal_actions,
    placement_due,
)
from santorini_p2p.engine.gods import power_of
from santorini_p2p.engine.power import Power
from santorini_p2p.engine.squares import NEIGHBOURS

__all__ = ["GOD_RANKING", "choose_setup"]

GOD_RANKING: Final = tuple(
    g.name for g in sorted((g for g in GODS if g.rank is not None), key=lambda g: g.rank or 0)
)
"""The gods the computer ranks, strongest first (for picking and offering), from each god's
``rank``: the simple gods first, whose powers this program's search and evaluation know best;
a god without a rank comes after them all."""

_CENTRE: Final = tuple(
    (0, 6, 14)[min(min(s % 5, 4 - s % 5), min(s // 5, 4 - s // 5))] for s in range(25)
)


def _rank(god: str) -> int:
    """A god's place in the ranking (``Power.rank``); one without ranks after every ranked one."""
    rank = find_god(god).rank
    return rank if rank is not None else len(GOD_RANKING) + 1


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


_SAFETY_CHECKS: Final = 64
"""The most placements, best scored first, checked for a loss in the opponent's first turn."""
_PLAYED_OUT: Final = 2_000
"""The longest list of the opponent's first turns that is played out turn by turn."""


def _wins_otherwise(power: Power) -> bool:
    """Whether ``power`` can win otherwise than by a move: at the end of its turn."""
    cls = type(power)
    return (
        cls.wins_at_end_of_turn is not Power.wins_at_end_of_turn
        or cls.losers_at_end_of_turn is not Power.losers_at_end_of_turn
    )


def _loses_at_once(p: Position, place: Place, side: int) -> bool:
    """Whether, after ``place``, an opponent moving next has a turn that wins at once.

    A win by moving is seen from the bitboards (``can_win_now``); where the opponent's power
    wins at the end of its turn too (a worker caught between two of its own), its turns are
    played out, up to ``_PLAYED_OUT`` of them. Placements by others still to come are not
    looked at.
    """
    q = apply_action(p, place)
    if q.phase is not Phase.PLAY or q.winner >= 0 or q.side_of(q.to_move) == side:
        return False
    if can_win_now(q):
        return True
    if not _wins_otherwise(power_of(q.gods[q.to_move])):
        return False
    turns = generate_turns(q)
    if len(turns) > _PLAYED_OUT:
        return False
    for t in turns:
        r = apply_unchecked(q, t)
        if r.winner >= 0 and r.side_of(r.winner) != side:
            return True
    return False


def _choose_place(p: Position, places: list[Place], rng: random.Random) -> Place:
    """One of the legal ``places`` (a god may confine them) scored best, ground level first.

    A placement after which the opponent, moving first, wins at once (a god's power can
    win from the start: a worker caught between two of the opponent's) is passed over for
    the best scored of those that survive the opponent's first turn.
    """
    side, _ = placement_due(p)
    low = [a for a in places if not any(p.ge1 >> s & 1 for s in a.squares)]
    scored = [(_place_score(p, a.squares, side), a) for a in (low or places)]
    safe: set[int] = set()
    best_safe: int | None = None
    passed_over = False
    for checked, i in enumerate(sorted(range(len(scored)), key=lambda i: -scored[i][0])):
        score, a = scored[i]
        if checked >= _SAFETY_CHECKS or (best_safe is not None and score < best_safe - 3):
            break
        if _loses_at_once(p, a, side):
            passed_over = True
        else:
            safe.add(i)
            if best_safe is None:
                best_safe = score
    if passed_over and best_safe is not None:
        # Only the placements seen to be safe (in their first order, as before).
        scored = [sa for i, sa in enumerate(scored) if i in safe]
    top = max(score for score, _ in scored)
    good = [a for score, a in scored if score >= top - 3]
    return rng.choice(good)


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
        # The gods on offer are those of the legal sets (the game's pool), strongest first.
        n = p.players
        offered = sorted(
            {g for a in actions if isinstance(a, ChooseGods) for g in a.gods}, key=_rank
        )
        start = rng.randrange(0, max(1, min(5, len(offered)) - n + 2))
        gods = sorted(offered[start : start + n])
        for a in actions:
            if isinstance(a, ChooseGods) and sorted(a.gods) == gods:
                return a
        return rng.choice(actions)
    if isinstance(first, NameStart):
        return NameStart(p.to_move)
    if isinstance(first, Place):
        return _choose_place(p, [a for a in actions if isinstance(a, Place)], rng)
    picks = [a for a in actions if isinstance(a, PickGod)]
    return min(picks, key=lambda a: _rank(a.god)) if picks else rng.choice(actions)
