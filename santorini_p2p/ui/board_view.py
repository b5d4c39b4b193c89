"""Pure board renderers: a position in, text out (tested by exact strings)."""

from __future__ import annotations

import textwrap
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Final, TypeAlias

from prompt_toolkit.formatted_text import StyleAndTextTuples
from prompt_toolkit.mouse_events import MouseEvent

from santorini_p2p.engine import (
    Action,
    Effect,
    EffectKind,
    Phase,
    Position,
    Square,
    describe_effect,
    outcome,
    standing_effects,
)
from santorini_p2p.net.views import SeatClock, SeatInfo

__all__ = [
    "BOARD_HEIGHT",
    "BOARD_WIDTH",
    "EFFECT_SIGNS",
    "LAST_BUILD",
    "LAST_FORCED",
    "LAST_FROM",
    "LAST_REMOVED",
    "LAST_TO",
    "LAST_UNBUILT",
    "NO_MARKS",
    "ClickFactory",
    "Fragments",
    "Marks",
    "format_clock",
    "fragments_text",
    "last_move_marks",
    "letter_of",
    "render_board",
    "render_panel",
    "render_text",
    "standing_lines",
    "state_marks",
    "winner_text",
]

_LETTERS_4P = "AB"
_LETTERS = "ABC"


def _cell(p: Position, s: int) -> str:
    level = p.level(s)
    if p.has_dome(s):
        return f"{level}X"
    side = p.worker_side(s)
    if side >= 0:
        return f"{level}{(_LETTERS_4P if p.players == 4 else _LETTERS)[side]}"
    return f"{level} " if level else ". "


def render_text(p: Position) -> str:
    """Return the board as plain text: each square its level, ``X`` a dome, a worker's letter.

    Ranks run 5 to 1 from the top and files a to e from the left, as in the position string.
    """
    lines = []
    for r in range(4, -1, -1):
        cells = " ".join(_cell(p, r * 5 + f) for f in range(5))
        lines.append(f"{r + 1}  {cells}")
    lines.append("   " + " ".join(f"{f} " for f in "abcde"))
    lines.append("")
    lines.append(_status(p))
    return "\n".join(lines)


def _status(p: Position) -> str:
    letters = _LETTERS_4P if p.players == 4 else _LETTERS
    gods = ", ".join(
        f"seat {i + 1} ({letters[p.side_of(i)]}) {g or 'no god'}" for i, g in enumerate(p.gods)
    )
    result = outcome(p)
    if result.over:
        if result.winner is None:
            state = "game over, no winner"
        else:
            state = f"{winner_text(p, result.winner)} has won"
    elif p.phase is Phase.PLAY:
        state = f"seat {p.to_move + 1} to move"
    else:
        state = f"seat {p.to_move + 1} to act ({p.phase.value} phase)"
    powers = "".join(f"\n{line}" for line in state_lines(p))
    return f"{gods}; {state}{powers}"


def state_lines(p: Position) -> list[str]:
    """What each seat's power keeps between turns, a line a seat that keeps something.

    Morpheus's coins, the wind, a female worker, Eris's mark, a hero used, Adonis's pair
    (RULES.md 10.1), each in its god's words.
    """
    from santorini_p2p.engine import find_god

    out = []
    for seat, g in enumerate(p.gods):
        if g in ("", "?"):
            continue
        state = p.state_of(seat)
        said = find_god(g).describe_state(state[1:-1] if state.startswith("[") else state)
        if said:
            out.append(f"seat {seat + 1} {g}: {said}")
    return out


Fragments: TypeAlias = list[tuple[str, str]]
"""Styled text as prompt_toolkit takes it: ``(style, text)`` pairs."""
ClickFactory: TypeAlias = Callable[[Square], Callable[[MouseEvent], object]]
"""Makes the mouse handler of a square."""

BOARD_WIDTH: Final = 35
"""Columns the console board takes (ranks on both edges)."""
BOARD_HEIGHT: Final = 13
"""Rows the console board takes (files on both edges)."""

