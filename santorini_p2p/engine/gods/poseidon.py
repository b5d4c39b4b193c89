"""Poseidon (RULES.md section 8): the unmoved worker on level 0 may build up to three times."""

from __future__ import annotations

from itertools import combinations_with_replacement, product

from santorini_p2p.engine.position import Turn
from santorini_p2p.engine.power import Board, Gen, Power
from santorini_p2p.engine.squares import BITS, bits


class Poseidon(Power):
    """The card's rulings (RULES.md section 8).

    After the moved worker's build, 0-3 ordinary builds by the other worker next to it (the
    same square again allowed), written after the first build in ascending order. Needs two
    workers.
    """

    name = "poseidon"
    text = (
        "If your unmoved worker is on the ground level, it may build up to three times at "
        "the end of your turn."
    )

    def builds(
        self, g: Gen, w: int, path: tuple[int, ...], bd: Board, before: int, up: bool
    ) -> None:
        """The moved worker's build, then the extra builds of the worker on level 0."""
        end = path[-1]
        free = g.buildable(bd, end)
        g.emit_builds(w, path, free, before, up)
        others = bits(bd[2][g.side] & ~BITS[end])
        if len(others) != 1 or bd[0][others[0]]:
            return
        other = others[0]
        towers = g.limits.tower_seat >= 0
        for b in bits(free):
            bd1, won = g.build(bd, b)
            if won:
                continue
            near = bits(g.buildable(bd1, other))
            if not towers:
                # Without a build that ends the game, a square takes as many builds as it has
                # room for (blocks to level 3, then the dome), in any order.
                lv = bd1[0]
                room = {s: 4 - lv[s] for s in near}
                if g.add(_multisets([room[s] for s in near], 3)):
                    continue
                for k in (1, 2, 3):
                    for extra in combinations_with_replacement(near, k):
                        if all(extra.count(s) <= room[s] for s in set(extra)):
                            g.emit(Turn(w, path, (b, *extra), before), up)
                continue
            # A build that ends the game stops the turn: orders then differ, so every order
            # is tried and each distinct result written once (ascending where it can be).
            seen: dict[tuple[tuple[int, ...], int], tuple[int, ...]] = {}
            for k in (1, 2, 3):
                for extra in product(near, repeat=k):
                    result = self._result(g, bd1, other, extra)
                    if result is None:
                        continue
                    key = (tuple(result[0]), result[1])
                    best = seen.get(key)
                    if best is None or self._prefer(extra, best):
                        seen[key] = extra
            for extra in sorted(seen.values()):
                g.emit(Turn(w, path, (b, *extra), before), up)

    @staticmethod
    def _prefer(a: tuple[int, ...], b: tuple[int, ...]) -> bool:
        """Whether ``a`` is the better text than ``b``: ascending first, then the smaller."""
        return (list(a) != sorted(a), a) < (list(b) != sorted(b), b)

    def _result(
        self, g: Gen, bd: Board, other: int, extra: tuple[int, ...]
    ) -> tuple[list[int], int] | None:
        """Return the board after ``extra`` in order, its win marked in the dome mask.

        None if a build is not allowed, or comes after the game ended.
        """
        for i, s in enumerate(extra):
            if not g.buildable(bd, other) >> s & 1:
                return None
            bd, won = g.build(bd, s)
            if won:
                return None if i != len(extra) - 1 else (bd[0], bd[1] | 1 << 25)
        return bd[0], bd[1]


def _multisets(room: list[int], most: int) -> int:
    """The number of multisets of 1 to ``most`` items with item ``i`` at most ``room[i]`` times."""
    ways = [1] + [0] * most
    for r in room:
        nxt = [0] * (most + 1)
        for size, n in enumerate(ways):
            if n:
                for k in range(min(r, most - size) + 1):
                    nxt[size + k] += n
        ways = nxt
    return sum(ways[1:])
