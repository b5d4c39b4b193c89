"""The lockstep session: a sans-I/O state machine over the signed log (protocol/SESSION.md).

Feed it frames with :meth:`Session.receive`, let time pass with :meth:`Session.tick`, give it
the local player's actions with :meth:`Session.submit`, and send what :meth:`Session.outgoing`
returns. It never touches a socket, so tests drive two or more sessions over an in-memory link
that drops, duplicates, delays and reorders frames; its files (journal, note, stop report) are
kept by a ``net.store.GameStore``.

A connection counts only once it proves a seated key with nonces fresh for it (the handshake
of SESSION.md 3); stop and refuse frames are signed over the receiver's nonce; anything else
from a connection with no proven seat is dropped and counted (``dropped``).

The log is the game: every record goes through ``wire.log``'s validator (signature over the
exact bytes, chain, the signer's right to it, legality, state hash) and is appended to the
journal before it is sent (fsynced first when it is this peer's own, but for an ack or a
result: SESSION.md 8). Records have numbers, so acknowledgement and resending are a matter
of counting: each peer says how many records it holds (``Status``), and whoever holds more
sends the rest again; a record already held is ignored if it is the same bytes. The host
relays every record to every other peer; it cannot forge one.

Who writes the next record is fixed by the log (``Validator.expected_signers``); of several
allowed signers the first writes first, so two peers never race for one record number, except
for a timeout claim against a silent mover, which the host orders (a peer whose unconfirmed
own record lost that race takes it back). Anything wrong stops the game on every peer, with a
report.

``Session`` is made of one part per sub-protocol, each a class over ``net.sessionbase``: the
handshake and proofs (``net.handshake``), acknowledgement, resending and races
(``net.logsync``), clocks and timeout claims (``net.timing``, over ``net.moveclock``), the
asks and answers of a choice in another seat's turn (``net.choosing``), secret gods
(``net.secretseat``), the host's spectators (``net.watched``, over ``net.gallery``), takeback
and chat requests (``net.requests``, bounded by ``net.bounds``), and notes, stops and the note
file (``net.reporting``). This module builds sessions and runs them: construction and resume,
the frames in, time passing, and the records this peer writes.
"""

from __future__ import annotations

import logging
from collections.abc import Callable
from pathlib import Path

from santorini_p2p.engine import (
    Action,
    Turn,
)
from santorini_p2p.errors import (
    IllegalTurnError,
    ReplayError,
    StorageError,
    WireError,
)
from santorini_p2p.net.choosing import Choosing
from santorini_p2p.net.clock import is_flagged
from santorini_p2p.net.frames import (
    Audience,
    Challenge,
    Cheer,
    Frame,
    Hello,
    Proof,
    Proven,
    RecordFrame,
    Refuse,
    Refused,
    Status,
    Stop,
    Welcome,
    Who,
    decode_frame,
)
from santorini_p2p.net.gallery import Gallery
from santorini_p2p.net.handshake import KNOWN_GODS, Handshake
from santorini_p2p.net.logsync import LogSync
from santorini_p2p.net.reporting import Reporting
from santorini_p2p.net.requests import Requests
from santorini_p2p.net.secretseat import SecretSeat
from santorini_p2p.net.sessionbase import (
    ABANDON_MS,
    DISCONNECT_MS,
    GRACE_MS,
    HOST_ID,
    RESEND_MS,
    GameSettings,
    PeerState,
    ProvenLink,
    SessionError,
    Sources,
    header_pool,
)
from santorini_p2p.net.store import (
    GameStore,
    NoteError,
    game_dir,
    mark_saved,
    read_note,
    unfinished_games,
    unsaved_games,
)
from santorini_p2p.net.timing import Timing
from santorini_p2p.net.trust import KnownPeers
from santorini_p2p.net.views import Note, NoteKind, SeatClock
from santorini_p2p.net.watched import Watched
from santorini_p2p.wire.identity import Identity, fingerprint
from santorini_p2p.wire.messages import (
    Ack,
    Chat,
    Resign,
    Result,
)