_FILES_LINE: Final = "     a     b     c     d     e     "
_RULE_LINE: Final = "  +-----+-----+-----+-----+-----+  "


@dataclass(frozen=True, slots=True)
class Marks:
    """The squares the board highlights.

    ``targets`` are where the input can go next, ``chosen`` the squares it has already named
    (the selected worker, its steps, its builds). ``last`` marks what the last action changed,
    a sign per square shown left of the worker's place: ``LAST_FROM`` a worker left it,
    ``LAST_TO`` a worker arrived, ``LAST_BUILD`` a block or dome was built on it; a worker's
    square it left and then built on shows ``.+``. What a power did to the others (see
    :func:`last_move_marks`) has signs of its own: ``LAST_FORCED`` a worker forced there,
    ``LAST_REMOVED`` a worker removed, ``LAST_UNBUILT`` a block taken away.
    """

    targets: frozenset[Square] = frozenset()
    chosen: frozenset[Square] = frozenset()
    last: tuple[tuple[Square, str], ...] = ()


LAST_FROM: Final = "."
LAST_TO: Final = "*"
LAST_BUILD: Final = "+"
LAST_FORCED: Final = "~"
LAST_REMOVED: Final = "x"
LAST_UNBUILT: Final = "-"
EFFECT_SIGNS: Final = frozenset((LAST_FORCED, LAST_REMOVED, LAST_UNBUILT))
"""The signs of what a power did to the others, drawn in the ``effect`` style."""


def last_move_marks(
    before: Position, after: Position, effects: Sequence[Effect] = ()
) -> tuple[tuple[Square, str], ...]:
    """The squares the last action changed from ``before`` to ``after``, each with its sign.

    ``effects`` (``turn_effects`` of the action) name what a power did to the other sides'
    workers and the blocks: a worker forced onto a square shows ``~``, a removed one ``x``
    (``x+`` where a block was built on it), a block taken away ``-``.
    """
    signs: dict[Square, str] = {}
    for s in range(25):
        if after.worker_side(s) >= 0 and before.worker_side(s) != after.worker_side(s):
            signs[s] = LAST_TO
            continue
        left = before.worker_side(s) >= 0 and after.worker_side(s) < 0
        built = before.level(s) != after.level(s) or before.has_dome(s) != after.has_dome(s)
        if left or built:
            signs[s] = (LAST_FROM if left else "") + (LAST_BUILD if built else "")
    for e in effects:
        if e.kind is EffectKind.FORCED:
            signs[e.squares[1]] = LAST_FORCED + signs.get(e.squares[1], "")[1:]
        elif e.kind in (EffectKind.REMOVED, EffectKind.OUT):
            for s in e.squares:
                built = after.level(s) > before.level(s) or after.has_dome(s) > before.has_dome(s)
                signs[s] = LAST_REMOVED + (LAST_BUILD if built else "")
        elif e.kind is EffectKind.UNBUILT:
            s = e.squares[0]
            signs[s] = signs.get(s, "").replace(LAST_BUILD, "") + LAST_UNBUILT
    return tuple(sorted(signs.items()))


NO_MARKS: Final = Marks()


def letter_of(p: Position, side: int) -> str:
    """Return the worker letter of ``side``: A, B, C (the team letters A and B with 4 players)."""
    return (_LETTERS_4P if p.players == 4 else _LETTERS)[side]


def winner_text(p: Position, winner: int) -> str:
    """Who won, for a status line: ``seat 2``, or with 4 players ``team B (seats 2 and 4)``."""
    if p.players != 4:
        return f"seat {winner + 1}"
    side = p.side_of(winner)
    seats = " and ".join(str(s + 1) for s in range(p.players) if p.side_of(s) == side)
    return f"team {letter_of(p, side)} (seats {seats})"


