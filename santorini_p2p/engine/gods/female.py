"""What Selene and Hippolyta share (RULES.md 10.1): a female worker named at placement."""

from __future__ import annotations

from collections.abc import Callable

from santorini_p2p.engine.position import Position
from santorini_p2p.engine.power import Power
from santorini_p2p.engine.squares import SQUARE_NAMES


def female_square(p: Position, seat: int) -> int:
    """The square of the female worker of ``seat``, or -1 (none, or she left the board)."""
    state = p.state_of(seat)[1:-1]
    return SQUARE_NAMES.index(state) if state and state != "-" else -1


class Female(Power):
    """A power with a female worker: the state is her square, ``-`` once she left the board.

    Written whenever workers stand (``selene[c3]``); she is named at placement with ``*``
    (``place b2,d4*``), and her square follows her through every move and force.
    """

    stateful = True
    state_needed = True
    names_female = True

    def read_state(self, text: str) -> str:
        """A square, or ``-``."""
        if text != "-" and text not in SQUARE_NAMES:
            raise ValueError("expected the female worker's square, or '-' once she left")
        return text

    def describe_state(self, state: str) -> str:
        """Where she stands."""
        if not state:
            return "female worker named at placement"
        return "female worker gone" if state == "-" else f"female worker on {state}"

    def state_squares(self, state: str) -> tuple[tuple[int, bool], ...]:
        """Her square holds a worker of the holder."""
        return ((SQUARE_NAMES.index(state), True),) if state and state != "-" else ()

    def state_marks(self, state: str) -> tuple[tuple[int, str], ...]:
        """``fem`` by her square."""
        return tuple((sq, "fem") for sq, _ in self.state_squares(state))

    def follow(self, state: str, where: Callable[[int], int]) -> str:
        """She goes where her worker goes; ``-`` when it leaves."""
        if state in ("", "-"):
            return state
        to = where(SQUARE_NAMES.index(state))
        return SQUARE_NAMES[to] if to >= 0 else "-"

    def female_state(self, squares: tuple[int, ...], female: int) -> str:
        """The worker placed with ``*``."""
        return SQUARE_NAMES[female] if female >= 0 else ""
