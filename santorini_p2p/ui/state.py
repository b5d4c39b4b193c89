"""What the game screen shows and whom it talks to: the game controller protocol and its views.

The screen never decides anything about a game. It reads a :class:`GameController` (local game,
network session, ...) on every redraw, sends the local player's actions to it, and redraws when
the controller calls back. ``ui/local.py`` implements it for games on this terminal; a network
game implements the same protocol over its session.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass
from enum import Enum
from typing import Protocol, runtime_checkable

from santorini_p2p.engine import Action, Position

__all__ = [
    "Clock",
    "ClockLike",
    "Connection",
    "GameController",
    "Listener",
    "Message",
    "MessageKind",
    "MessageLike",
    "Pausable",
    "SeatLike",
    "SeatView",
    "Valued",
]


class Connection(Enum):
    """The link to the peer that plays a seat (network games only)."""

    CONNECTING = "connecting"
    CONNECTED = "connected"
    RECONNECTING = "reconnecting"
    DISCONNECTED = "disconnected"


class MessageKind(Enum):
    """How a message is shown: ``ERROR`` and ``LOSS`` in red, ``WIN`` in green, ``INFO`` plain."""

    INFO = "info"
    WARNING = "warning"
    ERROR = "error"
    WIN = "win"
    LOSS = "loss"


@dataclass(frozen=True, slots=True)
class Message:
    """One line in the screen's message area: an event of the game, already worded."""

    text: str
    kind: MessageKind = MessageKind.INFO


@dataclass(frozen=True, slots=True)
class Clock:
    """One seat's clock at the moment it was read, in integer milliseconds (RULES.md section 5).

    ``move_ms`` is what is left of the current move's allowance (only meaningful while
    ``running``), ``bank_ms`` the bank that drains once the allowance is used up.
    """

    move_ms: int
    bank_ms: int
    running: bool


@dataclass(frozen=True, slots=True)
class SeatView:
    """Everything the side panel shows about one seat (0-based ``seat``, as in ``Position``).

    ``local`` is true for a seat played on this terminal, ``human`` for one typed by a person
    (a computer player has ``human`` false). ``fingerprint`` is the short identity fingerprint
    of a network seat ("" in local games); ``connection`` is None for seats on this terminal.
    ``clock`` is None in untimed games.
    """

    seat: int
    name: str
    local: bool
    human: bool
    fingerprint: str = ""
    connection: Connection | None = None
    clock: Clock | None = None


class Valued(Protocol):
    """An enum member as the screen reads it: only its string ``value``."""

    @property
    def value(self) -> str:
        """The member's text (``"connected"``, ``"win"``, ...)."""
        ...


class ClockLike(Protocol):
    """Anything shaped like :class:`Clock` (read-only fields)."""

    @property
    def move_ms(self) -> int:
        """What is left of the move's allowance."""
        ...

    @property
    def bank_ms(self) -> int:
        """What is left of the bank."""
        ...

    @property
    def running(self) -> bool:
        """Whether this clock is the one running."""
        ...


class SeatLike(Protocol):
    """Anything shaped like :class:`SeatView`: other layers may return their own frozen values.

    ``connection.value`` is one of :class:`Connection`'s values; ``None`` for a seat here.
    """

    @property
    def seat(self) -> int:
        """The seat, 0-based."""
        ...

    @property
    def name(self) -> str:
        """The display name."""
        ...

    @property
    def local(self) -> bool:
        """Whether the seat is played on this terminal."""
        ...

    @property
    def human(self) -> bool:
        """Whether a person plays it."""
        ...

    @property
    def fingerprint(self) -> str:
        """The short identity fingerprint, or ""."""
        ...

    @property
    def connection(self) -> Valued | None:
        """The link to the seat's peer, or None."""
        ...

    @property
    def clock(self) -> ClockLike | None:
        """The seat's clock read now, or None when untimed."""
        ...


class MessageLike(Protocol):
    """Anything shaped like :class:`Message`; ``kind.value`` is one of :class:`MessageKind`'s."""

    @property
    def text(self) -> str:
        """The worded event."""
        ...

    @property
    def kind(self) -> Valued:
        """How it is shown."""
        ...


Listener = Callable[[], None]
"""Called on the event loop's thread whenever anything the screen shows has changed."""


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
    - **Values.** ``seats()`` and ``messages`` may return the implementer's own frozen values
      shaped like :class:`SeatView` and :class:`Message` (:class:`SeatLike`,
      :class:`MessageLike`); enum fields are read only through ``.value``, which must be one
      of :class:`Connection`'s or :class:`MessageKind`'s values.
    - **Messages.** Append a :class:`Message` for every event the player should see: the
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
    def messages(self) -> Sequence[MessageLike]:
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
    def stopped(self) -> str | None:
        """Why the game stopped before it was over (a desync and its report file), or None."""
        ...

    def seats(self) -> Sequence[SeatLike]:
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
