"""Training the learned evaluation from this project's own self-play, with gating.

One generation of a run: the current best player (hard's search with the best net so far, or
``hard``, on the hand-written evaluation, before there is one) plays itself (``selfplay``, over all
cores, or over a Dask cluster); a net is trained on the last generations' positions
(``fit``: numpy, no training framework); it plays the best in the arena (``gate``) and
becomes the best only if it scores at least ``GATE_SCORE``.

A run lives in one directory and resumes where it stopped: ``data/gen-NNNN.jsonl.gz`` (the
games' positions), ``nets/gen-NNNN.npz`` (each trained net) and ``state.json`` (the settings,
the best net and every generation's record). ``export`` writes the best net with its record
(the command, seeds, games, positions, hours and arena results) for the package to ship.

A stop inside a generation loses at most the games being played: each finished game is
appended to a checkpoint, ``data/gen-NNNN.partial.jsonl`` for self-play and
``nets/gen-NNNN.arena.partial.jsonl`` for the arena. Its first line names what its games
depend on (the stage, generation, seeds, settings and the nets' SHA-256); each next line is one
game in order: ``{"game": i, "seed": s, "seconds": t, ...}`` with the game's ``samples`` or
its ``score`` (``t``: the stage's seconds so far, over all sessions). A game at a node budget
is a function of its seed, so a resumed stage plays the rest from their own seeds and ends
exactly as an uninterrupted one; the checkpoint goes once the stage's result is saved. A last
line cut short by the stop is dropped (its game is played again); a checkpoint of other
settings is refused, never mixed in.

Every sample is a position of a two-player game in play, the turn chosen there, the search's
score of it (for the mover) and the game's result for the mover: the value target is their
mean, so the net learns both what the games came to and what a deeper search saw.
"""

from __future__ import annotations

import gzip
import hashlib
import io
import json
import math
import random
import time
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass, replace
from pathlib import Path
from typing import Any, Final

import numpy as np

from santorini_p2p.ai.evaluate import CLASSIC, TUNED, WIN, Weights
from santorini_p2p.ai.net import (
    F32,
    Net,
    encode,
    feature_count,
    hand_offsets,
    symmetries,
    turn_indices,
)
from santorini_p2p.ai.search import choose_action, find_level, play_turn
from santorini_p2p.engine import (
    Phase,
    Position,
    apply_action,
    format_position,
    new_game,
    parse_position,
    parse_turn,
)
from santorini_p2p.engine.gods import ALL_GOD_NAMES
from santorini_p2p.engine.gods.bans import ban_reason
from santorini_p2p.study.jobs import decode_score, locked, map_jobs, play_games

__all__ = [
    "GATE_SCORE",
    "OFFSETS",
    "Config",
    "Sample",
    "clipped",
    "decode_samples",
    "export",
    "fit",
    "gate",
    "load_samples",
    "load_state",
    "map_jobs",
    "run",
    "save_state",
    "selfplay",
    "selfplay_game",
    "selfplay_start",
    "stored_config",
]

GATE_SCORE: Final = 0.55
"""A new net becomes the best only if it scores this much against the best in the arena."""
MAX_PLIES: Final = 200
"""A self-play game this long (it cannot happen by the rules) is a draw."""
_MATE: Final = WIN - 1000
BEFORE: Final[dict[str, object]] = {"clip": 0.0}
"""The settings a run made before they existed had: such a run resumes with these."""
OFFSETS: Final = {"classic": CLASSIC, "shipped": TUNED}
"""The hand-written evaluations a residual net may correct, by name (``Config.offset``)."""

Sample = tuple[str, str, int, int]
"""A position string, the turn played there, the search's score and the result (+1/0/-1)."""


