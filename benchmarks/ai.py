#!/usr/bin/env python3
"""The computer opponent's strength table: each level against others, seats swapped.

Plays, for the base game and for random god pairs: hard against random, and each level
against the one below (200 games each by default), over worker processes, and prints wins,
losses, the score with its 95% interval and the Elo difference. ``--nodes N`` caps every
turn at N nodes (repeatable, and faster than hard's default 2 s a turn); ``--speed TURNS``
instead times hard at its default budget; ``--greedy GAMES`` plays hard against a greedy
one-ply player written here, outside the package (an opponent the search was not tuned on),
in the base game or, with ``--gods-from simple|advanced|classic|all``, with a random pair of
gods from that set for each two games (seats swapped; ``all``: every god of 2 players), or
with ``--gods-from memory`` each of RULES.md section 10's eighteen gods in turn against a
random god of sections 6 to 9; ``--cli`` asks
every hard turn of those games from the ``santorini analyse --json`` command at its default
budget (``--cli-think S``: at ``--think S``), and counts illegal and late answers.
``--minimax GAMES`` does the same against a 2-ply minimax player written here (its turn and
every reply, leaves scored by worker heights and wins; see ``_minimax_turn``), with the same
options. ``--with GOD`` gives GOD to one seat of every game (hard's in one game of each two)
against a god of ``--gods-from``; ``--record DIR`` writes each game's positions to DIR.
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
    .venv/bin/python benchmarks/ai.py --minimax 40 --gods-from all --cli --cli-think 1
    .venv/bin/python benchmarks/ai.py --minimax 40 --gods-from all --with nemesis --nodes 20000
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
from typing import Final

from santorini_p2p.ai import analyse, choose_action
from santorini_p2p.ai.search import find_level, play_turn
from santorini_p2p.engine import (
    Phase,
    Position,
    Turn,
    apply_action,
    apply_unchecked,
    ban_reason,
    find_turn,
    format_position,
    generate_turns,
    legal_actions,
    new_game,
    parse_position,
)
from santorini_p2p.engine.gods import ADVANCED, GODS, GROUP1, HEROES, MEMORY, SIMPLE
from santorini_p2p.engine.squares import NEIGHBOURS
from santorini_p2p.study.arena import GameRecord, Tally, play_game, run, schedule, tally

MATCHES = (("hard", "random"), ("easy", "random"), ("medium", "easy"), ("hard", "medium"))
GOD_SETS: dict[str, tuple[str, ...]] = {
    "none": (),
    "simple": tuple(g.name for g in SIMPLE),
    "advanced": tuple(g.name for g in ADVANCED),
    "classic": tuple(g.name for g in SIMPLE + ADVANCED),
    "all": tuple(g.name for g in GODS if 2 in g.players),
    "memory": tuple(g.name for g in MEMORY + HEROES),
}
"""The gods a benchmark game draws its pair from (``none``: the base game): ``all`` is every
god of 2 players, as ``--gods-from all`` deals them (a banned pair is drawn again), ``classic``
the 25 of sections 6 and 8. With ``memory`` each two games play the next of its gods against a
random 2-player god of sections 6-9."""
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
    """Before and after: classic (hard's search with the hand-set weights), hard (with the
    weights fitted to self-play), learned (the same search with the trained network) and puct
    (a tree search on the network) on the same positions at the same time a turn.

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
        for level in ("classic", "hard", "learned", "puct"):
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


MINIMAX_WIN = 10**6
"""The 2-ply player's score of a won game (a lost one: minus this)."""


def _heights(p: Position, side: int) -> int:
    """The sum of the levels under ``side``'s workers."""
    return sum(
        (p.ge1 >> s & 1) + (p.ge2 >> s & 1) + (p.ge3 >> s & 1)
        for s in range(25)
        if p.workers[side] >> s & 1
    )


def _minimax_leaf(q: Position, me: int) -> int:
    """The 2-ply player's score of ``q`` for its side ``me``: a finished game is won or lost,
    otherwise the heights of its workers minus the heights of the opponents' workers."""
    if q.winner >= 0:
        if q.side_of(q.winner) == me:
            return MINIMAX_WIN
        return -MINIMAX_WIN
    own = _heights(q, me)
    other = max((_heights(q, s) for s in range(len(q.workers)) if s != me), default=0)
    return own - other


