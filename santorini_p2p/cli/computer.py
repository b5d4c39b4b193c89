"""``analyse``, ``arena`` and ``train``: the computer player on the command line."""

from __future__ import annotations

import argparse
import json
from pathlib import Path
from typing import TYPE_CHECKING

from santorini_p2p.cli.common import (
    Subparsers,
    UsageError,
    add_pool_option,
    command_age,
    god_pool,
    position_arg,
    progress,
    think,
)
from santorini_p2p.engine import Position, format_position

if TYPE_CHECKING:
    from santorini_p2p.ai import Analysis
    from santorini_p2p.study.arena import GameRecord

__all__ = ["add_commands"]


def _analysis_json(p: Position, level: str, a: Analysis) -> str:
    return json.dumps(
        {
            "position": format_position(p),
            "level": level,
            "best": str(a.best),
            "win": round(a.win, 4),
            "mate": a.mate,
            "result": a.result,
            "score": a.score,
            "depth": a.depth,
            "nodes": a.nodes,
            "pv": [str(x) for x in a.pv],
        }
    )


EXIT_S = 0.05
"""Seconds kept from ``analyse --think`` for printing the answer and the process's exit."""

LEAST_S = 0.01
"""The least search ``analyse --think`` makes when its start-up took the whole budget."""


def search_budget(seconds: float | None, age: float) -> float | None:
    """The search's share of ``--think seconds`` for a command ``age`` seconds old.

    A program that gives the command S seconds a move times the whole process: its start-up
    (the interpreter, the imports, reading the position) and its exit count against S, not
    the search alone.
    """
    if seconds is None:
        return None
    return max(seconds - age - EXIT_S, LEAST_S)


def _cmd_analyse(args: argparse.Namespace) -> int:
    from santorini_p2p.ai import analyse

    p = position_arg(args.position)
    think(args.think)
    if args.nodes is not None and args.nodes < 1:
        raise UsageError(f"nodes: expected a whole number of at least 1, got {args.nodes}")
    budget = search_budget(args.think, command_age())
    try:
        a = analyse(p, args.level, think=budget, nodes=args.nodes)
    except ValueError as e:
        raise UsageError(str(e)) from None
    if args.json:
        print(_analysis_json(p, args.level, a))
        return 0
    if a.forced is not None:
        # Counted in the mover's own turns, as the JSON's "result" ("mate" counts plies).
        n = abs(a.forced)
        value = f"forced {'win' if a.forced > 0 else 'loss'} in {n} turn{'s' if n != 1 else ''}"
    else:
        value = f"win probability {a.win:.0%} (score {a.score:+d})"
    print(f"evaluation: {value} for seat {p.to_move + 1}")
    print(f"depth: {a.depth}  nodes: {a.nodes}")
    print("line: " + " ".join(str(x) for x in a.pv))
    print(a.best)
    return 0


def _save_game(directory: str, record: GameRecord) -> None:
    """Write one arena game as a replay file (the signed log) into ``directory``."""
    from santorini_p2p.study.arena import signed_log
    from santorini_p2p.wire.log import encode_frames

    path = Path(directory) / f"game-{record.spec.index + 1:04d}.sntr"
    path.write_bytes(encode_frames(signed_log(record)))


def _cmd_arena(args: argparse.Namespace) -> int:
    import os

    from santorini_p2p.study.arena import elo_text, run, schedule, tally

    if args.games < 1:
        raise UsageError(f"games: expected a whole number of at least 1, got {args.games}")
    think(args.think)
    jobs = args.jobs if args.jobs is not None else (os.cpu_count() or 1)
    if jobs < 1:
        raise UsageError(f"jobs: expected a whole number of at least 1, got {jobs}")
    a, b = args.levels
    pool = god_pool(args)
    try:
        specs = schedule(
            a,
            b,
            args.games,
            players=args.players,
            gods=args.gods,
            seed=args.seed,
            think=args.think,
            nodes=args.nodes,
            pool=pool,
        )
    except ValueError as e:
        raise UsageError(str(e)) from None
    if args.save is not None:
        try:
            Path(args.save).mkdir(parents=True, exist_ok=True)
        except OSError as e:
            raise UsageError(f"save: cannot create {args.save!r}: {e.strerror}") from None
    records: list[GameRecord] = []
    progress(0, len(specs))
    for record in run(specs, jobs):
        records.append(record)
        if args.save is not None:
            _save_game(args.save, record)
        progress(len(records), len(specs))
    t = tally(a, b, records)
    lo, hi = t.interval
    elo_lo, elo_hi = t.elo_interval
    print(f"{'level':<8} {'games':>5} {'wins':>5} {'losses':>6} {'draws':>5} {'score':>6}  95%")
    print(
        f"{a:<8} {t.games:>5} {t.wins:>5} {t.losses:>6} {t.draws:>5} {t.score:>6.3f}"
        f"  [{lo:.3f}, {hi:.3f}]"
    )
    print(
        f"Elo difference ({a} - {b}): {elo_text(t.elo)}, "
        f"95% [{elo_text(elo_lo)}, {elo_text(elo_hi)}]"
    )
    return 0


