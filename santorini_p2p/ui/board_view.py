"""Pure board renderers: a position in, text out (tested by exact strings)."""

from __future__ import annotations

from santorini_p2p.engine import Phase, Position, outcome

__all__ = ["render_text"]

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
            state = f"seat {result.winner + 1} has won"
    elif p.phase is Phase.PLAY:
        state = f"seat {p.to_move + 1} to move"
    else:
        state = f"seat {p.to_move + 1} to act ({p.phase.value} phase)"
    return f"{gods}; {state}"
