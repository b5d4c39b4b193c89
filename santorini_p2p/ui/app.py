"""The full-screen game screen: board, side panel, messages and the action input line.

The screen reads a :class:`~santorini_p2p.ui.state.GameController` on every redraw and holds
no rules: legal actions, completions and highlights all come from the engine through
``completer.py`` and ``validator.py``. ``run_game`` runs the screen and the controller side by
side on one event loop.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import re
import textwrap
import threading
from collections.abc import Awaitable, Callable
from dataclasses import replace
from itertools import pairwise
from pathlib import Path
from typing import Final

from prompt_toolkit.application import Application
from prompt_toolkit.application.current import get_app
from prompt_toolkit.buffer import Buffer, CompletionState
from prompt_toolkit.completion import CompleteEvent
from prompt_toolkit.data_structures import Point
from prompt_toolkit.filters import Condition
from prompt_toolkit.formatted_text import StyleAndTextTuples
from prompt_toolkit.key_binding import KeyBindings, KeyPressEvent
from prompt_toolkit.layout import (
    ConditionalContainer,
    Dimension,
    Float,
    FloatContainer,
    FormattedTextControl,
    HSplit,
    Layout,
    VSplit,
    Window,
)
from prompt_toolkit.layout.menus import CompletionsMenu
from prompt_toolkit.layout.processors import (
    Processor,
    Transformation,
    TransformationInput,
)
from prompt_toolkit.layout.utils import explode_text_fragments
from prompt_toolkit.mouse_events import MouseEvent, MouseEventType
from prompt_toolkit.styles import Style
from prompt_toolkit.widgets import Frame, TextArea

from santorini_p2p.engine import (
    Effect,
    EffectKind,
    Phase,
    Position,
    Turn,
    apply_action,
    describe_effect,
    find_god,
    outcome,
    parse_action,
    turn_effects,
)
from santorini_p2p.errors import SantoriniError
from santorini_p2p.ui.board_view import (
    BOARD_HEIGHT,
    BOARD_WIDTH,
    LAST_BUILD,
    LAST_FROM,
    LAST_TO,
    LAST_UNBUILT,
    Marks,
    format_clock,
    last_move_marks,
    letter_of,
    render_board,
    render_panel,
    winner_text,
)
from santorini_p2p.ui.completer import (
    ActionCompleter,
    is_prefix,
    last_step,
    marks_for,
    next_steps,
    prepare,
    ready,
    squares_in,
    step_kinds,
    step_starts,
)
from santorini_p2p.ui.state import GameController, NoteKind, features_of
from santorini_p2p.ui.validator import ActionValidator, find_action

__all__ = ["COMMANDS", "STYLE", "GameScreen", "help_text", "run_game", "text_marks"]

LOG = logging.getLogger(__name__)

COMMANDS: Final = ("undo", "resign", "quit", "help", "takeback", "mute", "say")
"""Words the input line takes besides actions."""

_ANSWERS: Final = {"y": True, "yes": True, "n": False, "no": False}
"""What the input line takes as the answer to a takeback request."""


_SAY: Final = "say "
"""A line starting with this is a chat line (``say good game``)."""


STYLE: Final = Style.from_dict(
    {
        "title": "reverse bold",
        "hint.invite": "bold",
        "level0": "bg:#e8e2d0 #000000",
        "level1": "bg:#c9bfa3 #000000",
        "level2": "bg:#9c9078 #000000",
        "level3": "bg:#6b6150 #ffffff",
        "dome": "bg:#000000 #ffffff bold",
        "worker": "bold",
        "worker.a": "bg:#1d4ed8 #ffffff",
        "worker.b": "bg:#dc2626 #ffffff",
        "worker.c": "bg:#15803d #ffffff",
        "worker.a.name": "bg:default #3b82f6",
        "worker.b.name": "bg:default #ef4444",
        "worker.c.name": "bg:default #22c55e",
        "target": "bg:#facc15 #000000 bold",
        "chosen": "bg:#7dd3fc #000000 bold",
        "last": "bg:#f97316 #000000 bold",
        "effect": "bg:#a21caf #ffffff bold",
        "msg.effect": "#d946ef",
        "panel.now": "#d946ef bold",
        "board.rule": "#808080",
        "board.edge": "bold",
        "board.mark": "bold",
        "panel.tomove": "bold",
        "panel.heading": "bold underline",
        "panel.god": "italic",
        "clock.low": "#ef4444 bold reverse",
        "msg.error": "#ef4444 bold",
        "msg.loss": "#ef4444 bold",
        "msg.win": "#22c55e bold",
        "msg.warning": "#eab308",
        "msg.last": "bold",
        "input.bad": "reverse bold #ef4444",
        "hint": "",
        "hint.error": "#ef4444 bold",
        "help": "bg:#202020 #e0e0e0",
    }
)
"""Colours for the console; without colour (``NO_COLOR``) bold, reverse and brackets remain."""

_HELP_WIDTH: Final = 74

_KEYS_HELP: Final = (
    (
        "Tab, Shift-Tab",
        "show the legal next steps (one alone is typed at once); again, or the arrows, "
        "go through them",
    ),
    (
        "Enter",
        "play, or go one step on (a whole turn picked with Tab that can go on, "
        "such as a second build: Enter again plays it as it is)",
    ),
    ("Esc, Ctrl-U", "clear the line (Esc first closes the menu of choices)"),
    ("Ctrl-Z, undo", "take back your last move"),
    ("resign", "twice: resign the game"),
    ("takeback", "network game: ask to take back your last turn; y, n answer"),
    ("say TEXT, mute", "network game: chat to the others; mute hides or shows chat"),
    ("r", "at game over: review the game with the engine"),
    ("m", "at game over of a network game: ask for a rematch (y / n answer one)"),
    ("p, n", "watching the computer: pause or play on, one move"),
    ("Ctrl-Q, quit", "back to the start screen"),
    ("Ctrl-C", "quit the program"),
    ("mouse", "click worker, move, build"),
    ("?, F1", "this help (Esc closes)"),
    ("Up, Down", "scroll this help (PageUp, PageDown: a page)"),
)

_NOTES_HELP: Final = (
    "Turns: b2>c3^d4 is the worker on b2 moving to c3 and building on d4; a move up to "
    "level 3 wins and has no build. Setup: god NAME, place b2,d4, start N.",
    "Board: the digit is the level, X a dome, A B C the workers; [ ] is where the input can "
    "go next, ( ) the squares it has named. A word under a square marks a worker or a "
    "square a god's power remembers (fem: a female worker; pair: a named pair; or the "
    "god's name); the panel's now: line says what it means.",
    "The last move: . where a worker left, * where one arrived, + a build; what a god's "
    "power did: ~ a worker forced there, x a worker removed, - a block taken away.",
    "The panel's now: lines say what the gods' powers impose on the turn to play (a worker "
    "that may not move, squares where no one may build or win, towers that win).",
)

PANEL_MESSAGES: Final = 6
"""Rows kept for the messages before the turns panel grows into a tall window's spare rows."""