def _minimax_turn(p: Position, rng: random.Random) -> Turn:
    """A 2-ply minimax player, written here outside the package.

    The reading: it looks at each of its turns and every reply of the opponent, scores each
    position after a reply with :func:`_minimax_leaf` (a win or loss in those two turns; else
    the heights of its workers minus the opponent's, 1 a level, no mobility, no threats) and
    plays the turn whose worst reply scores best, ties broken at random. A turn that wins at
    once is played at once; a turn after which the opponent has no turn wins. Alpha-beta cuts
    a turn's replies as soon as one is no better than the best turn so far, which gives the
    same value as full minimax (turns are tried best first by their own one-ply score).
    """
    me = p.side_of(p.to_move)
    turns = [t for t in legal_actions(p) if isinstance(t, Turn)]
    children: list[tuple[float, Turn, Position]] = []
    for t in turns:
        q = apply_unchecked(p, t)
        if q.winner >= 0 and q.side_of(q.winner) == me:
            return t
        children.append((_minimax_leaf(q, me) + rng.random(), t, q))
    children.sort(key=lambda c: -c[0])
    best = -math.inf
    choice = children[0][1]
    for tie, t, q in children:
        noise = tie % 1
        if q.winner >= 0 or q.phase is Phase.OVER:
            value: float = _minimax_leaf(q, me) + noise
        else:
            replies = generate_turns(q)
            value = MINIMAX_WIN + noise  # no reply: the opponent cannot play
            for r in replies:
                v = _minimax_leaf(apply_unchecked(q, r), me) + noise
                if v < value:
                    value = v
                    if value <= best:
                        break
        if value > best:
            best, choice = value, t
    return choice


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


def _draw_pair(rng: random.Random, gods: str) -> tuple[str, ...]:
    """A random pair from the set ``gods`` (none for the base game), drawn again while banned."""
    if not GOD_SETS[gods]:
        return ()
    while True:
        pair = tuple(rng.sample(GOD_SETS[gods], 2))
        if ban_reason(pair) is None:
            return pair


OPPONENTS: Final = ("greedy", "minimax")
"""The players written here that hard plays against: one ply, and 2-ply minimax."""


def _opponent_turn(p: Position, opponent: str, rng: random.Random) -> Turn:
    """The turn the outside player ``opponent`` plays in ``p`` (play phase)."""
    if opponent == "minimax":
        return _minimax_turn(p, rng)
    turns = [t for t in legal_actions(p) if isinstance(t, Turn)]
    return max(turns, key=lambda t: _greedy_score(p, t, rng))


def _greedy_game(
    seed: int,
    hard_seat: int,
    nodes: int | None,
    think: float | None,
    gods: str = "none",
    cli: bool = False,
    cli_think: float | None = None,
    late: float = LATE_S,
    opponent: str = "greedy",
    record: str | None = None,
    focus: str | None = None,
) -> tuple[int, int, int, int, float, str]:
    """Play hard against the outside player ``opponent``; return hard's win (1 or 0), its
    turns, its illegal (or failed) answers, its late answers, its slowest answer (seconds)
    and the gods played, hard's first (``hard/other``).

    With ``record`` (a folder) the game's positions, one a line, go to a file there named by
    the seed, hard's seat and the result, to be read again (``santorini analyse``).
    """
    rng = random.Random(seed)
    pair = _draw_pair(rng, gods)
    if focus is not None:
        # Seat 0 holds the god: hard in one game of the two that share a seed.
        others = [g for g in GOD_SETS[gods] if g != focus and ban_reason((focus, g)) is None]
        pair = (focus, rng.choice(others))
    elif gods == "memory":
        # Hard plays the god; 18 games play each of them once, 36 each in both seats.
        own = GOD_SETS[gods][(seed + 9 * hard_seat) % len(GOD_SETS[gods])]
        pair = (own, rng.choice([g for g in EARLIER if ban_reason((own, g)) is None]))
        pair = pair if hard_seat == 0 else pair[::-1]
    p = new_game(2, "random", drawn=pair) if pair else new_game(2)
    turns = illegal = late_answers = 0
    slowest = 0.0
    seen = [format_position(p)]
    while p.phase is not Phase.OVER:
        if p.to_move == hard_seat and cli and p.phase is Phase.PLAY:
            answer, spent, error = _ask_cli(p, cli_think)
            turns += 1
            slowest = max(slowest, spent)
            if answer is None:
                illegal += 1
                print(f"\nillegal answer in {format_position(p)}: {error} ({spent:.1f} s)")
            elif spent > late:
                late_answers += 1
                print(f"\nlate answer in {format_position(p)}: {answer} ({spent:.1f} s)")
            a = answer if answer is not None else choose_action(p, "random", rng=rng)
        elif p.to_move == hard_seat:
            started = time.monotonic()
            a = choose_action(p, "hard", rng=rng, nodes=nodes, think=think)
            if p.phase is Phase.PLAY:
                turns += 1
                slowest = max(slowest, time.monotonic() - started)
        elif p.phase is Phase.PLAY:
            a = _opponent_turn(p, opponent, rng)
        else:
            a = rng.choice(legal_actions(p))
        p = apply_action(p, a)
        seen.append(format_position(p))
    won = 1 if p.winner == hard_seat else 0
    if record is not None:
        name = f"{opponent}-{seed}-{hard_seat}-{'won' if won else 'lost'}.txt"
        (Path(record) / name).write_text("\n".join(seen) + "\n")
    gods_played = "/".join(pair if hard_seat == 0 else pair[::-1]) or "none"
    return won, turns, illegal, late_answers, slowest, gods_played


