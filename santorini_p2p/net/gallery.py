"""The host's spectators: who watches, what each holds, what is sent to them (SESSION.md 11).

A spectator is a connection that said ``watch`` in place of hello. It holds no seat and proves
no key: it can never act, and what it is sent (the signed log, statuses, the offer) is what
anyone on the LAN can read off the wire anyway, and proves itself. The host takes at most
``limit`` of them and spends a bounded effort on each: every new record once, a batch of at
most 64 records a resend period to one catching up, a status as a keepalive. Its frames go
out after the players' (``outgoing``), never waiting: a send that fails (a full queue, a
connection gone) drops the spectator, which may come back with ``watch`` and catch up from
the log. Anything a spectator sends but ``watch`` and status is ignored and counted.

Like the session it serves, this is sans-I/O: ``Session`` hands it the frames of spectator
connections and the records it relays, and sends what :meth:`Gallery.outgoing` returns.
"""

from __future__ import annotations

import logging
from collections.abc import Callable
from dataclasses import dataclass, replace
from typing import Final, Protocol

from santorini_p2p.net.frames import (
    SESSION_VERSION,
    Cheer,
    Frame,
    RecordFrame,
    Refused,
    Status,
    Watch,
    Welcome,
    encode_frame,
    sign_audience,
    sign_cheer,
    sign_refuse,
    sign_stop,
    version_refusal,
)
from santorini_p2p.net.onlookers import audience_lines
from santorini_p2p.net.told import Told
from santorini_p2p.wire.identity import MAX_NAME_BYTES, Identity
from santorini_p2p.wire.log import Record
from santorini_p2p.wire.text import line_fault

__all__ = ["CHEER_PERIOD_MS", "DEFAULT_SPECTATORS", "SPECTATOR_CHAT", "Gallery", "Stage"]

LOG = logging.getLogger(__name__)

DEFAULT_SPECTATORS: Final = 4
"""How many spectators a host takes unless told otherwise (``host --spectators N``)."""
CHEER_PERIOD_MS: Final = 1000
"""The least time between two chat lines of one spectator that the host relays."""
SPECTATOR_CHAT: Final = "spectator-chat"
"""The option a host lists in the welcome it sends spectators when they may chat."""
_PERIOD_MS: Final = 300
_SILENT_MS: Final = 5000
_BATCH: Final = 64


class Stage(Protocol):
    """What the gallery reads of the host's session."""

    @property
    def identity(self) -> Identity:
        """The host's identity: it signs the stops and refusals sent to spectators."""
        ...

    @property
    def game_id(self) -> bytes:
        """The game's id."""
        ...

    @property
    def record_count(self) -> int:
        """The number of records in the log so far."""
        ...

    def records_between(self, start: int, stop: int) -> list[Record]:
        """The records numbered ``start`` up to (not including) ``stop``, as far as held."""
        ...

    def offer(self) -> Welcome:
        """The welcome a joiner is sent."""
        ...

    def move_clock_ms(self) -> int:
        """How long the move now due has run by the host's clock (0: no clock runs)."""
        ...

    def cheered(self, name: str, line: Cheer) -> None:
        """A spectator's chat line was accepted: show it, and relay it to the players."""
        ...

    def audience_changed(self) -> None:
        """Someone came to watch or left: tell the seated players (``Audience``)."""
        ...


@dataclass(slots=True)
class _Spectator:
    """One spectator connection: its nonce and name, what it holds, what was sent."""

    nonce: bytes
    name: str
    have: int
    next: int
    heard_ms: int
    sent_ms: int = -(10**9)
    resent_ms: int = -(10**9)
    key: bytes = b""
    cheer_ms: int = -(10**9)