MIN_COLUMNS: Final = 60
MIN_ROWS: Final = 18
"""The smallest terminal the game screen fits (the board is 35 x 13)."""


_KEYS_FOR: Final = {
    "Ctrl-Z, undo": "local",
    "takeback": "network",
    "say TEXT, mute": "network",
    "m": "network",
    "p, n": "watching",
}
"""The keys that only some games take: ``local`` (this terminal's games), ``network`` (a LAN
game's players) or ``watching`` (computer players watched); the others work in every game."""


def help_text(p: Position, width: int = _HELP_WIDTH, kinds: frozenset[str] | None = None) -> str:
    """Return the help: the keys, the notation, and the gods in play with their powers.

    Lines are wrapped between words to ``width`` columns. With ``kinds`` (of ``_KEYS_FOR``)
    the keys only other games take are left out; without it every key is listed.
    """
    width = max(30, min(width, _HELP_WIDTH))
    lines = [
        textwrap.fill(what, width, initial_indent=f"{key:<16}", subsequent_indent=" " * 16)
        for key, what in _KEYS_HELP
        if kinds is None or _KEYS_FOR.get(key, "") in ("", *kinds)
    ]
    for note in _NOTES_HELP:
        lines.append("")
        lines.append(textwrap.fill(note, width))
    # The gods taken, those still to draft, and those a challenger offers from.
    gods = [g for g in dict.fromkeys(p.gods + p.pool + p.offer) if g and g != "?"]
    if gods:
        lines.append("")
        lines.append("Gods in this game")
        for name in gods:
            lines.append(
                textwrap.fill(
                    f"{name}: {find_god(name).power}",
                    width=width,
                    initial_indent="  ",
                    subsequent_indent="    ",
                )
            )
            example = find_god(name).example  # how its turns are typed, from the god itself
            if example:
                for i, part in enumerate(example.split("\n")):
                    lines.append(
                        textwrap.fill(
                            part.strip(),
                            width,
                            initial_indent="    type: " if i == 0 else " " * 10,
                            subsequent_indent=" " * 10,
                        )
                    )
    return "\n".join(lines)


def _cut(text: str, width: int) -> str:
    """``text`` in ``width`` columns, ending in ``~`` when cut."""
    return text if len(text) <= width else text[: max(0, width - 1)] + "~"


def _safe(draw: Callable[[], StyleAndTextTuples]) -> Callable[[], StyleAndTextTuples]:
    """Wrap a drawing function so that a bug in it shows as a line instead of ending the game."""

    def guarded() -> StyleAndTextTuples:
        try:
            return draw()
        except Exception as e:  # the screen must outlive a drawing bug; the game goes on
            LOG.exception("drawing failed")
            return [("class:msg.error", f"(cannot draw this part: {e})")]

    return guarded


class _MarkBadCharacter(Processor):
    """Shows the character the validator rejected in reverse video."""

    def apply_transformation(self, ti: TransformationInput) -> Transformation:
        error = ti.buffer_control.buffer.validation_error
        if error is None:
            return Transformation(ti.fragments)
        fragments = explode_text_fragments(ti.fragments)
        index = ti.source_to_display(error.cursor_position)
        if 0 <= index < len(fragments):
            style, text = fragments[index][0], fragments[index][1]
            fragments[index] = (style + " class:input.bad", text)
        return Transformation(fragments)


START_SCREEN: Final = "Enter for the start screen"
"""The game-over hint in the console; games opened from the command line say "Enter to leave"."""
LEAVE: Final = "Enter to leave"


