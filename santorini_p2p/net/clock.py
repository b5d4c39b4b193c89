"""Game clocks in integer milliseconds (RULES.md section 5): a move allowance plus a bank.

Each move (a turn, a god pick, a placement) has ``move_ms``; once that is used up the
player's bank drains; a player whose bank is empty has lost on time. Time arrives from the
caller as a monotonic reading in milliseconds (:class:`MonotonicMs`), never from a wall clock,
and nothing here uses floats.
"""

from __future__ import annotations

import time
from dataclasses import dataclass
from typing import Final, Protocol

__all__ = [
    "STANDARD",
    "MonotonicMs",
    "TimeControl",
    "bank_after",
    "is_flagged",
    "monotonic_ms",
    "parse_time_control",
    "read_clock",
]


class MonotonicMs(Protocol):
    """A monotonic clock: each call returns the time in integer milliseconds."""

    def __call__(self) -> int:
        """Return the current reading."""
        ...


def monotonic_ms() -> int:
    """The process's monotonic clock in integer milliseconds (the default :class:`MonotonicMs`)."""
    return time.monotonic_ns() // 1_000_000


@dataclass(frozen=True, slots=True)
class TimeControl:
    """A time control: ``move_ms`` per move, then a ``bank_ms`` bank per player."""

    move_ms: int
    bank_ms: int

    def __post_init__(self) -> None:
        if self.move_ms < 0 or self.bank_ms < 0 or self.move_ms + self.bank_ms <= 0:
            raise ValueError(f"time control: bad allowance {self.move_ms}+{self.bank_ms} ms")

    def __str__(self) -> str:
        def part(ms: int) -> str:
            return str(ms // 1000) if ms % 1000 == 0 else f"{ms / 1000:g}"

        return f"{part(self.move_ms)}+{part(self.bank_ms)}"


STANDARD: Final = TimeControl(60_000, 300_000)
"""The standard time control of RULES.md section 5: 1 minute a move plus a 5-minute bank."""


MAX_TIME_S: Final = 86_400
"""The longest move allowance or bank ``parse_time_control`` takes, in seconds (a day)."""


def parse_time_control(text: str) -> TimeControl | None:
    """Parse ``MOVE+BANK`` in whole seconds (``60+300``), or ``none`` for an untimed game.

    Raises:
        ValueError: anything else.
    """
    t = text.strip().lower()
    if t in ("none", "untimed", "0"):
        return None
    if t == "standard":
        return STANDARD
    move, sep, bank = t.partition("+")
    if not sep or not move.isdigit() or not bank.isdigit():
        raise ValueError(f"time: expected MOVE+BANK in seconds (60+300) or none, got {text!r}")
    seconds = int(move), int(bank)
    if not any(seconds):
        raise ValueError(f"time: {text} leaves no time at all; for an untimed game say none")
    if max(seconds) > MAX_TIME_S:
        raise ValueError(f"time: at most {MAX_TIME_S} seconds each (a day), got {text}")
    return TimeControl(seconds[0] * 1000, seconds[1] * 1000)


def bank_after(tc: TimeControl, bank_ms: int, elapsed_ms: int) -> int:
    """Return the bank after a move that took ``elapsed_ms`` (never below zero)."""
    return max(0, bank_ms - max(0, elapsed_ms - tc.move_ms))


def is_flagged(tc: TimeControl, bank_ms: int, elapsed_ms: int) -> bool:
    """Return whether a move that has taken ``elapsed_ms`` so far has run out of time."""
    return elapsed_ms > tc.move_ms + bank_ms


def read_clock(tc: TimeControl, bank_ms: int, elapsed_ms: int) -> tuple[int, int]:
    """Return ``(move_left_ms, bank_left_ms)`` for a move that has taken ``elapsed_ms``."""
    move_left = max(0, tc.move_ms - elapsed_ms)
    return move_left, bank_after(tc, bank_ms, elapsed_ms)
