"""Apollo (RULES.md section 6): a move onto an opponent worker swaps the two."""

from __future__ import annotations

from santorini_p2p.engine.position import Position
from santorini_p2p.engine.power import Board, Power
from santorini_p2p.engine.squares import NEIGHBOURS, bits


class Apollo(Power):
    """The swap: the forced worker takes the square Apollo's worker left."""

    name = "apollo"
    example = "b2>c3^d4 onto an opponent's worker swaps the two"
    rank = 4
    text = (
        "Your worker may move into an opponent worker's space by forcing it to the "
        "space yours just vacated."
    )
    forces = True

    def displace(self, frm: int, to: int, bd: Board) -> int:
        """The opponent goes to the square Apollo's worker left."""
        return frm

    def quick_win(self, p: Position, mine: int, opp: int, no_up: bool) -> bool | None:
        """The plain win, or a swap up onto an opponent's level-3 square."""
        if no_up:
            return False
        top = p.ge3 & ~p.domes & ~mine
        return any(NEIGHBOURS[w] & top for w in bits(mine & p.ge2 & ~p.ge3))
