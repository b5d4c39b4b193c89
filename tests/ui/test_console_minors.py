"""The console at the sizes players use (80x24 and 60x18), in a pseudo-terminal: the menu of
choices, the window-too-small screen, and what is said at the edges of the screen."""

from __future__ import annotations

import re
import sys

from tests.terminal import Terminal, clean_env

SANTORINI = [sys.executable, "-m", "santorini_p2p"]


def _board_whole(screen: str) -> bool:
    """Every row of the board is on the screen with its five squares and both edges."""
    rows = screen.splitlines()
    for n in range(1, 6):
        row = next((r for r in rows if r.startswith(f"{n} |")), None)
        if row is None or row[:33].count("|") != 6:
            return False
    return True


def _input(screen: str) -> str:
    return next((r for r in screen.splitlines() if r.startswith("A>")), "")


def test_tab_shows_the_choices_beside_the_board_at_60x18_and_takes_none_until_asked(tmp_path):
    argv = [*SANTORINI, "play", "--untimed", "--new"]
    with Terminal(argv, columns=60, lines=18, env=clean_env(tmp_path)) as term:
        term.wait_for(lambda s: "Place two workers" in s and _input(s).strip() == "A>")
        term.send("\t")
        # The choices show, beside the board (which stays whole), and none is typed yet.
        screen = term.wait_for(lambda s: "place a1" in s and "place c3" in s and _board_whole(s))
        assert _input(screen).strip() == "A>", screen
        # Tab again (or the arrows) goes through them; Enter takes the one shown.
        term.send("\t")
        term.wait_for(lambda s: _input(s).strip() == "A> place a1" and _board_whole(s))
        term.send("\x1b[B")
        term.wait_for(lambda s: _input(s).strip() == "A> place b1")
        term.send("\r")
        # Enter on a first square opens the second's choices, again with none taken.
        screen = term.wait_for(lambda s: ",c1" in s and "second worker" in s and _board_whole(s))
        assert _input(screen).strip() == "A> place b1", screen
        term.send("\t\r")
        screen = term.wait_for(lambda s: re.search(r"1\. place b1,\w\w", s) is not None)
