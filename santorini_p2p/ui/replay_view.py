"""The replay viewer: step through a replay file's positions with the arrow keys.

``load_replay`` folds the file through the one log validator (``wire.log``) and keeps the
position after every record that changed it; a file that fails verification keeps every
step up to its first bad record, which the viewer marks. ``ReplaySteps`` is the pure step
model; ``view_replay`` is the screen around it.

With the engine review stored beside the file (``santorini replay review``; only one made of
the same bytes), the turn list carries the marks (?! inaccuracy, ? mistake, ?? blunder,
(missed win)), a line under the board gives the evaluations before and after the turn just
played and the engine's best turn there, and the board brackets the engine's best turn in the
position shown.
"""

from __future__ import annotations

import asyncio
import contextlib
import sys
from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Final

from prompt_toolkit.application import Application
from prompt_toolkit.application.current import get_app
from prompt_toolkit.data_structures import Point
from prompt_toolkit.formatted_text import StyleAndTextTuples
from prompt_toolkit.key_binding import KeyBindings, KeyPressEvent
from prompt_toolkit.layout import FormattedTextControl, HSplit, Layout, VSplit, Window

from santorini_p2p.engine import Phase, Position, find_turn, turn_effects
from santorini_p2p.errors import ReplayError, SantoriniError, WireError
from santorini_p2p.net.views import SeatInfo
from santorini_p2p.replay.review import PlayerSummary, Review, load_review, review_path
from santorini_p2p.ui.app import STYLE
from santorini_p2p.ui.board_view import (
    BOARD_HEIGHT,
    BOARD_WIDTH,
    Marks,
    last_move_marks,
    render_board,
    render_panel,
    standing_lines,
)
from santorini_p2p.ui.completer import squares_in

__all__ = [
    "MARK_SIGNS",
    "ReplaySteps",
    "Step",
    "TurnNote",
    "board_marks",
    "load_replay",
    "show_replay",
    "view_replay",
    "view_replay_file",
]

MARK_SIGNS: Final = {
    "inaccuracy": "?!",
    "mistake": "?",
    "blunder": "??",
    "missed win": "(missed win)",
}
"""How the turn list writes each mark of an engine review."""


@dataclass(frozen=True, slots=True)
class Step:
    """One position of a replay and the record that led to it (``text`` its action or event).

    ``act`` is true for an action's step (a turn, a placement, a god chosen), false for an
    event's (a takeback accepted, a resignation, a timeout, the result).
    """

    position: Position
    text: str
    record: int
    act: bool = True
    number: int = 0
    """An action's number as the game's turn list gave it then (setup included; a turn taken
    back gives its number to the next); 0 for an event, which is an unnumbered note."""


@dataclass(frozen=True, slots=True)
class TurnNote:
    """The engine review of one turn: its mark, the best turn, the evaluations (as text)."""

    mark: str | None
    best: str
    before: str
    after: str


def _eval_text(e: float | str) -> str:
    return e if isinstance(e, str) else f"{round(100 * e)}%"


