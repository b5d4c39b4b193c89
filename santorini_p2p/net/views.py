"""The small values a game's screen reads: notes, clocks, seats, outcomes.

The console (``ui/``) draws a network game, a spectator's view and a local game from these
alone, so it imports them here rather than the session or the runners. A :class:`Note` is one
event already worded (its text safe for any terminal), a :class:`SeatClock` a seat's clock read
now, a :class:`SeatInfo` what the side panel shows of a seat, and a :class:`GameOutcome` how a
network game ended.
"""

from __future__ import annotations

from dataclasses import dataclass
from enum import Enum
from pathlib import Path

from santorini_p2p.wire.text import shown

__all__ = ["ConnectionState", "GameOutcome", "Note", "NoteKind", "SeatClock", "SeatInfo"]


class NoteKind(Enum):
    """How a note is shown: ``ERROR`` and ``LOSS`` in red, ``WIN`` in green, ``INFO`` plain."""

    INFO = "info"
    WARNING = "warning"
    ERROR = "error"
    WIN = "win"
    LOSS = "loss"


@dataclass(frozen=True, slots=True)
class Note:
    """One event the player should see, already worded; ``chat``: a player's chat line.

    Its text is one line safe for any terminal (``wire.text.shown``): whatever a peer's words
    in it, no control character reaches a screen, a log line or ``on_note``.
    """

    text: str
    kind: NoteKind = NoteKind.INFO
    chat: bool = False

    def __post_init__(self) -> None:
        safe = shown(self.text)
        if safe is not self.text:
            object.__setattr__(self, "text", safe)


@dataclass(frozen=True, slots=True)
class SeatClock:
    """A seat's clock read now, in integer milliseconds (RULES.md section 5).

    ``move_ms`` is what is left of the current move's allowance (only meaningful while
    ``running``), ``bank_ms`` the bank that drains once the allowance is used up.
    """

    move_ms: int
    bank_ms: int
    running: bool


class ConnectionState(Enum):
    """The link to the peer that plays a seat, as the side panel shows it."""

    CONNECTED = "connected"
    DISCONNECTED = "disconnected"


@dataclass(frozen=True, slots=True)
class SeatInfo:
    """Everything the side panel shows about one seat (0-based ``seat``, as in ``Position``).

    ``local`` is true for a seat played on this terminal, ``human`` for one typed by a person
    (a computer player has ``human`` false). ``fingerprint`` is the short identity fingerprint
    of a network seat ("" in local games); ``connection`` is None for seats on this terminal.
    ``clock`` is None in untimed games. ``hidden`` is true for a seat whose god is dealt
    secretly and not opened yet (SECRET.md): the panel shows ``?``.
    """

    seat: int
    name: str
    local: bool
    human: bool
    fingerprint: str = ""
    connection: ConnectionState | None = None
    clock: SeatClock | None = None
    hidden: bool = False


@dataclass(frozen=True, slots=True)
class GameOutcome:
    """How a network game run ended: complete (every seat signed), or stopped and why."""

    complete: bool
    stopped: str | None
    journal: Path | None
    report: Path | None
    result: str
    rematches: tuple[GameOutcome, ...] = ()
    """The rematches played after it over the same connection, in order (SESSION.md 10)."""
    series: int = 1
    """Its number in a series of rematches: 1, or N for game N (its copy is ``FILE-N``)."""
