"""Eris (RULES.md 10.5): she may move and build with an opponent worker instead."""

from __future__ import annotations

from collections.abc import Callable

from santorini_p2p.engine.position import Position, Turn
from santorini_p2p.engine.power import Gen, Limits, Power
from santorini_p2p.engine.squares import BITS, SQUARE_NAMES, bits


class Eris(Power):
    """The state is the square of the worker its owner moved most recently (``eris[d4]``).

    [BGA] revised: the alternative turn moves and builds with another opponent worker, as a
    plain worker under the restrictions on her turn [ours]; it never wins (not her worker).
    Only the opponent's own moves set the mark (not forces, not her moves); bare when there
    is none. Written as a plain turn from the opponent worker's square (``d4>d3^d2``).
    """

    name = "eris"
    text = (
        "Instead of your normal turn, you may move and build with an opponent worker other "
        "than the one that opponent moved most recently."
    )
    players = frozenset({2, 4})
    stateful = True
    moves_others = True

    def read_state(self, text: str) -> str:
        """A square."""
        if text not in SQUARE_NAMES:
            raise ValueError("expected the square of the opponent worker moved most recently")
        return text

    def describe_state(self, state: str) -> str:
        """The worker she may not move."""
        return f"may not move the worker on {state}" if state else ""

    def state_squares(self, state: str) -> tuple[tuple[int, bool], ...]:
        """The marked square holds an opponent worker."""
        return ((SQUARE_NAMES.index(state), False),) if state else ()

    def follow(self, state: str, where: Callable[[int], int]) -> str:
        """The mark follows its worker, and is gone with it."""
        to = where(SQUARE_NAMES.index(state))
        return SQUARE_NAMES[to] if to >= 0 else ""

    def restrict(self, p: Position, seat: int, limits: Limits) -> None:
        """Which worker an opponent moves last matters: a move-all's two orders differ."""
        limits.ordered = True

    def turns(self, g: Gen) -> None:
        """Her own turns, then each opponent worker's but the marked one's."""
        super().turns(g)
        p = g.p
        state = p.state_of(g.seat)[1:-1]
        marked = BITS[SQUARE_NAMES.index(state)] if state else 0
        bd = g.board
        lv, domes, workers = bd
        for i, m in enumerate(workers):
            if i == g.side:
                continue
            for v in bits(m & ~marked & g.asked):
                for t in bits(g.steps(v, bd)):
                    moved = tuple(
                        x ^ BITS[v] | BITS[t] if j == i else x for j, x in enumerate(workers)
                    )
                    bd2 = (lv, domes, moved)
                    g.emit_builds(v, (t,), g.buildable(bd2, t), -1, False)

    def after_turn(
        self,
        p: Position,
        seat: int,
        turn: Turn,
        state: str,
        where: Callable[[int], int],
        moves: tuple[tuple[int, int], ...] = (),
    ) -> str:
        """After an opponent's turn, the worker it moved itself last is marked.

        Its own moves in the order the mover's power lists them (a worker put on the board
        and moved counts); forces of other sides' workers do not. When that worker has left
        the board by the end of the turn (Hydra removing her mover), no worker is marked.
        """
        if p.side_of(seat) == p.side_of(p.to_move):
            return state
        own = p.workers[p.side_of(p.to_move)]
        mine = [a for a, _ in moves if own >> a & 1 or p.worker_side(a) < 0]
        if not mine:
            return state
        # A one-worker turn marks its mover, never a worker of his that a force moved after it
        # (Proteus); a move-all marks its last mover.
        last = turn.worker if turn.worker >= 0 and turn.worker in mine else mine[-1]
        to = where(last)
        return SQUARE_NAMES[to] if to >= 0 else ""