class GameScreen:
    """The game screen's state and layout around one controller (ptpython's split of state)."""

    def __init__(
        self,
        controller: GameController,
        *,
        mouse: bool = True,
        leave: str = START_SCREEN,
        review: bool = False,
    ) -> None:
        self.controller = controller
        self._leave = leave
        self._review = review
        self.show_help = False
        self._help_line = 0
        self._resigning = False
        #: Chat lines are hidden from the message log (``mute``; this screen only).
        self.muted = False
        self._leaving = False
        self.error: str | None = None
        #: A word about the last input that is no error (a turn played in its written form).
        self.notice: str | None = None
        self._completer = ActionCompleter(self._input_position)
        #: The position whose turns a thread is listing for completion (``lists_ready``).
        self._listing: Position | None = None
        # A spectator's game (``net/watch.py``) is shown read-only: no input line, q leaves.
        #: What the game offers beyond the core contract (takebacks, chat, rematch, pause).
        self.features = features_of(controller)
        self._spectating = self.features.spectating
        self.input = TextArea(
            multiline=False,
            height=1,
            prompt=self._prompt,
            completer=self._completer,
            validator=ActionValidator(self._input_position, (*COMMANDS, *_ANSWERS, _SAY)),
            # The menu opens on Tab only: by itself it would cover the messages after each turn.
            complete_while_typing=False,
            accept_handler=self._accept,
            input_processors=[_MarkBadCharacter()],
            style="class:input",
            read_only=Condition(lambda: self._spectating and not self._spectator_chats()),
        )
        self.input.buffer.validate_while_typing = Condition(lambda: True)
        self.app: Application[str] = Application(
            layout=Layout(self._layout(), focused_element=self.input),
            key_bindings=self._key_bindings(),
            style=STYLE,
            full_screen=True,
            mouse_support=mouse,
            refresh_interval=0.25,
        )
        # What the last action changed, kept from the position before it (any god's effect
        # included): marked on the board on every turn, yours too.
        self._seen = (len(controller.actions), controller.position)
        self._last: tuple[tuple[int, str], ...] = ()
        # What powers did to the others, worded: (messages before it, action count, text).
        self._effects: list[tuple[int, int, str]] = []
        self._heard = len(controller.messages)
        #: The window was last drawn too small to show the board (see ``_too_small``).
        self._small = False
        self._was_mine = controller.awaiting is not None
        self._unlisten = controller.listen(self._changed)

    # -- state the layout reads ---------------------------------------------------------------

    def _input_position(self) -> Position | None:
        c = self.controller
        return c.position if c.awaiting is not None else None

    def _changed(self) -> None:
        c = self.controller
        count, before = self._seen
        heard, self._heard = self._heard, len(c.messages)
        if len(c.actions) != count or c.position is not before:
            if len(c.actions) > count:
                self._last = self._follow(before, count, heard)
            elif len(c.actions) < count:
                self._last = ()  # taken back
            self._effects = [e for e in self._effects if e[1] <= len(c.actions)]
            self._seen = (len(c.actions), c.position)
        rematch = self.features.rematch
        if rematch is not None and rematch.rematch_agreed:
            self.close("rematch")
        # The terminal's bell when it becomes this player's turn after another player's move
        # (a network game): the window may be behind another one.
        mine = c.awaiting is not None and c.position.phase is not Phase.OVER
        if mine and not self._was_mine and self._with_others():
            self.app.output.bell()
        self._was_mine = mine
        self.app.invalidate()

    def _follow(self, before: Position, count: int, heard: int) -> tuple[tuple[int, str], ...]:
        """Word and mark what the actions after the first ``count`` did beyond their own text.

        The position is followed from ``before`` through each new action (the engine's
        ``turn_effects``): forced, removed and out workers and blocks taken away are said in
        the messages, after the first message that came with them, and the last action's
        are marked on the board.
        """
        c = self.controller
        p = previous = before
        effects: tuple[Effect, ...] = ()
        try:
            for n, action in enumerate(c.actions[count:], start=count + 1):
                q = apply_action(p, action)
                effects = turn_effects(p, action, q) if isinstance(action, Turn) else ()
                god = p.gods[p.to_move] if p.to_move < len(p.gods) else ""
                for e in effects:
                    text = describe_effect(p, e)
                    if god and god != "?" and e.kind is not EffectKind.OUT:
                        text = f"{god}: {text}"
                    self._effects.append((min(heard + 1, len(c.messages)), n, text))
                previous, p = p, q
        except SantoriniError:
            return last_move_marks(before, c.position)
        if p != c.position:  # not the game the actions make: mark only what changed
            return last_move_marks(before, c.position)
        return last_move_marks(previous, c.position, effects)

    def _prompt(self) -> StyleAndTextTuples:
        c = self.controller
        p = c.position
        seat = c.awaiting
        if seat is None:
            return [("class:prompt", "  > ")]
        letter = letter_of(p, p.side_of(seat))
        return [(f"class:prompt class:worker.{letter.lower()}.name bold", f"{letter}> ")]

    def _status(self) -> str:
        c = self.controller
        p = c.position
        if c.stopped:
            return "stopped"
        if p.phase is Phase.OVER:
            result = outcome(p)
            if result.winner is None:
                return "game over"
            return f"game over: {self._winner_words(p, result.winner)} won"
        seats = c.seats()
        if p.to_move >= len(seats):
            # A spectator before the host has written the header: no seat is known yet.
            return "waiting for the game to start"
        view = seats[p.to_move]
        who = f"seat {p.to_move + 1} ({letter_of(p, p.side_of(p.to_move))}) {view.name}"
        if c.awaiting is not None:
            return f"{who}: your turn"
        pause = self.features.pause
        if not view.human and self._watching() and pause is not None and pause.paused:
            return f"{who}: paused"
        if not view.human:
            return f"{who}: thinking"
        return f"{who}: waiting"

    def _winner_words(self, p: Position, winner: int) -> str:
        """Who won, for the title: ``You`` when this screen's player did, else their names."""
        seats = self.controller.seats()
        side = p.side_of(winner)
        team = [v for v in seats if v.seat < p.players and p.side_of(v.seat) == side]
        people = [v for v in seats if v.local and v.human]
        if team and people and len(people) < len(seats) and all(v in people for v in team):
            return "You"
        if team and all(v.name for v in team):
            return " and ".join(v.name for v in team)
        return winner_text(p, winner)

    def _title(self) -> StyleAndTextTuples:
        """The title bar; on a narrow terminal the game's title gives way to the status."""
        status = f" | {self._status()}"
        width = get_app().output.get_size().columns
        right = " ? help "
        room = max(0, width - len(right))
        title = self.controller.title
        bare = re.sub(r" \([^()]*\)$", "", title)
        # A fingerprint in parentheses goes first, then the program's name, so that an
        # address in the title stays whole when that is enough; otherwise the title is cut.
        fits = [
            h
            for h in (f" Santorini | {title}", f" Santorini | {bare}", f" {bare}")
            if len(h) + len(status) <= room
        ]
        head = fits[0] if fits else f" Santorini | {bare}"
        if len(head) + len(status) > room:
            head = head[: max(0, room - len(status) - 1)] + "~"
        return [("class:title", (head + status)[:room].ljust(room) + right)]

    def _board(self) -> StyleAndTextTuples:
        self._show_small(False)
        c = self.controller
        p = c.position
        awaiting = c.awaiting is not None and self.lists_ready(p)
        marks = marks_for(p, self.input.buffer.text) if awaiting else Marks()
        marks = replace(marks, last=self._last_marks())
        return render_board(p, marks, self._click_handler)

    def lists_ready(self, p: Position) -> bool:
        """Whether completion and marks for ``p`` answer at once; if not, start making them.

        A position of hundreds of thousands of turns takes seconds to list: a thread lists
        them while the board, the clocks and Enter go on, and the screen is drawn again when
        they are done.
        """
        if ready(p):
            return True
        if self._listing != p:
            self._listing = p

            def work() -> None:
                try:
                    prepare(p)
                except Exception:  # the game goes on without completion; the log says why
                    LOG.exception("listing the turns of %s for completion failed", p)
                    return
                self.app.invalidate()

            threading.Thread(target=work, name="santorini-turn-lists", daemon=True).start()
        return False

    def _last_marks(self) -> tuple[tuple[int, str], ...]:
        """The last action's squares: what it changed, or (opened mid-game) what its text names."""
        if self._last:
            return self._last
        c = self.controller
        last = c.actions[-1] if c.actions else None
        if not isinstance(last, Turn) or len(c.actions) != self._seen[0]:
            return ()
        return text_marks(str(last))

    def _click_handler(self, square: int) -> Callable[[MouseEvent], object]:
        def handler(event: MouseEvent) -> object:
            if event.event_type != MouseEventType.MOUSE_UP:
                return NotImplemented
            self.click(square)
            return None

        return handler

    def _panel_height(self) -> int:
        """The height of the seats and turns panel: the board's, or more in a tall window.

        The panel takes the rows left after the messages and the lines below them.
        """
        rows = get_app().output.get_size().rows
        return max(BOARD_HEIGHT, rows - 4 - PANEL_MESSAGES)

    def _panel(self) -> StyleAndTextTuples:
        c = self.controller
        width = max(20, get_app().output.get_size().columns - BOARD_WIDTH - 1)
        height = self._panel_height()
        return list(render_panel(c.position, c.seats(), c.actions, width, height))

    def _lines(self) -> list[tuple[str, str]]:
        """The messages, with what the powers did after the message of each turn.

        Chat lines are left out while chat is muted (``mute``, local to this screen).
        """
        messages = self.controller.messages
        notes = sorted(self._effects, key=lambda e: e[0])
        out: list[tuple[str, str]] = []
        k = 0
        for i, m in enumerate(messages):
            while k < len(notes) and notes[k][0] <= i:
                out.append(("class:msg.effect", "   " + notes[k][2]))
                k += 1
            if self.muted and m.chat:
                continue
            out.append((f"class:msg.{m.kind.value}", " " + m.text))
        out.extend(("class:msg.effect", "   " + n[2]) for n in notes[k:])
        return out

    def _messages(self) -> StyleAndTextTuples:
        lines = self._lines()
        out: StyleAndTextTuples = []
        for i, (style, text) in enumerate(lines):
            if i == len(lines) - 1:
                style += " class:msg.last"
            out.append((style, text + "\n"))
        if self.error:
            out.append(("class:msg.error", " " + self.error + "\n"))
        elif self.notice:
            out.append(("class:msg.effect", " " + self.notice + "\n"))
        return out

    def _message_cursor(self) -> Point:
        extra = 1 if self.error or self.notice else 0
        return Point(0, max(0, len(self._lines()) + extra - 1))

    def _help_cursor(self) -> Point:
        last = self._help().count("\n")
        self._help_line = min(self._help_line, last)
        return Point(0, self._help_line)

    def _result_line(self) -> str:
        """The game's result as the game said it, when the message log does not show it.

        That is its last win, loss or game-over note, once a small screen's log (a line or
        two) has scrolled past it; else ``""``.
        """
        info = self._messages_window.render_info
        rows = info.window_height if info is not None else 0
        for back, note in enumerate(reversed(self.controller.messages)):
            if note.kind in (NoteKind.WIN, NoteKind.LOSS) or note.text.startswith(
                "The game is over"
            ):
                return note.text.rstrip(".!") if back >= rows else ""
        return ""

    def _hint(self) -> StyleAndTextTuples:
        c = self.controller
        p = c.position
        error = self.input.buffer.validation_error
        if error is not None and c.awaiting is not None:
            return [("class:hint.error", f" ! {error.message}")]
        if c.stopped:
            return [("class:hint.error", f" {c.stopped}")]
        rematch = self.features.rematch
        if p.phase is Phase.OVER and rematch is not None and rematch.rematch_line:
            return [("class:hint.invite", f" {rematch.rematch_line}")]
        if p.phase is Phase.OVER:
            undo = ", Ctrl-Z to undo" if c.can_undo else ""
            reviews = (", r to review it with the engine", ", r reviews it", "")
            width = get_app().output.get_size().columns
            # The longest that fits: a cut hint says nothing whole (the toolbar shows r too).
            said = [f" Game over: {self._leave}{r}{undo}." for r in reviews if self._can_review()]
            said.append(f" Game over: {self._leave}{undo}.")
            # Who won and how comes first: on a small screen the message log may show one
            # line only, and the keys are in the toolbar too.
            result = self._result_line()
            if result:  # said here, the keys being in the toolbar too
                said = [f" Game over: {result}.", f" {result}."]
            fits = [h for h in said if len(h) <= width]
            return [("class:hint", fits[0] if fits else _cut(said[-1], width))]
        takebacks = self.features.takebacks
        if takebacks is not None and takebacks.takeback_asked is not None:
            text = f" Take back {takebacks.takeback_asked}? y accepts, n refuses (Enter)."
            return [("class:hint.invite", text)]
        objecting = self.features.objecting
        question = objecting.objection_asked if objecting is not None else None
        if question is not None:
            return [("class:hint.invite", f" {question} (Enter)")]
        choosing = self.features.choosing
        asked = choosing.choice_asked if choosing is not None else None
        if asked is not None:
            squares = ", ".join(a[1:] for a in asked[1] if a != "-")
            text = (
                f" Your power: after {asked[0]}, put a worker from your card on a square "
                f"({squares}) or type - for none (Enter)."
            )
            return [("class:hint.invite", text)]
        if c.awaiting is None:
            invite = self._invite()
            if invite is not None:
                return [("class:hint.invite", invite)]
            return [("class:hint", f" {self._status()}...")]
        if p.phase is Phase.GODS:
            return [("class:hint", " Choose: Tab shows the choices, Enter takes one.")]
        # The long form where it fits, else a short one: a cut hint says nothing whole.
        forms: tuple[str, ...]
        if p.phase is Phase.PLACE and p.owed:
            forms = (
                " Choose your song's direction (like song w); Tab completes.",
                " Song: song w; Tab completes.",
            )
        elif p.phase is Phase.PLACE and any(
            find_god(g).names_female and not p.state_of(s)
            for s, g in enumerate(p.gods)
            if g not in ("", "?") and p.side_of(s) == p.side_of(p.to_move)
        ):
            forms = (
                " Place your workers, * after your female's square (like b2,d4*); Tab completes.",
                " Place two workers (like b2,d4*); Tab completes.",
            )
        elif p.phase is Phase.PLACE:
            forms = (
                " Place your workers: two squares (like b2,d4); Tab completes.",
                " Place two workers (like b2,d4); Tab completes.",
            )
        else:
            typed = self.input.buffer.text.strip()
            listed_now = self.lists_ready(p)
            kinds = step_kinds(p, typed) if typed and listed_now else []
            if not listed_now:
                forms = (
                    " Your turn: listing its many turns for Tab; type a turn and Enter plays it.",
                    " Your turn: listing its turns for Tab.",
                    " Your turn.",
                )
            elif kinds:
                # What can come next, by kind: "> move, ~ ferry" (the engine's own turns).
                listed = ", ".join(kinds)
                forms = (
                    f" Next: {listed}. Tab completes.",
                    f" Next: {listed}.",
                    " Next: " + ", ".join(k.split(" ")[0] for k in kinds),
                )
            elif (after := _after_worker(p)) != ["> move"] and after:
                # A power's own first steps (a ferry, a build first) are named from the start.
                listed = " or ".join(after)
                forms = (
                    f" Your turn: a worker, then {listed}. Tab completes, Enter plays.",
                    f" Your turn: a worker, then {listed}. Tab completes.",
                    " Your turn: " + ", ".join(after) + ". Tab completes.",
                    " Your turn (like b2>c3^d4): Tab completes, Enter plays.",
                )
            else:
                forms = (
                    " Your turn: worker, move, build (like b2>c3^d4). Tab completes, Enter plays.",
                    " Your turn (like b2>c3^d4): Tab completes, Enter plays.",
                )
        width = get_app().output.get_size().columns
        return [("class:hint", next((f for f in forms if len(f) <= width), forms[-1]))]

    def _invite(self) -> str | None:
        """While a hosted game waits for players: the address they join, never cut."""
        c = self.controller
        seats = c.seats()
        if c.stopped or len(seats) >= c.position.players:
            return None
        if not any(v.seat == 0 and v.local for v in seats):
            return None  # a joiner (seat 0 is the host's): it is not the one others join
        found = re.match(r"LAN game at (\S+)", c.title)
        if found is None:
            return None
        address = found.group(1)
        text = f" Waiting for players; they join with: santorini join {address}"
        width = get_app().output.get_size().columns
        for shorter in (f" Others join with: santorini join {address}", f" Join at {address}"):
            if len(text) <= width:
                break
            text = shorter
        return text

    def _too_small(self) -> StyleAndTextTuples:
        """Shown in place of the screen when it does not fit: sizes, whose turn, time left.

        A game at this terminal stops its clocks while the board cannot be seen; a network
        game cannot stop them for the other players, so the screen says they run.
        """
        self._show_small(True)
        size = get_app().output.get_size()
        lines: StyleAndTextTuples = [
            (
                "class:hint.error",
                f" Window too small: needs {MIN_COLUMNS}x{MIN_ROWS}, "
                f"this is {size.columns}x{size.rows}.\n",
            ),
            ("class:title", f" {self._status()}"),
        ]
        c = self.controller
        if c.position.phase is Phase.OVER or c.stopped:
            return lines
        running = next((v for v in c.seats() if v.clock is not None and v.clock.running), None)
        if running is not None and running.clock is not None:
            clock = running.clock
            left = f"{format_clock(clock.move_ms)} +{format_clock(clock.bank_ms)}"
            lines.append(("class:title", f" {left} left"))
            held = self.features.clock_hold is not None
            lines.append(
                (
                    "class:hint",
                    "\n Clocks stopped until the window is larger."
                    if held
                    else "\n The clocks run on: a network game cannot wait.",
                )
            )
        return lines

    def _show_small(self, small: bool) -> None:
        """The screen is drawn too small (or whole again): a local game's clocks stop (run)."""
        hold = self.features.clock_hold
        if small != self._small and hold is not None:
            hold.hold_clocks(small)
        self._small = small

    def _help(self) -> str:
        """The help, wrapped to the help box (the screen's width less its frame)."""
        c = self.controller
        network = self.features.takebacks is not None
        kinds = set() if self._spectating else {"network" if network else "local"}
        if self._watching():
            kinds.add("watching")
        return help_text(c.position, get_app().output.get_size().columns - 2, frozenset(kinds))

    def _toolbar(self) -> StyleAndTextTuples:
        c = self.controller
        keys = " Tab complete  Enter play " if any(v.local and v.human for v in c.seats()) else " "
        pause = self.features.pause
        if self._watching() and pause is not None:
            keys = " p pause  n one move " if not pause.paused else " p play on  n one move "
        undo = " Ctrl-Z undo " if c.can_undo else ""
        if self._can_review():
            keys = " r review "
        if self._spectating and self._spectator_chats():
            return [("class:title", " watching: type a line and Enter to chat  Ctrl-Q leave ")]
        if self._spectating:
            return [("class:title", " watching: nothing to play here  q leave  ? help ")]
        if self._can_rematch():
            keys += " m rematch "
        return [("class:title", f"{keys}{undo} ? help  Ctrl-Q leave ")]

    # -- layout -------------------------------------------------------------------------------

    def _layout(self) -> FloatContainer:
        board = Window(
            FormattedTextControl(_safe(self._board), focusable=False),
            width=BOARD_WIDTH,
            height=BOARD_HEIGHT,
        )
        panel = Window(
            FormattedTextControl(_safe(self._panel)), height=self._panel_height, wrap_lines=False
        )
        messages = Window(
            FormattedTextControl(_safe(self._messages), get_cursor_position=self._message_cursor),
            height=Dimension(min=1, preferred=8),
            wrap_lines=True,
        )
        self._messages_window = messages
        too_small = Window(FormattedTextControl(self._too_small), wrap_lines=True)
        body = HSplit(
            [
                Window(FormattedTextControl(_safe(self._title)), height=1),
                VSplit([board, Window(width=1), panel], window_too_small=too_small),
                messages,
                Window(FormattedTextControl(_safe(self._hint)), height=1, wrap_lines=False),
                ConditionalContainer(
                    self.input,
                    filter=Condition(lambda: not self._spectating or self._spectator_chats()),
                ),
                Window(FormattedTextControl(_safe(self._toolbar)), height=1),
            ],
            window_too_small=too_small,
        )
        self._help_window = Window(
            FormattedTextControl(
                self._help,
                get_cursor_position=self._help_cursor,
            ),
            wrap_lines=True,
        )
        help_box = ConditionalContainer(
            Frame(
                self._help_window,
                title="Help",
                style="class:help",
            ),
            filter=Condition(lambda: self.show_help),
        )
        return FloatContainer(
            body,
            floats=[
                # The menu of choices sits beside the board, over the side panel, so that the
                # board stays in sight while one chooses, however small the window.
                Float(
                    left=BOARD_WIDTH + 1,
                    top=1,
                    content=CompletionsMenu(max_height=BOARD_HEIGHT, scroll_offset=1),
                ),
                Float(content=help_box, top=1, bottom=1, left=0, right=0),
            ],
        )

    def _help_rows(self) -> int:
        """How many lines of the help show at once."""
        info = self._help_window.render_info
        return max(1, info.window_height if info else 1)

    def _scroll_help(self, lines: int) -> None:
        """Move the help ``lines`` lines down (up if negative), past the edge shown.

        The help's cursor goes just beyond the first or last line shown, and the window
        follows it. Keys pressed faster than the screen redraws count from the cursor, not
        from the lines last drawn, so that none is lost.
        """
        info = self._help_window.render_info
        top = info.first_visible_line() if info else 0
        bottom = info.last_visible_line() if info else 0
        last = self._help().count("\n")
        if lines < 0:
            self._help_line = max(0, min(top, self._help_line) + lines)
        else:
            self._help_line = min(last, max(bottom, self._help_line) + lines)

    def _key_bindings(self) -> KeyBindings:
        kb = KeyBindings()
        helping = Condition(lambda: self.show_help)

        @kb.add("f1")
        @kb.add("?")
        def _help(event: KeyPressEvent) -> None:
            self.show_help = not self.show_help
            self._help_line = 0

        @kb.add("escape", filter=helping, eager=True)
        def _close_help(event: KeyPressEvent) -> None:
            self.show_help = False

        @kb.add("up", filter=helping)
        def _help_up(event: KeyPressEvent) -> None:
            self._scroll_help(-1)

        @kb.add("down", filter=helping)
        def _help_down(event: KeyPressEvent) -> None:
            self._scroll_help(1)

        @kb.add("pageup", filter=helping)
        def _help_page_up(event: KeyPressEvent) -> None:
            self._scroll_help(-self._help_rows())

        @kb.add("pagedown", filter=helping)
        def _help_page_down(event: KeyPressEvent) -> None:
            self._scroll_help(self._help_rows())

        # The first Tab shows the choices and takes none (one alone is typed at once); Tab
        # again, or the arrows, go through them, and Enter takes the one shown.
        @kb.add("tab")
        def _next(event: KeyPressEvent) -> None:
            b = event.current_buffer
            if b.complete_state:
                b.complete_next()
            else:
                self.open_menu(b, take_alone=True)

        @kb.add("s-tab")
        def _previous(event: KeyPressEvent) -> None:
            b = event.current_buffer
            if b.complete_state:
                b.complete_previous()
            else:
                self.open_menu(b, take_alone=True)

        @kb.add("escape", filter=~helping, eager=True)
        def _clear(event: KeyPressEvent) -> None:
            b = event.current_buffer
            if b.complete_state:
                b.cancel_completion()
            else:
                b.reset()
            # What the cleared message asked for is dropped with it: a pending leave or
            # resignation needs its Ctrl-Q or resign typed afresh.
            self.error = None
            self._leaving = self._resigning = False

        @kb.add("c-u", filter=~helping)
        def _clear_line(event: KeyPressEvent) -> None:
            event.current_buffer.reset()
            self.error = None
            self._leaving = self._resigning = False

        watching = Condition(self._watching)

        @kb.add("p", filter=watching)
        @kb.add("space", filter=watching)
        def _pause(event: KeyPressEvent) -> None:
            pause = self.features.pause
            if pause is not None:
                pause.pause(not pause.paused)

        @kb.add("n", filter=watching)
        def _step(event: KeyPressEvent) -> None:
            if self.features.pause is not None:
                self.features.pause.step()

        @kb.add("r", filter=Condition(self._can_review) & ~helping)
        def _review(event: KeyPressEvent) -> None:
            event.app.exit(result="review")

        rematch = Condition(self._can_rematch) & ~helping

        @kb.add("m", filter=rematch)
        @kb.add("y", filter=rematch)
        def _ask_rematch(event: KeyPressEvent) -> None:
            if self.features.rematch is not None:
                self.features.rematch.answer_rematch(True)

        @kb.add("n", filter=rematch)
        def _decline_rematch(event: KeyPressEvent) -> None:
            if self.features.rematch is not None:
                self.features.rematch.answer_rematch(False)

        @kb.add("c-z")
        def _undo(event: KeyPressEvent) -> None:
            self.command("undo")

        @kb.add("c-q")
        def _leave(event: KeyPressEvent) -> None:
            self.leave()

        @kb.add(
            "q",
            filter=Condition(lambda: self._spectating and not self._spectator_chats()) & ~helping,
        )
        def _stop_watching(event: KeyPressEvent) -> None:
            self.app.exit(result="menu")

        watched_to_end = Condition(
            lambda: (
                self._spectating
                and (
                    self.controller.position.phase is Phase.OVER
                    or self.controller.stopped is not None
                )
            )
        )

        @kb.add("enter", filter=watched_to_end & ~helping)
        def _watched(event: KeyPressEvent) -> None:
            self.app.exit(result="menu")  # as the game-over hint says

        @kb.add("c-c")
        def _quit(event: KeyPressEvent) -> None:
            event.app.exit(result="quit")

        return kb

    def close(self, result: str = "menu") -> None:
        """Leave the screen from outside (the game ended elsewhere); ``run`` returns ``result``."""
        future = self.app.future
        if self.app.is_running and future is not None and not future.done():
            self.app.exit(result=result)

    async def run(self, *, drive: bool = True) -> str:
        """Show the screen with ``controller.run()`` beside it; return ``"menu"`` or ``"quit"``.

        With ``drive`` false the caller already runs ``controller.run()`` and the screen only
        shows the game (a network game started by ``net/``).
        """
        if not drive:
            try:
                return await self.app.run_async() or "menu"
            finally:
                self._unlisten()
        task = asyncio.create_task(self.controller.run())

        def finished(t: asyncio.Task[None]) -> None:
            if not t.cancelled() and t.exception() is not None:
                self.error = f"the game stopped: {t.exception()}"
                self.app.invalidate()

        task.add_done_callback(finished)
        try:
            result = await self.app.run_async()
        finally:
            self._unlisten()
            task.cancel()
            with contextlib.suppress(asyncio.CancelledError):
                await task
        return result or "menu"

    # -- input --------------------------------------------------------------------------------

    def _spectator_chats(self) -> bool:
        """Whether this spectator's host lets it chat: the screen then has an input line."""
        return bool(getattr(self.controller, "may_chat", False))

    def _watching(self) -> bool:
        """Whether only computer players play here, in a game that can be paused."""
        c = self.controller
        return (
            self.features.pause is not None
            and c.position.phase is not Phase.OVER
            and not any(v.human for v in c.seats())
        )

    def _can_review(self) -> bool:
        """Whether r reviews the game: it is over, saved as a replay, and nothing is typed.

        Only a game with something to judge: a turn of play, and two sides (games of 3 players
        are not reviewed).
        """
        c = self.controller
        return (
            self._review
            and c.position.phase is Phase.OVER
            and c.position.sides == 2
            and c.replay is not None
            and not self.input.buffer.text
            and any(isinstance(a, Turn) for a in c.actions)
        )

    def _can_rematch(self) -> bool:
        """Whether m (or y, n) answers the rematch vote: the game is over, nothing is typed."""
        rematch = self.features.rematch
        return (
            rematch is not None
            and rematch.can_answer_rematch
            and self.controller.position.phase is Phase.OVER
            and not self.input.buffer.text
        )

    def _with_others(self) -> bool:
        """Whether a person here plays others elsewhere and the game goes on (a network game)."""
        c = self.controller
        seats = c.seats()
        return (
            c.position.phase is not Phase.OVER
            and c.stopped is None
            and any(v.local and v.human for v in seats)
            and any(not v.local for v in seats)
        )

    def leave(self) -> None:
        """Ctrl-Q: leave the screen; a network game going on asks for a second Ctrl-Q first."""
        if self._with_others() and not self._leaving:
            self._leaving = True
            self.error = (
                "Ctrl-Q again to leave this game (it is kept: the same command, or Host or Join "
                "on the start screen, resumes it)."
            )
            self.app.invalidate()
            return
        self.app.exit(result="menu")

    def command(self, word: str) -> None:
        """Carry out one of ``COMMANDS``; errors become the screen's error line.

        ``resign`` asks to be typed twice in a row, so that no single slip loses a game.
        """
        self.error = None
        leaving, self._leaving = self._leaving, False
        confirming, self._resigning = self._resigning, False
        try:
            if word == "undo":
                self.controller.undo()
            elif word == "resign" and not confirming:
                self._resigning = True
                self.error = "Type resign again to resign the game."
            elif word == "resign":
                self.controller.resign()
            elif word == "quit":
                self._leaving = leaving
                self.leave()
            elif word == "help":
                self.show_help = True
            elif word == "takeback" and self.features.takebacks is not None:
                self.features.takebacks.ask_takeback()
            elif word == "takeback":
                self.error = "Only a network game takes a takeback request; here, undo."
            elif word == "say":
                self.error = "Type say and the line to send (say good game)."
            elif word == "mute":
                self.muted = not self.muted
                self.error = "Chat muted (mute again to show it)." if self.muted else None
        except SantoriniError as e:
            self.error = str(e)
        self.input.buffer.reset()
        self.app.invalidate()

    def _accept(self, buffer: Buffer) -> bool:
        """Play a complete action, go one step on with a partial one, or run a command."""
        try:
            return self._accept_text(buffer)
        except Exception as e:  # an edge (STYLE.md section 6): report, keep the game
            LOG.exception("input failed")
            self.error = f"that did not work: {e}"
            return True

    def _accept_text(self, buffer: Buffer) -> bool:
        c = self.controller
        text = buffer.text.strip()
        self.error = self.notice = None
        chat = self.features.chat
        if self._spectating and chat is not None and text and text.lower() not in COMMANDS:
            # A spectator types a line (or say and a line): all it can send is chat.
            line = text[len(_SAY) :] if text.lower().startswith(_SAY) else text
            try:
                chat.say(line)
            except SantoriniError as e:
                self.error = str(e)
            buffer.reset()
            return False
        if text.lower().startswith(_SAY) and chat is not None:
            try:
                chat.say(text[len(_SAY) :])
            except SantoriniError as e:
                self.error = str(e)
            buffer.reset()
            return False
        choosing = self.features.choosing
        if (
            choosing is not None
            and choosing.choice_asked is not None
            and text
            and text.lower() not in COMMANDS
        ):
            # A power that chooses in another player's turn: its player answers (SPEC.md 8.4).
            try:
                choosing.answer_choice(text)
            except SantoriniError as e:
                self.error = str(e)
            buffer.reset()
            return False
        answer = _ANSWERS.get(text.lower())
        objecting = self.features.objecting
        if answer is not None and objecting is not None and objecting.objection_asked is not None:
            # A turn breaks this player's hidden god: object and reveal, or accept (SECRET.md 7.3).
            try:
                objecting.answer_objection(answer)
            except SantoriniError as e:
                self.error = str(e)
            buffer.reset()
            return False
        takebacks = self.features.takebacks
        if answer is not None and takebacks is not None and takebacks.takeback_asked is not None:
            try:
                takebacks.answer_takeback(answer)
            except SantoriniError as e:
                self.error = str(e)
            buffer.reset()
            return False
        if text.lower() in COMMANDS:
            self.command(text.lower())
            return False
        self._resigning = self._leaving = False
        if c.awaiting is None:
            if not text and (c.position.phase is Phase.OVER or c.stopped):
                self.app.exit(result="menu")
            return False
        p = c.position
        canonical = find_action(p, text)
        state = buffer.complete_state
        chosen = state is not None and state.current_completion is not None
        if canonical is not None and chosen and next_steps(p, text):
            # A whole turn taken from the menu that can go on (a second build, a block
            # removed after it): Enter offers the steps on, and Enter again plays it as it is, so
            # that Tab and Enter alone reach every turn.
            self.open_menu(buffer)
            return True
        if canonical is not None:
            self._submit(p, canonical)
            if self.error is None and canonical.lower() != text.lower().replace(" ", ""):
                # Another spelling of the turn (a both-workers turn of one step, builds in another
                # order): it is recorded in its one written form, and the player is told.
                self.notice = f"Played as {canonical} (the same turn, as it is written)."
            return False
        if self.lists_ready(p) and (not text or is_prefix(p, text)):
            self.open_menu(buffer)
        return True

    def open_menu(
        self, buffer: Buffer, select: int | None = None, *, take_alone: bool = False
    ) -> None:
        """Open the menu of next steps at once, selecting the ``select``-th (None: none).

        With ``take_alone``, a step that is the only one is typed in at once, with no menu.
        The steps are read here and now, not by prompt_toolkit's background completion,
        which drops a Tab pressed while it runs (a Tab right after Enter would be lost).
        """
        document = buffer.document
        found = list(self._completer.get_completions(document, CompleteEvent()))
        buffer.complete_state = None
        if not found:
            return
        if take_alone and len(found) == 1:
            buffer.apply_completion(found[0])
            return
        buffer.complete_state = CompletionState(original_document=document, completions=found)
        if select is not None:
            buffer.go_to_completion(select % len(found))

    def _submit(self, p: Position, canonical: str) -> None:
        """Send the legal action whose text is ``canonical``; a refusal becomes the error line."""
        try:
            self.controller.submit(parse_action(canonical))
        except SantoriniError as e:
            self.error = str(e)

    def click(self, square: int) -> None:
        """Extend the input with a clicked square; play the action when it is complete."""
        c = self.controller
        if c.awaiting is None or not self.lists_ready(c.position):
            return
        p = c.position
        b = self.input.buffer
        typed = b.text.strip()
        step = _step_to(p, typed, square) or _step_to(p, "", square)
        if step is None:
            return
        b.text = step
        b.cursor_position = len(step)
        canonical = find_action(p, step)
        if canonical is not None and not next_steps(p, step):
            self._submit(p, canonical)
            b.reset()
        self.app.invalidate()


