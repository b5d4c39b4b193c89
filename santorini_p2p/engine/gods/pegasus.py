"""Pegasus (RULES.md section 9): climb any number of levels; a climb of two or more never wins."""

from __future__ import annotations

from santorini_p2p.engine.power import Board, Gen, Power


class Pegasus(Power):
    """The card's rulings (RULES.md section 9).

    Its own moves only: 0 to 3 and 1 to 3 are legal and do not win (it builds); 2 to 3 wins.
    A ban on moving up forbids every upward step; "moved up" counts any climb.
    """

    name = "pegasus"
    text = "Your worker may move up more than one level, but cannot win the game by doing so."

    def step_mask(self, g: Gen, w: int, bd: Board, no_up: bool) -> int:
        """Any free neighbouring square at any level (no higher than 3, no dome)."""
        return g.steps(w, bd, no_up, climb=3)

    def wins_by_move(self, frm: int, to: int, bd: Board, g: Gen) -> bool:
        """Only a climb of one level onto level 3 wins."""
        lv = bd[0]
        return lv[to] == 3 and lv[frm] == 2
