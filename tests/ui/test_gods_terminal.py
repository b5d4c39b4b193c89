"""The real program on an 80x24 pseudo-terminal: an advanced gods' game with Tab and Enter alone."""

from __future__ import annotations

import re
import subprocess
import sys

import pytest

from tests.terminal import Terminal, clean_env

SANTORINI = [sys.executable, "-m", "santorini_p2p"]


def _play_offers_god_pools() -> bool:
    shown = subprocess.run(
        [*SANTORINI, "play", "--help"], capture_output=True, text=True, timeout=60, check=True
    )
    return "--gods-from" in shown.stdout


def _input_row(screen: str) -> str:
    """The input line: the row that starts with a side's prompt (``A> ``) or the idle ``  >``."""
    rows = screen.splitlines()
    return next((r for r in rows if r[:3] in ("A> ", "B> ", "C> ") or r == "  >"), "")


def _ours(screen: str) -> bool:
    """Whether the title bar says it is this terminal's turn (the menu may cover the hint)."""
    return ": your turn" in screen.split("\n", 1)[0]


def play_with_tab_only(term: Terminal, presses: int = 2000) -> str:
    """Tab (the first step offered) and Enter, each when it is this side's turn, to the end."""
    for _ in range(presses):
        screen = term.wait_for(lambda s: _ours(s) or "Game over" in s, timeout=60)
        if "Game over" in screen:
            return screen
        before = _input_row(screen)
        # Tab shows the choices and takes none (a step alone is typed at once); Tab again
        # takes the first. A menu already open (Enter opens the next steps' menu over the
        # side panel, where the seats' lines are otherwise) takes it on one Tab.
        menu_open = re.search(r"[ >] [A-D] seat \d", screen.splitlines()[1]) is None
        term.send("\t" if menu_open else "\t\t")
        screen = term.wait_for(lambda s, before=before: _input_row(s) != before or "Game over" in s)
        if "Game over" in screen:
            return screen
        drawn = len(term.raw)
        term.send("\r")
        # Enter plays the turn, or opens the menu of the next steps: either is drawn.
        term.wait_for(lambda s, drawn=drawn: len(term.raw) > drawn)
    raise AssertionError(f"the game did not end in {presses} presses:\n{term.text()}")


@pytest.mark.skipif(
    not _play_offers_god_pools(),
    reason="santorini play has no --gods-from yet (the god pools); enabled once it has",
)
@pytest.mark.parametrize("gods", ["charon,minotaur", "triton,hera"])
def test_a_game_with_an_advanced_god_ends_with_tab_and_enter_only(tmp_path, gods):
    env = clean_env(tmp_path)
    saved = tmp_path / "game.sntr"
    argv = [
        *SANTORINI,
        "play",
        "--bot",
        "random",
        "--gods",
        "random",
        "--gods-from",
        gods,
        "--seed",
        "3",
        "--untimed",
        "--no-mouse",
        "--save",
        str(saved),
    ]
    with Terminal(argv, env=env, cwd=tmp_path, columns=80, lines=24) as term:
        screen = play_with_tab_only(term)
        assert "Game over" in screen
        assert all(len(r) <= 80 for r in screen.splitlines())
        term.send("\r")
        assert term.wait_exit() == 0
    info = subprocess.run(
        [*SANTORINI, "replay", "info", str(saved)],
        capture_output=True,
        text=True,
        timeout=60,
        env=env,
        check=True,
    )
    god = gods.split(",")[0]
    assert god in info.stdout
