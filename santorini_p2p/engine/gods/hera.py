"""Hera (RULES.md section 8): no opponent wins by moving into a perimeter square."""

from __future__ import annotations

from santorini_p2p.engine.position import Position
from santorini_p2p.engine.power import PERIMETER, Limits, Power


class Hera(Power):
    """The card's rulings (RULES.md section 8).

    Every win by a move (level 3, Pan's drop, Eros, each Artemis or Triton step); the move
    stays legal as a plain move. A win into the middle still wins; Chronus's win is not a
    move.
    """

    name = "hera"
    rank = 25
    text = "An opponent cannot win by moving into a perimeter space."

    def restrict(self, p: Position, seat: int, limits: Limits) -> None:
        """Forbid wins on the perimeter."""
        limits.no_win |= PERIMETER
