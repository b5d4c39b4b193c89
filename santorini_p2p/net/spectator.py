"""A spectator's side of a network game: it watches, verifies every record, and never acts.

:class:`Spectator` is sans-I/O like ``Session``: feed it frames with :meth:`Spectator.receive`,
let time pass with :meth:`Spectator.tick`, send what :meth:`Spectator.outgoing` returns. It
says ``watch`` to the host (SESSION.md 11) until the host answers, and again when the host
has been silent for 5 s, with the number of records it holds, so that a spectator that comes
late or reconnects catches up from the log.

Every record goes through the log's validator (``wire.log.Validator``: signature, chain, the
signer's right to it, legality, state hash) before it is shown. A record that fails is never
trusted: the spectator stops watching, says which record and why, and keeps what it had
verified. It writes nothing while it watches; :meth:`Spectator.replay_bytes` is its verified
copy of the log, the same bytes as every player's replay once the game is complete.
"""

from __future__ import annotations

import logging
import os
from collections.abc import Callable
from typing import Final

from santorini_p2p.engine import Position
from santorini_p2p.errors import ReplayError, WireError
from santorini_p2p.net.clock import TimeControl, read_clock
from santorini_p2p.net.frames import (
    NONCE_BYTES,
    SESSION_VERSION,
    Audience,
    Cheer,
    RecordFrame,
    Refuse,
    Refused,
    Rematch,
    Status,
    Stop,
    Watch,
    Welcome,
    Who,
    check_cheer_text,
    decode_frame,
    encode_frame,
    sign_cheer,
    versions_differ,
)
from santorini_p2p.net.gallery import CHEER_PERIOD_MS, SPECTATOR_CHAT
from santorini_p2p.net.listeners import Listeners
from santorini_p2p.net.moveclock import MoveClock
from santorini_p2p.net.onlookers import Refusals, audience_lines
from santorini_p2p.net.rematch import match_points, score_line
from santorini_p2p.net.secretnotes import SecretNotes
from santorini_p2p.net.session import (
    DISCONNECT_MS,
    HOST_ID,
    RESEND_MS,
    Note,
    NoteKind,
    SeatClock,
)
from santorini_p2p.replay.timeline import describe_result, plays_alone
from santorini_p2p.wire.identity import Identity, check_name, fingerprint
from santorini_p2p.wire.log import Record, TakebackOffer, Validator, encode_frames
from santorini_p2p.wire.messages import Accept, Act, Chat, Offer, Resign, Result, Timeout

__all__ = ["Spectator"]

LOG = logging.getLogger(__name__)

_NAME_LIMIT: Final = 400


