"""Choosing and explaining actions: the levels and their alpha-beta search.

The search is minimax with alpha-beta over the engine's fast path (``generate_turns`` and
``apply_unchecked``), with iterative deepening, a transposition table keyed by the position,
move ordering (the table's move, blocks of threats, climbs, the history heuristic) and a
one-ply check for an immediate win at every node. At ``learned`` (hard's search with the
trained network, ``ai/net.py``) the leaves are scored by the network, the children of a node
above them in batches, and its prior weighs in the order of inner nodes; where the network
does not apply it is hard. ``hard`` keeps the hand-written evaluation until a trained network
beats it at equal time. Two sides (2 players, or 4
players as teams) are searched exactly; with 3 players the search is paranoid: the searching
seat against the other two together. All state lives in one ``_Search`` per call, so calls
may run in parallel threads; a stop flag (``threading.Event``), a node or a time budget stops
a search at once.
"""

from __future__ import annotations

import math
import random
import time
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from types import MappingProxyType
from typing import TYPE_CHECKING, Final, Protocol

from santorini_p2p.ai.evaluate import (
    CLASSIC,
    TUNED,
    WIN,
    Weights,
    evaluate,
    plain_leaf,
    threat_squares,
)
from santorini_p2p.ai.mate import MAX_TURNS, result_text, solve
from santorini_p2p.ai.opening import choose_setup
from santorini_p2p.engine import (
    DOME,
    NO_WINNER,
    Action,
    Listing,
    Phase,
    Position,
    Turn,
    apply_unchecked,
    can_win_now,
    generate_turns,
    legal_actions,
    list_turns,
)
from santorini_p2p.engine.legality import turn_is_legal
from santorini_p2p.engine.squares import ALL as _ALL
from santorini_p2p.engine.squares import NEIGHBOURS

if TYPE_CHECKING:
    # The network (and numpy under it, a third of a command's start-up) is imported only by
    # a level that uses it: ``santorini analyse --level hard`` answers sooner without it.
    from santorini_p2p.ai.net import Net

__all__ = [
    "CLOCK_MARGIN_MS",
    "LEVELS",
    "STUDY_LEVELS",
    "Analysis",
    "Level",
    "SearchResult",
    "StopFlag",
    "analyse",
    "choose_action",
    "evaluation_id",
    "find_level",
    "forced_turns",
    "play_turn",
]

CLOCK_MARGIN_MS: Final = 1_000
"""A computer player on the clock is stopped this long before its time runs out."""
LEVELS: Final = ("random", "easy", "medium", "hard")
"""The computer's levels, weakest first."""
STUDY_LEVELS: Final = (*LEVELS, "classic", "learned", "puct")
"""The levels ``arena``, ``analyse`` and ``replay review`` also accept: ``classic`` is hard's
search with the hand-set evaluation weights it had before they were fitted to self-play
(``ai.evaluate.CLASSIC``), ``learned`` is hard's search with the trained network at its
leaves (``ai/net.py``; the shipped weights), ``puct`` a PUCT tree search on the network's
values and priors (``ai/puct.py``)."""


class StopFlag(Protocol):
    """What stops a search: a ``threading.Event``, or anything else with ``is_set``."""

    def is_set(self) -> bool:
        """Return whether the search should stop now."""
        ...


@dataclass(frozen=True, slots=True)
class Level:
    """A level's settings: depth, default budgets, root noise and quiescence.

    ``noise`` (score units) is added at random to each root turn's score; with
    ``quiescence`` leaves facing two or more threats are searched one turn further; with
    ``reduce`` turns ordered late are tried one turn shallower first; with ``learned`` the
    leaves are scored by the trained network (``ai/net.py``) where it knows the gods, and
    its move prior orders the turns of inner nodes; with ``puct`` (and ``learned``) the
    search is ``ai/puct.py``'s tree search where the net applies (two players).
    """

    name: str
    depth: int
    think: float | None
    nodes: int | None
    noise: int
    quiescence: bool
    reduce: bool
    learned: bool = False
    puct: bool = False
    weights: Weights = TUNED
    """The evaluation's weights (the fitted ones; ``study.tune`` searches with candidates)."""


_LEVELS: Final = MappingProxyType(
    {
        "random": Level("random", 0, None, None, 0, False, False),
        "easy": Level("easy", 1, 1.0, 5_000, 300, False, False),
        "medium": Level("medium", 2, 1.0, 8_000, 0, False, False),
        # The shipped network passed its gate at equal nodes but not yet at equal time (it
        # costs about twice as much a node), nor has puct: hard keeps the hand-written
        # evaluation until one does (``santorini arena learned hard``).
        "hard": Level("hard", 64, 2.0, None, 0, True, True),
        # hard's search with the hand-set weights hard had before they were fitted to
        # self-play results (``santorini tune``): the yardstick of a new fit.
        "classic": Level("classic", 64, 2.0, None, 0, True, True, weights=CLASSIC),
        "learned": Level("learned", 64, 2.0, None, 0, True, True, True),
        "puct": Level("puct", 64, 2.0, None, 0, True, True, True, True),
    }
)

