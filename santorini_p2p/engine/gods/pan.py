"""Pan (RULES.md section 6): a drop of two or more levels also wins."""

from __future__ import annotations

from santorini_p2p.engine.position import Position
from santorini_p2p.engine.power import Board, Gen, Power
from santorini_p2p.engine.squares import ALL, NEIGHBOURS, bits


class Pan(Power):
    """In one move of his own (3 to 1, 3 to 0, 2 to 0); forced moves never count."""

    name = "pan"
    rank = 3
    text = "You also win if your worker moves down two or more levels."

    def wins_by_move(self, frm: int, to: int, bd: Board, g: Gen) -> bool:
        """Moving up onto level 3, or down two levels or more."""
        lv = bd[0]
        return (lv[to] == 3 and lv[frm] < 3) or lv[frm] - lv[to] >= 2

    def quick_win(self, p: Position, mine: int, opp: int, no_up: bool) -> bool | None:
        """A drop of two levels (never blocked by a ban on moving up), or the plain win."""
        occ = mine | opp | p.domes
        for w in bits(mine & p.ge2):
            below = ALL ^ p.ge1 if not p.ge3 >> w & 1 else ALL ^ p.ge2
            if NEIGHBOURS[w] & below & ~occ:
                return True
        return super().quick_win(p, mine, opp, no_up)

    def extra_threats(self, p: Position, w: int, moves: int, occ: int, no_up: bool) -> int:
        """The squares two or more levels below a worker on level 2 or 3."""
        h = p.level(w)
        if h < 2:
            return 0
        below = (ALL ^ p.ge1) if h == 2 else (ALL ^ p.ge2)
        return NEIGHBOURS[w] & ~occ & below
