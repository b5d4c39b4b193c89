#!/usr/bin/env python3
"""Does the computer answer within its time for every god? ``santorini analyse`` timed.

For positions where the mover has thousands of turns (Morpheus with many coins, Heracles's and
Polyphemus's domes, with Gaea answering them hundreds of thousands, Poseidon's builds), one
where each reply has that many (Gaea to move against Polyphemus), and for the gods whose turns
are made of several steps (Castor, Terpsichore, Atalanta), runs ``santorini analyse --level
LEVEL`` as a user does (a fresh process: its start-up counts) with the default budget and with
``--think S``, and prints the turns at the root, the budget, the wall time and the time over
it: with ``--think S`` the whole command's (as a program running it sees it), with the default
budget the search's (the process's start-up, measured alone first and listed, taken off).
Run by hand:

    .venv/bin/python benchmarks/think.py
    .venv/bin/python benchmarks/think.py --levels hard --think 1 3
    .venv/bin/python benchmarks/think.py --no-default --think 0.25 0.5 2
    .venv/bin/python benchmarks/think.py --against /tmp/old --repeat 3   # before/after

(``--against DIR``: DIR holds another version's ``santorini_p2p``, for instance from
``git archive HEAD~1 santorini_p2p | tar -x -C DIR``; the two run in turn, on the same load.)

A small budget shows on a quiet machine what a loaded one does to a larger one: the work a
search cannot stop (listing the root's turns, ordering them) is the time over.

``--in-process`` times the calls themselves (``analyse`` and ``choose_action``, after a
warm-up), without a process's start-up, whose changes with the machine's load drown the
rest on a busy machine:

    .venv/bin/python benchmarks/think.py --in-process --against /tmp/old --repeat 3 \
        --think 0.1 0.25 0.5 2 --gods morpheus[8] morpheus[4]
"""

from __future__ import annotations

import argparse
import json
import os
import random
import subprocess
import sys
import time

from santorini_p2p.ai.search import PROOF_THINK_S, find_level
from santorini_p2p.engine import generate_turns, parse_position

BOARD = "0B0000B/00000/000A00/00000/0A0000"
POSITIONS = {
    "morpheus[8]": f"{BOARD} 1 morpheus[8],apollo -",
    "morpheus[4]": f"{BOARD} 1 morpheus[4],apollo -",
    "heracles": f"{BOARD} 1 heracles,apollo -",
    "heracles/chronus": "02B100/01000/000A00/0002A0/00B020 1 heracles,chronus -",
    "polyphemus": f"{BOARD} 1 polyphemus,apollo -",
    "polyphemus/gaea": f"{BOARD} 1 polyphemus,gaea -",
    # Gaea to move: her turns are few, each reply of Polyphemus's about 250,000.
    "gaea/polyphemus": "00000/000A00/0000B0/0A0000B/00000 1 gaea,polyphemus -",
    "poseidon": f"{BOARD} 1 poseidon,apollo -",
    "castor": f"{BOARD} 1 castor,apollo -",
    "terpsichore": f"{BOARD} 1 terpsichore,apollo -",
    "atalanta": f"{BOARD} 1 atalanta,apollo -",
}


def _run(args: list[str], against: str | None = None) -> float:
    """Seconds one ``santorini`` command takes; ``against``: with that checkout's package."""
    env = dict(os.environ)
    if against is not None:
        env["PYTHONPATH"] = os.pathsep.join(filter(None, (against, env.get("PYTHONPATH"))))
    start = time.monotonic()
    subprocess.run(
        [sys.executable, "-m", "santorini_p2p", *args],
        check=True,
        stdout=subprocess.DEVNULL,
        env=env,
        # ``-m`` puts the working directory first on the path, before PYTHONPATH: run in DIR.
        cwd=against,
    )
    return time.monotonic() - start


def _child(spec: str) -> None:
    """Time the calls of one god's configurations here; print them as JSON (``--child``)."""
    from santorini_p2p.ai import analyse, choose_action

    job = json.loads(spec)
    p = parse_position(POSITIONS[job["god"]])
    choose_action(p, "hard", rng=random.Random(0), think=0.05)  # warm-up: imports, caches
    out: dict[str, list[float]] = {}
    for level in job["levels"]:
        for budget in job["think"]:
            worst = [0.0, 0.0]
            for k in range(job["repeat"]):
                start = time.monotonic()
                analyse(p, level, think=budget)
                worst[0] = max(worst[0], time.monotonic() - start - budget)
                start = time.monotonic()
                choose_action(p, level, rng=random.Random(k), think=budget)
                worst[1] = max(worst[1], time.monotonic() - start - budget)
            out[f"{level} {budget:g}"] = worst
    print(json.dumps(out))