PROOF_THINK_S: Final = 5.0
"""The proof search's own time in ``analyse`` when the caller gives no budget (seconds)."""
_MATE: Final = WIN - 1000
"""Scores beyond this are forced wins or losses."""
_INF: Final = 10 * WIN
_TABLE_SIZE: Final = 1_000_000
"""The transposition table starts afresh when it holds this many positions (memory cap)."""
_LATE: Final = 6
_LISTING_SHARE: Final = 0.4
"""The most of a time budget that listing the root's turns may take (hundreds of thousands
with some powers together); the turns listed by then are ordered and searched."""
_CHUNK: Final = 4096
"""Root work on a long list of turns (ordering, shuffling) reads the clock this often."""
_PRIOR_WEIGHT: Final = 150.0
"""Ordering points per unit of the net's prior logit (a block of a threat is worth 3000)."""
_LEAF_BATCH: Final = 8
"""A node above the leaves scores this many of its first-ordered children in one batch."""
"""Turns ordered after this many are first searched one turn shallower (late move reduction)."""


def evaluation_id(level: str) -> str:
    """Name the evaluation ``level`` searches with: ``net-``, ``hand`` or ``hand-`` and a hash.

    ``net-`` and its weights' hash for a network, ``hand`` for the hand-set weights,
    ``hand-`` and their digest for fitted ones.

    A stored judgement (a review) made with another evaluation is out of date.

    Raises:
        ValueError: an unknown level.
    """
    lv = find_level(level)
    net = _net_for(lv, None)
    if net is not None:
        return f"net-{net.digest}"
    return "hand" if lv.weights == CLASSIC else f"hand-{lv.weights.digest}"


def find_level(name: str) -> Level:
    """Return the settings of the level called ``name``.

    Raises:
        ValueError: no level has that name.
    """
    try:
        return _LEVELS[name]
    except KeyError:
        raise ValueError(f"level: expected one of {', '.join(LEVELS)}, got {name!r}") from None


@dataclass(frozen=True, slots=True)
class Analysis:
    """What a search found: the best action, how the seat to move stands, and why.

    ``win`` is the estimated probability (0 to 1) that the seat to move (its team with 4
    players) wins; ``mate`` is ``+n`` for a forced win whose winning turn is the ``n``-th
    turn from now (counting every player's turns), ``-n`` for a forced loss, or None.
    ``pv`` is the principal variation, starting with ``best``; ``score`` the raw evaluation.

    ``forced`` says the same as ``mate`` in the mover's own turns, as chess counts "mate in
    n": ``+n`` wins with the mover's ``n``-th turn (1: a winning turn now), ``-n`` loses after
    the mover's ``n``-th turn (1: every turn lets the other side win at once). Within
    ``MAX_TURNS`` turns it is exact, proved by ``mate.solve``; further away it is what the
    search proved, a bound (the win or loss may come sooner). ``result`` says it in words.
    ``evaluated`` counts the positions the trained network scored (0 without it).
    """

    best: Action
    win: float
    mate: int | None
    depth: int
    pv: tuple[Action, ...]
    nodes: int
    score: int
    forced: int | None = None
    evaluated: int = 0

    @property
    def result(self) -> str | None:
        """The forced result in words ("win in 3", "loss in 1"), or None."""
        return None if self.forced is None else result_text(self.forced)


class _Abort(Exception):
    """Raised inside the search when a budget runs out or the caller stops it."""


_EXACT: Final = 0
_LOWER: Final = 1
_UPPER: Final = 2


