"""Hephaestus (RULES.md section 6): a second block on the first."""

from __future__ import annotations

from santorini_p2p.engine.position import Turn
from santorini_p2p.engine.power import Board, Gen, Power
from santorini_p2p.engine.squares import bits


class Hephaestus(Power):
    """Only when the first build went onto level 0 or 1 (never a dome)."""

    name = "hephaestus"
    example = "b2>c3^d4^d4 builds a second block on the same square"
    rank = 9
    text = "Your worker may build one additional block (not dome) on top of your first block."
    plain_shaped = True

    def builds(
        self, g: Gen, w: int, path: tuple[int, ...], bd: Board, before: int, up: bool
    ) -> None:
        """One build, or two blocks on one square from level 0 or 1."""
        free = g.buildable(bd, path[-1])
        g.emit_builds(w, path, free, before, up)
        lv = bd[0]
        if lv is g.board[0]:
            if g.add((free & g.reach[1]).bit_count()):
                return
            twice = bits(free & g.reach[1])
        else:
            twice = [b for b in bits(free) if lv[b] <= 1]
        for b in twice:
            g.emit(Turn(w, path, (b, b), before), up)