@dataclass(frozen=True, slots=True)
class Config:
    """A run's settings: every number that decides what it makes, and so its record."""

    games: int = 200
    """Self-play games a generation."""
    nodes: int = 800
    """The search's node budget a turn, in self-play and the arena."""
    noise_plies: int = 8
    """The first turns of each self-play game chosen with root noise (for varied games)."""
    gods_share: float = 0.5
    """The share of games with a random pair of gods (the rest are the base game)."""
    arena_games: int = 40
    """Gating games a generation (seats swapped, each pair on one seed)."""
    window: int = 4
    """Train on the positions of this many last generations."""
    epochs: int = 6
    hidden: int = 128
    batch: int = 256
    lr: float = 1e-3
    clip: float = 1.0
    """Each training step's gradient is scaled down to at most this norm (0: never): without
    it a long fit can blow up (every value pinned at +-1)."""
    seed: int = 1
    residual: bool = True
    """Learn a correction to the hand-written evaluation rather than a value from nothing."""
    outcome: float = 0.5
    """The weight of the game's result in the value target (the rest: the search's score)."""
    offset: str = "classic"
    """The hand-written evaluation a residual net corrects (``OFFSETS``): ``classic`` (the
    hand-set weights) or ``shipped`` (the package's fitted ones, which ``hard`` plays)."""
    gate_think: float | None = None
    """Gate at equal time (seconds a turn) rather than at ``nodes`` a turn: a net must then
    pay for its own cost."""


# -- self-play ---------------------------------------------------------------------------------

_NETS: dict[bytes, Net] = {}
"""In a worker process: the nets it has decoded, by their bytes (a few at most)."""


def _net(weights: bytes | None) -> Net | None:
    if weights is None:
        return None
    net = _NETS.get(weights)
    if net is None:
        if len(_NETS) >= 4:
            _NETS.clear()
        net = _NETS[weights] = Net.from_bytes(weights)
    return net


def selfplay_start(rng: random.Random, gods_share: float) -> Position:
    """A two-player game: the base game, or (``gods_share`` of the time) a random god pair.

    A pair that may not play together (``ban_reason``: Nemesis with Hippolyta, say) is drawn
    again, so no game of a run stops on a refused pair.
    """
    if rng.random() < gods_share:
        pair = tuple(rng.sample(ALL_GOD_NAMES, 2))
        while ban_reason(pair) is not None:
            pair = tuple(rng.sample(ALL_GOD_NAMES, 2))
        return new_game(2, "random", drawn=pair)
    return new_game(2)


def _target_value(score: int) -> float:
    """A search score as a value in [-1, 1] (300 score units ~ a 73% win chance)."""
    if score > _MATE:
        return 1.0
    if score < -_MATE:
        return -1.0
    return math.tanh(score / 600.0)


def selfplay_game(
    seed: int, weights: bytes | None, nodes: int, noise_plies: int, gods_share: float
) -> list[Sample]:
    """Play one game of the best player against itself; return its samples.

    ``weights`` is the best net (``learned`` plays with it; None: ``hard`` plays).
    """
    rng = random.Random(seed)
    net = _net(weights)
    level = find_level("learned" if net is not None else "hard")
    noisy = replace(level, noise=150)
    p = selfplay_start(rng, gods_share)
    seen: list[tuple[str, str, int, int]] = []
    plies = 0
    while p.phase is not Phase.OVER and plies < MAX_PLIES:
        if p.phase is not Phase.PLAY:
            p = apply_action(p, choose_action(p, "hard", rng=rng))
            continue
        lv = noisy if plies < noise_plies else level
        found = play_turn(p, lv, rng=rng, nodes=nodes, net=net)
        turn, score = found.best, found.score
        seen.append((format_position(p), str(turn), score, p.to_move))
        p = apply_action(p, turn)
        plies += 1
    out: list[Sample] = []
    for text, turn_text, score, mover in seen:
        result = 0 if p.winner < 0 or p.winner > 1 else (1 if p.winner == mover else -1)
        out.append((text, turn_text, score, result))
    return out


def _selfplay_star(args: tuple[int, bytes | None, int, int, float]) -> list[Sample]:
    return selfplay_game(*args)


def _sha256(data: bytes | None) -> str | None:
    return None if data is None else hashlib.sha256(data).hexdigest()


def decode_samples(value: Any) -> list[Sample]:
    """A game's samples as a checkpoint keeps them (JSON lists).

    Raises:
        ValueError: not a list of samples.
    """
    if not isinstance(value, list):
        raise ValueError("no samples")
    out: list[Sample] = []
    for item in value:
        text, turn, score, result = item
        if not (isinstance(text, str) and isinstance(turn, str)):
            raise ValueError(f"not a sample: {item!r}")
        out.append((text, turn, int(score), int(result)))
    return out


