"""Atlas (RULES.md section 6): a dome at any level."""

from __future__ import annotations

from santorini_p2p.engine.position import DOME, Turn
from santorini_p2p.engine.power import Board, Gen, Power
from santorini_p2p.engine.squares import bits


class Atlas(Power):
    """A dome on level 0, 1 or 2 is written ``D``; on level 3 it is the normal build."""

    name = "atlas"
    example = "b2>c3^d4D builds a dome at any level"
    rank = 8
    text = "Your worker may build a dome at any level."
    plain_shaped = True

    def builds(
        self, g: Gen, w: int, path: tuple[int, ...], bd: Board, before: int, up: bool
    ) -> None:
        """The plain builds, and a low dome on each square below level 3."""
        free = g.buildable(bd, path[-1])
        g.emit_builds(w, path, free, before, up)
        lv = bd[0]
        low = [b for b in bits(free) if lv[b] < 3]
        if not g.add(len(low)):
            for b in low:
                g.emit(Turn(w, path, (b | DOME,), before), up)
