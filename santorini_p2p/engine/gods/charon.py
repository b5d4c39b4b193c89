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
    example = "b2~c3>c3^d4 ferries the worker on c3 across b2 (to a1), then moves"
    rank = 18
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
        """The plain win, or a ferry that clears a level-3 square for a level-2 worker."""
        if no_up:
            return False
        if super().quick_win(p, mine, opp, no_up):
            return True
        occ = mine | opp | p.domes
        top = p.ge3 & ~p.domes & opp
        for w in bits(mine & p.ge2 & ~p.ge3):
            for v in bits(NEIGHBOURS[w] & top):
                dest = PUSH[v][w]
                if dest >= 0 and not occ >> dest & 1:
                    return True
        return False

    def extra_threats(self, p: Position, w: int, moves: int, occ: int, no_up: bool) -> int:
        """The opponents' level-3 squares next to a level-2 worker that a ferry would clear."""
        if no_up or p.level(w) != 2:
            return 0
        out = 0
        for v in bits(NEIGHBOURS[w] & p.ge3 & occ & ~p.domes & ~p.workers[_side_of(p, w)]):
            dest = PUSH[v][w]
            if dest >= 0 and not occ >> dest & 1:
                out |= BITS[v]
        return out


def _side_of(p: Position, w: int) -> int:
    """The side whose worker stands on ``w``."""
    return next(i for i, m in enumerate(p.workers) if m >> w & 1)
