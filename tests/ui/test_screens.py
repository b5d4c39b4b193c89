"""The real program on a pseudo-terminal at 80x24 and 60x18: what a person sees and types."""

from __future__ import annotations

import subprocess
import sys

import pytest

from tests.terminal import Terminal, clean_env

SANTORINI = [sys.executable, "-m", "santorini_p2p"]


def _finish_a_game(env, cwd, argv) -> None:
    done = subprocess.run(
        [*SANTORINI, "play", *argv],
        input="resign\n",
        env=env,
        cwd=cwd,
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert done.returncode == 0, done.stdout + done.stderr


@pytest.mark.parametrize(("columns", "lines"), [(80, 24), (60, 18)])
def test_open_a_replay_lists_recent_games_newest_first_and_completes_other_files(
    tmp_path, columns, lines
):
    env = clean_env(tmp_path)
    _finish_a_game(env, tmp_path, ["--bot", "easy"])
    _finish_a_game(env, tmp_path, ["--players", "2", "--gods", "random", "--seed", "4"])
    kept = sorted((tmp_path / "santorini" / "games").glob("*.sntr"))
    (tmp_path / "my-game.sntr").write_bytes(kept[0].read_bytes())
    with Terminal(SANTORINI, env=env, cwd=tmp_path, columns=columns, lines=lines) as term:
        term.wait_for("Open a replay")
        term.send("6")
        screen = term.wait_for("Another file")
        rows = screen.splitlines()
        first = next(i for i, r in enumerate(rows) if "1. " in r)
        second = next(i for i, r in enumerate(rows) if "2. " in r)
        # Newest first: the hot-seat game (players with their gods), then the computer game.
        assert "Player 2 (" in "\n".join(rows[first:second])
        assert "Player 2 won by resignation" in "\n".join(rows[first:second])
        assert "vs Computer (easy)" in rows[second]
        assert "Computer (easy) won by resignation" in rows[second + 1]
        assert all(len(r) <= columns for r in rows)
        term.send("3")  # another file
        term.wait_for("file:")
        term.send("my-g\t")
        term.wait_for("file: my-game.sntr")
        term.send("\r")
        term.wait_for("Replay | my-game.sntr")
        term.send("q")
        term.wait_for("Open a replay")
        term.send("\x11")
        assert term.wait_exit() == 0


@pytest.mark.parametrize(("columns", "lines"), [(80, 24), (60, 18)])
def test_the_host_shows_its_whole_address_while_it_waits(tmp_path, columns, lines):
    env = clean_env(tmp_path)
    argv = [*SANTORINI, "host", "--bind", "127.0.0.1", "--no-advertise", "--port", "0"]
    with Terminal(argv, env=env, cwd=tmp_path, columns=columns, lines=lines) as term:
        screen = term.wait_for("santorini join 127.0.0.1:")
        line = next(r for r in screen.splitlines() if "santorini join" in r)
        address = line.split("santorini join ")[1].strip()
        host, port = address.rsplit(":", 1)
        assert host == "127.0.0.1"
        assert port.isdigit()
        assert 0 < int(port) < 65536
        term.send("\x11")
        term.wait_exit()
