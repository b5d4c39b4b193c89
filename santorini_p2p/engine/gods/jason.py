"""Jason (RULES.md 10.5): once, his extra worker joins on the perimeter, then moves and builds."""

from __future__ import annotations

from santorini_p2p.engine.gods.hero import Hero
from santorini_p2p.engine.position import OP_ENTER, Position, Turn
from santorini_p2p.engine.power import PERIMETER, Gen
from santorini_p2p.engine.squares import BITS, bits


class Jason(Hero):
    """[BGA] revised: the placed worker is the one that moves, as his whole turn.

    On an unoccupied level-0 perimeter square. Not bound by Aphrodite (it did not start the
    turn on the board); Hypnus judges the workers that stood at the start. Written
    ``Ja1>b2^c3``. Used (``jason[x]``) once the worker is on the board: then three workers.
    """

    name = "jason"
    text = (
        "Setup: take one extra worker and keep it on this card. Once per game, instead of "
        "your normal turn, place it on an unoccupied ground-level perimeter space, then move "
        "and build with it."
    )
    most_workers = 3

    most_workers = 3

    def worker_limit(self, state: str) -> int:
        """Three once the extra worker stands."""
        return 3 if state else 2

    def turns(self, g: Gen) -> None:
        """Plain turns, then while unused each placement and that worker's turns."""
        super().turns(g)
        if self.is_used(g.p, g.seat) or not g.pair:
            return
        lv, domes, workers = g.board
        open_ = PERIMETER & ~g.occupied(g.board) & ~g.p.ge1
        # Placed on one square or another, a worker that ends on the same square with the
        # same builds is the same turn: written once, with the first placement square.
        sub = Gen(g.p, g.power, g.limits, 0, False, False)
        sub.extra = (OP_ENTER << 10,)
        for s in bits(open_):
            moved = tuple(m | BITS[s] if i == g.side else m for i, m in enumerate(workers))
            self.moves(sub, s, (lv, domes, moved), -1, False)
        up = set(sub.up_out)
        seen: set[tuple[int, tuple[int, ...]]] = set()
        for t in sub.out:
            key = (t.path[-1], t.builds)
            if key not in seen:
                seen.add(key)
                g.emit(t, t in up)

    def uses(self, p: Position, turn: Turn) -> bool:
        """The placement."""
        return bool(turn.extra) and bool(turn.ops(OP_ENTER))
