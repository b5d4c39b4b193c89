"""What a turn did beyond the mover's own steps and builds, and what the powers impose now.

A player reading a board needs to see what a god's power just did to the other workers and
the buildings (a worker forced to another square, a worker removed, a block taken away), and
which restrictions hold on the turn to play (frozen or bound workers, squares where no one may
build or win, the towers that count toward a win). Both come from the engine alone, with no
god named: a turn's effects are the difference between the boards before and after it, and the
restrictions are the :class:`~santorini_p2p.engine.power.Limits` the powers in play set. The
console, the replay viewer and the exports all describe them with :func:`describe_effect`.
"""

from __future__ import annotations

from enum import Enum
from typing import NamedTuple

from santorini_p2p.engine.position import Position, Turn
from santorini_p2p.engine.power import PERIMETER
from santorini_p2p.engine.rules import apply_unchecked, limits
from santorini_p2p.engine.squares import ALL, NEIGHBOURS, SQUARE_NAMES, bits, file_of, rank_of

__all__ = [
    "Effect",
    "EffectKind",
    "describe_effect",
    "side_letter",
    "standing_effects",
    "turn_effects",
]


class EffectKind(Enum):
    """The kinds of effect, by the words the text forms use."""

    FORCED = "forced"
    """Another side's worker was moved by the mover's power: ``squares`` is (from, to)."""
    REMOVED = "removed"
    """Another side's worker left the board: ``squares`` is (where it stood,)."""
    OUT = "out"
    """A side lost (3 players) and its workers left the board: ``squares`` is where they stood."""
    UNBUILT = "unbuilt"
    """A block was taken away: ``squares`` is (the square,)."""
    GAINED = "gained"
    """A side gained a worker: ``squares`` is (where it stands,)."""
    SLID = "slid"
    """The mover's worker was forced on after its step: ``squares`` is (step, rest)."""
    FROZEN = "frozen"
    """These workers of the side to move may not move this turn."""
    BOUND = "bound"
    """These workers of the side to move, if they move, must end next to ``side``'s workers."""
    NO_BUILD = "no build"
    """No one of the side to move may build on these squares (except a tower's dome)."""
    NO_WIN = "no win"
    """No move of the side to move may win on these squares."""
    NO_UP = "no move up"
    """No worker of the side to move may move up this turn."""
    MUST_UP = "must move up"
    """The side to move must move up if any of its turns can."""
    TOWERS = "towers"
    """``side`` wins once ``goal`` complete towers stand; ``squares`` are those standing."""


class Effect(NamedTuple):
    """One effect: its kind, its squares, the side it concerns, and a tower goal (``TOWERS``)."""

    kind: EffectKind
    squares: tuple[int, ...]
    side: int = -1
    goal: int = 0


def side_letter(side: int) -> str:
    """Return the board letter of ``side`` (``A``, ``B`` or ``C``; a team's with 4 players)."""
    return "ABC"[side]


def _distance(a: int, b: int) -> int:
    return max(abs(file_of(a) - file_of(b)), abs(rank_of(a) - rank_of(b)))


def turn_effects(before: Position, turn: Turn, after: Position | None = None) -> tuple[Effect, ...]:
    """Return what ``turn`` did to the other sides' workers and to the buildings.

    ``after`` is the position the turn leads to (computed when not given). Workers that
    changed squares are paired with the squares they left by the shortest distance, so a
    swap, a push or a ferry is one ``FORCED`` effect; a worker with nowhere new is ``REMOVED``.
    Effects come in square order of where they happened, forced and removed workers first.
    """
    if after is None:
        after = apply_unchecked(before, turn)
    mover = before.side_of(before.to_move)
    out: list[Effect] = []
    for side, (old, new) in enumerate(zip(before.workers, after.workers, strict=True)):
        if side == mover or old == new:
            continue
        if after.eliminated >> side & 1 and not before.eliminated >> side & 1:
            out.append(Effect(EffectKind.OUT, tuple(bits(old)), side))
            continue
        left = list(bits(old & ~new))
        came = list(bits(new & ~old))
        for to in came:
            origin = min(left, key=lambda s: (_distance(s, to), s))
            left.remove(origin)
            out.append(Effect(EffectKind.FORCED, (origin, to), side))
        out.extend(Effect(EffectKind.REMOVED, (s,), side) for s in left)
    out.extend(_own_effects(before, turn, after, mover))
    lower = (before.ge1 & ~after.ge1) | (before.ge2 & ~after.ge2) | (before.ge3 & ~after.ge3)
    out.extend(Effect(EffectKind.UNBUILT, (s,)) for s in bits(lower))
    return tuple(out)


