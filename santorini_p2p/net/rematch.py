"""The rematch: at the end of a game, a vote over the same connections, then a new game.

When a game is complete every seated peer may ask for a rematch, or decline (SESSION.md 10).
:class:`RematchVote` is the vote, sans-I/O as the session is: feed it frames with
:meth:`RematchVote.receive`, give it the local answer with :meth:`RematchVote.answer`, let
time pass with :meth:`RematchVote.tick` and send what :meth:`RematchVote.outgoing` returns.
Its frames are signed over the nonces the finished session's handshake proved on each
connection (``Session.proven_links``), so nobody else on the LAN can ask or decline for a
player. A joiner sends its own answer to the host; the host sends every answer it holds to
every joiner. When every slot asks, the host offers the new game (:func:`rematch_settings`:
the same players in the same slots, the same settings, the next start slot) and each joiner
joins it over the same connection, checking the header with :func:`header_check`.
After a complete game, :func:`open_vote` opens the vote over the session's proven connections
and :func:`rematch_session` builds the new game's session, the host's or a joiner's.
"""

from __future__ import annotations

import logging
from collections.abc import Callable
from enum import Enum
from pathlib import Path
from typing import Final

from santorini_p2p.errors import WireError
from santorini_p2p.net.clock import TimeControl
from santorini_p2p.net.frames import Rematch, decode_frame, encode_frame, sign_rematch
from santorini_p2p.net.session import (
    HOST_ID,
    RESEND_MS,
    GameSettings,
    ProvenLink,
    Session,
    header_pool,
)
from santorini_p2p.net.told import Told
from santorini_p2p.net.trust import KnownPeers
from santorini_p2p.wire.draw import draw_seed, draw_setup
from santorini_p2p.wire.identity import Identity
from santorini_p2p.wire.log import Record
from santorini_p2p.wire.messages import START_OPTION, Header, Reveal, start_slot
from santorini_p2p.wire.validator import game_pool

__all__ = [
    "ANSWER_MS",
    "RematchVote",
    "Verdict",
    "header_check",
    "match_points",
    "next_start",
    "open_vote",
    "rematch_save_path",
    "rematch_session",
    "rematch_settings",
    "score_line",
]

LOG = logging.getLogger(__name__)

ANSWER_MS: Final = 120_000
"""How long the vote waits for every seat's answer before it ends with no rematch."""
SETTLE_MS: Final = 2000
"""How long a peer whose vote ended goes on answering, so that the others learn the verdict.

The host stays, within this time, until every joiner and spectator it told has left: a frame
a peer has received but not yet read is lost when the connection closes under it (a joiner's
or a spectator's socket drops what it holds of a connection that is gone)."""


class Verdict(Enum):
    """Where the vote stands."""

    OPEN = "open"
    AGREED = "agreed"
    DECLINED = "declined"
    UNANSWERED = "unanswered"


def next_start(header: Header, records: tuple[Record, ...]) -> int:
    """Return the rematch's start slot: the slot after the finished game's start slot.

    The finished game's start slot is its header's ``start=K`` or else the one its reveals
    drew (SPEC.md 11), before any challenger's ``start``: with 2 players the other player
    starts the rematch, with 3 or 4 the next in slot order (join order, the host first).
    """
    fixed = start_slot(header.options, header.players)
    if fixed is None:
        n = header.players
        nonces = tuple(
            r.message.nonce for r in records[n + 1 : 2 * n + 1] if isinstance(r.message, Reveal)
        )
        seed = draw_seed(header.game_id, nonces)
        fixed = draw_setup(seed, n, header.gods, game_pool(header))[0]
    return (fixed + 1) % header.players


def rematch_settings(header: Header, start: int) -> GameSettings:
    """The settings of a rematch of ``header``'s game, whose start slot is ``start``."""
    options = tuple(o for o in header.options if not o.startswith(START_OPTION))
    tc = TimeControl(header.move_ms, header.bank_ms) if header.move_ms else None
    pool = header_pool(header)
    return GameSettings(
        players=header.players,
        gods=header.gods,
        time=tc,
        options=(*options, f"{START_OPTION}{start}"),
        pool=pool if header.gods != "none" else (),
    )