def _selfplay(
    weights: bytes | None,
    games: int,
    config: Config,
    seed: int,
    workers: int,
    scheduler: str | None = None,
    progress: Callable[[int, int], None] | None = None,
    checkpoint: Path | None = None,
    generation: int | None = None,
    log: Callable[[str], None] | None = None,
) -> tuple[list[Sample], float]:
    seeds = [seed * 1_000_003 + i for i in range(games)]
    jobs = [(s, weights, config.nodes, config.noise_plies, config.gods_share) for s in seeds]
    settings: dict[str, object] = {
        "seed": seed,
        "games": games,
        "nodes": config.nodes,
        "noise_plies": config.noise_plies,
        "gods_share": config.gods_share,
        "weights": _sha256(weights),
    }
    per_game, seconds = play_games(
        "self-play",
        generation,
        _selfplay_star,
        jobs,
        seeds,
        workers=workers,
        scheduler=scheduler,
        checkpoint=checkpoint,
        settings=settings,
        field="samples",
        decode=decode_samples,
        log=log,
        progress=progress,
    )
    return [s for samples in per_game for s in samples], seconds


def selfplay(
    weights: bytes | None,
    games: int,
    config: Config,
    seed: int,
    workers: int,
    scheduler: str | None = None,
    progress: Callable[[int, int], None] | None = None,
    checkpoint: Path | None = None,
    log: Callable[[str], None] | None = None,
) -> list[Sample]:
    """Play ``games`` self-play games from ``seed`` on; return all their samples in order.

    With ``checkpoint``, each finished game is appended to that file, and the games already
    there (played with the same settings) are not played again.

    Raises:
        ValueError: a checkpoint of other settings or a damaged one; a Dask scheduler that is
            not there.
    """
    return _selfplay(
        weights, games, config, seed, workers, scheduler, progress, checkpoint, log=log
    )[0]


def save_samples(path: Path, samples: Iterable[Sample]) -> None:
    """Write samples as gzipped JSON lines (atomically: a stopped write leaves nothing)."""
    tmp = path.with_suffix(".tmp")
    # No time in the gzip header: the same games make the same bytes.
    with (
        gzip.GzipFile(tmp, "wb", mtime=0) as raw,
        io.TextIOWrapper(raw, encoding="utf-8") as f,
    ):
        for s in samples:
            f.write(json.dumps(s) + "\n")
    tmp.replace(path)


def load_samples(path: Path) -> list[Sample]:
    """Read samples written by ``save_samples``.

    Raises:
        ValueError: a line that is not a sample (naming the file and line).
    """
    out: list[Sample] = []
    with gzip.open(path, "rt", encoding="utf-8") as f:
        for n, line in enumerate(f, 1):
            try:
                text, turn, score, result = json.loads(line)
                out.append((str(text), str(turn), int(score), int(result)))
            except (ValueError, TypeError) as e:
                raise ValueError(f"{path}:{n}: not a sample ({e})") from None
    return out


# -- training ----------------------------------------------------------------------------------


@dataclass(slots=True)
class Dataset:
    """Samples as arrays: inputs, value targets and the three prior targets (square indices)."""

    x: F32
    value: F32
    policy: np.ndarray
    god_positions: dict[str, int]
    offset: F32
    """The hand-written evaluation of each position for its mover, over 600."""


def to_dataset(
    samples: Sequence[Sample],
    gods: dict[str, int],
    outcome: float = 0.5,
    weights: Weights = CLASSIC,
) -> Dataset:
    """Encode samples for training (in chunks, to bound memory).

    The value target is ``outcome`` times the game's result plus the rest times the search's
    score (as a value); the offset is the hand-written evaluation with ``weights``.
    """
    xs: list[F32] = []
    offsets: list[F32] = []
    values = np.empty(len(samples), dtype=np.float32)
    policy = np.empty((len(samples), 3), dtype=np.int64)
    counts: dict[str, int] = {}
    chunk: list[Position] = []
    for i, (text, turn, score, result) in enumerate(samples):
        p = parse_position(text)
        chunk.append(p)
        for g in set(p.gods):
            if g:
                counts[g] = counts.get(g, 0) + 1
        values[i] = (1.0 - outcome) * _target_value(score) + outcome * result
        policy[i] = turn_indices(parse_turn(turn))
        if len(chunk) == 4096:
            xs.append(encode(chunk, gods))
            offsets.append(hand_offsets(chunk, weights)[0])
            chunk = []
    if chunk:
        xs.append(encode(chunk, gods))
        offsets.append(hand_offsets(chunk, weights)[0])
    x = np.concatenate(xs) if xs else np.zeros((0, feature_count(len(gods))), np.float32)
    offset = np.concatenate(offsets) if offsets else np.zeros(0, np.float32)
    return Dataset(x, values, policy, counts, offset)


