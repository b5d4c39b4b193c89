"""Maenads with three players over 127.0.0.1: ``santorini host --players 3 --gods-from``.

Three ``santorini`` processes with computer players play whole games; every game must end
with byte-identical replays that verify, and Maenads must put a sandwiched player out of a
game while play goes on (RULES.md sections 4 and 9). The deal and the start player come from
the peers' fresh keys, so games are played until one shows the elimination (bounded).
"""

from __future__ import annotations

import re
from pathlib import Path

from santorini_p2p.engine import Position, format_position
from santorini_p2p.engine.gods.maenads import sandwiched
from santorini_p2p.replay.timeline import read_timeline
from tests.net.test_loopback import Peer, _check_replays

POOL = "maenads,apollo,pan"
MOST_GAMES = 16


def _game(tmp: Path, seed: int) -> bytes:
    """One 3-player game between random bots; the host's saved replay."""
    tmp.mkdir()
    host = Peer(
        tmp,
        "p0",
        [
            "host",
            "--bind",
            "127.0.0.1",
            "--no-advertise",
            "--players",
            "3",
            "--gods",
            "random",
            "--gods-from",
            POOL,
            "--bot",
            "random",
            "--seed",
            str(seed),
            "--save",
            str(tmp / "r0"),
        ],
    )
    port = int(host.wait_for(r"address: 127\.0\.0\.1:(\d+)").group(1))
    joiners = [
        Peer(
            tmp,
            f"p{i}",
            [
                "join",
                f"127.0.0.1:{port}",
                "--bot",
                "random",
                "--seed",
                str(seed * 10 + i),
                "--save",
                str(tmp / f"r{i}"),
            ],
        )
        for i in (1, 2)
    ]
    codes = [p.finish() for p in (host, *joiners)]
    assert codes == [0, 0, 0], "\n".join(p.text() for p in (host, *joiners))
    _check_replays(tmp, 3)
    return (tmp / "r0").read_bytes()


def _sandwich_outs(data: bytes) -> list[tuple[Position, Position]]:
    """The turns of Maenads after which a seat with a worker between two of hers is out."""
    t = read_timeline(data)
    assert t.ok, t.error
    found = []
    before = t.start
    for step in t.steps:
        after = step.position
        if before is not None and step.kind == "act" and before.gods[before.to_move] == "maenads":
            me = before.to_move
            for seat in range(3):
                newly_out = after.eliminated >> seat & 1 and not before.eliminated >> seat & 1
                if newly_out and sandwiched(after.workers[me], before.workers[seat]):
                    found.append((before, after))
        before = after
    return found


def test_maenads_puts_a_sandwiched_player_out_and_three_bots_play_on(tmp_path):
    for seed in range(1, MOST_GAMES + 1):
        data = _game(tmp_path / f"g{seed}", seed)
        outs = _sandwich_outs(data)
        if outs:
            break
    else:
        raise AssertionError(f"no Maenads elimination in {MOST_GAMES} games")
    _, after = outs[0]
    # Play went on: the game did not end at her turn, and a seat still in plays next.
    assert after.winner < 0
    assert after.eliminated.bit_count() == 1
    assert not after.eliminated >> after.to_move & 1
    assert re.search(r" x[123]$", format_position(after))
    t = read_timeline(data)
    assert t.result is not None
    assert t.steps[-1].position != after  # more turns followed hers
