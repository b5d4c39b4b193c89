"""A PUCT tree search on the trained network's values and priors, with exact wins and losses.

Each simulation walks down the tree by the PUCT rule (a turn's value for the mover plus its
prior share of the exploration term) to a node not yet expanded, and expands it: every
turn of that node is played, and its children are judged at once, in one batch of the net
(their values and the prior logits they will need when expanded in turn). A child where the
game is over, or where its mover wins at once (``can_win_now``), is solved and never goes to
the net; nor is one whose mover faces two or more threats and has no turn that stops them all
(it is lost). The node's value, the best of its children's for its mover, goes back up, and
each node on the path takes the best of its children's again (a minimax backup, not the mean
of the visits: with a value this noisy the mean scored 0.2 against hard where the minimax
backup scored 0.35 and more).

Solved results climb the tree as in an MCTS solver: a node with a turn to a position lost
for the other side is won; a node whose every turn gives the other side a won position is
lost. So a forced win or loss the tree holds is exact, whatever the net says, and a won root
plays its winning turn (the shortest win; the longest loss when every turn loses).

Only for two players (one seat a side) and gods the net supports: the caller (``search``)
keeps its alpha-beta search elsewhere.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, Final, Protocol

from santorini_p2p.ai.net import turn_priors, value_to_score
from santorini_p2p.engine import Position, Turn, apply_unchecked, can_win_now, generate_turns

if TYPE_CHECKING:
    from santorini_p2p.ai.net import Net

__all__ = ["C_PUCT", "PuctResult", "puct"]

C_PUCT: Final = 0.6
"""The weight of the prior's exploration term against a value in (-1, 1). At 0.5 s a turn
against hard, 0.3 and 0.6 scored alike (0.533 in 30 games each), 3.0 scored 0.30."""
_OPEN: Final = 0
_WON: Final = 1
_LOST: Final = -1
_CLOCK_EVERY: Final = 4
"""Simulations between readings of the clock."""


class _Stop(Protocol):
    def is_set(self) -> bool: ...


class _Node:
    """A position in the tree; its children's statistics are kept for its mover."""

    __slots__ = ("depth", "kids", "logits", "n", "p", "prior", "q", "solved", "total", "turns")

    def __init__(self, p: Position, logits: Sequence[float] | None) -> None:
        self.p = p
        self.logits = logits
        self.turns: list[Turn] = []
        self.kids: list[_Node] = []
        self.prior: list[float] = []
        self.n: list[int] = []
        self.q: list[float] = []
        """Each turn's value for the mover: its child's, or the best found below it."""
        self.total = 0
        self.solved = _OPEN
        self.depth = 0
        """Solved: the plies to the end of the game with best play (shortest win, longest
        loss)."""


@dataclass(frozen=True, slots=True)
class PuctResult:
    """What a PUCT search found, in the alpha-beta search's terms.

    The turn chosen, its value for the mover in score units (``WIN - plies`` if proved), the
    deepest line reached (plies), the principal variation, the nodes expanded and the
    positions the net judged.
    """

    best: Turn
    score: int
    depth: int
    pv: tuple[Turn, ...]
    nodes: int
    evaluated: int