def _cmd_train(args: argparse.Namespace) -> int:
    import os
    import shlex
    import sys
    from dataclasses import replace

    from santorini_p2p.study.train import Config, export, run, stored_config

    directory = Path(args.dir)
    options = (
        "games",
        "nodes",
        "arena_games",
        "epochs",
        "hidden",
        "gods_share",
        "outcome",
        "gate_think",
        "offset",
        "clip",
        "lr",
        "seed",
    )
    try:
        # A run that exists resumes with its own settings; options given must agree.
        base = stored_config(directory) or Config()
    except ValueError as e:
        raise UsageError(str(e)) from None
    values = {
        k: getattr(args, k) if getattr(args, k) is not None else getattr(base, k) for k in options
    }
    for name in ("games", "nodes", "arena_games", "epochs", "hidden"):
        if values[name] < 1:
            raise UsageError(
                f"{name.replace('_', '-')}: expected a whole number of at least 1, "
                f"got {values[name]}"
            )
    if args.generations < 1:
        raise UsageError(
            f"generations: expected a whole number of at least 1, got {args.generations}"
        )
    if values["gate_think"] is not None and not values["gate_think"] > 0:
        raise UsageError(f"gate-think: expected seconds above 0, got {values['gate_think']}")
    if not values["lr"] > 0:
        raise UsageError(f"lr: expected a number above 0, got {values['lr']}")
    if not values["clip"] >= 0:
        raise UsageError(f"clip: expected a number of at least 0, got {values['clip']}")
    for name in ("gods_share", "outcome"):
        if not 0.0 <= values[name] <= 1.0:
            raise UsageError(
                f"{name.replace('_', '-')}: expected a number from 0 to 1, got {values[name]}"
            )
    jobs = args.jobs if args.jobs is not None else (os.cpu_count() or 1)
    if jobs < 1:
        raise UsageError(f"jobs: expected a whole number of at least 1, got {jobs}")
    config = replace(base, **values)
    command = (
        f"santorini train {shlex.quote(args.dir)} --generations {args.generations} "
        f"--games {config.games} --nodes {config.nodes} --arena-games {config.arena_games} "
        f"--epochs {config.epochs} --hidden {config.hidden} --gods-share {config.gods_share} "
        + (f"--outcome {config.outcome} " if config.outcome != Config().outcome else "")
        + (f"--gate-think {config.gate_think} " if config.gate_think is not None else "")
        + (f"--offset {config.offset} " if config.offset != Config().offset else "")
        + (f"--lr {config.lr} " if config.lr != Config().lr else "")
        + (f"--clip {config.clip} " if config.clip != Config().clip else "")
        + f"--seed {config.seed}"
    )
    try:
        state = run(
            directory,
            args.generations,
            config,
            workers=jobs,
            scheduler=args.scheduler,
            command=command,
            log=lambda line: print(line, file=sys.stderr, flush=True),
        )
        history = state["history"]
        assert isinstance(history, list)
        for h in history:
            print(
                f"generation {h['generation']}: {h['positions']} positions, "
                f"{h['arena_score']:.3f} in {h['arena_games']} games against {h['against']}"
                f" ({'kept' if h['accepted'] else 'dropped'})"
            )
        print(f"best: {state['best'] or 'none yet'}")
        if args.export is not None:
            export(directory, Path(args.export))
            print(f"wrote {args.export}")
    except (ValueError, OSError) as e:
        raise UsageError(str(e)) from None
    return 0


