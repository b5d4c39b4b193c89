"""Fitting the evaluation's weights to the results of this project's own self-play games.

The hand-written evaluation (``ai.evaluate``) is a sum of terms, each a count (workers on level
2, squares a worker can climb to, threats...) times a weight, so a position's score is linear
in the weights: ``score = weights . features``. A generation of a tuning run: the best weights
so far play ``hard`` against themselves (``selfplay``; the first generation starts from the
hand-set ``CLASSIC`` ones); the weights are fitted to the games' results by logistic regression
on the search's own scale (``fit``: a score ``s`` means a ``1 / (1 + exp(-s / 300))`` chance to
win, as in ``analyse``); the fitted weights play the best in the arena at equal nodes
(``gate``: the same evaluation code, so equal nodes is equal time) and become the best only if
they score at least ``GATE_SCORE``.

A run lives in one directory and resumes where it stopped, like ``study.train``'s:
``data/gen-NNNN.jsonl.gz`` (the games' positions), ``state.json`` (the best weights, every
generation's fit and arena result). ``export`` writes the best weights with that record for
``santorini_p2p/ai/weights/``. Only two-player positions are fitted (with three players the
evaluation takes the strongest opponent, which is not linear in the weights).

A stop inside a generation loses at most the games being played: each finished game is appended
to a checkpoint (``study.jobs``), ``data/gen-NNNN.partial.jsonl`` for self-play and
``data/gen-NNNN.arena.partial.jsonl`` for the arena. Its first line names what the games depend
on: the stage, generation, seed, games, nodes, noise plies, gods' share and the weights played
(their ``Weights.digest``; in the arena ``new`` and ``old``). A game at a node budget is a
function of its seed, so a resumed stage plays only the rest and ends with the same data file
and the same arena score as an uninterrupted one. The fit is kept in ``state.json``
(``pending``) before the arena starts, so a resumed arena plays the same weights. A checkpoint
of other settings or other weights is refused, naming the fields that differ, never mixed in; a
last line cut short by the stop is dropped and its game played again. Each checkpoint goes once
its stage's result is saved. Only one process runs a directory at a time (``jobs.locked``).
"""

from __future__ import annotations

import json
import random
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass, replace
from pathlib import Path
from typing import Any, Final, TypedDict

import numpy as np

from santorini_p2p.ai.evaluate import CLASSIC, TUNED, Weights, evaluate
from santorini_p2p.ai.search import choose_action, find_level, play_turn
from santorini_p2p.engine import (
    Phase,
    Position,
    apply_action,
    format_position,
    parse_position,
)
from santorini_p2p.study.jobs import decode_score, locked, play_games
from santorini_p2p.study.train import (
    GATE_SCORE,
    MAX_PLIES,
    Sample,
    decode_samples,
    load_samples,
    load_state,
    save_samples,
    save_state,
    selfplay_start,
)

__all__ = [
    "SCALE",
    "STARTS",
    "TuneConfig",
    "export",
    "features",
    "fit",
    "gate",
    "run",
    "selfplay",
]

HELD: Final = ("worker", "height3")
"""Terms a fit keeps at their starting weights: self-play games cannot tell them. Every side has
its two workers in nearly every position (only a few powers take one), so the worker count
moves with the constant part of the score, and a fit set it anywhere (once below a level-2
height, which rated a lone worker on level 2 above two on the ground); a worker on level 3 has
won, so no position of play shows one."""
STARTS: Final = {"classic": CLASSIC, "shipped": TUNED}
"""The weights a run may start from, by name (``TuneConfig.start``)."""
SCALE: Final = 300.0
"""The search's score scale: a score ``s`` is a ``1 / (1 + exp(-s / SCALE))`` chance to win."""
_NOISE: Final = 150
"""Root noise of self-play's first plies (score units), so that games differ."""
_ARENA_NOISE_PLIES: Final = 4
"""The arena's first plies with root noise, so that its pairs of games differ."""
_MAX_WEIGHT: Final = 5000


