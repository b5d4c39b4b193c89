"""Triton (RULES.md section 8): each step into a perimeter square may be followed by another."""

from __future__ import annotations

from collections.abc import Iterator

from santorini_p2p.engine.position import Position, Turn
from santorini_p2p.engine.power import PERIMETER, Board, Gen, Power
from santorini_p2p.engine.squares import ALL, BITS, NEIGHBOURS, bits


class Triton(Power):
    """The card's rulings (RULES.md section 8).

    Any number of ordinary steps while the worker keeps landing on the perimeter (revisits
    allowed), then a build next to its final square. Moving up onto level 3 wins at once.

    Many step sequences reach the same square; each outcome is written once, by its shortest
    path, the smallest in square order among the shortest (protocol/SPEC.md 2.1).
    """

    name = "triton"
    example = "a2>a1>b1>c2^c3 moves again after each step onto the edge"
    rank = 15
    win_from = 0
    text = "Each time your worker moves into a perimeter space, it may immediately move again."

    def moves(self, g: Gen, w: int, bd: Board, before: int, no_up: bool) -> None:
        """Every outcome of the worker on ``w``'s steps, each by its one path.

        A round trip back to its own square moves nobody: with the same build, the other
        worker's round trip reaches the same position, so it is written for the lower worker.
        """
        lv, domes, workers = bd
        side = g.side
        others = workers[side] & ~BITS[w]
        track_up = g.limits.must_up
        lower = {
            (u and track_up): g.buildable(bd, o)
            for o in bits(others)
            if o < w and not g.limits.frozen >> o & 1
            for u in self._round_trips(g, o, bd, no_up)
        }
        for t, path, up, won in self._search(g, w, bd, no_up):
            moved = list(workers)
            moved[side] = others | BITS[t]
            bd2 = (lv, domes, tuple(moved))
            if won:
                if g.bound_ok(w, t, bd2):
                    g.emit(Turn(w, path, (), before), True)
            elif t == w:
                free = g.buildable(bd2, w) & ~lower.get(up and track_up, 0)
                g.emit_builds(w, path, free, before, up)
            elif g.bound_ok(w, t, bd2):
                self.builds(
                    g,
                    w,
                    path,
                    self.after_step(path[-2] if len(path) > 1 else w, t, bd2, g),
                    before,
                    up,
                )

    def walks(self, p: Position, turn: Turn, no_up: bool) -> bool:
        """Whether ``turn``'s path is one Triton may take (then written by its canonical path).

        Ordinary steps, each but the last into a perimeter square, none but the last a win.
        """
        w = turn.worker
        side = p.side_of(p.to_move)
        occ = p.domes
        for i, m in enumerate(p.workers):
            occ |= m & ~BITS[w] if i == side else m
        at = w
        for i, t in enumerate(turn.path):
            if not (0 <= t < 25 and NEIGHBOURS[at] >> t & 1) or occ >> t & 1:
                return False
            if i and not PERIMETER >> at & 1:
                return False
            if p.level(t) > p.level(at) + (0 if no_up else 1):
                return False
            if i < len(turn.path) - 1 and p.level(t) == 3 and p.level(at) < 3:
                return False
            at = t
        return True

    def _round_trips(self, g: Gen, w: int, bd: Board, no_up: bool) -> set[bool]:
        """Whether the worker on ``w`` can step back to its own square (and having moved up)."""
        return {up for t, _, up, won in self._search(g, w, bd, no_up) if t == w and not won}

    def _search(
        self, g: Gen, w: int, bd: Board, no_up: bool
    ) -> Iterator[tuple[int, tuple[int, ...], bool, bool]]:
        """Breadth first over the steps: ``(square, path, moved up, won)`` once per outcome.

        One state per square (and per "moved up" when an opponent makes moving up mandatory),
        reached by the shortest path, the smallest in square order among the shortest.
        """
        lv, domes, workers = bd
        side = g.side
        occ = domes | (workers[side] & ~BITS[w])
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
            low = lv[at] if g.limits.no_down else 0
            for t in bits(g.limits.walk(at, NEIGHBOURS[at] & ~occ)):
                if not low <= lv[t] <= top:
                    continue
                up2 = up or lv[t] > lv[at]
                won = self.is_win(g, at, t, bd)
                key = (t, up2 and track_up, won)
                if key in seen:
                    continue
                seen.add(key)
                path2 = (*path, t)
                yield t, path2, up2, won
                if not won:
                    queue.append((t, path2, up2))

    def quick_win(self, p: Position, mine: int, opp: int, no_up: bool) -> bool | None:
        """A move up onto level 3 at the end of a chain of perimeter steps (or at once)."""
        occ = mine | opp | p.domes
        if no_up or not p.ge3 & ~occ:
            return False
        return any(_win_squares(p, w, occ & ~BITS[w]) for w in bits(mine))

    def extra_threats(self, p: Position, w: int, moves: int, occ: int, no_up: bool) -> int:
        """The level-3 squares the worker reaches by perimeter steps and then a move up."""
        if no_up or not p.ge3 & ~occ:
            return 0
        return _win_squares(p, w, occ & ~BITS[w])


def _win_squares(p: Position, w: int, occ: int) -> int:
    """The squares where the worker on ``w`` wins by a chain of steps (``occ``: obstacles).

    Each square is walked from once: which way the worker came does not change where it can
    go next, as revisits are allowed.
    """
    reach = (ALL ^ p.ge1, ALL ^ p.ge2, ALL ^ p.ge3, ALL)
    top = p.ge3
    wins = 0
    done = BITS[w]
    queue = [w]
    for at in queue:
        h = p.level(at)
        nb = NEIGHBOURS[at] & ~occ & reach[min(h + 1, 3)]
        if h < 3:
            wins |= nb & top
            nb &= ~top
        for t in bits(nb & PERIMETER & ~done):
            done |= BITS[t]
            queue.append(t)
    return wins