class _Search:
    """One search from one root: its table, history, counters and budgets."""

    def __init__(
        self,
        root: Position,
        *,
        max_nodes: int | None,
        deadline: float | None,
        stop: StopFlag | None,
        clock: Callable[[], float],
        quiescence: bool = True,
        reduce: bool = True,
        net: Net | None = None,
        weights: Weights = TUNED,
    ) -> None:
        self.root = root
        self.weights = weights
        self.quiescence = quiescence
        self.reduce = reduce
        self.net = net if net is not None and net.supports(root) else None
        self.leaves: dict[Position, tuple[int, int]] = {}
        self.priors: dict[Position, list[float]] = {}
        self.evaluated = 0
        self.side = root.side_of(root.to_move)
        self.seat = root.to_move
        self.paranoid = root.players == 3
        self.table: dict[Position, tuple[int, int, int, Turn | None]] = {}
        self.history: dict[int, int] = {}
        self.nodes = 0
        self.max_nodes = max_nodes
        self.deadline = deadline
        self.stop = stop
        self.clock = clock
        self.slowest = 0.0
        """The longest a node's turns took to list and order so far (seconds)."""

    def _tick(self) -> None:
        self.nodes += 1
        if self.max_nodes is not None and self.nodes > self.max_nodes:
            raise _Abort
        if self.stop is not None and self.stop.is_set():
            raise _Abort
        if self.deadline is not None and self.nodes & 63 == 0 and self.clock() > self.deadline:
            raise _Abort

    def late(self) -> bool:
        """Whether the time budget is spent or the caller asked to stop (no node counted)."""
        if self.stop is not None and self.stop.is_set():
            return True
        return self.deadline is not None and self.clock() > self.deadline

    def _abort_if_late(self) -> bool:
        """A listing's ``stop``: raise ``_Abort`` once the budget is spent (nothing to keep)."""
        if self.late():
            raise _Abort
        return False

    def _expand(self) -> float:
        """Look at the clock before listing a node's turns; return the reading.

        For some powers that list costs as much as thousands of nodes (Poseidon's extra
        builds, Morpheus's coins): the time budget holds then too, and a list that would
        likely end after the deadline, taking as long as the slowest so far, is not started.
        """
        if self.deadline is None:
            return 0.0
        now = self.clock()
        if now + self.slowest > self.deadline:
            raise _Abort
        return now

    def _terminal(self, p: Position, ply: int) -> int | None:
        """The score of a finished game (or of the searching seat's elimination), else None."""
        if p.winner >= 0:
            if p.winner == NO_WINNER:
                return 0
            return WIN - ply if p.side_of(p.winner) == self.side else ply - WIN
        if self.paranoid and p.eliminated >> self.seat & 1:
            return ply - WIN
        return None

    def _candidates(self, p: Position, first: Turn | None) -> Iterator[Turn]:
        """The turns to try: the table's turn first (often enough), then the rest in order."""
        if first is not None:
            yield first
        start = self._expand()
        if not any(p.gods):
            codes = self._plain_order(p)
            if self.deadline is not None:
                self.slowest = max(self.slowest, self.clock() - start)
            for v in codes:
                code = v & 0x7FFF
                b = code & 31
                w = code >> 10
                t = Turn(w, (code >> 5 & 31,), (b,)) if b != 31 else Turn(w, (code >> 5 & 31,))
                if t != first:
                    yield t
            return
        if self.deadline is None and self.stop is None:
            listed = generate_turns(p)
        else:
            # Where one power's choices meet another's (domes anywhere, each answered by a
            # worker put beside it), one node's list can take seconds: it is made with the
            # clock watched, and the search ends where the budget runs out.
            listed = list_turns(p, self._abort_if_late).turns
        turns = self.order(p, listed, first)
        if self.deadline is not None:
            self.slowest = max(self.slowest, self.clock() - start)
        yield from turns

    def _plain_order(self, p: Position) -> list[int]:
        """``order(p, generate_turns(p), None)`` where no seat has a god, as sorted codes.

        The turns are listed as the engine lists them without gods (each worker, each square
        it may step to, each square it may then build on, ascending) and keyed as ``order``
        keys them, in one pass; a turn is made only when the search reaches it. Each code is
        ``(-key << 15) + (worker << 10 | to << 5 | build)`` (build 31: none, a win), so the
        codes sort as ``order`` sorts: by key, then by place in the list.
        """
        ge1, ge2, ge3 = p.ge1, p.ge2, p.ge3
        workers = p.workers
        seat = p.to_move
        side = seat & 1 if len(p.gods) == 4 else seat
        occ = p.domes
        for m in workers:
            occ |= m
        free = _ALL & ~occ
        top = ge3 & ~occ
        danger = 0
        near_opp2 = 0
        for s, m in enumerate(workers):
            if s != side and m:
                on2 = m & ge2 & ~ge3
                while on2:
                    low = on2 & -on2
                    on2 ^= low
                    nb = NEIGHBOURS[low.bit_length() - 1]
                    danger |= nb & top
                    near_opp2 |= nb
        gift = near_opp2 & ge2 & ~ge3
        marked = danger | gift
        hist = self.history.get
        out: list[int] = []
        mine = workers[side]
        while mine:
            low = mine & -mine
            mine ^= low
            w = low.bit_length() - 1
            if not ge1 & low:
                hw, reach = 0, free & ~ge2
            elif not ge2 & low:
                hw, reach = 1, free & ~ge3
            else:
                hw, reach = (3 if ge3 & low else 2), free
            around = free | low
            targets = NEIGHBOURS[w] & reach
            while targets:
                tb = targets & -targets
                targets ^= tb
                t = tb.bit_length() - 1
                hd = (ge1 >> t & 1) + (ge2 >> t & 1) + (ge3 >> t & 1)
                move = 160 * hd - 120 * hw + (3000 if danger & tb else 0)
                code = w << 10 | t << 5
                index = ((w + 1) * 26 + t) * 26
                if hw == 2 and hd == 3:
                    out.append(code + 31 - ((hist(index + 25, 0) + move) << 15))
                    continue
                builds = NEIGHBOURS[t] & around
                while builds:
                    bb = builds & -builds
                    builds ^= bb
                    b = bb.bit_length() - 1
                    key = hist(index + b, 0) + move
                    if marked & bb:
                        key += 3000 if danger & bb else -2000
                    out.append(code + b - (key << 15))
        out.sort()
        return out

    def _score_batch(self, children: list[Position]) -> None:
        """Score ``children`` with the net at once, for the searching side, into ``leaves``."""
        assert self.net is not None
        todo = [c for c in children if c.winner < 0 and c not in self.leaves]
        if not todo:
            return
        if len(self.leaves) >= _TABLE_SIZE:
            self.leaves.clear()
        scores, pressure = self.net.scores(todo)
        self.evaluated += len(todo)
        side = self.side
        leaves = self.leaves
        for c, score, pr in zip(todo, scores, pressure, strict=True):
            leaves[c] = (score if c.side_of(c.to_move) == side else -score, int(pr))

    def _static(self, p: Position) -> tuple[int, int]:
        """The leaf score of ``p`` for the searching side and the threats against its mover."""
        if self.net is None:
            return evaluate(p, self.side, self.weights)
        found = self.leaves.get(p)
        if found is None:
            self._score_batch([p])
            found = self.leaves[p]
        return found

    def _leaf_parent(
        self,
        p: Position,
        depth: int,
        alpha: int,
        beta: int,
        ply: int,
        maximising: bool,
        first: Turn | None,
    ) -> tuple[int, Turn | None]:
        """Search a node whose children are leaves, scoring them with the net in batches.

        The table's turn and the first few by the cheap ordering make one batch, the rest
        another (only when the first did not cut off); each batch is tried best first by
        its scores. Returns the node's value and its best turn (None: no turn).
        """
        self._expand()
        ordered = self.order(p, generate_turns(p), first, prior=False)
        if first is not None:
            ordered.insert(0, first)
        leaves = self.leaves
        best_turn: Turn | None = None
        best = -_INF if maximising else _INF
        sign = -1 if maximising else 1
        for group in (ordered[:_LEAF_BATCH], ordered[_LEAF_BATCH:]):
            children = [apply_unchecked(p, t) for t in group]
            self._score_batch(children)
            keyed = sorted(
                range(len(group)), key=lambda i: sign * leaves.get(children[i], (0, 0))[0]
            )
            for i in keyed:
                self._tick()
                v = self.value(children[i], depth - 1, alpha, beta, ply + 1)
                if maximising:
                    if v > best:
                        best, best_turn = v, group[i]
                        alpha = max(alpha, v)
                elif v < best:
                    best, best_turn = v, group[i]
                    beta = min(beta, v)
                if alpha >= beta:
                    return best, best_turn
        return best, best_turn

    def _prior_keys(self, p: Position) -> list[float]:
        """The net's prior logits of ``p`` (75: start, end and build squares), once per node."""
        found = self.priors.get(p)
        if found is None:
            assert self.net is not None
            if len(self.priors) >= _TABLE_SIZE:
                self.priors.clear()
            found = self.net.prior(p)
            self.priors[p] = found
        return found

    def order(
        self,
        p: Position,
        turns: list[Turn],
        skip: Turn | None,
        *,
        prior: bool = True,
        partial: bool = False,
    ) -> list[Turn]:
        """Sort ``turns`` best first by cheap signs (blocks, climbs, history), less ``skip``.

        With the net (and ``prior``), its prior for each turn weighs in too. A long list
        (Morpheus's coins: over a hundred thousand turns) keeps to the time budget: the clock
        is read every ``_CHUNK`` turns, and once the budget is spent the search stops
        (``_Abort``), or with ``partial`` (the root, which must answer) the turns keyed so far
        come first, sorted, and the rest follow as they were.
        """
        ge1, ge2, ge3 = p.ge1, p.ge2, p.ge3
        lv = [(ge1 >> s & 1) + (ge2 >> s & 1) + (ge3 >> s & 1) for s in range(25)]
        side = p.side_of(p.to_move)
        danger = 0
        near_opp2 = 0
        for s, m in enumerate(p.workers):
            if s != side and m:
                danger |= threat_squares(p, s)
                for w in _bits(m & ge2 & ~ge3):
                    near_opp2 |= NEIGHBOURS[w]
        # Raising a square to level 3 next to an opponent's level-2 worker hands it a win.
        gift = near_opp2 & ge2 & ~ge3
        marked = danger | gift
        hist = self.history.get
        keyed: list[tuple[float, int]] = []
        # Without the net the keys are integers: each turn is one int, ``-key << shift``
        # plus its place in the list, which sorts as the pair would.
        codes: list[int] = []
        shift = len(turns).bit_length()
        logits = self._prior_keys(p) if self.net is not None and prior else None
        if logits is not None:
            from santorini_p2p.ai.net import turn_indices
        cut = len(turns)
        bounded = (self.deadline is not None or self.stop is not None) and cut > _CHUNK
        for i, t in enumerate(turns):
            if bounded and i and not i % _CHUNK and self.late():
                if not partial:
                    raise _Abort
                cut = i
                break
            worker, path, builds, _, _, _, _ = t
            dst = path[-1] if path else worker
            b0 = builds[0] & 31 if builds else 25
            if worker < 0:
                key = hist(((1 << 20) + dst) * 26 + b0, 0)
            else:
                key = (
                    hist(((worker + 1) * 26 + dst) * 26 + b0, 0) + 160 * lv[dst] - 120 * lv[worker]
                )
                if danger >> dst & 1:
                    key += 3000
            if marked:
                for b in builds:
                    b &= 31
                    if danger >> b & 1:
                        key += 3000
                    elif gift >> b & 1 and len(builds) == 1 and not builds[0] & DOME:
                        key -= 2000
            if logits is not None:
                a, e, c = turn_indices(t)
                keyed.append((-key - _PRIOR_WEIGHT * (logits[a] + logits[e] + logits[c]), i))
                continue
            codes.append((-key << shift) + i)
        rest = turns[cut:]
        if logits is None:
            codes.sort()
            low = (1 << shift) - 1
            if skip is None:
                return [turns[v & low] for v in codes] + rest
            ordered = [turns[v & low] for v in codes]
        else:
            keyed.sort()
            if skip is None:
                return [turns[i] for _, i in keyed] + rest
            ordered = [turns[i] for _, i in keyed]
        return [t for t in ordered if t != skip] + [t for t in rest if t != skip]

    def value(self, p: Position, depth: int, alpha: int, beta: int, ply: int) -> int:
        """The minimax value of ``p`` for the searching side, within ``alpha``..``beta``."""
        if p.winner >= 0 or self.paranoid:
            done = self._terminal(p, ply)
            if done is not None:
                return done
        seat = p.to_move
        maximising = (seat & 1 if len(p.gods) == 4 else seat) == self.side
        if depth <= 0 and self.net is None and not any(p.gods):
            # A leaf without gods: its score and whether its mover wins at once, together.
            score, pressure, wins = plain_leaf(p, self.side, self.weights)
            if wins:
                return WIN - ply - 1 if maximising else ply + 1 - WIN
            if depth < 0 or pressure < 2 or not self.quiescence:
                return score
        elif can_win_now(p):
            return WIN - ply - 1 if maximising else ply + 1 - WIN
        elif depth <= 0:
            score, pressure = self._static(p)
            if depth < 0 or pressure < 2 or not self.quiescence:
                return score
            # Two or more threats against the seat to move: look one turn further to see
            # whether a single turn blocks them all (quiescence).
        entry = self.table.get(p)
        first: Turn | None = None
        if entry is not None:
            e_depth, e_flag, e_score, first = entry
            if e_depth >= depth:
                score = _from_table(e_score, ply)
                if e_flag == _EXACT:
                    return score
                if e_flag == _LOWER and score >= beta:
                    return score
                if e_flag == _UPPER and score <= alpha:
                    return score
        a0, b0 = alpha, beta
        best_turn: Turn | None = None
        if self.net is not None and depth <= 1:
            best, best_turn = self._leaf_parent(p, depth, alpha, beta, ply, maximising, first)
        elif maximising:
            best = -_INF
            for i, t in enumerate(self._candidates(p, first)):
                self._tick()
                child = apply_unchecked(p, t)
                if best_turn is None or depth <= 1:
                    v = self.value(child, depth - 1, alpha, beta, ply + 1)
                else:
                    # Principal variation search: prove the rest worse with a null window,
                    # late turns (ordered last) first at a reduced depth.
                    v = alpha + 1
                    if i >= _LATE and self.reduce:
                        v = self.value(child, depth - 2, alpha, alpha + 1, ply + 1)
                    if v > alpha:
                        v = self.value(child, depth - 1, alpha, alpha + 1, ply + 1)
                    if alpha < v < beta:
                        v = self.value(child, depth - 1, alpha, beta, ply + 1)
                if v > best:
                    best, best_turn = v, t
                    if v > alpha:
                        alpha = v
                        if alpha >= beta:
                            k = _key(t)
                            self.history[k] = self.history.get(k, 0) + depth * depth
                            break
        else:
            best = _INF
            for i, t in enumerate(self._candidates(p, first)):
                self._tick()
                child = apply_unchecked(p, t)
                if best_turn is None or depth <= 1:
                    v = self.value(child, depth - 1, alpha, beta, ply + 1)
                else:
                    v = beta - 1
                    if i >= _LATE and self.reduce:
                        v = self.value(child, depth - 2, beta - 1, beta, ply + 1)
                    if v < beta:
                        v = self.value(child, depth - 1, beta - 1, beta, ply + 1)
                    if alpha < v < beta:
                        v = self.value(child, depth - 1, alpha, beta, ply + 1)
                if v < best:
                    best, best_turn = v, t
                    if v < beta:
                        beta = v
                        if alpha >= beta:
                            k = _key(t)
                            self.history[k] = self.history.get(k, 0) + depth * depth
                            break
        if best_turn is None:
            return ply - WIN if maximising else WIN - ply
        flag = _EXACT
        if best <= a0:
            flag = _UPPER
        elif best >= b0:
            flag = _LOWER
        if len(self.table) >= _TABLE_SIZE:
            self.table.clear()
        self.table[p] = (depth, flag, _to_table(best, ply), best_turn)
        return best

    def pv(self, first: Turn, depth: int) -> tuple[Turn, ...]:
        """The principal variation from the root: ``first``, then the table's best turns."""
        line = [first]
        p = apply_unchecked(self.root, first)
        seen = {self.root, p}
        while len(line) < depth and p.phase is Phase.PLAY and p.winner < 0:
            entry = self.table.get(p)
            if entry is None or entry[3] is None or not turn_is_legal(p, entry[3]):
                break
            line.append(entry[3])
            p = apply_unchecked(p, entry[3])
            if p in seen:
                break
            seen.add(p)
        return tuple(line)


