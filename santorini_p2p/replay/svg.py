"""The board as SVG, in the console's look: shaded levels, dark X domes, coloured worker letters.

Every square is a ``<use>`` of one of twenty cell drawings (level 0-3, each empty, domed, or
holding worker A, B or C) kept in ``<defs>``, so a page can step through a game by changing
each square's ``href`` (``export_html`` does) and a still image is the same drawing.
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import Final

from santorini_p2p.engine import Position

__all__ = [
    "CELL",
    "LEVEL_COLOURS",
    "MARK_COLOUR",
    "WORKER_COLOURS",
    "board_svg",
    "cell_id",
    "cell_ids",
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
) -> str:
    """Return an SVG image of ``p``'s board, squares in ``marks`` outlined.

    With ``ids`` every square's ``<use>`` has the id ``sq-a1`` .. ``sq-e5`` and every square
    has an outline ``mk-a1`` .. (hidden unless marked), for a page script to update.
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
    out.append("</svg>")
    return "".join(out)


def _escape(text: str) -> str:
    return text.replace("&", "&amp;").replace("<", "&lt;").replace(">", "&gt;")
