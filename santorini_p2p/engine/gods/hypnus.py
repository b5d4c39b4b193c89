"""Hypnus (RULES.md section 8): an opponent worker higher than the others cannot move."""

from __future__ import annotations

from santorini_p2p.engine.position import Position
from santorini_p2p.engine.power import Limits, Power
from santorini_p2p.engine.squares import bits


class Hypnus(Power):
    """The card's rulings (RULES.md section 8).

    Levels at the start of the opponent's turn; a tie freezes nobody, and so does a side
    with one worker (it has no others). With 3 players "all the others" could mean every
    other worker on the board, so the card is offered for 2 and 4 players only.
    """

    name = "hypnus"
    rank = 23
    text = "If one of your opponent's workers is higher than all of their others, it cannot move."
    players = frozenset({2, 4})

    def restrict(self, p: Position, seat: int, limits: Limits) -> None:
        """Freeze the mover's one highest worker."""
        ws = bits(p.workers[p.side_of(p.to_move)])
        if len(ws) < 2:
            return
        levels = sorted(((p.level(s), s) for s in ws), reverse=True)
        if levels[0][0] > levels[1][0]:
            limits.frozen |= 1 << levels[0][1]
