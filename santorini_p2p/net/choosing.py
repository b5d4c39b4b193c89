"""Choices in another seat's turn (SPEC.md 8.4): the session's asks and answers.

A seat whose power chooses in another seat's turn (Gaea) answers the mover's signed ask with a
signed answer (``+sq`` or ``-``), and the mover's act must write exactly the answers signed.
This part of the session says what is asked of the local seat and takes its answer, fits the
local mover's planned turn to the answers signed so far, and gives the next ask, answer or act
this peer writes.
"""

from __future__ import annotations

from santorini_p2p.engine import Position, Turn
from santorini_p2p.engine.choices import (
    choice_options,
    choices,
    deciders,
    go_on_with,
    named_turn,
)
from santorini_p2p.errors import IllegalTurnError
from santorini_p2p.net.sessionbase import SessionBase
from santorini_p2p.net.views import Note, NoteKind
from santorini_p2p.wire.log import Validator

__all__ = ["Choosing"]


class Choosing(SessionBase):
    """The asks and answers of a turn in which another seat chooses (SPEC.md 8.4)."""

    @property
    def choice_asked(self) -> tuple[str, list[str]] | None:
        """The mover's turn so far and the answers this seat may give, when it owes one.

        SPEC.md 8.4: a seat whose power chooses in another seat's turn (Gaea) answers the
        mover's ask with ``+sq`` or ``-``; ``answer_choice`` gives the player's answer.
        """
        v = self.validator
        if self.stopped or v is None or v.position is None or v.is_over:
            return None
        ask = v.open_ask
        if ask is None or ask[0] != v.seat_of(self.identity.public_key):
            return None
        if self._answer_out is not None:
            return None
        return ask[1], choice_options(v.position, v.answered, ask[1])[1]

    @property
    def choices_made(self) -> tuple[str, ...]:
        """The choices other seats signed in the turn the local seat plays now, as text."""
        v = self.validator
        if v is None:
            return ()
        return tuple(c.asked + (c.answer if c.answer != "-" else "") for c in v.answered)

    def answer_choice(self, answer: str) -> None:
        """Answer the open ask with ``answer`` (``+sq`` or ``-``): a signed answer record.

        Raises:
            IllegalTurnError: no ask awaits this seat, or the answer is not one it may give
                (the message lists those it may).
        """
        asked = self.choice_asked
        if asked is None:
            raise IllegalTurnError("no choice of this player is awaited now")
        text = answer.strip().lower()
        if text and text[0] != "+" and text != "-":
            text = "+" + text
        if text not in asked[1]:
            raise IllegalTurnError(
                f"{answer!r} is not a choice here after {asked[0]!r}: " + ", ".join(asked[1])
            )
        self._answer_out = text
        self._advance()

    def _go_on_from(self, p: Position, turn: Turn) -> Turn | None:
        """``turn`` as the legal turn that goes on from the choices signed in this turn.

        Returns None when no other seat chooses in it (the plain act). Raises
        IllegalTurnError when it does not go on from the choices already made.
        """
        v = self.validator
        assert v is not None
        if not v.asks or p.phase.value != "play":
            return None
        if not v.answered and not deciders(p):
            return None  # no other seat chooses in this turn: no list of turns to make
        legal = named_turn(p, turn, v.answered)
        if legal is None:
            if v.answered:
                made = "; ".join(self.choices_made)
                raise IllegalTurnError(
                    f"the turn must go on from what was chosen in it ({made}): "
                    f"{str(turn)!r} does not"
                )
            return None  # make_act says why it is illegal
        return legal if choices(p, legal) else None

    def _choice_record(self, v: Validator) -> bytes | None:
        """The next ask, answer or planned act of this seat (SPEC.md 8.4), if one is due."""
        p = v.position
        if p is None or v.is_over or v.pending_acks or not v.asks:
            return None
        me = v.seat_of(self.identity.public_key)
        ask = v.open_ask
        if ask is not None:
            if ask[0] == me and self._answer_out is not None:
                answer, self._answer_out = self._answer_out, None
                return v.make_answer(self.identity, answer)
            return None
        self._answer_out = None
        plan = self._plan
        if plan is None or p.to_move != me:
            self._plan = None
            return None
        made = v.answered
        wanted = choices(p, plan)
        k = len(made)
        if wanted[:k] != made:
            # A choice went another way than this turn needs. The same moves and builds may
            # still go on from it (the mover typed none of the other seat's choices): then
            # they are played; otherwise the player plays on from it.
            same = go_on_with(p, plan, made)
            if same is not None:
                self._plan = same
                return self._choice_record(v)
            self._plan = None
            last = made[-1]
            name = v.names[last.seat] if last.seat < len(v.names) else f"seat {last.seat + 1}"
            what = "no worker" if last.answer == "-" else f"a worker on {last.answer[1:]}"
            self.notes.append(
                Note(
                    f"{name} chose {what} after {last.asked}: play your turn on from "
                    f"{'; '.join(self.choices_made)}",
                    NoteKind.INFO,
                )
            )
            self._changed()
            return None
        if k < len(wanted):
            return v.make_ask(self.identity, wanted[k].asked)
        self._plan = None
        elapsed = max(0, self._now() - self._clock.started)
        return v.make_act(self.identity, plan, elapsed)
