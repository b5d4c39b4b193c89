"""Harpies (RULES.md section 9): an opponent worker that moves slides on in its direction."""

from __future__ import annotations

from santorini_p2p.engine.position import Position
from santorini_p2p.engine.power import Limits, Power


class Harpies(Power):
    """The card's rulings (RULES.md section 9).

    After each move step of an opponent worker it is forced on, square by square, in the
    step's direction while the next square is on the board, free and not higher; the slide
    may go down any number of levels. A win is judged at the step, before any slide; the next
    step and the build start where the slide stopped (``Gen.slide``).
    """

    name = "harpies"
    text = (
        "Each time an opponent's worker moves, it is forced space by space in the same "
        "direction until the next space is at a higher level or it is obstructed."
    )

    def restrict(self, p: Position, seat: int, limits: Limits) -> None:
        """Every step of the mover's workers slides on."""
        limits.slide = True
