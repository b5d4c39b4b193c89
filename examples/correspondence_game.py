#!/usr/bin/env python3
"""Two computer players play a correspondence game by passing text blocks, then verify it.

Each side has its own home directory (as two ``SANTORINI_HOME``s would). Every block goes
through a "mail client" that re-wraps its lines and quotes it with ``> `` before the other
side reads it, and one block on the way is lost and written again. The script checks that
both sides end with the same replay file and that it verifies, and exits non-zero otherwise.
"""

from __future__ import annotations

import argparse
import tempfile
import textwrap
import time
from pathlib import Path

from santorini_p2p.net.post import PostGame
from santorini_p2p.net.postbot import random_bot
from santorini_p2p.net.postio import read_block_text
from santorini_p2p.replay.verify import verify_file
from santorini_p2p.wire.identity import load_or_create_identity
from santorini_p2p.wire.post import Invitation, RecordsBlock


def mail(text: str) -> str:
    """What a mail client may do to a block: re-wrapped at 40 columns and quoted."""
    lines = [piece for line in text.splitlines() for piece in textwrap.wrap(line, 40)]
    return "Your move:\n" + "\n".join(f"> {line}" for line in lines) + "\n"


def now_ms() -> int:
    """Wall-clock milliseconds."""
    return time.time_ns() // 1_000_000


def main() -> int:
    """Play the game and check the replays; return the exit code."""
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--gods", choices=("none", "draft", "random"), default="draft")
    parser.add_argument("--lose", type=int, default=9, help="the block lost on the way")
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as d:
        homes = [Path(d) / "alice", Path(d) / "bob"]
        ids = [load_or_create_identity(h, n) for h, n in zip(homes, ("alice", "bob"), strict=True)]
        bots = [random_bot("random", 1), random_bot("random", 2)]
        alice, _ = PostGame.invite(
            homes[0], ids[0], gods=args.gods, pool=(), days=0, now_ms=now_ms()
        )
        invitation, data = read_block_text(mail(alice.block_text(now_ms())))
        assert isinstance(invitation, Invitation)
        bob = PostGame.accept(homes[1], ids[1], invitation, data, now_ms(), None)
        games = [alice, bob]
        text_out = mail(bob.block_text(now_ms()))
        reader = 0
        for n in range(1, 400):
            game = games[reader]
            block, _ = read_block_text(text_out)
            assert isinstance(block, RecordsBlock)
            game.receive(block, now_ms())
            game.advance(bots[reader], now_ms())
            game.save()
            if not game.outgoing():
                break
            text_out = mail(game.block_text(now_ms()))
            if n == args.lose:
                print(f"block {n} is lost; the other side writes its last block again")
                text_out = mail(games[1 - reader].block_text(now_ms()))
                continue
            reader = 1 - reader
        for name, game in zip(("alice", "bob"), games, strict=True):
            status = game.status()
            print(f"{name}: {status.turn}; {status.result}; {status.records} records")
            if not game.is_complete:
                return 1
        replays = [Path(g.status().replay).read_bytes() for g in games]
        if replays[0] != replays[1]:
            print("the replays differ")
            return 1
        verdict = verify_file(games[0].status().replay)
        print(verdict.line())
        if not verdict.ok:
            return 1
    print("ok: the same replay on both sides, and it verifies")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
