#!/usr/bin/env python3
"""Engine speed: legal-turn generation per second (base game and with gods) and perft.

Run by hand (`python benchmarks/engine.py`); prints a table. Targets on one core: perft(4)
of the opening (29,096,316 leaves) in under 10 s, at least 3 million leaves a second; the
advanced gods (RULES.md section 8) at least 0.5 million turns a second in perft; the gods of
section 9 with the most work a turn (Harpies's slides, Castor's move-all and build-all) at least
0.2 million turns a second generated. The last rows time one turn's legality where powers add
choices to turns (RULES.md 10), against listing every turn of those positions, and what
Gaea is asked at each dome of such turns (protocol/SPEC.md 8.4).
"""

from __future__ import annotations

import argparse
import random
import time
from pathlib import Path

from santorini_p2p.engine import (
    ADVANCED,
    GOD_NAMES,
    GROUP1,
    HEROES,
    MEMORY,
    OPENING,
    SIMPLE,
    Phase,
    Position,
    Turn,
    apply_action,
    apply_unchecked,
    ban_reason,
    generate_turns,
    legal_actions,
    legal_turns,
    new_game,
    parse_position,
    perft,
)
from santorini_p2p.engine.choices import choice_options, choices, turns_after
from santorini_p2p.engine.position import HERO_DOME
from santorini_p2p.engine.rules import is_legal, list_turns

PERFT_FILE = Path(__file__).resolve().parent.parent / "protocol" / "vectors" / "perft.txt"
TWENTY_FIVE = [g.name for g in SIMPLE + ADVANCED]
"""The gods of RULES.md sections 6 and 8: the partners of the rows measured before section 9."""


MIDGAMES = (
    "10B1B10/11010/0A1200/000A00/01001 1 apollo,demeter -",
    "0B1X000/00000X/001A0B1/01110/00A000 1 artemis,atlas -",
    "00000/00010/11A0B01/10A201/000B12 1 minotaur,prometheus -",
    "10000/01A03X0/00A00B1/0300B0/00000 1 hephaestus,pan -",
)
"""Midgame positions with four pairs of simple gods (seeded random games, 8 turns in)."""


def perft_rows(label: str, positions: list[str], depth: int) -> list[tuple[str, str]]:
    """Time perft of each position and of all together (turns counted per second)."""
    rows = []
    total = 0
    spent = 0.0
    for text in positions:
        p = parse_position(text)
        start = time.perf_counter()
        n = perft(p, depth)
        elapsed = time.perf_counter() - start
        total += n
        spent += elapsed
        gods = text.split(" ")[2]
        rows.append(
            (f"perft({depth}) {gods}", f"{n:,} in {elapsed:.2f} s = {n / elapsed / 1e6:.2f} M/s")
        )
    rate = f"{total:,} in {spent:.2f} s = {total / spent / 1e6:.2f} M/s"
    rows.append((f"perft({depth}) {label}, all", rate))
    return rows


def advanced_midgames(
    count: int, seed: int, names: list[str] | None = None, partners: list[str] | None = None
) -> list[str]:
    """Positions 6-10 turns into seeded random games, each with a god of ``names``.

    By default the advanced gods, against any of the 25 of sections 6 and 8.
    """
    rng = random.Random(seed)
    names = names or [g.name for g in ADVANCED]
    partners = partners or TWENTY_FIVE
    out: list[str] = []
    for i in range(count):
        god = names[i % len(names)]
        other = rng.choice([g for g in partners if g != god and ban_reason((god, g)) is None])
        p = new_game(2, "random", drawn=(god, other))
        plies = 0
        target = rng.randint(6, 10)
        while p.phase is not Phase.OVER:
            if p.phase is Phase.PLAY:
                if plies == target:
                    break
                plies += 1
            nxt = apply_action(p, rng.choice(legal_actions(p)))
            if nxt.phase is Phase.OVER:
                break
            p = nxt
        if p.phase is Phase.PLAY:
            out.append(str(p))
    return out


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


LEGALITY_PAIRS = (
    ("polyphemus", "apollo"),
    ("aeolus", "gaea"),
    ("polyphemus", "gaea"),
    ("heracles", "gaea"),
)
"""Pairs whose powers add choices to turns: the first seat's turns are checked one by one."""


