"""Completion of action text, one step at a time, from the engine's list of legal actions.

An action's text splits into steps before each ``>``, ``^``, ``~``, ``-`` and ``,`` (and a
final ``D``): ``b2~c3>c3^d4-e5`` is ``b2``, ``~c3``, ``>c3``, ``^d4``, ``-e5``. Given what has
been typed, the completer offers the next step of every legal action that starts with it, so
after ``b2>`` it offers only the squares that worker can step to, and each step is labelled
with its kind (:func:`step_kind`: a move, a build, a ferry, a block removed). The same prefixes
give the squares to highlight. A Hermes power turn that is one worker's step and build can
also be typed that way (``b2>a1^a2``), and what the canonical text lists in ascending order
though its order means nothing (two placed workers, two or more builds the engine reads in any
order, a Hermes power turn's squares, the offered gods) may be typed or clicked in any order.
"""

from __future__ import annotations

import re
import threading
from bisect import bisect_left
from collections.abc import Callable, Iterable
from functools import lru_cache
from typing import Final, NamedTuple

from prompt_toolkit.completion import CompleteEvent, Completer, Completion
from prompt_toolkit.document import Document

from santorini_p2p.engine import (
    ALL_GOD_NAMES,
    SQUARE_NAMES,
    Action,
    ChooseGods,
    Phase,
    Place,
    Position,
    Turn,
    find_god,
    legal_actions,
    limits,
    parse_action,
    plain_form,
)
from santorini_p2p.engine.rules import list_turns, special_powers
from santorini_p2p.errors import NotationError
from santorini_p2p.ui.board_view import Marks

__all__ = [
    "ActionCompleter",
    "is_complete",
    "is_prefix",
    "last_step",
    "marks_for",
    "next_steps",
    "prepare",
    "ready",
    "squares_in",
    "step_kind",
    "step_kinds",
    "step_starts",
]

_SQUARE: Final = re.compile(r"[a-e][1-5]")
_INDEX: Final = {name: i for i, name in enumerate(SQUARE_NAMES)}
_FILES: Final = frozenset("abcde")
_MARKS: Final = frozenset(">^,~-<*=+!@%#&:")
_FILES_SET: Final = frozenset("abcde")
_PART: Final = re.compile(r"[\^-][^\^-]*")

Spelling = tuple[str, str, str]
"""One way to type a legal action: ``(lower case, as typed, canonical text)``."""


class _Builds(NamedTuple):
    """A legal turn whose builds may be typed in any order: its text cut around the builds."""

    head: str
    builds: tuple[str, ...]
    tail: str
    canonical: str
    lows: tuple[str, ...]
    """``builds`` in lower case."""


@lru_cache(maxsize=16)
def _spellings(p: Position) -> tuple[Spelling, ...]:
    """Every way to type a legal action, but for builds in another order (see ``_builds``).

    The canonical texts, and before them the plain spelling of each Hermes power turn that
    has one (``b2>a1^a2`` for ``Ha1,d4^a2``), so that a Hermes player can type a turn the
    usual way and complete it from a worker's square. After them, the other orders of what
    the canonical text lists in ascending order though its order means nothing (see
    ``_reordered``), so that the first square or god typed or clicked may be any of them.
    """
    plain: list[Spelling] = []
    canonical: list[Spelling] = []
    reordered: list[Spelling] = []
    for a in legal_actions(p):
        text = str(a)
        canonical.append((text.lower(), text, text))
        if isinstance(a, Turn) and a.worker == -1:
            other = plain_form(p, a)
            if other is not None:
                plain.append((str(other).lower(), str(other), text))
        for other_text in _reordered(a):
            reordered.append((other_text.lower(), other_text, text))
    return (*plain, *canonical, *reordered)


def _reordered(a: Action) -> list[str]:
    """The texts of ``a`` with an unordered list in another order (SPEC.md 2.1, 2.2).

    Two workers placed, a Hermes power turn's two squares: readers accept any order, writers
    list them ascending. (Builds: ``_builds``; the gods a challenger offers: ``_offers``.)
    """
    if isinstance(a, Place) and len(a.squares) == 2:
        return [str(Place(a.squares[::-1]))]
    if isinstance(a, Turn) and a.worker == -1:
        return [str(a._replace(path=a.path[::-1]))]
    return []


