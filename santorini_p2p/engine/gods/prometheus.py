"""Prometheus (RULES.md section 6): build before moving, and then not move up."""

from __future__ import annotations

from santorini_p2p.engine.position import Turn
from santorini_p2p.engine.power import Gen, Power
from santorini_p2p.engine.squares import BITS, bits


class Prometheus(Power):
    """The optional first build is by the worker that then moves, which may not move up."""

    name = "prometheus"
    example = "b2^c2>b3^c2 builds before moving (then no moving up)"
    rank = 7
    text = "If your worker does not move up, it may build both before and after moving."
    plain_shaped = True

    def worker_turns(self, g: Gen, w: int) -> None:
        """Plain turns, and each build first followed by a move that does not go up."""
        bd = g.board
        first = g.buildable(bd, w)
        # When one turn is looked for, only its build first (or none) can give it.
        want = g.target
        b = want.before if want is not None and want.worker == w else -2
        if b < 0:
            self.moves(g, w, bd, -1, False)
        if b != -2:
            first &= BITS[b] if 0 <= b < 25 else 0
        for pb in bits(first):
            bd1, won = g.build(bd, pb)
            if won:
                # The build first ended the game (a tower win): the turn stops there.
                g.emit(Turn(w, (), (), pb), False)
                continue
            self.moves(g, w, bd1, pb, True)
