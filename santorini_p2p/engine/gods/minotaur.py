"""Minotaur (RULES.md section 6): a move onto an opponent worker pushes it straight on."""

from __future__ import annotations

from santorini_p2p.engine.position import Position
from santorini_p2p.engine.power import Board, Power, is_free
from santorini_p2p.engine.squares import NEIGHBOURS, PUSH, bits


class Minotaur(Power):
    """The push: one square straight on, to a square with no worker and no dome, any level."""

    name = "minotaur"
    example = "b2>c3^d4 onto an opponent's worker pushes it on"
    rank = 2
    text = (
        "Your worker may move into an opponent worker's space, if their worker can "
        "be forced one space straight backwards to an unoccupied space at any level."
    )
    forces = True

    def displace(self, frm: int, to: int, bd: Board) -> int:
        """The square beyond ``to``, if it is on the board and unoccupied."""
        dest = PUSH[frm][to]
        return dest if is_free(bd, dest) else -1

    def quick_win(self, p: Position, mine: int, opp: int, no_up: bool) -> bool | None:
        """The plain win, or a push onto an opponent's level-3 square."""
        if no_up:
            return False
        occ = mine | opp | p.domes
        top = p.ge3 & ~p.domes
        for w in bits(mine & p.ge2 & ~p.ge3):
            if NEIGHBOURS[w] & top & ~occ:
                return True
            for t in bits(NEIGHBOURS[w] & top & opp):
                ps = PUSH[w][t]
                if ps >= 0 and not occ >> ps & 1:
                    return True
        return False
