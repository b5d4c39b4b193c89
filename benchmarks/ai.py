#!/usr/bin/env python3
"""The computer opponent's strength table: each level against others, seats swapped.

Plays, for the base game and for random god pairs: hard against random, and each level
against the one below (200 games each by default), over worker processes, and prints wins,
losses, the score with its 95% interval and the Elo difference. Run by hand:

    .venv/bin/python benchmarks/ai.py --games 200 --jobs 2
"""

from __future__ import annotations

import argparse
import math
import sys
import time

from santorini_p2p.ai.arena import GameRecord, run, schedule, tally

MATCHES = (("hard", "random"), ("easy", "random"), ("medium", "easy"), ("hard", "medium"))


def _elo_text(value: float) -> str:
    if math.isinf(value):
        return "+inf" if value > 0 else "-inf"
    return f"{value:+.0f}"


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
    args = parser.parse_args()
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
