"""Exact forced wins and losses a few turns deep, proved by a complete search.

``solve`` answers "can the side to move force a win within ``n`` of its own turns, whatever
the other side does?" and "does every turn lose within ``n`` turns?" for ``n`` = 1, 2, ...
and returns the first ``n`` for which one is true: the exact distance, counted in the mover's
own turns as chess counts "mate in n" (win in 1: a winning turn now; loss in 1: every turn
lets the other side win at once). Unlike the main search it prunes nothing that could hide a
defence or a faster win: every turn is tried at every node; only the order of the tries and a
table of positions already decided save time. Two sides only (2 players, or 4 as two teams,
whose turns alternate); with 3 players ``solve`` answers None.

A win is a move up onto level 3 (or a god's move win) or leaving the next seat with no
complete turn; both come from the engine (``apply_unchecked`` settles them), and
``can_win_now`` only answers early for the first kind.
"""

from __future__ import annotations

import time
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Final, Protocol

from santorini_p2p.ai.evaluate import threat_squares
from santorini_p2p.engine import (
    DOME,
    GOD_NAMES,
    NO_WINNER,
    Phase,
    Position,
    Turn,
    apply_unchecked,
    can_win_now,
    find_god,
    generate_turns,
    list_turns,
    next_seat,
)
from santorini_p2p.engine.power import Power
from santorini_p2p.engine.squares import NEIGHBOURS

__all__ = ["MAX_TURNS", "Forced", "result_text", "solve"]

MAX_TURNS: Final = 3
"""How many of the mover's turns ``solve`` looks ahead by default."""

_SIMPLE_GODS: Final = frozenset({"", *GOD_NAMES})
"""The powers whose wins the shortcuts below know (``can_win_now``, who can be left stuck):
with any other god in play every turn is played out through the engine, which is exact but
slower."""
_PLAIN: Final = Power()
"""The plain rule, for a seat without a god."""
_MAX_TOUCHED: Final = 4
"""The most squares one turn of a simple god can take from the next seat: two workers moved
(``Power.moves_both``) and two squares built on."""


class _StopFlag(Protocol):
    def is_set(self) -> bool: ...


@dataclass(frozen=True, slots=True)
class Forced:
    """A forced result: ``turns`` > 0 wins in that many turns, < 0 loses in ``-turns``.

    ``best`` is a turn that keeps the result: the first turn of a fastest win, or of the
    longest defence when lost.
    """

    turns: int
    best: Turn
    nodes: int = field(default=0, compare=False)
    """The positions the proof search visited."""

    def __str__(self) -> str:
        return result_text(self.turns)


def result_text(turns: int) -> str:
    """Say a forced result in words: ``3`` is "win in 3", ``-1`` is "loss in 1"."""
    if turns == 0:
        raise ValueError("result: a forced result is at least one turn away")
    return f"win in {turns}" if turns > 0 else f"loss in {-turns}"


class _OutOfBudget(Exception):
    """Raised inside ``solve`` when a budget runs out or the caller stops it."""


