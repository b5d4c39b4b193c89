"""What a player or a spectator is told of a secret-gods, Party or Agora game's records.

The deal, each reveal and objection, forfeits, a player leaving, the audit, and in Party each
passing of the cards (protocol/SECRET.md 7 to 12).

A player and a spectator are told the same, but for what only the player knows: its own god
(named where the others are ``?``) and its own openings (it chose them). Nothing here reads a
secret: the notes come from the log's records and the checker's public state.

Public API: ``SecretNotes`` (one per game watched or played): ``notes(v, rec, me, own_god)``,
the notes a record brings, and ``gods_line(v, me, own_god)``.
"""

from __future__ import annotations

from dataclasses import dataclass

from santorini_p2p.engine import Phase
from santorini_p2p.net.views import NoteKind
from santorini_p2p.wire.log import Record, Validator
from santorini_p2p.wire.messages import Act, Forfeit, Object, Open, Resign, Strip, Timeout

__all__ = ["SecretNotes", "gods_line"]


def gods_line(v: Validator, me: int | None = None, own_god: str = "") -> str:
    """Every seat's god as the reader knows it, ``?`` for each hidden one.

    A player's own (``me``, ``own_god``) is named; empty in a game without secret gods.
    """
    g = v.secret
    if g is None:
        return ""
    parts = []
    for seat, name in enumerate(v.names):
        god = g.gods[seat] or (own_god if seat == me else "") or "?"
        you = " (you)" if seat == me else ""
        parts.append(f"{name}{you} {god}")
    return "gods: " + ", ".join(parts)


@dataclass
class SecretNotes:
    """The notes of one game's secret records, for a player (``me``) or a spectator (None)."""

    audit_said: bool = False
    gods_shown: tuple[str, ...] = ()

    def notes(
        self, v: Validator, rec: Record, me: int | None = None, own_god: str = ""
    ) -> list[tuple[str, NoteKind]]:
        """The notes record ``rec`` (just taken into ``v``) brings, in order."""
        if v.header is not None and "party" in v.header.options:
            return self._passing(v)
        g = v.secret
        if g is None or rec.seat is None:
            return []
        out: list[tuple[str, NoteKind]] = []

        def say(text: str, kind: NoteKind = NoteKind.INFO) -> None:
            out.append((text, kind))

        msg = rec.message
        names = v.names
        who = names[rec.seat]
        if isinstance(msg, Strip) and g.dealt and rec.seat == g.players - 1:
            steps = f"The deal is done ({2 * g.players} signed steps)"
            if me is None:
                say(f"{steps}: every god is hidden until it is revealed.")
            else:
                say(
                    f"{steps}: your god is {own_god or '?'}; the others are hidden until they "
                    "are revealed."
                )
            say(gods_line(v, me, own_god))
        elif isinstance(msg, Open) and rec.seat != me:
            over = g.position.phase is Phase.OVER
            why = "for the audit" if over else "for the turn that needs it"
            say(f"{who} reveals {msg.god} {why}; the game so far is checked again.")
            say(gods_line(v, me, own_god))
        elif isinstance(msg, Object):
            act = v.record(msg.objected).message
            turn = f" {act.action}" if isinstance(act, Act) else ""
            mover = names[v.record(msg.objected).seat or 0]
            say(
                f"{who} objects and reveals {msg.god}: {mover}'s turn{turn} breaks it and is "
                f"void; {mover} plays again.",
                NoteKind.WARNING,
            )
            say(gods_line(v, me, own_god))
        elif isinstance(msg, Forfeit):
            say(f"{who} records that {names[msg.late]} forfeits: {msg.reason}.")
        elif isinstance(msg, Resign | Timeout) and g.left and g.result is None:
            gone = rec.seat if isinstance(msg, Resign) else msg.seat
            name, its = ("You are", "your") if gone == me else (f"{names[gone]} is", "its")
            hidden = "" if g.gods[gone] else f" ({its} god stays hidden until the audit at the end)"
            over = g.position.phase is Phase.OVER
            then = "the gods still hidden are opened for the audit" if over else "play goes on"
            say(f"{name} out of the game{hidden}; {then}.")
        if g.result is not None and not self.audit_said:
            self.audit_said = True
            if g.ending in ("fault", "win") or (g.leaves and g.ending in ("resign", "time")):
                say(f"The audit: {g.result[1]}.")
        return out

    def _passing(self, v: Validator) -> list[tuple[str, NoteKind]]:
        """Party (SECRET.md 10): say when the cards have passed on, and who holds which."""
        p = v.position
        if p is None:
            return []
        shown = self.gods_shown
        self.gods_shown = p.gods
        if shown and shown != p.gods and len(shown) == len(p.gods):
            held = ", ".join(f"{n} {g or '-'}" for n, g in zip(v.names, p.gods, strict=True))
            return [(f"The cards pass on after turn {v.turns}: {held}.", NoteKind.INFO)]
        return []
