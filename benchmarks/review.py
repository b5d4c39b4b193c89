#!/usr/bin/env python3
"""Review speed: ``santorini replay review`` of a game of about 40 turns at the default level.

Plays seeded arena games (medium against medium, a node budget a turn, so the same game
every run) until one lasts ``--turns`` to ``--turns`` + 5 turns of play, writes it as a
replay file in a temporary directory, and times ``review_file`` on it (verification, the
search of every position, writing the review) with the review's default level and think
time, for each ``--jobs`` value given. Prints one table row per run.

Target: a 40-turn game in under a minute on 2 cores.
Run by hand: ``python benchmarks/review.py [--turns 40] [--jobs 1 2]``.
"""

from __future__ import annotations

import argparse
import tempfile
import time
from pathlib import Path

from santorini_p2p.replay.review import review_path
from santorini_p2p.study.arena import GameRecord, GameSpec, play_game, signed_log
from santorini_p2p.study.review import DEFAULT_LEVEL, DEFAULT_THINK, review_file
from santorini_p2p.wire.log import encode_frames


def _long_game(turns: int) -> GameRecord:
    """The first seeded game with ``turns`` to ``turns`` + 5 turns of play."""
    for seed in range(1000):
        record = play_game(GameSpec(0, ("medium", "medium"), "none", seed=seed, nodes=2000))
        played = sum(1 for a in record.actions if a[:1] in "Habcde")
        if turns <= played <= turns + 5:
            return record
    raise SystemExit(f"no game of {turns} to {turns + 5} turns in 1000 seeds")


def main() -> int:
    """Play the game, then time its review for each number of jobs."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--turns", type=int, default=40, help="turns of play (up to 5 more)")
    parser.add_argument("--jobs", type=int, nargs="+", default=[2], help="processes to try")
    args = parser.parse_args()
    record = _long_game(args.turns)
    played = sum(1 for a in record.actions if a[:1] in "Habcde")
    print(f"game: seed {record.spec.seed}, {played} turns; level {DEFAULT_LEVEL}, ", end="")
    print(f"think {DEFAULT_THINK} s a position")
    print(f"{'jobs':>4} {'seconds':>8} {'s/turn':>7}  marks")
    with tempfile.TemporaryDirectory() as tmp:
        path = Path(tmp) / "game.sntr"
        path.write_bytes(encode_frames(signed_log(record)))
        for jobs in args.jobs:
            review_path(path).unlink(missing_ok=True)
            start = time.perf_counter()
            review, _ = review_file(path, jobs=jobs)
            took = time.perf_counter() - start
            marks = sum(1 for t in review.turns if t.mark)
            print(f"{jobs:>4} {took:>8.1f} {took / played:>7.2f}  {marks}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