def _shuffle(turns: list[Turn], rng: random.Random, late: Callable[[], bool]) -> None:
    """Shuffle ``turns`` in place as ``rng.shuffle`` does, until ``late()`` says stop.

    The same draws in the same order, so the same result when it runs to the end; a long
    list (Morpheus's coins) is left partly shuffled once the time budget is spent.
    """
    for i in reversed(range(1, len(turns))):
        if not i % _CHUNK and late():
            return
        j = rng.randrange(i + 1)
        turns[i], turns[j] = turns[j], turns[i]


def _key(t: Turn) -> int:
    """A small int naming a turn's worker, destination and first build (for the history)."""
    b = t.builds[0] & 31 if t.builds else 25
    worker = (1 << 20) if t.worker < 0 else t.worker + 1
    end = t.path[-1] if t.path else t.worker
    return (worker * 26 + end) * 26 + b


def _bits(mask: int) -> list[int]:
    out: list[int] = []
    while mask:
        low = mask & -mask
        out.append(low.bit_length() - 1)
        mask ^= low
    return out


def _to_table(score: int, ply: int) -> int:
    """Make a mate score relative to the node (so it is valid at any ply)."""
    if score > _MATE:
        return score + ply
    if score < -_MATE:
        return score - ply
    return score


def _from_table(score: int, ply: int) -> int:
    if score > _MATE:
        return score - ply
    if score < -_MATE:
        return score + ply
    return score


