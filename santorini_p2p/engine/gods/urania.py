"""Urania (RULES.md section 9): for her moves and builds the board wraps round."""

from __future__ import annotations

from typing import Final

from santorini_p2p.engine.position import Position, Turn
from santorini_p2p.engine.power import Board, Gen, Power
from santorini_p2p.engine.squares import BITS, bits

WRAPPED: Final = tuple(
    sum(
        BITS[((r + dr) % 5) * 5 + (f + df) % 5]
        for df in (-1, 0, 1)
        for dr in (-1, 0, 1)
        if df or dr
    )
    for r in range(5)
    for f in range(5)
)
"""``WRAPPED[s]``: the eight squares round ``s`` when opposite edges and corners meet."""


class Urania(Power):
    """The card's rulings (RULES.md section 9).

    Only her own moves and builds wrap; every other rule and power uses ordinary adjacency,
    and the perimeter stays the perimeter. A wrapped step keeps its direction for a slide.
    """

    name = "urania"
    text = (
        "When your worker moves or builds, treat opposite edges and corners as if they are "
        "adjacent so that every space has 8 neighbours."
    )

    def step_mask(self, g: Gen, w: int, bd: Board, no_up: bool) -> int:
        """The plain rule over the wrapped neighbours."""
        return g.steps(w, bd, no_up, near=WRAPPED[w])

    def moves(self, g: Gen, w: int, bd: Board, before: int, no_up: bool) -> None:
        """As the plain rule; under a slide two steps may come to rest on one square.

        Both are the same turn: it is taken once (as having moved up if either did).
        """
        if not g.limits.slide:
            super().moves(g, w, bd, before, no_up)
            return
        lv, domes, workers = bd
        h = lv[w]
        rests: dict[int, tuple[Board, bool]] = {}
        for t in bits(self.step_mask(g, w, bd, no_up)):
            moved = list(workers)
            moved[g.side] ^= BITS[w] | BITS[t]
            bd1 = (lv, domes, tuple(moved))
            up = lv[t] > h
            if self.is_win(g, w, t, bd1):
                if g.bound_ok(w, t, bd1):
                    g.emit(Turn(w, (t,), (), before), up)
                continue
            (r,), bd2 = g.land(w, (t,), bd1)
            seen = rests.get(r)
            rests[r] = (bd2, up or (seen is not None and seen[1]))
        for r, (bd2, up) in rests.items():
            if g.bound_ok(w, r, bd2):
                self.builds(g, w, (r,), bd2, before, up)

    def builds(
        self, g: Gen, w: int, path: tuple[int, ...], bd: Board, before: int, up: bool
    ) -> None:
        """One build on a wrapped neighbour of the worker."""
        free = WRAPPED[path[-1]] & ~g.occupied(bd)
        g.emit_builds(w, path, g.allowed(bd, free), before, up)

    def quick_win(self, p: Position, mine: int, opp: int, no_up: bool) -> bool | None:
        """A level-2 worker next to a free level-3 square, the board wrapped."""
        if no_up:
            return False
        top = p.ge3 & ~(mine | opp | p.domes)
        return any(WRAPPED[w] & top for w in bits(mine & p.ge2 & ~p.ge3))

    def extra_threats(self, p: Position, w: int, moves: int, occ: int, no_up: bool) -> int:
        """Free level-3 squares round the edge from a level-2 worker."""
        if no_up or not (p.ge2 >> w & 1) or p.ge3 >> w & 1:
            return 0
        return WRAPPED[w] & p.ge3 & ~occ
