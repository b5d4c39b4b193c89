"""Hippolyta (RULES.md 10.5): every worker but her female moves only diagonally."""

from __future__ import annotations

from santorini_p2p.engine.gods.female import Female, female_square
from santorini_p2p.engine.position import Position
from santorini_p2p.engine.power import Limits
from santorini_p2p.engine.squares import BITS


class Hippolyta(Female):
    """[BGA] ``argPlayerMove``/``argOpponentMove``: both sides' moves, every step; forces free.

    With her female gone, every worker moves diagonally.
    """

    name = "hippolyta"
    text = "All workers except your female worker may only move diagonally."

    def at_all_times(self, p: Position, seat: int, limits: Limits) -> None:
        """Every step of every worker but hers is diagonal."""
        limits.diagonal = True
        her = female_square(p, seat)
        if her >= 0:
            limits.straight |= BITS[her]