@dataclass(frozen=True, slots=True)
class SearchResult:
    """One search's answer and its cost.

    The turn, its score for the mover, the depth reached, the principal variation, the
    nodes searched and the positions the net scored.
    """

    best: Turn
    score: int
    depth: int
    pv: tuple[Turn, ...]
    nodes: int
    evaluated: int = 0


_Result = SearchResult


def _net_for(level: Level, net: Net | None) -> Net | None:
    """The network a level's search uses: ``net`` or the shipped one, if the level learns."""
    if not level.learned:
        return None
    if net is not None:
        return net
    from santorini_p2p.ai.net import shipped

    return shipped()


def _search(
    p: Position,
    level: Level,
    rng: random.Random,
    think: float | None,
    nodes: int | None,
    stop: StopFlag | None,
    clock: Callable[[], float] = time.monotonic,
    net: Net | None = None,
    turns: list[Turn] | None = None,
    checked: bool = True,
) -> _Result:
    """Iterative deepening from ``p`` (play phase) up to the level's depth or a budget.

    ``turns``: the root's turns when the caller has listed them (a copy is taken).
    ``checked`` False: ``turns`` is a stopped listing whose turns may not all be legal
    (``Listing.checked``); the turn chosen is then checked, and the next one taken if not.
    """
    max_nodes = nodes if nodes is not None else (level.nodes if think is None else None)
    budget = think if think is not None else (level.think if nodes is None else None)
    deadline = clock() + budget if budget is not None else None
    s = _Search(
        p,
        max_nodes=max_nodes,
        deadline=deadline,
        stop=stop,
        clock=clock,
        quiescence=level.quiescence,
        reduce=level.reduce,
        net=_net_for(level, net),
        weights=level.weights,
    )
    turns = list(turns) if turns is not None else generate_turns(p)
    _shuffle(turns, rng, s.late)
    for t in turns:
        if t.is_win and (checked or turn_is_legal(p, t)):
            return _Result(t, WIN - 1, 1, (t,), 0)
    noise: dict[Turn, int] = {}
    if level.noise:
        for i in range(0, len(turns), _CHUNK):
            # The turns not reached in time are never searched: they need no noise.
            if i and s.late():
                break
            noise.update((t, rng.randrange(level.noise + 1)) for t in turns[i : i + _CHUNK])
    if len(turns) == 1 and checked:
        return _Result(turns[0], s._static(p)[0], 0, (turns[0],), 0, s.evaluated)
    if level.puct and s.net is not None and p.players == 2 and checked:
        from santorini_p2p.ai.puct import puct

        r = puct(
            p, s.net, turns, win=WIN, max_nodes=max_nodes, deadline=deadline, stop=stop, clock=clock
        )
        return _Result(r.best, r.score, r.depth, r.pv, r.nodes, r.evaluated)
    ordered = s.order(p, turns, None, partial=True)
    best, best_score, best_depth = ordered[0], -_INF, 0
    scores: dict[Turn, int] = {}
    depth = 0
    try:
        for depth in range(1, level.depth + 1):
            alpha = -_INF
            cur_best: Turn | None = None
            new_scores: dict[Turn, int] = {}
            for t in ordered:
                s._tick()
                child = apply_unchecked(p, t)
                if cur_best is None or depth == 1:
                    v = s.value(child, depth - 1, alpha, _INF, 1)
                else:
                    v = s.value(child, depth - 1, alpha, alpha + 1, 1)
                    if v > alpha:
                        v = s.value(child, depth - 1, alpha, _INF, 1)
                if noise and abs(v) < _MATE:
                    v += noise.get(t, 0)
                new_scores[t] = v
                if v > alpha:
                    alpha, cur_best = v, t
            assert cur_best is not None
            best, best_score, best_depth = cur_best, alpha, depth
            scores = new_scores
            ordered.sort(key=lambda t: -scores.get(t, -_INF))
            if best_score > _MATE or best_score < -_MATE:
                break
    except _Abort:
        # A partial iteration counts when the previous best was searched again first.
        if new_scores and ordered[0] in new_scores and cur_best is not None:
            best, best_score = cur_best, alpha
    if not checked and not turn_is_legal(p, best):
        best = _first_legal(p, ordered)
        best_score = scores.get(best, s._static(p)[0])
    return _Result(
        best, best_score, best_depth, s.pv(best, max(best_depth, 1)), s.nodes, s.evaluated
    )


