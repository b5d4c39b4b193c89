"""Ares (RULES.md section 8): at the end of his turn, remove a block next to the unmoved worker."""

from __future__ import annotations

from typing import Final

from santorini_p2p.engine.position import Position, Turn
from santorini_p2p.engine.power import Board, Gen, Power
from santorini_p2p.engine.squares import BITS, NEIGHBOURS, bits

_UNDOES_THREAT: Final = 100
"""An opponent's threat square he can take a block from: the threat is half a threat."""


class Ares(Power):
    """The card's rulings (RULES.md section 8).

    A block built and then removed from the same square leaves the board as it was: that turn
    is written once, with the lowest such square (protocol/SPEC.md 2.1).

    Optional, one block (never a dome) from an unoccupied square with 1-3 blocks; the block
    just built may be removed; no power with one worker left; not a build (``-`` in text).
    """

    name = "ares"
    example = "b2>c3^b3-e5 then removes the block on e5 next to the unmoved worker (d4)"
    rank = 17
    text = (
        "At the end of your turn, your worker that did not move may remove one unoccupied "
        "block (not dome) next to it."
    )

    def builds(
        self, g: Gen, w: int, path: tuple[int, ...], bd: Board, before: int, up: bool
    ) -> None:
        """Each build, then no removal or one removal by the worker that did not move."""
        end = path[-1]
        free = g.buildable(bd, end)
        g.emit_builds(w, path, free, before, up)
        others = bits(bd[2][g.side] & ~BITS[end])
        if len(others) != 1:
            return
        near = NEIGHBOURS[others[0]]
        # Building a block and removing that same block leaves the board as it was, whichever
        # the square: that turn is written once, with the first such square.
        lv = bd[0]
        undo = [b for b in bits(free & near) if lv[b] < 3]
        same = sum(BITS[b] for b in undo[1:])
        if g.limits.tower_seat < 0:
            # No build ends the game: the squares with a block to remove follow from the
            # board before the build, but for the square just built on.
            lv = bd[0]
            stacked = sum(BITS[s] for s in bits(near) if lv[s])
            base = near & ~g.occupied(bd) & stacked
            for b in bits(free):
                bb = BITS[b]
                rem = base & ~bb if lv[b] == 3 else base | (near & bb)
                rem &= ~(same & bb)
                if not g.add(rem.bit_count()):
                    for r in bits(rem):
                        g.emit(Turn(w, path, (b,), before, r), up)
            return
        for b in bits(free):
            bd1, won = g.build(bd, b)
            if won:
                continue
            lv1 = bd1[0]
            for r in bits(near & ~g.occupied(bd1) & ~(same & BITS[b])):
                if lv1[r]:
                    g.emit(Turn(w, path, (b,), before, r), up)

    def evaluation(self, p: Position, side: int, occ: int, no_up: bool) -> int:
        """The opponents' level-3 threat squares next to one of his two workers.

        He moves the other worker and takes a block off the square: the threat is gone.
        """
        mine = p.workers[side]
        if mine.bit_count() != 2:
            return 0
        near = 0
        for w in bits(mine):
            near |= NEIGHBOURS[w]
        top = p.ge3 & ~p.domes & ~occ & near
        if not top:
            return 0
        for i, m in enumerate(p.workers):
            if i != side:
                for o in bits(m & p.ge2 & ~p.ge3):
                    if NEIGHBOURS[o] & top:
                        return _UNDOES_THREAT
        return 0
