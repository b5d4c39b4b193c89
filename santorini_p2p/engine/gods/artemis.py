"""Artemis (RULES.md section 6): one more step, not back to where the worker started."""

from __future__ import annotations

from santorini_p2p.engine.power import Board, Gen, Power
from santorini_p2p.engine.squares import BITS, bits


class Artemis(Power):
    """Both steps are normal moves; a win on either ends the turn; the build follows the last."""

    name = "artemis"
    text = "Your worker may move one additional time, but not back to its initial space."

    def moved(
        self, g: Gen, w: int, path: tuple[int, ...], bd: Board, before: int, up: bool
    ) -> None:
        """Stop after the first step, or take a second one from there."""
        super().moved(g, w, path, bd, before, up)
        if len(path) != 1:
            return
        t = path[0]
        if self.is_win(g, w, t, bd):
            return
        lv, domes, workers = bd
        for t2 in bits(g.steps(t, bd) & ~BITS[w]):
            moved = list(workers)
            moved[g.side] ^= BITS[t] | BITS[t2]
            bd2 = (lv, domes, tuple(moved))
            super().moved(g, w, (t, t2), bd2, before, up or lv[t2] > lv[t])