def _in_process(args: argparse.Namespace) -> None:
    """The table of ``--in-process``: the most over the budget, of each call and version."""
    versions: list[str | None] = [None] if args.against is None else [args.against, None]
    names = ["this"] if args.against is None else ["against", "this"]
    head = "".join(f" {n + ' analyse':>15} {n + ' choose':>14}" for n in names)
    print("seconds over the budget, the most of each call (in-process, after a warm-up)")
    print(f"{'position':<13} {'turns':>7} {'level':<7} {'budget':>7}{head}")
    worst = [0.0] * len(versions)
    for god in args.gods:
        turns = len(generate_turns(parse_position(POSITIONS[god])))
        spec = json.dumps(
            {"god": god, "levels": args.levels, "think": args.think, "repeat": args.repeat}
        )
        found = []
        for v in versions:
            env = dict(os.environ)
            if v is not None:
                env["PYTHONPATH"] = os.pathsep.join(filter(None, (v, env.get("PYTHONPATH"))))
            done = subprocess.run(
                [sys.executable, __file__, "--child", spec],
                check=True,
                capture_output=True,
                text=True,
                env=env,
            )
            found.append(json.loads(done.stdout.splitlines()[-1]))
        for key in found[0]:
            level, budget = key.split()
            cells = ""
            for i, table in enumerate(found):
                a, c = table[key]
                worst[i] = max(worst[i], a, c)
                cells += f" {a:>+15.2f} {c:>+14.2f}"
            print(f"{god:<13} {turns:>7} {level:<7} {budget:>7}{cells}", flush=True)
    print("most over:" + "".join(f" {n} {w:+.2f} s" for n, w in zip(names, worst, strict=True)))


def main() -> None:
    """Print the table."""
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--levels", nargs="+", default=["easy", "medium", "hard"])
    ap.add_argument("--think", nargs="*", type=float, default=[2.0], help="budgets to try")
    ap.add_argument("--gods", nargs="*", default=list(POSITIONS))
    ap.add_argument(
        "--no-default", action="store_true", help="only the --think budgets, not the default"
    )
    ap.add_argument("--repeat", type=int, default=1, help="runs of each; the most over is listed")
    ap.add_argument(
        "--against",
        metavar="DIR",
        help="also run the package of another checkout (DIR holds its santorini_p2p), "
        "alternating with this one, and list both",
    )
    ap.add_argument(
        "--in-process",
        action="store_true",
        help="time the calls themselves, not a process (needs --think budgets)",
    )
    ap.add_argument("--child", help=argparse.SUPPRESS)
    args = ap.parse_args()
    if args.child is not None:
        _child(args.child)
        return
    if args.in_process:
        _in_process(args)
        return
    versions: list[str | None] = [None] if args.against is None else [args.against, None]
    names = ["this"] if args.against is None else ["against", "this"]
    startup = [min(_run(["gods"], v) for _ in range(3)) for v in versions]
    for name, t in zip(names, startup, strict=True):
        print(f"process start-up (santorini gods), {name}: {t:.2f} s")
    head = "".join(f" {n + ' s':>10} {'over':>6}" for n in names)
    print(f"{'position':<13} {'turns':>7} {'level':<7} {'budget':>7}{head}")
    worst = [0.0] * len(versions)
    for god in args.gods:
        pos = POSITIONS[god]
        turns = len(generate_turns(parse_position(pos)))
        for level in args.levels:
            lv = find_level(level)
            default = (lv.think or 0.0) + (PROOF_THINK_S if level != "random" else 0.0)
            budgets: list[tuple[str, float, list[str]]] = []
            if not args.no_default:
                budgets.append(("default", default, []))
            budgets += [(f"{t:g}", t, ["--think", str(t)]) for t in args.think]
            for name, budget, extra in budgets:
                walls = [0.0] * len(versions)
                for _ in range(args.repeat):
                    for i, v in enumerate(versions):
                        wall = _run(["analyse", "--level", level, *extra, pos], v)
                        walls[i] = max(walls[i], wall)
                cells = ""
                for i, wall in enumerate(walls):
                    # --think S bounds the whole command; the default budget, its search.
                    over = wall - budget - (startup[i] if not extra else 0.0)
                    worst[i] = max(worst[i], over)
                    cells += f" {wall:>10.2f} {over:>+6.2f}"
                print(f"{god:<13} {turns:>7} {level:<7} {name:>7}{cells}", flush=True)
    print("most over:" + "".join(f" {n} {w:+.2f} s" for n, w in zip(names, worst, strict=True)))


if __name__ == "__main__":
    main()
