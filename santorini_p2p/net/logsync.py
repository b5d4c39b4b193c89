"""Acknowledgement, resending and races over the signed log (SESSION.md 4, 5, 6).

Records have numbers, so delivery is counting: a status says how many are held, the timer sends
what is lacking, a record above the count waits for the gap to fill. A different record at a
number held is a lost race (taken back) or equivocation (a stop); every record at the count is
checked by the log, the bounds and the claim rule before it is journaled and relayed.
"""

from __future__ import annotations

import logging

from santorini_p2p.errors import (
    DesyncError,
    ReplayError,
    SantoriniError,
    WireError,
)
from santorini_p2p.net.bounds import bound_fault
from santorini_p2p.net.frames import (
    RecordFrame,
    Status,
    Stop,
    sign_refuse,
)
from santorini_p2p.net.sessionbase import (
    BATCH,
    BUFFER_LIMIT,
    HOST_ID,
    RESEND_MS,
    PeerState,
    SessionBase,
    header_pool,
)
from santorini_p2p.net.trust import ChangedKeyError
from santorini_p2p.net.views import NoteKind
from santorini_p2p.wire.identity import fingerprint
from santorini_p2p.wire.log import (
    Validator,
    open_envelope,
)
from santorini_p2p.wire.messages import (
    Act,
    Chat,
    Offer,
    decode_body,
)

LOG = logging.getLogger(__name__)


def _prev_of(raw: bytes) -> bytes:
    """The ``prev`` a record's body claims (empty when it does not decode)."""
    try:
        return decode_body(open_envelope(raw).body).prev
    except WireError:
        return b""


def _claimed_hash(raw: bytes) -> bytes:
    """The state hash a record claims (empty if it carries none or does not decode)."""
    try:
        msg = decode_body(open_envelope(raw).body)
    except WireError:
        return b""
    claimed = getattr(msg, "state_hash", b"")
    return claimed if isinstance(claimed, bytes) else b""


