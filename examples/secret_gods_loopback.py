#!/usr/bin/env python3
"""Computer players play a game with secret gods over 127.0.0.1, then the replay is verified.

Each player learns only its own god from the deal (protocol/SECRET.md), plays plain turns
while it is hidden, opens it with the first turn that needs the power, objects to a turn that
breaks it, and opens it at the end. The script checks that every peer holds the same replay
file, that it verifies (the deal and the game audited under every god), and prints the
verdict; it exits non-zero otherwise.
"""

from __future__ import annotations

import argparse
import asyncio
import sys
import tempfile
from pathlib import Path

from santorini_p2p.net.secrettable import SecretBot, play_table
from santorini_p2p.replay.verify import verify_file
from santorini_p2p.wire.secretgame import DEFAULT_POOL


def main() -> int:
    """Play, compare the replays, verify one, print the verdict."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--players", type=int, choices=(2, 3, 4), default=3)
    parser.add_argument("--seed", type=int, default=1)
    args = parser.parse_args()
    bots = [SecretBot(s, f"{args.seed} {s}".encode()) for s in range(args.players)]
    peers = asyncio.run(play_table(bots, DEFAULT_POOL, clock=10.0, limit=80.0))
    replays = {p.replay() for p in peers}
    if len(replays) != 1:
        print("the peers' replays differ", file=sys.stderr)
        return 1
    for p in sorted(peers, key=lambda p: p.bot.seat):
        print(f"seat {p.bot.seat + 1} was dealt {p.bot.god}")
    with tempfile.TemporaryDirectory() as tmp:
        path = Path(tmp) / "secret.sntr"
        path.write_bytes(replays.pop())
        verdict = verify_file(path)
    print(verdict.line())
    return 0 if verdict.ok else 1


if __name__ == "__main__":
    sys.exit(main())
