"""Graeae (RULES.md section 9): three workers; one that did not move builds."""

from __future__ import annotations

from santorini_p2p.engine.power import Board, Gen, Power
from santorini_p2p.engine.squares import BITS, NEIGHBOURS, bits


class Graeae(Power):
    """The card's rulings (RULES.md section 9).

    She places three workers. After her move the build neighbours one of her workers that did
    not move (not necessarily the mover's square), written as any build; with one worker left
    only a winning move is a complete turn. Her turn is always her power's turn.
    """

    name = "graeae"
    text = (
        "When placing your workers, place 3 of your colour. Build with a worker that did not move."
    )
    players = frozenset({2, 3})
    placed = 3
    most_workers = 3
    plain_turns = False

    def builds(
        self, g: Gen, w: int, path: tuple[int, ...], bd: Board, before: int, up: bool
    ) -> None:
        """One build next to any worker of hers but the one that moved."""
        near = 0
        for o in bits(bd[2][g.side] & ~BITS[path[-1]]):
            near |= NEIGHBOURS[o]
        free = near & ~g.occupied(bd)
        g.emit_builds(w, path, g.allowed(bd, free), before, up)
