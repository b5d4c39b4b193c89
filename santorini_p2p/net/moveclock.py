"""The move clock a peer and a spectator both keep: when the move due now started here.

A move's clock starts, at each peer, when its log shows that move due: the seat to move owes
an act and no acknowledgement is owed (protocol/SESSION.md 7). It is keyed by the number of
records up to the last one that is not a chat line (``Validator.lockstep_count``), so a chat
line neither restarts nor stops it, and reading it costs the same after any number of them.
The time comes from the caller's monotonic clock in milliseconds; nothing here reads one.
"""

from __future__ import annotations

from collections.abc import Callable

from santorini_p2p.wire.log import Validator

__all__ = ["MoveClock", "move_due"]


def move_due(v: Validator | None) -> bool:
    """Whether a move's clock runs in ``v``'s log: in play, no ack owed, not over."""
    return v is not None and v.position is not None and not v.pending_acks and not v.is_over


class MoveClock:
    """When the move due now became due, by the owner's clock (``started``, ms).

    ``key`` names the move: the lockstep count of the log when it became due (-1: none yet).
    """

    __slots__ = ("_now", "key", "started")

    def __init__(self, now: Callable[[], int]) -> None:
        self._now = now
        self.key = -1
        self.started = now()

    def track(self, v: Validator | None) -> bool:
        """Start the clock afresh if a new move is due in ``v``'s log; return whether it did."""
        if v is None or not move_due(v):
            return False
        key = v.lockstep_count
        if key == self.key:
            return False
        self.key = key
        self.started = self._now()
        return True

    def elapsed(self) -> int:
        """Milliseconds the move due now has run here (never negative)."""
        return max(0, self._now() - self.started)

    def restart(self, *, ago_ms: int = 0) -> None:
        """Count the current move from ``ago_ms`` before now (a reconnection, a resume)."""
        self.started = self._now() - max(0, ago_ms)
