"""Chronus (RULES.md section 8): five complete towers win, checked after every build."""

from __future__ import annotations

from typing import Final

from santorini_p2p.engine.position import Position
from santorini_p2p.engine.power import Limits, Power, plain_steps
from santorini_p2p.engine.squares import BITS, NEIGHBOURS, bits

TOWERS_TO_WIN: Final = 5
"""The complete towers that win for Chronus."""
_TOWER_WORTH: Final = (0, 25, 60, 120, 240)
"""The evaluation's worth of 0 to 4 complete towers to Chronus."""
_LAST_TOWER_NOW: Final = 2000
"""Four towers and a level-3 square he can dome this turn: a win but for the search's eyes."""
_LAST_TOWER_NEXT: Final = 350
"""Four towers and a level-3 square he can dome next turn: the opponent must stop it."""
_OPEN_TOP: Final = 60
"""Four towers: each free level-3 square, which any build there turns into the fifth."""


class Chronus(Power):
    """The card's rulings (RULES.md section 8).

    A complete tower is a dome on level 3 (a low dome is not); the game ends at once, even
    in the opponent's turn, and Hera does not stop it.
    """

    name = "chronus"
    rank = 16
    text = "You also win when there are at least five complete towers on the board."

    def at_all_times(self, p: Position, seat: int, limits: Limits) -> None:
        """Every build, anyone's, is followed by the tower count."""
        limits.tower_seat = seat
        limits.tower_count = TOWERS_TO_WIN

    def evaluation(self, p: Position, side: int, occ: int, no_up: bool) -> int:
        """The towers standing, and with one to go the level-3 squares he can dome."""
        count = (p.domes & p.ge3).bit_count()
        if count < TOWERS_TO_WIN - 1:
            return _TOWER_WORTH[count]
        open_tops = p.ge3 & ~p.domes & ~occ
        score = _TOWER_WORTH[-1] + _OPEN_TOP * min(open_tops.bit_count(), 3)
        reach = 0
        for w in bits(p.workers[side]):
            # The moved worker builds next to its new square; its old square is free then.
            for m in bits(plain_steps(p, w, occ, no_up)):
                reach |= NEIGHBOURS[m] & ~(occ & ~BITS[w])
        if reach & p.ge3 & ~p.domes:
            score += _LAST_TOWER_NOW if p.side_of(p.to_move) == side else _LAST_TOWER_NEXT
        return score
