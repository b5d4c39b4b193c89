#!/usr/bin/env python3
"""The computer opponent's strength table: each level against others, seats swapped.

Plays, for the base game and for random god pairs: hard against random, and each level
against the one below (200 games each by default), over worker processes, and prints wins,
losses, the score with its 95% interval and the Elo difference. ``--nodes N`` caps every
turn at N nodes (repeatable, and faster than hard's default 2 s a turn); ``--speed TURNS``
instead times hard at its default budget; ``--greedy GAMES`` plays hard against a greedy
one-ply player written here, outside the package (an opponent the search was not tuned on),
in the base game or, with ``--gods-from simple|advanced|all``, with a random pair of gods from
that set for each two games (seats swapped), or with ``--gods-from memory`` each of RULES.md
section 10's eighteen gods in turn against a random god of sections 6 to 9; ``--cli`` asks
every hard turn of those games from the ``santorini analyse --json`` command at its default
budget (``--cli-think S``: at ``--think S``), and counts illegal and late answers.
``--speed`` also prints nodes/s and depth with simple and with advanced gods.
``--compare TURNS`` is the before and after of the trained evaluation: ``hard`` (its search on
the hand-written evaluation), ``learned`` (the same search with the trained network) and
``puct`` (a PUCT tree search on the network; its nodes are expansions, each judging all of a
node's children) at the same time a turn, with depth, nodes/s and positions scored by the net
a second; ``--match learned hard --think S`` plays two against each other at equal time.
Run by hand:

    .venv/bin/python benchmarks/ai.py --games 200 --jobs 2
    .venv/bin/python benchmarks/ai.py --speed 30
    .venv/bin/python benchmarks/ai.py --greedy 200 --nodes 25000
    .venv/bin/python benchmarks/ai.py --greedy 40 --gods-from all --cli
    .venv/bin/python benchmarks/ai.py --greedy 18 --gods-from memory --cli --cli-think 1 --jobs 1
    .venv/bin/python benchmarks/ai.py --compare 20
    .venv/bin/python benchmarks/ai.py --match learned hard --gods none --think 0.5 --games 40
"""

from __future__ import annotations

import argparse
import json
import math
import random
import subprocess
import sys
import time
from concurrent.futures import ProcessPoolExecutor
from pathlib import Path

from santorini_p2p.ai import analyse, choose_action
from santorini_p2p.ai.search import find_level, play_turn
from santorini_p2p.engine import (
    Phase,
    Position,
    Turn,
    apply_action,
    ban_reason,
    find_turn,
    format_position,
    legal_actions,
    new_game,
    parse_position,
)
from santorini_p2p.engine.gods import ADVANCED, GROUP1, HEROES, MEMORY, SIMPLE
from santorini_p2p.engine.squares import NEIGHBOURS
from santorini_p2p.study.arena import GameRecord, Tally, play_game, run, schedule, tally

MATCHES = (("hard", "random"), ("easy", "random"), ("medium", "easy"), ("hard", "medium"))
GOD_SETS: dict[str, tuple[str, ...]] = {
    "none": (),
    "simple": tuple(g.name for g in SIMPLE),
    "advanced": tuple(g.name for g in ADVANCED),
    "all": tuple(g.name for g in SIMPLE + ADVANCED),
    "memory": tuple(g.name for g in MEMORY + HEROES),
}
"""The gods a benchmark game draws its pair from (``none``: the base game). With ``memory``
each two games play the next of its gods against a random 2-player god of sections 6-9."""
EARLIER: tuple[str, ...] = tuple(g.name for g in SIMPLE + ADVANCED + GROUP1 if 2 in g.players)
"""The gods of sections 6-9 that a god of ``memory`` plays against."""
LATE_S = 10.0
"""An answer of ``santorini analyse`` at its default budget slower than this is late."""
LATE_MARGIN_S = 0.5
"""With ``--cli-think S``, an answer slower than S, the command's start-up (``santorini gods``
timed before the games) and this is late."""
SANTORINI = Path(sys.executable).with_name("santorini")


def _elo_text(value: float) -> str:
    if math.isinf(value):
        return "+inf" if value > 0 else "-inf"
    return f"{value:+.0f}"


