"""Hestia (RULES.md section 8): one more build, not on the perimeter."""

from __future__ import annotations

from santorini_p2p.engine.position import Turn
from santorini_p2p.engine.power import PERIMETER, Board, Gen, Power
from santorini_p2p.engine.squares import bits


class Hestia(Power):
    """The card's rulings (RULES.md section 8).

    Optional; the same square again is allowed. Written in ascending order when both orders
    are legal and reach the same position.
    """

    name = "hestia"
    example = "b2>c3^b3^c4 builds twice, the second not on the edge (any order)"
    rank = 19
    text = "Your worker may build one additional time, but this cannot be on a perimeter space."

    def builds(
        self, g: Gen, w: int, path: tuple[int, ...], bd: Board, before: int, up: bool
    ) -> None:
        """One build, or a second one off the perimeter."""
        end = path[-1]
        free = g.buildable(bd, end)
        g.emit_builds(w, path, free, before, up)
        for b in bits(free):
            bd1, won = g.build(bd, b)
            if won:
                continue
            for b2 in bits(g.buildable(bd1, end) & ~PERIMETER):
                # b2 then b is the same pair: written once, ascending, unless the first
                # build alone ends the game (then the orders differ).
                same = b2 < b and not PERIMETER >> b & 1 and free >> b2 & 1
                if same and not g.build(bd, b2)[1]:
                    continue
                g.emit(Turn(w, path, (b, b2), before), up)
