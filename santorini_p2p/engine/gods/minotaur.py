"""Minotaur (RULES.md section 6): a move onto an opponent worker pushes it straight on."""

from __future__ import annotations

from santorini_p2p.engine.power import Board, Power
from santorini_p2p.engine.squares import PUSH


class Minotaur(Power):
    """The push: one square straight on, to a square with no worker and no dome, any level."""

    name = "minotaur"
    text = (
        "Your worker may move into an opponent worker's space, if their worker can "
        "be forced one space straight backwards to an unoccupied space at any level."
    )
    forces = True

    def displace(self, frm: int, to: int, bd: Board) -> int:
        """The square beyond ``to``, if it is on the board and unoccupied."""
        dest = PUSH[frm][to]
        if dest < 0 or bd[1] >> dest & 1:
            return -1
        for m in bd[2]:
            if m >> dest & 1:
                return -1
        return dest