@lru_cache(maxsize=16)
def _builds(p: Position) -> tuple[_Builds, ...]:
    """The legal turns of ``p`` with two or more builds that may be typed in another order.

    The engine reads a turn's builds in any order when exactly one legal turn has the same
    worker, steps, removal and builds in all, and no build can end the game part-way
    (``find_turn``, SPEC.md 2.1: Demeter, Hestia, Poseidon). A test checks each spelling
    offered here against the engine's reading (``legal_form``).
    """
    if p.phase is not Phase.PLAY or limits(p).tower_seat >= 0:
        return ()
    groups: dict[tuple[object, ...], int] = {}
    turns = [a for a in legal_actions(p) if isinstance(a, Turn)]
    for t in turns:
        if len(t.builds) >= 2 and t.worker >= 0:
            key = (t.worker, t.path, t.before, t.after, tuple(sorted(t.builds)))
            groups[key] = groups.get(key, 0) + 1
    out: list[_Builds] = []
    for t in turns:
        if len(t.builds) < 2 or len(set(t.builds)) < 2 or t.worker < 0:
            continue
        if groups[(t.worker, t.path, t.before, t.after, tuple(sorted(t.builds)))] != 1:
            continue
        text = str(t)
        starts = step_starts(text)
        pieces = [text[a:b] for a, b in zip([0, *starts], [*starts, len(text)], strict=True)]
        first = len(pieces) - len(t.builds) - (1 if text[starts[-1]] == "-" else 0)
        builds = tuple(pieces[first : first + len(t.builds)])
        tail = "".join(pieces[first + len(builds) :])
        lows = tuple(x.lower() for x in builds)
        out.append(_Builds("".join(pieces[:first]), builds, tail, text, lows))
    return tuple(out)


@lru_cache(maxsize=16)
def _sorted(p: Position) -> tuple[list[str], tuple[tuple[int, Spelling], ...]]:
    """``_spellings(p)`` sorted by their lower case (with their place in the engine's order).

    A bisection finds the spellings that start with a prefix without reading them all.
    """
    ranked = sorted((s[0], i, s) for i, s in enumerate(_spellings(p)))
    return [r[0] for r in ranked], tuple((i, s) for _, i, s in ranked)


@lru_cache(maxsize=16)
def _heads(p: Position) -> dict[str, tuple[list[_Builds], dict[str, list[_Builds]]]]:
    """``_builds(p)`` by the lower case of what comes before their builds.

    For each such head: all of them, and those that have each build (lower case).
    """
    out: dict[str, tuple[list[_Builds], dict[str, list[_Builds]]]] = {}
    for b in _builds(p):
        every, by_build = out.setdefault(b.head.lower(), ([], {}))
        every.append(b)
        for low in dict.fromkeys(b.lows):
            by_build.setdefault(low, []).append(b)
    return out


def _candidates(p: Position, typed: str) -> list[Spelling]:
    """The spellings of legal actions that start with ``typed`` (lower case), engine's order.

    Builds in another order than the canonical come after the rest.
    """
    keys, ranked = _sorted(p)
    start = bisect_left(keys, typed)
    found: list[tuple[int, Spelling]] = []
    for k in range(start, len(keys)):
        if not keys[k].startswith(typed):
            break
        found.append(ranked[k])
    out = [s for _, s in sorted(found)]
    if p.phase is Phase.GODS and typed.startswith(_OFFER):
        out.extend(_offer_orders(p, typed))
    heads = _heads(p)
    if not heads:
        return out
    cut = [0, *step_starts(typed), len(typed)]
    for end in dict.fromkeys(cut[1:]):
        here = heads.get(typed[:end])
        if here is None:
            continue
        parts = _PART.findall(typed[end:])
        every, by_build = here
        # A whole build typed first narrows the turns to those with it.
        whole = parts and (len(parts) > 1 or _SQUARE.search(parts[0]) is not None)
        legal = _lowered(p)
        for b in by_build.get(parts[0], []) if whole else every:
            out.extend(_orders(b, parts, typed, legal))
    return out


_OFFER: Final = "gods "


@lru_cache(maxsize=16)
def _offers(p: Position) -> dict[frozenset[str], str]:
    """The gods the challenger may offer, as sets, with the canonical text of each offer."""
    return {frozenset(a.gods): str(a) for a in legal_actions(p) if isinstance(a, ChooseGods)}