@dataclass(slots=True)
class ReplaySteps:
    """The step model: the positions of a replay, where the viewer stands, and what verified.

    ``steps[0]`` is the first position (``text`` empty); ``index`` the one shown. ``status``
    is the verification line for the top of the screen; ``bad`` the first bad record's number
    and ``bad_reason`` why, when the file fails verification. ``empty``: the file reaches no
    position at all (not a replay, or one cut off before the game began); ``steps`` then
    holds a blank board only.
    """

    steps: list[Step]
    names: tuple[str, ...] = ()
    fingerprints: tuple[str, ...] = ()
    status: str = ""
    ok: bool = True
    bad: int | None = None
    bad_reason: str = ""
    empty: bool = False
    index: int = field(default=0)
    notes: dict[int, TurnNote] = field(default_factory=dict)
    """The engine review of each turn, by the index of the step it leads to."""
    summary: tuple[str, ...] = ()
    """Each player's turns the review marks, counted (shown at the start)."""

    def attach_review(self, review: Review) -> bool:
        """Show ``review`` with the steps; False (and nothing shown) if its turns are not these."""
        indexes = [
            i
            for i in range(1, len(self.steps))
            # A turn of play: an action from a position in play (so a turn later taken back
            # too, as the review judges it), never an event such as an accepted takeback.
            if self.steps[i].act and self.steps[i - 1].position.phase is Phase.PLAY
        ]
        if len(indexes) != len(review.turns):
            return False
        self.notes = {
            i: TurnNote(r.mark, r.best, _eval_text(r.eval_before), _eval_text(r.eval_after))
            for i, r in zip(indexes, review.turns, strict=True)
        }
        self.summary = tuple(_summary_text(s) for s in review.players)
        return True

    def next_marked(self, step: int = 1) -> bool:
        """Go to the next (``step`` 1) or previous (-1) turn the review marks; False if none."""
        marked = sorted(i for i, n in self.notes.items() if n.mark)
        ahead = [i for i in marked if (i - self.index) * step > 0]
        if not ahead:
            return False
        self.index = ahead[0] if step > 0 else ahead[-1]
        return True

    @property
    def best_here(self) -> str | None:
        """The engine's best turn in the position shown, when the review has it."""
        note = self.notes.get(self.index + 1)
        return note.best if note is not None else None

    def review_line(self) -> str:
        """The evaluation line: the turn just played, judged, and the best turn from here."""
        if not self.notes:
            return ""
        parts = []
        note = self.notes.get(self.index)
        if note is not None:
            mark = f" {note.mark}" if note.mark else ""
            parts.append(
                f"{self.current.text}: {note.before} -> {note.after}{mark} (best {note.best})"
            )
        best = self.best_here
        if best is not None:
            parts.append(f"best here [ ]: {best}")
        if self.index == 0 and self.summary:
            parts = [*self.summary, "m goes to the next marked turn", *parts]
        return "review: " + (" | ".join(parts) if parts else "no turn judged here")

    @property
    def current(self) -> Step:
        """The step shown now."""
        return self.steps[self.index]

    def forward(self) -> None:
        """Go one step on (stays at the end)."""
        self.index = min(self.index + 1, len(self.steps) - 1)

    def back(self) -> None:
        """Go one step back (stays at the start)."""
        self.index = max(self.index - 1, 0)

    def to_start(self) -> None:
        """Jump to the first position."""
        self.index = 0

    def to_end(self) -> None:
        """Jump to the last position."""
        self.index = len(self.steps) - 1

    def lines(self) -> list[tuple[bool, str]]:
        """Return the turn list as ``(is_current, text)``, the bad record last when there is one."""
        out = []
        for i, s in enumerate(self.steps):
            if not i:
                continue
            note = self.notes.get(i)
            sign = f" {MARK_SIGNS[note.mark]}" if note is not None and note.mark else ""
            number = s.number or (i if s.act else 0)
            head = f"{number:>3}. " if number else "     "
            out.append((i == self.index, f"{head}{s.text}{sign}"))
        if self.bad is not None:
            out.append((False, f"  !! record {self.bad}: {self.bad_reason}"))
        return out


def _summary_text(s: PlayerSummary) -> str:
    """One player's marked turns in words: ``ann: 1 blunder, 2 mistakes, 0 inaccuracies``."""

    def count(n: int, what: str) -> str:
        return f"{n} {what}" + ("" if n == 1 else "s")

    missed = f", {count(s.missed_wins, 'missed win')}" if s.missed_wins else ""
    return (
        f"{s.name}: {count(s.blunders, 'blunder')}, {count(s.mistakes, 'mistake')}, "
        f"{s.inaccuracies} {'inaccuracy' if s.inaccuracies == 1 else 'inaccuracies'}{missed}"
    )