def clipped(grads: list[F32], norm: float) -> list[F32]:
    """``grads`` scaled down together so that their joint norm is at most ``norm`` (0: as is)."""
    if norm <= 0:
        return grads
    total = math.sqrt(sum(float((g * g).sum()) for g in grads))
    if total <= norm:
        return grads
    return [(g * (norm / total)).astype(np.float32) for g in grads]


def _init(n_in: int, hidden: int, rng: np.random.Generator) -> list[F32]:
    def he(a: int, b: int) -> F32:
        return (rng.standard_normal((a, b)) * math.sqrt(2.0 / a)).astype(np.float32)

    return [
        he(n_in, hidden),
        np.zeros(hidden, np.float32),
        he(hidden, hidden),
        np.zeros(hidden, np.float32),
        (he(hidden, 1) * 0.1).astype(np.float32),
        np.zeros(1, np.float32),
        (he(hidden, 75) * 0.1).astype(np.float32),
        np.zeros(75, np.float32),
    ]


def _params(net: Net) -> list[F32]:
    (w0, b0), (w1, b1) = net.layers
    return [w0, b0, w1, b1, net.value[0], net.value[1], net.policy[0], net.policy[1]]


def _softmax3(logits: F32) -> F32:
    """Softmax over each of the three 25-wide heads."""
    z = logits.reshape(-1, 3, 25)
    z = z - z.max(axis=2, keepdims=True)
    e = np.exp(z)
    out: F32 = (e / e.sum(axis=2, keepdims=True)).reshape(-1, 75).astype(np.float32)
    return out


