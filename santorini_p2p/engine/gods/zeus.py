"""Zeus (RULES.md section 8): build a block under himself."""

from __future__ import annotations

from santorini_p2p.engine.position import Turn
from santorini_p2p.engine.power import Board, Gen, Power
from santorini_p2p.engine.squares import BITS


class Zeus(Power):
    """The card's rulings (RULES.md section 8).

    Instead of the normal build; a block only (from level 0, 1 or 2); the worker rises one
    level and never wins by it. An opponent's ban forbids it as any other build.
    """

    name = "zeus"
    text = "Your worker may build a block under itself."

    def builds(
        self, g: Gen, w: int, path: tuple[int, ...], bd: Board, before: int, up: bool
    ) -> None:
        """The plain builds, and a block under the worker."""
        end = path[-1]
        g.emit_builds(w, path, g.buildable(bd, end), before, up)
        if bd[0][end] < 3 and g.allowed(bd, BITS[end]):
            g.emit(Turn(w, path, (end,), before), up)