class _Solver:
    """One proof search: its tables, counters and budgets."""

    def __init__(
        self,
        *,
        max_nodes: int | None,
        deadline: float | None,
        stop: _StopFlag | None,
        clock: Callable[[], float],
        simple: bool = True,
        root: Position | None = None,
        root_turns: list[Turn] | None = None,
    ) -> None:
        self.simple = simple
        """Whether the shortcuts for the simple gods apply (see ``_SIMPLE_GODS``)."""
        self.won: dict[Position, tuple[int, Turn]] = {}
        """A position, the fewest turns within which its mover is known to win, and how."""
        self.not_won: dict[Position, int] = {}
        """A position and the most turns within which its mover is known not to win."""
        self.killers: dict[int, Turn] = {}
        """The last turn that won within ``n`` turns, by ``n``: often it wins beside, too."""
        self.nodes = 0
        self.max_nodes = max_nodes
        self.deadline = deadline
        self.stop = stop
        self.clock = clock
        self.root = root
        self.root_turns = root_turns
        """The root's turns, listed once: with some powers (one that gathers builds) a long list."""
        self.slowest = 0.0
        """The longest a node's turns took to list so far (seconds): the next list may too."""
        self.root_orders: dict[tuple[bool, bool], list[Turn]] = {}

    def _tick(self) -> None:
        self.nodes += 1
        if self.max_nodes is not None and self.nodes > self.max_nodes:
            raise _OutOfBudget
        if self.nodes & 63 == 0:
            if self.stop is not None and self.stop.is_set():
                raise _OutOfBudget
            if self.deadline is not None and self.clock() > self.deadline:
                raise _OutOfBudget

    def _check(self) -> None:
        """Stop the proof once its time is spent or the caller asks (no node counted)."""
        if self.stop is not None and self.stop.is_set():
            raise _OutOfBudget
        if self.deadline is not None and self.clock() > self.deadline:
            raise _OutOfBudget

    def _late(self) -> bool:
        """A listing's ``stop``: raise ``_OutOfBudget`` once the time is spent (never True)."""
        self._check()
        return False

    def _turns(self, p: Position, attack: bool, quick: bool = False) -> list[Turn]:
        """The turns of ``p`` in attack or defence order, within the time budget.

        The clock is read before each list (for some powers, those that gather builds or build
        several times, a long one): a list that would likely end after the deadline, taking as long
        as the slowest so far, is not started. The root's lists are made once.
        """
        key = (attack, quick)
        if p is self.root and key in self.root_orders:
            return list(self.root_orders[key])
        start = self.clock() if self.deadline is not None else 0.0
        if self.deadline is not None and start + self.slowest > self.deadline:
            raise _OutOfBudget
        listed = self.root_turns if p is self.root and self.root_turns is not None else None
        check = self._check if self.deadline is not None or self.stop is not None else None
        if listed is None:
            # With a budget, a list is made with the clock watched: where one power's choices
            # meet another's, a single node can have a quarter of a million turns.
            listed = generate_turns(p) if check is None else list_turns(p, self._late).turns
        if attack:
            turns = _attack_order(p, listed, quick, check)
        else:
            turns = _defence_order(p, listed, check)
        if self.deadline is not None:
            self.slowest = max(self.slowest, self.clock() - start)
        if p is self.root:
            self.root_orders[key] = turns
            return list(turns)
        return turns

    def wins(self, p: Position, n: int) -> Turn | None:
        """A turn by which the mover of ``p`` forces a win within ``n`` turns, else None."""
        if n <= 0:
            return None
        if self.not_won.get(p, 0) >= n:
            return None
        known = self.won.get(p)
        if known is not None and known[0] <= n:
            return known[1]
        me = p.side_of(p.to_move)
        quick = self.simple and can_win_now(p)
        if self.simple and n == 1 and not quick and not _may_stall(p):
            return None
        turns = self._turns(p, True, quick)
        killer = self.killers.get(n)
        if killer is not None and killer != turns[0] and killer in turns:
            turns.remove(killer)
            turns.insert(0, killer)
        for t in turns:
            self._tick()
            c = apply_unchecked(p, t)
            if c.winner >= 0:
                if c.winner != NO_WINNER and c.side_of(c.winner) == me:
                    self.won[p] = (1, t)
                    return t
                continue
            if n == 1:
                continue
            if self.simple and can_win_now(c):
                continue
            if self._holds(c, n - 1, me):
                self.won[p] = (n, t)
                self.killers[n] = t
                return t
        self.not_won[p] = max(self.not_won.get(p, 0), n)
        return None

    def _holds(self, c: Position, n: int, me: int) -> bool:
        """Whether side ``me`` wins within ``n`` of its turns after every reply in ``c``."""
        if self.simple and n == 1 and _has_safe_reply(c, me):
            return False
        for r in self._turns(c, False):
            self._tick()
            q = apply_unchecked(c, r)
            if q.winner >= 0:
                if q.winner != NO_WINNER and q.side_of(q.winner) == me:
                    continue
                return False
            if self.wins(q, n) is None:
                return False
        return True

    def loses(self, p: Position, n: int) -> bool:
        """Whether every turn of the mover of ``p`` lets the other side win within ``n``."""
        me = p.side_of(p.to_move)
        for t in self._turns(p, False):
            self._tick()
            c = apply_unchecked(p, t)
            if c.winner >= 0:
                if c.winner != NO_WINNER and c.side_of(c.winner) == me:
                    return False
                continue
            if self.simple and can_win_now(c):
                continue
            if self.wins(c, n) is None:
                return False
        return True

    def longest_defence(self, p: Position, n: int) -> Turn:
        """In a position lost in ``n`` turns, a turn after which the win takes ``n`` turns."""
        turns = self._turns(p, False)
        for t in turns:
            self._tick()
            c = apply_unchecked(p, t)
            if c.winner >= 0 or n == 1:
                continue
            if self.wins(c, n - 1) is None:
                return t
        return turns[0]


