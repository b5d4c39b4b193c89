"""Atalanta (RULES.md 10.5): once, her worker moves any number of extra times."""

from __future__ import annotations

from collections.abc import Iterator

from santorini_p2p.engine.gods.hero import Hero
from santorini_p2p.engine.position import Position, Turn
from santorini_p2p.engine.power import Board, Gen
from santorini_p2p.engine.squares import BITS, bits


class Atalanta(Hero):
    """[BGA] ``mayMoveAgain``: each step an ordinary move; revisits and a return are allowed.

    Used once a second step is taken. A win on any step ends the turn (Hera applies per step).
    Each end is written once, by its shortest path of two steps or more, the smallest in
    square order among those.
    """

    name = "atalanta"
    win_from = 0
    wins_more = True
    text = "Once per game, your worker may move any number of additional times."

    def worker_turns(self, g: Gen, w: int) -> None:
        """Plain turns, then while unused each end of two steps or more."""
        super().worker_turns(g, w)
        if self.is_used(g.p, g.seat):
            return
        lv, domes, workers = g.board
        # A round trip back to its own square moves nobody: when a lower worker can make one
        # and build the same square, the turn is written for the lower worker (as Triton's).
        lower = 0
        for o in bits(workers[g.side] & ~BITS[w]):
            if (
                o < w
                and not g.limits.frozen >> o & 1
                and any(t == o and not won for t, _, _, won in self._search(g, o))
            ):
                lower |= g.buildable(g.board, o)
        for t, path, up, won in self._search(g, w):
            moved = list(workers)
            moved[g.side] ^= BITS[w] | BITS[t]
            bd = (lv, domes, tuple(moved))
            if won:
                if g.bound_ok(w, t, bd):
                    g.emit(Turn(w, path, ()), up)
            elif t == w and lower:
                g.emit_builds(w, path, g.buildable(bd, w) & ~lower, -1, up)
            elif g.bound_ok(w, t, bd):
                self.builds(g, w, path, bd, -1, up)

    def _search(self, g: Gen, w: int) -> Iterator[tuple[int, tuple[int, ...], bool, bool]]:
        """Breadth first: ``(square, path, moved up, won)`` once per end of two steps or more."""
        lv, domes, workers = g.board
        base = list(workers)
        base[g.side] &= ~BITS[w]
        track_up = g.limits.must_up
        seen: set[tuple[int, bool, bool, bool]] = set()
        queue: list[tuple[int, tuple[int, ...], bool]] = [(w, (), False)]
        for at, path, up in queue:
            here = list(base)
            here[g.side] |= BITS[at]
            bd: Board = (lv, domes, tuple(here))
            for t in bits(g.steps(at, bd)):
                up2 = up or lv[t] > lv[at]
                won = self.is_win(g, at, t, bd)
                if not won and g.limits.slide:
                    # An opponent's slide after each step (RULES.md 9): it goes on from there.
                    t = g.slide(at, t, bd)[0]
                path2 = (*path, t)
                long = len(path2) >= 2
                key = (t, long, up2 and track_up, won)
                if key in seen:
                    continue
                seen.add(key)
                if long:
                    yield t, path2, up2, won
                if not won:
                    queue.append((t, path2, up2))

    def uses(self, p: Position, turn: Turn) -> bool:
        """A second step."""
        return len(turn.path) >= 2
