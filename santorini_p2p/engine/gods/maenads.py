"""Maenads (RULES.md section 9): a worker between two of hers loses its owner the game."""

from __future__ import annotations

from typing import Final

from santorini_p2p.engine.position import Position
from santorini_p2p.engine.power import Board, Gen, Power
from santorini_p2p.engine.squares import BITS, bits

_PAIRS: Final = tuple(
    tuple(
        BITS[(r - dr) * 5 + f - df] | BITS[(r + dr) * 5 + f + df]
        for df, dr in ((1, 0), (0, 1), (1, 1), (1, -1))
        if 0 <= f - df < 5 and 0 <= f + df < 5 and 0 <= r - dr < 5 and 0 <= r + dr < 5
    )
    for r in range(5)
    for f in range(5)
)
"""``_PAIRS[s]``: the pairs of squares on opposite sides of ``s`` (straight or diagonal)."""


def sandwiched(mine: int, opp: int) -> int:
    """The workers in ``opp`` with a worker of ``mine`` on two opposite sides."""
    out = 0
    for s in bits(opp):
        for pair in _PAIRS[s]:
            if mine & pair == pair:
                out |= BITS[s]
                break
    return out


class Maenads(Power):
    """The card's rulings (RULES.md section 9).

    Checked at the end of her own turn, after her builds; levels do not matter. Not a win by
    moving (Hera does not stop it). With two players, or four (the other team), she wins; with
    three, each opponent with a worker between two of hers loses and leaves, and play goes on
    (she wins when no opponent is left).
    """

    name = "maenads"
    text = (
        "At the end of your turn, if an opponent's worker is between two of your workers "
        "(on opposite sides, straight or diagonally), that opponent loses the game."
    )
    players = frozenset({2, 3, 4})

    def losers_at_end_of_turn(self, bd: Board, g: Gen) -> int:
        """The opponent sides with a worker between two of hers."""
        mine = bd[2][g.side]
        out = 0
        for i, m in enumerate(bd[2]):
            if i != g.side and m and sandwiched(mine, m):
                out |= 1 << i
        return out

    def extra_threats(self, p: Position, w: int, moves: int, occ: int, no_up: bool) -> int:
        """The squares the worker on ``w`` would move to and catch an opponent worker there.

        With another of hers on the far side of it (she wins at the end of that turn).
        """
        side = next(i for i, m in enumerate(p.workers) if m >> w & 1)
        mine = p.workers[side]
        opp = occ & ~p.domes & ~mine
        if not opp:
            return 0
        out = 0
        for t in bits(moves & ~opp):
            if sandwiched(mine & ~BITS[w] | BITS[t], opp):
                out |= BITS[t]
        return out

    def evaluation(self, p: Position, side: int, occ: int, no_up: bool) -> int:
        """A little for each opponent worker she already has on one side with room beyond."""
        mine = p.workers[side]
        opp = occ & ~p.domes & ~mine
        score = 0
        for s in bits(opp):
            for pair in _PAIRS[s]:
                if mine & pair and not occ & pair & ~mine:
                    score += 15
        return score
