"""Gaea (RULES.md 10.5): whenever a dome is built, a worker from her card may join next to it."""

from __future__ import annotations

from collections.abc import Callable
from itertools import combinations, permutations

from santorini_p2p.engine.position import (
    DOME,
    FORCE,
    HERO_DOME,
    MAX_PLACED_DOME,
    OP_DOME,
    OP_PLACE,
    STAR,
    Position,
    Turn,
)
from santorini_p2p.engine.power import Limits, Power
from santorini_p2p.engine.squares import BITS, NEIGHBOURS, bits


def on_card(state: str) -> int:
    """The workers left on her card (the bare entry: both)."""
    return int(state) if state else 2


class Gaea(Power):
    """The state is the workers left on her card (``gaea[1]``, ``gaea[0]``; bare: 2).

    [BGA] ``afterPlayerBuild``/``afterOpponentBuild``: after any build that makes a dome, in
    anyone's turn, she may put one on an unoccupied ground-level square next to that dome, at
    once (so the rest of that turn cannot build there). Not a build [ours]. Written ``+c5``
    right after the build that made the dome; a square two domes touch goes with the first.
    """

    name = "gaea"
    text = (
        "Setup: take 2 extra workers of your color; keep them on your card. Whenever any "
        "worker builds a dome, you may place one of them on an unoccupied ground-level space "
        "neighbouring the dome."
    )
    players = frozenset({2, 3})
    stateful = True
    reacts = True

    def read_state(self, text: str) -> str:
        """0 or 1 (2 is the bare entry)."""
        if text not in ("0", "1"):
            raise ValueError("expected 0 or 1 workers on her card (2 is written bare)")
        return text

    def step_words(self, mark: str, own: bool) -> str:
        """``+``: in anyone's turn, a worker of hers from her card next to the new dome."""
        return "Gaea's worker next to the dome" if mark == "+" else ""

    def describe_state(self, state: str) -> str:
        """Her card."""
        n = on_card(state)
        return f"{n} worker{'s' if n != 1 else ''} on her card"

    most_workers = 4

    def worker_limit(self, state: str) -> int:
        """Those on the board and on her card are at most 4."""
        return 4 - on_card(state)

    def may_vary(self, p: Position, seat: int, turn: Turn) -> bool:
        """Only a turn that may build a dome, while workers wait on her card."""
        if p.state_of(seat) == "[0]":
            return False
        if turn.before >= 0 and not turn.before & FORCE:
            return True
        if any(op >> 5 == STAR for op in turn.post) or any(e >> 10 == OP_DOME for e in turn.extra):
            # A dome at the end of the turn (RULES.md 9's ``*``, a ``#`` dome).
            return True
        seen = 0
        for b in turn.builds:
            s = b & 31
            if b & (DOME | HERO_DOME) or p.level(s) + (seen >> 2 * s & 3) >= 3:
                return True
            seen += 1 << 2 * s
        return False

    def variants(
        self, p: Position, seat: int, turn: Turn, after: Position, limits: Limits
    ) -> list[Turn]:
        """Each set of squares she may fill next to the turn's new domes."""
        left = on_card(p.state_of(seat)[1:-1])
        if not left or not (turn.builds or turn.before >= 0 or turn.post or turn.extra):
            return []
        made, blocked = _domes_made(p, turn)
        if not made:
            return []
        # Ground level when the dome is built and after the turn, never built on in it (a
        # block taken off again at the end, by Ares, stood there when she could place).
        occ = after.domes | after.ge1 | p.ge1
        for b in turn.builds:
            occ |= BITS[b & 31]
        for m in after.workers:
            occ |= m
        # A worker the mover's end-of-turn choice put on the board came after hers: she may
        # take its square, and the mover then chooses again (RULES.md 10.5: "at once").
        from santorini_p2p.engine.gods import power_of

        mover = power_of(p.gods[p.to_move])
        later = mover.end_workers(turn)
        occ &= ~later
        near = 0
        for _, s in made:
            near |= NEIGHBOURS[s]
        spots = bits(near & ~occ & ~blocked)
        out: list[Turn] = []
        for k in range(1, min(left, len(made)) + 1):
            for chosen in combinations(spots, k):
                ops = _assign(made, chosen)
                if ops is None:
                    continue
                taken = sum(BITS[s] for s in chosen)
                again = mover.end_with(p, turn, taken, after) if taken & later else [turn]
                out.extend(t._replace(extra=t.extra + ops) for t in again)
        return out

    def choice_points(self, p: Position, seat: int, turn: Turn) -> tuple[int, ...]:
        """Each new dome of another seat's turn while a worker waits on her card.

        She decides at every such dome, in the order the text writes them, whether a worker
        joins it and where; the workers she puts there count down her card as she goes.
        """
        left = on_card(p.state_of(seat)[1:-1])
        if not left:
            return ()
        placed: dict[int, int] = {}
        for v in turn.ops(OP_PLACE):
            placed[v >> 5] = placed.get(v >> 5, 0) + 1
        made, _ = _domes_made(p, turn)
        out: list[int] = []
        for i, _ in made:
            if left <= 0:
                break
            out.append(i)
            left -= placed.get(i, 0)
        return tuple(out)

    def evaluation(self, p: Position, side: int, occ: int, no_up: bool) -> int:
        """A worker waiting on her card may join when a dome is built."""
        seat = next((s for s in range(p.players) if p.gods[s] == self.name), -1)
        return 20 * on_card(p.state_of(seat)[1:-1]) if seat >= 0 else 0

    def after_turn(
        self,
        p: Position,
        seat: int,
        turn: Turn,
        state: str,
        where: Callable[[int], int],
        moves: tuple[tuple[int, int], ...] = (),
    ) -> str:
        """One fewer on her card for each worker she put on the board."""
        placed = len(turn.ops(OP_PLACE)) if turn.extra else 0
        if not placed:
            return state
        left = on_card(state) - placed
        return "" if left == 2 else str(left)