__all__ = [
    "ABANDON_MS",
    "DISCONNECT_MS",
    "GRACE_MS",
    "HOST_ID",
    "KNOWN_GODS",
    "RESEND_MS",
    "GameSettings",
    "Note",
    "NoteKind",
    "ProvenLink",
    "SeatClock",
    "Session",
    "SessionError",
    "Sources",
    "game_dir",
    "header_pool",
    "mark_saved",
    "unfinished_games",
    "unsaved_games",
]

LOG = logging.getLogger(__name__)


class Session(Choosing, SecretSeat, Watched, Handshake, LogSync, Timing, Requests, Reporting):
    """One peer's side of a network game; see the module docstring.

    Build one with :meth:`host`, :meth:`join` or :meth:`resume`. ``now`` is a monotonic clock
    in milliseconds. ``on_change`` is called after anything visible changed.
    """

    def __init__(
        self,
        identity: Identity,
        *,
        is_host: bool,
        home: Path,
        now: Callable[[], int],
        known: KnownPeers,
        settings: GameSettings | None = None,
        address: str = "",
        store: GameStore | None = None,
        sources: Sources | None = None,
    ) -> None:
        super().__init__(
            identity,
            is_host=is_host,
            home=home,
            now=now,
            known=known,
            settings=settings,
            address=address,
            store=store,
            sources=sources,
        )
        self.gallery = Gallery(self, now, self._say) if is_host else None
        if not is_host:
            self._new_round()

    @classmethod
    def host(
        cls,
        identity: Identity,
        settings: GameSettings,
        *,
        home: Path,
        now: Callable[[], int],
        known: KnownPeers | None = None,
        sources: Sources | None = None,
        game_id: bytes | None = None,
        address: str = "",
        nonce: bytes | None = None,
        created_ms: int | None = None,
        seats: tuple[tuple[bytes, str], ...] = (),
    ) -> Session:
        """Return a host session offering a new game with ``settings``.

        ``game_id`` and ``nonce`` (the commit-reveal secret) default to fresh random bytes and
        ``created_ms``, the header's date (Unix ms), to the wall clock now; tests pass fixed
        ones to be reproducible. ``seats`` (a rematch, ``net.rematch``) reserves every slot for
        one identity, ``(public key, name)`` in slot order, the host's first: only those keys
        are seated, each in its own slot, whatever the order they come back in.
        """
        s = cls(
            identity,
            is_host=True,
            home=home,
            now=now,
            known=known or KnownPeers(home),
            sources=sources,
            settings=settings,
            address=address,
        )
        s._game_id = game_id or s.sources.entropy(16)
        s._nonce = nonce or s.sources.entropy(32)
        s._created_ms = s.sources.wall_ms() if created_ms is None else created_ms
        if seats:
            s._lobby.seats = [(k, n, b"") for k, n in seats]
            s._lobby.reserved = True
        else:
            s._lobby.seats.append((identity.public_key, identity.name, b""))
        s._save_note()
        s._say(f"Offering a {settings.players}-player game; waiting for players.")
        return s

    @classmethod
    def join(
        cls,
        identity: Identity,
        *,
        home: Path,
        now: Callable[[], int],
        known: KnownPeers | None = None,
        sources: Sources | None = None,
        address: str = "",
        nonce: bytes | None = None,
    ) -> Session:
        """Return a joining session; it says hello to the host on the first tick.

        ``nonce`` (the commit-reveal secret) defaults to fresh random bytes.
        """
        s = cls(
            identity,
            is_host=False,
            home=home,
            now=now,
            known=known or KnownPeers(home),
            sources=sources,
            address=address,
        )
        s._nonce = nonce or s.sources.entropy(32)
        s._say(f"Joining the game at {address or 'the host'}; waiting for the host to answer.")
        return s

    @classmethod
    def resume(
        cls,
        identity: Identity,
        journal_path: Path,
        *,
        home: Path,
        now: Callable[[], int],
        known: KnownPeers | None = None,
        sources: Sources | None = None,
    ) -> Session:
        """Return the session of an unfinished game, from its journal and note file.

        Raises:
            SessionError: the note file is missing or this identity holds no seat.
            ReplayError: the journal does not verify.
        """
        try:  # before opening: opening the journal may write to it
            written_ms: int | None = journal_path.stat().st_mtime_ns // 1_000_000
        except OSError:
            written_ms = None
        try:
            note = read_note(journal_path)
        except NoteError as e:
            raise SessionError(str(e)) from None
        store = GameStore(home)
        journal = store.open_journal(journal_path)
        v = journal.validator
        header = v.header
        if header is None or identity.public_key not in [s.public_key for s in header.seats]:
            journal.close()
            held = header.seats if header is not None else ()
            seats = ", ".join(f"{s.name} ({fingerprint(s.public_key)})" for s in held)
            raise SessionError(
                f"{journal_path}: this player, {identity.name} ({identity.fingerprint}), holds "
                f"no seat in that game; its seats are {seats} (a journal copied from another "
                "player's home resumes only with that player's key)"
            )
        is_host = header.seats[0].public_key == identity.public_key
        s = cls(
            identity,
            is_host=is_host,
            home=home,
            now=now,
            known=known or KnownPeers(home),
            sources=sources,
            address=str(note.get("address", "")),
            store=store,
        )
        s.journal = journal
        s._game_id = header.game_id
        if not is_host:
            s._peers[HOST_ID].name = header.seats[0].name
        s._nonce = bytes.fromhex(str(note["nonce"]))
        s.save_to = str(note.get("save", ""))
        s.saved = bool(note.get("saved", False))
        s.settled = bool(note.get("settled", True))
        series = note.get("series", 1)
        s.series = series if isinstance(series, int) and series >= 1 else 1
        s._announced = v.next_seq
        # The last position was reached when the journal was last written (a record is
        # journaled as it comes): a claim after the resume is judged from then.
        ago = 0 if written_ms is None else s.sources.wall_ms() - written_ms
        s._due.resumed(v, ago, behind=not is_host)
        s._acks_first = True
        if written_ms is not None:
            # Host or joiner alike: the move due has run since the log reached its position.
            s._resume_move_clock(written_ms)
        s._say(f"Resumed the game from {journal_path.name} at record {v.next_seq}.")
        s._advance()
        return s

    @property
    def is_settled(self) -> bool:
        """Whether the game is complete and every peer is known to hold every record."""
        if not self.is_complete:
            return False
        n = self._count()
        if self.is_host:
            # Every other seat, not merely every connection known: a host resumed after the
            # end knows none at first, and is there to give them what they lack.
            v = self.validator
            players = v.header.players if v is not None and v.header is not None else 0
            held = {p.slot for p in self._peers.values() if p.slot is not None and p.have >= n}
            return all(slot in held for slot in range(1, players))
        return all(p.have >= n for p in self._peers.values())

    @property
    def awaiting(self) -> int | None:
        """The local seat whose action is wanted now, or None."""
        v = self.validator
        if self.stopped or v is None or v.position is None or v.is_over or v.pending_acks:
            return None
        if v.secret is not None and not v.secret.dealt:
            return None
        if self._resign_requested or self._plan is not None or v.open_ask is not None:
            return None
        seat = v.seat_of(self.identity.public_key)
        if seat is None or v.position.to_move != seat:
            return None
        return seat

    def seat_names(self) -> tuple[str, ...]:
        """Display names in seat order (header order before the draw)."""
        v = self.validator
        return v.names if v else tuple(n for _, n, _ in self._lobby.seats)

    def seat_keys(self) -> tuple[bytes, ...]:
        """Public keys in seat order (header order before the draw)."""
        v = self.validator
        return v.seats if v else tuple(k for k, _, _ in self._lobby.seats)

    @property
    def peers_hold_all(self) -> bool:
        """Whether every connected peer is known to hold every record this peer holds."""
        n = self._count()
        return all(
            p.have >= n
            for p in self._peers.values()
            if p.connected and (p.slot is not None or not self.is_host)
        )

    def is_connected(self, public_key: bytes) -> bool:
        """Whether the peer holding ``public_key`` is heard from (always True for oneself)."""
        if public_key == self.identity.public_key:
            return True
        if not self.is_host:
            return self._peers[HOST_ID].connected
        v = self.validator
        if v is None or v.header is None:
            return True
        slot = [s.public_key for s in v.header.seats].index(public_key)
        return any(p.slot == slot and p.connected for p in self._peers.values())

    def outgoing(self, *, spectators: bool = True) -> list[tuple[bytes, bytes]]:
        """Return and forget the frames to send, as ``(peer id, frame bytes)``.

        The players' frames come first, then the spectators'; with ``spectators`` false the
        spectators' wait for the next call (a record on its way to a player goes out alone).
        """
        out, self._out = self._out, []
        if self.gallery is not None and spectators:
            out.extend(self.gallery.outgoing())
        return out

    def listen(self, listener: Callable[[], None]) -> Callable[[], None]:
        """Call ``listener`` after every visible change; return the function that stops it."""
        return self._listeners.add(listener)

    def submit(self, action: Action) -> None:
        """Play ``action`` for the local seat: sign it, journal it, send it.

        Raises:
            IllegalTurnError: no local action is awaited or the action is not legal.
        """
        seat = self.awaiting
        v = self.validator
        if seat is None or v is None or v.position is None:
            raise IllegalTurnError("no action of this player is awaited now")
        elapsed = max(0, self._now() - self._clock.started)
        tc = self.time_control()
        planned = None
        if isinstance(action, Turn) and not (
            tc is not None and is_flagged(tc, v.clocks[seat], elapsed)
        ):
            planned = self._go_on_from(v.position, action)
        if planned is not None:
            # Other seats choose in this turn: ask them one by one, then act (SPEC.md 8.4).
            self._plan = planned
        elif tc is not None and is_flagged(tc, v.clocks[seat], elapsed):
            self._write(v.make_timeout(self.identity))
        else:
            opening = self._open_for(v, action)
            if opening is not None:  # a hidden god's power: its opening comes first
                self._write(opening)
                if self.stopped is not None or v.is_over:
                    self._advance()
                    return
            # make_act checks the action and keeps the position after it, which the journal's
            # check of the record then reuses: one engine pass on the way out.
            try:
                raw = v.make_act(self.identity, action, elapsed)
            except IllegalTurnError:
                raise
            except (ValueError, IndexError, KeyError) as e:
                raise IllegalTurnError(f"illegal action: {action!r}") from e
            self._write(raw)
        self._advance()

    def resign(self) -> None:
        """Resign the local seat at its next chance to sign (at once if it is to move).

        Raises:
            IllegalTurnError: the game is not in play or is over.
        """
        v = self.validator
        if v is None or v.position is None or v.is_over or self.stopped:
            raise IllegalTurnError("there is no game in play to resign")
        seat = v.seat_of(self.identity.public_key)
        g = v.secret
        out = (g.left | g.position.eliminated) if g is not None else 0
        if seat is not None and out >> seat & 1:
            raise IllegalTurnError("you are out of the game: there is nothing to resign")
        self._resign_requested = True
        self._say("You resign; waiting for your turn to sign it.", NoteKind.WARNING)
        self._advance()

    def close(self) -> None:
        """Close the journal (it stays on disk); an offer that never started leaves no note."""
        if self.journal is not None:
            self.journal.close()
        elif self._game_id:
            self.store.drop_note(self._game_id)

    def receive(self, peer: bytes, data: bytes) -> None:
        """Handle one frame from ``peer``; never raises on bad input (it stops or ignores)."""
        now = self._now()
        try:
            frame = decode_frame(data)
        except WireError as e:
            # Anyone on the LAN can send bytes: counted, never acted on.
            self.dropped += 1
            self.last_dropped = f"a malformed frame: {e}"
            LOG.debug("dropped a malformed frame from %s: %s", peer.hex()[:10], e)
            return
        if self.gallery is not None and self._for_gallery(peer, frame):
            self._changed()
            return
        state = self._peers.get(peer)
        if state is None:
            if not self.is_host:
                return
            state = self._peers[peer] = PeerState(last_heard_ms=now)
        if not self.is_host:
            self._due.heard(state.last_heard_ms)
        state.last_heard_ms = now
        if not state.connected:
            state.connected = True
            if state.name:
                self._say(f"{state.name} is connected again.")
            if not self.is_host and self._journal_clock:
                # Resumed: the move's clock comes from the journal, not from a time cut off.
                self._journal_clock = False
            elif not self.is_host and not self._own_move():
                # What this peer saw of the others' clocks while cut off proves nothing: start
                # afresh. Its own move's clock goes on: it knows how long it has thought. The
                # clock shown is the host's, from its next status (display only).
                self._clock.started = self._last_record_ms = now
                self._clock_sync = True
        try:
            self._handle(peer, state, frame)
        except StorageError as e:
            self._halt(e)
        except Exception as e:
            # The receive pump is an edge (STYLE.md 6): log, stop with a report, keep the journal.
            LOG.error("stopping after an error: %s: %s", type(e).__name__, e)
            LOG.debug("the error's traceback", exc_info=True)
            self._stop(f"internal error: {type(e).__name__}: {e}", index=self._count())
        self._changed()

    def _handle(self, peer: bytes, state: PeerState, frame: Frame) -> None:
        if self.is_host:
            self._handle_at_host(peer, state, frame)
            return
        match frame:
            case Challenge():
                self._on_challenge(frame)
            case Proven():
                self._on_proven(frame)
            case Welcome():
                self._on_welcome(frame)
            case Refuse():
                self._on_refuse(peer, state, frame)
            case RecordFrame():
                self._on_record(peer, state, frame)
            case Status():
                self._on_status(peer, state, frame)
            case Stop():
                self._on_stop(peer, state, frame)
            case Who():
                self._new_round()
                self._say_hello(self._now())
            case Cheer():
                self._on_cheer(peer, frame)
            case Refused():
                self._on_refused(peer, frame)
            case Audience():
                self._on_audience(peer, frame)
            case _:
                self._drop(peer, frame, "a joiner's frame sent to a joiner")

    def _handle_at_host(self, peer: bytes, state: PeerState, frame: Frame) -> None:
        """The host: only a connection that proved a seated key may change anything."""
        match frame:
            case Hello():
                self._on_hello(peer, state, frame)
                return
            case Proof():
                self._on_proof(peer, state, frame)
                return
        if state.slot is None or not state.proven:
            if isinstance(frame, RecordFrame | Status) and self.journal is not None:
                # A seated peer's new connection (or the host restarted): ask who it is.
                self._on_unknown(peer)
            else:
                self._drop(peer, frame, "its connection holds no proven seat")
            return
        match frame:
            case Refuse():
                self._on_refuse(peer, state, frame)
            case RecordFrame():
                self._on_record(peer, state, frame)
            case Status():
                self._on_status(peer, state, frame)
            case Stop():
                self._on_stop(peer, state, frame)
            case Refused():
                self._on_refused(peer, frame)
            case _:
                self._drop(peer, frame, "a host's frame sent to the host")

    def tick(self) -> None:
        """Let time pass: say hello, resend what peers lack, watch clocks and connections."""
        now = self._now()
        if not self.is_host and self.stopped is None:
            host = self._peers[HOST_ID]
            if (self.journal is None or not host.connected) and (
                now - self._hello_sent_ms >= RESEND_MS
            ):
                self._say_hello(now)
        for peer_id, p in list(self._peers.items()):
            # Once the game is complete and a peer holds it all, both stay quiet (below): its
            # silence then is no disconnection (the players may be voting on a rematch).
            quiet = self.is_complete and p.have >= self._count()
            if p.connected and not quiet and now - p.last_heard_ms > DISCONNECT_MS:
                p.connected = False
                if not self.is_host:
                    # The connection may be a new one by now: the host proves itself again.
                    self._new_round()
                if p.name or not self.is_host:
                    self._say(f"{p.name or 'The host'} is disconnected; waiting.", NoteKind.WARNING)
                    self._changed()
            if self.stopped is not None or (self.is_host and p.slot is None):
                continue
            if now - p.last_resend_ms >= RESEND_MS:
                self._send_missing(peer_id, p)
            # Once the game is complete and the peer holds it all, stay quiet: peers close
            # their sockets then, and a frame crossing a closing connection is wasted.
            settled = self.is_complete and p.have >= self._count()
            if now - p.last_sent_ms >= RESEND_MS and self.journal is not None and not settled:
                self._send(peer_id, self._status())
        if self.stopped is None:
            self._check_clocks(now)
            self._check_owed(now)
            if self.gallery is not None:
                self.gallery.tick()
        else:
            self._tell_again(now)
            if self.gallery is not None:
                self.gallery.tick_stopped()

    def _advance(self) -> None:
        """Write every record that is this peer's to write now (commit, reveal, ack, result)."""
        while self.journal is not None and self.stopped is None:
            v = self.journal.validator
            if v.is_complete:
                break
            # A takeback offer or acceptance is written out of the lockstep order, once every
            # ack is in (SPEC.md 8.2); the host's order settles a race with an act (section 5).
            took = self._choice_record(v) or self._takeback_record(v) or self._chat_record(v)
            if took is not None:
                self._write(took)
                continue
            if v.secret is not None and not v.is_over and v.pending_acks:
                # A secret game's deal step, ack or objection, or opening at the end.
                owed = self._secret_record(v)
                if owed is None:
                    break
                self._write(owed)
                continue
            signers = v.expected_signers()
            if not signers or signers[0] != self.identity.public_key:
                break
            h = v.header
            assert h is not None
            n = v.next_seq
            if n <= h.players:
                raw = v.make_commit(self.identity, self._nonce)
            elif n <= 2 * h.players:
                raw = v.make_reveal(self.identity, self._nonce)
            elif v.is_over:
                raw = v.make_result(self.identity)
            elif v.pending_acks:
                raw = (
                    v.make_resign(self.identity)
                    if self._resign_requested and not self._acks_first
                    else v.make_ack(self.identity)
                )
            elif self._resign_requested:
                raw = v.make_resign(self.identity)
            else:
                break
            self._write(raw)
        self._track_move()
        self._announce()

    def _write(self, raw: bytes) -> None:
        """Journal one of this peer's records (checked; fsynced but for an ack), then send it.

        A record the log refuses (this peer's engine disagreeing with itself) stops the game.
        """
        assert self.journal is not None
        try:
            rec = self.journal.append(raw, own=True)
        except ReplayError as e:
            self._own_refused(e, raw)
            return
        except StorageError as e:
            self._halt(e)
            return
        self._due.reached(self.journal.validator, own=True)
        if not isinstance(rec.message, Chat):  # a chat line moves no clock (SESSION.md 7)
            self._last_record_ms = self._now()
        self._written += 1
        if self._resign_requested and isinstance(rec.message, Resign):
            self._resign_requested = False
        if not isinstance(rec.message, Ack | Result):
            self._acks_first = False
        self._broadcast(rec.index, raw)
        self._note_takeback(rec)
        self._note_chat(rec)
        self._note_secret(rec)
        self._changed()
