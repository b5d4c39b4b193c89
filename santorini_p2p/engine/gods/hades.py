"""Hades (RULES.md section 9): opponent workers cannot move down."""

from __future__ import annotations

from santorini_p2p.engine.position import Position
from santorini_p2p.engine.power import Limits, Power


class Hades(Power):
    """The card's rulings (RULES.md section 9).

    Every move step of an opponent worker ends on its level or higher (an Apollo or Minotaur
    mover, each Artemis, Triton, Castor or Terpsichore step, an Iris jump); forces may go down
    (a swap, a push, a ferry, a slide, a drag). Builds that lift a worker are not moves.
    """

    name = "hades"
    text = "Opponent workers cannot move down."

    def restrict(self, p: Position, seat: int, limits: Limits) -> None:
        """No step of the mover's may end lower than it started."""
        limits.no_down = True
