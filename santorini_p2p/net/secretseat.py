"""This peer's side of a game with secret gods in the session (protocol/SECRET.md 12).

The log (``wire.validator``) checks every record of the deal and of hidden play; this part
writes this peer's own: its shuffle and strip when due, its acknowledgement of each act or,
where its hidden god forbids the act, its objection, its opening before a turn that needs the
power, and its opening at the end. A seat's secret is drawn from its own key and the game id
(``wire.secretplay.seat_secret``), so a resumed game needs nothing more on disk.

A seat that owes a record (a deal step, an acknowledgement or objection, its opening at the
end) and sends none for ``OWED_MS`` forfeits: the first other seat in the game signs the
forfeit (SECRET.md 8). The move of the seat to move keeps the session's clocks and timeout
claims (SESSION.md 7).

Objections (SECRET.md 7.3): by default this peer objects at once to every turn that breaks its
hidden god (a computer seat). With ``ask_objections`` (a person's seat) it asks instead:
``objection_asked`` is the question, ``answer_objection`` the answer (object and reveal, or
accept the turn: the ack waives the rule for it). Nothing waits on the person: the ack stays
unwritten until the answer, and a question unanswered for ``OBJECTION_MS`` (well inside the
forfeit's ``OWED_MS``) is answered by accepting the turn, as a table waives a rule no one
claimed.
"""

from __future__ import annotations

from dataclasses import replace

from santorini_p2p.engine import Action, Position, Turn
from santorini_p2p.engine.secrecy import Play, objection_error, restricts_opponents
from santorini_p2p.errors import IllegalTurnError
from santorini_p2p.net.secretnotes import SecretNotes, gods_line
from santorini_p2p.net.sessionbase import GRACE_MS, HOST_ID, OWED_MS, SessionBase
from santorini_p2p.net.views import NoteKind
from santorini_p2p.wire.log import Record, Validator
from santorini_p2p.wire.secretplay import SeatSecret, needs_power, seat_secret

__all__ = ["OBJECTION_MS", "OWED_MS", "SecretSeat"]

OBJECTION_MS = OWED_MS * 3 // 4
"""How long a person is given to object to a turn before it is accepted for them (90 s): the
ack is due within ``OWED_MS``, and the rest is the network's margin."""


