"""Theseus (RULES.md 10.5): once, end of his turn, he removes an opponent worker two levels up."""

from __future__ import annotations

from santorini_p2p.engine.gods.hero import Hero
from santorini_p2p.engine.position import OP_REMOVE, Position, Turn
from santorini_p2p.engine.power import Board, Gen, Limits
from santorini_p2p.engine.squares import BITS, NEIGHBOURS, bits


class Theseus(Hero):
    """[BGA] ``z == z2 - 2``: an opponent worker exactly two levels above one of his, next to it.

    Judged after the build; removed = leaves the game (as Bia's victims). Written ``xe4`` last.
    """

    name = "theseus"
    text = (
        "Once per game, at the end of your turn, if any of your workers is exactly two levels "
        "below any neighbouring opponent workers, remove one of those opponent workers."
    )
    expands = True
    removes_workers = True

    def variants(
        self, p: Position, seat: int, turn: Turn, after: Position, limits: Limits
    ) -> list[Turn]:
        """One turn for each worker he can remove."""
        if self.is_used(p, seat):
            return []
        side = after.side_of(seat)
        mine = after.workers[side]
        theirs = 0
        for i, m in enumerate(after.workers):
            if i != side:
                theirs |= m
        out = []
        for t in bits(theirs):
            h = after.level(t)
            if any(after.level(w) == h - 2 for w in bits(mine & NEIGHBOURS[t])):
                out.append(turn._replace(extra=(*turn.extra, OP_REMOVE << 10 | t)))
        return out

    def finish(self, bd: Board, turn: Turn, g: Gen) -> tuple[Board, bool]:
        """The worker leaves the board."""
        lv, domes, workers = bd
        for t in turn.ops(OP_REMOVE):
            workers = tuple(m & ~BITS[t] for m in workers)
        return (lv, domes, workers), False

    def uses(self, p: Position, turn: Turn) -> bool:
        """A removal."""
        return bool(turn.extra) and bool(turn.ops(OP_REMOVE))
