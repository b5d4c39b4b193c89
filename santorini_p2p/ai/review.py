"""Judging the turns of a finished game: the engine's evaluation before and after each, marks.

``review_turns(positions, turns, ...)`` analyses every position where a turn was played (in
worker processes with ``jobs`` > 1) and returns one ``TurnReview`` per turn: the engine's
best turn there, the evaluation before and after the turn played, and a mark.

Evaluations are from the mover's side: a win probability from 0 to 1, or a forced result in
words, counted in the turns of the side that wins ("win in 2": the mover wins with its second
turn from here; "loss in 1": the other side wins with its next turn). After the last turn of
a game won on the board the evaluation is 1 (won) or 0 (lost).

The marks, worst first (``mark``):

- "blunder": after the turn the other side has a forced win, and before it the mover was
  not lost (some other turn avoided it);
- "missed win": the mover had a forced win before the turn and has none after it;
- "mistake": the mover's win probability fell by ``MISTAKE`` (0.20) or more;
- "inaccuracy": it fell by ``INACCURACY`` (0.10) or more.

A blunder or a missed win is checked once more with a longer proof search (``RECHECK_S``
seconds at least) on the side the search did not prove: a mover already lost before the
turn made no blunder, and one who still wins after it missed nothing.

The engine's own best turn is never marked. Only games of two sides (2 players, or 4 as two
teams) can be reviewed: with 3 players the search does not evaluate a position from the side
of a seat that is not to move.
"""

from __future__ import annotations

import multiprocessing
from collections.abc import Callable, Sequence
from concurrent.futures import ProcessPoolExecutor, as_completed
from dataclasses import dataclass
from typing import Final

from santorini_p2p.ai.mate import MAX_TURNS, result_text, solve
from santorini_p2p.ai.search import Analysis, analyse, find_level
from santorini_p2p.engine import NO_WINNER, Phase, Position, Turn

__all__ = [
    "INACCURACY",
    "MARKS",
    "MISTAKE",
    "RECHECK_S",
    "Eval",
    "TurnReview",
    "eval_value",
    "judge",
    "review_turns",
]

INACCURACY: Final = 0.10
"""A fall in the mover's win probability from this much on marks an inaccuracy."""
MISTAKE: Final = 0.20
"""A fall in the mover's win probability from this much on marks a mistake."""
RECHECK_S: Final = 5.0
"""The least time (seconds) a blunder's or missed win's open side is proved again with."""
MARKS: Final = ("inaccuracy", "mistake", "blunder", "missed win")
"""Every mark, from the mildest to the worst."""

Eval = float | str
"""An evaluation from the mover's side: a win probability (0 to 1), or "win in N"/"loss in N"."""


@dataclass(frozen=True, slots=True)
class TurnReview:
    """One turn judged: ``ply`` counts the game's turns from 1; ``seat`` is 0-based here."""

    ply: int
    seat: int
    turn: str
    best: str
    eval_before: Eval
    eval_after: Eval
    mark: str | None


def _is_win(e: Eval) -> bool:
    return isinstance(e, str) and e.startswith("win")


def _is_loss(e: Eval) -> bool:
    return isinstance(e, str) and e.startswith("loss")


def eval_value(e: Eval) -> float:
    """An evaluation as a win probability: a forced win counts 1, a forced loss 0."""
    if isinstance(e, str):
        return 1.0 if _is_win(e) else 0.0
    return e


def _flip(e: Eval) -> Eval:
    """The same evaluation from the other side."""
    if isinstance(e, str):
        kind, _, n = e.partition(" in ")
        return f"{'loss' if kind == 'win' else 'win'} in {n}"
    return round(1.0 - e, 3)


def judge(before: Eval, after: Eval, *, best: bool = False) -> str | None:
    """The mark a turn earns that took the mover from ``before`` to ``after``.

    ``best`` says the turn was the engine's own best, which is never marked.
    """
    if best:
        return None
    if _is_loss(after) and not _is_loss(before):
        return "blunder"
    if _is_win(before) and not _is_win(after):
        return "missed win"
    drop = round(eval_value(before) - eval_value(after), 3)
    if drop >= MISTAKE:
        return "mistake"
    if drop >= INACCURACY:
        return "inaccuracy"
    return None


def _evaluation(a: Analysis) -> Eval:
    if a.result is not None:
        return a.result
    return round(a.win, 3)