@dataclass(frozen=True, slots=True)
class TuneConfig:
    """A tuning run's settings (fixed at its first start; a resume must give the same)."""

    games: int = 1000
    nodes: int = 1500
    arena_games: int = 200
    gods_share: float = 0.5
    noise_plies: int = 8
    window: int = 3
    seed: int = 1
    start: str = "classic"
    """The weights the run starts from: ``classic`` (the hand-set ones) or ``shipped`` (the
    package's fitted ones, ``TUNED``)."""
    ridge: float = 0.001
    """How strongly a fit is held to the weights it starts from (per position, in squared
    units of a hundred): enough to keep a term the games hardly tell apart (every side has
    two workers; a worker on level 3 has won) where it was, little enough to let the others
    move (on the first generation's games, 0.001 predicted unseen results best of 0.02,
    0.005, 0.001 and 0; 0 sent those two terms below zero)."""


# -- self-play ---------------------------------------------------------------------------------


def _play(
    seed: int, weights: tuple[Weights, Weights], nodes: int, noise_plies: int, gods_share: float
) -> tuple[list[tuple[str, int]], int]:
    """Play one game, seat 0 with ``weights[0]`` and seat 1 with ``weights[1]``.

    Returns each position of play with its mover, and the winner (-1: none).
    """
    rng = random.Random(seed)
    levels = [replace(find_level("hard"), weights=w) for w in weights]
    p = selfplay_start(rng, gods_share)
    seen: list[tuple[str, int]] = []
    plies = 0
    while p.phase is not Phase.OVER and plies < MAX_PLIES:
        level = levels[p.to_move]
        if p.phase is not Phase.PLAY:
            p = apply_action(p, choose_action(p, level.name, rng=rng))
            continue
        lv = replace(level, noise=_NOISE) if plies < noise_plies else level
        seen.append((format_position(p), p.to_move))
        p = apply_action(p, play_turn(p, lv, rng=rng, nodes=nodes).best)
        plies += 1
    return seen, p.winner if p.winner in (0, 1) else -1


def _selfplay_game(job: tuple[int, Weights, int, int, float]) -> list[Sample]:
    seed, w, nodes, noise_plies, gods_share = job
    seen, winner = _play(seed, (w, w), nodes, noise_plies, gods_share)
    return [(text, "", 0, 0 if winner < 0 else (1 if winner == m else -1)) for text, m in seen]


def _selfplay(
    weights: Weights,
    config: TuneConfig,
    seed: int,
    workers: int,
    checkpoint: Path | None,
    generation: int | None,
    log: Callable[[str], None] | None,
) -> tuple[list[Sample], float]:
    seeds = [seed * 1_000_003 + i for i in range(config.games)]
    jobs = [(s, weights, config.nodes, config.noise_plies, config.gods_share) for s in seeds]
    settings: dict[str, object] = {
        "seed": seed,
        "games": config.games,
        "nodes": config.nodes,
        "noise_plies": config.noise_plies,
        "gods_share": config.gods_share,
        "weights": weights.digest,
    }
    per_game, seconds = play_games(
        "self-play",
        generation,
        _selfplay_game,
        jobs,
        seeds,
        workers=workers,
        checkpoint=checkpoint,
        settings=settings,
        field="samples",
        decode=decode_samples,
        log=log,
    )
    return [s for game in per_game for s in game], seconds


def selfplay(
    weights: Weights,
    config: TuneConfig,
    seed: int,
    workers: int,
    *,
    checkpoint: Path | None = None,
    log: Callable[[str], None] | None = None,
) -> list[Sample]:
    """Play ``config.games`` games of ``hard`` with ``weights`` against itself; their samples.

    A sample is a position of play, an empty turn, a zero score and the result for its mover.
    With ``checkpoint``, each finished game is appended to that file, and the games already
    there (played with the same settings and weights) are not played again.

    Raises:
        ValueError: a checkpoint of other settings or other weights, or a damaged one.
    """
    return _selfplay(weights, config, seed, workers, checkpoint, None, log)[0]


# -- fitting -----------------------------------------------------------------------------------


