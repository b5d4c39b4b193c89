"""Scylla (RULES.md section 9): she may drag an opponent worker into the square she left."""

from __future__ import annotations

from typing import Final

from santorini_p2p.engine.position import DRAG, OP, Position, Turn
from santorini_p2p.engine.power import Board, Gen, Power, plain_steps, plain_threats
from santorini_p2p.engine.squares import BITS, NEIGHBOURS, bits

_DRAG_DOWN: Final = 140
"""What dragging a threatening opponent worker down off its level 2 is worth, her turn next."""


class Scylla(Power):
    """The card's rulings (RULES.md section 9).

    Optional, one opponent worker next to the square she left, at any level difference; a
    force (no win). After the move and any slide, before the build (so not on that square);
    a winning move ends the turn first. Aphrodite judges after the drag. Written
    ``b2>c3~a1^d4``.
    """

    name = "scylla"
    text = (
        "If your worker moves away from a space next to an opponent's worker, you may force "
        "that worker into the space yours just left."
    )

    def moved(
        self, g: Gen, w: int, path: tuple[int, ...], bd: Board, before: int, up: bool
    ) -> None:
        """The plain move, and each drag before the build."""
        frm = path[-2] if len(path) > 1 else w
        to = path[-1]
        if self.is_win(g, frm, to, bd):
            if g.bound_ok(w, to, bd):
                g.emit(Turn(w, path, (), before), up)
            return
        path, bd = g.land(frm, path, self.after_step(frm, to, bd, g))
        rest = path[-1]
        if g.bound_ok(w, rest, bd):
            self.builds(g, w, path, bd, before, up)
        lv, domes, workers = bd
        for v in bits(NEIGHBOURS[w] & g.opponents(bd)):
            moved = tuple(m ^ (BITS[v] | BITS[w]) if m >> v & 1 else m for m in workers)
            bd2 = (lv, domes, moved)
            if not g.bound_ok(w, rest, bd2):
                continue
            post = (DRAG * OP + v,)
            for b in bits(g.buildable(bd2, rest)):
                g.emit(Turn(w, path, (b,), before, -1, post), up)

    def evaluation(self, p: Position, side: int, occ: int, no_up: bool) -> int:
        """What her drag is worth: a threatening opponent worker pulled down off level 2.

        With her turn next, that worker next to one of hers on a lower level that can step
        away: it is dragged into the square she leaves.
        """
        if p.side_of(p.to_move) != side:
            return 0
        threats = plain_threats(p, side, occ)
        if not threats:
            return 0
        mine = p.workers[side]
        for w in bits(mine):
            if p.level(w) >= 2 or not plain_steps(p, w, occ, no_up):
                continue
            for v in bits(NEIGHBOURS[w] & occ & ~mine & ~p.domes & p.ge2 & ~p.ge3):
                if NEIGHBOURS[v] & threats:
                    return _DRAG_DOWN
        return 0