def _after_worker(p: Position) -> list[str]:
    """The kinds of step that can follow a worker's square, over every worker (``> move``)."""
    out: list[str] = []
    for first in next_steps(p, ""):
        if first[:1] == "H":
            continue
        for kind in step_kinds(p, first):
            if kind not in out and kind != "Enter plays":
                out.append(kind)
    return out


def text_marks(text: str) -> tuple[tuple[int, str], ...]:
    """The signs a turn's text alone gives its squares (SPEC.md 2.1).

    For a turn whose position before is not known (a game opened mid-way): where the worker
    left and arrived, its builds, a worker ferried away (``~``: it left), a block taken away.
    """
    signs: dict[int, str] = {}
    starts = [0, *step_starts(text), len(text)]
    steps = [text[a:b] for a, b in pairwise(starts)]
    moves = [i for i, s in enumerate(steps) if s[:1] == ">"]
    for i, step in enumerate(steps):
        named = squares_in(step)
        if not named:
            continue
        s, mark = named[0], step[:1]
        if i == 0 and mark == "H":
            signs.update((n, LAST_TO) for n in named)
        elif i == 0 or mark == "~":
            signs[s] = LAST_FROM
        elif (mark == ">" and i == moves[-1]) or mark == ",":
            signs[s] = LAST_TO
        elif mark == "^" and signs.get(s) != LAST_TO:
            signs[s] = (LAST_FROM if signs.get(s, "").startswith(LAST_FROM) else "") + LAST_BUILD
        elif mark == "-":
            signs[s] = LAST_UNBUILT
    return tuple(sorted(signs.items()))


def _step_to(p: Position, typed: str, square: int) -> str | None:
    """The next step from ``typed`` that names ``square`` (the first, in the engine's order)."""
    for step in next_steps(p, typed):
        named = squares_in(last_step(step))
        if named and named[-1] == square:
            return step
    return None


async def run_game(
    controller: GameController,
    *,
    mouse: bool = True,
    drive: bool = True,
    leave: str = START_SCREEN,
    review: Callable[[Path], Awaitable[str | None]] | None = None,
) -> str:
    """Run the game screen and ``controller.run()`` together; return ``"menu"`` or ``"quit"``.

    With ``drive`` false only the screen runs: the caller drives the controller. ``leave`` is
    the hint shown once the game is over (where Enter goes). ``review``, when given, is
    offered at game over (the r key) on the replay file the game was saved as; the game
    screen comes back after it, with the line it returns as its note.
    """
    note: str | None = None
    while True:
        screen = GameScreen(controller, mouse=mouse, leave=leave, review=review is not None)
        screen.error = note
        result = await screen.run(drive=drive)
        replay = controller.replay
        if result != "review" or review is None or replay is None:
            return result
        drive = False  # the game is over: nothing is left to drive
        note = await review(replay)
