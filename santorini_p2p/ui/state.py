"""What the game screen shows and whom it talks to: the game controller protocol and its views.

The screen never decides anything about a game. It reads a :class:`GameController` (local game,
network session, ...) on every redraw, sends the local player's actions to it, and redraws when
the controller calls back. ``ui/local.py`` implements it for games on this terminal; a network
game (``net/game.py``) implements the same protocol over its session.

The values the screen reads are the network layer's, defined there once and used here as they
are: a message is a :class:`Note` of a :class:`NoteKind`, a seat a :class:`SeatInfo` with its
:class:`SeatClock` and :class:`ConnectionState`.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Protocol, runtime_checkable

from santorini_p2p.engine import Action, Position
from santorini_p2p.net.listeners import Listener
from santorini_p2p.net.views import ConnectionState, Note, NoteKind, SeatClock, SeatInfo

__all__ = [
    "Chatting",
    "ClockHold",
    "ConnectionState",
    "Features",
    "GameController",
    "Listener",
    "Note",
    "NoteKind",
    "Pausable",
    "Rematchable",
    "SeatClock",
    "SeatInfo",
    "Takebacks",
    "features_of",
]


@runtime_checkable
class ClockHold(Protocol):
    """A game whose clocks may stop while no one can see the board (a game at this terminal).

    A network game has none: its clocks cannot stop for the other players.
    """

    def hold_clocks(self, held: bool) -> None:
        """Stop the clocks (``held``) or let them run on from where they stood."""
        ...


@runtime_checkable
class Pausable(Protocol):
    """A game of computer players that can be paused and stepped while it is watched."""

    @property
    def paused(self) -> bool:
        """Whether the computer players wait."""
        ...

    def pause(self, paused: bool) -> None:
        """Stop the computer players after the action under way, or let them play on."""
        ...

    def step(self) -> None:
        """While paused: let them make one more action."""
        ...


@runtime_checkable
class Rematchable(Protocol):
    """A network game that offers a rematch at game over (``net.game.NetworkGame``)."""

    @property
    def rematch_line(self) -> str | None:
        """The vote in words once there is something to say, else None."""
        ...

    @property
    def can_answer_rematch(self) -> bool:
        """Whether this seat may still ask for, accept or decline a rematch."""
        ...

    @property
    def rematch_agreed(self) -> bool:
        """Whether every seat asked: the screen gives way to the new game."""
        ...

    def answer_rematch(self, yes: bool) -> None:
        """Ask for or accept a rematch (True), or decline (False)."""
        ...


@runtime_checkable
class Takebacks(Protocol):
    """A game whose players may ask to take back a turn (a network game, SPEC.md 8.2)."""

    def ask_takeback(self) -> None:
        """Ask the others to take back this player's last turn."""

    @property
    def takeback_asked(self) -> str | None:
        """The turn another player asks this one to take back, or None."""

    def answer_takeback(self, accept: bool) -> None:
        """Accept or refuse the takeback this player is asked for."""


@runtime_checkable
class Chatting(Protocol):
    """A game whose players (or spectators) may chat (a network game, SPEC.md 8.3)."""

    def say(self, text: str) -> None:
        """Say ``text`` to the others."""


@runtime_checkable
class Choosing(Protocol):
    """A game in which this player may choose in another player's turn (Gaea, SPEC.md 8.4)."""

    @property
    def choice_asked(self) -> tuple[str, list[str]] | None:
        """The other player's turn so far and the answers this one may give, or None."""

    def answer_choice(self, answer: str) -> None:
        """Give the answer (``+sq``, a square, or ``-`` for none)."""


@runtime_checkable
class Objecting(Protocol):
    """A game with secret gods: this player may object to a turn that breaks its hidden god."""

    @property
    def objection_asked(self) -> str | None:
        """The question (the turn, the god, the time left), or None."""

    def answer_objection(self, objects: bool) -> None:
        """Object and reveal the god (True), or accept the turn and keep it hidden (False)."""


@dataclass(frozen=True, slots=True)
class Features:
    """The optional parts of a game's interface the screen may use; None where it has none.

    The screen asks for them once (:func:`features_of`) and then uses each part through its
    own protocol, with no type tests or casts at each use.
    """

    takebacks: Takebacks | None = None
    chat: Chatting | None = None
    rematch: Rematchable | None = None
    pause: Pausable | None = None
    clock_hold: ClockHold | None = None
    choosing: Choosing | None = None
    objecting: Objecting | None = None
    spectating: bool = False
    """A spectator's game: shown read-only (no turn, no undo), q leaves."""