def _speed_positions(turns: int, gods: str, rng: random.Random) -> list[Position]:
    """The play positions of easy-level games: in the base game, or with gods from a set."""
    positions: list[Position] = []
    while len(positions) < turns:
        if gods in GOD_SETS and gods != "none":
            pair = tuple(rng.sample(GOD_SETS[gods], 2))
            p = new_game(2, "random", drawn=pair)
            while p.phase is not Phase.OVER and len(positions) < turns:
                if p.phase is Phase.PLAY:
                    positions.append(p)
                p = apply_action(p, choose_action(p, "easy", rng=rng, nodes=300))
            continue
        spec = schedule("easy", "easy", 1, gods=gods, seed=rng.getrandbits(32))[0]
        for text in play_game(spec).positions:
            p = parse_position(text)
            if p.phase is Phase.PLAY and len(positions) < turns:
                positions.append(p)
        if gods == "none" or gods == "random":
            break
    return positions


def _time(positions: list[Position], think: float | None) -> tuple[list[float], list[int], int]:
    """Analyse each position at hard; the seconds, depths and total nodes."""
    times: list[float] = []
    depths: list[int] = []
    nodes = 0
    for p in positions:
        started = time.monotonic()
        a = analyse(p, "hard", think=think)
        times.append(time.monotonic() - started)
        depths.append(a.depth)
        nodes += a.nodes
    return times, depths, nodes


def speed(turns: int, think: float | None) -> None:
    """Time ``hard`` at its default budget on the positions of a few easy-level games.

    Then the same with a random pair of simple gods, and of advanced gods, each game: a table
    of time a turn, depth reached and nodes/s.
    """
    rng = random.Random(2)
    positions = _speed_positions(turns, "none", rng)
    positions += _speed_positions(turns - len(positions), "random", rng)
    times, depths, nodes = _time(positions, think)
    print(
        f"hard, {len(times)} turns: mean {sum(times) / len(times):.2f} s, "
        f"max {max(times):.2f} s a turn; mean depth {sum(depths) / len(depths):.1f}; "
        f"{nodes / sum(times):.0f} nodes/s"
    )
    print(
        f"{'gods':<9} {'turns':>5} {'mean s':>7} {'max s':>6} {'depth':>6} {'min':>4} "
        f"{'nodes/s':>8}"
    )
    for gods in ("simple", "advanced"):
        times, depths, nodes = _time(_speed_positions(turns, gods, random.Random(3)), think)
        print(
            f"{gods:<9} {len(times):>5} {sum(times) / len(times):>7.2f} {max(times):>6.2f} "
            f"{sum(depths) / len(depths):>6.1f} {min(depths):>4} {nodes / sum(times):>8.0f}",
            flush=True,
        )


def compare(turns: int, think: float | None) -> None:
    """Before and after: hard (its search on the hand-written evaluation), learned (the same
    search with the trained network) and puct (a tree search on the network) on the same
    positions at the same time a turn.

    Prints, for the base game and for random pairs of simple and of advanced gods: the mean
    time a turn, the mean depth, search nodes a second and positions the net scored a second.
    """
    budget = think if think is not None else find_level("hard").think
    print(
        f"{'level':<8} {'gods':<9} {'turns':>5} {'mean s':>7} {'depth':>6} {'nodes/s':>8} "
        f"{'net evals/s':>11}"
    )
    for gods in ("none", "simple", "advanced"):
        positions = _speed_positions(turns, gods, random.Random(3))
        for level in ("hard", "learned", "puct"):
            spent = 0.0
            depth = nodes = evaluated = 0
            for p in positions:
                started = time.monotonic()
                r = play_turn(p, find_level(level), rng=random.Random(0), think=budget)
                spent += time.monotonic() - started
                depth += r.depth
                nodes += r.nodes
                evaluated += r.evaluated
            n = len(positions)
            print(
                f"{level:<8} {gods:<9} {n:>5} {spent / n:>7.2f} {depth / n:>6.1f} "
                f"{nodes / spent:>8.0f} {evaluated / spent:>11.0f}",
                flush=True,
            )


def _greedy_score(p: Position, turn: Turn, rng: random.Random) -> float:
    """One ply, no search: win at once; else climb high, build a step up for itself and
    never a third level beside an opponent's worker on the second."""
    q = apply_action(p, turn)
    if q.phase is Phase.OVER:
        return 1e9
    levels = [
        (p.ge1 >> s & 1) + (p.ge2 >> s & 1) + (p.ge3 >> s & 1) + (p.domes >> s & 1)
        for s in range(25)
    ]
    height = levels[turn.path[-1]] if turn.path else 0
    score = 10.0 * height
    side = p.side_of(p.to_move)
    opp = 0
    for i, m in enumerate(p.workers):
        if i != side:
            opp |= m
    for b in turn.builds:
        b &= 31  # an Atlas dome is flagged
        new = levels[b] + 1
        if new == height + 1 and new <= 3:
            score += 3
        if new == 3 and any(
            levels[o] == 2 for o in range(25) if opp >> o & 1 and NEIGHBOURS[o] >> b & 1
        ):
            score -= 30
    return score + rng.random()