class Gallery:
    """The spectators of one hosted game; see the module docstring."""

    def __init__(
        self,
        stage: Stage,
        now: Callable[[], int],
        say: Callable[[str], None],
        limit: int = DEFAULT_SPECTATORS,
        *,
        chat: bool = False,
    ) -> None:
        self.limit = limit
        #: Whether spectators may chat (``host --spectator-chat``).
        self.chat = chat
        self._stage = stage
        self._now = now
        self._say = say
        self._watchers: dict[bytes, _Spectator] = {}
        self._out: list[tuple[bytes, bytes]] = []
        #: Frames from spectators that were not acted on (records, stops, anything but watch
        #: and status): a spectator can never act.
        self.ignored = 0
        #: Spectators dropped because a frame to them could not be sent (a full queue).
        self.dropped = 0
        #: Spectators' chat lines dropped: not allowed, too soon after the last, or forged (a
        #: signature that does not verify over the nonce of the connection's watch).
        self.cheers_dropped = 0
        self.forged = 0
        # The stop told every spectator (reason, index, hashes), once the game stopped; and
        # the spectators found gone since (a send to them failed).
        self._stop: tuple[str, int, bytes, bytes] | None = None
        self._told = Told()

    def __contains__(self, peer: bytes) -> bool:
        return peer in self._watchers

    def __len__(self) -> int:
        return len(self._watchers)

    def names(self) -> list[str]:
        """The names the spectators gave (unproven), in the order they came."""
        return [w.name for w in self._watchers.values()]

    def audience(self, nonce: bytes) -> Frame:
        """Who watches, signed by the host for the connection of ``nonce`` (SESSION.md 11)."""
        return sign_audience(self._stage.identity, tuple(self.names()), self.limit, nonce)

    def connections(self) -> list[tuple[bytes, bytes]]:
        """Each spectator's connection and the nonce of its latest watch."""
        return [(peer, w.nonce) for peer, w in self._watchers.items()]

    def adopt(self, finished: Gallery) -> None:
        """Take the spectators of the finished game this rematch follows (SESSION.md 11).

        Each is sent this game's welcome, a status and who watches, as if it had said watch
        for it: it goes on watching over the same connection, with the same nonce.
        """
        now = self._now()
        for peer, old in finished._watchers.items():
            if len(self._watchers) >= self.limit:
                break
            w = _Spectator(old.nonce, old.name, 0, 0, now, key=old.key)
            self._watchers[peer] = w
            offer = self._stage.offer()
            if self.chat:
                offer = replace(offer, options=(*offer.options, SPECTATOR_CHAT))
            self._send(peer, offer)
            self._send_status(peer, w)
        for peer, w in self._watchers.items():
            self._send(peer, self.audience(w.nonce))

    def tell(self, frame: Refused) -> None:
        """Send every spectator a frame that proves itself (a takeback refusal), as it is."""
        for peer in self._watchers:
            self._send(peer, frame)

    def _changed(self, before: tuple[str, ...]) -> None:
        """The spectators changed from ``before``: say so, and tell everyone who watches."""
        after = tuple(self.names())
        for line in audience_lines(before, after, len(after), self.limit):
            self._say(line)
        for peer, w in self._watchers.items():
            self._send(peer, self.audience(w.nonce))
        self._stage.audience_changed()

    def behind(self) -> bool:
        """Whether a spectator is not known to hold every record (the host lingers a while)."""
        count = self._stage.record_count
        return any(w.have < count for w in self._watchers.values())

    def outgoing(self) -> list[tuple[bytes, bytes]]:
        """Return and forget the frames to send to spectators, as ``(peer id, bytes)``."""
        out, self._out = self._out, []
        return out

    # -- frames in ----------------------------------------------------------------------------

    def receive(self, peer: bytes, frame: Frame) -> bool:
        """Handle a frame of a spectator connection (or a watch); False if it was ignored."""
        now = self._now()
        if isinstance(frame, Watch):
            self._on_watch(peer, frame, now)
            return True
        w = self._watchers.get(peer)
        if w is None:
            return False
        w.heard_ms = now
        if isinstance(frame, Status):
            # Believed even when lower: the spectator may have restarted with less.
            w.have = min(frame.have, self._stage.record_count)
            return True
        if isinstance(frame, Cheer):
            self._on_cheer(peer, w, frame, now)
            return True
        self.ignored += 1
        LOG.debug("ignored a %s frame from spectator %s", type(frame).__name__, w.name)
        return False

    def _on_cheer(self, peer: bytes, w: _Spectator, line: Cheer, now: int) -> None:
        """A spectator's chat line: relayed if allowed, signed over its watch, not too soon."""
        if not line.is_signed_by(line.key, w.nonce, relayed=False) or (w.key and line.key != w.key):
            self.forged += 1
            self.cheers_dropped += 1
            LOG.info("dropped a forged chat line on spectator %s's connection", w.name)
            return
        if not self.chat or now - w.cheer_ms < CHEER_PERIOD_MS:
            self.cheers_dropped += 1
            LOG.debug("dropped a chat line of spectator %s (not allowed or too soon)", w.name)
            return
        w.key, w.cheer_ms = line.key, now
        ident = self._stage.identity
        for other, o in self._watchers.items():
            if other != peer:
                relayed = sign_cheer(ident, line.text, w.name, w.key, o.nonce, relayed=True)
                self._send(other, relayed)
        self._stage.cheered(w.name, Cheer(line.text, w.name, w.key))

    def _refuse(self, peer: bytes, reason: str, nonce: bytes) -> None:
        self._send(peer, sign_refuse(self._stage.identity, reason, nonce))

    def _on_watch(self, peer: bytes, watch: Watch, now: int) -> None:
        if watch.protocol != SESSION_VERSION:
            self._send(peer, version_refusal(watch.protocol, "watch"))
            return
        if self.limit <= 0:
            self._refuse(peer, "this game takes no spectators", watch.nonce)
            return
        fault = line_fault(watch.name, max_bytes=MAX_NAME_BYTES) if watch.name else ""
        if fault:
            # Checked at the door: the name is shown to the players and other spectators.
            self._refuse(peer, f"your display name is refused: name: {fault}", watch.nonce)
            return
        if watch.game_id and watch.game_id != self._stage.game_id:
            self._refuse(peer, "this is not the game you watched: no such game here", watch.nonce)
            return
        w = self._watchers.get(peer)
        if w is None:
            if len(self._watchers) >= self.limit:
                self._refuse(
                    peer,
                    f"this game has {self.limit} spectator{'s' if self.limit != 1 else ''}, "
                    "the most its host takes; try again later",
                    watch.nonce,
                )
                return
            count = self._stage.record_count
            have = min(watch.have, count)
            before = tuple(self.names())
            w = self._watchers[peer] = _Spectator(watch.nonce, watch.name, have, have, now)
            new = True
        else:
            w.nonce, w.heard_ms = watch.nonce, now
            w.have = w.next = min(watch.have, self._stage.record_count)
            new = False
        offer = self._stage.offer()
        if self.chat:
            offer = replace(offer, options=(*offer.options, SPECTATOR_CHAT))
        self._send(peer, offer)
        self._send_status(peer, w)
        self._catch_up(peer, w, now)
        if new:
            self._changed(before)
        else:
            self._send(peer, self.audience(w.nonce))
        if self._stop is not None:
            # Watching a game that stopped: told so at once, as those watching then were.
            self._told.back(peer)
            self._send_stop(peer, w)

    # -- frames out ---------------------------------------------------------------------------

    def relay(self, index: int, raw: bytes) -> None:
        """Send a new record to every spectator that holds (or was sent) all before it."""
        data = b""
        for peer, w in self._watchers.items():
            if w.next != index:
                continue  # catching up: the timer sends it in order
            data = data or encode_frame(RecordFrame(index, raw))
            w.next = index + 1
            w.sent_ms = w.resent_ms = self._now()
            self._out.append((peer, data))

    def tick(self) -> None:
        """Forget silent spectators, resend to those behind, keep the others alive."""
        now = self._now()
        count = self._stage.record_count
        for peer, w in list(self._watchers.items()):
            if now - w.heard_ms > _SILENT_MS:
                self.forget(peer, "is gone")
                continue
            if w.have < count and now - w.resent_ms >= _PERIOD_MS:
                self._catch_up(peer, w, now)
            elif now - w.sent_ms >= _PERIOD_MS:
                self._send_status(peer, w)

    def stop(self, reason: str, index: int, mine: bytes, theirs: bytes) -> None:
        """The game stopped: tell every spectator, signed over its nonce."""
        self._stop = (reason, index, mine, theirs)
        for peer, w in self._watchers.items():
            self._send_stop(peer, w)

    @property
    def told_stop(self) -> bool:
        """Whether a spectator told of the stop is still connected, as far as the host knows.

        A spectator leaves once it reads the stop; one that has not read it yet would lose it
        if the host's connection closed under it, so the host waits a moment for it.
        """
        return self._stop is not None and bool(self._told.listening(self._watchers))

    def tick_stopped(self) -> None:
        """After a stop: tell each spectator still connected again, every 300 ms.

        A send that fails (``undelivered``) says that spectator has read it and left.
        """
        if self._stop is None:
            return
        now = self._now()
        for peer in self._told.listening(self._watchers):
            w = self._watchers[peer]
            if now - w.sent_ms >= _PERIOD_MS:
                self._send_stop(peer, w)

    def _send_stop(self, peer: bytes, w: _Spectator) -> None:
        assert self._stop is not None
        reason, index, mine, theirs = self._stop
        self._send(peer, sign_stop(self._stage.identity, reason, index, mine, theirs, w.nonce))

    def undelivered(self, peer: bytes) -> None:
        """A frame to ``peer`` could not be sent: a spectator is dropped (it may come back).

        After a stop it is only noted gone: it has left, told, and nothing is said of it.
        """
        if self._stop is not None:
            self._told.gone(peer)
            return
        if peer in self._watchers:
            self.dropped += 1
            self.forget(peer, "was dropped: it did not keep up")

    def forget(self, peer: bytes, why: str) -> None:
        """Stop sending to a spectator."""
        before = tuple(self.names())
        w = self._watchers.pop(peer, None)
        if w is not None:
            LOG.info("spectator %s %s", w.name, why)
            self._changed(before)

    def _catch_up(self, peer: bytes, w: _Spectator, now: int) -> None:
        """Send a batch of the records the spectator lacks, from what it holds."""
        w.resent_ms = now
        w.next = w.have
        for rec in self._stage.records_between(w.have, w.have + _BATCH):
            self._send(peer, RecordFrame(rec.index, rec.raw))
            w.next = rec.index + 1

    def _send_status(self, peer: bytes, w: _Spectator) -> None:
        self._send(peer, Status(self._stage.record_count, self._stage.move_clock_ms()))

    def _send(self, peer: bytes, frame: Frame) -> None:
        w = self._watchers.get(peer)
        if w is not None:
            w.sent_ms = self._now()
        self._out.append((peer, encode_frame(frame)))
