#!/usr/bin/env python3
"""Two computer players play a god of RULES.md section 9 or 10 over 127.0.0.1.

One of the fourteen Golden Fleece and promo gods of section 9 or the eighteen gods with memory
and heroes of section 10 (``--god``, or one picked at random) plays a simple god, dealt by
``santorini host --gods random --gods-from GOD,OTHER``. Host and joiner, each with its own
identity and home, play it through the real ZeroMQ transport and lockstep sessions, setup
choices included (a female worker, a song, a third worker), and save their replays; the script
checks that both are byte-identical, that they verify, and that the game names the gods.
"""

from __future__ import annotations

import argparse
import asyncio
import random
import tempfile
from pathlib import Path

from santorini_p2p.engine.gods import GROUP1, HEROES, MEMORY, SIMPLE
from santorini_p2p.engine.gods.bans import ban_reason as pairing_error
from santorini_p2p.engine.setup import resolve_pool
from santorini_p2p.net.game import GameOutcome, PlayOptions, host_game, join_game
from santorini_p2p.net.session import GameSettings
from santorini_p2p.replay.verify import verify_file
from santorini_p2p.wire.identity import load_or_create_identity
from santorini_p2p.wire.log import read_log


async def play(root: Path, pool: tuple[str, ...]) -> list[GameOutcome]:
    """Host a random deal from ``pool``, join it with a second computer player, play it out."""
    opts = [
        PlayOptions(
            home=root / f"peer{i}",
            identity=load_or_create_identity(root / f"peer{i}", f"bot{i}"),
            bot="random",
            seed=i,
            save=root / f"replay{i}.sntr",
            advertise=False,
        )
        for i in range(2)
    ]
    port: asyncio.Future[int] = asyncio.get_running_loop().create_future()
    async with asyncio.timeout(120), asyncio.TaskGroup() as tg:
        host = tg.create_task(
            host_game(
                GameSettings(2, "random", pool=pool),
                opts[0],
                bind="127.0.0.1",
                on_listening=port.set_result,
            )
        )
        address = f"127.0.0.1:{await port}"
        print(f"host listening on {address}")
        joiner = tg.create_task(join_game(address, opts[1]))
    return [host.result(), joiner.result()]


def main() -> int:
    """Pick the pairing, play it, check the replays; return the exit code."""
    parser = argparse.ArgumentParser(description=__doc__)
    names = [g.name for g in GROUP1 + MEMORY + HEROES]
    parser.add_argument("--god", choices=names, help="the god of section 9 or 10 (default: any)")
    parser.add_argument("--seed", type=int, help="seed of the pairing (default: any)")
    args = parser.parse_args()
    rng = random.Random(args.seed)
    god = args.god or rng.choice(names)
    others = [g.name for g in SIMPLE if pairing_error((god, g.name)) is None]
    pair = [god, rng.choice(others)]
    # The same check as `--gods-from GOD,OTHER`: known gods, enough of them, right counts.
    pool = resolve_pool(",".join(pair), 2, "random")
    print(f"pairing: {pair[0]} against {pair[1]}")
    with tempfile.TemporaryDirectory() as d:
        root = Path(d)
        outcomes = asyncio.run(play(root, pool))
        for i, out in enumerate(outcomes):
            print(f"peer {i}: {'complete' if out.complete else out.stopped}; {out.result}")
            if not out.complete:
                return 1
        replays = [(root / f"replay{i}.sntr").read_bytes() for i in range(2)]
        if replays[0] != replays[1]:
            print("the replays differ")
            return 1
        verdict = verify_file(root / "replay0.sntr")
        print(verdict.line())
        if not verdict.ok:
            return 1
        v = read_log(replays[0])
        if v.header is None or v.header.pool != pool:
            print("the header does not name the pool")
            return 1
        if v.position is None or sorted(v.position.gods) != sorted(pair):
            print("the game was not dealt the pairing")
            return 1
        print(f"header protocol {v.header.protocol}, pool {', '.join(v.header.pool)}")
    print("ok: byte-identical replays of the pairing that verify")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