def _first_legal(p: Position, ordered: list[Turn]) -> Turn:
    """The first of ``ordered`` (a stopped listing's turns) that is legal in ``p``.

    A power that narrows the turns judged over the whole list may rule out all of them: then
    the first turn of the whole list.
    """
    for t in ordered:
        if turn_is_legal(p, t):
            return t
    return generate_turns(p)[0]


def _root_turns(
    p: Position,
    start: float,
    budget: float | None,
    stop: StopFlag | None,
    clock: Callable[[], float],
) -> Listing:
    """The root's turns, listed until ``_LISTING_SHARE`` of ``budget`` (from ``start``) is spent.

    Without a time budget (or ``stop``) the whole list: a node budget's choice stays the same
    on every machine.
    """
    if budget is None and stop is None:
        return Listing(generate_turns(p), True, True)
    deadline = start + budget * _LISTING_SHARE if budget is not None else None

    def cut() -> bool:
        return (stop is not None and stop.is_set()) or (deadline is not None and clock() > deadline)

    return list_turns(p, cut)


def play_turn(
    position: Position,
    level: Level,
    *,
    rng: random.Random,
    think: float | None = None,
    nodes: int | None = None,
    net: Net | None = None,
) -> SearchResult:
    """Search a play-phase position with ``level``'s settings (no proof search first).

    The score is the search's, for the mover (``WIN - k`` for a win found ``k`` turns
    ahead). ``net`` replaces the shipped network of a learned level. Self-play uses it (the
    score is a training target, and ``level`` may carry root noise for varied games), and
    so do the benchmarks (nodes and positions scored a second).

    Raises:
        ValueError: a position with no turn.
    """
    if position.phase is not Phase.PLAY or not generate_turns(position):
        raise ValueError(f"no turn to search: {position}")
    return _search(position, level, rng, think, nodes, None, time.monotonic, net)


