"""Limus (RULES.md section 8): opponents cannot build next to his workers."""

from __future__ import annotations

from santorini_p2p.engine.position import Position
from santorini_p2p.engine.power import Limits, Power


class Limus(Power):
    """The card's rulings (RULES.md section 8).

    Every opponent build (extra builds, a build first, a build under oneself, Hermes's
    build, Medusa's petrification), unless it is the dome that completes a tower; an Atlas
    dome below level 3 is not allowed next to him (2016 text). His workers count where they
    stand at the moment of the build; a square is not next to itself.
    """

    name = "limus"
    rank = 20
    text = (
        "Opponent workers cannot build on spaces neighbouring your workers, unless building "
        "a dome to create a complete tower."
    )

    def restrict(self, p: Position, seat: int, limits: Limits) -> None:
        """Ban builds next to this side's workers."""
        limits.ban_sides |= 1 << p.side_of(seat)
