"""Aeolus (RULES.md 10.5): a wind no worker may move straight into."""

from __future__ import annotations

from collections.abc import Callable

from santorini_p2p.engine.position import ARROWS, DIRECTIONS, OP_WIND, Position, Turn
from santorini_p2p.engine.power import Limits, Power


class Aeolus(Power):
    """The state is the direction the wind blows towards (``aeolus[ne]``); bare: no wind.

    [BGA] revised: a step in the direction opposite to the wind is forbidden to every worker,
    his own too. At the end of his turn he may set the wind in any of the 8 directions when it
    is on his card, or take it back (``@-``); it never turns straight from one direction to
    another. A winning move ends the game before any change.
    """

    name = "aeolus"
    text = (
        "End of your turn: if the wind token is on this card, you may place it beside the "
        "board in any of 8 directions; otherwise you may return it to this card. Workers "
        "cannot move directly into the wind."
    )
    stateful = True
    expands = True
    needs_result = False

    def read_state(self, text: str) -> str:
        """One of the eight directions."""
        if text not in DIRECTIONS:
            raise ValueError("expected a direction n, ne, e, se, s, sw, w or nw")
        return text

    def describe_state(self, state: str) -> str:
        """The wind and the step it forbids."""
        if not state:
            return "wind on his card: none blows"
        back = DIRECTIONS[(DIRECTIONS.index(state) + 4) % 8]
        return f"wind {ARROWS[state]} towards {state}: no step towards {back}"

    def at_all_times(self, p: Position, seat: int, limits: Limits) -> None:
        """No step against the wind, by any worker."""
        wind = p.state_of(seat)[1:-1]
        if wind:
            limits.walk_ban |= 1 << (DIRECTIONS.index(wind) + 4) % 8

    def variants(
        self, p: Position, seat: int, turn: Turn, after: Position, limits: Limits
    ) -> list[Turn]:
        """Each way to set the wind, or taking it back."""
        if p.state_of(seat):
            return [turn._replace(extra=(*turn.extra, OP_WIND << 10 | 8))]
        return [turn._replace(extra=(*turn.extra, OP_WIND << 10 | d)) for d in range(8)]

    def after_turn(
        self,
        p: Position,
        seat: int,
        turn: Turn,
        state: str,
        where: Callable[[int], int],
        moves: tuple[tuple[int, int], ...] = (),
    ) -> str:
        """The wind he set or took back."""
        if seat != p.to_move:
            return state
        for v in turn.ops(OP_WIND):
            return DIRECTIONS[v] if v < 8 else ""
        return state