def choose_action(
    position: Position,
    level: str = "random",
    *,
    rng: random.Random,
    think: float | None = None,
    nodes: int | None = None,
    stop: StopFlag | None = None,
    clock: Callable[[], float] = time.monotonic,
    net: Net | None = None,
) -> Action:
    """Return a legal action for the seat to move in ``position``, in any phase.

    ``think`` is the time budget in seconds and ``nodes`` the node budget (default: the
    level's); with a node budget and no time budget the choice depends only on the
    position, the level and ``rng``. Setting ``stop`` makes a search return its best action
    so far at once. ``clock`` (seconds) measures the time budget. ``net`` replaces the
    shipped network of a level that uses one (``hard``).

    Raises:
        ValueError: an unknown level, or a position with no legal action (the game is over).
    """
    lv = find_level(level)
    if position.phase is Phase.OVER:
        raise ValueError(f"no legal action: the game is over in {position}")
    if position.phase is not Phase.PLAY:
        return choose_setup(position, lv.name, rng)
    if lv.name == "random":
        actions = legal_actions(position)
        if not actions:
            raise ValueError(f"no legal action: {position}")
        return rng.choice(actions)
    start = clock()
    budget = think if think is not None else (lv.think if nodes is None else None)
    listing = _root_turns(position, start, budget, stop, clock)
    turns = listing.turns
    if not turns:
        raise ValueError(f"no legal action: {position}")
    if think is not None:
        # Listing the turns is part of the time (tens of thousands with some powers).
        think = max(0.0, think - (clock() - start))
    elif nodes is None and lv.think is not None:
        think = max(0.0, lv.think - (clock() - start))
        nodes = lv.nodes
    return _search(position, lv, rng, think, nodes, stop, clock, net, turns, listing.checked).best


