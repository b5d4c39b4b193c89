"""What the ten heroes share (RULES.md 10.4): a power used once a game, for 2 players."""

from __future__ import annotations

from collections.abc import Callable
from typing import ClassVar, Final

from santorini_p2p.engine.position import Position, Turn
from santorini_p2p.engine.power import Power

_UNUSED: Final = 30
"""What an unused once-a-game power adds to its holder's score (about a third of a level)."""


class Hero(Power):
    """A once-a-game power: its state is ``x`` once used (``achilles[x]``), bare before.

    A hero subclasses it and says in :meth:`uses` which of its holder's turns use the power.
    """

    stateful = True
    players = frozenset({2})

    def read_state(self, text: str) -> str:
        """``x``: the power is used."""
        if text != "x":
            raise ValueError("expected 'x' (used); an unused hero is written bare")
        return text

    wins_more: ClassVar[bool] = False
    """While unused, the power can win in ways the plain quick check does not see."""

    def quick_win(self, p: Position, mine: int, opp: int, no_up: bool) -> bool | None:
        """The plain check once used; while unused a power that wins otherwise asks for all."""
        if self.wins_more and not self.is_used(p, p.to_move):
            return None
        return super().quick_win(p, mine, opp, no_up)

    def describe_state(self, state: str) -> str:
        """Used or not."""
        return "power used" if state else "power not used yet (once a game)"

    def evaluation(self, p: Position, side: int, occ: int, no_up: bool) -> int:
        """An unused power is worth keeping for the moment it wins or saves the game."""
        seat = next(
            (s for s in range(p.players) if p.side_of(s) == side and p.gods[s] == self.name), -1
        )
        return _UNUSED if seat >= 0 and not self.is_used(p, seat) else 0

    def is_used(self, p: Position, seat: int) -> bool:
        """Whether the hero of ``seat`` has used its power."""
        return p.state_of(seat) != ""

    def may_vary(self, p: Position, seat: int, turn: Turn) -> bool:
        """A used power adds nothing."""
        return not self.is_used(p, seat)

    def uses(self, p: Position, turn: Turn) -> bool:
        """Whether ``turn`` (by the holder) uses the power."""
        return False

    def after_turn(
        self,
        p: Position,
        seat: int,
        turn: Turn,
        state: str,
        where: Callable[[int], int],
        moves: tuple[tuple[int, int], ...] = (),
    ) -> str:
        """Used from the turn that uses it on."""
        if state or seat != p.to_move:
            return state
        return "x" if self.uses(p, turn) else ""
