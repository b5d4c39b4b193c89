"""Pan (RULES.md section 6): a drop of two or more levels also wins."""

from __future__ import annotations

from santorini_p2p.engine.power import Board, Gen, Power


class Pan(Power):
    """In one move of his own (3 to 1, 3 to 0, 2 to 0); forced moves never count."""

    name = "pan"
    text = "You also win if your worker moves down two or more levels."

    def wins_by_move(self, frm: int, to: int, bd: Board, g: Gen) -> bool:
        """Moving up onto level 3, or down two levels or more."""
        lv = bd[0]
        return (lv[to] == 3 and lv[frm] < 3) or lv[frm] - lv[to] >= 2