def _power(p: Position, seat: int) -> Power:
    """The power of ``seat`` (the plain rule for a seat without a god)."""
    god = p.gods[seat]
    return find_god(god) if god else _PLAIN


def _may_stall(p: Position) -> bool:
    """Whether the mover's turn might leave the next seat with no complete turn.

    Cheap and safe: False only when the next seat's workers have more free squares around
    them at their own level or below (squares they can step onto even when moving up is
    forbidden, and after one block) than one turn can take away. A power that forces an
    opponent's worker (``Power.forces``) also moves one of the other side's workers, so
    against it the other worker must keep enough squares on its own.
    """
    nxt = next_seat(p, p.to_move)
    theirs = p.workers[p.side_of(nxt)]
    occ = p.domes
    for m in p.workers:
        occ |= m
    union = 0
    alone = 0
    while theirs:
        low = theirs & -theirs
        w = low.bit_length() - 1
        theirs ^= low
        free = _robust_squares(p, w, occ)
        union |= free
        if free.bit_count() > _MAX_TOUCHED:
            alone += 1
    if _power(p, p.to_move).forces:
        return alone < 2
    return union.bit_count() <= _MAX_TOUCHED


def _robust_squares(p: Position, w: int, occ: int) -> int:
    """The free squares around ``w`` that its worker can step onto even when it may not move up."""
    lv = (p.ge1 >> w & 1) + (p.ge2 >> w & 1) + (p.ge3 >> w & 1)
    below = (~p.ge1, ~p.ge2, ~p.ge3, -1)[lv]
    return NEIGHBOURS[w] & ~occ & below


def _has_safe_reply(c: Position, me: int) -> bool:
    """Whether some reply in ``c`` surely leaves side ``me`` no winning turn after it.

    Cheap and safe, True only when: none of ``me``'s workers stands high enough to win by
    moving next turn (``Power.win_from``: level 2 by the plain rule), the mover cannot move
    them (``Power.forces``) nor move both its workers (``Power.moves_both``), and one of the
    other side's workers has more free squares
    around it than its own reply and ``me``'s next turn together can take from it (so it
    cannot be left without a turn).
    """
    mover = c.to_move
    power = _power(c, mover)
    if power.forces or power.moves_both:
        return False
    mine = c.workers[me]
    need = min(_power(c, s).win_from for s in range(len(c.gods)) if c.side_of(s) == me)
    high = (-1, c.ge1, c.ge2, c.ge3)[max(0, min(need, 3))]
    if mine & high:
        return False
    occ = c.domes
    for m in c.workers:
        occ |= m
    theirs = c.workers[c.side_of(mover)]
    while theirs:
        low = theirs & -theirs
        w = low.bit_length() - 1
        theirs ^= low
        # The reply touches at most three squares (one worker's arrival, two builds) and the
        # next turn at most _MAX_TOUCHED.
        if _robust_squares(c, w, occ).bit_count() > 3 + _MAX_TOUCHED:
            return True
    return False


def _levels(p: Position) -> list[int]:
    return [(p.ge1 >> s & 1) + (p.ge2 >> s & 1) + (p.ge3 >> s & 1) for s in range(25)]


