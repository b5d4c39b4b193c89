"""A secret table's game on a line terminal: what happened, and a person's turns and answers.

``TableView`` prints each record a peer takes as a line (turns in the turn text of RULES.md
section 7; your own god by name, ``?`` for a hidden one; what a reveal or an objection did,
when the cards pass, who leaves). ``LineSecretPlayer`` and ``LinePartyPlayer`` are a person's
seat: the deal's steps, acks and the final opening are sent for them, and they are asked for
their placements and turns, and whether to object when their hidden god forbids a turn.
"""

from __future__ import annotations

import queue
import sys
import threading
from dataclasses import dataclass, field
from typing import Any

from santorini_p2p.engine import Phase, Position, Turn, legal_actions, parse_action
from santorini_p2p.engine.rules import find_turn
from santorini_p2p.engine.secrecy import Play, objection_error, restricts_opponents
from santorini_p2p.errors import SantoriniError
from santorini_p2p.net.secrettable import SecretPeer
from santorini_p2p.net.tablebots import PartyBot, SecretBot, plays_alike
from santorini_p2p.wire.partygame import PartyGame, PartyRecord
from santorini_p2p.wire.secret import open_card
from santorini_p2p.wire.secretgame import (
    Ack,
    Forfeit,
    Move,
    Object,
    Open,
    SecretGame,
    SecretRecord,
)

__all__ = ["LinePartyPlayer", "LineSecretPlayer", "TableView", "gods_line"]


def _say(text: str) -> None:
    print(text, flush=True)


def gods_line(gods: tuple[str, ...], me: int) -> str:
    """``gods: seat 1 Athena (you), seat 2 ?``: known gods by name, hidden ones as ``?``."""
    parts = [f"seat {s + 1} {g or '?'}" + (" (you)" if s == me else "") for s, g in enumerate(gods)]
    return "gods: " + ", ".join(parts)


def _my_god(peer: SecretPeer) -> str:
    """This peer's own god once the deal is done ("" before)."""
    g = peer.game
    bot = peer.bot
    if isinstance(g, SecretGame) and isinstance(bot, SecretBot) and g.dealt:
        return bot.god or open_card(g.card(bot.seat), bot.key, g.pool)
    if isinstance(g, PartyGame) and g.position is not None:
        return g.position.gods[bot.seat]
    return ""


@dataclass
class TableView:
    """Prints a peer's game as it goes: call ``show`` after each record the peer takes."""

    peer: SecretPeer
    out: Any = field(default=_say)
    shown: int = 0
    started: bool = False
    dealt: bool = False
    passes: int = 0
    eliminated: int = 0

    def _gods(self) -> tuple[str, ...]:
        g = self.peer.game
        me = self.peer.bot.seat
        if isinstance(g, SecretGame):
            gods = list(g.gods)
            gods[me] = gods[me] or _my_god(self.peer)
            return tuple(gods)
        if isinstance(g, PartyGame) and g.position is not None:
            return g.position.gods
        return ()

    def show(self, peer: SecretPeer) -> None:
        """Print what is new since the last call."""
        g = peer.game
        if g is None:
            return
        me = peer.bot.seat
        if not self.started:
            self.started = True
            kind = "secret gods" if isinstance(g, SecretGame) else "Agora"
            if isinstance(g, PartyGame) and not g.agora:
                kind = f"Party (the cards pass every {g.every} turns)"
            self.out(f"table: {kind}, {g.players} players; you are seat {me + 1}")
        for i in range(self.shown, len(peer.records)):
            self._record(peer, i, peer.records[i])
        self.shown = len(peer.records)

    def _record(self, peer: SecretPeer, i: int, r: SecretRecord | PartyRecord) -> None:
        g = peer.game
        me = peer.bot.seat
        who = f"seat {r.seat + 1}" + (" (you)" if r.seat == me else "")
        if isinstance(g, SecretGame):
            if not self.dealt and g.dealt and i == self._last_deal_record(peer):
                self.dealt = True
                self.out(
                    f"the deal is done ({2 * g.players} signed steps): your god is "
                    f"{_my_god(peer)}; the others are hidden until they are revealed"
                )
                self.out(gods_line(self._gods(), me))
        elif isinstance(g, PartyGame) and g.position is not None and not self.dealt:
            self.dealt = True
            self.out("the gods are drawn from the chains committed before the deal")
            self.out(gods_line(self._gods(), me))
        if isinstance(r, Move):
            self.out(f"{who}: {r.action}")
        elif isinstance(r, Object):
            void = peer.records[r.of] if 0 <= r.of < len(peer.records) else None
            turn = f" {void.action}" if isinstance(void, Move) else ""
            mover = f"seat {void.seat + 1}" if isinstance(void, Move) else "the mover"
            self.out(
                f"{who} objects and reveals {r.god}: {mover}'s turn{turn} breaks it and is "
                f"void; {mover} plays again"
            )
            self.out(gods_line(self._gods(), me))
        elif isinstance(r, Open):
            over = isinstance(g, SecretGame) and (bool(g.owed()) or g.result is not None)
            if over:
                self.out(f"{who} opens {r.god} for the audit")
            else:
                self.out(
                    f"{who} reveals {r.god} for the turn that needs it; the log so far is "
                    "checked again under it"
                )
            self.out(gods_line(self._gods(), me))
        elif isinstance(r, Forfeit):
            self.out(f"seat {r.late + 1} forfeits ({r.reason}); signed by {who}")
        if isinstance(g, PartyGame) and g.position is not None:
            if len(g.passes) > self.passes:
                self.passes = len(g.passes)
                self.out(f"the cards pass to the next player after turn {g.passes[-1]}")
                self.out(gods_line(self._gods(), me))
            out = g.position.eliminated & ~self.eliminated
            for s in range(g.players):
                if out >> s & 1:
                    self.out(f"seat {s + 1} cannot play and leaves the game")
            self.eliminated = g.position.eliminated

    @staticmethod
    def _last_deal_record(peer: SecretPeer) -> int:
        g = peer.game
        assert g is not None
        return 2 * g.players - 1


