"""The move clock a peer and a spectator both keep: when the move due now started here.

A move's clock starts, at each peer, when its log shows that move due: the seat to move owes
an act and no acknowledgement is owed (protocol/SESSION.md 7). It is keyed by the number of
records up to the last one that is not a chat line (``Validator.lockstep_count``), so a chat
line neither restarts nor stops it, and reading it costs the same after any number of them.
The time comes from the caller's monotonic clock in milliseconds; nothing here reads one.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Final

from santorini_p2p.wire.log import Validator

__all__ = ["QUIET_MS", "DueTimes", "MoveClock", "move_due"]


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


QUIET_MS: Final = 1000
"""Silence from the host after which what arrives may have been due there for that long."""
_KEEP: Final = 256


class DueTimes:
    """When this peer's log reached each recent position: what a timeout claim is judged by.

    See protocol/SESSION.md 7, "Every receiver checks a claim"; the times are this peer's own.
    A position is named by its lockstep count (chat lines are no position). It is reached
    when a record takes the log there, and stays reached at that time if records after it are
    taken back (a lost race). A record received after a silence from the host of more than
    ``QUIET_MS``, before this peer has caught up, may have been due at the host since the
    silence began: its position counts from then, but never from before this peer's own last
    record (no move is due before the records of this peer's that it follows).
    """

    __slots__ = ("_at", "_behind_since", "_now", "_own_ms")

    def __init__(self, now: Callable[[], int]) -> None:
        self._now = now
        self._at: dict[int, int] = {}
        self._behind_since: int | None = None
        self._own_ms = now()

    def heard(self, last_heard_ms: int) -> None:
        """A frame came from the host, which was last heard at ``last_heard_ms`` before it."""
        if self._now() - last_heard_ms > QUIET_MS:
            since = self._behind_since
            self._behind_since = last_heard_ms if since is None else min(since, last_heard_ms)

    def caught_up(self) -> None:
        """The host holds no record this peer lacks: positions count from arrival again."""
        self._behind_since = None

    def reached(self, v: Validator, *, own: bool) -> None:
        """The log just took a record (``own``: this peer's): note its position's time."""
        now = self._now()
        if own:
            self._own_ms = now
        key = v.lockstep_count
        if key in self._at:
            return
        at = now
        if not own and self._behind_since is not None:
            at = max(self._behind_since, self._own_ms)
        self._at[key] = at
        if len(self._at) > _KEEP:
            for old in [k for k in self._at if k < key - _KEEP]:
                del self._at[old]

    def taken_back(self, v: Validator) -> None:
        """Records were taken back: positions past the log's end are reached afresh later."""
        key = v.lockstep_count
        for k in [k for k in self._at if k > key]:
            del self._at[k]

    def resumed(self, v: Validator, ago_ms: int, *, behind: bool) -> None:
        """A resumed process: the log reached its last position ``ago_ms`` before now.

        ``behind`` (a joiner): what the host wrote while this process was down may have been
        due there since then, so until it has caught up, every position it reaches counts
        from the journal's last write, as after a silence.
        """
        then = self._now() - max(0, ago_ms)
        self._at[v.lockstep_count] = then
        if behind:
            self._behind_since = self._own_ms = then

    def since(self, v: Validator) -> int:
        """Milliseconds since the log reached its current position here."""
        return max(0, self._now() - self._at.get(v.lockstep_count, self._now()))