class LogSync(SessionBase):
    """Acknowledgement, resending and races over the signed log (SESSION.md 4, 5, 6)."""

    def _on_status(self, peer: bytes, state: PeerState, st: Status) -> None:
        # Only the timer resends (``tick``): a status may be older than records in flight.
        # It may also be lower than before, from a peer that restarted with less: believe it.
        state.have = st.have
        if not self.is_host and st.have <= self._count():
            self._due.caught_up()  # the host holds nothing this peer lacks
        if self._chat_out and not self.is_host:
            self._advance()  # the host holds this peer's last line: the next may go
        if not self.is_host and self._clock_sync and st.have == self._count():
            self._sync_shown_clock(st.clock_ms)

    @property
    def players_told_end(self) -> list[bytes]:
        """The host, the game complete: the seated connections not known to be gone.

        The last record is a joiner's (the result is signed in seat order), and the host's
        status acknowledges it: a joiner that has not read it yet would lose it if the host's
        connection closed under it, and wait for the silent host (SESSION.md 9).
        """
        if not self.is_host or not self.is_complete:
            return []
        return self._left.listening(p for p, st in self._peers.items() if st.slot is not None)

    def tell_end_again(self) -> None:
        """The host, the game complete: send each joiner still connected a status every 300 ms.

        A send that fails (``undelivered``) says that joiner has read it and left.
        """
        now = self._now()
        for peer in self.players_told_end:
            if now - self._peers[peer].last_sent_ms >= RESEND_MS:
                self._send(peer, self._status())

    def _on_stop(self, peer: bytes, state: PeerState, st: Stop) -> None:
        if self.is_host:
            signed = st.is_signed_by(state.proven, state.challenge)
        else:
            signed = self._from_host(st.signature, st.is_signed_by)
        if not signed:
            self._drop(peer, st, "a stop that is not signed for this connection")
            return
        if self.stopped:
            return
        who = state.name or "a peer"
        self._stop(
            f"{who} stopped the game: {st.reason}", index=st.index, theirs=st.mine, skip=peer
        )

    def _on_record(self, peer: bytes, state: PeerState, rf: RecordFrame) -> None:
        if self.stopped:
            return
        if self.journal is None:
            if rf.index != 0 or self.is_host:
                if rf.index > 0:
                    self._send(peer, self._status())
                return
            if not self._start_joined(rf.envelope):
                return
            self._ack_to(peer)
            self._advance()
            self._drain_buffer(peer)
            return
        v = self.journal.validator
        n = v.next_seq
        if rf.index < n:
            if self._raw(rf.index) != rf.envelope:
                self._conflict(peer, state, rf)
                return
            # Whoever sends record i holds every record up to i (when it is the same one).
            state.have = max(state.have, rf.index + 1)
            if rf.index == n - 1:
                # The sender resent what is held here: tell it, once per resent batch.
                self._ack_to(peer)
            return
        if rf.index > n:
            if len(self._buffer) < BUFFER_LIMIT:
                self._buffer[rf.index] = rf.envelope
            self._ack_to(peer)
            return
        wrote = self._written
        if self._accept(peer, rf.envelope):
            state.have = max(state.have, rf.index + 1)
            self._drain_buffer(peer)
            self._advance()
        # A record of this peer's own, just sent, acknowledges as much as a status would.
        if self._written == wrote:
            self._ack_to(peer)

    def _drain_buffer(self, peer: bytes) -> None:
        if not self._buffer:
            return
        while self.journal is not None and not self.stopped:
            n = self.journal.validator.next_seq
            raw = self._buffer.pop(n, None)
            if raw is None:
                break
            if not self._accept(peer, raw):
                break
        if self.journal is not None:
            n = self.journal.validator.next_seq
            for i in [i for i in self._buffer if i < n]:
                del self._buffer[i]

    def _start_joined(self, raw: bytes) -> bool:
        """A joiner receives the header: check it against the offer and the known keys.

        Returns whether the journal was started.
        """
        v = Validator()
        try:
            v.feed(raw)
        except ReplayError as e:
            self._stop(f"the header is not valid: {e}", index=0, offending=raw)
            return False
        h = v.header
        assert h is not None
        keys = [s.public_key for s in h.seats]
        if self.identity.public_key not in keys:
            self._stop("the header gives this player no seat", index=0)
            return False
        if self.check_header is not None:
            wrong = self.check_header(h)
            if wrong:
                self._stop(f"the header is not the game agreed: {wrong}", index=0)
                return False
        w = self.welcome
        if w is None:
            # A header before the offer (lost, or from a connection never proven) is not
            # checked against anything: wait for the offer; the host sends the header again.
            LOG.debug("a header before the offer: ignored")
            return False
        if (
            h.game_id != w.game_id
            or h.players != w.players
            or h.gods != w.gods
            or header_pool(h) != w.pool
            or h.move_ms != w.move_ms
            or h.bank_ms != w.bank_ms
            or keys[0] != w.host_key
        ):
            self._stop("the header does not match the game offered", index=0)
            return False
        for seat in h.seats:
            if seat.public_key == self.identity.public_key:
                continue
            try:
                self._known.check(seat.name, seat.public_key)
            except ChangedKeyError as e:
                self._send(
                    HOST_ID,
                    sign_refuse(self.identity, e.refusal(self.identity.name), self._host_challenge),
                )
                self._stop(str(e), index=0, notify=False)
                return False
        self._game_id = h.game_id
        self._save_note()
        self.journal = self.store.create_journal(self._game_id, raw, fresh=True)
        names = ", ".join(f"{s.name} ({fingerprint(s.public_key)})" for s in h.seats)
        self._say(f"The game starts: {names}.")
        return True

    def _accept(self, peer: bytes, raw: bytes) -> bool:
        """Check and journal the next record from a peer; stop the game if it is bad."""
        assert self.journal is not None
        v = self.journal.validator
        index = v.next_seq
        h = v.header
        racing = h is not None and bool({"chat", "takeback"} & set(h.options))
        if racing and not self.is_host and v.record(-1).signer == self.identity.public_key:
            # Where this peer's own last records begin, among those that can race: after the
            # reveals (a peer's own reveal just before its chat line is no lost race).
            first = 2 * len(v.seats) + 1
            own = v.next_seq
            while own > first and v.record(own - 1).signer == self.identity.public_key:
                own -= 1
            if _prev_of(raw) != v.last_hash and own < v.next_seq:
                # The host's chain goes on from a record that took the place of one of this
                # peer's own (a lost race), and that record has not come yet: ask for the
                # host's records from where this peer's own begin (section 4, 5).
                self._send(HOST_ID, Status(own, self.move_clock_ms()))
                return False
        lost = racing and self.is_host and any(p.lost_at >= 0 for p in self._peers.values())
        if lost and _prev_of(raw) != v.last_hash:
            # Chained on a record that lost a race here (a chat line, a takeback offer):
            # its writer takes them back when it gets the host's records (SESSION.md 5).
            LOG.info("dropped record %d: it follows a record that lost its place", index)
            state = self._peers.get(peer)
            if state is not None:
                state.have = min(state.have, index)
                self._send_missing(peer, state)
            return False
        fault = bound_fault(v, raw)
        if fault:
            self._over_bounds(peer, index, fault, raw)
            return False
        if not self._claim_is_due(raw):
            return False
        try:
            # Another's record: written, fsynced with this peer's next fsynced one (SESSION.md 8).
            rec = self.journal.append(raw)
        except ReplayError as e:
            cause = e.__cause__
            if isinstance(cause, DesyncError):
                theirs = _claimed_hash(raw)
                pair = (cause.expected, cause.actual)
                mine = pair[1] if pair[0] == theirs else pair[0]
                self._stop(
                    f"desync at record {index}: {e.reason}",
                    index=index,
                    mine=mine,
                    theirs=theirs,
                    offending=raw,
                )
            else:
                kind = type(cause).__name__ if cause else "ReplayError"
                self._stop(
                    f"refused record {index} ({kind}): {e.reason}", index=index, offending=raw
                )
            return False
        self._observe(rec)
        self._due.reached(self.journal.validator, own=False)
        if not isinstance(rec.message, Chat):  # a chat line moves no clock (SESSION.md 7)
            self._last_record_ms = self._now()
        if self.is_host:
            self._broadcast(rec.index, raw, skip=peer)
        self._note_takeback(rec)
        self._note_chat(rec)
        self._note_secret(rec)
        return True

    def _over_bounds(self, peer: bytes, index: int, fault: str, raw: bytes) -> None:
        """A record beyond the bounds on chat and offers (SESSION.md 5): a protocol error.

        The host orders the log, so it drops the record (its writer takes it back, as after
        a lost race) and the game goes on without it; a joiner was sent it by the host, whose
        log it would then follow, and stops.
        """
        if not self.is_host:
            self._stop(f"{fault} (SESSION.md 5)", index=index, offending=raw)
            return
        self.dropped += 1
        state = self._peers.get(peer)
        LOG.warning("dropped record %d from %s: %s", index, state.name if state else "?", fault)
        if state is None:
            return
        if state.slot not in self._flooded:
            self._flooded.add(state.slot)
            self._say(f"{fault}: dropped, and the game goes on without it.", NoteKind.WARNING)
        state.have = min(state.have, index)
        state.lost_at = index
        self._send_missing(peer, state)

    def _conflict(self, peer: bytes, state: PeerState, rf: RecordFrame) -> None:
        """A different record at a number already held: a lost race, or equivocation."""
        assert self.journal is not None
        v = self.journal.validator
        if self.is_host:
            LOG.info("dropped record %d from %s: that number is taken", rf.index, state.name)
            # The peer holds another record there: send it the host's from that number on.
            state.have = min(state.have, rf.index)
            state.lost_at = rf.index
            self._send_missing(peer, state)
            return
        mine = v.records_since(rf.index)
        # The host orders the log: a record of this peer's that lost a race to another record
        # with that number (a timeout claim against a late mover) is taken back.
        if all(r.signer == self.identity.public_key for r in mine):
            acts = [r.message for r in mine if isinstance(r.message, Act)]
            self._take_back(rf.index)
            if self._accept(peer, rf.envelope):
                self._redo_act(acts, rf.envelope)
            self._advance()
            return
        self._stop(
            f"the host sent a different record {rf.index} than before (equivocation)",
            index=rf.index,
            offending=rf.envelope,
        )

    def _redo_act(self, acts: list[Act], raw: bytes) -> None:
        """Sign again this peer's act that lost its place to another's chat line only.

        A chat line changes nothing in the game, so the move is played as it was, at the next
        number: a player never sees a move undone by someone's chat.
        """
        v = self.validator
        last = v.record(-1).message if v is not None and v.next_seq else None
        if not acts or v is None:
            return
        act = acts[0]
        if isinstance(last, Chat) and self.awaiting is not None:
            try:
                self._write(v.make_act(self.identity, act.action, act.clock_ms))
                return
            except (SantoriniError, ValueError) as e:
                LOG.info("the act taken back is not played again: %s", e)
        self._say(
            f"Your move {act.action} was not played: another record came first.",
            NoteKind.WARNING,
        )

    def _take_back(self, index: int) -> None:
        """Drop this peer's own unconfirmed records from ``index`` (it lost a race)."""
        assert self.journal is not None
        dropped = self.journal.validator.records_since(index)
        # A chat line of this peer's that lost its place is said again after the host's.
        self._chat_out[:0] = [r.message.text for r in dropped if isinstance(r.message, Chat)]
        if any(isinstance(r.message, Offer) and r.message.kind == "takeback" for r in dropped):
            self._say("Too late to take back your turn: the game went on first.", NoteKind.WARNING)
        quiet = all(isinstance(r.message, Chat | Act | Offer) for r in dropped)
        keep = [r.raw for r in self.journal.validator.records[:index]]
        self.journal = self.store.rewrite_journal(self.journal, keep)
        self._due.taken_back(self.journal.validator)
        self._announced = min(self._announced, index)
        if not quiet:  # a move, a chat line, a takeback request say so themselves
            self._say(f"Record {index} was superseded by the host's; taken back.", NoteKind.WARNING)

    def _broadcast(self, index: int, raw: bytes, skip: bytes | None = None) -> None:
        frame = RecordFrame(index, raw)
        for peer_id, p in self._peers.items():
            if peer_id == skip or (self.is_host and p.slot is None):
                continue
            p.last_resend_ms = self._now()
            self._send(peer_id, frame)
        if self.gallery is not None:
            self.gallery.relay(index, raw)
        if self.on_record_out is not None:
            self.on_record_out()

    def _send_missing(self, peer: bytes, p: PeerState) -> None:
        """Send (again) the records ``peer`` is not known to hold, a batch at a time."""
        v = self.validator
        if v is None or p.have >= v.next_seq:
            return
        p.last_resend_ms = self._now()
        for rec in self.records_between(p.have, p.have + BATCH):
            self._send(peer, RecordFrame(rec.index, rec.raw))

    def _ack_to(self, peer: bytes) -> None:
        self._send(peer, self._status())

    def _status(self) -> Status:
        """A status: the records held, and the clock of the move due as read here."""
        return Status(self._count(), self.move_clock_ms())

    def _own_refused(self, e: ReplayError, raw: bytes) -> None:
        """The log refused a record this peer made: its engine and log disagree. Stop."""
        cause = e.__cause__
        index = self._count()
        if isinstance(cause, DesyncError):
            theirs = _claimed_hash(raw)
            pair = (cause.expected, cause.actual)
            mine = pair[1] if pair[0] == theirs else pair[0]
            reason = f"desync at record {index}: this peer's own record: {e.reason}"
            self._stop(reason, index=index, mine=mine, theirs=theirs, offending=raw)
            return
        reason = f"refused record {index}: this peer's own record: {e.reason}"
        self._stop(reason, index=index, offending=raw)
