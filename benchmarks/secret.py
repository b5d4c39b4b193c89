#!/usr/bin/env python3
"""Secret-god deal speed: what the deal, an opening and the end audit cost each seat.

For 2, 3 and 4 players over a 14-god pool (the most a deal shuffles, SECRET.md 5), measures
in this process (CPU time, best of ``--repeats``):

- ``shuffle``: one seat's shuffle step (14 exponentiations by a 256-bit key);
- ``strip``: one seat's strip step (N - 1 exponentiations by a 2048-bit inverse);
- ``check``: a peer reading one shuffle record (14 subgroup checks, 2048-bit exponents);
- ``deal``: the whole deal as one peer lives it (its own steps, every record checked);
- ``audit``: the deal's audit at the end, every key open.

Target: the whole deal under 2 s per peer with 4 players, and the audit under 1 s, on one
core of a 2020 laptop: a game's start and end must not keep players waiting.
Run by hand: ``python benchmarks/secret.py [--repeats N]``.
"""

from __future__ import annotations

import argparse
import hashlib
import time
from collections.abc import Callable

from santorini_p2p.wire.secret import (
    DealKey,
    audit_deal,
    card_of,
    from_bytes,
    shuffle,
    shuffle_order,
    strip,
    to_bytes,
)
from santorini_p2p.wire.secretgame import DEFAULT_POOL

POOL = DEFAULT_POOL


def _seed(label: str) -> bytes:
    return hashlib.blake2b(label.encode(), digest_size=32).digest()


def best(fn: Callable[[], object], repeats: int) -> float:
    """The best CPU time of ``repeats`` runs of ``fn``, in seconds."""
    times = []
    for _ in range(repeats):
        t = time.process_time()
        fn()
        times.append(time.process_time() - t)
    return min(times)


def row(players: int, repeats: int) -> tuple[float, ...]:
    """The five timings for ``players`` seats."""
    keys = [DealKey.from_seed(_seed(f"k{j}")) for j in range(players)]
    orders = [shuffle_order(_seed(f"o{j}"), len(POOL)) for j in range(players)]
    deck0 = tuple(card_of(g) for g in POOL)
    decks, deck = [], deck0
    for j in range(players):
        deck = shuffle(deck, keys[j], orders[j])
        decks.append(deck)
    hands, hand = [], deck[:players]
    for j in range(players):
        hand = strip(hand, keys[j], j)
        hands.append(hand)
    raw = [to_bytes(c) for c in decks[0]]

    def check() -> None:
        for i, b in enumerate(raw):
            from_bytes(b, f"card {i}")

    def whole() -> None:
        d = deck0
        for j in range(players):
            if j == 0:
                d = shuffle(d, keys[0], orders[0])
            else:
                d = decks[j]
                check()
        h = d[:players]
        for j in range(players):
            h = strip(h, keys[0], 0) if j == 0 else hands[j]

    return (
        best(lambda: shuffle(deck0, keys[0], orders[0]), repeats),
        best(lambda: strip(deck[:players], keys[0], 0), repeats),
        best(check, repeats),
        best(whole, repeats),
        best(lambda: audit_deal(POOL, players, decks, hands, [k.e for k in keys]), repeats),
    )


def main() -> None:
    """Print the table."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repeats", type=int, default=3)
    args = parser.parse_args()
    print(f"pool of {len(POOL)} gods; CPU seconds, best of {args.repeats}")
    print(f"{'players':>7} {'shuffle':>8} {'strip':>8} {'check':>8} {'deal':>8} {'audit':>8}")
    for players in (2, 3, 4):
        cells = " ".join(f"{v:8.3f}" for v in row(players, args.repeats))
        print(f"{players:>7} {cells}")


if __name__ == "__main__":
    main()