def _analyse_one(
    position: Position, level: str, think: float | None, nodes: int | None
) -> tuple[str, Eval]:
    """The best turn in ``position`` and its evaluation from the side of the seat to move."""
    a = analyse(position, level, think=think, nodes=nodes)
    return str(a.best), _evaluation(a)


def _final(position: Position, mover: int) -> Eval | None:
    """The evaluation for ``mover`` of a game that is over, or None if it goes on."""
    if position.winner < 0:
        return None
    if position.winner == NO_WINNER:
        return 0.5
    return 1.0 if position.side_of(position.winner) == position.side_of(mover) else 0.0


def review_turns(
    positions: Sequence[Position],
    turns: Sequence[Turn],
    *,
    level: str = "hard",
    think: float | None = None,
    nodes: int | None = None,
    jobs: int = 1,
    progress: Callable[[int, int], None] | None = None,
) -> list[TurnReview]:
    """Judge each turn: ``turns[i]`` was played in ``positions[i]``, giving ``positions[i + 1]``.

    Every position in play is analysed with ``analyse(level, think, nodes)``, over ``jobs``
    processes; ``progress(done, total)`` is called after each analysis. An exception raised
    by ``progress`` stops the review (the analyses under way end first) and is raised here.

    Raises:
        ValueError: an unknown level, positions and turns that do not match, or a game of
            3 players.
    """
    find_level(level)
    if len(positions) != len(turns) + 1:
        raise ValueError(f"review: {len(turns)} turns need {len(turns) + 1} positions")
    if positions and positions[0].sides != 2:
        raise ValueError("review: only games of two sides (2 players, or 4 in teams)")
    todo = [i for i, p in enumerate(positions) if p.phase is Phase.PLAY and p.winner < 0]
    found: dict[int, tuple[str, Eval]] = {}
    total = len(todo)
    if progress is not None:
        progress(0, total)
    if jobs <= 1 or total <= 1:
        for k, i in enumerate(todo):
            found[i] = _analyse_one(positions[i], level, think, nodes)
            if progress is not None:
                progress(k + 1, total)
    else:
        context = multiprocessing.get_context("spawn")
        with ProcessPoolExecutor(min(jobs, total), mp_context=context) as pool:
            futures = {
                pool.submit(_analyse_one, positions[i], level, think, nodes): i for i in todo
            }
            try:
                for k, f in enumerate(as_completed(futures)):
                    found[futures[f]] = f.result()
                    if progress is not None:
                        progress(k + 1, total)
            except BaseException:
                # Stopped (``progress`` raised, or an analysis failed): the positions not
                # started are dropped, so only those under way are waited for.
                pool.shutdown(wait=False, cancel_futures=True)
                raise
    out: list[TurnReview] = []
    for i, t in enumerate(turns):
        p = positions[i]
        best, before = found[i]
        nxt = positions[i + 1]
        after = _final(nxt, p.to_move)
        if after is None:
            after = _flip(found[i + 1][1])
        text = str(t)
        mark = judge(before, after, best=text == best)
        if mark in ("blunder", "missed win"):
            before, after = _recheck(p, nxt, before, after, think, nodes)
            mark = judge(before, after, best=text == best)
        out.append(TurnReview(i + 1, p.to_move, text, best, before, after, mark))
    return out


def _distance(e: Eval) -> int:
    return int(e.rpartition(" ")[2]) if isinstance(e, str) else 0


def _recheck(
    p: Position, nxt: Position, before: Eval, after: Eval, think: float | None, nodes: int | None
) -> tuple[Eval, Eval]:
    """Prove again, with more time (or nodes), the side of a blunder or a missed win left open.

    A blunder needs the mover not lost before the turn: a proof that it was lost (within
    ``MAX_TURNS``; or won) replaces ``before``. A missed win needs the win gone after the
    turn: a proof that the mover still wins replaces ``after``.
    """
    budget = max(RECHECK_S, 3 * think) if think is not None else None
    nodes = 3 * nodes if nodes is not None else None
    if not isinstance(before, str):
        # Lost before the turn at any distance: the win was the opponent's whatever the turn.
        proof, _ = solve(p, MAX_TURNS, think=budget, nodes=nodes)
        if proof is not None:
            before = result_text(proof.turns)
    if isinstance(before, str) and before.startswith("win") and nxt.winner < 0:
        most = min(MAX_TURNS, _distance(before))
        proof, _ = solve(nxt, most, think=budget, nodes=nodes)
        if proof is not None:
            after = _flip(result_text(proof.turns))
    return before, after
