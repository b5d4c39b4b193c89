"""Triton (RULES.md section 8): each step into a perimeter square may be followed by another."""

from __future__ import annotations

from santorini_p2p.engine.position import Position, Turn
from santorini_p2p.engine.power import PERIMETER, Board, Gen, Power
from santorini_p2p.engine.squares import BITS, NEIGHBOURS, bits


class Triton(Power):
    """The card's rulings (RULES.md section 8).

    Any number of ordinary steps while the worker keeps landing on the perimeter (revisits
    allowed), then a build next to its final square. Moving up onto level 3 wins at once.

    Many step sequences reach the same square; each outcome is written once, by its shortest
    path, the smallest in square order among the shortest (protocol/SPEC.md 2.1).
    """

    name = "triton"
    text = "Each time your worker moves into a perimeter space, it may immediately move again."

    def moves(self, g: Gen, w: int, bd: Board, before: int, no_up: bool) -> None:
        """Search the steps breadth first, so that each outcome has one path.

        One state per square (and per "moved up" when an opponent makes moving up mandatory).
        """
        lv, domes, workers = bd
        side = g.side
        others = workers[side] & ~BITS[w]
        occ = domes | others
        for i, m in enumerate(workers):
            if i != side:
                occ |= m
        climb = 0 if no_up or g.limits.no_up else 1
        track_up = g.limits.must_up
        seen: set[tuple[int, bool, bool]] = set()
        queue: list[tuple[int, tuple[int, ...], bool]] = [(w, (), False)]
        for at, path, up in queue:
            if path and not PERIMETER >> at & 1:
                continue
            top = lv[at] + climb
            for t in bits(NEIGHBOURS[at] & ~occ):
                if lv[t] > top:
                    continue
                up2 = up or lv[t] > lv[at]
                won = self.is_win(g, at, t, bd)
                key = (t, up2 and track_up, won)
                if key in seen:
                    continue
                seen.add(key)
                path2 = (*path, t)
                moved = list(workers)
                moved[side] = others | BITS[t]
                bd2 = (lv, domes, tuple(moved))
                if won:
                    if g.bound_ok(w, t, bd2):
                        g.emit(Turn(w, path2, (), before), True)
                    continue
                if g.bound_ok(w, t, bd2):
                    self.builds(g, w, path2, self.after_step(at, t, bd2, g), before, up2)
                queue.append((t, path2, up2))

    def quick_win(self, p: Position, mine: int, opp: int, no_up: bool) -> bool | None:
        """Its wins need the full list of turns."""
        return None