def fit(
    data: Dataset,
    gods: dict[str, int],
    config: Config,
    seed: int,
    start: Net | None = None,
    log: Callable[[str], None] | None = None,
) -> Net:
    """Train a net on ``data`` (Adam, each batch under a random board symmetry).

    ``start`` is continued from when it has the same shape; else the weights start afresh.
    """
    rng = np.random.default_rng(seed)
    n_in = data.x.shape[1]
    fits = start is not None and start.layers[0][0].shape == (n_in, config.hidden)
    same = start is not None and start.offset == OFFSETS[config.offset]
    if start is not None and fits and same and start.residual == config.residual:
        params = [a.copy() for a in _params(start)]
    else:
        params = _init(n_in, config.hidden, rng)
    m = [np.zeros_like(a) for a in params]
    v = [np.zeros_like(a) for a in params]
    sym = symmetries(len(gods))
    inverse = [np.argsort(pol) for _, pol in sym]
    n = len(data.value)
    step = 0
    b1, b2, eps = 0.9, 0.999, 1e-8
    for epoch in range(config.epochs):
        order = rng.permutation(n)
        lr = config.lr * (0.5 * (1 + math.cos(math.pi * epoch / max(1, config.epochs))))
        total_v = total_p = 0.0
        for lo in range(0, n, config.batch):
            idx = order[lo : lo + config.batch]
            k = int(rng.integers(8))
            perm, _ = sym[k]
            x = data.x[idx][:, perm]
            y = data.value[idx]
            target = inverse[k][data.policy[idx]]
            w0, c0, w1, c1, wv, cv, wp, cp = params
            a0 = x @ w0 + c0
            h0 = np.maximum(a0, 0)
            a1 = h0 @ w1 + c1
            h1 = np.maximum(a1, 0)
            z = (h1 @ wv + cv)[:, 0]
            if config.residual:
                z = z + data.offset[idx]
            out_v = np.tanh(z)
            probs = _softmax3(h1 @ wp + cp)
            bs = len(idx)
            rows = np.arange(bs)
            total_v += float(((out_v - y) ** 2).sum())
            total_p += float(-np.log(probs[rows[:, None], target] + 1e-9).sum())
            d_v = (2.0 * (out_v - y) * (1 - out_v**2) / bs)[:, None].astype(np.float32)
            d_p = probs.copy()
            d_p[rows[:, None], target] -= 1.0
            d_p *= 0.5 / bs
            grads_wv = h1.T @ d_v
            grads_wp = h1.T @ d_p
            d_h1 = (d_v @ wv.T + d_p @ wp.T) * (a1 > 0)
            grads_w1 = h0.T @ d_h1
            d_h0 = (d_h1 @ w1.T) * (a0 > 0)
            grads_w0 = x.T @ d_h0
            grads = [
                grads_w0,
                d_h0.sum(axis=0),
                grads_w1,
                d_h1.sum(axis=0),
                grads_wv,
                d_v.sum(axis=0),
                grads_wp,
                d_p.sum(axis=0),
            ]
            step += 1
            grads = clipped(grads, config.clip)
            for i, g in enumerate(grads):
                if params[i].ndim == 2:
                    g = g + 1e-4 * params[i]
                m[i] = b1 * m[i] + (1 - b1) * g
                v[i] = b2 * v[i] + (1 - b2) * g * g
                mh = m[i] / (1 - b1**step)
                vh = v[i] / (1 - b2**step)
                params[i] = (params[i] - lr * mh / (np.sqrt(vh) + eps)).astype(np.float32)
        if log is not None and n:
            log(f"epoch {epoch + 1}: value mse {total_v / n:.4f}, prior loss {total_p / n:.3f}")
    w0, c0, w1, c1, wv, cv, wp, cp = params
    return Net(
        [(w0, c0), (w1, c1)],
        (wv, cv),
        (wp, cp),
        dict(gods),
        dict(data.god_positions),
        residual=config.residual,
        offset=OFFSETS[config.offset],
    )


# -- gating ------------------------------------------------------------------------------------


def _arena_game(
    args: tuple[int, bytes, bytes | None, int | None, float, int, float | None],
) -> float:
    """One gating game: the new net's score (1, 0.5 or 0) from seat ``new_seat``."""
    seed, new, old, nodes, gods_share, new_seat, think = args
    rng = random.Random(seed)
    nets = {new_seat: _net(new), 1 - new_seat: _net(old)}
    p = selfplay_start(rng, gods_share)
    plies = 0
    while p.phase is not Phase.OVER and plies < MAX_PLIES:
        if p.phase is not Phase.PLAY:
            p = apply_action(p, choose_action(p, "hard", rng=rng))
            continue
        net = nets[p.to_move]
        level = find_level("learned" if net is not None else "hard")
        turn = play_turn(p, level, rng=rng, nodes=nodes, think=think, net=net).best
        p = apply_action(p, turn)
        plies += 1
    if p.winner not in (0, 1):
        return 0.5
    return 1.0 if p.winner == new_seat else 0.0


