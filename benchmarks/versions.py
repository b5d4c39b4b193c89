#!/usr/bin/env python3
"""Two versions of the program's ``hard`` level against each other at equal time.

Each side is a checkout of this repository (a directory: another clone, or ``git worktree add
DIR COMMIT``) searching in its own process (``--serve``: a position string in, the best turn's
text out, on standard input and output), so the code of one commit plays the code of another.
The games start from seeded openings of the base game, each opening played from both seats;
the setup phase is chosen by this checkout's ``hard`` at a node budget, the same for both.
Prints A's wins, losses, score with its 95% interval and the Elo difference. Run by hand:

    git worktree add /tmp/before eacf7e9
    .venv/bin/python benchmarks/versions.py . /tmp/before --think 0.5 --games 60
"""

from __future__ import annotations

import argparse
import os
import random
import subprocess
import sys
from concurrent.futures import ProcessPoolExecutor
from pathlib import Path

from santorini_p2p.ai.search import choose_action
from santorini_p2p.engine import (
    Action,
    Phase,
    apply_action,
    format_action,
    format_position,
    parse_action,
    parse_position,
)

_SETUP_NODES = 2_000


def serve() -> None:
    """Answer ``POSITION<TAB>THINK<TAB>SEED`` lines with hard's best turn, until end of input.

    Served from the checkout on the path: only what every version has is used (a checkout
    from before ``play_turn`` chooses with ``choose_action``, the same search).
    """
    from santorini_p2p.ai import search

    for line in sys.stdin:
        text, think, seed = line.rstrip("\n").split("\t")
        p, rng = parse_position(text), random.Random(int(seed))
        best: Action
        if hasattr(search, "play_turn"):
            best = search.play_turn(p, search.find_level("hard"), rng=rng, think=float(think)).best
        else:
            best = choose_action(p, "hard", rng=rng, think=float(think))
        print(format_action(best), flush=True)


def _engine(root: str) -> subprocess.Popen[str]:
    """This script serving from the checkout in ``root`` (its package first on the path)."""
    env = dict(os.environ, PYTHONPATH=str(Path(root).resolve()))
    return subprocess.Popen(
        [sys.executable, str(Path(__file__).resolve()), "--serve"],
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        text=True,
        env=env,
        cwd=root,
    )


def _game(job: tuple[int, str, str, int, float]) -> float:
    """One game; A's points (a draw, a game cut at the ply limit, is half)."""
    from santorini_p2p.study.train import MAX_PLIES, selfplay_start

    seed, root_a, root_b, a_seat, think = job
    rng = random.Random(seed)
    p = selfplay_start(rng, 0.0)
    engines = {a_seat: _engine(root_a), 1 - a_seat: _engine(root_b)}
    plies = 0
    try:
        while p.phase is not Phase.OVER and plies < MAX_PLIES:
            if p.phase is not Phase.PLAY:
                p = apply_action(p, choose_action(p, "hard", rng=rng, nodes=_SETUP_NODES))
                continue
            e = engines[p.to_move]
            assert e.stdin is not None
            assert e.stdout is not None
            e.stdin.write(f"{format_position(p)}\t{think}\t{rng.getrandbits(32)}\n")
            e.stdin.flush()
            p = apply_action(p, parse_action(e.stdout.readline().strip()))
            plies += 1
    finally:
        for e in engines.values():
            if e.stdin is not None:
                e.stdin.close()
            e.wait()
    if p.winner not in (0, 1):
        return 0.5
    return 1.0 if p.winner == a_seat else 0.0


def main() -> int:
    """Play the match and print its tally."""
    from santorini_p2p.study.arena import Tally, elo_text

    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("a", nargs="?", help="checkout of side A")
    parser.add_argument("b", nargs="?", help="checkout of side B")
    parser.add_argument("--think", type=float, default=0.5, help="seconds a turn (0.5)")
    parser.add_argument("--games", type=int, default=60, help="games, even (60)")
    parser.add_argument("--seed", type=int, default=3, help="seed of the openings (3)")
    parser.add_argument("--jobs", type=int, default=2, help="games at once (2)")
    parser.add_argument("--serve", action="store_true", help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.serve:
        serve()
        return 0
    if args.a is None or args.b is None:
        parser.error("give the two checkouts, A and B")
    for root in (args.a, args.b):
        if not (Path(root) / "santorini_p2p").is_dir():
            parser.error(f"{root}: not a checkout of this repository (no santorini_p2p/)")
    jobs = [
        (args.seed * 7919 + i // 2, args.a, args.b, i % 2, args.think) for i in range(args.games)
    ]
    with ProcessPoolExecutor(args.jobs) as pool:
        points = list(pool.map(_game, jobs))
    wins = sum(1 for x in points if x == 1.0)
    losses = sum(1 for x in points if x == 0.0)
    t = Tally(args.a, args.b, len(points), wins, losses, len(points) - wins - losses)
    lo, hi = t.interval
    print(f"A: {args.a}  B: {args.b}  {args.think} s a turn, base game")
    print(
        f"games {t.games}  A won {wins}, lost {losses}, drew {t.draws}  score {t.score:.3f} "
        f"[{lo:.3f}, {hi:.3f}]  Elo {elo_text(t.elo)}"
    )
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