def _square_fragments(p: Position, s: Square, marks: Marks) -> Fragments:
    level = p.level(s)
    left, right = " ", " "
    extra = ""
    if s in marks.targets:
        left, right, extra = "[", "]", " class:target"
    elif s in marks.chosen:
        left, right, extra = "(", ")", " class:chosen"
    digit = str(level) if level else " "
    base = f"class:level{level}{extra}"
    sign = next((mark for square, mark in marks.last if square == s), "")
    last = f"{base} class:last" + (" class:effect" if sign[:1] in EFFECT_SIGNS else "")
    gap: tuple[str, str] = (last, sign[0]) if sign else (base, " ")
    if p.has_dome(s):
        return [(base, left + digit), gap, (f"class:dome{extra}", "X"), (base, right)]
    side = p.worker_side(s)
    if side >= 0:
        letter = letter_of(p, side)
        return [
            (base, left + digit),
            gap,
            (f"class:worker{extra} class:worker.{letter.lower()}", letter),
            (base, right),
        ]
    if len(sign) > 1:
        second = f"{base} class:last" + (" class:effect" if sign[1] in EFFECT_SIGNS else "")
        return [(base, left + digit), gap, (second, sign[1]), (base, right)]
    return [(base, left + digit), gap, (base, " " + right)]


def render_board(
    p: Position, marks: Marks = NO_MARKS, on_click: ClickFactory | None = None
) -> StyleAndTextTuples:
    """Return the console board: 13 rows of 35 columns, ranks 5 to 1 down, files a to e across.

    Each square shows its level (blank for 0) and shade (style ``level0``..``level3``), a dome
    as ``X`` (style ``dome``), a worker as its side's letter (style ``worker.a``..). A worker
    a seat's power state names has that god's word under its square, in the rule line
    (``fem``, ``eris``, ``pair``: :func:`state_marks`, style ``board.mark``). Squares
    in ``marks.targets`` are bracketed ``[ ]``, other squares in ``marks.chosen`` parenthesised, so
    the board reads the same without colour. ``on_click(square)``, when given, makes the mouse
    handler attached to that square's fragments.
    """
    out: StyleAndTextTuples = [
        ("class:board.edge", _FILES_LINE + "\n"),
        ("class:board.rule", _RULE_LINE + "\n"),
    ]
    tags = state_marks(p)
    for r in range(4, -1, -1):
        out.append(("class:board.edge", f"{r + 1} "))
        for f in range(5):
            out.append(("class:board.rule", "|"))
            s = r * 5 + f
            if on_click is None:
                out.extend(_square_fragments(p, s, marks))
            else:
                handler = on_click(s)
                out.extend((st, tx, handler) for st, tx in _square_fragments(p, s, marks))
        out.append(("class:board.rule", "|"))
        out.append(("class:board.edge", f" {r + 1}\n"))
        out.extend(_rule_below(p, r, tags))
    out.append(("class:board.edge", _FILES_LINE))
    return out


def state_marks(p: Position) -> dict[Square, list[tuple[str, int]]]:
    """The words the seats' power states write by squares (``Power.state_marks``).

    Each square with its words and the side of the seat whose state it is, in seat order:
    the female worker (``fem``), Eris's mark (``eris``), Adonis's pair (``pair``).
    """
    from santorini_p2p.engine import find_god

    out: dict[Square, list[tuple[str, int]]] = {}
    for seat, g in enumerate(p.gods):
        if g in ("", "?"):
            continue
        state = p.state_of(seat)
        inner = state[1:-1] if state.startswith("[") else state
        for sq, word in find_god(g).state_marks(inner):
            out.setdefault(sq, []).append((word, p.side_of(seat)))
    return out


def _rule_below(
    p: Position, rank: int, tags: dict[Square, list[tuple[str, int]]]
) -> StyleAndTextTuples:
    """The rule line under ``rank`` (0-4), each square's state words set in its segment.

    A word stands under its square, centred in the dashes (``+-fem-+``), in the colour of
    the side whose state it is; two words on one square are cut to their first letters.
    """
    if not any(rank * 5 + f in tags for f in range(5)):
        return [("class:board.rule", _RULE_LINE + "\n")]
    out: StyleAndTextTuples = [("class:board.rule", "  +")]
    for f in range(5):
        words = tags.get(rank * 5 + f)
        if not words:
            out.append(("class:board.rule", "-----+"))
            continue
        text = "/".join(w for w, _ in words)
        if len(text) > 5:
            text = "/".join(w[:1] for w, _ in words)[:5]
        left = (6 - len(text)) // 2
        letter = letter_of(p, words[0][1]).lower()
        out.append(("class:board.rule", "-" * left))
        out.append((f"class:board.mark class:worker.{letter}.name", text))
        out.append(("class:board.rule", "-" * (5 - left - len(text)) + "+"))
    out.append(("class:board.rule", "  \n"))
    return out


