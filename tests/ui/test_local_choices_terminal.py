"""A person playing Gaea against the computer on a pseudo-terminal is asked for her choice.

RULES.md 10.5 and SPEC.md 8.4: the computer's turn builds a dome; before it is played, the
console asks this person where a worker from her card goes, and the turn goes on from it.
"""

from __future__ import annotations

import json
import re
import sys

from santorini_p2p.ui.local import JOURNAL_FORMAT
from tests.terminal import Terminal, clean_env

SANTORINI = [sys.executable, "-m", "santorini_p2p"]

# Seat 1 (A, Gaea) is the person; seat 2 (B, Apollo) the computer, to move. Its one worker
# that can move can only swap with a1's neighbour a2, and every square it can then build on is
# a level 3: every turn it has builds a dome next to a free ground-level square.
START = "0003X0B/0003X3X/33000/0A3X000/0B3000A 2 gaea,apollo -"


def test_a_person_plays_gaea_against_the_computer_and_is_asked_in_its_turn(tmp_path):
    env = clean_env(tmp_path)
    home = tmp_path / "santorini"
    home.mkdir()
    journal = {
        "format": JOURNAL_FORMAT,
        "title": "vs Computer (easy)",
        "players": [["You", None], ["Computer (easy)", "easy"]],
        "time": None,
        "start": START,
        "actions": [],
        "banks": [0, 0],
        "events": [],
    }
    (home / "local-game.json").write_text(json.dumps(journal), encoding="utf-8")
    argv = [*SANTORINI, "play", "--resume", "--no-mouse"]
    with Terminal(argv, env=env, cwd=tmp_path, columns=150, lines=40) as term:
        asked = re.compile(
            r"Your power: after (a1>a2\^\w\d), put a worker from your card on a "
            r"square \((\w\d)[^)]*\) or type - for none"
        )
        screen = term.wait_for(lambda s: asked.search(s) is not None)
        found = asked.search(screen)
        assert found is not None
        turn, square = found.group(1), found.group(2)
        term.send("a1\r")  # not a square next to the new dome
        term.wait_for("is not a choice here")
        term.send(f"{square}\r")
        played = f"played {turn}+{square}."
        screen = term.wait_for(lambda s: played in s and "Your turn" in s)
        assert "Your power" not in screen
        term.send("\x11")
        term.wait_exit()