def features(p: Position) -> list[int]:
    """The evaluation's terms of ``p`` for its mover, after what the gods' own hooks add.

    ``evaluate`` is the first value plus the dot product of the rest with ``Weights.vector``.

    Read through ``evaluate`` itself (one weight at a time), so they cannot drift from it.
    """
    side = p.side_of(p.to_move)
    n = len(Weights.NAMES)
    base = evaluate(p, side, Weights.from_vector([0] * n))[0]
    out = [base]
    for i in range(n):
        unit = [0] * n
        unit[i] = 1
        out.append(evaluate(p, side, Weights.from_vector(unit))[0] - base)
    return out


def fit(
    samples: Sequence[Sample],
    start: Weights,
    log: Callable[[str], None] = lambda _: None,
    ridge: float = 0.001,
) -> tuple[Weights, float, float]:
    """Fit the weights to ``samples``' results from ``start``; with the log losses before, after.

    A log loss is in nats a position: lower is better.

    Logistic regression of the result on ``(gods' part + weights . features) / SCALE`` by
    Newton's method, the ``HELD`` terms kept as ``start`` has them and the rest held towards
    ``start`` by ``ridge`` (``TuneConfig.ridge``); draws count half.
    """
    rows: list[list[int]] = []
    target: list[float] = []
    for text, _turn, _score, result in samples:
        p = parse_position(text)
        if p.players != 2 or p.phase is not Phase.PLAY:
            continue
        rows.append(features(p))
        target.append((result + 1) / 2)
    if not rows:
        raise ValueError("no two-player position of play to fit")
    a = np.array(rows, dtype=np.float64)
    base, x = a[:, 0] / SCALE, a[:, 1:] / SCALE
    y = np.array(target)
    w0 = np.array(start.vector(), dtype=np.float64)
    # The held terms' part of each score is fixed: it joins the gods' part.
    held = np.array([n in HELD for n in Weights.NAMES])
    base = base + x[:, held] @ w0[held]
    x = x[:, ~held]
    w_all = w0
    w0 = w0[~held]
    hold = ridge * len(y) / 100.0**2

    def loss(w: np.ndarray) -> float:
        z = base + x @ w
        # log(1 + e^-z) for a win, log(1 + e^z) for a loss, stably.
        return float(np.mean(np.logaddexp(0.0, z) - y * z))

    w = w0.copy()
    before = loss(w)
    steps = 0
    for steps in range(1, 51):  # noqa: B007 (counted for the log)
        z = np.clip(base + x @ w, -30.0, 30.0)
        pr = 1.0 / (1.0 + np.exp(-z))
        grad = x.T @ (pr - y) + hold * (w - w0)
        hess = (x * (pr * (1.0 - pr))[:, None]).T @ x + hold * np.eye(len(w))
        delta = np.linalg.solve(hess, grad)
        w -= delta
        if float(np.max(np.abs(delta))) < 0.05:
            break
    after = loss(w)
    log(f"fit: {len(y)} positions, {steps} Newton steps, log loss {before:.4f} -> {after:.4f}")
    fitted = np.clip(np.rint(w), -_MAX_WEIGHT, _MAX_WEIGHT)
    out = w_all.copy()
    out[~held] = fitted
    return Weights.from_vector([int(v) for v in out]), before, loss(fitted)


# -- gating ------------------------------------------------------------------------------------


def _arena_game(job: tuple[int, Weights, Weights, int, float, int]) -> float:
    """One game of ``new`` against ``old``, ``new`` in seat ``new_seat``: new's score."""
    seed, new, old, nodes, gods_share, new_seat = job
    pair = (new, old) if new_seat == 0 else (old, new)
    _, winner = _play(seed, pair, nodes, _ARENA_NOISE_PLIES, gods_share)
    return 0.5 if winner < 0 else (1.0 if winner == new_seat else 0.0)