def _own_effects(before: Position, turn: Turn, after: Position, mover: int) -> list[Effect]:
    """What the mover's power did to its own workers beyond the moves the text writes.

    A slide after a step (written as where the worker came to rest), a worker of its own
    forced, gained or removed: the workers after the turn against where the moves put them.
    """
    out: list[Effect] = []
    old = before.workers[mover]
    froms: list[int] = []
    rests: list[int] = []
    if turn.worker >= 0 and turn.path:
        froms, rests = [turn.worker], [turn.path[-1]]
        at = turn.worker
        if limits(before).slide:
            for s in turn.path:
                if not NEIGHBOURS[at] >> s & 1 and s != at:
                    df, dr = file_of(s) - file_of(at), rank_of(s) - rank_of(at)
                    step = at + (df > 0) - (df < 0) + 5 * ((dr > 0) - (dr < 0))
                    out.append(Effect(EffectKind.SLID, (step, s), mover))
                at = s
    elif turn.worker < -1 and turn.path:
        froms, rests = list(turn.path[::2]), list(turn.path[1::2])
    elif turn.worker == -1:
        return out
    expect = old
    for f in froms:
        expect &= ~(1 << f)
    for r in rests:
        expect |= 1 << r
    new = after.workers[mover]
    if after.winner >= 0 and not turn.builds:
        return out
    left = list(bits(expect & ~new))
    came = list(bits(new & ~expect))
    for to in came:
        if left:
            origin = min(left, key=lambda s: (_distance(s, to), s))
            left.remove(origin)
            out.append(Effect(EffectKind.FORCED, (origin, to), mover))
        else:
            out.append(Effect(EffectKind.GAINED, (to,), mover))
    out.extend(Effect(EffectKind.REMOVED, (s,), mover) for s in left)
    return out


def standing_effects(p: Position) -> tuple[Effect, ...]:
    """Return the restrictions the powers in play put on the turn of the seat to move.

    Empty when no power restricts anything, and for a finished game.
    """
    if p.winner >= 0:
        return ()
    lim = limits(p)
    side = p.side_of(p.to_move)
    mine = p.workers[side] if side < len(p.workers) else 0
    out: list[Effect] = []
    if lim.frozen & mine:
        out.append(Effect(EffectKind.FROZEN, tuple(bits(lim.frozen & mine)), side))
    if lim.bound & mine:
        for b in range(p.sides):
            if lim.binders >> b & 1:
                out.append(Effect(EffectKind.BOUND, tuple(bits(lim.bound & mine)), b))
    if lim.ban_sides:
        ban = 0
        for b, m in enumerate(p.workers):
            if lim.ban_sides >> b & 1:
                for s in bits(m):
                    ban |= NEIGHBOURS[s]
        if ban:
            out.append(Effect(EffectKind.NO_BUILD, tuple(bits(ban & ALL)), side))
    if lim.no_win:
        out.append(Effect(EffectKind.NO_WIN, tuple(bits(lim.no_win)), side))
    if lim.no_up:
        out.append(Effect(EffectKind.NO_UP, (), side))
    if lim.must_up:
        out.append(Effect(EffectKind.MUST_UP, (), side))
    if lim.tower_seat >= 0:
        standing = tuple(s for s in bits(p.domes) if p.ge3 >> s & 1)
        owner = p.side_of(lim.tower_seat)
        out.append(Effect(EffectKind.TOWERS, standing, owner, lim.tower_count))
    return tuple(out)


def _names(squares: tuple[int, ...]) -> str:
    return ", ".join(SQUARE_NAMES[s] for s in squares)


def describe_effect(p: Position, e: Effect) -> str:
    """Return a short English line for ``e`` in position ``p`` (the position it was read in).

    >>> describe_effect(Position(), Effect(EffectKind.FORCED, (12, 14), 1))
    "B's worker forced from c3 to e3"
    """
    who = side_letter(e.side) if e.side >= 0 else ""
    if e.kind is EffectKind.FORCED:
        a, b = e.squares
        return f"{who}'s worker forced from {SQUARE_NAMES[a]} to {SQUARE_NAMES[b]}"
    if e.kind is EffectKind.REMOVED:
        return f"{who}'s worker on {_names(e.squares)} removed"
    if e.kind is EffectKind.OUT:
        return f"{who} is out; its workers leave {_names(e.squares)}"
    if e.kind is EffectKind.UNBUILT:
        return f"a block removed from {_names(e.squares)}"
    if e.kind is EffectKind.GAINED:
        return f"{who} gains a worker on {_names(e.squares)}"
    if e.kind is EffectKind.SLID:
        a, b = e.squares
        return f"{who}'s worker slid on from {SQUARE_NAMES[a]} to {SQUARE_NAMES[b]}"
    if e.kind is EffectKind.FROZEN:
        n = len(e.squares)
        return f"worker{'s' if n > 1 else ''} on {_names(e.squares)} may not move"
    if e.kind is EffectKind.BOUND:
        n = len(e.squares)
        return (
            f"worker{'s' if n > 1 else ''} on {_names(e.squares)}, if moved, must end next to "
            f"{who}'s workers"
        )
    if e.kind is EffectKind.NO_BUILD:
        # The squares are many and the board shows the workers: the rule says it whole.
        return "no build next to the opponent's workers, but a dome on level 3"
    if e.kind is EffectKind.NO_WIN:
        edge = e.squares == tuple(bits(PERIMETER))
        where = "the perimeter" if edge else _names(e.squares)
        return f"no winning move onto {where}"
    if e.kind is EffectKind.NO_UP:
        return "may not move up"
    if e.kind is EffectKind.MUST_UP:
        return "must move up if possible"
    return f"{who} wins with {e.goal} complete towers; {len(e.squares)} stand"
