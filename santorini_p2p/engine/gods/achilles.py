"""Achilles (RULES.md 10.5): once, his worker builds both before and after moving."""

from __future__ import annotations

from santorini_p2p.engine.gods.hero import Hero
from santorini_p2p.engine.position import Position, Turn
from santorini_p2p.engine.power import Gen
from santorini_p2p.engine.squares import bits


class Achilles(Hero):
    """[BGA]: the worker that built first moves; unlike Prometheus it may move up (and win).

    The first build may complete Chronus's fifth tower, which ends the game there. Written as
    Prometheus's turn, ``b2^c2>b3^c2``.
    """

    name = "achilles"
    wins_more = True
    text = "Once per game, your worker builds both before and after moving."

    def worker_turns(self, g: Gen, w: int) -> None:
        """Plain turns, and while unused each build first followed by any move."""
        bd = g.board
        self.moves(g, w, bd, -1, False)
        if self.is_used(g.p, g.seat):
            return
        for pb in bits(g.buildable(bd, w)):
            bd1, won = g.build(bd, pb)
            if won:
                g.emit(Turn(w, (), (), pb), False)
                continue
            self.moves(g, w, bd1, pb, False)

    def uses(self, p: Position, turn: Turn) -> bool:
        """A build before moving."""
        return turn.before >= 0