def header_check(old: Header, start: int) -> Callable[[Header], str | None]:
    """A joiner's check that a rematch's header is the game agreed (``Session.check_header``)."""
    want = rematch_settings(old, start)
    keys = [s.public_key for s in old.seats]

    def check(h: Header) -> str | None:
        got = rematch_settings(h, start_slot(h.options, h.players) or 0)
        if [s.public_key for s in h.seats] != keys:
            return "its players or their slots are not the finished game's"
        if h.game_id == old.game_id:
            return "it has the finished game's id"
        if sorted(h.options) != sorted(want.options):
            return f"options {', '.join(h.options) or 'none'}, not {', '.join(want.options)}"
        if (got.gods, got.time, got.god_pool) != (want.gods, want.time, want.god_pool):
            return "its gods or time control are not the finished game's"
        return None

    return check


def match_points(
    names: tuple[str, ...], result: tuple[int, str] | None, sides: list[int]
) -> dict[str, float]:
    """What a finished game adds to a match's score, by name: 1 a win, half each a draw.

    ``names`` and ``sides`` are each seat's, in seat order (a seat wins with its side, as
    teams do with 4 players); ``result`` is the log's (the winner's seat, or -1 for a draw).
    """
    points = dict.fromkeys(names, 0.0)
    if result is None:
        return points
    winner = result[0]
    for seat, name in enumerate(names):
        if winner < 0:
            points[name] += 0.5
        elif seat < len(sides) and winner < len(sides) and sides[seat] == sides[winner]:
            points[name] += 1
    return points


def score_line(number: int, score: dict[str, float]) -> str:
    """The line that opens game ``number`` of a match, with the match's running ``score``."""
    standing = ", ".join(f"{name} {points:g}" for name, points in score.items())
    return f"Rematch: game {number}. Score: {standing}."


def rematch_save_path(save: Path, number: int) -> Path:
    """Where ``--save FILE`` puts game ``number`` of a series: FILE, or ``FILE-N.ext``.

    The first game's copy is FILE itself; game N (2, 3, ...) goes to ``FILE-N.ext``.
    """
    return save if number <= 1 else save.with_name(f"{save.stem}-{number}{save.suffix}")