def _gate(
    new: Weights,
    old: Weights,
    config: TuneConfig,
    seed: int,
    workers: int,
    checkpoint: Path | None,
    generation: int | None,
    log: Callable[[str], None] | None,
) -> tuple[float, int, float]:
    seeds = [seed * 7919 + i // 2 for i in range(config.arena_games)]
    jobs = [(s, new, old, config.nodes, config.gods_share, i % 2) for i, s in enumerate(seeds)]
    settings: dict[str, object] = {
        "seed": seed,
        "games": config.arena_games,
        "nodes": config.nodes,
        "noise_plies": _ARENA_NOISE_PLIES,
        "gods_share": config.gods_share,
        "new": new.digest,
        "old": old.digest,
    }
    scores, seconds = play_games(
        "arena",
        generation,
        _arena_game,
        jobs,
        seeds,
        workers=workers,
        checkpoint=checkpoint,
        settings=settings,
        field="score",
        decode=decode_score,
        log=log,
    )
    return (sum(scores) / len(scores) if scores else 0.5), len(scores), seconds


def gate(
    new: Weights,
    old: Weights,
    config: TuneConfig,
    seed: int,
    workers: int,
    *,
    checkpoint: Path | None = None,
    log: Callable[[str], None] | None = None,
) -> tuple[float, int]:
    """Play ``new`` against ``old`` at equal nodes, each opening from both seats; new's score.

    With ``checkpoint``, each game's score is appended to that file, and the games already
    there (of the same settings and weights) are not played again.

    Raises:
        ValueError: a checkpoint of other settings or other weights, or a damaged one.
    """
    score, games, _ = _gate(new, old, config, seed, workers, checkpoint, None, log)
    return score, games


# -- the run -----------------------------------------------------------------------------------


class _Fit(TypedDict):
    """What a generation's fit came to, for its record."""

    positions: int
    loss_before: float
    loss_after: float


def _weights_of(state: dict[str, object], key: str) -> Weights:
    try:
        return Weights.from_json(state[key])
    except (KeyError, ValueError) as e:
        raise ValueError(f"state.json: {key}: {e}") from None


def run(
    directory: Path,
    generations: int,
    config: TuneConfig,
    *,
    workers: int = 1,
    command: str = "",
    log: Callable[[str], None] = lambda _: None,
) -> dict[str, object]:
    """Run (or resume) a tuning run in ``directory`` up to ``generations`` generations.

    Raises:
        ValueError: a run made with other settings, a damaged run directory, a checkpoint of
            other settings or weights, or a run that another process is running.
    """
    if config.start not in STARTS:
        raise ValueError(f"start: expected one of {', '.join(STARTS)}, got {config.start!r}")
    (directory / "data").mkdir(parents=True, exist_ok=True)
    with locked(directory):
        return _run(directory, generations, config, workers, command, log)


def _pending_fit(directory: Path, pending: dict[str, Any]) -> tuple[Weights, _Fit]:
    """The fit a stopped generation made before its arena, as ``state.json`` keeps it.

    Raises:
        ValueError: a damaged one, naming the file.
    """
    try:
        fitted = pending["fit"]
        new = Weights.from_json(fitted["weights"])
        kept: _Fit = {
            "positions": int(fitted["positions"]),
            "loss_before": float(fitted["loss_before"]),
            "loss_after": float(fitted["loss_after"]),
        }
    except (KeyError, TypeError, ValueError) as e:
        raise ValueError(
            f"{directory / 'state.json'}: pending: not a generation's fit ({e})"
        ) from None
    return new, kept


def _run(
    directory: Path,
    generations: int,
    config: TuneConfig,
    workers: int,
    command: str,
    log: Callable[[str], None],
) -> dict[str, object]:
    state = load_state(directory)
    settings = {k: getattr(config, k) for k in TuneConfig.__dataclass_fields__}
    # A setting added since the run began counts at its default: what the run did.
    defaults = {k: getattr(TuneConfig(), k) for k in TuneConfig.__dataclass_fields__}
    stored = state.get("config")
    if state and (not isinstance(stored, dict) or {**defaults, **stored} != settings):
        raise ValueError(
            f"{directory}: a run made with other settings ({state.get('config')}); "
            "resume it with the same ones or start a new directory"
        )
    if not state:
        state = {
            "config": settings,
            "best": STARTS[config.start].to_json(),
            "history": [],
            "seconds": 0.0,
            "workers": workers,
            "command": command,
        }
        save_state(directory, state)
    history = state["history"]
    assert isinstance(history, list)
    for gen in range(1, generations + 1):
        data_path = directory / "data" / f"gen-{gen:04d}.jsonl.gz"
        games_partial = directory / "data" / f"gen-{gen:04d}.partial.jsonl"
        arena_partial = directory / "data" / f"gen-{gen:04d}.arena.partial.jsonl"
        if any(h["generation"] == gen for h in history):
            # Left by a stop after the generation's record was saved.
            arena_partial.unlink(missing_ok=True)
            continue
        # What this generation did in earlier sessions: its seconds, and its fit once made.
        pending: Any = state.get("pending")
        if not isinstance(pending, dict) or pending.get("generation") != gen:
            pending = {"generation": gen, "seconds": 0.0}
        best = _weights_of(state, "best")
        seed = config.seed * 1000 + gen
        if not data_path.exists():
            samples, played = _selfplay(best, config, seed, workers, games_partial, gen, log)
            save_samples(data_path, samples)
            pending["seconds"] = float(pending["seconds"]) + played
            state["pending"] = pending
            save_state(directory, state)
        # The games are in the data file: a checkpoint left beside it is done with.
        games_partial.unlink(missing_ok=True)
        if "fit" in pending:
            new, kept = _pending_fit(directory, pending)
            log(f"generation {gen}: fitted before the stop, on {kept['positions']} positions")
        else:
            started = time.monotonic()
            window = [
                directory / "data" / f"gen-{g:04d}.jsonl.gz"
                for g in range(max(1, gen - config.window + 1), gen + 1)
            ]
            samples = [s for path in window for s in load_samples(path)]
            log(f"generation {gen}: fitting on {len(samples)} positions")
            new, before, after = fit(samples, best, log, config.ridge)
            kept = {
                "positions": len(samples),
                "loss_before": round(before, 5),
                "loss_after": round(after, 5),
            }
            # Kept before the arena: a resumed arena plays these weights, not a new fit's.
            pending["fit"] = {"weights": new.to_json(), **kept}
            pending["seconds"] = float(pending["seconds"]) + time.monotonic() - started
            state["pending"] = pending
            save_state(directory, state)
        score, games, arena_seconds = _gate(
            new, best, config, seed, workers, arena_partial, gen, log
        )
        accepted = score >= GATE_SCORE
        if accepted:
            state["best"] = new.to_json()
        spent = float(pending["seconds"]) + arena_seconds
        state["seconds"] = float(str(state["seconds"])) + spent
        state.pop("pending", None)
        history.append(
            {
                "generation": gen,
                "games": config.games,
                "positions": kept["positions"],
                "loss_before": kept["loss_before"],
                "loss_after": kept["loss_after"],
                "weights": new.to_json(),
                "arena_games": games,
                "arena_score": round(score, 4),
                "accepted": accepted,
                "seconds": round(spent, 1),
                "workers": workers,
            }
        )
        save_state(directory, state)
        arena_partial.unlink(missing_ok=True)
        log(
            f"generation {gen}: scored {score:.3f} against the best "
            f"({'kept' if accepted else 'dropped'})"
        )
    return state


def export(directory: Path, out: Path) -> Weights:
    """Write the run's best weights with the record of their making to ``out`` (JSON).

    Raises:
        ValueError: no run in ``directory``, or no generation was kept.
    """
    state = load_state(directory)
    if not state:
        raise ValueError(f"{directory}: no tuning run here")
    history = state.get("history")
    if not isinstance(history, list) or not any(h.get("accepted") for h in history):
        raise ValueError(f"{directory}: no generation has beaten the hand-set weights yet")
    best = _weights_of(state, "best")
    seconds = float(str(state.get("seconds", 0.0)))
    record = {
        "weights": best.to_json(),
        "digest": best.digest,
        "command": state.get("command", ""),
        "config": state.get("config"),
        "generations": history,
        "held": list(HELD),
        "hours": round(seconds / 3600.0, 3),
        "workers": state.get("workers"),
    }
    out.write_text(json.dumps(record, indent=1, sort_keys=True) + "\n")
    return best