def fragments_text(fragments: StyleAndTextTuples) -> str:
    """Return the text of ``fragments`` without styles (how the screen reads without colour)."""
    return "".join(fragment[1] for fragment in fragments)


def format_clock(ms: int) -> str:
    """Return ``ms`` as ``m:ss``, rounding up so that ``0:00`` means the time is gone."""
    seconds = -(-max(0, ms) // 1000)
    return f"{seconds // 60}:{seconds % 60:02d}"


LOW_TIME_MS: Final = 10_000
"""A running clock with less than this left (move allowance and bank) is shown as low."""


def is_low(clock: SeatClock) -> bool:
    """Whether ``clock`` is low on time: under ``LOW_TIME_MS`` left in all (lichess's red)."""
    return clock.move_ms + clock.bank_ms < LOW_TIME_MS


def _clock_text(view: SeatInfo) -> str:
    c = view.clock
    if c is None:
        return ""
    if c.running:
        return f"{format_clock(c.move_ms)} +{format_clock(c.bank_ms)}"
    return format_clock(c.bank_ms)


def _widest_clock(view: SeatInfo) -> int:
    """The columns the seat's clock takes when it runs (move time and bank), 0 untimed."""
    c = view.clock
    return 0 if c is None else len(format_clock(c.move_ms)) + 2 + len(format_clock(c.bank_ms))


def _seat_head(
    view: SeatInfo, mark: str, letter: str, gone: bool, width: int, short: bool
) -> tuple[str, str]:
    """A seat line's head and who sits there, in ``width`` columns (the clock's left out).

    The name comes first: its state (connection, out) next, then its fingerprint, each
    only whole. With ``short`` (some name would be cut) the words ``seat N`` give way (the
    letter and the order still tell the seat); only a name too long even then is cut (``~``).
    """
    states = ([f"({view.connection.value})"] if view.connection is not None else []) + (
        ["(out)"] if gone else []
    )
    extras = [*states, *([view.fingerprint] if view.fingerprint else [])]
    heads = [f"{mark} {letter} "] if short else [f"{mark} {letter} seat {view.seat + 1} "]
    for head in heads:
        room = width - len(head)
        if len(view.name) <= room:
            who = view.name
            for extra in extras:
                if len(who) + 1 + len(extra) <= room:
                    who += " " + extra
            return head, who
    return head, _fit(view.name, max(0, width - len(head)))


def _fit(text: str, width: int) -> str:
    return text if len(text) <= width else text[: max(0, width - 1)] + "~"


_MIN_TURN_ROWS: Final = 2
"""Rows the panel keeps for the turn list before it gives a god's power a further line."""


def _cut(text: str, width: int, rows: int, indent: str) -> list[str]:
    """``text`` wrapped between words to ``width`` on at most ``rows`` lines (``~``: cut)."""
    lines = textwrap.wrap(text, width, initial_indent=indent, subsequent_indent=indent + "  ")
    if len(lines) <= rows:
        return lines
    lines = lines[:rows]
    last = lines[-1]
    while len(last) > width - 2 and " " in last.strip():
        last = last[: last.rstrip().rfind(" ")]
    lines[-1] = last.rstrip() + " ~"
    return lines


def standing_lines(p: Position) -> list[str]:
    """What the powers impose on the turn to play, a line each (``standing_effects``)."""
    return [describe_effect(p, e) for e in standing_effects(p)]


def render_panel(
    p: Position,
    seats: Sequence[SeatInfo],
    actions: Sequence[Action],
    width: int,
    height: int,
) -> Fragments:
    """Return the side panel: each seat (letter, name, clock, god and power) then the turn list.

    The seat to move is marked ``>``; below the seats, ``now:`` lines say what the powers
    impose on its turn (a frozen worker, Hera's perimeter, Chronus's towers ...). A god's
    power is wrapped between words on as many lines as leave the turn list two rows, and
    cut with ``~`` beyond (the help has it whole). The panel is ``width`` columns and at most
    ``height`` rows; the turn list keeps its latest entries when it does not fit.
    """
    from santorini_p2p.engine import find_god

    out: Fragments = []
    rows = 0
    over = p.phase is Phase.OVER
    now = standing_lines(p) if p.phase is Phase.PLAY else []
    extra = p.phase is Phase.GODS and bool(p.pool or p.offer)
    now_rows = sum(len(_cut("now: " + line, width, 2, "  ")) for line in now)
    spare = height - 2 * len(seats) - now_rows - extra - 1 - _MIN_TURN_ROWS
    power_rows = 1 + max(0, spare) // max(1, len(seats))
    # The words "seat N" give way on every seat line when one name would be cut by them,
    # its clock counted as it reads when running (so that the lines keep still turn to turn).
    short = any(
        len(v.name) > width - _widest_clock(v) - 1 - len(f"> A seat {v.seat + 1} ") for v in seats
    )
    for view in seats:
        seat = view.seat
        gone = bool(p.eliminated >> seat & 1) if p.players == 3 else False
        mark = ">" if seat == p.to_move and not over else " "
        letter = letter_of(p, p.side_of(seat))
        clock = _clock_text(view)
        head, name = _seat_head(view, mark, letter, gone, width - len(clock) - 1, short)
        room = width - len(head) - len(clock) - 1
        name = name.ljust(max(0, room))
        style = "class:panel.tomove" if mark == ">" else "class:panel.seat"
        out.append((style, head))
        out.append((f"{style} class:worker.{letter.lower()}.name", name))
        low = view.clock is not None and view.clock.running and is_low(view.clock)
        out.append(("class:panel.clock" + (" class:clock.low" if low else ""), " " + clock + "\n"))
        god = p.gods[seat] if seat < len(p.gods) else ""
        if view.hidden:
            lines = ["    ? (god dealt secretly, not revealed yet)"]
        elif god in ("", "?"):
            lines = ["    no god" if god == "" else "    god not chosen yet"]
        else:
            lines = _cut(f"{god}: {find_god(god).power}", width, power_rows, "    ")
            state = p.state_of(seat)
            said = find_god(god).describe_state(state[1:-1] if state.startswith("[") else state)
            if said:
                lines += _cut(f"now: {said}", width, 1, "    ")
        out.extend(("class:panel.god", line + "\n") for line in lines)
        rows += 1 + len(lines)
    if extra:
        out.append(
            (
                "class:panel.god",
                _fit("  to choose from: " + ", ".join(p.pool or p.offer), width) + "\n",
            )
        )
        rows += 1
    for line in now:
        for part in _cut("now: " + line, width, 2, "  "):
            out.append(("class:panel.now", part + "\n"))
            rows += 1
    out.append(("class:panel.heading", "Turns" + "\n"))
    rows += 1
    lines = _turn_lines(actions, width)
    room = max(0, height - rows)
    if len(lines) > room:
        lines = lines[len(lines) - room :]
    out.extend(("class:panel.turns", line + "\n") for line in lines)
    if out:
        style, text = out[-1]
        out[-1] = (style, text.rstrip("\n"))
    return out


def _turn_lines(actions: Sequence[Action], width: int) -> list[str]:
    """Two numbered actions a line when they fit, else one."""
    items = [f"{i + 1:>3}. {a}" for i, a in enumerate(actions)]
    col = max((len(x) for x in items), default=0) + 2
    per_line = 2 if 2 * col <= width else 1
    lines = []
    for i in range(0, len(items), per_line):
        chunk = items[i : i + per_line]
        lines.append("".join(x.ljust(col) for x in chunk).rstrip())
    return lines
