"""Nike (RULES.md 10.5): after she moved down, opponents cannot move up (Athena's mirror)."""

from __future__ import annotations

from santorini_p2p.engine.position import Position, Turn
from santorini_p2p.engine.power import Limits, Power
from santorini_p2p.engine.squares import NEIGHBOURS


class Nike(Power):
    """Her flag ``k`` says one of her workers moved down on her last turn.

    Only her own move steps count (never forces); it blocks every up step as Athena's does.
    """

    name = "nike"
    text = (
        "If one of your workers moved down on your last turn, opponent workers cannot "
        "move up this turn."
    )
    flag = "k"
    players = frozenset({2})

    def describe_state(self, state: str) -> str:
        """Her flag."""
        return "moved down last turn: opponents may not move up" if state else ""

    def restrict(self, p: Position, seat: int, limits: Limits) -> None:
        """Until her next turn, every opponent move up is blocked."""
        if p.state_of(seat):
            limits.no_up = True

    def next_state(self, p: Position, turn: Turn) -> str:
        """Set when a step of her own worker went down."""
        if (
            turn.worker < 0
            or not turn.path
            or not p.workers[p.side_of(p.to_move)] >> turn.worker & 1
        ):
            return ""
        cur = turn.worker
        for rest in turn.path:
            step = rest
            if not NEIGHBOURS[cur] >> rest & 1:
                # An opponent's slide carried her on (RULES.md 9, Harpies): her step went to
                # the first square on the way, and only the step counts, not the slide.
                df, dr = rest % 5 - cur % 5, rest // 5 - cur // 5
                step = cur + (df > 0) - (df < 0) + 5 * ((dr > 0) - (dr < 0))
            if p.level(step) < p.level(cur):
                return self.flag
            cur = rest
        return ""