def features_of(game: object) -> Features:
    """The optional parts ``game`` offers.

    Its ``features`` when it names them, else each protocol it implements (and its
    ``spectating`` flag).
    """
    named = getattr(game, "features", None)
    if isinstance(named, Features):
        return named
    return Features(
        takebacks=game if isinstance(game, Takebacks) else None,
        chat=game if isinstance(game, Chatting) else None,
        rematch=game if isinstance(game, Rematchable) else None,
        pause=game if isinstance(game, Pausable) else None,
        clock_hold=game if isinstance(game, ClockHold) else None,
        choosing=game if isinstance(game, Choosing) else None,
        objecting=game if isinstance(game, Objecting) else None,
        spectating=bool(getattr(game, "spectating", False)),
    )


@runtime_checkable
class GameController(Protocol):
    """The game behind the game screen: a local game, or a network session.

    Contract, for anyone implementing it:

    - **Reading.** The screen reads every property on every redraw (several times a second
      while a clock runs), from the event loop thread. Reads must be cheap and must not block;
      ``seats()`` computes clocks from the caller's monotonic clock at the moment it is called.
    - **Changes.** Whenever ``position``, ``actions``, ``messages``, ``awaiting``, a connection
      or ``stopped`` changes, call every listener registered with ``listen`` (on the event
      loop thread: use ``loop.call_soon_threadsafe`` from other threads). Listeners only
      schedule a redraw; they never call back into the controller.
    - **Messages.** Append a :class:`Note` for every event the player should see: the
      opponent's turn, a peer disconnecting and reconnecting, a desync (with the report file's
      path), a win, a loss, a timeout. The screen shows the last few.
    - **Input.** ``submit`` is called only with an action from ``legal_actions(position)`` and
      only while ``awaiting`` is not None; it applies (or sends) the action for the seat
      ``awaiting`` names and returns at once (no network wait). It raises
      ``IllegalTurnError`` if the action cannot be taken now. ``resign`` resigns the local
      human seat (the one to move if there are several). ``undo`` takes back the last local
      human action and whatever followed it; it raises ``IllegalTurnError`` when
      ``can_undo`` is false (network games: always).
    - **Running.** ``run`` is started once as a task beside the application on the same event
      loop. It drives everything that happens without the player: computer players (searching
      in ``asyncio.to_thread``), clocks running out, the network. It returns when the game is
      over or stopped, or is cancelled when the player leaves the screen; either way it must
      leave any journal consistent.
    """

    @property
    def title(self) -> str:
        """A short description of the game for the title bar ("hot-seat", "vs computer")."""
        ...

    @property
    def position(self) -> Position:
        """The current position."""
        ...

    @property
    def actions(self) -> Sequence[Action]:
        """Every action played so far, setup included, in order."""
        ...

    @property
    def messages(self) -> Sequence[Note]:
        """Every message so far, oldest first."""
        ...

    @property
    def awaiting(self) -> int | None:
        """The seat whose action this terminal's player should type now, or None."""
        ...

    @property
    def can_undo(self) -> bool:
        """Whether ``undo`` is allowed now (local games with a human action to take back)."""
        ...

    @property
    def replay(self) -> Path | None:
        """The replay file the finished game was saved as, once it is written, or None."""
        ...

    @property
    def stopped(self) -> str | None:
        """Why the game stopped before it was over (a desync and its report file), or None."""
        ...

    def seats(self) -> Sequence[SeatInfo]:
        """One view per seat of ``position``, in seat order, with clocks read now."""
        ...

    def submit(self, action: Action) -> None:
        """Play ``action`` for the seat ``awaiting`` names.

        Raises:
            IllegalTurnError: no local input is awaited, or the action is not legal.
        """
        ...

    def resign(self) -> None:
        """Resign for the local human seat.

        Raises:
            IllegalTurnError: the game is over or no seat here can resign.
        """
        ...

    def undo(self) -> None:
        """Take back the last local human action and what followed it.

        Raises:
            IllegalTurnError: ``can_undo`` is false.
        """
        ...

    def listen(self, listener: Listener) -> Callable[[], None]:
        """Call ``listener`` after every change; return a function that stops the calls."""
        ...

    async def run(self) -> None:
        """Drive computer players, clocks and peers until the game ends or this is cancelled."""
        ...
