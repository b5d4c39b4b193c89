#!/usr/bin/env python3
"""Play one seeded random game through the engine's public API and print it action by action.

Shows the fold at the heart of santorini-p2p: a game is ``new_game`` followed by
``apply_action`` for each action; the state hash after every action is what peers compare.
"""

from __future__ import annotations

import argparse
import random

from santorini_p2p.engine import (
    GOD_NAMES,
    apply_action,
    format_action,
    legal_actions,
    new_game,
    outcome,
    state_hash,
)


def main() -> int:
    """Play the game and print it; exit 0 when it ended with a result."""
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--players", type=int, choices=(2, 3, 4), default=2)
    parser.add_argument("--seed", type=int, default=1)
    args = parser.parse_args()
    rng = random.Random(args.seed)
    p = new_game(args.players, "random", drawn=tuple(rng.sample(GOD_NAMES, args.players)))
    print(f"gods: {', '.join(p.gods)}")
    number = 0
    while actions := legal_actions(p):
        action = rng.choice(actions)
        number += 1
        seat = p.to_move + 1
        p = apply_action(p, action)
        print(f"{number:3} seat {seat} {format_action(action):<16} {state_hash(p).hex()[:16]}  {p}")
    result = outcome(p)
    if not result.over:
        return 1
    winner = "no winner" if result.winner is None else f"seat {result.winner + 1} wins"
    print(f"game over after {number} actions: {winner}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
