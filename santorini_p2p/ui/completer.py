"""Completion of action text, one step at a time, from the engine's list of legal actions.

An action's text splits into steps before each ``>``, ``^`` and ``,`` (and a final ``D``):
``b2>c3^d4`` is ``b2``, ``>c3``, ``^d4``. Given what has been typed, the completer offers the
next step of every legal action that starts with it, so after ``b2>`` it offers only the
squares that worker can step to. The same prefixes give the squares to highlight. A Hermes
power turn that is one worker's step and build can also be typed that way (``b2>a1^a2``),
and what the canonical text lists in ascending order (two placed workers, Demeter's builds,
a Hermes power turn's squares, the offered gods) may be typed or clicked in any order.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Iterable
from functools import lru_cache
from itertools import permutations
from typing import Final

from prompt_toolkit.completion import CompleteEvent, Completer, Completion
from prompt_toolkit.document import Document

from santorini_p2p.engine import (
    DOME,
    SQUARE_NAMES,
    Action,
    ChooseGods,
    Phase,
    Place,
    Position,
    Turn,
    legal_actions,
    plain_form,
)
from santorini_p2p.ui.board_view import Marks

__all__ = [
    "ActionCompleter",
    "is_complete",
    "is_prefix",
    "last_step",
    "marks_for",
    "next_steps",
    "squares_in",
    "step_starts",
]

_SQUARE: Final = re.compile(r"[a-e][1-5]")
_INDEX: Final = {name: i for i, name in enumerate(SQUARE_NAMES)}
_FILES: Final = frozenset("abcde")


@lru_cache(maxsize=16)
def _spellings(p: Position) -> tuple[tuple[str, str, str], ...]:
    """Every way to type a legal action: ``(lower case, as typed, canonical text)``.

    The canonical texts, and before them the plain spelling of each Hermes power turn that
    has one (``b2>a1^a2`` for ``Ha1,d4^a2``), so that a Hermes player can type a turn the
    usual way and complete it from a worker's square. After them, the other orders of what
    the canonical text lists in ascending order though its order means nothing (see
    ``_reordered``), so that the first square or god typed or clicked may be any of them.
    """
    plain: list[tuple[str, str, str]] = []
    canonical: list[tuple[str, str, str]] = []
    reordered: list[tuple[str, str, str]] = []
    for a in legal_actions(p):
        text = str(a)
        canonical.append((text.lower(), text, text))
        if isinstance(a, Turn) and a.both:
            other = plain_form(p, a)
            if other is not None:
                plain.append((str(other).lower(), str(other), text))
        for other_text in _reordered(a):
            reordered.append((other_text.lower(), other_text, text))
    return (*plain, *canonical, *reordered)


def _reordered(a: Action) -> list[str]:
    """The texts of ``a`` with an unordered list in another order (SPEC.md 2.1, 2.2).

    Two workers placed, a Hermes power turn's two squares, Demeter's two builds, the gods a
    challenger offers: readers accept any order, writers list them ascending.
    """
    if isinstance(a, Place) and len(a.squares) == 2:
        return [str(Place(a.squares[::-1]))]
    if isinstance(a, ChooseGods):
        return [str(ChooseGods(g)) for g in permutations(a.gods)][1:]
    if isinstance(a, Turn):
        if a.both:
            return [str(a._replace(path=a.path[::-1]))]
        if len(a.builds) == 2 and a.builds[0] != a.builds[1] and not a.builds[0] & DOME:
            return [str(a._replace(builds=a.builds[::-1]))]
    return []


def step_starts(text: str) -> list[int]:
    """Return where each step of an action's text starts after the first (see module doc)."""
    return [
        i
        for i, ch in enumerate(text)
        if i > 0 and (ch in ">^," or (ch == "D" and i == len(text) - 1))
    ]


def last_step(text: str) -> str:
    """Return the last step of ``text`` (``>c3`` of ``b2>c3``; all of ``god pan``)."""
    starts = step_starts(text)
    return text[starts[-1] :] if starts else text


def _step_end(text: str, after: int) -> int:
    for i in step_starts(text):
        if i > after:
            return i
    return len(text)


def _spelled_out(p: Position, typed: str) -> str:
    """``typed`` with the ``place`` word added when it starts a bare placement (``b2,d4``).

    The notation reads a bare ``b2,d4`` as a placement, so typing one is as good as the
    canonical ``place b2,d4`` at every step, not only once it is whole.
    """
    if p.phase is Phase.PLACE and typed[:1].lower() in _FILES:
        return "place " + typed
    return typed


def next_steps(p: Position, typed: str) -> list[str]:
    """Return the distinct inputs one step on from ``typed``, in the engine's order.

    Each is a prefix of a legal action (or a whole one) that starts with ``typed``, ignoring
    case; an empty list means no legal action starts so.
    """
    typed = _spelled_out(p, typed)
    low = typed.lower()
    out: list[str] = []
    seen: set[str] = set()
    for lower, text, _ in _spellings(p):
        if lower.startswith(low) and len(text) > len(typed):
            step = text[: _step_end(text, len(typed))]
            if step not in seen:
                seen.add(step)
                out.append(step)
    return out


def is_complete(p: Position, typed: str) -> str | None:
    """Return the canonical text of the legal action ``typed`` spells (ignoring case), or None."""
    low = _spelled_out(p, typed.strip()).lower()
    if not low:
        return None
    for lower, _, text in _spellings(p):
        if lower == low:
            return text
    return None


def is_prefix(p: Position, typed: str) -> bool:
    """Return whether some legal action starts with ``typed`` (ignoring case)."""
    low = _spelled_out(p, typed).lower()
    return any(lower.startswith(low) for lower, _, _ in _spellings(p))


def squares_in(text: str) -> list[int]:
    """Return the squares named in ``text``, in order."""
    return [_INDEX[m] for m in _SQUARE.findall(text.lower())]


def marks_for(p: Position, typed: str) -> Marks:
    """Return the squares to highlight for ``typed``: those it names and those it can go to.

    With nothing typed in the play phase, the targets are the workers that can start a turn.
    """
    if p.phase is Phase.OVER or not is_prefix(p, typed):
        return Marks(chosen=frozenset(squares_in(typed)))
    chosen = squares_in(typed)
    targets: set[int] = set()
    for step in next_steps(p, typed):
        named = squares_in(last_step(step))
        if named:
            targets.add(named[-1])
    return Marks(targets=frozenset(targets), chosen=frozenset(chosen))


def _label(step: str) -> str:
    """How a step shows in the menu: its last step, with Atlas' ``D`` spelled out."""
    last = last_step(step)
    return "D (dome)" if last == "D" else last


def _meta(p: Position, step: str) -> str:
    if is_complete(p, step) is None:
        return ""
    from santorini_p2p.engine import Turn, parse_action

    action = parse_action(step)
    return "wins" if isinstance(action, Turn) and action.is_win else ""


class ActionCompleter(Completer):
    """Offers the next step of every legal action for the position ``get_position`` returns.

    Each completion replaces the whole input, so its case follows the canonical text.
    """

    def __init__(self, get_position: Callable[[], Position | None]) -> None:
        self.get_position = get_position

    def get_completions(
        self, document: Document, complete_event: CompleteEvent
    ) -> Iterable[Completion]:
        """Yield the next steps for the text before the cursor."""
        p = self.get_position()
        if p is None:
            return
        typed = document.text_before_cursor
        for step in next_steps(p, typed):
            yield Completion(
                step,
                start_position=-len(typed),
                display=_label(step),
                display_meta=_meta(p, step),
            )