class RematchVote:
    """One peer's side of the vote after the game ``header`` ended; see the module docstring.

    ``links`` are the finished session's proven connections; ``now`` a monotonic clock in ms.
    """

    def __init__(
        self,
        identity: Identity,
        header: Header,
        links: tuple[ProvenLink, ...],
        *,
        is_host: bool,
        now: Callable[[], int],
        watchers: Callable[[], list[tuple[bytes, bytes]]] | None = None,
    ) -> None:
        self.identity = identity
        # The host: its spectators now, as (peer id, nonce of the latest watch); each is told
        # every answer the players are (SESSION.md 11), so it knows whether game N+1 comes.
        self._watchers = watchers
        self.header = header
        self.is_host = is_host
        self._now = now
        keys = [s.public_key for s in header.seats]
        self.slot = keys.index(identity.public_key)
        self.names = tuple(s.name for s in header.seats)
        self._links = {link.peer: link for link in links}
        #: Each slot's answer as this peer knows it: True asks (or accepts), False declines.
        self.answers: dict[int, bool] = {}
        #: The slots that declined before any other slot asked: they asked nobody anything,
        #: they leave (a computer player without ``--rematch``), and are said to.
        self.unasked: set[int] = set()
        #: Frames dropped: malformed, another game's, not signed for their connection.
        self.dropped = 0
        self._out: list[tuple[bytes, bytes]] = []
        self._sent_ms = -(10**9)
        self._started_ms = now()
        self._ended_ms: int | None = None
        self._listeners: list[Callable[[], None]] = []
        # A joiner: its own answer as the host last said it holds it (None: not yet).
        self._echoed: bool | None = None
        # The host: the joiners' and spectators' connections found gone (a send failed).
        self._told = Told()

    # -- state --------------------------------------------------------------------------------

    @property
    def verdict(self) -> Verdict:
        """Declined as soon as one seat declines; agreed when every seat asks.

        A joiner counts the vote agreed only once the host holds its own answer too (the host's
        frames echo it), since the host starts the new game when it holds every answer.
        """
        if False in self.answers.values():
            return Verdict.DECLINED
        if len(self.answers) == self.header.players and (self.is_host or self._echoed):
            return Verdict.AGREED
        if self._now() - self._started_ms > ANSWER_MS:
            return Verdict.UNANSWERED
        return Verdict.OPEN

    @property
    def is_done(self) -> bool:
        """Whether this peer may leave the vote.

        Agreed: at once (the new game's handshake follows). Otherwise once the others know
        the verdict as far as this peer can tell, or :data:`SETTLE_MS` after it was reached:
        a joiner once the host holds its answer; the host once it holds every answer and every
        joiner and spectator it tells has left (each leaves once it knows the verdict), so that
        its last frames are read before its connection closes under them.
        """
        v = self.verdict
        if v is Verdict.OPEN:
            return False
        if v is Verdict.AGREED:
            return True
        if self._ended_ms is None:
            self._ended_ms = self._now()
        if self.is_host:
            settled = len(self.answers) == self.header.players and not self.listening()
        else:
            settled = self._echoed is not None and self._echoed == self.answers.get(self.slot)
        return settled or self._now() - self._ended_ms >= SETTLE_MS

    def listening(self) -> list[bytes]:
        """The host's joiners and spectators whose connections are not known to be gone."""
        watchers = self._watchers() if self._watchers is not None else []
        peers = [*self._links, *(peer for peer, _ in watchers)]
        return self._told.listening(peers)

    def undelivered(self, peer: bytes) -> None:
        """A frame to ``peer`` could not be sent: its connection is gone (it has left)."""
        self._told.gone(peer)

    def asking(self) -> tuple[str, ...]:
        """The names of the other seats that asked for a rematch."""
        return tuple(
            self.names[s] for s, yes in sorted(self.answers.items()) if yes and s != self.slot
        )

    def describe(self) -> str:
        """The vote in words, for the screen."""
        v = self.verdict
        if v is Verdict.AGREED:
            return "rematch agreed: the new game starts"
        if v is Verdict.DECLINED:
            no = [s for s, yes in sorted(self.answers.items()) if not yes]
            who = " and ".join(self.names[s] for s in no)
            if all(s in self.unasked for s in no):
                # Nobody had asked: no decline of anything, a player who does not play again.
                return f"no rematch: {who} {'is' if len(no) == 1 else 'are'} not playing again"
            return f"no rematch: {who} declined"
        if v is Verdict.UNANSWERED:
            late = [self.names[s] for s in range(self.header.players) if s not in self.answers]
            return f"no rematch: {' and '.join(late)} did not answer"
        asking = self.asking()
        if asking:
            return f"{' and '.join(asking)} asks for a rematch: accept (y) / decline (n)"
        return "waiting for the others' answers to the rematch"

    def listen(self, listener: Callable[[], None]) -> None:
        """Call ``listener`` after every change of the answers."""
        self._listeners.append(listener)

    # -- input --------------------------------------------------------------------------------

    def _record(self, slot: int, yes: bool) -> None:
        """Hold ``slot``'s first answer, noting a decline that answered no ask."""
        if not yes and not any(self.answers.get(s) for s in self.answers if s != slot):
            self.unasked.add(slot)
        self.answers[slot] = yes

    def answer(self, yes: bool) -> None:
        """Give this seat's answer (ask or accept: True; decline: False); the first stands."""
        if self.slot in self.answers:
            return
        self._record(self.slot, yes)
        self._send_all()
        self._changed()

    def receive(self, peer: bytes, data: bytes) -> bool:
        """Handle a frame; return whether it was this vote's (acted on or dropped).

        Anything else (a finished game's last statuses, a later game's vote) is left alone.
        """
        try:
            frame = decode_frame(data)
        except WireError:
            return False
        if not isinstance(frame, Rematch) or frame.game_id != self.header.game_id:
            # Another game's vote (the rematch's own, once it is over) is not this one's.
            return False
        link = self._links.get(peer)
        if link is None or not any(frame.is_signed_by(link.key, n) for n in link.verify_over):
            self._drop(peer, "not signed for its connection by a seated key")
            return True
        if self.is_host:
            self._from_joiner(link, frame)
        else:
            self._from_host(frame)
        return True

    def _from_joiner(self, link: ProvenLink, frame: Rematch) -> None:
        bit = 1 << link.slot
        if (frame.asking | frame.declining) != bit:
            self._drop(link.peer, "a joiner answers for its own slot alone")
            return
        yes = frame.asking == bit
        if link.slot not in self.answers:
            self._record(link.slot, yes)
            # Every joiner hears of a new answer at once; the sender hears it held.
            self._send_all()
            self._changed()
        else:
            self._send(link, self._tally())

    def _from_host(self, frame: Rematch) -> None:
        changed = False
        for s in range(self.header.players):
            bit = 1 << s
            if frame.asking & bit or frame.declining & bit:
                yes = bool(frame.asking & bit)
                if s == self.slot:
                    changed = changed or self._echoed != yes
                    self._echoed = yes
                elif s not in self.answers:
                    self._record(s, yes)
                    changed = True
        if changed:
            self._changed()

    def _drop(self, peer: bytes, why: str) -> None:
        self.dropped += 1
        LOG.debug("dropped a rematch frame from %s: %s", peer.hex()[:10], why)

    # -- frames out ---------------------------------------------------------------------------

    def _tally(self) -> tuple[int, int]:
        asking = sum(1 << s for s, yes in self.answers.items() if yes)
        declining = sum(1 << s for s, yes in self.answers.items() if not yes)
        return asking, declining

    def _send(self, link: ProvenLink, bits: tuple[int, int]) -> None:
        frame = sign_rematch(self.identity, self.header.game_id, *bits, link.sign_over)
        self._out.append((link.peer, encode_frame(frame)))

    def _send_all(self) -> None:
        self._sent_ms = self._now()
        if self.is_host:
            bits = self._tally()
            for link in self._links.values():
                if not self._told.is_gone(link.peer):
                    self._send(link, bits)
            for peer, nonce in self._watchers() if self._watchers is not None else ():
                if self._told.is_gone(peer):
                    continue
                frame = sign_rematch(self.identity, self.header.game_id, *bits, nonce)
                self._out.append((peer, encode_frame(frame)))
            return
        yes = self.answers.get(self.slot)
        if yes is None:
            return
        bit = 1 << self.slot
        for link in self._links.values():
            if link.peer == HOST_ID:
                self._send(link, (bit, 0) if yes else (0, bit))

    def tick(self) -> None:
        """Let time pass: send again what the others may lack.

        The host sends its tally every :data:`RESEND_MS` also once the vote is over, while a
        joiner or spectator is still connected: a send that fails (``undelivered``) says it
        has left.
        """
        if self.verdict is not Verdict.OPEN and self._ended_ms is None:
            self._ended_ms = self._now()
        if self._now() - self._sent_ms < RESEND_MS:
            return
        if self.is_host and not self.answers:
            return
        if not self.is_host and self._echoed is not None:
            return
        self._send_all()

    def outgoing(self) -> list[tuple[bytes, bytes]]:
        """Return and forget the frames to send, as ``(peer id, frame bytes)``."""
        out, self._out = self._out, []
        return out

    def _changed(self) -> None:
        if self.verdict is not Verdict.OPEN and self._ended_ms is None:
            self._ended_ms = self._now()
        for f in list(self._listeners):
            f()


