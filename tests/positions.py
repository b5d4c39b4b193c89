"""Build position strings for tests from a readable list of squares."""

from __future__ import annotations

from santorini_p2p.engine import Position, legal_turns, parse_position, parse_square


def make(cells: str = "", seat: int = 1, gods: str = "-,-", flags: str = "-") -> Position:
    """Return the position with ``cells`` like ``"c3=2A d4=1 e5=3X"`` (level, then X or letter).

    Squares not named are level 0 and empty. The result goes through the position string.
    """
    grid = ["0"] * 25
    for item in cells.split():
        sq, _, what = item.partition("=")
        s = parse_square(sq)
        level = what[0] if what[:1].isdigit() else "0"
        rest = what[1:] if what[:1].isdigit() else what
        grid[s] = level + rest
    ranks = ["".join(grid[r * 5 : r * 5 + 5]) for r in range(4, -1, -1)]
    return parse_position(f"{'/'.join(ranks)} {seat} {gods} {flags}")


def texts(p: Position) -> set[str]:
    """The legal turn texts of ``p`` as a set."""
    return {str(t) for t in legal_turns(p)}
