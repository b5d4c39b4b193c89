"""Eros (RULES.md section 8): moving next to his other worker, both on level 1, wins."""

from __future__ import annotations

from typing import Final

from santorini_p2p.engine.position import Position
from santorini_p2p.engine.power import PERIMETER, Board, Gen, Power
from santorini_p2p.engine.squares import BITS, NEIGHBOURS, bits

_PAIRING: Final = 40
"""A worker on level 1 with the other within two squares: his win is a move or two away."""

_NORTH = sum(BITS[s] for s in range(20, 25))
_SOUTH = sum(BITS[s] for s in range(5))
_WEST = sum(BITS[s] for s in range(0, 25, 5))
_EAST = sum(BITS[s] for s in range(4, 25, 5))


class Eros(Power):
    """The card's rulings (RULES.md section 8).

    His own move only, ending on level 1 next to his other worker on level 1. His workers
    start on opposite edges.
    """

    name = "eros"
    rank = 24
    text = (
        "Place your workers anywhere along opposite edges of the board. You also win if one "
        "of your workers moves to a space neighbouring your other worker and both are on "
        "the first level."
    )

    wins_by_levels = False

    def placement_error(self, squares: tuple[int, ...]) -> str | None:
        """One worker on an edge, the other on the opposite edge."""
        if any(not PERIMETER >> s & 1 for s in squares):
            return "eros places his workers on the edge of the board, on opposite edges"
        if len(squares) != 2:
            return None
        a, b = (BITS[s] for s in squares)
        for one, other in ((_NORTH, _SOUTH), (_WEST, _EAST)):
            if (a & one and b & other) or (a & other and b & one):
                return None
        return "eros places his workers on opposite edges of the board"

    def wins_by_move(self, frm: int, to: int, bd: Board, g: Gen) -> bool:
        """Moving up onto level 3, or onto level 1 next to his other worker on level 1."""
        lv = bd[0]
        if lv[to] == 3 and lv[frm] < 3:
            return True
        if lv[to] != 1:
            return False
        return any(lv[s] == 1 for s in bits(bd[2][g.side] & ~BITS[to] & NEIGHBOURS[to]))

    def quick_win(self, p: Position, mine: int, opp: int, no_up: bool) -> bool | None:
        """The plain win, or a step onto level 1 next to his other worker on level 1."""
        if super().quick_win(p, mine, opp, no_up):
            return True
        occ = mine | opp | p.domes
        one = p.ge1 & ~p.ge2
        for w in bits(mine):
            if no_up and not p.ge1 >> w & 1:
                continue
            for o in bits(mine & one & ~BITS[w]):
                if NEIGHBOURS[w] & NEIGHBOURS[o] & one & ~occ:
                    return True
        return False

    def extra_threats(self, p: Position, w: int, moves: int, occ: int, no_up: bool) -> int:
        """The level-1 squares the worker can step to next to his other worker on level 1."""
        one = p.ge1 & ~p.ge2
        out = 0
        for m in p.workers:
            if m >> w & 1:
                for o in bits(m & one & ~BITS[w]):
                    out |= moves & NEIGHBOURS[o] & one
        return out

    def evaluation(self, p: Position, side: int, occ: int, no_up: bool) -> int:
        """A worker on level 1 and the other near it: the pair he wins with is forming."""
        ws = bits(p.workers[side])
        if len(ws) != 2:
            return 0
        a, b = ws
        near = max(abs(a % 5 - b % 5), abs(a // 5 - b // 5)) <= 2
        one = p.ge1 & ~p.ge2
        return _PAIRING if near and (one >> a & 1 or one >> b & 1) else 0
