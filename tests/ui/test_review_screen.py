"""The engine review offered at game over: the real program in a pseudo-terminal at 80x24, and
its progress screen stopped with Esc."""

from __future__ import annotations

import asyncio
import re
import sys
import time
from pathlib import Path

import pytest
from prompt_toolkit.application import create_app_session
from prompt_toolkit.application.current import get_app_or_none
from prompt_toolkit.input import create_pipe_input
from prompt_toolkit.output import DummyOutput

from santorini_p2p.replay.review import load_review, review_path
from santorini_p2p.ui import review_view
from tests.terminal import Terminal, clean_env
from tests.ui.test_app import poll, screen_text

SANTORINI = [sys.executable, "-m", "santorini_p2p"]
# A short hot-seat game: the workers placed, two turns each, then seat 1 resigns (typed twice).
SHORT_GAME = (
    "place a1,a2",
    "place e4,e5",
    "a1>b1^a1",
    "e5>d5^e5",
    "b1>c1^b1",
    "d5>c5^d5",
    "resign",
    "resign",
)


def _finish(term: Terminal) -> str:
    """Play the short game; return the game-over screen."""
    term.wait_for(" Place ")  # "Place your workers", or at 60 columns "Place two workers"
    for i, line in enumerate(SHORT_GAME):
        term.send(line + "\r")
        if i < 6:  # each turn is shown in the turn list before the next is typed
            term.wait_for(f"{i + 1}. {line}")
    return term.wait_for("Game over")


BEST_HERE = r"best here \[ \]: [a-e][1-5]>[a-e][1-5]\^[a-e][1-5]"


def _review_line(screen: str) -> str:
    """The viewer's evaluation line, joined with the row under it ("" if none is shown)."""
    rows = screen.splitlines()
    at = next((i for i, x in enumerate(rows) if x.startswith("review:")), None)
    return "" if at is None else " ".join(x.strip() for x in rows[at : at + 2])


def _saved_replay(home: Path) -> Path:
    """The one replay file the game was saved as, under ``$SANTORINI_HOME/games/``."""
    (replay,) = (home / "santorini" / "games").glob("*.sntr")
    return replay


@pytest.mark.parametrize(
    ("columns", "lines", "said"),
    [(80, 24, "r to review it with the engine"), (60, 18, None)],
)
def test_game_over_offers_a_review_that_opens_the_viewer_with_the_engines_marks(
    tmp_path, columns, lines, said
):
    env = clean_env(tmp_path)
    # --think bounds the review too: a twentieth of a second a position.
    argv = [*SANTORINI, "play", "--players", "2", "--untimed", "--no-mouse", "--think", "0.05"]
    with Terminal(argv, env=env, cwd=tmp_path, columns=columns, lines=lines) as term:
        over = _finish(term)
        hint = next(line for line in over.splitlines() if line.startswith(" Game over:"))
        if said is not None:
            assert hint == f" Game over: Enter to leave, {said}, Ctrl-Z to undo."  # whole
        else:
            # At 60x18 the log shows one line, the saved file's: the hint says who won and
            # how, whole; the keys are in the toolbar.
            assert re.fullmatch(r" Game over: .+ wins (with \S+|by resignation)\.", hint), hint
        assert " r review " in over.splitlines()[-1]
        assert "Saved the game as " in over
        replay = _saved_replay(tmp_path)
        term.send("r")
        term.wait_for("Reviewing this game")
        # The replay viewer opens on the game with the review, at the first turn it marks (or
        # else the first it judges): that turn, its evaluations and the engine's best turn.
        # (Each wait names all it reads: a frame may reach the terminal in parts.)
        viewer = term.wait_for(lambda s: s.startswith(" Replay |") and "(best " in s, 60)
        opened = next(x for x in viewer.splitlines() if x.startswith("review:"))
        assert "(best " in opened
        assert int(viewer.split(" step ")[1].split("/")[0]) >= 3
        term.send("g")  # the start, then the first turn of play
        term.wait_for("step 0/7")
        for _ in range(3):
            term.send("l")
        # The turn just played, its evaluations before and after, and the engine's best turn
        # (the best turn from here goes under the line where it does not fit).
        judged = term.wait_for(
            lambda s: "step 3/7" in s and re.search(BEST_HERE, _review_line(s)) is not None
        )
        line = _review_line(judged)
        assert line.startswith("review: a1>b1^a1: ")
        assert "% -> " in line
        assert "(best " in line
        term.send("q")
        back = term.wait_for(lambda s: "Game over" in s and not s.startswith(" Replay"))
        assert (said or " Game over: ") in back
        term.send("\r")
        assert term.wait_exit() == 0
    # Stored beside the replay, as 'santorini replay review' stores it.
    data = replay.read_bytes()
    stored = load_review(review_path(replay), data)
    assert stored is not None
    assert [t.turn for t in stored.turns] == ["a1>b1^a1", "e5>d5^e5", "b1>c1^b1", "d5>c5^d5"]


