"""Hermes (RULES.md section 6): both workers step along their levels, then one builds.

The power turn is written ``H`` with the two final squares (RULES.md section 7); a plain turn
of Hermes always changes level. :func:`hermes_form` and :func:`plain_form` translate between
the plain spelling a player may type and that text.
"""

from __future__ import annotations

from santorini_p2p.engine.position import Phase, Position, Turn
from santorini_p2p.engine.power import Board, Gen, Limits, Power
from santorini_p2p.engine.squares import ALL, BITS, NEIGHBOURS, bits

__all__ = ["Hermes", "hermes_form", "plain_form"]


def _component(start: int, graph: int, limits: Limits | None = None) -> int:
    """Return the 8-connected component of ``graph`` (a bitboard) that holds ``start``.

    With ``limits`` that forbid some directions of step, the squares reachable from ``start``.
    """
    seen = BITS[start]
    frontier = seen
    walks = limits is not None and limits.walks
    while frontier:
        grow = 0
        for s in bits(frontier):
            grow |= limits.walk(s, NEIGHBOURS[s]) if walks and limits else NEIGHBOURS[s]
        frontier = grow & graph & ~seen
        seen |= frontier
    return seen


class Hermes(Power):
    """Any number of same-level steps by both workers (even none), then one build by either."""

    name = "hermes"
    example = (
        "Ha1,c2^b2 moves both workers on one level, then builds\n"
        "(b2>c3^d4 on one level is taken too, and recorded in this form)"
    )
    rank = 10
    moves_both = True
    text = (
        "If your workers do not move up or down, they may each move any number of "
        "times (even zero), and then either builds."
    )

    def step_mask(self, g: Gen, w: int, bd: Board, no_up: bool) -> int:
        """A plain turn changes level: a same-level move then a build is the power turn."""
        lv = bd[0]
        h = lv[w]
        out = 0
        for t in bits(g.steps(w, bd, no_up)):
            if lv[t] != h:
                out |= BITS[t]
        return out

    def turns(self, g: Gen) -> None:
        """Plain turns, and the power turns when both workers are wanted."""
        super().turns(g)
        if g.pair:
            self._power_turns(g)

    def alias(self, p: Position, turn: Turn) -> Turn | None:
        """A plain one-step turn on one level is written as the power turn."""
        return hermes_form(p, turn)

    def _areas(self, g: Gen) -> tuple[int, int, int, int] | None:
        """``(w1, w2, area of w1, area of w2)``: where each worker can end its steps.

        When the two areas touch they are one (the second is 0). A frozen worker stays put.
        None: the side does not have two workers.
        """
        lv, domes, workers = g.board
        ws = bits(workers[g.side])
        if len(ws) != 2:
            return None
        w1, w2 = ws
        open_ = ALL & ~domes & ~g.opponents(g.board)
        frozen = g.limits.frozen

        def area(w: int, wall: int) -> int:
            same = sum(BITS[s] for s in range(25) if lv[s] == lv[w])
            return _component(w, same & open_ & ~wall, g.limits)

        # A frozen worker stays where it stands, and the other cannot pass it.
        if frozen >> w1 & 1:
            return w1, w2, BITS[w1], area(w2, BITS[w1])
        if frozen >> w2 & 1:
            return w1, w2, area(w1, BITS[w2]), BITS[w2]
        c1 = area(w1, 0)
        if c1 >> w2 & 1:
            return w1, w2, c1, 0
        return w1, w2, c1, area(w2, 0)

    def _power_turns(self, g: Gen) -> None:
        lv, domes, workers = g.board
        if workers[g.side].bit_count() == 1:
            self._lone_turns(g)
            return
        areas = self._areas(g)
        if areas is None:
            return
        w1, w2, c1, c2 = areas
        pairs: list[tuple[int, int]] = []
        want = g.target
        if want is not None:
            # One turn is looked for: only its two end squares can give it.
            if want.worker == -1 and len(want.path) == 2:
                a, b = want.path
                if 0 <= a < b < 25 and (
                    (c1 >> a & 1 and (c2 or c1) >> b & 1) or (c2 >> a & 1 and c1 >> b & 1)
                ):
                    pairs = [(a, b)]
        elif not c2:
            sq = bits(c1)
            pairs = [(a, b) for i, a in enumerate(sq) for b in sq[i + 1 :]]
        else:
            pairs = [(a, b) if a < b else (b, a) for a in bits(c1) for b in bits(c2)]
        # Which worker ends where matters only to a bound worker; in one area two workers
        # cannot always pass each other, so then the orders they can reach are searched.
        reach = None
        if not c2 and g.limits.bound & workers[g.side]:
            reach = _orders(w1, w2, c1)
        for a, b in pairs:
            if not self._realisable(g, w1, w2, c1, c2, a, b, reach):
                continue
            moved = list(workers)
            moved[g.side] = BITS[a] | BITS[b]
            bd = (lv, domes, tuple(moved))
            free = (NEIGHBOURS[a] | NEIGHBOURS[b]) & ~g.occupied(bd)
            for s in bits(g.allowed(bd, free)):
                g.emit(Turn(-1, (a, b), (s,)), False)

    def _lone_turns(self, g: Gen) -> None:
        """The power with one worker left: its steps on its level, then its build."""
        lv, domes, workers = g.board
        w = bits(workers[g.side])[0]
        open_ = ALL & ~domes & ~g.opponents(g.board)
        same = sum(BITS[s] for s in range(25) if lv[s] == lv[w])
        area = BITS[w] if g.limits.frozen >> w & 1 else _component(w, same & open_, g.limits)
        want = g.target
        if want is not None:
            # One turn is looked for: only its end square can give it.
            ends = want.path
            lone = want.worker == -1 and len(ends) == 1 and 0 <= ends[0] < 25
            area &= BITS[ends[0]] if lone else 0
        for a in bits(area):
            bd = (lv, domes, tuple(BITS[a] if i == g.side else m for i, m in enumerate(workers)))
            if not g.bound_ok(w, a, bd):
                continue
            free = NEIGHBOURS[a] & ~g.occupied(bd)
            for s in bits(g.allowed(bd, free)):
                g.emit(Turn(-1, (a,), (s,)), False)

    def _realisable(
        self,
        g: Gen,
        w1: int,
        w2: int,
        c1: int,
        c2: int,
        a: int,
        b: int,
        reach: set[tuple[int, int]] | None,
    ) -> bool:
        """Whether some worker-to-square assignment reaches ``a``, ``b`` within the rules.

        Each worker must end in its own area (a frozen one where it stands), and a bound
        worker that moved must end next to a binder (RULES.md section 8, Aphrodite).
        ``reach``: the ends ``(w1's, w2's)`` they can reach in one area, when it matters.
        """
        for x, y in ((a, b), (b, a)):
            if c2 and not (c1 >> x & 1 and c2 >> y & 1):
                continue
            if reach is not None and (x, y) not in reach:
                continue
            bd = g.board
            if g.limits.bound:
                lv, domes, workers = bd
                moved = list(workers)
                moved[g.side] = BITS[a] | BITS[b]
                bd = (lv, domes, tuple(moved))
            if g.bound_ok(w1, x, bd) and g.bound_ok(w2, y, bd):
                return True
        return False


