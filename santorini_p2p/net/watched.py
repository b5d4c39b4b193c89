"""The host's session as its spectators see it: their frames in, who watches told (SESSION.md 11).

The host's ``net.gallery.Gallery`` keeps the spectators; this part of ``Session`` is where the
session meets it: a watch, or any frame of a spectator's connection, goes to the gallery and
never to the game; each seated player on a proven connection is told who watches (once a
hello round, and again whenever it changes); a spectator a frame could not reach is dropped;
and the host may wait a moment at the end for spectators still catching up.
"""

from __future__ import annotations

from santorini_p2p.net.frames import Frame, Watch
from santorini_p2p.net.sessionbase import PeerState, SessionBase

__all__ = ["Watched"]


class Watched(SessionBase):
    """The session's side of its spectators; a part of ``Session``."""

    @property
    def spectators_behind(self) -> bool:
        """Whether a spectator is not known to hold every record yet.

        Spectators are owed nothing, but the host waits a moment for them at the end, so that
        each can keep the whole game.
        """
        return self.gallery is not None and self.gallery.behind()

    @property
    def spectators_told_stop(self) -> bool:
        """Whether a spectator told of this game's stop is still connected (SESSION.md 11).

        The stopped host waits a moment for it to read the stop and leave: a frame it has not
        read yet is lost if the host's connection closes under it.
        """
        return self.gallery is not None and self.gallery.told_stop

    def audience_changed(self) -> None:
        """The host: tell every seated player on a proven connection who watches now."""
        for pid, p in self._peers.items():
            if p.slot is not None and p.proven and p.their_nonce and p.connected:
                self._tell_audience(pid, p, again=True)

    def _tell_audience(self, peer: bytes, p: PeerState, *, again: bool = False) -> None:
        """Tell one seated connection who watches: once a hello round, or ``again``."""
        if (
            self.gallery is not None
            and p.their_nonce
            and (again or p.told_audience != p.their_nonce)
        ):
            p.told_audience = p.their_nonce
            self._send(peer, self.gallery.audience(p.their_nonce))

    def undelivered(self, peer: bytes) -> None:
        """A frame to ``peer`` could not be sent: a spectator is dropped; a player is resent to.

        After a stop or the end, the connection is noted gone: told, it has left (``net.told``).
        """
        if self.stopped is not None or self.is_complete:
            self._left.gone(peer)
        if self.gallery is not None:
            self.gallery.undelivered(peer)

    def _for_gallery(self, peer: bytes, frame: Frame) -> bool:
        """Hand a watch, or any frame of a spectator's connection, to the gallery."""
        gallery = self.gallery
        assert gallery is not None
        if not isinstance(frame, Watch) and peer not in gallery:
            return False
        seated = self._peers.get(peer)
        if seated is not None and seated.slot is not None:
            self._drop(peer, frame, "a seated connection cannot watch")
            return True
        self._peers.pop(peer, None)  # a connection that watches holds no seat
        if not gallery.receive(peer, frame):
            self._drop(peer, frame, "a spectator can never act")
        return True
