"""Iris (RULES.md section 9): her worker may jump over a neighbouring worker."""

from __future__ import annotations

from santorini_p2p.engine.position import Position
from santorini_p2p.engine.power import Board, Gen, Power
from santorini_p2p.engine.squares import BITS, NEIGHBOURS, PUSH, bits


class Iris(Power):
    """The card's rulings (RULES.md section 9).

    Over any worker at any level, to the square straight beyond it if that square is on the
    board with no worker and no dome, at any level. The jump is a move: it wins by going up
    onto level 3 from lower (0 or 1 included); a ban on moving up or down holds for it; Hera
    and Aphrodite judge where it lands. Written by its landing square, two squares away.
    """

    name = "iris"
    text = (
        "If there is a worker neighbouring your worker and the space directly on the other "
        "side of it is unoccupied, your worker may move to that space regardless of its level."
    )

    def step_mask(self, g: Gen, w: int, bd: Board, no_up: bool) -> int:
        """The plain steps and every jump."""
        out = g.steps(w, bd, no_up)
        lv, domes, workers = bd
        occ = 0
        for m in workers:
            occ |= m
        h = lv[w]
        top = h if no_up or g.limits.no_up else 3
        low = h if g.limits.no_down else 0
        for n in bits(NEIGHBOURS[w] & occ):
            j = PUSH[w][n]
            if j >= 0 and not (occ | domes) >> j & 1 and low <= lv[j] <= top:
                out |= BITS[j]
        return out

    def quick_win(self, p: Position, mine: int, opp: int, no_up: bool) -> bool | None:
        """The plain win, or a jump up onto a free level-3 square."""
        if no_up:
            return False
        if super().quick_win(p, mine, opp, no_up):
            return True
        occ = mine | opp | p.domes
        top = p.ge3 & ~occ
        for w in bits(mine & ~p.ge3):
            for n in bits(NEIGHBOURS[w] & (mine | opp)):
                j = PUSH[w][n]
                if j >= 0 and top >> j & 1:
                    return True
        return False

    def extra_threats(self, p: Position, w: int, moves: int, occ: int, no_up: bool) -> int:
        """Free level-3 squares a jump from ``w`` would land on."""
        if no_up or p.ge3 >> w & 1:
            return 0
        out = 0
        for n in bits(NEIGHBOURS[w] & occ & ~p.domes):
            j = PUSH[w][n]
            if j >= 0 and p.ge3 >> j & 1 and not occ >> j & 1:
                out |= BITS[j]
        return out