def _cmd_tune(args: argparse.Namespace) -> int:
    import os
    import shlex
    import sys

    from santorini_p2p.study.tune import TuneConfig, export, run

    options = ("games", "nodes", "arena_games", "gods_share", "window", "ridge", "seed", "start")
    directory = Path(args.dir)
    stored: object = None
    state_path = directory / "state.json"
    if state_path.exists():
        try:
            stored = json.loads(state_path.read_text()).get("config")
        except (OSError, ValueError, AttributeError) as e:
            raise UsageError(f"{state_path}: not a tuning run's state ({e})") from None
    try:
        # A run that exists resumes with its own settings; options given must agree.
        base = TuneConfig(**stored) if isinstance(stored, dict) else TuneConfig()
    except TypeError as e:
        raise UsageError(f"{state_path}: not a tuning run's settings ({e})") from None
    wrong = [
        k
        for k in TuneConfig.__dataclass_fields__
        if type(getattr(base, k)) is not type(getattr(TuneConfig(), k))
        and not (isinstance(getattr(base, k), int) and isinstance(getattr(TuneConfig(), k), float))
    ]
    if wrong:
        raise UsageError(f"{state_path}: not a tuning run's settings (bad {', '.join(wrong)})")
    values = {
        k: getattr(args, k) if getattr(args, k) is not None else getattr(base, k) for k in options
    }
    for name in ("games", "nodes", "arena_games", "window", "generations"):
        value = args.generations if name == "generations" else values[name]
        if value < 1:
            raise UsageError(
                f"{name.replace('_', '-')}: expected a whole number of at least 1, got {value}"
            )
    if not 0.0 <= values["ridge"] < 1e6:
        raise UsageError(f"ridge: expected a number from 0 up, got {values['ridge']}")
    if not 0.0 <= values["gods_share"] <= 1.0:
        raise UsageError(f"gods-share: expected a number from 0 to 1, got {values['gods_share']}")
    jobs = args.jobs if args.jobs is not None else (os.cpu_count() or 1)
    if jobs < 1:
        raise UsageError(f"jobs: expected a whole number of at least 1, got {jobs}")
    config = TuneConfig(
        **{**{k: getattr(base, k) for k in TuneConfig.__dataclass_fields__}, **values}
    )
    command = (
        f"santorini tune {shlex.quote(args.dir)} --generations {args.generations} "
        f"--games {config.games} --nodes {config.nodes} --arena-games {config.arena_games} "
        f"--gods-share {config.gods_share} --window {config.window} --ridge {config.ridge} "
        f"--seed {config.seed} --start {config.start}"
    )
    try:
        state = run(
            directory,
            args.generations,
            config,
            workers=jobs,
            command=command,
            log=lambda line: print(line, file=sys.stderr, flush=True),
        )
        history = state["history"]
        assert isinstance(history, list)
        for h in history:
            print(
                f"generation {h['generation']}: {h['positions']} positions, log loss "
                f"{h['loss_before']:.4f} -> {h['loss_after']:.4f}, {h['arena_score']:.3f} in "
                f"{h['arena_games']} games against the best "
                f"({'kept' if h['accepted'] else 'dropped'})"
            )
        print(f"best: {json.dumps(state['best'], sort_keys=True)}")
        if args.export is not None:
            export(directory, Path(args.export))
            print(f"wrote {args.export}")
    except (ValueError, OSError) as e:
        raise UsageError(str(e)) from None
    return 0


