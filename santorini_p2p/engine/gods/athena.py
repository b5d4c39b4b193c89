"""Athena (RULES.md section 6): after she moved up, opponents cannot move up."""

from __future__ import annotations

from santorini_p2p.engine.position import Position, Turn
from santorini_p2p.engine.power import Limits, Power


class Athena(Power):
    """Her state ``a`` says one of her workers moved up on her last turn."""

    name = "athena"
    text = (
        "If one of your workers moved up on your last turn, opponent workers cannot "
        "move up this turn."
    )
    flag = "a"

    def restrict(self, p: Position, seat: int, limits: Limits) -> None:
        """Until her next turn, every opponent move up is blocked (each step, swap, push)."""
        if p.state_of(seat):
            limits.no_up = True

    def next_state(self, p: Position, turn: Turn) -> str:
        """Only her own moves on her own turn count; forced moves never do."""
        if turn.worker >= 0 and p.level(turn.path[0]) > p.level(turn.worker):
            return self.flag
        return ""