class _Lines:
    """Standard input's lines as they come (a daemon thread reads), ``None`` at its end."""

    def __init__(self) -> None:
        self.queue: queue.Queue[str | None] = queue.Queue()
        threading.Thread(target=self._read, daemon=True).start()

    def _read(self) -> None:
        for line in sys.stdin:
            self.queue.put(line)
        self.queue.put(None)

    def take(self) -> str | None:
        """The next line typed, or ``""`` when none is there yet; ``None``: input ended."""
        try:
            return self.queue.get_nowait()
        except queue.Empty:
            return ""


class _Waiting(Exception):
    """The person has not answered yet."""


@dataclass
class _Asker:
    """Asks a person once per question and reads the answer without blocking the game."""

    lines: _Lines | None = None
    """Standard input, read from the first question on."""
    asked: object = None
    ended: bool = False

    def ask(self, key: object, prompt: str, board: Position | None = None) -> str:
        """The answer to ``prompt``; raises ``_Waiting`` until a line is typed."""
        if self.asked != key:
            self.asked = key
            if board is not None:
                from santorini_p2p.ui.board_view import render_text

                print(render_text(board), flush=True)
            print(prompt, end="", flush=True)
        if self.lines is None:
            self.lines = _Lines()
        line = self.lines.take()
        if line is None:
            if not self.ended:
                self.ended = True
                print("\nstandard input ended: nothing more can be typed; Ctrl-C leaves")
            raise _Waiting
        if not line.strip():
            raise _Waiting
        self.asked = None
        return line.strip()


def _placement(asker: _Asker, p: Position, key: object) -> str:
    """A placement action typed by the person, legal in ``p``."""
    while True:
        text = asker.ask(key, "your placement (action text, like c2,a4): ", p)
        try:
            action = parse_action(text)
        except SantoriniError as e:
            print(f"santorini: {e}", flush=True)
            continue
        if action in legal_actions(p):
            return str(action)
        print(f"santorini: {text!r} is not a legal placement here", flush=True)


@dataclass
class LineSecretPlayer(SecretBot):
    """A person's seat in a secret-god game, on a line prompt."""

    asker: _Asker = field(default_factory=_Asker)
    chosen: Turn | None = None

    def next_record(self, g: SecretGame, index: int) -> SecretRecord | None:
        """What this seat sends now: asks the person where a choice is theirs."""
        try:
            p = g.position
            if (
                g.dealt
                and g.result is None
                and g.pending is None
                and not g.owed()
                and p.to_move == self.seat
                and p.phase is not Phase.PLAY
            ):
                self.god = self.god or open_card(g.card(self.seat), self.key, g.pool)
                return Move(self.seat, _placement(self.asker, p, ("place", index)))
            record = super().next_record(g, index)
        except _Waiting:
            return None
        if isinstance(record, Move):
            self.chosen = None
        return record

    def _turn(self, g: SecretGame) -> tuple[Turn, bool]:
        view = self.view(g)
        if self.chosen is None:
            while True:
                text = self.asker.ask(
                    ("turn", g.index), f"your turn ({self.god}; turn text): ", view
                )
                try:
                    self.chosen = find_turn(view, text)
                    break
                except SantoriniError as e:
                    print(f"santorini: {e}", flush=True)
        turn = self.chosen
        needs = not g.gods[self.seat] and not plays_alike(view, self.without_god(view), turn)
        if needs:
            print(f"this turn needs {self.god}: it is revealed with it", flush=True)
        return turn, needs

    def _answer(self, g: SecretGame) -> SecretRecord:
        assert g.pending is not None
        assert g.start is not None
        index, turn, known, mover = g.pending
        if not g.gods[self.seat] and restricts_opponents(self.god):
            gods = self.known_gods(g)
            if objection_error(g.start, g.plays, gods, self.seat, Play(turn, known)) is None:
                while True:
                    text = self.asker.ask(
                        ("object", index),
                        f"seat {mover + 1}'s turn {turn} breaks your hidden {self.god}: "
                        "object and reveal it (y), or accept the turn (n)? ",
                    )
                    if text in ("y", "n"):
                        break
                    print("santorini: answer y or n", flush=True)
                if text == "y":
                    return Object(self.seat, index, self.god, self.key_bytes())
                print(f"you waive {self.god}'s rule for this turn", flush=True)
        return Ack(self.seat, index)


@dataclass
class LinePartyPlayer(PartyBot):
    """A person's seat in a Party or Agora game, on a line prompt."""

    asker: _Asker = field(default_factory=_Asker)

    def next_record(self, g: PartyGame, index: int) -> PartyRecord | None:
        """What this seat sends now: the person's placements and turns; the rest for them."""
        p = g.position
        if (
            p is None
            or g.result is not None
            or g.pending is not None
            or len(g.links) < g.players
            or p.to_move != self.seat
        ):
            return super().next_record(g, index)
        self.god = p.gods[self.seat]
        try:
            if p.phase is not Phase.PLAY:
                return Move(self.seat, _placement(self.asker, p, ("place", index)))
            while True:
                text = self.asker.ask(("turn", index), f"your turn ({self.god}; turn text): ", p)
                try:
                    return Move(self.seat, str(find_turn(p, text)))
                except SantoriniError as e:
                    print(f"santorini: {e}", flush=True)
        except _Waiting:
            return None
