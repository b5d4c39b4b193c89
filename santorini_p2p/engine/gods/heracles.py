"""Heracles (RULES.md 10.5): once, instead of building, his workers build domes at any level."""

from __future__ import annotations

from santorini_p2p.engine.gods.hero import Hero
from santorini_p2p.engine.position import HERO_DOME, OP_NONE, Position, Turn
from santorini_p2p.engine.power import Board, Gen
from santorini_p2p.engine.squares import NEIGHBOURS, bits


class Heracles(Hero):
    """[BGA] revised: any number of domes (even zero), each next to one of his workers.

    Zero domes still uses him [BGA ``preEndPlayerTurn``]. Limus: no low dome next to a Limus
    worker; Chronus counts each dome on level 3 as it is built. Written ``^a1X^b4X``
    (ascending); zero domes ``b2>c3``.
    """

    name = "heracles"
    text = (
        "Once per game, instead of your normal build, your workers build any number of domes "
        "(even zero) at any level."
    )

    def builds(
        self, g: Gen, w: int, path: tuple[int, ...], bd: Board, before: int, up: bool
    ) -> None:
        """The normal builds, then while unused every set of domes."""
        super().builds(g, w, path, bd, before, up)
        if self.is_used(g.p, g.seat):
            return
        near = 0
        for m in bits(bd[2][g.side]):
            near |= NEIGHBOURS[m]
        spots = bits(g.allowed(bd, near & ~g.occupied(bd)))
        g.emit(Turn(w, path, (), before, extra=(OP_NONE << 10,)), up)
        self._domes(g, w, path, bd, before, up, spots, 0, ())

    def _domes(
        self,
        g: Gen,
        w: int,
        path: tuple[int, ...],
        bd: Board,
        before: int,
        up: bool,
        spots: list[int],
        start: int,
        done: tuple[int, ...],
    ) -> None:
        for i in range(start, len(spots)):
            s = spots[i]
            bd2, won = g.build(bd, s, True)
            builds = (*done, s | HERO_DOME)
            g.emit(Turn(w, path, builds, before), up)
            if not won:
                self._domes(g, w, path, bd2, before, up, spots, i + 1, builds)
        if g.limits.tower_seat < 0:
            return
        # A dome that ends the game (RULES.md 8, Chronus) stops the turn, so it is written
        # last, after the domes before it in ascending order, whatever its square. Only a
        # dome on level 3 adds a tower: ``bd`` itself ended nothing (it was not ``won``).
        lv = bd[0]
        for s in spots[:start]:
            if lv[s] == 3 and not bd[1] >> s & 1 and g.build(bd, s, True)[1]:
                g.emit(Turn(w, path, (*done, s | HERO_DOME), before), up)

    def uses(self, p: Position, turn: Turn) -> bool:
        """Domes instead of the build, or none."""
        return any(b & HERO_DOME for b in turn.builds) or any(
            e >> 10 == OP_NONE for e in turn.extra
        )
