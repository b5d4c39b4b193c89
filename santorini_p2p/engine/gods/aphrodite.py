"""Aphrodite (RULES.md section 8): opponent workers that start next to hers stay next to hers."""

from __future__ import annotations

from santorini_p2p.engine.position import Position
from santorini_p2p.engine.power import Limits, Power
from santorini_p2p.engine.squares import NEIGHBOURS, bits


class Aphrodite(Power):
    """The card's rulings (RULES.md section 8).

    Bound workers are fixed at the start of the opponent's turn; a bound worker that moves
    must end its last move next to one of her workers as they stand then (after any swap, push
    or ferry; before a removal). Intermediate steps are free; a worker that stays is free.
    """

    name = "aphrodite"
    rank = 21
    text = (
        "An opponent worker that starts its turn next to one of her workers must, if it "
        "moves, end its last move next to one of her workers."
    )

    def restrict(self, p: Position, seat: int, limits: Limits) -> None:
        """Bind the mover's workers that start next to one of hers."""
        side = p.side_of(seat)
        near = 0
        for s in bits(p.workers[side]):
            near |= NEIGHBOURS[s]
        limits.bound |= p.workers[p.side_of(p.to_move)] & near
        limits.binders |= 1 << side
