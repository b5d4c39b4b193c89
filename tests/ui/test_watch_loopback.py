"""Watching computer players over 127.0.0.1: p pauses them, n lets one more turn through."""

from __future__ import annotations

import re
import sys

from tests.terminal import Terminal, clean_env

SANTORINI = [sys.executable, "-m", "santorini_p2p"]


def _last_turn(screen: str) -> int:
    """The number of the last entry in the Turns panel (0 before the first)."""
    found = re.findall(r"(\d+)\. (?:place |god |gods |start |H?[a-e][1-5][>^])", screen)
    return max((int(n) for n in found), default=0)


def test_watch_loopback_pauses_on_p_and_plays_one_turn_on_n(tmp_path):
    env = clean_env(tmp_path)
    argv = [
        *SANTORINI,
        "watch",
        "--loopback",
        "--levels",
        "random",
        "random",
        "--pace",
        "100",
        "--no-mouse",
        "--untimed",
    ]
    with Terminal(argv, env=env, cwd=tmp_path) as term:
        # (Each wait names all it reads: a frame may reach the terminal in parts.)
        term.wait_for(
            lambda s: _last_turn(s) >= 2 and " p pause  n one move " in s.splitlines()[-1]
        )
        term.send("p")
        # Said once a player holds its turn: from then on the turn list stands still.
        held = term.wait_for(
            lambda s: (
                "Paused: p plays on, n one move." in s
                and " p play on  n one move " in s.splitlines()[-1]
                and ": paused" in s.splitlines()[0]
            )
        )
        count = _last_turn(held)
        term.send("n")
        term.wait_for(lambda s: _last_turn(s) == count + 1)
        term.send("n")
        term.wait_for(
            lambda s: _last_turn(s) == count + 2 and " p play on  n one move " in s.splitlines()[-1]
        )
        term.send("p")
        term.wait_for("Playing on.")
        term.wait_for(lambda s: _last_turn(s) >= count + 4 or "game over" in s)
        term.send("\x11")
        assert term.wait_exit() == 0
