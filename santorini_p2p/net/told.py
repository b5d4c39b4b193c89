"""The peers a host told its last word (a stop, the rematch verdict) that may not have read it.

A joiner's or a spectator's socket (a DEALER with ``ZMQ_IMMEDIATE``) drops what it has
received but not yet read when the connection closes under it. So a host that sends a last
word and closes at once may never be heard: it tells again every 300 ms while such a peer is
connected, and stays (bounded) until each has left (SESSION.md 6, 10, 11). The host's socket
(a ROUTER) reports a send to a connection that is gone as failed: that is how it knows a peer
has left, and a peer leaves once it has read the last word. The host's socket keeps what it
has received of a connection that closed, so a joiner's last word needs none of this.
"""

from __future__ import annotations

from collections.abc import Iterable

__all__ = ["Told"]


class Told:
    """The connections found gone since a last word went out (a send to them failed)."""

    __slots__ = ("_gone",)

    def __init__(self) -> None:
        self._gone: set[bytes] = set()

    def gone(self, peer: bytes) -> None:
        """A frame to ``peer`` could not be sent: its connection is gone (it has left)."""
        self._gone.add(peer)

    def back(self, peer: bytes) -> None:
        """``peer`` is connected again (it is told again)."""
        self._gone.discard(peer)

    def is_gone(self, peer: bytes) -> bool:
        """Whether ``peer``'s connection is known to be gone."""
        return peer in self._gone

    def listening(self, peers: Iterable[bytes]) -> list[bytes]:
        """Those of ``peers`` whose connections are not known to be gone, in order."""
        return [peer for peer in peers if peer not in self._gone]