_CHUNK: Final = 4096
"""Ordering a long list of turns (a power that builds many times) calls its check this often."""


def _attack_order(
    p: Position, turns: list[Turn], quick: bool, check: Callable[[], None] | None = None
) -> list[Turn]:
    """The mover's turns, likeliest to win first: move wins, then climbs and threats.

    ``check`` is called every ``_CHUNK`` turns (it raises to stop the proof in time).
    """
    if quick:
        wins = [t for t in turns if t.is_win]
        if wins:
            return wins + [t for t in turns if not t.is_win]
    lv = _levels(p)
    keyed = []
    for i, t in enumerate(turns):
        if check is not None and i and not i % _CHUNK:
            check()
        dst = t.path[-1] if t.path else t.worker
        key = 100 * lv[dst] - (0 if t.worker < 0 else 50 * lv[t.worker])
        for b in t.builds:
            b &= 31
            # A block next to the worker's new square, one level up, is a threat in the making.
            if lv[b] == lv[dst] and NEIGHBOURS[dst] >> b & 1:
                key += 30
        keyed.append((-key, i))
    keyed.sort()
    return [turns[i] for _, i in keyed]


def _defence_order(
    p: Position, turns: list[Turn], check: Callable[[], None] | None = None
) -> list[Turn]:
    """The mover's turns, likeliest to stop the other side's threats first.

    ``check``: as for :func:`_attack_order`.
    """
    side = p.side_of(p.to_move)
    danger = 0
    for s, m in enumerate(p.workers):
        if s != side and m:
            danger |= threat_squares(p, s)
    lv = _levels(p)
    keyed = []
    for i, t in enumerate(turns):
        if check is not None and i and not i % _CHUNK:
            check()
        dst = t.path[-1] if t.path else t.worker
        key = 100 * lv[dst] if dst >= 0 else 0
        if dst >= 0 and danger >> dst & 1:
            key += 1000
        for b in t.builds:
            if danger >> (b & 31) & 1:
                key += 1000
            if b & DOME:
                key += 10
        keyed.append((-key, i))
    keyed.sort()
    return [turns[i] for _, i in keyed]


def solve(
    position: Position,
    max_turns: int = MAX_TURNS,
    *,
    nodes: int | None = None,
    think: float | None = None,
    stop: _StopFlag | None = None,
    clock: Callable[[], float] = time.monotonic,
    turns: list[Turn] | None = None,
) -> tuple[Forced | None, bool]:
    """Find the exact forced result of ``position`` within ``max_turns`` of the mover's turns.

    Returns the result (None if there is none that near) and whether the search finished:
    ``(None, False)`` means a budget (``nodes``, ``think`` seconds, or ``stop``) ran out
    first, and a result found before that is still exact. A position that is not in play,
    or has 3 players, gives ``(None, True)``. ``turns``: the position's turns, when the
    caller has listed them already (it saves listing them again).
    """
    if position.phase is not Phase.PLAY or position.winner >= 0 or position.sides != 2:
        return None, True
    if think is not None and think <= 0:
        return None, False
    deadline = clock() + think if think is not None else None
    if turns is None:
        turns = generate_turns(position)
    if not turns:
        return None, True
    simple = all(g in _SIMPLE_GODS for g in position.gods)
    s = _Solver(
        max_nodes=nodes,
        deadline=deadline,
        stop=stop,
        clock=clock,
        simple=simple,
        root=position,
        root_turns=turns,
    )
    try:
        for n in range(1, max_turns + 1):
            best = s.wins(position, n)
            if best is not None:
                return Forced(n, best, s.nodes), True
            if s.loses(position, n):
                break
        else:
            return None, True
    except _OutOfBudget:
        return None, False
    # Proved lost in n: any turn keeps that if the budget ends while finding the longest defence.
    try:
        best = s.longest_defence(position, n)
    except _OutOfBudget:
        best = turns[0]
    return Forced(-n, best, s.nodes), True
