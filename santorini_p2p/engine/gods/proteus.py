"""Proteus (RULES.md section 9): three workers; another is forced into the square left."""

from __future__ import annotations

from santorini_p2p.engine.position import OP, PULL, Position, Turn
from santorini_p2p.engine.power import Board, Gen, Power
from santorini_p2p.engine.squares import BITS, bits


class Proteus(Power):
    """The card's rulings (RULES.md section 9).

    He places three workers. After a move that does not win, one of his other workers
    (anywhere, his choice) is forced into the square the mover left: compulsory while he has
    another worker. The force comes before an opponent's slide; he cannot build on the square
    left, but may build where the forced worker stood. Written ``b2>c3<a1^d4``.
    """

    name = "proteus"
    text = (
        "When placing your workers, place 3 of your colour. After your worker moves, force "
        "one of your other workers into the space it just vacated."
    )
    players = frozenset({2, 3})
    placed = 3
    most_workers = 3
    plain_turns = False

    def moved(
        self, g: Gen, w: int, path: tuple[int, ...], bd: Board, before: int, up: bool
    ) -> None:
        """The move, then each of his other workers forced into the square left."""
        frm = path[-2] if len(path) > 1 else w
        to = path[-1]
        if self.is_win(g, frm, to, bd):
            if g.bound_ok(w, to, bd):
                g.emit(Turn(w, path, (), before), up)
            return
        bd = self.after_step(frm, to, bd, g)
        lv, domes, workers = bd
        side = g.side
        others = workers[side] & ~BITS[to]
        if not others:
            path, bd = g.land(frm, path, bd)
            if g.bound_ok(w, path[-1], bd):
                self.builds(g, w, path, bd, before, up)
            return
        for o in bits(others):
            moved = list(workers)
            moved[side] ^= BITS[o] | BITS[w]
            path2, bd2 = g.land(frm, path, (lv, domes, tuple(moved)))
            rest = path2[-1]
            if not g.bound_ok(w, rest, bd2):
                continue
            post = (PULL * OP + o,)
            for b in bits(g.buildable(bd2, rest)):
                g.emit(Turn(w, path2, (b,), before, -1, post), up)

    def worker_moves(self, p: Position, turn: Turn) -> list[tuple[int, int]]:
        """The move, then the worker forced into the square it left.

        RULES.md 10.4: a named worker follows the force.
        """
        out = super().worker_moves(p, turn)
        if out:
            for v in turn.post:
                if v // OP == PULL:
                    out.append((v % OP, turn.worker))
        return out
