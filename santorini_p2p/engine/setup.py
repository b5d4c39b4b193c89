"""The setup phase as engine actions: god selection and worker placement (RULES.md section 3).

``legal_actions`` and ``apply_action`` cover every phase, so a game is one fold of actions
from ``new_game`` to the end. Randomness (the draft's draw, the random deal) arrives as an
argument from the caller.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import replace
from difflib import get_close_matches
from itertools import combinations
from typing import Final, Literal

from santorini_p2p.engine.gods import (
    ADVANCED,
    ALL_GOD_NAMES,
    GODS,
    GOLDEN_FLEECE,
    HEROES,
    MEMORY,
    PROMO,
    SIMPLE,
    ban_reason,
    power_of,
)
from santorini_p2p.engine.notation import format_action
from santorini_p2p.engine.order import placement_due, side_powers
from santorini_p2p.engine.position import (
    DIRECTIONS,
    UNDECIDED,
    Action,
    ChooseGods,
    NameStart,
    Phase,
    PickGod,
    Place,
    Position,
    Selection,
    Sing,
    Turn,
)
from santorini_p2p.engine.rules import (
    apply_unchecked,
    is_legal,
    legal_turns,
    settle_start,
    turn_form,
    without_builds,
)
from santorini_p2p.engine.squares import ALL, BITS, bits
from santorini_p2p.errors import IllegalTurnError

__all__ = [
    "OFFERED",
    "POOL_CHOICES",
    "POOL_PROMPT",
    "POOL_SETS",
    "GodMode",
    "apply_action",
    "close_names",
    "god_choice_error",
    "is_legal_action",
    "legal_actions",
    "legal_form",
    "new_game",
    "offer_set",
    "placement_due",
    "placement_error",
    "pool_name",
    "pool_need",
    "redraw_banned",
    "resolve_pool",
]

GodMode = Literal["none", "challenger", "draft", "random"]

OFFERED: tuple[str, ...] = tuple(g.name for g in SIMPLE)
"""The gods a challenger chooses from unless the game names a pool: the ten simple gods."""

POOL_SETS: Final = ("simple", "advanced", "goldenfleece", "promo", "memory", "heroes", "all")
"""The named god pools: the ten simple gods, the fifteen advanced ones, the Golden Fleece and
promo gods of RULES.md section 9, the gods with memory and the ten heroes of section 10, all
of them."""
POOL_CHOICES: Final = (
    ("simple", "the ten simple gods"),
    ("advanced", "the fifteen advanced gods"),
    ("goldenfleece", f"the {len(GOLDEN_FLEECE)} Golden Fleece gods"),
    ("promo", f"the {len(PROMO)} promo gods"),
    ("memory", f"the {len(MEMORY)} gods with memory"),
    ("heroes", f"the {len(HEROES)} heroes (2 players)"),
    ("all", f"all {len(GODS)} gods"),
    ("names", "name the gods"),
)
"""The god pools a set-up screen offers, as ``(key, label)``: ``names`` asks for a list."""
POOL_PROMPT: Final = "gods (names joined by ','): "
"""The question a set-up screen asks for a list of gods."""


def offer_set(p: Position) -> tuple[str, ...]:
    """Return the gods the challenger of ``p`` offers from (its pool, or the simple ten)."""
    return p.offer or OFFERED


def pool_need(players: int, gods: GodMode) -> int:
    """Return how many gods a pool needs for ``gods`` with ``players`` (0 for ``none``)."""
    if gods == "draft":
        return 4 if players == 2 else players + 2
    return 0 if gods == "none" else players


def close_names(name: str) -> list[str]:
    """Return the god names that look like ``name`` (a typo's likely meaning), best first."""
    return get_close_matches(name.lower(), ALL_GOD_NAMES, n=3, cutoff=0.6)


def pool_name(pool: tuple[str, ...], players: int) -> str:
    """Return how a god pool is spoken of: ``simple``, ``advanced``, ``all`` or its names.

    A named set stands for its gods played with ``players`` (``advanced`` for 3 players lacks
    a god whose card is for 2 or 4); an empty pool is the ten simple gods. Other pools are
    their names in god order, joined by ``,``.
    """
    chosen = tuple(sorted(pool, key=ALL_GOD_NAMES.index)) or OFFERED
    for key in POOL_SETS:
        try:
            named = resolve_pool(key, players, "none")
        except ValueError:
            continue  # a set with no god for this many players (the heroes with 3 or 4)
        if chosen == named:
            return key
    return ",".join(chosen)


def resolve_pool(spec: str, players: int, gods: GodMode) -> tuple[str, ...]:
    """Return the god pool that ``spec`` names for a game, in god order.

    ``spec`` is ``simple``, ``advanced``, ``all`` or a comma-separated list of god names (any
    case). A named set leaves out the gods whose cards do not allow ``players`` (protocol/SPEC.md
    2.4); an explicit list is refused if it names one. The pool must hold enough gods for the
    selection: 4 (or players + 2 with 3 or 4 players) to draft, ``players`` otherwise.

    Raises:
        ValueError: an unknown god (with close names), a repeated or misplaced god, or a pool
            too small for ``gods`` with ``players``.
    """
    key = spec.strip().lower()
    if key in POOL_SETS:
        sets = {
            "simple": SIMPLE,
            "advanced": ADVANCED,
            "goldenfleece": tuple(g for g in GODS if g.name in GOLDEN_FLEECE),
            "promo": tuple(g for g in GODS if g.name in PROMO),
            "memory": MEMORY,
            "heroes": HEROES,
            "all": GODS,
        }
        pool = tuple(g.name for g in sets[key] if players in g.players)
        what = f"the {key} gods"
        if not pool:
            counts = " or ".join(str(n) for n in sorted({n for g in sets[key] for n in g.players}))
            raise ValueError(f"god pool: the {key} are played with {counts} players, not {players}")
    else:
        names = [n.strip().lower() for n in key.split(",")]
        if not key or "" in names:
            raise ValueError(
                f"god pool {spec!r}: expected {', '.join(POOL_SETS)} or god names joined by ','"
            )
        for n in names:
            if n not in ALL_GOD_NAMES:
                near = close_names(n)
                hint = f" (did you mean {' or '.join(near)}?)" if near else ""
                raise ValueError(f"god pool: unknown god {n!r}{hint}; `santorini gods` lists them")
            if players not in power_of(n).players:
                counts = " or ".join(str(c) for c in sorted(power_of(n).players))
                raise ValueError(
                    f"god pool: {n} is played with {counts} players, not {players} "
                    "(protocol/SPEC.md 2.4)"
                )
        if len(set(names)) != len(names):
            twice = next(n for n in names if names.count(n) > 1)
            raise ValueError(f"god pool: {twice} is named twice")
        pool = tuple(sorted(names, key=ALL_GOD_NAMES.index))
        what = "the pool"
    need = pool_need(players, gods)
    if len(pool) < need:
        raise ValueError(
            f"god pool: {len(pool)} god{'s' if len(pool) != 1 else ''} in {what}, but "
            f"{gods} with {players} players needs at least {need}"
        )
    if need and not _ban_free(pool, players):
        raise ValueError(f"god pool: {ban_reason(pool)}; name other gods")
    return pool


def redraw_banned(
    drawn: tuple[str, ...],
    pool: tuple[str, ...],
    players: int,
    gods: str,
    pick: Callable[[int], int],
) -> tuple[str, ...]:
    """``drawn`` with every banned pair drawn again (RULES.md section 9, second edition "Ban").

    While a ``random`` deal holds a banned pair (a ``draft`` pool: while no ``players`` of its
    gods are free of one), one god of the first such pair in drawing order is set aside and
    its place drawn again, ``pick(n)`` choosing among the ``n`` gods of ``pool`` neither drawn
    nor set aside. The card lets the start player choose which: here it is the later god,
    unless no god left could stand beside the others, then the earlier (protocol/SPEC.md 11).

    Raises:
        ValueError: no god is left to draw.
    """
    out = list(drawn)
    aside: set[str] = set()
    while True:
        if gods == "draft":
            if _ban_free(tuple(out), players):
                return tuple(out)
        elif ban_reason(out) is None:
            return tuple(out)
        i, j = next(
            (i, j) for j in range(1, len(out)) for i in range(j) if ban_reason((out[i], out[j]))
        )
        left = [g for g in pool if g not in out and g not in aside]
        if not left:
            raise ValueError(f"drawn: {ban_reason(out)}, and no god is left to draw")
        slot = j if gods == "draft" or _fits(out, j, left) or not _fits(out, i, left) else i
        aside.add(out[slot])
        out[slot] = left[pick(len(left))]


def _fits(drawn: list[str], slot: int, left: list[str]) -> bool:
    """Whether a god of ``left`` could take ``slot`` of ``drawn`` with no banned pair."""
    kept = drawn[:slot] + drawn[slot + 1 :]
    return any(ban_reason([*kept, g]) is None for g in left)


def _ban_free(pool: tuple[str, ...], players: int) -> bool:
    """Whether ``pool`` holds ``players`` gods with no banned pair among them."""
    return any(ban_reason(c) is None for c in combinations(pool, players))


def new_game(
    players: int = 2,
    gods: GodMode = "none",
    *,
    snake: bool = False,
    drawn: tuple[str, ...] = (),
    offer: tuple[str, ...] = (),
) -> Position:
    """Return the first position of a new game.

    ``drawn`` is the caller's random draw: the draft pool (4 gods, or players + 2 with 3 or 4
    players) for ``draft``, or one god per seat in seat order for ``random``. ``offer`` is
    the god pool a challenger offers from (empty, or the ten simple gods: those ten).

    Raises:
        ValueError: a bad player count, mode or draw.
    """
    if players not in (2, 3, 4):
        raise ValueError(f"players: expected 2, 3 or 4, got {players}")
    sides = 2 if players == 4 else players
    base = Position(workers=(0,) * sides, gods=("",) * players, snake=snake)
    if gods == "none":
        return base
    for g in drawn:
        if g not in ALL_GOD_NAMES:
            raise ValueError(f"drawn: unknown god {g!r}")
        if players not in power_of(g).players:
            counts = " or ".join(str(n) for n in sorted(power_of(g).players))
            raise ValueError(
                f"drawn: {g} is played with {counts} players, not {players} (protocol/SPEC.md 2.4)"
            )
    if len(set(drawn)) != len(drawn):
        raise ValueError(f"drawn: gods must be different, got {','.join(drawn)}")
    undecided = (UNDECIDED,) * players
    if gods == "challenger":
        offer = tuple(sorted(set(offer), key=ALL_GOD_NAMES.index)) if offer else ()
        for g in offer:
            if g not in ALL_GOD_NAMES or players not in power_of(g).players:
                raise ValueError(f"offer: {g!r} is not a god for {players} players")
        if offer and len(offer) < players:
            raise ValueError(f"offer: {players} players need {players} gods to offer")
        if offer == OFFERED:
            offer = ()
        return replace(base, gods=undecided, selection=Selection.CHALLENGER, offer=offer)
    if gods == "draft":
        want = 4 if players == 2 else players + 2
        if len(drawn) != want:
            raise ValueError(f"drawn: the draft needs {want} gods, got {len(drawn)}")
        if not _ban_free(drawn, players):
            raise ValueError(f"drawn: {ban_reason(drawn)}; no draft is possible")
        pool = tuple(sorted(drawn, key=ALL_GOD_NAMES.index))
        return replace(base, gods=undecided, selection=Selection.DRAFT, pool=pool)
    if gods == "random":
        if len(drawn) != players:
            raise ValueError(f"drawn: a random deal needs {players} gods, got {len(drawn)}")
        if ban_reason(drawn):
            raise ValueError(f"drawn: {ban_reason(drawn)}; the deal draws again")
        return _placing(replace(base, gods=tuple(drawn)))
    raise ValueError(f"gods: expected none, challenger, draft or random, got {gods!r}")


def _setup_actions(p: Position) -> list[Action]:
    out: list[Action] = []
    if p.naming:
        return [NameStart(s) for s in range(p.players)]
    if p.selection is Selection.CHALLENGER and not p.pool and p.to_move == 0:
        return [
            ChooseGods(c) for c in combinations(offer_set(p), p.players) if ban_reason(c) is None
        ]
    if p.selection is not Selection.NONE:
        return [PickGod(g) for g in p.pool if _pick_error(p, g) is None]
    if p.owed:
        return [Sing(d) for d in range(8)]
    _, count = placement_due(p)
    occupied = p.domes
    for m in p.workers:
        occupied |= m
    empty = bits(ALL & ~occupied)
    for c in combinations(empty, count):
        if placement_error(p, c) is None:
            out.extend(Place(c, f) for f in _female_choices(p, c))
    return out


def _names_female(p: Position) -> bool:
    """Whether the side due to place still has to name its female worker (RULES.md 10.2)."""
    side = placement_due(p)[0]
    return any(
        power_of(g).names_female and not p.state_of(s)
        for s, g in enumerate(p.gods)
        if p.side_of(s) == side
    )


def _female_choices(p: Position, squares: tuple[int, ...]) -> tuple[int, ...]:
    """The ``female`` values a placement on ``squares`` may take (-1: names none)."""
    if not _names_female(p):
        return (-1,)
    side = placement_due(p)[0]
    last = p.workers[side].bit_count() + len(squares) >= 2
    return squares if last else (-1, *squares)


def placement_error(p: Position, squares: tuple[int, ...]) -> str | None:
    """Why the side due to place may not place on ``squares`` (its powers' setup rules).

    The powers judge all the side's squares once these are placed (with ``snake`` a side
    places one worker at a time).
    """
    side = placement_due(p)[0]
    placed = tuple(sorted({*bits(p.workers[side]), *squares}))
    for g in side_powers(p, side):
        reason = power_of(g).placement_error(placed)
        if reason:
            return reason
    return None


def legal_actions(p: Position) -> list[Action]:
    """Return every legal action of the seat to move: setup actions, or turns in play.

    Setup actions come in a fixed order: god sets and picks in god order, start seats
    ascending, placements by ascending squares; turns are sorted by turn text.
    """
    phase = p.phase
    if phase is Phase.OVER:
        return []
    if phase is Phase.PLAY:
        return list(legal_turns(p))
    return _setup_actions(p)


def is_legal_action(p: Position, action: Action) -> bool:
    """Return whether ``action`` is legal for the seat to move in ``p``."""
    if isinstance(action, Turn):
        return is_legal(p, without_builds(p, action))
    if p.phase not in (Phase.GODS, Phase.PLACE):
        return False
    if isinstance(action, ChooseGods):
        return (
            p.selection is Selection.CHALLENGER
            and not p.pool
            and p.to_move == 0
            and len(action.gods) == p.players
            and len(set(action.gods)) == p.players
            and all(g in offer_set(p) for g in action.gods)
            and list(action.gods) == sorted(action.gods, key=ALL_GOD_NAMES.index)
            and ban_reason(action.gods) is None
        )
    if isinstance(action, PickGod):
        return (
            p.selection is not Selection.NONE
            and action.god in p.pool
            and not (p.selection is Selection.CHALLENGER and not p.pool)
            and _pick_error(p, action.god) is None
        )
    if isinstance(action, NameStart):
        return p.naming and 0 <= action.seat < p.players
    if p.phase is not Phase.PLACE:
        return False
    if isinstance(action, Sing):
        return bool(p.owed >> p.to_move & 1) and 0 <= action.direction < 8
    if p.owed:
        return False
    _, count = placement_due(p)
    sq = action.squares
    occupied = p.domes
    for m in p.workers:
        occupied |= m
    return (
        action.female in _female_choices(p, sq)
        and len(sq) == count
        and list(sq) == sorted(set(sq))
        and all(0 <= s < 25 and not occupied & BITS[s] for s in sq)
        and placement_error(p, sq) is None
    )


def legal_form(p: Position, action: Action) -> Action | None:
    """Return the legal action that ``action`` stands for in ``p``, or None if there is none.

    A setup action stands for itself; a turn may be typed in another spelling
    (``rules.turn_form``). For reading what a player types; a record in a log must carry
    the canonical text itself.
    """
    if isinstance(action, Turn):
        return turn_form(p, action)
    return action if is_legal_action(p, action) else None


def god_choice_error(p: Position, action: Action) -> str | None:
    """Why an offer or a pick of gods may not be made in ``p`` for a banned pair, or None."""
    if isinstance(action, ChooseGods):
        return ban_reason(action.gods)
    if isinstance(action, PickGod) and p.selection is not Selection.NONE and action.god in p.pool:
        return _pick_error(p, action.god)
    return None


def _pick_error(p: Position, god: str) -> str | None:
    """Why the seat to move may not take ``god`` from the pool (a banned pair), or None.

    A draft pick must also leave the seats still to pick a way to finish with no banned pair
    (RULES.md section 9: a banned pair is never drafted).
    """
    chosen = [g for g in p.gods if g and g != UNDECIDED]
    reason = ban_reason([*chosen, god])
    if reason:
        return reason
    left = [g for g in p.pool if g != god]
    still = sum(1 for g in p.gods if g == UNDECIDED) - 1
    if (
        p.selection is Selection.DRAFT
        and still > 0
        and not any(ban_reason([*chosen, god, *c]) is None for c in combinations(left, still))
    ):
        return f"taking {god} would leave no god the other seats may take (banned pairs)"
    return None


def _placing(p: Position) -> Position:
    """Return the position once the gods are chosen, with the side due to place to act.

    A power may place first (RULES.md section 8).
    """
    return replace(p, to_move=placement_due(p)[0]) if p.phase is Phase.PLACE else p


def _rotate(p: Position, start: int) -> Position:
    """Renumber the seats so that ``start`` becomes seat 1 (the challenger's choice)."""
    n = p.players
    gods = tuple(p.gods[(start + i) % n] for i in range(n))
    return replace(p, gods=gods, naming=False, to_move=0)


def _with_state(p: Position, seat: int, state: str) -> Position:
    """``p`` with ``seat``'s state in brackets set to ``state``."""
    new = list(p.power_state or ("",) * p.players)
    new[seat] = f"[{state}]" if state else ""
    return replace(p, power_state=tuple(new) if any(new) else ())


def apply_action(p: Position, action: Action) -> Position:
    """Return the position after ``action`` by the seat to move; ``p`` is left as it was.

    Raises:
        IllegalTurnError: the action is not legal in ``p``.
    """
    if isinstance(action, Turn):
        action = without_builds(p, action)
    if not is_legal_action(p, action):
        why = ""
        if isinstance(action, Place) and p.phase is Phase.PLACE:
            reason = placement_error(p, action.squares)
            why = f": {reason}" if reason else ""
        elif isinstance(action, ChooseGods) and ban_reason(action.gods):
            why = f": {ban_reason(action.gods)}"
        elif isinstance(action, PickGod) and action.god in p.pool:
            reason = _pick_error(p, action.god)
            why = f": {reason}" if reason else ""
        raise IllegalTurnError(f"illegal action: {format_action(action)!r} in {p}{why}")
    if isinstance(action, Turn):
        return apply_unchecked(p, action)
    n = p.players
    if isinstance(action, ChooseGods):
        return replace(p, pool=action.gods, offer=(), to_move=1 % n)
    if isinstance(action, PickGod):
        gods = list(p.gods)
        gods[p.to_move] = action.god
        pool = tuple(g for g in p.pool if g != action.god)
        if p.selection is Selection.CHALLENGER:
            if p.to_move == n - 1:
                gods[0] = pool[0]
                return replace(
                    p, gods=tuple(gods), pool=(), selection=Selection.NONE, naming=True, to_move=0
                )
            return replace(p, gods=tuple(gods), pool=pool, to_move=p.to_move + 1)
        if p.to_move == n - 1:
            done = replace(p, gods=tuple(gods), pool=(), selection=Selection.NONE, to_move=0)
            return _placing(done)
        return replace(p, gods=tuple(gods), pool=pool, to_move=p.to_move + 1)
    if isinstance(action, NameStart):
        return _placing(_rotate(p, action.seat))
    if isinstance(action, Sing):
        q = _with_state(p, p.to_move, DIRECTIONS[action.direction])
        q = replace(q, owed=q.owed & ~(1 << p.to_move))
        if q.phase is Phase.PLAY:
            return settle_start(q)
        return replace(q, to_move=placement_due(q)[0])
    side = placement_due(p)[0]
    workers = list(p.workers)
    for s in action.squares:
        workers[side] |= BITS[s]
    q = replace(p, workers=tuple(workers))
    for seat, g in enumerate(p.gods):
        if p.side_of(seat) != side:
            continue
        power = power_of(g)
        if power.names_female and action.female >= 0:
            q = _with_state(q, seat, power.female_state(action.squares, action.female))
        if power.sings and workers[side].bit_count() >= 2:
            q = replace(q, owed=q.owed | 1 << seat)
    if q.phase is Phase.PLAY:
        # The start player moves first; one who cannot has lost (RULES.md section 2).
        return settle_start(q)
    return replace(q, to_move=placement_due(q)[0])
