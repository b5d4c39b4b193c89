"""Medusa (RULES.md section 8): at the end of her turn, lower neighbours are petrified."""

from __future__ import annotations

from typing import Final

from santorini_p2p.engine.position import Position
from santorini_p2p.engine.power import Board, Gen, Power, build_on, plain_steps
from santorini_p2p.engine.squares import ALL, BITS, NEIGHBOURS, bits

_STONE_NOW: Final = (0, 250, 400)
"""Her turn and 0, 1 or 2 opponent workers she can petrify: about a worker each."""
_STONE_THREAT: Final = (0, 70, 220)
"""The same when the opponent moves first (it can save one worker, not two)."""


class Medusa(Power):
    """The card's rulings (RULES.md section 8).

    Mandatory; every opponent worker strictly lower than a neighbouring worker of hers, all
    at once, judged after her builds. Each victim leaves and a block goes on its square; that
    is a build, so an opponent's ban keeps the victim there. A winning move ends the turn
    first.
    """

    name = "medusa"
    example = "b2>c3^d4 as usual; the workers it removes are not typed"
    rank = 12
    text = (
        "At the end of your turn, if possible, build in lower neighbouring spaces that are "
        "occupied by opponent workers, removing the opponent workers from the game."
    )
    removes_workers = True
    end_effect = True

    def end_of_turn(self, bd: Board, g: Gen) -> Board:
        """Petrify every lower opponent worker next to one of hers."""
        lv, _, workers = bd
        victims = 0
        for s in bits(workers[g.side]):
            near = NEIGHBOURS[s]
            for t in bits(near & g.opponents(bd)):
                if lv[t] < lv[s]:
                    victims |= BITS[t]
        victims = g.allowed(bd, victims)
        if not victims:
            return bd
        moved = tuple(m & ~victims for m in workers)
        out: Board = (lv, bd[1], moved)
        for t in bits(victims):
            out = build_on(out, t)
        return out

    def evaluation(self, p: Position, side: int, occ: int, no_up: bool) -> int:
        """The opponent workers lower than a square next to them that she stands on or reaches."""
        opp = occ & ~p.domes & ~p.workers[side]
        lower = (0, ALL ^ p.ge1, ALL ^ p.ge2, ALL ^ p.ge3)
        victims = 0
        for w in bits(p.workers[side]):
            victims |= NEIGHBOURS[w] & opp & lower[p.level(w)]
            for m in bits(plain_steps(p, w, occ, no_up)):
                victims |= NEIGHBOURS[m] & opp & lower[p.level(m)]
        n = min(victims.bit_count(), 2)
        return (_STONE_NOW if p.side_of(p.to_move) == side else _STONE_THREAT)[n]
