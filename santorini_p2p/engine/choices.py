"""Choices another seat makes in the mover's turn (protocol/SPEC.md 2.1.3).

A power that ``reacts`` (Gaea, RULES.md 10.5) decides in another seat's turn: after each new
dome, whether one of her workers joins it and where. The turn text writes her choice where
it is made (``b2>c3^d4+c5``, RULES.md 10.3), so a turn splits into the mover's part and the
deciding seat's answers. ``choices`` lists them for a legal turn, in the order written; each
is asked at the text up to that point (``asked``) and answered ``+sq`` or ``-`` (none).
"""

from __future__ import annotations

from collections.abc import Sequence
from functools import lru_cache
from typing import Final, NamedTuple

from santorini_p2p.engine.gods import power_of
from santorini_p2p.engine.position import OP_PLACE, Phase, Position, Turn, placement_marks
from santorini_p2p.engine.rules import find_turn, legal_turns, turns_from
from santorini_p2p.engine.squares import SQUARE_NAMES
from santorini_p2p.errors import IllegalTurnError

__all__ = [
    "NO_CHOICE",
    "Choice",
    "choice_options",
    "choices",
    "deciders",
    "go_on_with",
    "movers_part",
    "named_turn",
    "turns_after",
]

NO_CHOICE: Final = "-"
"""The answer of a seat that chooses to do nothing where it may (no worker put down)."""


class Choice(NamedTuple):
    """One choice in another seat's turn: who decides, at which text, and what."""

    seat: int
    asked: str
    answer: str


def deciders(p: Position) -> tuple[int, ...]:
    """The seats other than the mover whose power may decide in the mover's turns."""
    return tuple(
        s
        for s, name in enumerate(p.gods)
        if s != p.to_move and not p.eliminated >> s & 1 and power_of(name).reacts
    )


def choices(p: Position, turn: Turn) -> tuple[Choice, ...]:
    """The choices other seats make in ``turn`` (legal in ``p``), in the order written."""
    seats = deciders(p)
    if not seats or (not turn.builds and turn.before < 0 and not turn.post and not turn.extra):
        return ()
    found: list[tuple[int, Choice]] = []
    text = ""
    marks: dict[int, int] = {}
    for seat in seats:
        points = power_of(p.gods[seat]).choice_points(p, seat, turn)
        if not points:
            continue
        if not text:
            text, marks = placement_marks(turn)
        placed = turn.ops(OP_PLACE)
        for i in points:
            at = marks[i]
            answer = "".join("+" + SQUARE_NAMES[v & 31] for v in placed if v >> 5 == i)
            found.append((at, Choice(seat, text[:at], answer or NO_CHOICE)))
    found.sort(key=lambda e: e[0])
    return tuple(c for _, c in found)


def movers_part(p: Position, turn: Turn) -> str:
    """The text of ``turn`` without the choices other seats make in it (what the mover chose)."""
    text = str(turn)
    for c in reversed(choices(p, turn)):
        if c.answer != NO_CHOICE:
            at = len(c.asked)
            text = text[:at] + text[at + len(c.answer) :]
    return text


@lru_cache(maxsize=8)
def _all(p: Position, start: str) -> tuple[tuple[Turn, tuple[Choice, ...]], ...]:
    """The legal turns of ``p`` written from ``start``, each with its choices.

    Only in a game with a deciding seat; ``start`` is a text asked at, so the list holds the
    answers to one turn's domes, not every turn of the position.
    """
    if p.phase is not Phase.PLAY or not deciders(p):
        return ()
    return tuple((t, choices(p, t)) for t in turns_from(p, start))


def turns_after(p: Position, answered: Sequence[Choice]) -> list[Turn]:
    """The legal turns whose first choices are ``answered``, sorted by text."""
    k = len(answered)
    want = tuple(answered)
    if not k:
        return legal_turns(p)
    return [t for t, cs in _all(p, want[-1].asked) if cs[:k] == want]


def named_turn(p: Position, turn: Turn, answered: Sequence[Choice]) -> Turn | None:
    """The legal turn written as ``turn``'s text that goes on from ``answered``, or None.

    With nothing answered yet it is found by one turn's check (``rules.find_turn``: a last
    ``+`` reads as the position says), not in the list of every turn: a million where a seat
    answers each of many domes.
    """
    text = str(turn)
    if answered:
        return next((t for t in turns_after(p, answered) if str(t) == text), None)
    try:
        return find_turn(p, text)
    except IllegalTurnError:
        return None


def go_on_with(p: Position, plan: Turn, answered: Sequence[Choice]) -> Turn | None:
    """The turn with ``plan``'s own moves and builds that goes on from ``answered``, or None.

    When another seat chose otherwise than ``plan`` needs, the mover's part may still be
    played after what was chosen (the mover typed none of the other seats' choices).
    """
    mine = movers_part(p, plan)
    return next((t for t in turns_after(p, answered) if movers_part(p, t) == mine), None)


def choice_options(p: Position, answered: Sequence[Choice], asked: str) -> tuple[int, list[str]]:
    """Who decides at ``asked`` after ``answered``, and the answers that seat may give.

    The seat is -1 (and the list empty) when no legal turn has a choice there. The answers
    are sorted, ``-`` first.
    """
    k = len(answered)
    want = tuple(answered)
    seat = -1
    found: set[str] = set()
    for _, cs in _all(p, asked):
        if len(cs) > k and cs[:k] == want and cs[k].asked == asked:
            seat = cs[k].seat
            found.add(cs[k].answer)
    return seat, sorted(found, key=lambda a: (a != NO_CHOICE, a))
