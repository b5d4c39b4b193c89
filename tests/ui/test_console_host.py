"""The console's Host screen asks the display name, on the real program at 80x24."""

from __future__ import annotations

import sys

from tests.terminal import Terminal, clean_env

SANTORINI = [sys.executable, "-m", "santorini_p2p"]


def _host_menus(term: Terminal) -> str:
    """Start screen -> Host: 2 players, no gods, untimed; return the name question's screen."""
    term.wait_for("What would you like to do?")
    term.send("3")
    term.wait_for("How many players?")
    term.send("1")
    term.wait_for("Gods")
    term.send("1")
    term.wait_for("Clocks")
    term.send("2")
    return term.wait_for("Your name (Enter for ")


def test_host_asks_the_name_offers_the_last_one_and_shows_it_in_the_game(tmp_path):
    env = clean_env(tmp_path)
    with Terminal([*SANTORINI], env=env, cwd=tmp_path) as term:
        first = _host_menus(term)
        # The identity's name first: the login name and the key's first digits.
        default = first.split("Your name (Enter for ")[1].split(")")[0]
        assert default
        term.send("x" * 65 + "\r")
        term.wait_for("name: expected 1 to 64 bytes of UTF-8, got 65")
        term.send("\x15Ann\r")  # Ctrl-U clears the field
        term.wait_for(lambda s: "Waiting for players" in s and "A seat 1 Ann " in s)
        term.send("\x11")  # nobody joined: leave at once
        # The next game offers the name given last.
        again = _host_menus(term)
        assert "Your name (Enter for Ann):" in again
        term.send("\x1b")
        term.wait_for("What would you like to do?")
        term.send("\x11")
        assert term.wait_exit() == 0
