"""Terpsichore (RULES.md section 9): all her workers must move, then all must build."""

from __future__ import annotations

from santorini_p2p.engine.gods.castor import build_all, every_order, moves_in_order
from santorini_p2p.engine.position import MOVE_BUILD_ALL, Position, Turn
from santorini_p2p.engine.power import Gen, Power
from santorini_p2p.engine.squares import bits


class Terpsichore(Power):
    """The card's rulings (RULES.md section 9).

    Compulsory: each worker moves once (either order), then each builds once next to itself
    (either order, the same square allowed). A win by either move ends the turn; a way in
    which a worker cannot move, or one cannot build after both moves, is not legal. With one
    worker it is a normal turn. Written ``Tb2>c3,d4>e4^c4^e5``.
    """

    name = "terpsichore"
    text = "All of your workers must move, and then all must build."
    plain_turns = False

    def turns(self, g: Gen) -> None:
        """A normal turn with one worker; otherwise every worker moves, then every one builds."""
        bd = g.board
        ws = bits(bd[2][g.side])
        if len(ws) == 1:
            super().turns(g)
            return
        if not g.pair or len(ws) != 2 or any(g.limits.frozen >> w & 1 for w in ws):
            return
        for path, bd2, up, won in every_order(self, g, ws, bd):
            if won:
                g.emit(Turn(MOVE_BUILD_ALL, path), up)
                continue
            rests = sorted(path[1::2])
            for builds in build_all(g, rests, bd2):
                g.emit(Turn(MOVE_BUILD_ALL, path, builds), up)

    def worker_moves(self, p: Position, turn: Turn) -> list[tuple[int, int]]:
        """Both moves in the order played; else the plain rule's."""
        moves = moves_in_order(turn)
        return super().worker_moves(p, turn) if moves is None else moves