def load_replay(data: bytes, name: str = "<replay>") -> ReplaySteps:
    """Fold a replay file into steps; never raises for bad input (the model says what failed)."""
    from santorini_p2p.replay.export_text import TextReplayError, is_text, read_text
    from santorini_p2p.replay.verify import verify_bytes
    from santorini_p2p.wire.identity import fingerprint
    from santorini_p2p.wire.log import Validator, iter_frames
    from santorini_p2p.wire.messages import Accept, Act, Resign, Result, Timeout

    verdict = verify_bytes(data, name)
    if is_text(data):
        # A text export (SPEC.md 14): step through the signed log armoured in it.
        with contextlib.suppress(TextReplayError):  # the verdict already says why
            data = read_text(data).data
    v = Validator()
    steps: list[Step] = []
    standing = 0  # the actions that stand: the number the next one gets is one more
    bad: int | None = None
    reason = ""
    index = 0
    try:
        for raw in iter_frames(data):
            asked = v.takeback_offer
            record = v.feed(raw)
            index += 1
            p = v.position
            if p is None:
                continue
            msg = record.message
            if not steps:
                steps.append(Step(p, "", record.index))
                continue
            if p == steps[-1].position and not isinstance(msg, Act):
                continue
            names = v.names
            signer = names[record.seat] if record.seat is not None else "?"
            if isinstance(msg, Act):
                standing += 1
                steps.append(Step(p, msg.action, record.index, number=standing))
                continue
            if isinstance(msg, Resign):
                text = f"{signer} resigns"
            elif isinstance(msg, Timeout):
                late = names[msg.seat] if msg.seat < len(names) else f"seat {msg.seat + 1}"
                text = f"{late} runs out of time"
            elif isinstance(msg, Result):
                text = f"result: {msg.reason}"
            elif isinstance(msg, Accept) and msg.kind == "takeback" and asked is not None:
                text = f"({asked.turn} taken back)"
                standing -= 1
            elif isinstance(msg, Accept):
                text = f"({msg.kind} agreed)"
            else:
                text = type(msg).__name__.lower()
            steps.append(Step(p, text, record.index, act=False))
    except ReplayError as e:
        bad, reason = (e.record_index if e.record_index is not None else index), e.reason
    except WireError as e:
        bad, reason = (e.record if e.record is not None else index), e.reason
    if not verdict.ok and bad is None:
        bad, reason = verdict.record, verdict.error
    empty = not steps
    if empty:
        from santorini_p2p.engine import new_game

        steps.append(Step(new_game(2), "", 0))
    status = verdict.line() if verdict.ok else f"FAILS VERIFICATION: {verdict.line()}"
    names = v.names if v.position is not None else ()
    prints = tuple(fingerprint(k) for k in v.seats) if v.position is not None else ()
    return ReplaySteps(
        steps,
        names=names,
        fingerprints=prints,
        status=status,
        ok=verdict.ok,
        bad=bad,
        bad_reason=reason,
        empty=empty,
    )


def _nothing_to_show(model: ReplaySteps, path: str) -> str | None:
    """Why a file that reaches no position is not opened in the viewer, or None."""
    if not model.empty:
        return None
    return f"{path}: {model.bad_reason or 'the game never began'}; nothing to show"


def _seat_views(model: ReplaySteps, p: Position) -> Sequence[SeatInfo]:
    out = []
    for seat in range(p.players):
        name = model.names[seat] if seat < len(model.names) else f"seat {seat + 1}"
        short = model.fingerprints[seat][:9] if seat < len(model.fingerprints) else ""
        out.append(SeatInfo(seat=seat, name=name, local=False, human=True, fingerprint=short))
    return out


async def view_replay(model: ReplaySteps, *, mouse: bool = False) -> None:
    """Show ``model`` until the viewer quits (q, Escape or Ctrl-C)."""

    def title() -> StyleAndTextTuples:
        width = get_app().output.get_size().columns
        where = f" step {model.index}/{len(model.steps) - 1}"
        return [
            (
                "class:title",
                (" Replay | " + model.status)[: width - len(where)].ljust(width - len(where))
                + where,
            )
        ]

    def board() -> StyleAndTextTuples:
        return render_board(model.current.position, board_marks(model))

    def panel() -> StyleAndTextTuples:
        p = model.current.position
        width = max(20, get_app().output.get_size().columns - BOARD_WIDTH - 1)
        return list(render_panel(p, _seat_views(model, p), (), width, _panel_rows(model)))

    def turns() -> StyleAndTextTuples:
        out: StyleAndTextTuples = []
        for current, text in model.lines():
            style = "reverse bold" if current else ""
            if text.startswith("  !!"):
                style = "class:msg.error"
            out.append((style, ("> " if current else "  ") + text + "\n"))
        return out

    def review() -> StyleAndTextTuples:
        """The evaluation line; where it does not fit, the best turn from here goes under it."""
        line = model.review_line()
        if len(line) > get_app().output.get_size().columns:
            line = line.replace(" | ", "\n        ")
        return [("", line)]

    def cursor() -> Point:
        return Point(0, max(0, model.index - 1))

    kb = KeyBindings()

    @kb.add("right")
    @kb.add("l")
    @kb.add("n")
    @kb.add("space")
    def _forward(event: KeyPressEvent) -> None:
        model.forward()

    @kb.add("left")
    @kb.add("h")
    @kb.add("p")
    def _back(event: KeyPressEvent) -> None:
        model.back()

    @kb.add("home")
    @kb.add("g")
    def _start(event: KeyPressEvent) -> None:
        model.to_start()

    @kb.add("end")
    @kb.add("G")
    def _end(event: KeyPressEvent) -> None:
        model.to_end()

    @kb.add("m")
    def _next_marked(event: KeyPressEvent) -> None:
        model.next_marked(1)

    @kb.add("M")
    def _previous_marked(event: KeyPressEvent) -> None:
        model.next_marked(-1)

    @kb.add("q")
    @kb.add("escape", eager=True)
    @kb.add("c-c")
    @kb.add("c-q")
    def _quit(event: KeyPressEvent) -> None:
        event.app.exit()

    keys = " Left/Right step  Home/End jump  m mistake  q back " if model.notes else ""
    footer: StyleAndTextTuples = [
        ("class:title", keys or " Left/Right step  Home/End jump  q back ")
    ]
    turn_list = Window(
        FormattedTextControl(turns, get_cursor_position=cursor),
        wrap_lines=False,
    )
    right = HSplit(
        [Window(FormattedTextControl(panel), height=lambda: _panel_rows(model)), turn_list]
    )
    layout = HSplit(
        [
            Window(FormattedTextControl(title), height=1),
            VSplit(
                [
                    Window(FormattedTextControl(board), width=BOARD_WIDTH, height=BOARD_HEIGHT),
                    Window(width=1),
                    right,
                ]
            ),
            Window(FormattedTextControl(review), height=lambda: review()[0][1].count("\n") + 1),
            Window(),
            Window(FormattedTextControl(footer), height=1),
        ]
    )
    app: Application[None] = Application(
        layout=Layout(layout), key_bindings=kb, style=STYLE, full_screen=True, mouse_support=mouse
    )
    await app.run_async()


