"""Asteria (RULES.md section 9): after a move down, a dome anywhere at the end of her turn."""

from __future__ import annotations

from typing import Final

from santorini_p2p.engine.position import OP, STAR, Position, Turn
from santorini_p2p.engine.power import Board, Gen, Power, plain_steps, plain_threats
from santorini_p2p.engine.squares import ALL, bits

_SPOIL: Final = (0, 120, 250)
"""What a dome she may put anywhere is worth against none, one or more opponent threats."""


class Asteria(Power):
    """The card's rulings (RULES.md section 9).

    Optional, one dome, after her build, on any unoccupied square at any level (also the
    square just built); only her own step down counts, not a slide. A dome on level 3 is a
    complete tower; a lower one next to a Limus worker is not allowed. Written ``*e5`` last.
    """

    name = "asteria"
    text = (
        "At the end of your turn, if one of your workers moved down this turn, you may build "
        "a dome on any unoccupied space."
    )

    def moved(
        self, g: Gen, w: int, path: tuple[int, ...], bd: Board, before: int, up: bool
    ) -> None:
        """The plain move; a step down opens the dome at the end."""
        frm = path[-2] if len(path) > 1 else w
        to = path[-1]
        if self.is_win(g, frm, to, bd):
            if g.bound_ok(w, to, bd):
                g.emit(Turn(w, path, (), before), up)
            return
        down = bd[0][to] < bd[0][frm]
        path, bd = g.land(frm, path, self.after_step(frm, to, bd, g))
        if not g.bound_ok(w, path[-1], bd):
            return
        if not down:
            self.builds(g, w, path, bd, before, up)
            return
        for b in bits(g.buildable(bd, path[-1])):
            g.emit(Turn(w, path, (b,), before), up)
            bd2, won = g.build(bd, b)
            if won:
                continue
            for d in bits(g.allowed(bd2, ALL & ~g.occupied(bd2))):
                g.emit(Turn(w, path, (b,), before, -1, (STAR * OP + d,)), up)

    def evaluation(self, p: Position, side: int, occ: int, no_up: bool) -> int:
        """What her dome anywhere is worth: one opponent threat spoiled on top of her build.

        Only with her turn next and a worker of hers that can step down.
        """
        if p.side_of(p.to_move) != side:
            return 0
        threats = plain_threats(p, side, occ)
        if not threats:
            return 0
        lower = (0, ALL ^ p.ge1, ALL ^ p.ge2, ALL ^ p.ge3)
        for w in bits(p.workers[side]):
            if plain_steps(p, w, occ, True) & lower[p.level(w)]:
                return _SPOIL[min(threats.bit_count(), 2)]
        return 0
