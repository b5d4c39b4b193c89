"""Hydra (RULES.md section 9): a worker gained when hers stand apart, else one removed."""

from __future__ import annotations

from santorini_p2p.engine.position import DROP, GAIN, OP, OP_NO_GAIN, Position, Turn
from santorini_p2p.engine.power import Board, Gen, Power
from santorini_p2p.engine.squares import NEIGHBOURS, bits


def apart(mine: int) -> bool:
    """Whether no two of the workers in ``mine`` neighbour each other."""
    return not any(NEIGHBOURS[s] & mine for s in bits(mine))


class Hydra(Power):
    """The card's rulings (RULES.md section 9).

    Compulsory, judged after her build: if none of her workers neighbour each other she gains
    one on one of the lowest free squares next to the worker that moved (none free: nothing);
    otherwise she removes one of hers, the mover included. A winning move ends the turn
    first. No limit on her workers. Written ``+c2`` or ``!e1`` last.
    """

    name = "hydra"
    text = (
        "At the end of your turn, if none of your workers neighbour each other, gain a new "
        "worker in one of the lowest unoccupied spaces next to the worker you moved. "
        "Otherwise, remove one of your workers."
    )
    players = frozenset({2, 3})
    removes_workers = True
    most_workers = 25

    def step_words(self, mark: str, own: bool) -> str:
        """``+`` a worker gained, ``!`` one of hers removed, in her own turns."""
        return {"+": "gain a worker", "!": "remove your worker"}.get(mark, "") if own else ""

    def builds(
        self, g: Gen, w: int, path: tuple[int, ...], bd: Board, before: int, up: bool
    ) -> None:
        """Each build, then each gain or removal the end of her turn allows."""
        rest = path[-1]
        side = g.side
        for b in bits(g.buildable(bd, rest)):
            bd2, won = g.build(bd, b)
            if won:
                g.emit(Turn(w, path, (b,), before), up)
                continue
            mine = bd2[2][side]
            if apart(mine):
                free = NEIGHBOURS[rest] & ~g.occupied(bd2)
                if not free:
                    g.emit(Turn(w, path, (b,), before), up)
                    continue
                lv = bd2[0]
                low = min(lv[s] for s in bits(free))
                for s in bits(free):
                    if lv[s] == low:
                        g.emit(Turn(w, path, (b,), before, -1, (GAIN * OP + s,)), up)
            else:
                for s in bits(mine):
                    g.emit(Turn(w, path, (b,), before, -1, (DROP * OP + s,)), up)

    def end_workers(self, turn: Turn) -> int:
        """The square of the worker gained."""
        return sum(1 << (op & 31) for op in turn.post if op >> 5 == GAIN)

    def end_with(self, p: Position, turn: Turn, taken: int, after: Position) -> list[Turn]:
        """The gain again, among the lowest squares next to the mover still free.

        The removal does not change: another side's worker does not make hers neighbours.
        """
        gained = self.end_workers(turn)
        if not gained or not turn.path:
            return [turn]
        occ = after.domes
        for m in after.workers:
            occ |= m
        occ = occ & ~gained | taken
        free = NEIGHBOURS[turn.path[-1]] & ~occ
        rest = tuple(op for op in turn.post if op >> 5 != GAIN)
        if not free:
            # Written ``+-``: the text would otherwise read as her gain on that square.
            return [turn._replace(post=rest, extra=(OP_NO_GAIN << 10, *turn.extra))]
        low = min(after.level(s) for s in bits(free))
        return [
            turn._replace(post=(*rest, GAIN * OP + s)) for s in bits(free) if after.level(s) == low
        ]

    def evaluation(self, p: Position, side: int, occ: int, no_up: bool) -> int:
        """Each worker beyond two is worth about half a level of height."""
        return 50 * max(0, p.workers[side].bit_count() - 2)
