"""Selene (RULES.md 10.5): her female worker may build a dome at any level instead."""

from __future__ import annotations

from santorini_p2p.engine.gods.female import Female, female_square
from santorini_p2p.engine.position import DOME, Turn
from santorini_p2p.engine.power import Board, Gen
from santorini_p2p.engine.squares import NEIGHBOURS, bits


class Selene(Female):
    """[BGA]: the moved worker's normal build, or the female's dome next to her.

    Whichever worker moved. A dome below level 3 is written ``D``; on level 3 a dome is the
    same outcome whoever builds it (``^e4``). Limus: no low dome next to a Limus worker.
    """

    name = "selene"
    text = (
        "Instead of your normal build, your female worker may build a dome at any level, "
        "regardless of which worker moved."
    )

    def step_words(self, mark: str, own: bool) -> str:
        """``D``: the dome her female worker builds instead, at any level."""
        return "the female worker's dome, any level" if mark == "D" and own else ""

    def builds(
        self, g: Gen, w: int, path: tuple[int, ...], bd: Board, before: int, up: bool
    ) -> None:
        """The normal builds, then her domes below level 3 (level-3 domes not yet written)."""
        normal = g.buildable(bd, path[-1])
        g.emit_builds(w, path, normal, before, up)
        her = female_square(g.p, g.seat)
        if her < 0:
            return
        if her == w:
            her = path[-1]
        free = NEIGHBOURS[her] & ~g.occupied(bd)
        lv = bd[0]
        for s in bits(g.allowed(bd, free)):
            if lv[s] == 3:
                if not normal >> s & 1:
                    g.emit(Turn(w, path, (s,), before), up)
            else:
                g.emit(Turn(w, path, (s | DOME,), before), up)
