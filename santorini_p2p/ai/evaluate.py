"""The static evaluation: how good a position is for one side, and immediate wins.

Scores are integers in hundredths of a level, roughly: a worker one level higher is worth
about 100. The evaluation knows workers (a side can lose some to a power), heights, mobility,
climbs, threats to move up onto level 3 (and the domes and workers that block them), what the
other sides' powers impose on a side's turn (read from the engine's ``limits``: no moving up
or down, frozen or bound workers, forbidden directions, squares no move may win on), and,
through each god's own hooks (``extra_threats``, ``evaluation``), the wins and captures its
power adds. Deeper god tactics are left to the search.
"""

from __future__ import annotations

from typing import Final

from santorini_p2p.engine import Position, can_win_now, find_god, limits
from santorini_p2p.engine.gods import power_of
from santorini_p2p.engine.power import Limits
from santorini_p2p.engine.squares import ALL, NEIGHBOURS, bits

__all__ = ["WIN", "can_win_now", "evaluate", "threat_squares"]

WIN: Final = 1_000_000
"""The score of a won game; a win found ``k`` turns ahead scores ``WIN - k``."""

_WORKER: Final = 300
"""Each worker on the board, up to as many as the side placed (a power may remove one; with
none a side has no turn). A worker beyond those (gained by a power) is worth its height,
place and moves, and what its god's ``evaluation`` says."""
_HEIGHT: Final = (0, 100, 260, 180)
_CLIMB: Final = (12, 40, 0, 0)
_MOBILITY: Final = 6
_STUCK: Final = 120
_NEAR_THREAT: Final = 25
_THREAT_ONE: Final = 160
_THREAT_MANY: Final = 450
_TEMPO: Final = 25
_CENTRE: Final = tuple(
    (0, 8, 20)[min(min(s % 5, 4 - s % 5), min(s // 5, 4 - s // 5))] for s in range(25)
)


_FREE: Final = Limits()


def _limits(p: Position, seat: int) -> Limits:
    """What the other sides' powers impose on ``seat``'s turn (the engine's limits).

    A power state held by the seat to move is about to be replaced by its move, so it
    stops nobody moving up in the evaluation of that seat's turn.
    """
    if not any(p.gods):
        return _FREE
    lim = limits(p, seat)
    if lim.no_up and p.power_state and p.state_of(p.to_move) and seat != p.to_move:
        stale = Limits()
        for name in Limits.__slots__:
            setattr(stale, name, getattr(lim, name))
        stale.no_up = False
        return stale
    return lim


def threat_squares(p: Position, side: int) -> int:
    """Return the squares where a worker of ``side`` would win by moving (basic rule only).

    These are the free level-3 squares next to its level-2 workers; the evaluation adds
    the gods' ways of winning.
    """
    top = p.ge3 & ~p.domes
    occ = p.domes
    for m in p.workers:
        occ |= m
    out = 0
    for w in bits(p.workers[side] & p.ge2 & ~p.ge3):
        out |= NEIGHBOURS[w] & top & ~occ
    return out


def _side_score(p: Position, side: int, occ: int, to_move_side: int) -> tuple[int, int]:
    """The strength of one side's workers, ignoring everyone else's, and its threat squares."""
    mine = p.workers[side]
    if not mine:
        return 0, 0
    ge1, ge2, ge3 = p.ge1, p.ge2, p.ge3
    top = ge3 & ~p.domes
    lvl2 = ge2 & ~ge3
    by_level = (ALL ^ ge1, ge1 ^ ge2, lvl2, top)
    reach_up = (ALL ^ ge2, ALL ^ ge3, ALL, ALL)
    reach_flat = (ALL ^ ge1, ALL ^ ge2, ALL ^ ge3, ALL)
    at_least = (ALL, ge1, ge2, ge3)
    seats = [s for s in range(len(p.gods)) if p.side_of(s) == side]
    lim = _limits(p, seats[0]) if seats else _FREE
    restricted = lim.no_up
    seat_gods = [g for s, g in enumerate(p.gods) if p.side_of(s) == side]
    power = find_god(seat_gods[0]) if len(seat_gods) == 1 and seat_gods[0] else None
    opp = occ & ~mine & ~p.domes
    free_for = ~occ
    if power is not None and power.forces:
        free_for |= opp
    reach = reach_flat if restricted else reach_up
    near_binders = ALL
    if lim.bound & mine:
        # A bound worker that moves must end next to a worker of a binding side.
        near_binders = 0
        for i, m in enumerate(p.workers):
            if lim.binders >> i & 1:
                for b in bits(m):
                    near_binders |= NEIGHBOURS[b]
    placed = sum(power_of(g).placed for g in seat_gods) if seat_gods else 2
    score = _WORKER * min(mine.bit_count(), placed)
    threats = 0
    for w in bits(mine):
        h = (ge1 >> w & 1) + (ge2 >> w & 1) + (ge3 >> w & 1)
        nb = NEIGHBOURS[w]
        moves = 0 if lim.frozen >> w & 1 else nb & free_for & reach[h]
        if lim.bound >> w & 1:
            moves &= near_binders
        if lim.no_down:
            moves &= at_least[h]
        if lim.walks:
            moves = lim.walk(w, moves)
        score += _HEIGHT[h] + _CENTRE[w] + _MOBILITY * moves.bit_count()
        if not moves:
            score -= _STUCK
            continue
        if not restricted and h < 2:
            score += _CLIMB[h] * (moves & by_level[h + 1]).bit_count()
        if h == 2:
            if not restricted:
                threats |= moves & top
            score += _NEAR_THREAT * (nb & lvl2 & ~occ).bit_count()
        if power is not None:
            threats |= power.extra_threats(p, w, moves, occ, restricted)
    threats &= ~lim.no_win
    if power is not None:
        score += power.evaluation(p, side, occ, restricted)
    if threats:
        score += _THREAT_ONE if threats & (threats - 1) == 0 else _THREAT_MANY
    if side == to_move_side:
        score += _TEMPO
    return score, threats


def evaluate(p: Position, side: int) -> tuple[int, int]:
    """Return the static score of ``p`` for ``side`` and the threats facing the seat to move.

    The score is the side's strength minus its opponents'; with 3 players the opponents are
    taken together (the paranoid view): minus the strongest opponent's. The second value is
    the number of squares on which an opponent of the seat to move would win by moving there
    (with its god's power); two or more usually cannot all be blocked in one turn.
    """
    occ = p.domes
    for m in p.workers:
        occ |= m
    to_move_side = p.side_of(p.to_move)
    own = 0
    other = -(10**9)
    against = 0
    for s in range(len(p.workers)):
        if not p.workers[s]:
            continue
        score, threats = _side_score(p, s, occ, to_move_side)
        if s == side:
            own = score
        else:
            other = max(other, score)
        if s != to_move_side:
            against |= threats
    pressure = against.bit_count()
    return (own - other if other > -(10**9) else own), pressure