def open_vote(s: Session) -> RematchVote:
    """The rematch vote after ``s``'s complete game, over its proven connections."""
    v = s.validator
    assert v is not None
    assert v.header is not None
    watchers = s.gallery.connections if s.gallery is not None else None
    return RematchVote(
        s.identity, v.header, s.proven_links(), is_host=s.is_host, now=s.now, watchers=watchers
    )


def rematch_session(s: Session, h: Header) -> Session:
    """The session of the rematch of ``s``'s game ``h``: the host's offer, or a joiner's."""
    start = next_start(h, s.records)
    known = KnownPeers(s.home)
    if s.is_host:
        session = Session.host(
            s.identity,
            rematch_settings(h, start),
            home=s.home,
            now=s.now,
            known=known,
            sources=s.sources,
            address=s.address,
            seats=tuple((seat.public_key, seat.name) for seat in h.seats),
        )
        session.series = s.series + 1
        if s.gallery is not None and session.gallery is not None:
            session.gallery.limit = s.gallery.limit
            session.gallery.chat = s.gallery.chat
            # The finished game's spectators watch the rematch too (SESSION.md 11).
            session.gallery.adopt(s.gallery)
        return session
    session = Session.join(
        s.identity, home=s.home, now=s.now, known=known, sources=s.sources, address=s.address
    )
    session.check_header = header_check(h, start)
    session.series = s.series + 1
    # The spectators stay for the rematch (SESSION.md 11): who watches is known already.
    session.audience, session.audience_count = s.audience, s.audience_count
    return session
