"""Medusa (RULES.md section 8): at the end of her turn, lower neighbours are petrified."""

from __future__ import annotations

from santorini_p2p.engine.power import Board, Gen, Power, build_on
from santorini_p2p.engine.squares import BITS, NEIGHBOURS, bits


class Medusa(Power):
    """The card's rulings (RULES.md section 8).

    Mandatory; every opponent worker strictly lower than a neighbouring worker of hers, all
    at once, judged after her builds. Each victim leaves and a block goes on its square; that
    is a build, so an opponent's ban keeps the victim there. A winning move ends the turn
    first.
    """

    name = "medusa"
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
