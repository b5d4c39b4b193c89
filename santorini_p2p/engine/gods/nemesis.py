"""Nemesis (RULES.md section 9): with no opponent near, she may exchange squares with one."""

from __future__ import annotations

from itertools import combinations
from typing import Final

from santorini_p2p.engine.position import OP, SWAP, Position, Turn
from santorini_p2p.engine.power import Board, Gen, Power
from santorini_p2p.engine.squares import NEIGHBOURS, SQUARE_NAMES, bits

_STANDING: Final = (0, 100, 250, 250)
"""What a worker's level is worth to the exchange, in the evaluation's units."""


def _worth(p: Position, workers: int) -> list[int]:
    """The worth of each worker's standing, highest first."""
    return sorted((_STANDING[p.level(w)] for w in bits(workers)), reverse=True)


class Nemesis(Power):
    """The card's rulings (RULES.md section 9).

    Optional, after her build: if no opponent worker neighbours any of hers, her two workers
    and two workers of one opponent exchange squares (with three or more she picks two). All
    forced: no win. Written ``=a5,e1``, the opponent's squares in ascending order.
    """

    name = "nemesis"
    text = (
        "At the end of your turn, if none of an opponent's workers neighbour yours, you may "
        "force as many as two of your opponent's workers to exchange spaces with yours."
    )

    def builds(
        self, g: Gen, w: int, path: tuple[int, ...], bd: Board, before: int, up: bool
    ) -> None:
        """Each build, and after it each exchange that is open."""
        free = g.buildable(bd, path[-1])
        g.emit_builds(w, path, free, before, up)
        side = g.side
        workers = bd[2]
        mine = workers[side]
        if mine.bit_count() != 2:
            return
        near = 0
        for s in bits(mine):
            near |= NEIGHBOURS[s]
        if near & g.opponents(bd):
            return
        pairs = [
            tuple(SWAP * OP + s for s in sorted(pair, key=SQUARE_NAMES.__getitem__))
            for i, m in enumerate(workers)
            if i != side
            for pair in combinations(bits(m), 2)
        ]
        if not pairs:
            return
        for b in bits(free):
            if g.build(bd, b)[1]:
                continue
            for post in pairs:
                g.emit(Turn(w, path, (b,), before, -1, post), up)

    def evaluation(self, p: Position, side: int, occ: int, no_up: bool) -> int:
        """Part of what an exchange would gain: the opponent's two best standings for hers.

        She takes them at the end of a turn of hers with no opponent worker next to hers,
        so more when she moves next and they are apart already; an opponent next to her
        workers can stay there to stop it.
        """
        mine = p.workers[side]
        if mine.bit_count() != 2:
            return 0
        own = sum(_worth(p, mine))
        gain = 0
        for i, m in enumerate(p.workers):
            if i != side and m.bit_count() >= 2:
                gain = max(gain, sum(_worth(p, m)[:2]) - own)
        if gain <= 0:
            return 0
        near = 0
        for s in bits(mine):
            near |= NEIGHBOURS[s]
        apart = not near & occ & ~p.domes & ~mine
        if p.side_of(p.to_move) == side:
            return gain * 3 // 4 if apart else gain // 4
        return gain // 3 if apart else gain // 8
