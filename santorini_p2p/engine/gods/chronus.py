"""Chronus (RULES.md section 8): five complete towers win, checked after every build."""

from __future__ import annotations

from santorini_p2p.engine.position import Position
from santorini_p2p.engine.power import Limits, Power


class Chronus(Power):
    """The card's rulings (RULES.md section 8).

    A complete tower is a dome on level 3 (a low dome is not); the game ends at once, even
    in the opponent's turn, and Hera does not stop it.
    """

    name = "chronus"
    text = "You also win when there are at least five complete towers on the board."

    def at_all_times(self, p: Position, seat: int, limits: Limits) -> None:
        """Every build, anyone's, is followed by the tower count."""
        limits.tower_seat = seat
        limits.tower_count = 5