def _probability(score: int) -> float:
    if score > _MATE:
        return 1.0
    if score < -_MATE:
        return 0.0
    return 1.0 / (1.0 + math.exp(-score / 300.0))


def forced_turns(position: Position, mate: int) -> int:
    """Count a forced result of ``mate`` plies (as in ``Analysis.mate``) in the mover's turns.

    With two sides the turns alternate; with 3 players every third turn is the mover's (as
    long as nobody is eliminated).
    """
    cycle = 2 if position.sides == 2 else 3
    if mate > 0:
        return (mate + cycle - 1) // cycle
    return -((-mate + cycle - 2) // cycle)


def analyse(
    position: Position,
    level: str = "hard",
    *,
    think: float | None = None,
    nodes: int | None = None,
    stop: StopFlag | None = None,
    clock: Callable[[], float] = time.monotonic,
    net: Net | None = None,
) -> Analysis:
    """Search ``position`` and return the best action with its evaluation and variation.

    The budgets, ``stop`` and ``clock`` work as for ``choose_action``; the search itself is
    deterministic (no random tie-breaks), so a node budget gives a repeatable answer.

    First a proof search (``mate.solve``, with three quarters of the time budget, or the node
    budget) looks for a forced result within ``MAX_TURNS`` turns; what it proves is exact,
    and its best turn keeps the result (a win's best turn wins). Otherwise the level's search
    runs with the rest of the budget. With neither budget given, the proof search has up to
    ``PROOF_THINK_S`` seconds of its own and the level's search its usual time after it.
    Every part counts from the start: listing the root's turns (tens of thousands with some
    powers) comes out of the budget, and the proof leaves the search the time to order them.

    In the setup phase the best action is the level's choice, with no search behind it.

    Raises:
        ValueError: an unknown level, or a position with no legal action.
    """
    lv = find_level(level)
    if lv.name == "random":
        lv = _LEVELS["easy"]
    rng = random.Random(0)
    if position.phase is not Phase.PLAY:
        best = choose_action(position, lv.name, rng=rng)
        return Analysis(best, 0.5, None, 0, (best,), 0, 0)
    start = clock()
    budget = think if think is not None else (lv.think if nodes is None else None)
    own = think is None and nodes is None
    proof_time = budget * 3 / 4 if budget is not None else None
    if own and budget is not None:
        proof_time = max(PROOF_THINK_S, proof_time or 0.0)
        budget += proof_time
    listed = _root_turns(position, start, budget, stop, clock)
    turns = listed.turns
    if not turns:
        raise ValueError(f"no legal action: {position}")
    if not listed.complete:
        # A stopped listing proves nothing: no turn left out was tried.
        proof_time = 0.0
    if proof_time is not None and budget is not None:
        # Every part counts from the start, listing the root's turns included. Ordering them
        # takes the proof about as long as listing them, and the level's search about twice
        # that (shuffle, order, noise): the proof runs only when it has that time and leaves
        # the search its share.
        listing = clock() - start
        proof_time = min(proof_time - listing, budget - 3 * listing)
        if proof_time < listing:
            proof_time = 0.0
    proof, _ = solve(
        position, MAX_TURNS, nodes=nodes, think=proof_time, stop=stop, clock=clock, turns=turns
    )
    if proof is not None:
        n = proof.turns
        plies = 2 * n - 1 if n > 0 else 2 * n
        score = WIN - plies if n > 0 else -WIN - plies
        return Analysis(
            proof.best,
            1.0 if n > 0 else 0.0,
            plies,
            abs(plies),
            (proof.best,),
            proof.nodes,
            score,
            n,
        )
    if budget is not None:
        # The level's own node cap still applies when no budget was given.
        nodes = nodes if nodes is not None or think is not None else lv.nodes
        think = max(0.0, budget - (clock() - start))
        if own and lv.think is not None:
            think = min(think, lv.think)
    r = _search(position, lv, rng, think, nodes, stop, clock, net, turns, listed.checked)
    mate: int | None = None
    if r.score > _MATE:
        mate = WIN - r.score
    elif r.score < -_MATE and listed.complete:
        # From a stopped listing every turn tried loses, but not every turn was tried: no
        # forced loss is claimed.
        mate = -(WIN + r.score)
    pv: tuple[Action, ...] = r.pv
    forced = forced_turns(position, mate) if mate is not None else None
    return Analysis(
        r.best, _probability(r.score), mate, r.depth, pv, r.nodes, r.score, forced, r.evaluated
    )