def greedy(
    games: int,
    jobs: int,
    nodes: int | None,
    think: float | None,
    gods: str = "none",
    cli: bool = False,
    seed: int = 1,
    cli_think: float | None = None,
    opponent: str = "greedy",
    record: str | None = None,
    focus: str | None = None,
) -> None:
    """Print hard's score against an outside player over ``games`` games: ``greedy`` (one
    ply) or ``minimax`` (2-ply); with ``record``, each game's positions go to that folder.

    Each two games share a seed (``seed`` picks the series; 1 is the one always played).
    """
    if record is not None:
        Path(record).mkdir(parents=True, exist_ok=True)
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
                opponent,
                record,
                focus,
            )
            for i in range(games)
        ]
        results = []
        for f in futures:
            results.append(f.result())
            print(f"\rhard-{opponent} {gods}: {len(results)}/{games}", end="", file=sys.stderr)
        print("\r" + " " * 40 + "\r", end="", file=sys.stderr)
    wins = sum(r[0] for r in results)
    t = Tally("hard", opponent, games, wins, games - wins, 0)
    lo, hi = t.interval
    spent = (time.monotonic() - started) * jobs / games
    label = f"hard-{opponent}" + (" (cli)" if cli else "")
    print(
        f"{label:<18} {gods:<7} {games:>5} {wins:>4} {games - wins:>4} {0:>3} "
        f"{t.score:>6.3f} {f'[{lo:.3f}, {hi:.3f}]':>14} {_elo_text(t.elo):>6} {spent:>7.1f}"
    )
    if gods != "none" or cli:
        turns = sum(r[1] for r in results)
        illegal = sum(r[2] for r in results)
        late_answers = sum(r[3] for r in results)
        slow = max(results, key=lambda r: r[4])
        lost = sorted(r[5] for r in results if not r[0])
        print(
            f"hard turns {turns}, illegal answers {illegal}, late answers {late_answers}, "
            f"slowest {slow[4]:.2f} s ({slow[5]})"
        )
        if lost:
            print("lost with (hard's god first): " + ", ".join(lost))


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
        "--minimax",
        type=int,
        metavar="GAMES",
        help="only play hard against a 2-ply minimax player (same options as --greedy)",
    )
    parser.add_argument(
        "--with",
        dest="focus",
        metavar="GOD",
        choices=tuple(g.name for g in GODS),
        help="with --greedy or --minimax: every game has GOD against a god of --gods-from "
        "(hard holds it in one game of each two)",
    )
    parser.add_argument(
        "--record",
        metavar="DIR",
        help="with --greedy or --minimax: write each game's positions to a file in DIR",
    )
    parser.add_argument(
        "--compare",
        type=int,
        metavar="TURNS",
        help="only compare classic (before), hard, learned and puct on TURNS positions a god set",
    )
    parser.add_argument(
        "--gods-from",
        choices=tuple(GOD_SETS),
        default="none",
        help="with --greedy or --minimax: a random pair of gods from this set for each two "
        "games (all: every god of 2 players, banned pairs drawn again; classic: sections 6 "
        "and 8)",
    )
    parser.add_argument(
        "--cli",
        action="store_true",
        help="with --greedy or --minimax: ask each hard turn of `santorini analyse --json` "
        "(default budget)",
    )
    parser.add_argument(
        "--cli-think",
        type=float,
        metavar="S",
        help="with --cli: ask `santorini analyse --think S`; an answer over S, the start-up "
        "and 0.5 s is late",
    )
    args = parser.parse_args()
    if args.greedy or args.minimax:
        greedy(
            args.greedy or args.minimax,
            args.jobs,
            args.nodes,
            args.think,
            args.gods_from,
            args.cli,
            args.seed,
            args.cli_think,
            "greedy" if args.greedy else "minimax",
            args.record,
            args.focus,
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