class Spectator:
    """One spectator's view of a hosted game; see the module docstring.

    ``now`` is a monotonic clock in milliseconds; ``name`` is shown to the host (unproven).
    ``identity`` signs this spectator's chat lines (a fresh key unless given).
    """

    def __init__(
        self,
        name: str,
        *,
        now: Callable[[], int],
        address: str = "",
        identity: Identity | None = None,
        entropy: Callable[[int], bytes] = os.urandom,
    ) -> None:
        #: Where the watch nonces come from (a cryptographic source; tests pass fixed bytes).
        self._entropy = entropy
        self.name = name[:_NAME_LIMIT]
        self.identity = identity or Identity.generate(self.name or "spectator")
        self._cheer_ms = -(10**9)
        self.address = address
        self._now = now
        self.validator = Validator()
        self.welcome: Welcome | None = None
        self.notes: list[Note] = []
        #: Why watching ended before the game did (a refusal, a bad record, a stop), or None.
        self.stopped: str | None = None
        #: The record that failed its checks, as received (never part of the log).
        self.bad_record: tuple[int, bytes] | None = None
        #: Frames that were not acted on (unsigned stops and refusals once watching, strays).
        self.dropped = 0
        self.connected = False
        self._out: list[bytes] = []
        self._nonces: list[bytes] = []
        self._nonce = b""
        self._heard_ms = now()
        self._sent_ms = -(10**9)
        self._watch_ms = -(10**9)
        self._announced = 0
        self._secret_notes = SecretNotes()
        self._takeback_open: TakebackOffer | None = None
        self._refusals = Refusals()
        #: Who watches, as the host last said (``Audience``): the first names, and
        #: (spectators, the most the host takes).
        self.audience: tuple[str, ...] = ()
        self.audience_count = (0, 0)
        #: The game's number in the match watched (a rematch is game 2, ...), and the match's
        #: score so far, by name, over the games this spectator watched to their end.
        self.number = 1
        self.score: dict[str, float] = {}
        # The players' vote on a rematch, as the host tells it (SESSION.md 11): each slot's
        # answer; whether every slot asked (the next welcome is the rematch's), or one declined.
        self._vote: dict[int, bool] = {}
        self._agreed = False
        #: Whether the players ended the match (a slot declined a rematch, or none came).
        self.match_over = False
        self._seats_before: tuple[bytes, ...] = ()
        self._before_next: list[Callable[[], None]] = []
        self._signed_vote_key = b""
        self._listeners = Listeners()
        self._clock = MoveClock(now)
        self._new_round()
        self._say(
            f"Joining the game at {address or 'the host'} as a spectator; waiting for the host "
            "to answer."
        )

    # -- reading ------------------------------------------------------------------------------

    @property
    def records(self) -> tuple[Record, ...]:
        """Every record verified so far."""
        return self.validator.records

    @property
    def position(self) -> Position | None:
        """The current position (None before the draw)."""
        return self.validator.position

    @property
    def is_complete(self) -> bool:
        """Whether every seat has signed the result: the log is a whole replay."""
        return self.validator.is_complete

    @property
    def game_id(self) -> bytes:
        """The game's id, once the host said it (empty before)."""
        h = self.validator.header
        if h is not None:
            return h.game_id
        return self.welcome.game_id if self.welcome is not None else b""

    def seat_names(self) -> tuple[str, ...]:
        """Display names in seat order (header order before the draw)."""
        return self.validator.names

    @property
    def may_chat(self) -> bool:
        """Whether the host lets spectators chat (its welcome lists ``spectator-chat``)."""
        return self.welcome is not None and SPECTATOR_CHAT in self.welcome.options

    def say(self, text: str) -> str | None:
        """Send a chat line to the host (SESSION.md 11); return why not, or None when sent.

        The host relays it to the players and the other spectators; it is never part of the
        log nor of a replay.
        """
        text = text.strip(" ")
        if self.stopped is not None:
            return "watching has stopped"
        if self.welcome is None:
            return "the host has not answered yet"
        if not self.may_chat:
            return "this game's host does not let spectators chat"
        bad = check_cheer_text(text)
        if bad is not None:
            return bad
        now = self._now()
        if now - self._cheer_ms < CHEER_PERIOD_MS:
            return "at most one chat line a second"
        self._cheer_ms = now
        me = self.identity
        self._send(sign_cheer(me, text, self.name, me.public_key, self._nonce, relayed=False))
        self.notes.append(Note(f"[spectator] {self.name or 'you'} says: {text}", chat=True))
        self._changed()
        return None

    def seat_keys(self) -> tuple[bytes, ...]:
        """Public keys in seat order (header order before the draw)."""
        return self.validator.seats

    def time_control(self) -> TimeControl | None:
        """The game's time control, from the header (or the offer); None when untimed."""
        h = self.validator.header
        if h is not None:
            return TimeControl(h.move_ms, h.bank_ms) if h.move_ms else None
        w = self.welcome
        return TimeControl(w.move_ms, w.bank_ms) if w is not None and w.move_ms else None

    def clocks(self) -> tuple[SeatClock, ...]:
        """Each seat's clock as the host reads it, in seat order (empty when untimed)."""
        v = self.validator
        tc = self.time_control()
        p = v.position
        if p is None or tc is None:
            return ()
        self._track_move()
        running = p.winner < 0 and not v.pending_acks and self.stopped is None
        out = []
        for seat, bank in enumerate(v.clocks):
            if running and seat == p.to_move:
                move_left, bank_left = read_clock(tc, bank, self._now() - self._clock.started)
                out.append(SeatClock(move_left, bank_left, True))
            else:
                out.append(SeatClock(tc.move_ms, bank, False))
        return tuple(out)

    def result_text(self) -> str:
        """The result in words ("alice won", "bob won by resignation"), or "unfinished"."""
        v = self.validator
        res = v.result
        if res is None or v.position is None:
            return "unfinished"
        return describe_result(res, list(v.names), plays_alone(v.header))

    def replay_bytes(self) -> bytes:
        """The verified log as a replay file (the players' journal bytes once complete)."""
        return encode_frames(r.raw for r in self.records)

    def outgoing(self) -> list[tuple[bytes, bytes]]:
        """Return and forget the frames to send, as ``(peer id, frame bytes)``."""
        out, self._out = self._out, []
        return [(HOST_ID, f) for f in out]

    def listen(self, listener: Callable[[], None]) -> Callable[[], None]:
        """Call ``listener`` after every visible change; return the function that stops it."""
        return self._listeners.add(listener)

    def before_next_game(self, hook: Callable[[], None]) -> None:
        """Call ``hook`` when a rematch begins, before the finished game is let go of."""
        self._before_next.append(hook)

    # -- time ---------------------------------------------------------------------------------

    def tick(self) -> None:
        """Let time pass: say watch until the host answers, keep the link alive."""
        if self.stopped is not None:
            return
        now = self._now()
        if self.connected and now - self._heard_ms > DISCONNECT_MS:
            self.connected = False
            self._new_round()
            self._say("The host is silent; watching again when it answers.", NoteKind.WARNING)
            self._changed()
        if not self.connected or self.welcome is None:
            if now - self._watch_ms >= RESEND_MS:
                self._send_watch()
        elif now - self._sent_ms >= RESEND_MS:
            self._send(Status(self.validator.next_seq))

    def _new_round(self) -> None:
        """A fresh nonce for a new watch round (the host signs its stop over it)."""
        self._nonce = self._entropy(NONCE_BYTES)
        self._nonces.append(self._nonce)
        del self._nonces[:-16]

    def _send_watch(self) -> None:
        self._watch_ms = self._now()
        gid = self.game_id
        self._send(Watch(SESSION_VERSION, self._nonce, gid, self.validator.next_seq, self.name))

    def _send(self, frame: Watch | Status | Cheer) -> None:
        self._sent_ms = self._now()
        self._out.append(encode_frame(frame))

    # -- frames in ----------------------------------------------------------------------------

    def receive(self, peer: bytes, data: bytes) -> None:
        """Handle one frame from the host; never raises on bad input."""
        del peer
        if self.stopped is not None:
            return
        try:
            frame = decode_frame(data)
        except WireError as e:
            self.dropped += 1
            LOG.debug("dropped a malformed frame: %s", e)
            return
        self._heard_ms = self._now()
        if not self.connected:
            self.connected = True
            if self.welcome is not None:
                self._say("The host answers again; catching up from the log.")
        match frame:
            case Welcome():
                self._on_welcome(frame)
            case RecordFrame():
                self._on_record(frame)
            case Status():
                self._on_status(frame)
            case Refuse():
                self._on_refuse(frame)
            case Stop():
                self._on_stop(frame)
            case Who():
                self._new_round()
                self._send_watch()
            case Cheer():
                self._on_cheer(frame)
            case Refused():
                self._on_refused(frame)
            case Audience():
                self._on_audience(frame)
            case Rematch():
                self._on_rematch(frame)
            case _:
                self.dropped += 1
        self._changed()

    def _host_key(self) -> bytes:
        h = self.validator.header
        if h is not None:
            return h.seats[0].public_key
        return self.welcome.host_key if self.welcome is not None else b""

    def _on_welcome(self, w: Welcome) -> None:
        if w.protocol != SESSION_VERSION:
            self._end(f"the host speaks protocol {w.protocol}, not {SESSION_VERSION}")
            return
        if self.game_id and w.game_id != self.game_id:
            if self.is_complete and self._agreed and self._signed_vote_key == w.host_key:
                self._next_game(w)
                return
            self._end("the host now offers another game than the one watched")
            return
        try:
            check_name(w.host_name)
        except ValueError as e:
            self._end(f"the host's display name is refused: {e}")
            return
        if self.welcome is None:
            tc = f"{w.move_ms // 1000}+{w.bank_ms // 1000}" if w.move_ms else "untimed"
            self._say(
                f"Joined {w.host_name}'s {w.players}-player game as a spectator (gods: "
                f"{w.gods}, time: {tc}); host fingerprint {fingerprint(w.host_key)}."
            )
        self.welcome = w

    def _on_refuse(self, r: Refuse) -> None:
        # Before any record there is nothing to lose; once watching, only the host's word.
        if self.records and not self._signed_by_host(r.is_signed_by):
            self.dropped += 1
            return
        self._end(f"refused by the host: {versions_differ(r.reason, 'watch')}")

    def _on_stop(self, st: Stop) -> None:
        if not self._signed_by_host(st.is_signed_by):
            self.dropped += 1
            return
        self._end(f"the host stopped the game at record {st.index}: {st.reason}")

    def _on_cheer(self, line: Cheer) -> None:
        """Another spectator's line, relayed: shown only if the host signed it for us."""
        if not self._signed_by_host(lambda k, n: line.is_signed_by(k, n, relayed=True)):
            self.dropped += 1
            return
        self.notes.append(
            Note(f"[spectator] {line.name or 'a spectator'} says: {line.text}", chat=True)
        )
        LOG.info("spectator %s says: %s", line.name, line.text)

    def _on_refused(self, frame: Refused) -> None:
        """A seat refused a takeback (signed by that seat): said once."""
        try:
            said = self._refusals.read(self.validator, frame)
        except ValueError as e:
            self.dropped += 1
            LOG.debug("dropped a takeback refusal: %s", e)
            return
        if said is not None:
            self._say(said, NoteKind.WARNING)

    def _on_audience(self, frame: Audience) -> None:
        """The host's list of who watches: who came and who left, as the players are told."""
        if not self._signed_by_host(frame.is_signed_by):
            self.dropped += 1
            return
        for line in audience_lines(self.audience, frame.names, frame.count, frame.most):
            self._say(line)
        self.audience = frame.names
        self.audience_count = (frame.count, frame.most)

    def _on_rematch(self, frame: Rematch) -> None:
        """The players' vote on a rematch, as the host holds it: said as it goes."""
        v = self.validator
        h = v.header
        if h is None or frame.game_id != h.game_id or not v.is_complete:
            self.dropped += 1
            return
        if not self._signed_by_host(frame.is_signed_by):
            self.dropped += 1
            return
        names = [s.name for s in h.seats]  # the frame's bits are header slots
        for slot in range(h.players):
            bit = 1 << slot
            if not (frame.asking | frame.declining) & bit or slot in self._vote:
                continue
            yes = bool(frame.asking & bit)
            self._vote[slot] = yes
            if yes and len(self._vote) < h.players and not self.match_over:
                self._say(f"{names[slot]} asks for a rematch")
        declined = [names[slot] for slot, yes in sorted(self._vote.items()) if not yes]
        if declined and not self.match_over:
            self.match_over = True
            self._say(f"no rematch: {' and '.join(declined)} declined")
        if not self.match_over and len(self._vote) == h.players and not self._agreed:
            self._agreed = True
            self._signed_vote_key = h.seats[0].public_key
            self._say("rematch agreed: the new game starts")

    def _next_game(self, w: Welcome) -> None:
        """The rematch the players agreed begins: watch it over the same connection."""
        v = self.validator
        h = v.header
        p = v.position
        assert h is not None
        assert p is not None
        for hook in list(self._before_next):
            hook()
        sides = [p.side_of(i) for i in range(h.players)]
        for name, points in match_points(v.names, v.result, sides).items():
            self.score[name] = self.score.get(name, 0) + points
        self._seats_before = tuple(s.public_key for s in h.seats)
        self.number += 1
        self.validator = Validator()
        self.welcome = w
        self._announced = 0
        self._takeback_open = None
        self._secret_notes = SecretNotes()
        self._refusals = Refusals()
        self._vote = {}
        self._agreed = False
        self._clock = MoveClock(self._now)
        self._say(score_line(self.number, self.score))

    def _signed_by_host(self, signed_by: Callable[[bytes, bytes], bool]) -> bool:
        key = self._host_key()
        return bool(key) and any(signed_by(key, n) for n in self._nonces)

    def _on_status(self, st: Status) -> None:
        v = self.validator
        if st.have != v.next_seq or self.welcome is None:
            return
        # The host's reading of the move's clock: shown as the host shows it.
        if v.position is not None and not v.pending_acks and not v.is_over:
            self._track_move()
            self._clock.started = self._now() - st.clock_ms

    def _on_record(self, rf: RecordFrame) -> None:
        v = self.validator
        n = v.next_seq
        if self.welcome is None:
            return  # the offer first: the host sends everything again
        if rf.index < n:
            if v.record(rf.index).raw != rf.envelope:
                self._refused(
                    rf.index,
                    rf.envelope,
                    "the host sent a different record than before (equivocation)",
                )
            return
        if rf.index > n:
            return  # out of order: the host sends it again after what is missing
        try:
            v.feed(rf.envelope)
        except ReplayError as e:
            cause = e.__cause__
            kind = type(cause).__name__ if cause else "ReplayError"
            self._refused(rf.index, rf.envelope, f"{kind}: {e.reason}")
            return
        if n == 0:
            h = v.header
            assert h is not None
            w = self.welcome
            if h.game_id != w.game_id or h.seats[0].public_key != w.host_key:
                self._refused(0, rf.envelope, "the header is not the game the host offered")
                return
            if self._seats_before and tuple(s.public_key for s in h.seats) != self._seats_before:
                self._refused(0, rf.envelope, "the rematch's players are not the finished game's")
                return
            names = ", ".join(f"{s.name} ({fingerprint(s.public_key)})" for s in h.seats)
            self._say(f"The game starts: {names}.")
        self._track_move()
        self._announce()
        for said in self._refusals.arrived(v):
            self._say(said, NoteKind.WARNING)
        if v.is_complete:
            self._send(Status(v.next_seq))  # the host may stop waiting for it
        # Otherwise no status per record: the host sends each new record on, and learns what
        # this spectator holds from its keepalive (every 300 ms), which costs the host less.

    def _refused(self, index: int, raw: bytes, why: str) -> None:
        """A record failed its checks: never trusted; watching ends with the reason."""
        self.bad_record = (index, raw)
        self._end(f"record {index} from the host is bad and was not trusted: {why}")

    def _end(self, reason: str) -> None:
        if self.stopped is None:
            self.stopped = reason
            self._say(f"Watching stopped: {reason}.", NoteKind.ERROR)

    # -- notes --------------------------------------------------------------------------------

    def _track_move(self) -> None:
        """Restart the move clock when a new move becomes due (``MoveClock``)."""
        self._clock.track(self.validator)

    def _announce(self) -> None:
        v = self.validator
        recs = v.records_since(self._announced)
        for rec in recs:
            m = rec.message
            who = v.header.seats[rec.slot].name if v.header is not None else "?"
            if isinstance(m, Act):
                self._say(f"{who}: {m.action}")
            elif isinstance(m, Chat):
                self.notes.append(Note(f"{who} says: {m.text}", NoteKind.INFO, chat=True))
            elif isinstance(m, Resign):
                self._say(f"{who} resigned.", NoteKind.WARNING)
            elif isinstance(m, Timeout):
                late = v.names[m.seat] if m.seat < len(v.names) else f"Seat {m.seat + 1}"
                claim = "" if late == who else f" ({who} claimed it)"
                self._say(f"{late} ran out of time{claim}.", NoteKind.WARNING)
            elif isinstance(m, Result) and v.is_complete and rec is recs[-1]:
                self._say(f"The game is over: {self.result_text()}.", NoteKind.WARNING)
            self._announce_takeback(rec, who)
            # Secret gods, Party, Agora: what the players are told, less their own secrets.
            for text, kind in self._secret_notes.notes(v, rec):
                self._say(text, kind)
        self._announced = v.next_seq

    def _announce_takeback(self, rec: Record, who: str) -> None:
        """Say what a record did to a takeback, as the players are told (SPEC.md 8.2)."""
        v = self.validator
        was, now = self._takeback_open, v.takeback_offer
        self._takeback_open = now
        m = rec.message
        if isinstance(m, Offer) and now is not None and now.seq == rec.index:
            self._say(f"{who} asks to take back {now.turn}.")
        elif isinstance(m, Accept) and m.kind == "takeback" and was is not None:
            if now is None:
                mover = v.names[was.seat] if was.seat < len(v.names) else who
                self._say(f"Taken back: {was.turn}. {mover} to move again.", NoteKind.WARNING)
            else:
                self._say(f"{who} accepts the takeback.")
        elif was is not None and now is None:
            asker = v.names[was.seat] if was.seat < len(v.names) else "A player"
            self._say(f"{asker}'s takeback of {was.turn} lapsed: the game went on.")

    def _say(self, text: str, kind: NoteKind = NoteKind.INFO) -> None:
        note = Note(text, kind)  # its text escaped for any terminal, and so is the log's
        self.notes.append(note)
        LOG.info("%s", note.text)

    def _changed(self) -> None:
        self._listeners.notify()