def _gate(
    new: bytes,
    old: bytes | None,
    config: Config,
    seed: int,
    workers: int,
    think: float | None = None,
    checkpoint: Path | None = None,
    generation: int | None = None,
    log: Callable[[str], None] | None = None,
) -> tuple[float, int, float]:
    nodes = None if think is not None else config.nodes
    seeds = [seed * 7919 + i // 2 for i in range(config.arena_games)]
    jobs = [(s, new, old, nodes, config.gods_share, i % 2, think) for i, s in enumerate(seeds)]
    settings: dict[str, object] = {
        "seed": seed,
        "games": config.arena_games,
        "nodes": nodes,
        "think": think,
        "gods_share": config.gods_share,
        "new": _sha256(new),
        "old": _sha256(old),
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
    new: bytes,
    old: bytes | None,
    config: Config,
    seed: int,
    workers: int,
    think: float | None = None,
    checkpoint: Path | None = None,
    log: Callable[[str], None] | None = None,
) -> tuple[float, int]:
    """Play the new net against the old (None: ``hard``); its score and the games.

    Each side searches ``config.nodes`` nodes a turn, or ``think`` seconds when given (equal
    time: the net's search sees fewer nodes). With ``checkpoint``, each game's score is
    appended to that file, and the games already there are not played again.

    Raises:
        ValueError: a checkpoint of other settings or other nets, or a damaged one.
    """
    score, games, _ = _gate(new, old, config, seed, workers, think, checkpoint, log=log)
    return score, games


# -- the run -----------------------------------------------------------------------------------


def load_state(directory: Path) -> dict[str, object]:
    """A run's ``state.json`` (``{}`` when there is none yet); shared with ``study.tune``.

    Raises:
        ValueError: a damaged state file, naming it.
    """
    path = directory / "state.json"
    if not path.exists():
        return {}
    try:
        state = json.loads(path.read_text())
    except (OSError, ValueError) as e:
        raise ValueError(f"{path}: cannot read the run's state ({e})") from None
    if not isinstance(state, dict):
        raise ValueError(f"{path}: not a run's state")
    return state


def save_state(directory: Path, state: dict[str, object]) -> None:
    """Replace a run's ``state.json`` with ``state`` in one step (never half written)."""
    tmp = directory / "state.tmp"
    tmp.write_text(json.dumps(state, indent=1, sort_keys=True))
    tmp.replace(directory / "state.json")


def stored_config(directory: Path) -> Config | None:
    """The settings of the run in ``directory``, or None when there is none yet.

    Raises:
        ValueError: a damaged run directory.
    """
    state = load_state(directory)
    if not state:
        return None
    stored = state.get("config")
    if not isinstance(stored, dict):
        raise ValueError(f"{directory / 'state.json'}: no settings in the run's state")
    known = {k: v for k, v in {**BEFORE, **stored}.items() if k in Config.__dataclass_fields__}
    try:
        return Config(**known)
    except TypeError as e:
        raise ValueError(f"{directory / 'state.json'}: bad settings ({e})") from None


def run(
    directory: Path,
    generations: int,
    config: Config,
    *,
    workers: int = 1,
    scheduler: str | None = None,
    command: str = "",
    log: Callable[[str], None] = lambda _: None,
) -> dict[str, object]:
    """Run (or resume) a training run in ``directory`` up to ``generations`` generations.

    The settings are the run's own from its first start: resuming with others is refused.

    Raises:
        ValueError: a run made with other settings, a damaged run directory, or one that
            another process is running.
    """
    (directory / "data").mkdir(parents=True, exist_ok=True)
    (directory / "nets").mkdir(exist_ok=True)
    with locked(directory):
        return _run(directory, generations, config, workers, scheduler, command, log)


def _run(
    directory: Path,
    generations: int,
    config: Config,
    workers: int,
    scheduler: str | None,
    command: str,
    log: Callable[[str], None],
) -> dict[str, object]:
    if config.offset not in OFFSETS:
        raise ValueError(f"offset: expected one of {', '.join(OFFSETS)}, got {config.offset!r}")
    state = load_state(directory)
    settings = {k: getattr(config, k) for k in Config.__dataclass_fields__}
    # A setting added since the run began counts as it was before it existed (``BEFORE``).
    defaults = {k: getattr(Config(), k) for k in Config.__dataclass_fields__} | BEFORE
    stored = state.get("config")
    if state and (not isinstance(stored, dict) or {**defaults, **stored} != settings):
        raise ValueError(
            f"{directory}: a run made with other settings ({state.get('config')}); "
            "resume it with the same ones or start a new directory"
        )
    if not state:
        state = {
            "config": settings,
            "best": None,
            "history": [],
            "seconds": 0.0,
            "workers": workers,
        }
        if command:
            state["command"] = command
        # Kept at once: a run stopped in its first generation resumes with its settings.
        save_state(directory, state)
    gods = {name: i + 1 for i, name in enumerate(ALL_GOD_NAMES)}
    history = state["history"]
    assert isinstance(history, list)
    for gen in range(1, generations + 1):
        data_path = directory / "data" / f"gen-{gen:04d}.jsonl.gz"
        games_partial = directory / "data" / f"gen-{gen:04d}.partial.jsonl"
        arena_partial = directory / "nets" / f"gen-{gen:04d}.arena.partial.jsonl"
        if any(h["generation"] == gen for h in history):
            # Left by a stop after the generation's record was saved.
            arena_partial.unlink(missing_ok=True)
            continue
        # The seconds of this generation's finished stages in earlier sessions.
        pending: Any = state.get("pending")
        if not isinstance(pending, dict) or pending.get("generation") != gen:
            pending = {"generation": gen, "seconds": 0.0, "selfplay_seconds": None}
        best_name = state["best"]
        best = (directory / "nets" / str(best_name)).read_bytes() if best_name else None
        if not data_path.exists():
            samples, played = _selfplay(
                best,
                config.games,
                config,
                config.seed * 1000 + gen,
                workers,
                scheduler,
                checkpoint=games_partial,
                generation=gen,
                log=log,
            )
            save_samples(data_path, samples)
            pending["seconds"] = float(pending["seconds"]) + played
            pending["selfplay_seconds"] = round(played, 1)
            state["pending"] = pending
            save_state(directory, state)
        # The games are in the data file: a checkpoint left beside it is done with.
        games_partial.unlink(missing_ok=True)
        started = time.monotonic()
        window = [
            directory / "data" / f"gen-{g:04d}.jsonl.gz"
            for g in range(max(1, gen - config.window + 1), gen + 1)
        ]
        samples = [s for path in window for s in load_samples(path)]
        net_path = directory / "nets" / f"gen-{gen:04d}.npz"
        if not net_path.exists():
            log(f"generation {gen}: training on {len(samples)} positions")
            data = to_dataset(samples, gods, config.outcome, OFFSETS[config.offset])
            start = Net.from_bytes(best) if best is not None else None
            net = fit(data, gods, config, config.seed * 1000 + gen, start, log)
            net.save(net_path)
        new = net_path.read_bytes()
        pending["seconds"] = float(pending["seconds"]) + time.monotonic() - started
        state["pending"] = pending
        save_state(directory, state)
        score, games, arena_seconds = _gate(
            new,
            best,
            config,
            config.seed * 1000 + gen,
            workers,
            think=config.gate_think,
            checkpoint=arena_partial,
            generation=gen,
            log=log,
        )
        accepted = score >= GATE_SCORE
        if accepted:
            state["best"] = net_path.name
        spent = float(pending["seconds"]) + arena_seconds
        state["seconds"] = float(str(state["seconds"])) + spent
        state.pop("pending", None)
        history.append(
            {
                "generation": gen,
                "games": config.games,
                "positions": len(samples),
                "arena_games": games,
                "arena_score": round(score, 4),
                "against": best_name or "hard",
                "accepted": accepted,
                "seconds": round(spent, 1),
                # None: the games were in the run's directory before it kept their time.
                "selfplay_seconds": pending["selfplay_seconds"],
                "workers": workers,
            }
        )
        save_state(directory, state)
        arena_partial.unlink(missing_ok=True)
        log(
            f"generation {gen}: scored {score:.3f} against {best_name or 'hard'}"
            f" ({'kept' if accepted else 'dropped'})"
        )
    return state


def export(directory: Path, out: Path) -> Net:
    """Write the run's best net to ``out`` with the run's record inside it.

    The record is also written beside it, readable, as ``out`` with the suffix ``.json``.

    Raises:
        ValueError: a run with no net that passed its gate.
    """
    state = load_state(directory)
    best = state.get("best")
    if not best:
        raise ValueError(f"{directory}: no net has passed the arena yet")
    net = Net.load(directory / "nets" / str(best))
    history = state.get("history", [])
    assert isinstance(history, list)
    net.record = {
        "command": state.get("command", ""),
        "config": state.get("config"),
        "best": best,
        "generations": history,
        "games": sum(int(h["games"]) for h in history),
        "hours": round(float(str(state.get("seconds", 0.0))) / 3600, 3),
        "workers": state.get("workers"),
        "notes": state.get("notes", ""),
    }
    net.save(out)
    record = dict(net.record, weights=out.name, sha256=hashlib.sha256(out.read_bytes()).hexdigest())
    out.with_suffix(".json").write_text(json.dumps(record, indent=1, sort_keys=True) + "\n")
    return net