class _Tree:
    """One search: the net, the budgets and the counters."""

    def __init__(self, net: Net, win: int) -> None:
        self.net = net
        self.win = win
        self.nodes = 0
        self.evaluated = 0
        self.deepest = 0

    def expand(self, node: _Node, turns: list[Turn] | None = None) -> float:
        """Play every turn of ``node``, judge its children in one batch; return its value.

        The value is for ``node``'s mover: 1 for a proved win, -1 for a proved loss.
        """
        p = node.p
        self.nodes += 1
        turns = generate_turns(p) if turns is None else turns
        if not turns:
            node.solved, node.depth = _LOST, 0
            return -1.0
        me = p.to_move
        kids: list[_Node] = []
        todo: list[int] = []
        n = [1] * len(turns)
        q = [0.0] * len(turns)
        for i, t in enumerate(turns):
            c = apply_unchecked(p, t)
            kid = _Node(c, None)
            kids.append(kid)
            if c.winner >= 0:
                if c.winner == me:
                    node.turns, node.kids = [t], [kid]
                    node.n, node.q, node.prior = [1], [1.0], [1.0]
                    node.solved, node.depth = _WON, 1
                    kid.solved, kid.depth = _LOST, 0
                    return 1.0
                # The game is over without the mover winning (its turn lost, or no winner).
                kid.solved, kid.depth = _WON, 0
                q[i] = -1.0
            elif can_win_now(c):
                kid.solved, kid.depth = _WON, 1
                q[i] = -1.0
            else:
                todo.append(i)
        won = 0
        if todo:
            values, logits, threats = self.net.evaluate([kids[i].p for i in todo])
            self.evaluated += len(todo)
            for k, i in enumerate(todo):
                q[i] = -float(values[k])
                kids[i].logits = logits[k]
                if threats[k] >= 2 and _cornered(kids[i].p):
                    kids[i].solved, kids[i].depth = _LOST, 2
                    q[i] = 1.0
                    won = 3
        node.turns, node.kids, node.n, node.q = turns, kids, n, q
        node.total = len(turns)
        node.prior = turn_priors(node.logits, turns) if node.logits is not None else []
        if not node.prior:
            node.prior = [1.0 / len(turns)] * len(turns)
        if won:
            node.solved, node.depth = _WON, won
            return 1.0
        if not todo:
            # Every turn lets the other side win: lost, as late as the turns allow.
            node.solved, node.depth = _LOST, 1 + max(k.depth for k in kids)
            return -1.0
        return max(q[i] for i in todo)

    def select(self, node: _Node) -> int:
        """The child to visit: the best value plus prior-weighted exploration."""
        root = C_PUCT * math.sqrt(node.total)
        best = -math.inf
        pick = -1
        kids = node.kids
        for i, (n, q, prior) in enumerate(zip(node.n, node.q, node.prior, strict=True)):
            if kids[i].solved == _WON:
                continue
            u = q + root * prior / (1 + n)
            if u > best:
                best, pick = u, i
        return pick

    def settle(self, node: _Node) -> None:
        """Mark ``node`` solved if a child's result decides it."""
        lost_all = True
        longest = 0
        shortest = 0
        for kid in node.kids:
            if kid.solved == _LOST:
                if not shortest or kid.depth + 1 < shortest:
                    shortest = kid.depth + 1
            elif kid.solved == _WON:
                longest = max(longest, kid.depth + 1)
            else:
                lost_all = False
        if shortest:
            node.solved, node.depth = _WON, shortest
        elif lost_all:
            node.solved, node.depth = _LOST, longest

    def simulate(self, root: _Node) -> None:
        """Walk down from ``root`` to a leaf, expand it, and back its value up the path."""
        path: list[tuple[_Node, int]] = []
        node = root
        while node.kids and node.solved == _OPEN:
            i = self.select(node)
            if i < 0:
                break
            path.append((node, i))
            node = node.kids[i]
        if node.solved != _OPEN:
            value = 1.0 if node.solved == _WON else -1.0
        elif node.kids:
            value = max(node.q)
        else:
            value = self.expand(node)
        self.deepest = max(self.deepest, len(path) + 1)
        for parent, i in reversed(path):
            value = -value
            parent.n[i] += 1
            parent.total += 1
            parent.q[i] = value
            value = max(parent.q)
            if parent.kids[i].solved != _OPEN:
                self.settle(parent)


def _cornered(p: Position) -> bool:
    """Whether every turn of ``p``'s mover lets the other side win at once (or loses).

    Asked only of a position whose mover faces two or more threats and cannot win now: so
    a double threat is a proved loss when it is made, as the alpha-beta search's quiescence
    sees it.
    """
    me = p.to_move
    for t in generate_turns(p):
        q = apply_unchecked(p, t)
        if q.winner >= 0:
            if q.winner == me:
                return False
            continue
        if not can_win_now(q):
            return False
    return True


def _choice(root: _Node) -> int:
    """The root's turn: a proved win's shortest, else the most visited turn not lost."""
    kids = root.kids
    if root.solved == _WON:
        return min(
            (i for i, k in enumerate(kids) if k.solved == _LOST), key=lambda i: kids[i].depth
        )
    open_ = [i for i, k in enumerate(kids) if k.solved != _WON]
    if not open_:
        return max(range(len(kids)), key=lambda i: kids[i].depth)
    return max(open_, key=lambda i: (root.n[i], root.q[i]))


def _pv(root: _Node, first: int) -> tuple[Turn, ...]:
    line = [root.turns[first]]
    node = root.kids[first]
    while node.kids and len(line) < 32:
        i = _choice(node)
        line.append(node.turns[i])
        node = node.kids[i]
    return tuple(line)


def puct(
    p: Position,
    net: Net,
    turns: list[Turn],
    *,
    win: int,
    max_nodes: int | None,
    deadline: float | None,
    stop: _Stop | None,
    clock: Callable[[], float],
) -> PuctResult:
    """Search ``p`` (two players, in play, ``turns`` its turns in the order to break ties).

    ``win`` is the search's score of a won game (a win in ``k`` plies scores ``win - k``).
    Runs until ``max_nodes`` nodes are expanded, the ``deadline`` (by ``clock``) passes,
    ``stop`` is set or the root is solved; at least the root is expanded.
    """
    tree = _Tree(net, win)
    root = _Node(p, net.evaluate([p])[1][0])
    tree.evaluated += 1
    tree.expand(root, list(turns))
    sims = 0
    while root.solved == _OPEN:
        if max_nodes is not None and tree.nodes >= max_nodes:
            break
        if stop is not None and stop.is_set():
            break
        if deadline is not None and sims % _CLOCK_EVERY == 0 and clock() > deadline:
            break
        tree.simulate(root)
        sims += 1
    i = _choice(root)
    kid = root.kids[i]
    if kid.solved == _LOST:
        score = win - (kid.depth + 1)
    elif kid.solved == _WON:
        score = -win + (kid.depth + 1)
    else:
        score = value_to_score(root.q[i])
    return PuctResult(root.turns[i], score, tree.deepest, _pv(root, i), tree.nodes, tree.evaluated)
