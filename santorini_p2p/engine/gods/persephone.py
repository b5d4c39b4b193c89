"""Persephone (RULES.md section 8): an opponent must move up if it can."""

from __future__ import annotations

from santorini_p2p.engine.position import Position
from santorini_p2p.engine.power import Limits, Power


class Persephone(Power):
    """The card's rulings (RULES.md section 8).

    Judged over complete legal turns: if one moves the mover's worker up, only such turns
    are legal. Any up step counts (a swap, a push move, an Artemis or Triton step, a move after
    a ferry, a winning move); being forced up, Zeus's lift and a Hermes power turn do not.
    """

    name = "persephone"
    rank = 22
    text = "If possible, at least one worker must move up this turn."

    def restrict(self, p: Position, seat: int, limits: Limits) -> None:
        """The mover must move up if any complete turn does."""
        limits.must_up = True