def _panel_rows(model: ReplaySteps) -> int:
    """Rows the seat panel takes: two a seat, what the powers impose (up to two rows each)."""
    p = model.current.position
    now = standing_lines(p) if p.phase is Phase.PLAY else []
    return 2 * p.players + 1 + 2 * len(now)


def board_marks(model: ReplaySteps) -> Marks:
    """The board's marks for the step shown: the turn's squares and what it changed.

    The squares its text names are ``chosen``; the signs of what it changed (a worker left,
    arrived, a build, and what a power did to the others: forced, removed, a block taken
    away) are ``last``; the review's best turn here, when there is one, is ``targets``.
    """
    step = model.current
    turn = step.act and step.text[:1] in "Habcde"
    named = frozenset(squares_in(step.text)) if turn else frozenset()
    best = model.best_here
    targets = frozenset(squares_in(best)) if best is not None else frozenset()
    last: tuple[tuple[int, str], ...] = ()
    if turn and model.index > 0:
        before = model.steps[model.index - 1].position
        if before.phase is Phase.PLAY:
            try:
                t = find_turn(before, step.text)
                last = last_move_marks(
                    before, step.position, turn_effects(before, t, step.position)
                )
            except SantoriniError:
                last = ()
    return Marks(targets=targets, chosen=named - targets, last=last)


async def view_replay_file(
    path: str, *, mouse: bool = False, review: Review | None = None
) -> str | None:
    """Open the replay file at ``path`` in the viewer; return why it could not be read, or None.

    The engine review shown is ``review`` when given (made of these bytes), else the one
    stored beside the file. With ``review`` given the viewer opens on the first turn it marks
    (or else the first it judges): where there is something to learn.
    """
    try:
        data = await asyncio.to_thread(Path(path).read_bytes)
    except OSError as e:
        return f"cannot read {path}: {e.strerror or e}"
    model = load_replay(data, path)
    why = _nothing_to_show(model, path)
    if why is None:
        if review is not None and model.ok:
            if model.attach_review(review) and model.notes:
                marked = [i for i, n in sorted(model.notes.items()) if n.mark]
                model.index = (marked or sorted(model.notes))[0]
        else:
            _attach_stored_review(model, path, data)
        await view_replay(model, mouse=mouse)
    return why


def _attach_stored_review(model: ReplaySteps, path: str, data: bytes) -> None:
    """Show the engine review stored beside ``path``, if it is one of these bytes."""
    if model.ok:
        review = load_review(review_path(path), data)
        if review is not None:
            model.attach_review(review)


def show_replay(path: str, *, mouse: bool = False) -> int:
    """``santorini replay show FILE``: 0 after viewing, 1 if the file cannot be read or fails."""
    try:
        data = Path(path).read_bytes()
    except OSError as e:
        print(f"santorini: error: cannot read {path}: {e.strerror or e}", file=sys.stderr)
        return 1
    model = load_replay(data, path)
    why = _nothing_to_show(model, path)
    if why is not None:
        print(f"santorini: error: {why}", file=sys.stderr)
        return 1
    if not (sys.stdin.isatty() and sys.stdout.isatty()):
        print(f"santorini: error: the viewer needs a terminal; {model.status}", file=sys.stderr)
        return 2
    _attach_stored_review(model, path, data)
    asyncio.run(view_replay(model, mouse=mouse))
    return 0 if model.ok else 1
