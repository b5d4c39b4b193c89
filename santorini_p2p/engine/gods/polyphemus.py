"""Polyphemus (RULES.md 10.5): once, end of his turn, up to two domes anywhere."""

from __future__ import annotations

from santorini_p2p.engine.gods.hero import Hero
from santorini_p2p.engine.position import OP_DOME, Position, Turn
from santorini_p2p.engine.power import Board, Gen, Limits, build_on
from santorini_p2p.engine.squares import ALL, NEIGHBOURS, bits


class Polyphemus(Hero):
    """[BGA]: after the build, one or two domes at any level on unoccupied squares anywhere.

    Limus: no low dome next to a Limus worker; Chronus checks each. Written ``#a1#e5`` last,
    ascending.
    """

    name = "polyphemus"
    text = (
        "Once per game, at the end of your turn, your worker may build up to two domes at "
        "any level on any unoccupied spaces."
    )
    expands = True
    expands_first = True

    def variants(
        self, p: Position, seat: int, turn: Turn, after: Position, limits: Limits
    ) -> list[Turn]:
        """One turn for each one or two squares."""
        if self.is_used(p, seat):
            return []
        occ = after.domes
        for m in after.workers:
            occ |= m
        free = ALL & ~occ
        if limits.ban_sides:
            ban = 0
            for i, m in enumerate(after.workers):
                if limits.ban_sides >> i & 1:
                    for s in bits(m):
                        ban |= NEIGHBOURS[s]
            free &= ~(ban & ~after.ge3)
        spots = bits(free)
        # With Chronus a dome may end the game (RULES.md 8): the dome that does is written
        # last, and a second dome after it would never be built.
        ends = 0
        towers = (after.domes & after.ge3).bit_count()
        if limits.tower_seat >= 0 and towers + 1 >= limits.tower_count:
            ends = after.ge3
        out = []
        for i, a in enumerate(spots):
            out.append(turn._replace(extra=(*turn.extra, OP_DOME << 10 | a)))
            for b in spots[i + 1 :]:
                first, second = (b, a) if ends >> a & 1 else (a, b)
                if ends >> first & 1:
                    continue
                domes = (OP_DOME << 10 | first, OP_DOME << 10 | second)
                out.append(turn._replace(extra=(*turn.extra, *domes)))
        return out

    def finish(self, bd: Board, turn: Turn, g: Gen) -> tuple[Board, bool]:
        """The domes, each checked for a tower win as it is built."""
        for s in turn.ops(OP_DOME):
            bd = build_on(bd, s, True)
            if g.tower_win(bd):
                return bd, True
        return bd, False

    def uses(self, p: Position, turn: Turn) -> bool:
        """A dome."""
        return bool(turn.extra) and bool(turn.ops(OP_DOME))
