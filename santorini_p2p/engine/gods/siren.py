"""Siren (RULES.md 10.5): her song forces opponent workers one square its way, then she builds."""

from __future__ import annotations

from typing import Final

from santorini_p2p.engine.position import ARROWS, DIRECTIONS, OP_SING, Position, Turn
from santorini_p2p.engine.power import Board, Gen, Power, is_free, plain_threats
from santorini_p2p.engine.squares import BITS, NEIGHBOURS, STEP, bits

_PUSH_DOWN: Final = 140
"""What forcing a threatening opponent worker down off level 2 is worth, her turn next."""


def song(p: Position, seat: int) -> int:
    """The direction of ``seat``'s song (0-7), or -1 before she sang."""
    state = p.state_of(seat)[1:-1]
    return DIRECTIONS.index(state) if state else -1


class Siren(Power):
    """The state is her song's direction, fixed at setup (``siren[w]``, always written).

    [BGA] revised: the alternative turn forces at least one opponent worker, each at most once,
    one after another, each one square in the song's direction to a square with no worker
    and no dome (any level, never a win); then one ordinary build next to any of her workers.
    Not a move: nothing that restricts moves restricts it. Written ``Sd4,d3^b2`` (the forced
    workers' squares in the order played; when two orders end alike, the order of the
    smaller text).
    """

    name = "siren"
    text = (
        "Setup: choose a direction for your song. Instead of your normal turn, force one or "
        "more opponent workers one space in that direction to unoccupied spaces at any "
        "level, then build with any of your workers."
    )
    stateful = True
    state_needed = True
    sings = True

    def read_state(self, text: str) -> str:
        """One of the eight directions."""
        if text not in DIRECTIONS:
            raise ValueError("expected a direction n, ne, e, se, s, sw, w or nw")
        return text

    def describe_state(self, state: str) -> str:
        """Her song."""
        return f"song {ARROWS[state]} towards {state}" if state else "song not chosen yet"

    def turns(self, g: Gen) -> None:
        """The plain turns, and the song's turns when a turn of no one worker is wanted."""
        super().turns(g)
        if not g.pair:
            return
        d = song(g.p, g.seat)
        if d < 0:
            return
        found: list[tuple[str, Turn, tuple[tuple[int, ...], int]]] = []
        self._sing(g, d, g.board, (), found)
        seen: set[tuple[tuple[int, ...], int]] = set()
        for _, t, key in sorted(found):
            if key not in seen:
                seen.add(key)
                g.emit(t, False)

    def _sing(
        self,
        g: Gen,
        d: int,
        bd: Board,
        done: tuple[int, ...],
        found: list[tuple[str, Turn, tuple[tuple[int, ...], int]]],
    ) -> None:
        lv, domes, workers = bd
        if done:
            near = 0
            for w in bits(workers[g.side]):
                near |= NEIGHBOURS[w]
            free = near & ~g.occupied(bd)
            extra = tuple(OP_SING << 10 | s for s in done)
            for b in bits(g.allowed(bd, free)):
                t = Turn(-1, (), (b,), extra=extra)
                found.append((str(t), t, (workers, b)))
        moved = {STEP[d][s] for s in done}
        for i, m in enumerate(workers):
            if i == g.side:
                continue
            for v in bits(m):
                if v in done or v in moved:
                    continue
                to = STEP[d][v]
                if not is_free(bd, to):
                    continue
                new = tuple(x ^ BITS[v] | BITS[to] if x >> v & 1 else x for x in workers)
                self._sing(g, d, (lv, domes, new), (*done, v), found)

    def begin(self, bd: Board, turn: Turn, g: Gen) -> Board:
        """The forces, in the order written."""
        d = song(g.p, g.seat)
        lv, domes, workers = bd
        for v in turn.ops(OP_SING):
            to = STEP[d][v]
            workers = tuple(x ^ BITS[v] | BITS[to] if x >> v & 1 else x for x in workers)
        return lv, domes, workers

    def worker_moves(self, p: Position, turn: Turn) -> list[tuple[int, int]]:
        """The forced workers, one square each in the song's direction."""
        forced = turn.ops(OP_SING)
        if not forced:
            return super().worker_moves(p, turn)
        d = song(p, p.to_move)
        return [(v, STEP[d][v]) for v in forced]

    def evaluation(self, p: Position, side: int, occ: int, no_up: bool) -> int:
        """What her song is worth: a threatening opponent worker forced down off level 2.

        With her turn next, that worker's square one step the song's way free and lower.
        """
        if p.side_of(p.to_move) != side:
            return 0
        threats = plain_threats(p, side, occ)
        if not threats:
            return 0
        seat = next(
            (s for s, g in enumerate(p.gods) if g == self.name and p.side_of(s) == side), -1
        )
        d = song(p, seat) if seat >= 0 else -1
        if d < 0:
            return 0
        for v in bits(occ & ~p.domes & ~p.workers[side] & p.ge2 & ~p.ge3):
            to = STEP[d][v]
            if NEIGHBOURS[v] & threats and to >= 0 and not occ >> to & 1 and p.level(to) < 2:
                return _PUSH_DOWN
        return 0