def _orders(w1: int, w2: int, area: int) -> set[tuple[int, int]]:
    """The squares ``(first, second)`` two workers can end on, stepping within ``area``."""
    seen = {(w1, w2)}
    queue = [(w1, w2)]
    for x, y in queue:
        for nx in bits(NEIGHBOURS[x] & area & ~BITS[y]):
            if (nx, y) not in seen:
                seen.add((nx, y))
                queue.append((nx, y))
        for ny in bits(NEIGHBOURS[y] & area & ~BITS[x]):
            if (x, ny) not in seen:
                seen.add((x, ny))
                queue.append((x, ny))
    return seen


def hermes_form(p: Position, turn: Turn) -> Turn | None:
    """Return the power turn that the plain one-step turn ``turn`` of Hermes is, or None.

    A Hermes player's turn of one step on one level, then a build next to that worker, is
    written only as a power turn (RULES.md section 7: ``b2>a1^a2`` is ``Ha1,d4^a2`` with the
    other worker on d4). None when ``turn`` is not such a turn; the power turn returned may
    still be illegal.
    """
    if (
        p.phase is not Phase.PLAY
        or p.gods[p.to_move] != Hermes.name
        or turn.worker < 0
        or turn.before != -1
        or turn.after != -1
        or len(turn.path) != 1
        or len(turn.builds) != 1
        or turn.builds[0] > 24
    ):
        return None
    w, t, build = turn.worker, turn.path[0], turn.builds[0]
    if not (0 <= w < 25 and 0 <= t < 25):
        return None
    mine = p.workers[p.side_of(p.to_move)]
    rest = mine & ~BITS[w]
    if not (mine >> w & 1 and NEIGHBOURS[w] >> t & 1 and NEIGHBOURS[t] >> build & 1):
        return None
    if rest & (rest - 1) or rest >> t & 1 or p.level(w) != p.level(t):
        return None
    if not rest:
        return Turn(-1, (t,), (build,))
    other = bits(rest)[0]
    return Turn(-1, (min(t, other), max(t, other)), (build,))


def plain_form(p: Position, turn: Turn) -> Turn | None:
    """Return the plain spelling of the Hermes power turn ``turn``, or None if it has none.

    The inverse of :func:`hermes_form`: a power turn in which one worker takes one step and
    then builds next to itself can be typed as that worker's plain turn.
    """
    if turn.worker >= 0 or p.phase is not Phase.PLAY:
        return None
    mine = p.workers[p.side_of(p.to_move)]
    ends = turn.path
    if len(ends) == 1 and mine.bit_count() == 1:
        plain = Turn(bits(mine)[0], ends, turn.builds)
        return plain if hermes_form(p, plain) == turn else None
    for w in bits(mine):
        other = bits(mine & ~BITS[w])
        if len(other) != 1 or other[0] not in ends:
            continue
        t = ends[1] if ends[0] == other[0] else ends[0]
        plain = Turn(w, (t,), turn.builds)
        if hermes_form(p, plain) == turn:
            return plain
    return None
