"""Zeus (RULES.md section 8): build a block under himself."""

from __future__ import annotations

from typing import Final

from santorini_p2p.engine.position import Position, Turn
from santorini_p2p.engine.power import Board, Gen, Power
from santorini_p2p.engine.squares import BITS, NEIGHBOURS, bits

_RISE: Final = 50
"""A worker on level 1 next to a free level-3 square: a build under it makes a threat."""


class Zeus(Power):
    """The card's rulings (RULES.md section 8).

    Instead of the normal build; a block only (from level 0, 1 or 2); the worker rises one
    level and never wins by it. An opponent's ban forbids it as any other build.
    """

    name = "zeus"
    example = "b2>c3^c3 builds under the worker that moved"
    rank = 13
    text = "Your worker may build a block under itself."

    def builds(
        self, g: Gen, w: int, path: tuple[int, ...], bd: Board, before: int, up: bool
    ) -> None:
        """The plain builds, and a block under the worker."""
        end = path[-1]
        g.emit_builds(w, path, g.buildable(bd, end), before, up)
        if bd[0][end] < 3 and g.allowed(bd, BITS[end]):
            g.emit(Turn(w, path, (end,), before), up)

    def evaluation(self, p: Position, side: int, occ: int, no_up: bool) -> int:
        """Workers on level 1 that rise to level 2 next to a free level-3 square by themselves."""
        top = p.ge3 & ~p.domes & ~occ
        one = p.ge1 & ~p.ge2
        return _RISE * sum(1 for w in bits(p.workers[side] & one) if NEIGHBOURS[w] & top)