class SecretSeat(SessionBase):
    """The records this peer owes in a game with secret gods, and the forfeit claims."""

    _secret_cache: tuple[bytes, SeatSecret, str] | None = None
    _view_cache: tuple[Position, Position] | None = None
    _secret_notes: tuple[bytes, SecretNotes] | None = None
    """What this game's secret records have been told so far (per game id)."""
    ask_objections = False
    """Ask the player before objecting (a person's seat); else object at once (a computer)."""
    _objection: tuple[int, str, int] | None = None
    """The open question: the act (its number among the checker's records), its text, and
    when it was asked (ms)."""
    _objection_answer: tuple[int, bool] | None = None
    """The player's answer: the act (as above), and whether to object."""

    def _seat_secret(self) -> SeatSecret:
        """This seat's deal key for this game (drawn once, from its own key)."""
        cached = self._secret_cache
        if cached is None or cached[0] != self._game_id:
            cached = (self._game_id, seat_secret(self.identity, self._game_id), "")
            self._secret_cache = cached
        return cached[1]

    @property
    def own_god(self) -> str:
        """This peer's god in a game with secret gods, once dealt ("" before, or in another)."""
        v = self.validator
        g = v.secret if v is not None else None
        seat = v.seat_of(self.identity.public_key) if v is not None else None
        if g is None or seat is None or not g.dealt:
            return ""
        secret = self._seat_secret()
        cached = self._secret_cache
        if cached is not None and cached[2]:
            return cached[2]
        try:
            god = secret.god(g, seat)
        except ValueError:
            return ""  # a deal step was wrong: the audit at the end finds whose
        self._secret_cache = (self._game_id, secret, god)
        return god

    @property
    def view(self) -> Position | None:
        """The position as this player sees it: with secret gods, its own god shown too.

        The other hidden gods are blank (no power); the log's position shows only the open
        ones. In any other game this is the log's position.
        """
        v = self.validator
        if v is None or v.position is None:
            return None
        g = v.secret
        seat = v.seat_of(self.identity.public_key)
        god = self.own_god
        if g is None or seat is None or not god or g.result is not None:
            return v.position
        cached = self._view_cache
        if cached is not None and cached[0] is v.position:
            return cached[1]  # the same object while the log stands still (callers compare)
        gods = list(v.position.gods)
        gods[seat] = god
        view = replace(v.position, gods=tuple(gods))
        self._view_cache = (v.position, view)
        return view

    @property
    def position(self) -> Position | None:
        """The current position as this player sees it (``view``); None before the draw."""
        return self.view

    def hidden_seats(self) -> tuple[int, ...]:
        """The seats whose gods this player does not know (empty in any other game)."""
        v = self.validator
        g = v.secret if v is not None else None
        if v is None or g is None or g.result is not None:
            return ()
        mine = v.seat_of(self.identity.public_key)
        return tuple(s for s, god in enumerate(g.gods) if not god and s != mine)

    def gods_line(self) -> str:
        """Every seat's god as this player knows it: its own, the open ones, ``?`` for hidden."""
        v = self.validator
        if v is None:
            return ""
        return gods_line(v, v.seat_of(self.identity.public_key), self.own_god)

    def _note_secret(self, rec: Record) -> None:
        """Tell the player what a record of a secret game did (the deal, an opening, ...)."""
        v = self.validator
        if v is None:
            return
        if self._secret_notes is None or self._secret_notes[0] != self._game_id:
            self._secret_notes = (self._game_id, SecretNotes())
        me = v.seat_of(self.identity.public_key)
        own = self.own_god if v.secret is not None else ""
        for text, kind in self._secret_notes[1].notes(v, rec, me, own):
            self._say(text, kind)

    def _secret_record(self, v: Validator) -> bytes | None:
        """The record this seat owes now in a secret game's deal or play, if any."""
        g = v.secret
        seat = v.seat_of(self.identity.public_key)
        owed = v.pending_acks
        if g is None or seat is None or not owed or owed[0] != seat or v.is_over:
            return None
        secret = self._seat_secret()
        if not g.dealt:
            return v.make_deal_step(self.identity, secret.key, secret.order_seed)
        god = self.own_god
        if g.pending is None:  # the end: every hidden god is opened
            self._say(f"You open your god, {god}, for the audit.")
            return v.make_open(self.identity, god, secret.key_bytes)
        if not g.gods[seat] and restricts_opponents(god) and g.start is not None:
            act, turn, known, mover = g.pending
            gods = list(g.gods)
            gods[seat] = god
            play = Play(turn, known)
            if objection_error(g.start, g.plays, tuple(gods), seat, play, g.leaves) is None:
                name = v.names[mover]
                if self.ask_objections:
                    answer = self._objection_answer
                    if answer is None or answer[0] != act:
                        if self._objection is None or self._objection[0] != act:
                            self._objection = (act, f"{name}'s turn {turn}", self._now())
                            self._say(
                                f"{name}'s turn {turn} breaks your hidden {god}: y objects and "
                                "reveals it, n accepts the turn.",
                                NoteKind.WARNING,
                            )
                        return None
                    self._objection = None
                    if not answer[1]:
                        self._say(f"You waive {god}'s rule for this turn; your god stays hidden.")
                        return v.make_ack(self.identity)
                    self._say(f"You object and reveal {god}: {name}'s turn is void.")
                    return v.make_object(self.identity, god, secret.key_bytes)
                self._say(f"{name}'s turn breaks your {god}: you object and reveal it.")
                return v.make_object(self.identity, god, secret.key_bytes)
        return v.make_ack(self.identity)

    @property
    def objection_asked(self) -> str | None:
        """The question to the player when a turn breaks its hidden god, or None.

        Asked only with ``ask_objections``; ``answer_objection`` answers it.
        """
        asked = self._objection
        v = self.validator
        g = v.secret if v is not None else None
        if asked is None or v is None or g is None or v.is_over or self.stopped is not None:
            return None
        if g.pending is None or g.pending[0] != asked[0]:
            return None
        left = max(0, (asked[2] + OBJECTION_MS - self._now()) // 1000)
        return (
            f"{asked[1]} breaks your hidden {self.own_god}: object and reveal it (y), or "
            f"accept the turn (n)? ({left} s, then the turn is accepted)"
        )

    def answer_objection(self, objects: bool) -> None:
        """Answer the open question: object and reveal (True), or accept the turn (False).

        Raises:
            IllegalTurnError: no question is open.
        """
        asked = self._objection
        if asked is None or self.objection_asked is None:
            raise IllegalTurnError("no turn awaits your objection now")
        self._objection_answer = (asked[0], objects)
        self._advance()

    def _check_objection(self, now: int) -> None:
        """A question unanswered for ``OBJECTION_MS``: the turn is accepted (the rule waived)."""
        asked = self._objection
        if asked is None or now - asked[2] < OBJECTION_MS or self.objection_asked is None:
            return
        self._say(f"No answer in {OBJECTION_MS // 1000} s: the turn is accepted.")
        self._objection_answer = (asked[0], False)
        self._advance()

    def _open_for(self, v: Validator, action: Action) -> bytes | None:
        """The opening that must come before ``action``, when it needs the hidden power."""
        g = v.secret
        seat = v.seat_of(self.identity.public_key)
        if g is None or seat is None or not isinstance(action, Turn) or g.gods[seat]:
            return None
        god = self.own_god
        if not god or not needs_power(g, seat, god, action):
            return None
        self._say(f"You reveal your god, {god}, for this turn.")
        return v.make_open(self.identity, god, self._seat_secret().key_bytes)

    def _check_owed(self, now: int) -> None:
        """Forfeit a seat that owes a record (not a move) and sent none for ``OWED_MS``."""
        self._check_objection(now)
        v = self.validator
        g = v.secret if v is not None else None
        if v is None or g is None or v.is_over or self.stopped is not None:
            return
        owed = v.pending_acks
        mine = v.seat_of(self.identity.public_key)
        if not owed or mine is None or mine in owed:
            return
        if not self.is_host and not self._peers[HOST_ID].connected:
            return
        if now - self._last_record_ms <= OWED_MS + GRACE_MS:
            return
        late = owed[0]
        out = g.left | g.position.eliminated  # a seat that left may be gone: it claims nothing
        claimer = next(
            (s for s in range(g.players) if s not in owed and not out >> s & 1),
            next((s for s in range(g.players) if s not in owed), None),
        )
        if claimer != mine:
            return
        name = v.names[late]
        self._say(
            f"{name} owes a record and sent none in {OWED_MS // 1000} s: it forfeits.",
            NoteKind.WARNING,
        )
        self._write(v.make_forfeit(self.identity, late, f"no record in {OWED_MS // 1000} s"))
        self._advance()