def _first_seat_turns(pair: tuple[str, str], count: int) -> list[tuple[Position, list[Turn]]]:
    """``count`` positions of the first seat from seeded random games, five turns of each.

    The games keep the first seat's once-a-game power (its longest lists).
    """
    rng = random.Random(11)
    checks: list[tuple[Position, list[Turn]]] = []
    p = new_game(2, "random", drawn=pair)
    while len(checks) < count:
        if p.phase is Phase.OVER:
            p = new_game(2, "random", drawn=pair)
        if p.phase is not Phase.PLAY:
            p = apply_action(p, rng.choice(legal_actions(p)))
            continue
        turns = list_turns(p, lambda: True).turns  # a cut list: turns enough to play on
        if not turns:
            p = new_game(2, "random", drawn=pair)
            continue
        if p.to_move == 0:
            checks.append((p, rng.sample(turns, min(5, len(turns)))))
            kept = [t for t in turns if not t.extra and all(b < HERO_DOME for b in t.builds)]
            turns = kept or turns
        p = apply_action(p, rng.choice(turns))
    return checks


def legality_rows(count: int) -> list[tuple[str, str]]:
    """One turn's legality (``is_legal``) where powers add choices, against listing every turn.

    ``count`` positions of the first seat (:func:`_first_seat_turns`), five of its turns each;
    the whole list is timed on the last position.
    """
    rows = []
    for pair in LEGALITY_PAIRS:
        checks = _first_seat_turns(pair, count)
        start = time.perf_counter()
        n = sum(is_legal(q, t) for q, ts in checks for t in ts)
        each = (time.perf_counter() - start) / n
        start = time.perf_counter()
        listed = len(generate_turns(checks[-1][0]))
        whole = time.perf_counter() - start
        rows.append(
            (
                f"is_legal, {pair[0]} v {pair[1]}",
                f"{each * 1e3:.2f} ms a turn (listing every turn: {whole:.2f} s, {listed:,} turns)",
            )
        )
    return rows


def ask_rows(count: int) -> list[tuple[str, str]]:
    """What Gaea is asked at each dome of a turn (SPEC.md 8.4), as a peer checks a record.

    For the turns of :func:`_first_seat_turns` in which Gaea is asked: each ask's options
    (``choice_options``) and the turns that go on from its answer (``turns_after``).
    """
    rows = []
    for pair in LEGALITY_PAIRS:
        if "gaea" not in pair[1:]:
            continue
        asked = [
            (q, cs) for q, ts in _first_seat_turns(pair, count) for t in ts if (cs := choices(q, t))
        ]
        if not asked:
            continue
        start = time.perf_counter()
        n = 0
        for q, cs in asked:
            for k, c in enumerate(cs):
                choice_options(q, cs[:k], c.asked)
                turns_after(q, cs[: k + 1])
                n += 1
        each = (time.perf_counter() - start) / n
        rows.append(
            (
                f"asks of Gaea, {pair[0]} v {pair[1]}",
                f"{each * 1e3:.1f} ms an ask ({n} asks in {len(asked)} turns)",
            )
        )
    return rows


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

    rows += perft_rows("simple-god midgames", list(MIDGAMES), 3)
    rows += perft_rows("advanced gods", advanced_midgames(15, 5), 2)[-1:]
    for power in ADVANCED:
        other = rng.choice([g for g in TWENTY_FIVE if g != power.name])
        pos = sample_positions((power.name, other), args.positions // 3, 3)
        pps, tps = time_generation(pos, 1)
        rows.append(
            (
                f"generate_turns, {power.name} v {other}",
                f"{pps:,.0f} positions/s, {tps:,.0f} turns/s",
            )
        )
    # The gods with memory and the heroes (RULES.md 10): states, extra choices, narrowing.
    for power in MEMORY + HEROES:
        other = rng.choice([g for g in GOD_NAMES if ban_reason((power.name, g)) is None])
        pos = sample_positions((power.name, other), args.positions // 3, 3)
        pps, tps = time_generation(pos, 1)
        rows.append(
            (
                f"generate_turns, {power.name} v {other}",
                f"{pps:,.0f} positions/s, {tps:,.0f} turns/s",
            )
        )

    group1 = [g.name for g in GROUP1]
    every = TWENTY_FIVE + group1
    rows += perft_rows("section 9 gods", advanced_midgames(14, 6, group1, every), 2)[-1:]
    for power in GROUP1:
        other = rng.choice(
            [g for g in every if g != power.name and ban_reason((g, power.name)) is None]
        )
        for pair in ((power.name, other), (other, power.name)):
            pos = sample_positions(pair, args.positions // 3, 3)
            pps, tps = time_generation(pos, 1)
            rows.append(
                (
                    f"generate_turns, {pair[0]} v {pair[1]}",
                    f"{pps:,.0f} positions/s, {tps:,.0f} turns/s",
                )
            )

    rows += legality_rows(args.positions // 30)
    rows += ask_rows(args.positions // 30)

    width = max(len(r[0]) for r in rows)
    print(f"{'benchmark':<{width}}  result")
    print(f"{'-' * width}  {'-' * 50}")
    for name, value in rows:
        print(f"{name:<{width}}  {value}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