def _domes_made(p: Position, turn: Turn) -> tuple[list[tuple[int, int]], int]:
    """The domes ``turn`` makes, as (dome number, square) in the order played, and more.

    The second value is the squares a worker put next to a dome built before moving may not
    take (the move's path).
    """
    lv = [p.level(s) for s in range(25)]
    domes = p.domes
    made: list[tuple[int, int]] = []
    blocked = 0
    steps = [(7, turn.before)] if turn.before >= 0 and not turn.before & FORCE else []
    if steps:
        # A worker put next to a dome built before moving stands in the way of the move.
        blocked = BITS[turn.worker] if turn.worker >= 0 else 0
        for s in turn.path:
            blocked |= BITS[s]
    for i, b in [*steps, *enumerate(turn.builds)]:
        s = b & 31
        if b & (DOME | HERO_DOME) or lv[s] == 3 or domes >> s & 1:
            if not domes >> s & 1:
                made.append((i, s))
            domes |= BITS[s]
            if i == 7:
                continue
        else:
            lv[s] += 1
    # The domes at the end of the turn, at any level: a section 9 ``*`` dome, then the
    # ``#`` domes (RULES.md 10.5: any dome counts), numbered on after the builds.
    ends = [op & 31 for op in turn.post if op >> 5 == STAR]
    ends += [e & 31 for e in turn.extra if e >> 10 == OP_DOME]
    for k, s in enumerate(ends):
        if not domes >> s & 1:
            made.append((len(turn.builds) + k, s))
        domes |= BITS[s]
    # A dome after build 32 takes no ``+`` (MAX_PLACED_DOME): no act can carry such a turn.
    return [m for m in made if m[0] <= MAX_PLACED_DOME], blocked


def _assign(made: list[tuple[int, int]], chosen: tuple[int, ...]) -> tuple[int, ...] | None:
    """The ``+`` operations putting a worker on each of ``chosen``, each after its own dome.

    Each square goes with the earliest dome next to it that is still free; None when the
    squares cannot each have their own dome.
    """
    best: tuple[int, ...] | None = None
    for order in permutations(range(len(made)), len(chosen)):
        pairs = []
        for sq, d in zip(chosen, order, strict=True):
            i, s = made[d]
            if not NEIGHBOURS[s] >> sq & 1:
                break
            pairs.append((i, sq))
        else:
            ops = tuple(OP_PLACE << 10 | i << 5 | sq for i, sq in sorted(pairs))
            if best is None or ops < best:
                best = ops
    return best
