"""Demeter (RULES.md section 6): one more build, not on the same square."""

from __future__ import annotations

from santorini_p2p.engine.position import Turn
from santorini_p2p.engine.power import Board, Gen, Power
from santorini_p2p.engine.squares import BITS, bits


class Demeter(Power):
    """The second build is optional; the two are written in ascending order."""

    name = "demeter"
    example = "b2>c3^b3^d4 builds twice (squares in a1..e5 order)"
    rank = 6
    text = "Your worker may build one additional time, but not on the same space."
    plain_shaped = True

    def builds(
        self, g: Gen, w: int, path: tuple[int, ...], bd: Board, before: int, up: bool
    ) -> None:
        """One build, or two on different squares."""
        end = path[-1]
        free = g.buildable(bd, end)
        g.emit_builds(w, path, free, before, up)
        towers = g.limits.tower_seat >= 0
        n = free.bit_count()
        if not towers and g.add(n * (n - 1) // 2):
            return
        for b in bits(free):
            if not towers:
                for b2 in bits(free & ~((2 << b) - 1)):
                    g.emit(Turn(w, path, (b, b2), before), up)
                continue
            # A build that ends the game stops the turn (RULES.md 8, Chronus): then the order
            # of the two builds matters, and the other order is its own turn.
            bd1, won = g.build(bd, b)
            if won:
                continue
            for b2 in bits(g.buildable(bd1, end) & ~BITS[b]):
                if b2 < b and not g.build(bd, b2)[1]:
                    continue
                g.emit(Turn(w, path, (b, b2), before), up)
