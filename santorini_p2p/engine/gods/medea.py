"""Medea (RULES.md 10.5): once, end of her turn, a worker next to hers drops to the ground."""

from __future__ import annotations

from santorini_p2p.engine.gods.hero import Hero
from santorini_p2p.engine.position import OP_DROP, Position, Turn
from santorini_p2p.engine.power import Board, Gen, Limits
from santorini_p2p.engine.squares import NEIGHBOURS, bits


class Medea(Hero):
    """[BGA] revised: every block under a worker (anyone's) next to one of her workers.

    Not the naming worker itself; the worker stays and drops to level 0 (forced: no Pan win);
    a worker on level 0 cannot be chosen. Written ``%c4`` last.
    """

    name = "medea"
    text = (
        "Once per game, at the end of your turn, remove all blocks from under a worker "
        "neighbouring one of your workers."
    )
    expands = True

    def variants(
        self, p: Position, seat: int, turn: Turn, after: Position, limits: Limits
    ) -> list[Turn]:
        """One turn for each worker she can drop."""
        if self.is_used(p, seat):
            return []
        mine = after.workers[after.side_of(seat)]
        every = 0
        for m in after.workers:
            every |= m
        out = []
        for t in bits(every & after.ge1):
            if any(NEIGHBOURS[t] >> w & 1 for w in bits(mine) if w != t):
                out.append(turn._replace(extra=(*turn.extra, OP_DROP << 10 | t)))
        return out

    def finish(self, bd: Board, turn: Turn, g: Gen) -> tuple[Board, bool]:
        """The worker's square loses every block."""
        lv, domes, workers = bd
        for t in turn.ops(OP_DROP):
            lv = lv.copy()
            lv[t] = 0
        return (lv, domes, workers), False

    def uses(self, p: Position, turn: Turn) -> bool:
        """A drop."""
        return bool(turn.extra) and bool(turn.ops(OP_DROP))