@lru_cache(maxsize=16)
def _offers_by_god(p: Position) -> dict[str, list[frozenset[str]]]:
    """``_offers(p)`` by each god they hold."""
    out: dict[str, list[frozenset[str]]] = {}
    for gods in _offers(p):
        for g in gods:
            out.setdefault(g, []).append(gods)
    return out


def _offer_orders(p: Position, typed: str) -> list[Spelling]:
    """Spellings of the offers that start with ``typed`` with their gods in another order.

    One for each god that can come next after those typed (the rest in god order), so that
    the first god may be any of the pool: a pool of all 25 gods has 12,650 offers of four,
    too many to spell in every order.
    """
    names = typed[len(_OFFER) :].split(",")
    done, last = names[:-1], names[-1]
    have = frozenset(done)
    if len(have) != len(done):
        return []
    order = {g: i for i, g in enumerate(ALL_GOD_NAMES)}
    by_god = _offers_by_god(p)
    wanted = {g for g in by_god if g.startswith(last)} - have
    after: dict[str, frozenset[str]] = {}
    for gods in by_god.get(done[0], []) if done else _offers(p):
        if have <= gods:
            for g in gods & wanted:
                after.setdefault(g, gods)
            if len(after) == len(wanted):
                break
    out: list[Spelling] = []
    for g in sorted(after, key=order.__getitem__):
        gods = after[g]
        rest = sorted(gods - have - {g}, key=order.__getitem__)
        text = _OFFER + ",".join([*done, g, *rest])
        if text != _offers(p)[gods]:
            out.append((text, text, _offers(p)[gods]))
    return out


@lru_cache(maxsize=16)
def _lowered(p: Position) -> frozenset[str]:
    """The lower case of every spelling in ``_spellings(p)``."""
    return frozenset(s[0] for s in _spellings(p))


def _orders(b: _Builds, parts: list[str], typed: str, legal: frozenset[str]) -> list[Spelling]:
    """Spellings of ``b`` with its builds in another order that start with ``typed``.

    ``parts`` are the steps typed after ``b.head``. One spelling for each build that can
    come next after those typed (the rest follow in any order: each order is either read as
    ``b`` or is a legal turn of its own, offered as such).
    """
    left = list(b.lows)
    done: list[int] = []
    for k, part in enumerate(parts):
        if part not in left:
            if any(left) and k < len(parts) - 1:
                return []  # a step that is none of the builds left, with more after it
            break
        i = left.index(part)
        left[i] = ""
        done.append(i)
    rest = [i for i, x in enumerate(left) if x]
    out: list[Spelling] = []
    typed_done = "".join(b.builds[i] for i in done)
    for nxt in dict.fromkeys(b.lows[i] for i in rest) or [""]:
        after = [b.builds[i] for i in rest]
        if nxt:
            after.pop([b.lows[i] for i in rest].index(nxt))
            after.insert(0, b.builds[b.lows.index(nxt)])
        text = b.head + typed_done + "".join(after) + b.tail
        low = text.lower()
        if low.startswith(typed) and text != b.canonical and low not in legal:
            out.append((low, text, b.canonical))
    return out


