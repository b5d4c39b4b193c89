"""Build position strings for tests from a readable list of squares, or by random play."""

from __future__ import annotations

import random
from collections.abc import Callable, Iterator

from santorini_p2p.engine import (
    Phase,
    Position,
    apply_action,
    legal_actions,
    legal_turns,
    parse_position,
    parse_square,
)
from santorini_p2p.engine.rules import Listing, list_turns


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


def random_play(
    p: Position, rng: random.Random, plies: int, stop: Callable[[], Callable[[], bool]]
) -> Iterator[tuple[int, Position, Listing]]:
    """Play ``p`` on at random for at most ``plies`` plies; yield each position of play.

    Setup actions are drawn from every legal action; a position of play is listed with
    ``list_turns(p, stop())`` (a listing cut where turns run to hundreds of thousands) and
    yielded with its ply and that listing, then one of its turns is played. Ends at the game's
    end or at a seat with no turn.
    """
    ply = 0
    while p.phase is not Phase.OVER and ply < plies:
        ply += 1
        if p.phase is not Phase.PLAY:
            p = apply_action(p, rng.choice(legal_actions(p)))
            continue
        listing = list_turns(p, stop())
        if not listing.turns:
            return
        yield ply, p, listing
        p = apply_action(p, rng.choice(listing.turns))