def _ask_cli(p: Position, think: float | None = None) -> tuple[Turn | None, float, str]:
    """Ask ``santorini analyse --json`` (default budget, or ``--think``) for the best turn.

    Returns the turn (None if the answer is not a legal turn), the seconds the command took
    and what went wrong, if anything.
    """
    started = time.monotonic()
    budget = ["--think", str(think)] if think is not None else []
    done = subprocess.run(
        [str(SANTORINI), "analyse", "--json", *budget, format_position(p)],
        capture_output=True,
        text=True,
        check=False,
    )
    spent = time.monotonic() - started
    if done.returncode != 0:
        return None, spent, f"exit {done.returncode}: {done.stderr.strip()[-200:]}"
    try:
        # Read against the position, as a peer reads it (a ``+`` may be a god's placement).
        return find_turn(p, json.loads(done.stdout)["best"]), spent, ""
    except (ValueError, KeyError) as e:
        return None, spent, f"bad answer {done.stdout[-200:]!r}: {e}"


def _greedy_game(
    seed: int,
    hard_seat: int,
    nodes: int | None,
    think: float | None,
    gods: str = "none",
    cli: bool = False,
    cli_think: float | None = None,
    late: float = LATE_S,
) -> tuple[int, int, int, float, str]:
    """Play hard against the greedy player; return hard's win (1 or 0), its turns, its bad
    answers (illegal, failed or late), its slowest answer (seconds) and the gods played."""
    rng = random.Random(seed)
    pair: tuple[str, ...] = tuple(rng.sample(GOD_SETS[gods], 2)) if GOD_SETS[gods] else ()
    if gods == "memory":
        # Hard plays the god; 18 games play each of them once, 36 each in both seats.
        own = GOD_SETS[gods][(seed + 9 * hard_seat) % len(GOD_SETS[gods])]
        pair = (own, rng.choice([g for g in EARLIER if ban_reason((own, g)) is None]))
        pair = pair if hard_seat == 0 else pair[::-1]
    p = new_game(2, "random", drawn=pair) if pair else new_game(2)
    turns = bad = 0
    slowest = 0.0
    while p.phase is not Phase.OVER:
        if p.to_move == hard_seat and cli and p.phase is Phase.PLAY:
            answer, spent, error = _ask_cli(p, cli_think)
            turns += 1
            slowest = max(slowest, spent)
            legal = answer is not None
            if not legal or spent > late:
                bad += 1
                print(f"\nbad answer in {format_position(p)}: {error or answer} ({spent:.1f} s)")
            a = answer if answer is not None and legal else choose_action(p, "random", rng=rng)
        elif p.to_move == hard_seat:
            started = time.monotonic()
            a = choose_action(p, "hard", rng=rng, nodes=nodes, think=think)
            if p.phase is Phase.PLAY:
                turns += 1
                slowest = max(slowest, time.monotonic() - started)
        elif p.phase is Phase.PLAY:
            a = max(legal_actions(p), key=lambda t: _greedy_score(p, t, rng))  # type: ignore[arg-type]
        else:
            a = rng.choice(legal_actions(p))
        p = apply_action(p, a)
    return 1 if p.winner == hard_seat else 0, turns, bad, slowest, "/".join(pair) or "none"