def step_starts(text: str) -> list[int]:
    """Return where each step of an action's text starts after the first (see module doc)."""
    return [
        i
        for i, ch in enumerate(text)
        if i > 0
        and (
            ch in _MARKS
            or (ch in "DX" and text[i - 1 : i].isdigit())
            or (ch == "x" and text[i + 1 : i + 2] in _FILES_SET)
        )
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


_PREPARED: dict[Position, None] = {}
"""The last positions :func:`prepare` built the lists of (oldest first)."""

_PREPARING = threading.Lock()


@lru_cache(maxsize=16)
def _quick(p: Position) -> bool:
    """Whether ``p``'s lists are quick to make: its turns stop short of the first long stretch.

    Only where powers add choices to turns (RULES.md 10) can a position have hundreds of
    thousands; the listing is asked to stop at its first question (some 4,000 turns).
    """
    if p.phase is not Phase.PLAY or not special_powers(p.gods):
        return True
    return list_turns(p, lambda: True).complete


def ready(p: Position) -> bool:
    """Whether completion, marks and checks of typed text for ``p`` answer without a wait.

    Not where a position has hundreds of thousands of turns (Polyphemus's domes answered by
    Gaea: seconds to list) until :func:`prepare` has built them; a screen asks for that off
    its own thread and shows the board meanwhile.
    """
    return p in _PREPARED or _quick(p)


def prepare(p: Position) -> None:
    """Build every list completion reads for ``p`` (for a thread other than the screen's)."""
    with _PREPARING:
        if p in _PREPARED:
            return
        _sorted(p)
        _heads(p)
        _lowered(p)
        _PREPARED[p] = None
        while len(_PREPARED) > 8:
            del _PREPARED[next(iter(_PREPARED))]


def next_steps(p: Position, typed: str) -> list[str]:
    """Return the distinct inputs one step on from ``typed``, in the engine's order.

    Each is a prefix of a legal action (or a whole one) that starts with ``typed``, ignoring
    case; an empty list means no legal action starts so.
    """
    typed = _spelled_out(p, typed)
    low = typed.lower()
    out: list[str] = []
    seen: set[str] = set()
    for lower, text, _ in _candidates(p, low):
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
    for lower, _, text in _candidates(p, low):
        if lower == low:
            return text
    return None


def is_prefix(p: Position, typed: str) -> bool:
    """Return whether some legal action starts with ``typed`` (ignoring case)."""
    low = _spelled_out(p, typed).lower()
    return any(lower.startswith(low) for lower, _, _ in _candidates(p, low))


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


def _power_words(p: Position, step: str) -> tuple[str, str] | None:
    """The mark of ``step``'s last power step and what the gods in play say it means.

    The mover's god first, then the others' (a power that reacts writes steps in another
    seat's turn: Gaea's ``+``); where two gods give a mark a meaning, both are said. None:
    no god names the mark (the generic words apply).
    """
    starts = step_starts(step)
    if not starts:
        return None
    mark = step[starts[-1]]
    if mark not in _POWER_MARKS:
        return None
    seats = [p.to_move, *(s for s in range(len(p.gods)) if s != p.to_move)]
    said: list[str] = []
    for seat in seats:
        god = p.gods[seat] if seat < len(p.gods) else ""
        if god in ("", "?"):
            continue
        words = find_god(god).step_words(mark, seat == p.to_move)
        if words and words not in said:
            said.append(words)
    return (mark, " or ".join(said)) if said else None


_POWER_MARKS: Final = frozenset("<*=+!@%#&xX~-D")
"""The marks of power steps after a turn's first step (RULES.md 8, 9, 10.3) that a god may
give its own words (``Power.step_words``)."""


def step_kind(step: str, p: Position | None = None) -> str:
    """Return what the last step of ``step`` does, in words (``"move"``, ``"ferry"`` ...).

    Read from the text (SPEC.md 2.1): ``>`` a move, ``^`` a build (before the first move: a
    build first; on the square the worker stands on: under the worker; after another build: a
    build again), ``~`` a ferry (the opponent worker there is forced across), ``-`` a block
    removed, ``D`` a dome, ``,`` the second worker or god, ``H`` both workers moving. With the
    position ``p``, a power step takes the words of the gods in play (``Power.step_words``:
    Hydra's ``+`` gains a worker, Gaea's puts one from her card next to a dome).
    """
    if p is not None:
        power = _power_words(p, step)
        if power is not None:
            return power[1]
    starts = step_starts(step)
    last = step[starts[-1] :] if starts else step
    mark = last[:1]
    before = step[: starts[-1]] if starts else ""
    if not starts:
        if mark == "H":
            return "both workers"
        if len(step) == 3 and mark in "MBT" and _SQUARE.fullmatch(step[1:].lower()):
            return _EVERY[mark]
        if mark == "S":
            return "song"
        if mark == "J":
            return "worker from the card"
        if mark == "O":
            return "force to a corner"
        if step.startswith("god"):
            return "god"
        return "worker" if _SQUARE.fullmatch(step.lower()) else ""
    if mark == ">":
        return "move"
    if mark == "~":
        return "ferry" if ">" not in before else "drag"
    if mark in _POWER_STEPS:
        return _POWER_STEPS[mark]
    if mark == "-":
        return "remove a block"
    if mark == "D":
        return "dome"
    if mark == "X":
        return "dome instead"
    if mark == "@":
        return "wind"
    if mark == "%":
        return "drop a worker to the ground"
    if mark == "#":
        return "domes anywhere"
    if mark == "&":
        return "name a pair"
    if mark == "x":
        return "remove a worker"
    if mark == ":":
        return "then the turn"
    if mark == ",":
        if before.startswith("="):
            return "exchange"
        return "second worker" if squares_in(last) else "another god"
    # a build: which one, from the steps before it
    if ">" not in before and not before.startswith("H"):
        return "build first"
    if "^" in before[before.rfind(">") + 1 :]:
        return "build again"
    named = squares_in(before)
    if named and squares_in(last) == named[-1:]:
        return "build under itself"
    return "build"


_EVERY: Final = {
    "M": "every worker moves",
    "B": "every worker builds",
    "T": "every worker moves and builds",
}
"""The turns of every worker (RULES.md 9), by their first letter."""
_POWER_STEPS: Final = {
    "<": "force your worker",
    "*": "dome anywhere",
    "=": "exchange",
    "+": "gain a worker",
    "!": "remove your worker",
}
"""The power steps of RULES.md 9 written after the move or at the end, by their mark."""

_SIGN: Final = {
    "move": ">",
    "ferry": "~",
    "remove a block": "-",
    "dome": "D",
    "worker": "",
    "god": "",
    "both workers": "H",
    "every worker moves": "M",
    "every worker builds": "B",
    "every worker moves and builds": "T",
    "drag": "~",
    "force your worker": "<",
    "dome anywhere": "*",
    "exchange": "=",
    "gain a worker": "+",
    "remove your worker": "!",
    "song": "S",
    "worker from the card": "J",
    "force to a corner": "O",
    "then the turn": ":",
    "dome instead": "X",
    "drop a worker to the ground": "%",
    "domes anywhere": "#",
    "name a pair": "&",
    "remove a worker": "x",
    "wind": "@",
}


def step_kinds(p: Position, typed: str) -> list[str]:
    """Return the kinds of the next steps from ``typed``, each with its mark (``"> move"``).

    In the order they first come among the next steps; a whole action typed so far that can
    also be played as it is adds ``"Enter plays"``.
    """
    out: list[str] = []
    for step in next_steps(p, typed):
        power = _power_words(p, step)
        if power is not None:
            sign, kind = power
        else:
            kind = step_kind(step)
            sign = _SIGN.get(kind, "^" if "build" in kind else ",")
        if not kind:
            continue
        label = f"{sign} {kind}" if sign else kind
        if label not in out:
            out.append(label)
    if out and is_complete(p, typed) is not None:
        out.append("Enter plays")
    return out


def _label(step: str) -> str:
    """How a step shows in the menu: its last step, with Atlas' ``D`` spelled out."""
    last = last_step(step)
    return "D (dome)" if last == "D" else last


def _meta(p: Position, step: str) -> str:
    """The menu's note on ``step``: ``wins`` for a winning turn, else the kind of step."""
    if is_complete(p, step) is not None:
        try:
            action = parse_action(step)
        except NotationError:
            action = None
        if isinstance(action, Turn) and action.is_win:
            return "wins"
    kind = step_kind(step, p)
    if kind == "god":
        # A god to choose (draft, challenger): its power, as the card says (the menu cuts it).
        name = step.split()[-1].lower()
        if name in ALL_GOD_NAMES:
            return find_god(name).power
    return "" if kind == "dome" else kind


class ActionCompleter(Completer):
    """Offers the next step of every legal action for the position ``get_position`` returns.

    Each completion replaces the whole input, so its case follows the canonical text; its
    note names the kind of step (a move, a build, a ferry ...) or says that it wins.
    """

    def __init__(self, get_position: Callable[[], Position | None]) -> None:
        self.get_position = get_position

    def get_completions(
        self, document: Document, complete_event: CompleteEvent
    ) -> Iterable[Completion]:
        """Yield the next steps for the text before the cursor."""
        p = self.get_position()
        if p is None or not ready(p):
            return
        typed = document.text_before_cursor
        for step in next_steps(p, typed):
            yield Completion(
                step,
                start_position=-len(typed),
                display=_label(step),
                display_meta=_meta(p, step),
            )
