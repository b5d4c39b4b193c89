#!/usr/bin/env python3
"""Engine speed: legal-turn generation per second (base game and with gods) and perft.

Run by hand (`python benchmarks/engine.py`); prints a table. Target on one core: perft(4)
of the opening (29,096,316 leaves) in under 10 s, at least 3 million leaves a second.
"""

from __future__ import annotations

import argparse
import random
import time
from pathlib import Path

from santorini_p2p.engine import (
    GOD_NAMES,
    OPENING,
    Phase,
    Position,
    apply_action,
    apply_unchecked,
    generate_turns,
    legal_actions,
    legal_turns,
    new_game,
    parse_position,
    perft,
)

PERFT_FILE = Path(__file__).resolve().parent.parent / "protocol" / "vectors" / "perft.txt"


def sample_positions(gods: tuple[str, str] | None, count: int, seed: int) -> list[Position]:
    """Positions from seeded random games (after placement), with or without gods."""
    rng = random.Random(seed)
    out: list[Position] = []
    while len(out) < count:
        drawn = gods or ()
        p = new_game(2, "random" if gods else "none", drawn=drawn)
        while p.phase is not Phase.OVER and len(out) < count:
            actions = legal_actions(p)
            if p.phase is Phase.PLAY:
                out.append(p)
            p = apply_action(p, rng.choice(actions))
    return out


def time_generation(positions: list[Position], repeat: int) -> tuple[float, float]:
    """Return (positions per second, turns per second) of generate_turns."""
    start = time.perf_counter()
    turns = 0
    for _ in range(repeat):
        for p in positions:
            turns += len(generate_turns(p))
    elapsed = time.perf_counter() - start
    return len(positions) * repeat / elapsed, turns / elapsed


def main() -> int:
    """Print the benchmark table."""
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--depth", type=int, default=4, help="perft depth of the opening")
    parser.add_argument("--positions", type=int, default=300)
    args = parser.parse_args()

    rows: list[tuple[str, str]] = []
    base = sample_positions(None, args.positions, 1)
    pps, tps = time_generation(base, 3)
    rows.append(("generate_turns, base game", f"{pps:,.0f} positions/s, {tps:,.0f} turns/s"))
    start = time.perf_counter()
    n = sum(len(legal_turns(p)) for p in base)
    rows.append(
        ("legal_turns (sorted), base game", f"{n / (time.perf_counter() - start):,.0f} turns/s")
    )
    start = time.perf_counter()
    applied = 0
    for p in base:
        for t in generate_turns(p)[:10]:
            apply_unchecked(p, t)
            applied += 1
    rows.append(
        ("apply_unchecked, base game", f"{applied / (time.perf_counter() - start):,.0f} turns/s")
    )
    rng = random.Random(7)
    for god in GOD_NAMES:
        other = rng.choice([g for g in GOD_NAMES if g != god])
        pos = sample_positions((god, other), args.positions // 3, 2)
        pps, tps = time_generation(pos, 2)
        rows.append(
            (f"generate_turns, {god} v {other}", f"{pps:,.0f} positions/s, {tps:,.0f} turns/s")
        )

    p = parse_position(OPENING)
    start = time.perf_counter()
    leaves = perft(p, args.depth)
    elapsed = time.perf_counter() - start
    rows.append(
        (
            f"perft({args.depth}) of the opening",
            f"{leaves:,} leaves in {elapsed:.2f} s = {leaves / elapsed / 1e6:.1f} M leaves/s",
        )
    )
    # Vector positions with gods, through the general generator.
    current = ""
    for line in PERFT_FILE.read_text().splitlines():
        if line.startswith("id "):
            current = line[3:]
        elif line.startswith("epd "):
            epd = line[4:]
        elif line.startswith("perft ") and current != "opening":
            d, expect = (int(x) for x in line.split()[1:])
            if expect < 50_000:
                continue
            start = time.perf_counter()
            got = perft(parse_position(epd), d)
            elapsed = time.perf_counter() - start
            status = "ok" if got == expect else f"MISMATCH (expected {expect:,})"
            rows.append(
                (
                    f"perft({d}) {current}",
                    f"{got:,} leaves in {elapsed:.2f} s = {got / elapsed / 1e6:.2f} M/s {status}",
                )
            )

    width = max(len(r[0]) for r in rows)
    print(f"{'benchmark':<{width}}  result")
    print(f"{'-' * width}  {'-' * 50}")
    for name, value in rows:
        print(f"{name:<{width}}  {value}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