def add_commands(sub: Subparsers) -> None:
    """Add ``analyse``, ``arena``, ``train`` and ``tune``."""
    from santorini_p2p.ai.search import STUDY_LEVELS as LEVELS

    p = sub.add_parser(
        "analyse",
        help="find the best turn and evaluate a position",
        description="Search a position: print its evaluation (a win probability or a forced "
        "win or loss in N turns), the depth reached and the best line. The last line is the "
        "best turn's text. N counts the mover's own turns (win in 1: a winning turn now; loss "
        "in 1: every turn lets the opponent win at once) and is exact up to 3, proved by a "
        "complete search; a forced win's best turn wins.",
    )
    p.add_argument("position", help="a position string")
    p.add_argument("--level", choices=LEVELS, default="hard", help="search level (default hard)")
    p.add_argument(
        "--think",
        type=float,
        metavar="S",
        help="seconds to search (default: up to 5 proving forced results, then 2)",
    )
    p.add_argument("--nodes", type=int, metavar="N", help="node budget (repeatable results)")
    p.add_argument(
        "--json",
        action="store_true",
        help='print {"best", "win", "mate", "result", "score", "depth", "nodes", "pv", ...}: '
        '"result" is "win in N", "loss in N" or null; "mate" counts plies (+ wins, - loses)',
    )
    p.set_defaults(handler=_cmd_analyse)

    p = sub.add_parser(
        "arena",
        help="play computer against computer and measure the difference",
        description="Play LEVEL against LEVEL locally with the seats swapped, over several "
        "processes; print wins, losses, the score and the Elo difference, each with its 95% "
        "interval. --save writes each game as a replay file (santorini replay show/verify).",
    )
    p.add_argument("levels", nargs=2, choices=LEVELS, metavar="LEVEL", help=", ".join(LEVELS))
    p.add_argument("--games", type=int, default=20, help="number of games (default 20)")
    p.add_argument("--players", type=int, choices=(2, 3, 4), default=2, help="players (2)")
    p.add_argument(
        "--gods",
        choices=("none", "random", "draft", "challenger"),
        default="none",
        help="how gods are chosen (default none)",
    )
    add_pool_option(p)
    p.add_argument("--seed", type=int, default=0, help="seed of the games (default 0)")
    p.add_argument("--jobs", type=int, help="processes (default: the number of cores)")
    p.add_argument("--think", type=float, metavar="S", help="seconds a turn (default: level's)")
    p.add_argument(
        "--nodes", type=int, metavar="N", help="node budget a turn (a smaller level budget stays)"
    )
    p.add_argument("--save", metavar="DIR", help="write each game to DIR/game-NNNN.sntr")
    p.set_defaults(handler=_cmd_arena)

    p = sub.add_parser(
        "train",
        help="train the computer's evaluation by self-play",
        description="Run or resume a training run in DIR: each generation the best player "
        "plays itself, a network is trained on the last generations' positions, and it "
        "becomes the best only if it beats the best in the arena. Stop it at any moment and "
        "run it again to resume (with the run's own settings; options given must agree with "
        "them): every finished game is kept, and only the games still missing are played; "
        "--export writes the best network, with the record of its making, for "
        "santorini_p2p/ai/weights. Levels 'learned' (hard's search with the network) and "
        "'hard' "
        "play the games. Needs only numpy; --scheduler spreads self-play over a Dask cluster "
        "(pip install 'santorini-p2p[train]').",
    )
    p.add_argument("dir", help="the run's directory (made if missing)")
    # The settings' defaults are the run's own when it exists (Config's for a new run).
    p.add_argument("--generations", type=int, default=1, help="generations to reach (1)")
    p.add_argument("--games", type=int, help="self-play games a generation (200)")
    p.add_argument("--nodes", type=int, help="search nodes a turn (800)")
    p.add_argument("--arena-games", type=int, help="gating games (40)")
    p.add_argument("--epochs", type=int, help="training epochs (6)")
    p.add_argument("--hidden", type=int, help="hidden units a layer (128)")
    p.add_argument("--gods-share", type=float, help="share of games with a god pair (0.5)")
    p.add_argument(
        "--gate-think",
        type=float,
        metavar="S",
        help="gate at equal time, S seconds a turn (default: at equal nodes)",
    )
    p.add_argument(
        "--outcome",
        type=float,
        help="weight of the game's result in the value target, the rest the search's (0.5)",
    )
    p.add_argument(
        "--offset",
        choices=("classic", "shipped"),
        help="the hand-written evaluation the net learns a correction to: the hand-set "
        "weights or the package's fitted ones (classic)",
    )
    p.add_argument("--lr", type=float, help="the training's learning rate (0.001)")
    p.add_argument(
        "--clip",
        type=float,
        help="scale each training step's gradient down to this norm, 0: never (1.0; a run "
        "begun before this option resumes with 0)",
    )
    p.add_argument("--seed", type=int, help="seed of the run (1)")
    p.add_argument("--jobs", type=int, help="processes (default: the number of cores)")
    p.add_argument("--scheduler", metavar="ADDR", help="a Dask scheduler's address")
    p.add_argument("--export", metavar="FILE", help="write the best network to FILE (.npz)")
    p.set_defaults(handler=_cmd_train)

    p = sub.add_parser(
        "tune",
        help="fit the evaluation's weights to self-play results",
        description="Run or resume a tuning run in DIR: each generation hard plays itself with "
        "the best weights so far (at first the hand-set ones, or with --start shipped the "
        "package's), the evaluation's weights are "
        "fitted to the results of the last generations' games, and the fitted weights become "
        "the best only if they beat the best in the arena at equal nodes. Run it again to "
        "resume (with the run's own settings; options given must agree with them); --export "
        "writes the best weights, with the record of their making, for "
        "santorini_p2p/ai/weights/eval-v1.json. Needs only numpy.",
    )
    p.add_argument("dir", help="the run's directory (made if missing)")
    p.add_argument("--generations", type=int, default=1, help="generations to reach (1)")
    p.add_argument("--games", type=int, help="self-play games a generation (1000)")
    p.add_argument("--nodes", type=int, help="search nodes a turn (1500)")
    p.add_argument("--arena-games", type=int, help="gating games (200)")
    p.add_argument("--gods-share", type=float, help="share of games with a god pair (0.5)")
    p.add_argument("--window", type=int, help="generations of games a fit reads (3)")
    p.add_argument(
        "--ridge", type=float, help="how strongly a fit is held to its starting weights (0.001)"
    )
    p.add_argument("--seed", type=int, help="seed of the run (1)")
    p.add_argument(
        "--start",
        choices=("classic", "shipped"),
        help="the weights a new run starts from: the hand-set ones or the package's (classic)",
    )
    p.add_argument("--jobs", type=int, help="processes (default: the number of cores)")
    p.add_argument("--export", metavar="FILE", help="write the best weights to FILE (.json)")
    p.set_defaults(handler=_cmd_tune)
