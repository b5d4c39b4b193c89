"""Poseidon (RULES.md section 8): the unmoved worker on level 0 may build up to three times."""

from __future__ import annotations

from itertools import combinations_with_replacement, product

from santorini_p2p.engine.position import Turn
from santorini_p2p.engine.power import Board, Gen, Power, build_on
from santorini_p2p.engine.squares import BITS, bits


class Poseidon(Power):
    """The card's rulings (RULES.md section 8).

    After the moved worker's build, 0-3 ordinary builds by the other worker next to it (the
    same square again allowed), written after the first build in ascending order. Needs two
    workers.
    """

    name = "poseidon"
    example = (
        "b2>c3^b3^e5^e5 builds up to three more times with the worker that did "
        "not move (d4; any order)"
    )
    rank = 14
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
        if g.limits.tower_seat >= 0:
            self._ordered(g, w, path, bd, free, other, before, up)
            return
        # A square next to both workers can take the moved worker's build or an extra one:
        # the same builds then reach one position, written with the lowest first build.
        shared = free & g.buildable(bd, other)
        for b in bits(free):
            bd1 = build_on(bd, b)
            near = bits(g.buildable(bd1, other))
            # A square takes as many builds as it has room for (blocks to 3, then the dome).
            lv = bd1[0]
            room = {s: 4 - lv[s] for s in near}
            if not shared and g.add(_multisets([room[s] for s in near], 3)):
                continue
            for k in (1, 2, 3):
                for extra in combinations_with_replacement(near, k):
                    if any(extra.count(s) > room[s] for s in set(extra)):
                        continue
                    if shared and not self._first(g, bd, free, other, b, extra):
                        continue
                    g.emit(Turn(w, path, (b, *extra), before), up)

    def _first(
        self, g: Gen, bd: Board, free: int, other: int, b: int, extra: tuple[int, ...]
    ) -> bool:
        """Whether no lower first build than ``b`` reaches the same builds in all."""
        every = (b, *extra)
        for s in sorted(set(extra)):
            if s >= b:
                break
            if not free >> s & 1:
                continue
            rest = list(every)
            rest.remove(s)
            bd1 = build_on(bd, s)
            near = g.buildable(bd1, other)
            lv = bd1[0]
            if all(near >> e & 1 and rest.count(e) <= 4 - lv[e] for e in rest):
                return False
        return True

    def _ordered(
        self,
        g: Gen,
        w: int,
        path: tuple[int, ...],
        bd: Board,
        free: int,
        other: int,
        before: int,
        up: bool,
    ) -> None:
        """Every order of the extra builds, when a build can end the game and stop the turn.

        Each distinct result is written once: extra builds ascending where that order reaches
        it, then the lowest first build.
        """
        seen: dict[tuple[tuple[int, ...], int], tuple[int, tuple[int, ...]]] = {}
        for b in bits(free):
            bd1, won = g.build(bd, b)
            if won:
                continue
            near = bits(g.buildable(bd1, other))
            for k in (1, 2, 3):
                for extra in product(near, repeat=k):
                    result = self._result(g, bd1, other, extra)
                    if result is None:
                        continue
                    key = (tuple(result[0]), result[1])
                    best = seen.get(key)
                    if best is None or _better((b, extra), best):
                        seen[key] = (b, extra)
        for b, extra in sorted(seen.values()):
            g.emit(Turn(w, path, (b, *extra), before), up)

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


def _better(a: tuple[int, tuple[int, ...]], b: tuple[int, tuple[int, ...]]) -> bool:
    """Whether the text of ``a`` (first build, extra builds) is preferred to ``b``'s."""
    return (list(a[1]) != sorted(a[1]), a) < (list(b[1]) != sorted(b[1]), b)
