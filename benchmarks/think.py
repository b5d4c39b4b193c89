#!/usr/bin/env python3
"""Does the computer answer within its time for every god? ``santorini analyse`` timed.

For positions where the mover has thousands of turns (Morpheus with many coins, Heracles's and
Polyphemus's domes, Poseidon's builds) and for the gods whose turns are made of several steps
(Castor, Terpsichore, Atalanta), runs ``santorini analyse --level LEVEL`` as a user does (a
fresh process: its start-up counts) with the default budget and with ``--think S``, and
prints the turns at the root, the budget, the wall time and the time over it (the process's
start-up is measured alone first and listed). Run by hand:

    .venv/bin/python benchmarks/think.py
    .venv/bin/python benchmarks/think.py --levels hard --think 1 3
"""

from __future__ import annotations

import argparse
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
    "polyphemus": f"{BOARD} 1 polyphemus,apollo -",
    "poseidon": f"{BOARD} 1 poseidon,apollo -",
    "castor": f"{BOARD} 1 castor,apollo -",
    "terpsichore": f"{BOARD} 1 terpsichore,apollo -",
    "atalanta": f"{BOARD} 1 atalanta,apollo -",
}


def _run(args: list[str]) -> float:
    start = time.monotonic()
    subprocess.run(
        [sys.executable, "-m", "santorini_p2p", *args],
        check=True,
        stdout=subprocess.DEVNULL,
    )
    return time.monotonic() - start


def main() -> None:
    """Print the table."""
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--levels", nargs="+", default=["easy", "medium", "hard"])
    ap.add_argument("--think", nargs="*", type=float, default=[2.0], help="budgets to try")
    ap.add_argument("--gods", nargs="*", default=list(POSITIONS))
    args = ap.parse_args()
    startup = _run(["gods"])
    print(f"process start-up (santorini gods): {startup:.2f} s")
    print(f"{'position':<13} {'turns':>7} {'level':<7} {'budget':>7} {'wall s':>7} {'over s':>7}")
    for god in args.gods:
        pos = POSITIONS[god]
        turns = len(generate_turns(parse_position(pos)))
        for level in args.levels:
            lv = find_level(level)
            default = (lv.think or 0.0) + (PROOF_THINK_S if level != "random" else 0.0)
            budgets: list[tuple[str, float, list[str]]] = [("default", default, [])]
            budgets += [(f"{t:g}", t, ["--think", str(t)]) for t in args.think]
            for name, budget, extra in budgets:
                wall = _run(["analyse", "--level", level, *extra, pos])
                over = wall - startup - budget
                print(
                    f"{god:<13} {turns:>7} {level:<7} {name:>7} {wall:>7.2f} {over:>+7.2f}",
                    flush=True,
                )


if __name__ == "__main__":
    main()
