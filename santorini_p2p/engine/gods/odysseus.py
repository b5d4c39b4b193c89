"""Odysseus (RULES.md 10.5): once, start of his turn, opponent workers next to his go to corners."""

from __future__ import annotations

from itertools import permutations

from santorini_p2p.engine.gods.hero import Hero
from santorini_p2p.engine.position import OP_CORNER, Position, Turn
from santorini_p2p.engine.power import Board, Gen, Power
from santorini_p2p.engine.squares import BITS, NEIGHBOURS, bits

CORNERS = (0, 4, 20, 24)
"""a1, e1, a5, e5."""


class Odysseus(Hero):
    """[BGA]: each such worker at most once, to a corner with no worker and no dome, any level.

    Forced: no win. Then a normal turn, which must be complete; Aphrodite's bound workers are
    fixed before the forces. Written ``Oc4a5,d4e1:b2>c3^d4``, the forced workers in ascending
    order of their squares.
    """

    name = "odysseus"
    wins_more = True
    text = (
        "Once per game, at the start of your turn, force to unoccupied corner spaces any "
        "number of opponent workers that neighbour your workers."
    )

    def turns(self, g: Gen) -> None:
        """Plain turns, then while unused each set of forces followed by a plain turn."""
        super().turns(g)
        if self.is_used(g.p, g.seat):
            return
        start = g.board
        lv, domes, workers = start
        near = 0
        for w in bits(workers[g.side]):
            near |= NEIGHBOURS[w]
        victims = bits(near & g.opponents(start))
        corners = [c for c in CORNERS if not g.occupied(start) >> c & 1]
        seen: set[tuple[int, ...]] = set()
        try:
            for mask in range(1, 1 << len(victims)):
                chosen = [v for i, v in enumerate(victims) if mask >> i & 1]
                if len(chosen) > len(corners):
                    continue
                for dest in permutations(corners, len(chosen)):
                    moved = list(workers)
                    for v, c in zip(chosen, dest, strict=True):
                        moved = [m ^ BITS[v] | BITS[c] if m >> v & 1 else m for m in moved]
                    key = tuple(moved)
                    if key in seen:
                        continue
                    seen.add(key)
                    g.board = (lv, domes, key)
                    g.extra = tuple(
                        OP_CORNER << 10 | v << 5 | c for v, c in zip(chosen, dest, strict=True)
                    )
                    Power.turns(self, g)
        finally:
            g.board = start
            g.extra = ()

    def begin(self, bd: Board, turn: Turn, g: Gen) -> Board:
        """The forces, in the order written."""
        lv, domes, workers = bd
        for v in turn.ops(OP_CORNER):
            a, c = v >> 5, v & 31
            workers = tuple(m ^ BITS[a] | BITS[c] if m >> a & 1 else m for m in workers)
        return lv, domes, workers

    def worker_moves(self, p: Position, turn: Turn) -> list[tuple[int, int]]:
        """The forced workers, then the moved one."""
        forced = [(v >> 5, v & 31) for v in turn.ops(OP_CORNER)] if turn.extra else []
        return forced + super().worker_moves(p, turn)

    def uses(self, p: Position, turn: Turn) -> bool:
        """A force."""
        return bool(turn.extra) and bool(turn.ops(OP_CORNER))
