#!/usr/bin/env python3
"""Two computer players play a network game over 127.0.0.1, then both replays are verified.

The host and the joiner each get their own fresh identity and home directory (as two
``SANTORINI_HOME``s would), play a whole game through the real ZeroMQ transport and lockstep
sessions, and save their replays. The script checks that both replays are byte-identical and
that they verify, and exits non-zero otherwise.
"""

from __future__ import annotations

import argparse
import asyncio
import tempfile
from pathlib import Path

from santorini_p2p.net.game import GameOutcome, PlayOptions, host_game, join_game
from santorini_p2p.net.session import GameSettings
from santorini_p2p.replay.verify import verify_file
from santorini_p2p.wire.identity import load_or_create_identity


async def play(root: Path, players: int, gods: str) -> list[GameOutcome]:
    """Host a game, join it with ``players - 1`` computer players, and play it out."""
    opts = []
    for i in range(players):
        home = root / f"peer{i}"
        opts.append(
            PlayOptions(
                home=home,
                identity=load_or_create_identity(home, f"bot{i}"),
                bot="random",
                seed=i,
                save=root / f"replay{i}.sntr",
                advertise=False,
            )
        )
    port: asyncio.Future[int] = asyncio.get_running_loop().create_future()
    async with asyncio.timeout(120), asyncio.TaskGroup() as tg:
        host = tg.create_task(
            host_game(
                GameSettings(players, gods),
                opts[0],
                bind="127.0.0.1",
                on_listening=port.set_result,
            )
        )
        address = f"127.0.0.1:{await port}"
        print(f"host listening on {address}")
        joiners = [tg.create_task(join_game(address, o)) for o in opts[1:]]
    return [host.result(), *(j.result() for j in joiners)]


def main() -> int:
    """Run the game and check the replays; return the exit code."""
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--players", type=int, choices=(2, 3, 4), default=2)
    parser.add_argument(
        "--gods", choices=("none", "draft", "challenger", "random"), default="draft"
    )
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as d:
        root = Path(d)
        outcomes = asyncio.run(play(root, args.players, args.gods))
        for i, out in enumerate(outcomes):
            print(f"peer {i}: {'complete' if out.complete else out.stopped}; {out.result}")
            if not out.complete:
                return 1
        replays = [(root / f"replay{i}.sntr").read_bytes() for i in range(args.players)]
        if any(r != replays[0] for r in replays):
            print("the replays differ")
            return 1
        for i in range(args.players):
            verdict = verify_file(root / f"replay{i}.sntr")
            print(verdict.line())
            if not verdict.ok:
                return 1
    print("ok: byte-identical replays that verify")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
