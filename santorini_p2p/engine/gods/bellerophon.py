"""Bellerophon (RULES.md 10.5): once, his worker moves up two levels."""

from __future__ import annotations

from santorini_p2p.engine.gods.hero import Hero
from santorini_p2p.engine.position import Position, Turn
from santorini_p2p.engine.power import Gen, first_step
from santorini_p2p.engine.squares import BITS, NEIGHBOURS, bits


class Bellerophon(Hero):
    """[BGA], [JP]: 0 to 2 or 1 to 3 (which wins); Athena and Nike forbid it.

    Persephone: he must climb only if he can climb one level without his power; then any
    climb satisfies her, his power's too; otherwise every turn is legal. Written as a plain
    turn: a climb of two levels is his power.
    """

    name = "bellerophon"
    win_from = 1
    wins_more = True
    text = "Once per game, your worker may move up two levels."

    def turns(self, g: Gen) -> None:
        """Plain turns, then while unused every climb of two levels."""
        super().turns(g)
        if self.is_used(g.p, g.seat) or g.limits.no_up:
            return
        # A climb of two levels satisfies Persephone only when a plain climb could.
        up = bool(g.up_out or g.up_count)
        bd = g.board
        lv, domes, workers = bd
        for w in bits(g.movers):
            free = NEIGHBOURS[w] & ~g.occupied(bd)
            if g.limits.walks:
                free = g.limits.walk(w, free)
            for t in bits(free):
                if lv[t] != lv[w] + 2:
                    continue
                moved = list(workers)
                moved[g.side] ^= BITS[w] | BITS[t]
                bd2 = (lv, domes, tuple(moved))
                if lv[t] == 3 and g.may_win_on(t):
                    if g.bound_ok(w, t, bd2):
                        g.emit(Turn(w, (t,), ()), up)
                    continue
                path, bd2 = g.land(w, (t,), bd2)
                if g.bound_ok(w, path[-1], bd2):
                    self.builds(g, w, path, bd2, -1, up)

    def uses(self, p: Position, turn: Turn) -> bool:
        """A step two levels up (where it came to rest after a slide, its first square)."""
        return (
            bool(turn.path)
            and turn.worker >= 0
            and p.level(first_step(turn.worker, turn.path[0])) - p.level(turn.worker) >= 2
        )
