"""Checking action text as it is typed: the first character no legal action allows, and why.

Text is fine while some legal action starts with it (so a half-typed turn is fine), or when
it parses to a legal action in another spelling (``place d4,b2``, or a Hermes player's plain
``b2>a1^a2``). Otherwise the error points at the first character that no legal action
continues with and lists what could come there.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass

from prompt_toolkit.document import Document
from prompt_toolkit.validation import ValidationError, Validator

from santorini_p2p.engine import Phase, Position, legal_form, parse_action
from santorini_p2p.engine.setup import god_choice_error
from santorini_p2p.errors import NotationError
from santorini_p2p.ui.completer import is_prefix, last_step, next_steps, ready, step_starts

__all__ = ["ActionValidator", "InputProblem", "check_input", "find_action"]

_LIST_LIMIT = 8


@dataclass(frozen=True, slots=True)
class InputProblem:
    """What is wrong with typed text: ``index`` of the bad character (0-based) and why."""

    index: int
    message: str


def find_action(p: Position, text: str) -> str | None:
    """Return the canonical text of the legal action ``text`` spells, or None.

    Another spelling counts (``place d4,b2``; a Hermes player's plain ``b2>a1^a2``).
    """
    t = text.strip()
    if not t:
        return None
    try:
        action = legal_form(p, parse_action(t))
    except NotationError:
        return None
    return None if action is None else str(action)


def _options(p: Position, base: str, lead: str = "") -> str:
    """The next steps from ``base`` without their marks; those of the kind ``lead`` if any."""
    lasts = [last_step(s) for s in next_steps(p, base)]
    same = [s for s in lasts if lead and s.startswith(lead)]
    steps = [s.lstrip(">^,~-") for s in (same or lasts)]
    shown = ", ".join(steps[:_LIST_LIMIT])
    if len(steps) > _LIST_LIMIT:
        shown += f" (and {len(steps) - _LIST_LIMIT} more)"
    return shown


def check_input(p: Position, text: str) -> InputProblem | None:
    """Return the first problem with ``text`` as (the start of) an action in ``p``, or None."""
    if not text.strip():
        return None
    if p.phase is Phase.OVER:
        return InputProblem(0, "the game is over")
    if is_prefix(p, text) or find_action(p, text) is not None:
        return None
    good = 0
    while good < len(text) and is_prefix(p, text[: good + 1]):
        good += 1
    try:
        action = parse_action(text.strip())
    except NotationError as e:
        if e.column and e.column - 1 <= good and not is_prefix(p, text):
            return InputProblem(min(good, len(text) - 1), e.reason)
    else:
        banned = god_choice_error(p, action)
        if banned:
            return InputProblem(min(good, len(text) - 1), banned)
    starts = step_starts(text)
    before = [i for i in starts if i <= good]
    base = text[: before[-1]] if before else ""
    lead = text[len(base) : len(base) + 1]
    options = _options(p, base, lead if lead in "~-" else "")
    after = [i for i in starts if i > good]
    bad = text[len(base) : after[0] if after else len(text)]
    if not base:
        what = "your workers" if p.phase is Phase.PLAY else "you can type"
        message = f"nothing legal starts with {bad!r}; {what}: {options}"
    elif lead == ">":
        message = f"the worker cannot move to {bad[1:]!r}; it can move to: {options}"
    elif lead == "^":
        message = f"no build on {bad[1:]!r} here; it can build on: {options}"
    elif lead == "~":
        message = f"no worker to ferry on {bad[1:]!r}; it can ferry: {options}"
    elif lead == "-":
        message = f"no block to remove on {bad[1:]!r}; it can remove one on: {options}"
    elif lead == "D":
        message = "a dome is not allowed here"
    else:
        message = f"{bad!r} does not fit here; it can go on with: {options}"
    if not options:
        message = f"{text[:good]!r} is already a whole action: press Enter"
    return InputProblem(good, message)


class ActionValidator(Validator):
    """Marks the first bad character of the input for the position ``get_position`` returns.

    ``words`` (commands such as ``undo``) and their beginnings are accepted too, and a word
    that ends in a space (``say ``) with any text after it.
    """

    def __init__(
        self, get_position: Callable[[], Position | None], words: Sequence[str] = ()
    ) -> None:
        self.get_position = get_position
        self.words = tuple(words)

    def validate(self, document: Document) -> None:
        """Raise ``ValidationError`` at the first bad character, with the reason.

        Raises:
            ValidationError: the text cannot become a legal action.
        """
        p = self.get_position()
        if p is None:
            return
        typed = document.text.strip().lower()
        if typed and any(w.startswith(typed) for w in self.words):
            return
        # A word ending in a space takes any text after it (``say good game``).
        if any(w.endswith(" ") and typed.startswith(w) for w in self.words):
            return
        if not ready(p):
            return  # its turns are still being listed: Enter checks the text then
        problem = check_input(p, document.text)
        if problem is not None:
            raise ValidationError(cursor_position=problem.index, message=problem.message)
