"""The board as SVG, in the console's look: shaded levels, dark X domes, coloured worker letters.

Every square is a ``<use>`` of one of twenty cell drawings (level 0-3, each empty, domed, or
holding worker A, B or C) kept in ``<defs>``, so a page can step through a game by changing
each square's ``href`` (``export_html`` does) and a still image is the same drawing.

``turn_overlay`` draws over the board what a turn did that the outlined squares cannot say,
each with a shape as well as a colour: the mover's path when it moves more than one step (a
solid arrow), another worker forced to a square (a dashed arrow from a dashed ring), a
worker removed (a dashed ring crossed out, with its letter), a block removed (a ``-1`` tag),
the builds of a turn that builds several times or under a worker, and the blocks a power adds
by itself (Medusa's), as ``+1``, ``+2`` tags.
``standing_overlay`` marks, in a square's top right corner, what the powers impose on the
turn to play: a padlock on a frozen worker, a chain link on a bound one, a no-entry sign where
no one may build.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from typing import Final

from santorini_p2p.engine import (
    FORCE,
    Effect,
    EffectKind,
    Phase,
    Position,
    Turn,
    describe_effect,
    format_position,
    parse_turn,
    standing_effects,
)
from santorini_p2p.replay.timeline import Timeline, squares_of, step_before, step_effects

__all__ = [
    "CELL",
    "LEVEL_COLOURS",
    "MARK_COLOUR",
    "WORKER_COLOURS",
    "board_svg",
    "cell_id",
    "cell_ids",
    "overlay_kinds",
    "standing_overlay",
    "step_overlay",
    "step_svg",
    "turn_overlay",
]

CELL: Final = 100
"""The side of one square in SVG units."""
_EDGE: Final = 34
_SIDE: Final = 5 * CELL + 2 * _EDGE

# The console's palette (ui/app.py STYLE), so a shared image looks like the game screen.
LEVEL_COLOURS: Final = ("#e8e2d0", "#c9bfa3", "#9c9078", "#6b6150")
"""Fill of a square by level 0-3."""
_LEVEL_TEXT: Final = ("#000000", "#000000", "#000000", "#ffffff")
WORKER_COLOURS: Final = {"A": "#1d4ed8", "B": "#dc2626", "C": "#15803d"}
"""Fill of a worker by its letter (seat, or team with four players)."""
MARK_COLOUR: Final = "#7dd3fc"
"""Outline of the squares the last action named (the console's ``chosen`` colour)."""
_RULE: Final = "#808080"
_FONT: Final = 'font-family="DejaVu Sans, Verdana, Arial, sans-serif"'


def cell_id(p: Position, square: int) -> str:
    """Return the id of the cell drawing for ``square``: ``c`` + level + ``X``/letter/nothing."""
    level = p.level(square)
    if p.has_dome(square):
        return f"c{level}X"
    side = p.worker_side(square)
    if side < 0:
        return f"c{level}"
    return f"c{level}{'ABC'[side]}"


def cell_ids(p: Position) -> list[str]:
    """Return ``cell_id`` of every square, a1 to e5."""
    return [cell_id(p, s) for s in range(25)]


def _cell(level: int, what: str) -> str:
    parts = [
        f'<g id="c{level}{what}">',
        f'<rect width="{CELL}" height="{CELL}" fill="{LEVEL_COLOURS[level]}" '
        f'stroke="{_RULE}" stroke-width="2"/>',
    ]
    for i in range(1, level + 1):
        inset = 9 * i
        parts.append(
            f'<rect x="{inset}" y="{inset}" width="{CELL - 2 * inset}" '
            f'height="{CELL - 2 * inset}" fill="none" stroke="#000" stroke-opacity=".22" '
            f'stroke-width="2"/>'
        )
    if level:
        parts.append(
            f'<text x="8" y="26" font-size="22" {_FONT} fill="{_LEVEL_TEXT[level]}">{level}</text>'
        )
    if what == "X":
        parts.append(
            '<circle cx="52" cy="53" r="28" fill="#000"/>'
            '<path d="M40 41L64 65M64 41L40 65" stroke="#fff" stroke-width="8" '
            'stroke-linecap="round"/>'
        )
    elif what:
        parts.append(
            f'<circle cx="52" cy="53" r="28" fill="{WORKER_COLOURS[what]}" stroke="#fff" '
            f'stroke-width="3"/><text x="52" y="65" font-size="34" font-weight="bold" '
            f'{_FONT} fill="#fff" text-anchor="middle">{what}</text>'
        )
    parts.append("</g>")
    return "".join(parts)


def _defs() -> str:
    cells = [_cell(level, what) for level in range(4) for what in ("", "X", "A", "B", "C")]
    return "<defs>" + "".join(cells) + "</defs>"


_DEFS: Final = _defs()


def _xy(square: int) -> tuple[int, int]:
    rank, file = divmod(square, 5)
    return _EDGE + file * CELL, _EDGE + (4 - rank) * CELL


def board_svg(
    p: Position,
    marks: Iterable[int] = (),
    *,
    ids: bool = False,
    title: str = "",
    overlay: str = "",
) -> str:
    """Return an SVG image of ``p``'s board, squares in ``marks`` outlined.

    With ``ids`` every square's ``<use>`` has the id ``sq-a1`` .. ``sq-e5`` and every square
    has an outline ``mk-a1`` .. (hidden unless marked), and the ``overlay`` (``turn_overlay``)
    sits in a group ``fx``, for a page script to update.
    """
    marked = frozenset(marks)
    out = [
        f'<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 {_SIDE} {_SIDE}" '
        f'class="board" role="img">'
    ]
    if title:
        out.append(f"<title>{_escape(title)}</title>")
    out.append(_DEFS)
    out.append(f'<rect width="{_SIDE}" height="{_SIDE}" fill="#2b2b2b" rx="8"/>')
    for i, f in enumerate("abcde"):
        x = _EDGE + i * CELL + CELL // 2
        for y in (24, _SIDE - 9):
            out.append(
                f'<text x="{x}" y="{y}" font-size="20" {_FONT} fill="#c8c8c8" '
                f'text-anchor="middle">{f}</text>'
            )
    for r in range(5):
        y = _EDGE + (4 - r) * CELL + CELL // 2 + 7
        for x in (17, _SIDE - 17):
            out.append(
                f'<text x="{x}" y="{y}" font-size="20" {_FONT} fill="#c8c8c8" '
                f'text-anchor="middle">{r + 1}</text>'
            )
    for s in range(25):
        x, y = _xy(s)
        name = "abcde"[s % 5] + str(s // 5 + 1)
        sid = f' id="sq-{name}"' if ids else ""
        out.append(f'<use{sid} href="#{cell_id(p, s)}" x="{x}" y="{y}"/>')
    for s in range(25):
        if not ids and s not in marked:
            continue
        x, y = _xy(s)
        name = "abcde"[s % 5] + str(s // 5 + 1)
        sid = f' id="mk-{name}"' if ids else ""
        hidden = "" if s in marked else ' visibility="hidden"'
        out.append(
            f'<rect{sid} x="{x + 4}" y="{y + 4}" width="{CELL - 8}" height="{CELL - 8}" '
            f'fill="none" stroke="{MARK_COLOUR}" stroke-width="7" rx="4"{hidden}/>'
        )
    if ids:
        out.append(f'<g id="fx">{overlay}</g>')
    else:
        out.append(overlay)
    out.append("</svg>")
    return "".join(out)


FORCED_COLOUR: Final = "#f59e0b"
"""Casing of a forced worker's dashed arrow (amber: none of the worker colours)."""
REMOVED_COLOUR: Final = "#f43f5e"
"""The cross over a removed worker's ring."""
UNBUILT_COLOUR: Final = "#f97316"
"""Fill of a removed block's ``-1`` tag."""
BUILD_COLOUR: Final = "#fde047"
"""Fill of a build's ``+n`` tag."""
FROZEN_COLOUR: Final = "#93c5fd"
"""A frozen worker's padlock."""
BOUND_COLOUR: Final = "#f9a8d4"
"""A bound worker's chain link."""
NO_BUILD_COLOUR: Final = "#f43f5e"
"""The no-entry sign on a square where no one may build."""


def _centre(square: int) -> tuple[int, int]:
    x, y = _xy(square)
    return x + 52, y + 53


def _line(points: Sequence[int], *, dashed: bool, colour: str) -> str:
    """A polyline through ``points``' centres with a head, cut short of the last centre.

    The head is a triangle of its own (no marker), so the drawing refers to nothing.
    """
    xy: list[tuple[float, float]] = [_centre(s) for s in points]
    (x0, y0), (x1, y1) = xy[-2], xy[-1]
    length = max(1.0, ((x1 - x0) ** 2 + (y1 - y0) ** 2) ** 0.5)
    ux, uy = (x1 - x0) / length, (y1 - y0) / length
    tip = (x1 - ux * min(22.0, length / 2), y1 - uy * min(22.0, length / 2))
    base = (tip[0] - ux * 22, tip[1] - uy * 22)
    xy[-1] = base
    pts = " ".join(f"{x:.0f},{y:.0f}" for x, y in xy)
    head = " ".join(
        f"{x:.0f},{y:.0f}"
        for x, y in (
            tip,
            (base[0] - uy * 14, base[1] + ux * 14),
            (base[0] + uy * 14, base[1] - ux * 14),
        )
    )
    dash = ' stroke-dasharray="14 9"' if dashed else ""
    return (
        f'<polyline points="{pts}" fill="none" stroke="#000" stroke-opacity=".55" '
        f'stroke-width="12" stroke-linejoin="round"{dash}/>'
        f'<polyline points="{pts}" fill="none" stroke="{colour}" stroke-width="6" '
        f'stroke-linejoin="round"{dash}/>'
        f'<polygon points="{head}" fill="{colour}" stroke="#000" stroke-width="2"/>'
    )


def _ring(square: int, letter: str, crossed: bool) -> str:
    cx, cy = _centre(square)
    colour = WORKER_COLOURS.get(letter, "#ffffff")
    out = (
        f'<circle cx="{cx}" cy="{cy}" r="30" fill="#000" fill-opacity=".15" stroke="{colour}" '
        f'stroke-width="5" stroke-dasharray="8 6"/>'
    )
    if crossed:
        out += (
            f'<path d="M{cx - 24} {cy - 24}L{cx + 24} {cy + 24}M{cx + 24} {cy - 24}'
            f'L{cx - 24} {cy + 24}" stroke="#000" stroke-width="11" stroke-linecap="round"/>'
            f'<path d="M{cx - 24} {cy - 24}L{cx + 24} {cy + 24}M{cx + 24} {cy - 24}'
            f'L{cx - 24} {cy + 24}" stroke="{REMOVED_COLOUR}" stroke-width="6" '
            f'stroke-linecap="round"/>'
            f'<text x="{cx + 30}" y="{cy - 22}" font-size="20" font-weight="bold" {_FONT} '
            f'fill="{colour}" stroke="#fff" stroke-width="1" text-anchor="middle">{letter}</text>'
        )
    return out


def _tag(square: int, text: str, fill: str, corner: int) -> str:
    """A small labelled tag in a corner of ``square`` (0 bottom left, 1 bottom right)."""
    x, y = _xy(square)
    tx = x + (6 if corner == 0 else CELL - 44)
    return (
        f'<rect x="{tx}" y="{y + CELL - 30}" width="38" height="24" rx="5" fill="{fill}" '
        f'stroke="#000" stroke-width="2"/><text x="{tx + 19}" y="{y + CELL - 11}" '
        f'font-size="18" font-weight="bold" {_FONT} fill="#000" text-anchor="middle">'
        f"{text}</text>"
    )


def turn_overlay(
    before: Position, turn: Turn, effects: Sequence[Effect] = (), after: Position | None = None
) -> str:
    """Return what ``turn`` did from ``before`` that the outlines cannot say, as SVG.

    Empty for a turn of one step and at most one build with no effect (every turn of the
    plain rules), so such a board is drawn exactly as without an overlay. Given ``after``,
    the blocks a power built beyond the turn's own builds (Medusa's) get ``+n`` tags too.
    """
    parts: list[str] = []
    if _long(turn):
        parts.append(_line((turn.worker, *turn.path), dashed=False, colour="#fff"))
    for e in effects:
        letter = "ABC"[e.side] if e.side >= 0 else ""
        drawn = ""
        if e.kind is EffectKind.FORCED:
            drawn = _ring(e.squares[0], letter, crossed=False)
            drawn += _line(e.squares, dashed=True, colour=FORCED_COLOUR)
        elif e.kind in (EffectKind.REMOVED, EffectKind.OUT):
            drawn = "".join(_ring(sq, letter, crossed=True) for sq in e.squares)
        elif e.kind is EffectKind.JOINED:
            drawn = _ring(e.squares[0], letter, crossed=False)
        elif e.kind is EffectKind.UNBUILT:
            drawn = _tag(e.squares[0], "\u22121", UNBUILT_COLOUR, 0)
        if drawn:  # the words too, for a pointer's hover and a screen reader
            parts.append(f"<g><title>{_escape(describe_effect(before, e))}</title>{drawn}</g>")
    if _counted(turn):
        squares = turn.build_squares
        for sq in sorted(set(squares)):
            parts.append(_tag(sq, f"+{squares.count(sq)}", BUILD_COLOUR, 1))
    parts.extend(_tag(sq, f"+{n}", BUILD_COLOUR, 1) for sq, n in _power_builds(before, turn, after))
    return "".join(parts)


def _power_builds(before: Position, turn: Turn, after: Position | None) -> list[tuple[int, int]]:
    """The squares a power built on beyond the turn's own builds, with the blocks added."""
    if after is None:
        return []
    own = set(turn.build_squares)
    if turn.before >= 0 and not turn.before & FORCE:
        own.add(turn.before & 31)
    out = []
    for sq in range(25):
        added = after.level(sq) - before.level(sq) + after.has_dome(sq) - before.has_dome(sq)
        if sq not in own and added > 0:
            out.append((sq, added))
    return out


def _long(turn: Turn) -> bool:
    """Whether the turn's path is drawn: one worker moving more than one step."""
    return not turn.both and len(turn.path) > 1


def _counted(turn: Turn) -> bool:
    """Whether the turn's builds get ``+n`` tags: more than two, two on one square, or under."""
    squares = turn.build_squares
    final = turn.path[-1] if turn.path and not turn.both else -1
    return len(squares) > 2 or (len(squares) == 2 and len(set(squares)) == 1) or final in squares


def overlay_kinds(
    before: Position, turn: Turn, effects: Sequence[Effect] = (), after: Position | None = None
) -> frozenset[str]:
    """Return the marks ``turn_overlay`` draws, for a legend.

    ``path``, ``builds``, and the effects' kinds (``forced``, ``removed``, ``out``, ``unbuilt``).
    """
    kinds = {e.kind.value for e in effects}
    if _long(turn):
        kinds.add("path")
    if _counted(turn) or _power_builds(before, turn, after):
        kinds.add("builds")
    return frozenset(kinds)


def _escape(text: str) -> str:
    return text.replace("&", "&amp;").replace("<", "&lt;").replace(">", "&gt;")


def _corner(square: int) -> tuple[int, int]:
    """The centre of a square's top right corner mark."""
    x, y = _xy(square)
    return x + CELL - 20, y + 20


def _padlock(square: int) -> str:
    cx, cy = _corner(square)
    return (
        f'<path d="M{cx - 7} {cy - 2}v-5a7 7 0 0 1 14 0v5" fill="none" stroke="#000" '
        f'stroke-width="6"/><path d="M{cx - 7} {cy - 2}v-5a7 7 0 0 1 14 0v5" fill="none" '
        f'stroke="{FROZEN_COLOUR}" stroke-width="3"/><rect x="{cx - 11}" y="{cy - 3}" '
        f'width="22" height="16" rx="3" fill="{FROZEN_COLOUR}" stroke="#000" stroke-width="2"/>'
    )


def _link(square: int) -> str:
    cx, cy = _corner(square)
    ring = 'rx="8" ry="5" fill="none" stroke-width="{}" transform="rotate(-35 {} {})"'
    out = ""
    for width, colour in ((7, "#000"), (3.5, BOUND_COLOUR)):
        for dx in (-6, 6):
            attrs = ring.format(width, cx + dx, cy)
            out += f'<ellipse cx="{cx + dx}" cy="{cy}" stroke="{colour}" {attrs}/>'
    return out


def _no_entry(square: int) -> str:
    cx, cy = _corner(square)
    return (
        f'<circle cx="{cx}" cy="{cy}" r="11" fill="#fff" stroke="{NO_BUILD_COLOUR}" '
        f'stroke-width="4"/><path d="M{cx - 7} {cy + 7}L{cx + 7} {cy - 7}" '
        f'stroke="{NO_BUILD_COLOUR}" stroke-width="4"/>'
    )


def standing_overlay(p: Position) -> str:
    """Return the marks of what the powers impose on the turn to play in ``p``, as SVG.

    Empty when nothing is imposed (every position of the simple gods), and for the other
    restrictions (no winning square, moving up, the tower count), which the words say.
    """
    if p.phase is not Phase.PLAY:
        return ""
    parts: list[str] = []
    for e in standing_effects(p):
        if e.kind is EffectKind.FROZEN:
            parts.extend(_padlock(sq) for sq in e.squares)
        elif e.kind is EffectKind.BOUND:
            parts.extend(_link(sq) for sq in e.squares)
        elif e.kind is EffectKind.NO_BUILD:
            parts.extend(_no_entry(sq) for sq in e.squares)
    return "".join(parts)


def step_overlay(t: Timeline, number: int, effects: Sequence[Effect] | None = None) -> str:
    """Return ``turn_overlay`` of step ``number`` of ``t`` (``""`` for any other step).

    ``effects`` are the step's (``timeline.step_effects``), computed when not given.
    """
    s = t.steps[number - 1]
    before = step_before(t, number)
    if s.kind != "act" or before is None or before.phase is not Phase.PLAY:
        return ""
    if effects is None:
        effects = step_effects(t)[number - 1]
    return turn_overlay(before, parse_turn(s.text), effects, s.position)


def step_svg(t: Timeline, at: int) -> str | None:
    """Return the still image after step ``at`` (0: the start), or ``None`` with no position.

    The squares the action named are outlined, its overlay drawn and the powers' restrictions
    marked; the title is the position string.
    """
    step = t.steps[at - 1] if at else None
    p = step.position if step is not None else t.start
    if p is None:
        return None
    marks = squares_of(step.text) if step is not None and step.kind == "act" else ()
    overlay = (step_overlay(t, at) if at else "") + standing_overlay(p)
    return board_svg(p, marks, title=format_position(p), overlay=overlay)
