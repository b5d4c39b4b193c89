"""Bia (RULES.md section 8): a move kills the opponent worker straight on beyond it."""

from __future__ import annotations

from typing import Final

from santorini_p2p.engine.position import Position
from santorini_p2p.engine.power import PERIMETER, Board, Gen, Power, plain_steps
from santorini_p2p.engine.squares import BITS, PUSH, bits

_KILL_NOW: Final = 250
"""Her turn and a kill on offer: about a worker, which the search has not yet taken."""
_KILL_THREAT: Final = 70
"""Each opponent worker she could kill next turn, when the opponent moves first."""


class Bia(Power):
    """The card's rulings (RULES.md section 8).

    Her own moves only; the victim leaves the game and she still builds. She places first,
    on the perimeter.
    """

    name = "bia"
    example = "b2>c3^d4 as usual; a worker it removes is not typed"
    rank = 11
    text = (
        "Place your workers first, on perimeter spaces. If your worker moves into a space "
        "and the next space in the same direction is occupied by an opponent worker, that "
        "worker is removed from the game."
    )
    places_first = True
    removes_workers = True

    def placement_error(self, squares: tuple[int, ...]) -> str | None:
        """Her workers start on perimeter squares."""
        for s in squares:
            if not PERIMETER >> s & 1:
                return "bia places her workers on perimeter squares (the edge of the board)"
        return None

    def after_step(self, frm: int, to: int, bd: Board, g: Gen) -> Board:
        """Remove the opponent worker one square beyond ``to`` in the move's direction."""
        kill = PUSH[frm][to]
        if kill < 0:
            return bd
        lv, domes, workers = bd
        kb = BITS[kill]
        for i, m in enumerate(workers):
            if i != g.side and m & kb:
                moved = list(workers)
                moved[i] = m ^ kb
                return lv, domes, tuple(moved)
        return bd

    def evaluation(self, p: Position, side: int, occ: int, no_up: bool) -> int:
        """The opponent workers one of her moves would remove."""
        opp = occ & ~p.domes & ~p.workers[side]
        kills = 0
        for w in bits(p.workers[side]):
            for t in bits(plain_steps(p, w, occ, no_up)):
                k = PUSH[w][t]
                if k >= 0 and opp >> k & 1:
                    kills |= BITS[k]
        if not kills:
            return 0
        if p.side_of(p.to_move) == side:
            return _KILL_NOW
        return _KILL_THREAT * kills.bit_count()