def test_esc_stops_a_review_under_way_and_says_so(monkeypatch, tmp_path):
    """The review's work sees the stop at its next progress report; nothing is shown after."""
    reports: list[int] = []

    def endless_review(path, *, level, think, jobs, progress):
        # A review that would go on for a minute unless a progress report stops it.
        deadline = time.monotonic() + 60
        while time.monotonic() < deadline:
            progress(len(reports), 40)
            reports.append(len(reports))
            time.sleep(0.01)
        raise AssertionError("the review was never stopped")

    viewed: list[str] = []

    async def viewer(path, *, mouse, review):
        viewed.append(path)

    monkeypatch.setattr(review_view, "review_file", endless_review)
    monkeypatch.setattr(review_view, "view_replay_file", viewer)

    async def main():
        with create_pipe_input() as keys, create_app_session(input=keys, output=DummyOutput()):
            task = asyncio.create_task(review_view.review_game(tmp_path / "game.sntr"))
            await poll(lambda: len(reports) > 3 and get_app_or_none() is not None)
            shown = screen_text(get_app_or_none())
            keys.send_text("\x1b")
            return shown, await asyncio.wait_for(task, 20)

    shown, said = asyncio.run(main())
    assert "Reviewing this game" in shown
    assert "game.sntr" in shown
    assert " of 40 positions" in shown
    assert said == review_view.CANCELLED
    assert viewed == []


def test_a_game_with_no_turn_of_play_offers_no_review(tmp_path):
    env = clean_env(tmp_path)
    argv = [*SANTORINI, "play", "--players", "2", "--untimed", "--no-mouse"]
    with Terminal(argv, env=env, cwd=tmp_path) as term:
        term.wait_for("Place your workers")
        term.send("resign\r")
        term.wait_for("Type resign again")
        term.send("resign\r")
        over = term.wait_for("Game over")
        hint = next(line for line in over.splitlines() if line.startswith(" Game over:"))
        assert hint == " Game over: Enter to leave, Ctrl-Z to undo."
        assert " r review " not in over.splitlines()[-1]
        term.send("r")  # typed into the line, as any letter: no review starts
        term.wait_for(lambda s: s.splitlines()[-2].endswith("> r"))
        assert "Reviewing" not in term.text()
        term.send("\x11")
        assert term.wait_exit() == 0


def test_a_review_that_fails_says_so_and_keeps_the_game(monkeypatch, tmp_path):
    def lost(path, *, level, think, jobs, progress):
        progress(0, 4)
        raise RuntimeError("a search process ended abruptly")

    monkeypatch.setattr(review_view, "review_file", lost)

    async def main():
        with create_pipe_input() as keys, create_app_session(input=keys, output=DummyOutput()):
            return await asyncio.wait_for(review_view.review_game(tmp_path / "game.sntr"), 20)

    said = asyncio.run(main())
    assert said == (
        f"No review: it failed (a search process ended abruptly); the game is kept in "
        f"{tmp_path / 'game.sntr'}."
    )
