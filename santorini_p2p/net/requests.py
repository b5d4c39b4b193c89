"""Takeback and chat requests: written when a player asks, not when the log says (SESSION.md 5).

A takeback offer, its accepts and a chat line race the lockstep; the host's order settles each
race, and ``net.bounds`` bounds them (a chat run per seat, the log's end kept for the result).
Spectators' lines relayed by the host are shown here too, never written.
"""

from __future__ import annotations

import logging

from santorini_p2p.errors import (
    IllegalTurnError,
)
from santorini_p2p.net.bounds import CHAT_RUN, END_RESERVE, may_request
from santorini_p2p.net.frames import (
    Audience,
    Cheer,
    Refused,
    sign_cheer,
    sign_refused,
)
from santorini_p2p.net.onlookers import audience_lines
from santorini_p2p.net.sessionbase import (
    HOST_ID,
    SessionBase,
    SessionError,
)
from santorini_p2p.net.views import Note, NoteKind
from santorini_p2p.wire.log import (
    Record,
    TakebackOffer,
    Validator,
)
from santorini_p2p.wire.messages import (
    Accept,
    Chat,
    Offer,
)
from santorini_p2p.wire.validator import check_chat

LOG = logging.getLogger(__name__)


class Requests(SessionBase):
    """Takeback and chat requests, written when a player asks (SESSION.md 5)."""

    def can_ask_takeback(self) -> bool:
        """Whether the local seat may ask now to take back its last turn."""
        v = self.validator
        if self.stopped or v is None or self._takeback_wanted:
            return False
        return v.can_ask_takeback(self.identity.public_key)

    def ask_takeback(self) -> None:
        """Ask the other seats to take back the local seat's last turn (an offer record).

        Asked before every seat has acknowledged the turn, the offer is written once they have.

        Raises:
            IllegalTurnError: the game does not allow takebacks, the last turn is not this
                seat's or someone has acted since, a request is already waiting, or the log
                keeps its last records for the game's end.
        """
        v = self.validator
        if v is None or v.header is None or "takeback" not in v.header.options:
            raise IllegalTurnError("this game allows no takebacks (the host turned them off)")
        if not self.can_ask_takeback():
            last = v.last_turn
            if v.takeback_offer is not None or self._takeback_wanted:
                raise IllegalTurnError("your takeback request is waiting for an answer")
            if last is None or last[0] != v.seat_of(self.identity.public_key):
                raise IllegalTurnError("there is no turn of yours to take back now")
            if not v.pending_acks:
                raise IllegalTurnError("there is no turn of yours to take back now")
            # Asked before every seat acknowledged the turn: the offer goes out once they have.
        if not may_request(v):
            raise IllegalTurnError(
                f"this game's log keeps its last {END_RESERVE} records for the game's end"
            )
        self._takeback_wanted = True
        self._advance()

    @property
    def takeback_asked(self) -> TakebackOffer | None:
        """The open takeback offer this player is asked to answer (not yet answered), or None."""
        v = self.validator
        o = v.takeback_offer if v is not None and not self.stopped else None
        seat = v.seat_of(self.identity.public_key) if v is not None else None
        if o is None or seat not in o.waiting or o.seq in (self._takeback_yes, self._takeback_no):
            return None
        return o

    def answer_takeback(self, accept: bool) -> None:
        """Accept (an accept record) or refuse (nothing is written) the open takeback offer.

        Raises:
            IllegalTurnError: no takeback offer awaits this player's answer.
        """
        o = self.takeback_asked
        if o is None:
            raise IllegalTurnError("no takeback request awaits your answer")
        if accept:
            self._takeback_yes = o.seq
            self._advance()
        else:
            self._takeback_no = o.seq
            self._say("You refuse the takeback; it lapses when you move.")
            self._tell_refusal(o.seq)
            self._changed()

    def _tell_refusal(self, index: int) -> None:
        """Tell the others this seat refuses the takeback offer at record ``index``.

        A refusal writes no record (SESSION.md 5): a signed ``Refused`` frame says it, which
        a joiner sends the host and the host sends every seated player and spectator.
        """
        frame = sign_refused(self.identity, self._game_id, index)
        self._refusals.read(self.validator, frame)  # told here already: never said twice
        if self.is_host:
            self._relay_refusal(frame, skip=None)
        else:
            self._send(HOST_ID, frame)

    def _relay_refusal(self, frame: Refused, skip: bytes | None) -> None:
        """The host: send a takeback refusal to every seated player and every spectator."""
        for pid, p in self._peers.items():
            if pid != skip and p.slot is not None and p.proven and p.connected:
                self._send(pid, frame)
        if self.gallery is not None:
            self.gallery.tell(frame)

    def _on_refused(self, peer: bytes, frame: Refused) -> None:
        """A seat refused a takeback: said once, and relayed by the host to everyone else."""
        state = self._peers.get(peer)
        if self.is_host and (state is None or frame.key != state.proven):
            self._drop(peer, frame, "a takeback refusal for another seat than the sender's")
            return
        try:
            said = self._refusals.read(self.validator, frame)
        except ValueError as e:
            self._drop(peer, frame, str(e))
            return
        if self.is_host:
            self._relay_refusal(frame, skip=peer)
        if said is not None:
            self._say(said, NoteKind.WARNING)

    def _on_audience(self, peer: bytes, frame: Audience) -> None:
        """The host's list of who watches: say who came and who left (SESSION.md 11)."""
        if not self._from_host(frame.signature, frame.is_signed_by):
            self._drop(peer, frame, "a list of spectators the host did not sign")
            return
        for line in audience_lines(self.audience, frame.names, frame.count, frame.most):
            self._say(line)
        self.audience = frame.names
        self.audience_count = (frame.count, frame.most)

    def _takeback_record(self, v: Validator) -> bytes | None:
        """The takeback offer or acceptance this peer is to write now, if any."""
        me = self.identity.public_key
        if not may_request(v):
            self._takeback_wanted = False
            return None
        if self._takeback_wanted:
            if v.can_ask_takeback(me):
                self._takeback_wanted = False
                return v.make_offer(self.identity, "takeback")
            last = v.last_turn
            if not v.pending_acks or last is None or last[0] != v.seat_of(me):
                self._takeback_wanted = False  # the turn can no longer be taken back
        o = v.takeback_offer
        if o is None or v.seat_of(me) not in o.waiting:
            return None
        if o.seq == self._takeback_yes or (self.takeback_answer and o.seq != self._takeback_no):
            return v.make_accept(self.identity)
        return None

    def _note_takeback(self, rec: Record) -> None:
        """Say what a record did to a takeback: asked, accepted, taken back, lapsed."""
        v = self.validator
        if v is None:
            return
        was, now = self._takeback_open, v.takeback_offer
        self._takeback_open = now
        msg = rec.message
        names = v.names
        me = v.seat_of(self.identity.public_key)
        for said in self._refusals.arrived(v):
            self._say(said, NoteKind.WARNING)
        if isinstance(msg, Offer) and now is not None and now.seq == rec.index:
            asker = names[now.seat]
            if now.seat == me:
                waiting = ", ".join(names[i] for i in now.waiting)
                self._say(f"You ask to take back {now.turn}; waiting for {waiting}.")
            elif me in now.waiting and self.takeback_answer is not None:
                answer = "accepts" if self.takeback_answer else "refuses"
                self._say(f"{asker} asks to take back {now.turn}; the computer {answer}.")
                if not self.takeback_answer:
                    self._tell_refusal(now.seq)
            elif me in now.waiting:
                self._say(
                    f"{asker} asks to take back {now.turn}: accept (y) / refuse (n)",
                    NoteKind.WARNING,
                )
            else:
                self._say(f"{asker} asks to take back {now.turn}.")
        elif isinstance(msg, Accept) and msg.kind == "takeback" and was is not None:
            who = "You" if was.seat == me else names[was.seat]
            if now is None:
                self._say(f"Taken back: {was.turn}. {who} to move again.", NoteKind.WARNING)
            elif rec.seat is not None:
                self._say(f"{names[rec.seat]} accepts the takeback.")
        elif was is not None and now is None:
            who = "Your" if was.seat == me else f"{names[was.seat]}'s"
            self._say(f"{who} takeback of {was.turn} lapsed: the game went on.")

    @property
    def can_chat(self) -> bool:
        """Whether this game takes chat lines now (the host allows chat, the game is on)."""
        v = self.validator
        return self.stopped is None and v is not None and v.can_chat() and not v.is_complete

    def say(self, text: str) -> None:
        """Say ``text`` to the other players: a signed chat record, written at once.

        Raises:
            SessionError: the game takes no chat now, or the line is empty, longer than 200
                characters or holds a control character (the message says which).
        """
        v = self.validator
        if v is None or v.header is None or "chat" not in v.header.options:
            raise SessionError("this game has no chat (the host turned it off)")
        if not self.can_chat:
            raise SessionError("chat: the game is not in play")
        if not may_request(v):
            raise SessionError(
                f"chat: this game's log keeps its last {END_RESERVE} records for the game's end"
            )
        try:
            check_chat(text.strip(" "))
        except ValueError as e:
            raise SessionError(str(e)) from None
        line = text.strip(" ")
        self._chat_out.append(line)
        # Shown when said; the record follows as soon as this peer may write it.
        name = v.names[v.seat_of(self.identity.public_key) or 0]
        self.notes.append(Note(f"{name} says: {line}", NoteKind.INFO, chat=True))
        self._changed()
        self._advance()

    def _chat_record(self, v: Validator) -> bytes | None:
        """The next chat line to write, once this peer owes no ack or result first."""
        if not self._chat_out or not v.can_chat() or not may_request(v):
            return None
        if v.chat_run(self.identity.public_key) >= CHAT_RUN:
            return None  # the line waits for the game to go on (SESSION.md 5)
        # A joiner keeps one line in flight: the next waits until the host holds the last, so
        # a line that loses its place to the host's record carries few others with it.
        if not self.is_host:
            unconfirmed = v.records_since(self._peers[HOST_ID].have)
            me = self.identity.public_key
            if any(isinstance(r.message, Chat) and r.signer == me for r in unconfirmed):
                return None
        signers = v.expected_signers()
        if signers[:1] == (self.identity.public_key,) and (v.pending_acks or v.is_over):
            return None  # its ack or result first (SESSION.md 8: an ack is signed alike)
        return v.make_chat(self.identity, self._chat_out.pop(0))

    def _note_chat(self, rec: Record) -> None:
        """Show a chat line in the message log, as ``name says: text``."""
        v = self.validator
        if v is None or not isinstance(rec.message, Chat):
            return
        if rec.signer == self.identity.public_key:
            return  # shown when said
        name = v.names[rec.seat] if rec.seat is not None else "?"
        self.notes.append(Note(f"{name} says: {rec.message.text}", NoteKind.INFO, chat=True))
        self._changed()

    def _on_cheer(self, peer: bytes, line: Cheer) -> None:
        """A spectator's chat line the host relayed: shown if the host signed it for us."""
        if not self._from_host(line.signature, lambda k, n: line.is_signed_by(k, n, relayed=True)):
            self._drop(peer, line, "a spectator's chat line the host did not sign")
            return
        self._say_cheer(line.name, line.text)

    def cheered(self, name: str, line: Cheer) -> None:
        """The host: a spectator's line was accepted; show it and relay it to every player."""
        for pid, p in self._peers.items():
            if p.slot is not None and p.proven and p.their_nonce and p.connected:
                self._send(
                    pid,
                    sign_cheer(
                        self.identity, line.text, name, line.key, p.their_nonce, relayed=True
                    ),
                )
        self._say_cheer(name, line.text)

    def _say_cheer(self, name: str, text: str) -> None:
        """Show a spectator's line in the message log (a chat line: ``mute`` hides it)."""
        self.notes.append(Note(f"[spectator] {name or 'a spectator'} says: {text}", chat=True))
        LOG.info("spectator %s says: %s", name, text)
