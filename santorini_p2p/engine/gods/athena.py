"""Athena (RULES.md section 6): after she moved up, opponents cannot move up."""

from __future__ import annotations

from santorini_p2p.engine.position import Position, Turn
from santorini_p2p.engine.power import Limits, Power
from santorini_p2p.engine.squares import NEIGHBOURS


class Athena(Power):
    """Her state ``a`` says one of her workers moved up on her last turn."""

    name = "athena"
    rank = 5
    text = (
        "If one of your workers moved up on your last turn, opponent workers cannot "
        "move up this turn."
    )
    flag = "a"
    plain_shaped = True

    def restrict(self, p: Position, seat: int, limits: Limits) -> None:
        """Until her next turn, every opponent move up is blocked (each step, swap, push)."""
        if p.state_of(seat):
            limits.no_up = True

    def next_state(self, p: Position, turn: Turn) -> str:
        """Only her own moves on her own turn count; forced moves never do.

        After an opponent's slide the path holds where the worker came to rest: her step
        went to the first square on the way there (a slide is forced, RULES.md 9).
        """
        if turn.worker < 0 or not turn.path:
            return ""
        w, t = turn.worker, turn.path[0]
        if not NEIGHBOURS[w] >> t & 1:
            df, dr = t % 5 - w % 5, t // 5 - w // 5
            t = w + (df > 0) - (df < 0) + 5 * ((dr > 0) - (dr < 0))
        return self.flag if p.level(t) > p.level(w) else ""
