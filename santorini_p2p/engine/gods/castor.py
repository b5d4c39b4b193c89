"""Castor (RULES.md section 9): move every worker and not build, or build with every worker."""

from __future__ import annotations

from santorini_p2p.engine.position import BUILD_ALL, MOVE_ALL, MOVE_BUILD_ALL, Position, Turn
from santorini_p2p.engine.power import Board, Gen, Power
from santorini_p2p.engine.squares import BITS, bits


def move_all(
    power: Power, g: Gen, order: tuple[int, ...], bd: Board
) -> list[tuple[tuple[int, ...], Board, bool, bool]]:
    """Every way the workers on ``order`` move once each, in that order (RULES.md 9).

    Each ``(path, board, up, won)``: ``path`` the from and rest squares in the order played;
    a win ends the turn at once. Each step is an ordinary move, judged on its own (no moving
    up or down, a slide, Aphrodite's binding of where the worker ends).
    """
    out: list[tuple[tuple[int, ...], Board, bool, bool]] = []
    side = g.side

    def walk(i: int, path: tuple[int, ...], bd: Board, up: bool) -> None:
        if i == len(order):
            out.append((path, bd, up, False))
            return
        w = order[i]
        lv, domes, workers = bd
        for t in bits(g.steps(w, bd)):
            moved = list(workers)
            moved[side] ^= BITS[w] | BITS[t]
            bd1 = (lv, domes, tuple(moved))
            up1 = up or lv[t] > lv[w]
            if power.is_win(g, w, t, bd1):
                if g.bound_ok(w, t, bd1):
                    out.append(((*path, w, t), bd1, up1, True))
                continue
            (r,), bd2 = g.land(w, (t,), bd1)
            if g.bound_ok(w, r, bd2):
                walk(i + 1, (*path, w, r), bd2, up1)

    walk(0, (), bd, False)
    return out


def every_order(
    power: Power, g: Gen, ws: list[int], bd: Board
) -> list[tuple[tuple[int, ...], Board, bool, bool]]:
    """:func:`move_all` in both orders; a result both orders reach is written once.

    Then the first mover is the worker on the lower square (``ws`` is ascending). When another
    side's power reads which worker moved last (``Limits.ordered``), the two orders are two
    results.
    """
    if len(ws) == 1:
        return move_all(power, g, (ws[0],), bd)
    seen: set[tuple[object, bool]] = set()
    ordered = g.limits.ordered
    out = []
    for order in ((ws[0], ws[1]), (ws[1], ws[0])):
        for path, bd2, up, won in move_all(power, g, order, bd):
            moves = tuple(zip(path[::2], path[1::2], strict=True))
            key = (moves if ordered else frozenset(moves), won)
            if key not in seen:
                seen.add(key)
                out.append((path, bd2, up, won))
    return out


def moves_in_order(turn: Turn) -> list[tuple[int, int]] | None:
    """A move-all turn's moves, ``(from, rest)`` in the order played (the last mover last).

    None for any other form of turn. RULES.md 10.4: a named worker follows its own move, and
    Eris marks the worker moved last.
    """
    if turn.worker not in (MOVE_ALL, MOVE_BUILD_ALL):
        return None
    path = turn.path
    return list(zip(path[::2], path[1::2], strict=True))


class Castor(Power):
    """The card's rulings (RULES.md section 9).

    Besides a normal turn: move each worker once (either order) and not build (``M``), or
    not move and build once with each worker next to itself (``B``; the same square twice is
    allowed). A win by either move ends the turn. With one worker: one move without a build,
    or one build without a move. A frozen worker cannot move, so then no move-all.
    """

    name = "castor"
    moves_both = True
    text = (
        "Instead of your normal turn, you may move each of your workers and not build, or "
        "not move and build with each of your workers."
    )

    def turns(self, g: Gen) -> None:
        """Normal turns, and the move-all and build-all turns when every worker is asked for."""
        super().turns(g)
        if not g.pair:
            return
        bd = g.board
        ws = bits(bd[2][g.side])
        if not ws or len(ws) > 2:
            return
        if not any(g.limits.frozen >> w & 1 for w in ws):
            for path, _, up, _ in every_order(self, g, ws, bd):
                g.emit(Turn(MOVE_ALL, path), up)
        for builds in build_all(g, ws, bd):
            g.emit(Turn(BUILD_ALL, (), builds), False)

    def worker_moves(self, p: Position, turn: Turn) -> list[tuple[int, int]]:
        """A move-all's two moves in the order played; else the plain rule's."""
        moves = moves_in_order(turn)
        return super().worker_moves(p, turn) if moves is None else moves


def build_all(g: Gen, ws: list[int], bd: Board) -> list[tuple[int, ...]]:
    """The builds of one build by each worker on ``ws`` next to itself, once each.

    Ascending, as the text writes them; but a build that ends the game (a tower win) ends the
    turn there, so when the second build does, the two are kept in the order played.
    """
    found: set[tuple[int, ...]] = set()
    if len(ws) == 1:
        return [(b,) for b in bits(g.buildable(bd, ws[0]))]
    for a, c in ((ws[0], ws[1]), (ws[1], ws[0])):
        for x in bits(g.buildable(bd, a)):
            bd1, won = g.build(bd, x)
            if won:
                found.add((x,))
                continue
            for y in bits(g.buildable(bd1, c)):
                ends = g.limits.tower_seat >= 0 and g.build(bd1, y)[1]
                found.add((x, y) if ends else (min(x, y), max(x, y)))
    return sorted(found)
