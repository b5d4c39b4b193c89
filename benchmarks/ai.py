#!/usr/bin/env python3
"""The computer opponent's strength table: each level against others, seats swapped.

Plays, for the base game and for random god pairs: hard against random, and each level
against the one below (200 games each by default), over worker processes, and prints wins,
losses, the score with its 95% interval and the Elo difference. ``--nodes N`` caps every
turn at N nodes (repeatable, and faster than hard's default 2 s a turn); ``--speed TURNS``
instead times hard at its default budget; ``--greedy GAMES`` plays hard against a greedy
one-ply player written here, outside the package (an opponent the search was not tuned on).
Run by hand:

    .venv/bin/python benchmarks/ai.py --games 200 --jobs 2
    .venv/bin/python benchmarks/ai.py --speed 30
    .venv/bin/python benchmarks/ai.py --greedy 200 --nodes 25000
"""

from __future__ import annotations

import argparse
import math
import random
import sys
import time
from concurrent.futures import ProcessPoolExecutor

from santorini_p2p.ai import analyse, choose_action
from santorini_p2p.engine import (
    Phase,
    Position,
    Turn,
    apply_action,
    legal_actions,
    new_game,
    parse_position,
)
from santorini_p2p.engine.squares import NEIGHBOURS
from santorini_p2p.study.arena import GameRecord, Tally, play_game, run, schedule, tally

MATCHES = (("hard", "random"), ("easy", "random"), ("medium", "easy"), ("hard", "medium"))


def _elo_text(value: float) -> str:
    if math.isinf(value):
        return "+inf" if value > 0 else "-inf"
    return f"{value:+.0f}"


def speed(turns: int, think: float | None) -> None:
    """Time ``hard`` at its default budget on the positions of a few easy-level games."""
    rng = random.Random(2)
    positions: list[Position] = []
    for gods in ("none", "random"):
        spec = schedule("easy", "easy", 1, gods=gods, seed=rng.getrandbits(32))[0]
        for text in play_game(spec).positions:
            p = parse_position(text)
            if p.phase is Phase.PLAY and len(positions) < turns:
                positions.append(p)
    times: list[float] = []
    depths: list[int] = []
    nodes = 0
    for p in positions:
        started = time.monotonic()
        a = analyse(p, "hard", think=think)
        times.append(time.monotonic() - started)
        depths.append(a.depth)
        nodes += a.nodes
    print(
        f"hard, {len(times)} turns: mean {sum(times) / len(times):.2f} s, "
        f"max {max(times):.2f} s a turn; mean depth {sum(depths) / len(depths):.1f}; "
        f"{nodes / sum(times):.0f} nodes/s"
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
    height = levels[turn.path[-1]]
    score = 10.0 * height
    side = p.side_of(p.to_move)
    opp = 0
    for i, m in enumerate(p.workers):
        if i != side:
            opp |= m
    for b in turn.builds:
        new = levels[b] + 1
        if new == height + 1 and new <= 3:
            score += 3
        if new == 3 and any(
            levels[o] == 2 for o in range(25) if opp >> o & 1 and NEIGHBOURS[o] >> b & 1
        ):
            score -= 30
    return score + rng.random()


def _greedy_game(seed: int, hard_seat: int, nodes: int | None, think: float | None) -> int:
    """Play hard against the greedy player in the base game; return 1 if hard won, else 0."""
    rng = random.Random(seed)
    p = new_game(2)
    while p.phase is not Phase.OVER:
        if p.to_move == hard_seat:
            a = choose_action(p, "hard", rng=rng, nodes=nodes, think=think)
        elif p.phase is Phase.PLAY:
            a = max(legal_actions(p), key=lambda t: _greedy_score(p, t, rng))  # type: ignore[arg-type]
        else:
            a = rng.choice(legal_actions(p))
        p = apply_action(p, a)
    return 1 if p.winner == hard_seat else 0


def greedy(games: int, jobs: int, nodes: int | None, think: float | None) -> None:
    """Print hard's score against the greedy one-ply player over ``games`` games."""
    started = time.monotonic()
    with ProcessPoolExecutor(max_workers=jobs) as pool:
        futures = [
            pool.submit(_greedy_game, 1000 + i // 2, i % 2, nodes, think) for i in range(games)
        ]
        wins = sum(f.result() for f in futures)
    t = Tally("hard", "greedy", games, wins, games - wins, 0)
    lo, hi = t.interval
    spent = (time.monotonic() - started) * jobs / games
    print(
        f"{'hard-greedy':<18} {'none':<7} {games:>5} {wins:>4} {games - wins:>4} {0:>3} "
        f"{t.score:>6.3f} {f'[{lo:.3f}, {hi:.3f}]':>14} {_elo_text(t.elo):>6} {spent:>7.1f}"
    )


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
    args = parser.parse_args()
    if args.greedy:
        greedy(args.greedy, args.jobs, args.nodes, args.think)
        return 0
    if args.speed:
        speed(args.speed, args.think)
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
