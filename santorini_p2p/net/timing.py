"""The clocks of a network game: the move clock, what a status reads, timeout claims (SESSION.md 7).

A mover signs its own timeout; a silent mover is claimed by the first other seat once this
peer has seen its time run out plus the grace; and every claim another seat makes is judged
against this peer's own clock by one rule (``net.moveclock.DueTimes``) before it is accepted.
"""

from __future__ import annotations

from santorini_p2p.errors import (
    WireError,
)
from santorini_p2p.net.clock import is_flagged, read_clock
from santorini_p2p.net.sessionbase import (
    ABANDON_MS,
    GRACE_MS,
    HOST_ID,
    OWED_MS,
    SLACK_MS,
    SessionBase,
)
from santorini_p2p.net.views import NoteKind, SeatClock
from santorini_p2p.wire.log import (
    Record,
    Validator,
    open_envelope,
    verify_envelope,
)
from santorini_p2p.wire.messages import (
    Act,
    Forfeit,
    Timeout,
)


class Timing(SessionBase):
    """The clocks of a network game and the timeout claims (SESSION.md 7)."""

    def _resume_move_clock(self, written_ms: int) -> None:
        """A resumed peer: start the due move's clock when the journal was last written.

        The last record came in (and was journaled) when the move became due at every peer;
        the time since then, by this machine's wall clock, is what the others' clocks show
        elapsed, so a resumed peer shows the same clock as the others (SESSION.md 7). The host
        and a joiner count alike: a joiner that moves while the host is down and back keeps
        its own clock running, and the host's, counted from its journal, reads the same.
        """
        v = self.validator
        tc = self.time_control()
        if v is None or v.position is None or v.is_over or v.pending_acks or tc is None:
            return
        since = self.sources.wall_ms() - written_ms
        limit = tc.move_ms + v.clocks[v.position.to_move]
        self._clock.key = v.lockstep_count
        self._clock.started = self._now() - max(0, min(since, limit))
        self._journal_clock = True

    def clocks(self) -> tuple[SeatClock, ...]:
        """Each seat's clock read now, in seat order (empty when untimed or before the draw)."""
        v = self.validator
        tc = self.time_control()
        if v is None or v.position is None or tc is None:
            return ()
        p = v.position
        running = p.winner < 0 and not v.pending_acks and not self.stopped
        flagged = self._flagged_seat()
        out = []
        start = self._clock.started
        if self._shown_start is not None and self._shown_start[0] == self._clock.key:
            start = self._shown_start[1]
        for seat, bank in enumerate(v.clocks):
            if running and seat == p.to_move:
                move_left, bank_left = read_clock(tc, bank, self._now() - start)
                out.append(SeatClock(move_left, bank_left, True))
            elif seat == flagged:
                out.append(SeatClock(0, 0, False))  # its time ran out: it shows none left
            else:
                out.append(SeatClock(tc.move_ms, bank, False))
        return tuple(out)

    def move_clock_ms(self) -> int:
        """How long the move due now has run by this peer's clock (0 when no move's clock runs).

        What a status frame carries (SESSION.md 7): a reconnected joiner and the spectators
        show the host's clock from it.
        """
        v = self.validator
        if v is None or v.position is None or v.is_over or v.pending_acks or self.stopped:
            return 0
        if self.time_control() is None:
            return 0
        self._track_move()  # the move due now (a chat line changes none)
        return max(0, self._now() - self._clock.started)

    def _flagged_seat(self) -> int | None:
        """The seat a timeout record ended the game for, if the game ended on time."""
        v = self.validator
        if v is None or v.result is None or v.result[1] != "time":
            return None
        for i in range(v.next_seq - 1, -1, -1):
            m = v.record(i).message
            if isinstance(m, Timeout):
                return m.seat
        return None

    def _sync_shown_clock(self, clock_ms: int) -> None:
        """A reconnected joiner shows the move's clock as the host reads it (SESSION.md 7).

        Display only: a timeout is still claimed and checked by this peer's own observation.
        """
        self._clock_sync = False
        v = self.validator
        if v is None or v.position is None or v.is_over or v.pending_acks or self._own_move():
            return
        self._track_move()
        self._shown_start = (self._clock.key, self._now() - clock_ms)

    def _claim_is_due(self, raw: bytes) -> bool:
        """Check a timeout claim against this peer's own clock before accepting it (SESSION.md 7).

        Returns whether the record may go on to the log's checks: anything but a timeout
        claimed by another seat, or a claim this peer's clock bears out within the grace
        (``GRACE_MS``: what network delay can account for), or one it could not watch (it
        resumed, or reconnected, since the move was due). A claim made earlier stops the
        game with a report, and this peer never signs its result.
        """
        v = self.validator
        p = v.position if v is not None else None
        if v is None or p is None or v.is_over:
            return True
        try:
            env = open_envelope(raw)
            if env.body[1:2] not in (bytes([Timeout.TYPE]), bytes([Forfeit.TYPE])):
                return True
            _, msg = verify_envelope(raw)
        except WireError:
            return True  # the log's checks refuse it, with their own reason
        if isinstance(msg, Forfeit) and msg.seq == v.next_seq and msg.prev == v.last_hash:
            return self._forfeit_is_due(raw, v, env.signer, msg)
        if not isinstance(msg, Timeout) or msg.seq != v.next_seq or msg.prev != v.last_hash:
            return True
        claimer = v.seat_of(env.signer)
        if claimer is None or claimer == msg.seat or not 0 <= msg.seat < p.players:
            return True  # a seat that concedes on time, or a record the log refuses
        tc = self.time_control()
        need = tc.move_ms + v.clocks[msg.seat] if tc is not None else ABANDON_MS
        # The same rule at every moment of the game: the time since this peer's log reached
        # the position before the claim (``DueTimes``: after a silence from the host, or a
        # resume, that time includes what may have passed unseen), plus the grace.
        seen = self._due.since(v)
        if seen + GRACE_MS >= need:
            return True
        names = v.names
        self._stop(
            f"premature timeout claim at record {v.next_seq}: {names[claimer]} says "
            f"{names[msg.seat]} ran out of time, but by this peer's clock "
            f"{names[msg.seat]} has had {seen} ms of {need} ms (grace {GRACE_MS} ms)",
            index=v.next_seq,
            offending=raw,
        )
        return False

    def _forfeit_is_due(self, raw: bytes, v: Validator, signer: bytes, msg: Forfeit) -> bool:
        """A forfeit claimed by another seat in a secret game, judged as a timeout claim is.

        The seat it names must have owed its record for ``OWED_MS`` by this peer's clock too,
        within the grace; a claim made earlier stops the game with a report.
        """
        claimer = v.seat_of(signer)
        if claimer is None or v.secret is None or msg.late not in v.pending_acks:
            return True  # the log's checks refuse it, with their own reason
        seen = self._due.since(v)
        if seen + GRACE_MS >= OWED_MS:
            return True
        names = v.names
        self._stop(
            f"premature forfeit claim at record {v.next_seq}: {names[claimer]} says "
            f"{names[msg.late]} withheld a record, but by this peer's clock it has owed it "
            f"{seen} ms of {OWED_MS} ms (grace {GRACE_MS} ms)",
            index=v.next_seq,
            offending=raw,
        )
        return False

    def _check_abandoned(self, now: int) -> None:
        """Untimed games: the host claims a seat to move whose peer is gone for ABANDON_MS."""
        v = self.validator
        if not self.is_host or v is None or v.position is None or v.is_over:
            return
        if self.time_control() is not None or v.header is None:
            return
        if v.secret is not None and v.pending_acks:
            return  # a record owed in a secret game: its forfeit is claimed (net.secretseat)
        key = v.seats[v.position.to_move]
        if key == self.identity.public_key:
            return
        slot = [s.public_key for s in v.header.seats].index(key)
        peers = [p for p in self._peers.values() if p.slot == slot]
        if any(p.connected for p in peers):
            return
        last = max([p.last_heard_ms for p in peers], default=self._started_ms)
        if now - max(last, self._last_record_ms) < ABANDON_MS:
            return
        name = v.names[v.position.to_move]
        self._say(f"{name} is gone: the game is claimed as abandoned.", NoteKind.WARNING)
        self._write(v.make_timeout(self.identity))
        self._advance()

    def _check_clocks(self, now: int) -> None:
        v = self.validator
        tc = self.time_control()
        if tc is None:
            self._check_abandoned(now)
            return
        if v is None or v.position is None or v.is_over:
            return
        p = v.position
        bank = v.clocks[p.to_move]
        mine = v.seat_of(self.identity.public_key)
        if v.secret is not None and v.pending_acks:
            return  # a record owed in a secret game: its forfeit is claimed (net.secretseat)
        if v.pending_acks:
            # The seat to move that does not even acknowledge is as silent as one that does
            # not move: its time is counted from the last record (SESSION.md section 7).
            if p.to_move not in v.pending_acks or mine == p.to_move:
                return
            elapsed = now - self._last_record_ms
        else:
            self._track_move()
            elapsed = now - self._clock.started
        if not self.is_host and not self._peers[HOST_ID].connected:
            return
        if mine == p.to_move:
            if is_flagged(tc, bank, elapsed):
                self._say("Your time is up.", NoteKind.LOSS)
                self._write(v.make_timeout(self.identity))
                self._advance()
            return
        if elapsed <= tc.move_ms + bank + GRACE_MS or mine is None:
            return
        active = [
            s
            for s in range(p.players)
            if s != p.to_move and not (p.players == 3 and p.eliminated >> s & 1)
        ]
        if active and active[0] == mine:
            self._say(f"{v.names[p.to_move]} ran out of time: claiming the game.", NoteKind.WARNING)
            self._write(v.make_timeout(self.identity))
            self._advance()

    def _track_move(self) -> None:
        """Restart the move clock when a new move becomes due (``MoveClock``)."""
        self._clock.track(self.validator)

    def _observe(self, rec: Record) -> None:
        """Check a peer's clock reading against what this peer observed (SESSION.md 5)."""
        if not isinstance(rec.message, Act) or self.time_control() is None:
            return
        observed = self._now() - self._clock.started
        claimed = rec.message.clock_ms
        if observed - claimed > SLACK_MS and self._warned_move != rec.index:
            self._warned_move = rec.index
            who = self.validator.names[rec.seat] if self.validator and rec.seat is not None else "?"
            self._say(
                f"{who} reports the move took {claimed / 1000:.1f} s, but "
                f"{observed / 1000:.1f} s passed here since it was due: their clock counted "
                "less (a reconnection or a slow link); their reading is the one recorded.",
                NoteKind.WARNING,
            )
