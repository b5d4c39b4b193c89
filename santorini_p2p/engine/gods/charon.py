"""Charon (RULES.md section 8): ferry a neighbouring opponent across before moving."""

from __future__ import annotations

from santorini_p2p.engine.position import FORCE, Position
from santorini_p2p.engine.power import Board, Gen, Power, is_free
from santorini_p2p.engine.squares import BITS, NEIGHBOURS, PUSH, bits


def ferry_dest(worker: int, victim: int, bd: Board) -> int:
    """Where the worker on ``victim`` lands when ``worker`` ferries it, or -1."""
    dest = PUSH[victim][worker]
    return dest if is_free(bd, dest) else -1


class Charon(Power):
    """The card's rulings (RULES.md section 8).

    Optional; the ferrying worker is the one that then moves, and may move into the square
    the ferried worker left. The ferried worker is forced, so it never wins.
    """

    name = "charon"
    text = (
        "Before your worker moves, you may force a neighbouring opponent worker to the "
        "space directly on the other side of your worker, if that space is unoccupied."
    )

    def worker_turns(self, g: Gen, w: int) -> None:
        """Plain turns, and each ferry followed by the ferrying worker's turn."""
        bd = g.board
        self.moves(g, w, bd, -1, False)
        lv, domes, workers = bd
        for v in bits(NEIGHBOURS[w] & g.opponents(bd)):
            dest = ferry_dest(w, v, bd)
            if dest < 0:
                continue
            moved = list(workers)
            for i, m in enumerate(moved):
                if m & BITS[v]:
                    moved[i] = m ^ BITS[v] | BITS[dest]
            self.moves(g, w, (lv, domes, tuple(moved)), v | FORCE, False)

    def force_square(self, worker: int, victim: int, bd: Board) -> int:
        """Apply: where the ferried worker goes."""
        return ferry_dest(worker, victim, bd)

    def quick_win(self, p: Position, mine: int, opp: int, no_up: bool) -> bool | None:
        """Its wins need the full list of turns."""
        return None