def greedy(
    games: int,
    jobs: int,
    nodes: int | None,
    think: float | None,
    gods: str = "none",
    cli: bool = False,
    seed: int = 1,
    cli_think: float | None = None,
) -> None:
    """Print hard's score against the greedy one-ply player over ``games`` games.

    Each two games share a seed (``seed`` picks the series; 1 is the one always played).
    """
    late = LATE_S
    if cli and cli_think is not None:
        runs = []
        for _ in range(3):
            begun = time.monotonic()
            subprocess.run([str(SANTORINI), "gods"], check=True, capture_output=True)
            runs.append(time.monotonic() - begun)
        late = cli_think + min(runs) + LATE_MARGIN_S
        print(f"start-up {min(runs):.2f} s: an answer over {late:.2f} s is late")
    started = time.monotonic()
    with ProcessPoolExecutor(max_workers=jobs) as pool:
        futures = [
            pool.submit(
                _greedy_game,
                1000 * seed + i // 2,
                i % 2,
                nodes,
                think,
                gods,
                cli,
                cli_think,
                late,
            )
            for i in range(games)
        ]
        results = []
        for f in futures:
            results.append(f.result())
            print(f"\rhard-greedy {gods}: {len(results)}/{games}", end="", file=sys.stderr)
        print("\r" + " " * 40 + "\r", end="", file=sys.stderr)
    wins = sum(r[0] for r in results)
    t = Tally("hard", "greedy", games, wins, games - wins, 0)
    lo, hi = t.interval
    spent = (time.monotonic() - started) * jobs / games
    label = "hard-greedy" + (" (cli)" if cli else "")
    print(
        f"{label:<18} {gods:<7} {games:>5} {wins:>4} {games - wins:>4} {0:>3} "
        f"{t.score:>6.3f} {f'[{lo:.3f}, {hi:.3f}]':>14} {_elo_text(t.elo):>6} {spent:>7.1f}"
    )
    if gods != "none" or cli:
        turns = sum(r[1] for r in results)
        bad = sum(r[2] for r in results)
        slowest = max(r[3] for r in results)
        lost = sorted(r[4] for r in results if not r[0])
        print(f"hard turns {turns}, illegal or late answers {bad}, slowest {slowest:.2f} s")
        if lost:
            print("lost with: " + ", ".join(lost))


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--games", type=int, default=200, help="games per match (default 200)")
    parser.add_argument("--jobs", type=int, default=2, help="worker processes (default 2)")
    parser.add_argument("--seed", type=int, default=1, help="seed of the schedule")
    parser.add_argument("--think", type=float, default=None, help="seconds a turn (all levels)")
    parser.add_argument("--nodes", type=int, default=None, help="node budget a turn")
    parser.add_argument("--gods", nargs="+", default=["none", "random"], help="god modes")
    parser.add_argument(
        "--match", nargs=2, action="append", metavar=("A", "B"), help="play only these"
    )
    parser.add_argument(
        "--speed", type=int, metavar="TURNS", help="only time hard on TURNS positions"
    )
    parser.add_argument(
        "--greedy", type=int, metavar="GAMES", help="only play hard against a greedy one-ply player"
    )
    parser.add_argument(
        "--compare",
        type=int,
        metavar="TURNS",
        help="only compare hard (before) and learned (after) on TURNS positions a god set",
    )
    parser.add_argument(
        "--gods-from",
        choices=tuple(GOD_SETS),
        default="none",
        help="with --greedy: a random pair of gods from this set for each two games",
    )
    parser.add_argument(
        "--cli",
        action="store_true",
        help="with --greedy: ask each hard turn of `santorini analyse --json` (default budget)",
    )
    parser.add_argument(
        "--cli-think",
        type=float,
        metavar="S",
        help="with --cli: ask `santorini analyse --think S`; an answer over S, the start-up "
        "and 0.5 s is late",
    )
    args = parser.parse_args()
    if args.greedy:
        greedy(
            args.greedy,
            args.jobs,
            args.nodes,
            args.think,
            args.gods_from,
            args.cli,
            args.seed,
            args.cli_think,
        )
        return 0
    if args.speed:
        speed(args.speed, args.think)
        return 0
    if args.compare:
        compare(args.compare, args.think)
        return 0
    matches = [tuple(m) for m in args.match] if args.match else list(MATCHES)
    print(
        f"{'match':<18} {'gods':<7} {'games':>5} {'W':>4} {'L':>4} {'D':>3} "
        f"{'score':>6} {'95% interval':>14} {'Elo':>6} {'s/game':>7}"
    )
    for gods in args.gods:
        for a, b in matches:
            specs = schedule(
                a, b, args.games, gods=gods, seed=args.seed, think=args.think, nodes=args.nodes
            )
            started = time.monotonic()
            records: list[GameRecord] = []
            for r in run(specs, args.jobs):
                records.append(r)
                print(f"\r{a}-{b} {gods}: {len(records)}/{len(specs)}", end="", file=sys.stderr)
            print("\r" + " " * 40 + "\r", end="", file=sys.stderr)
            t = tally(a, b, records)
            lo, hi = t.interval
            spent = (time.monotonic() - started) * args.jobs / max(1, t.games)
            print(
                f"{a + '-' + b:<18} {gods:<7} {t.games:>5} {t.wins:>4} {t.losses:>4} "
                f"{t.draws:>3} {t.score:>6.3f} {f'[{lo:.3f}, {hi:.3f}]':>14} "
                f"{_elo_text(t.elo):>6} {spent:>7.1f}",
                flush=True,
            )
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
