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


def _board_rows(screen: str) -> dict[int, str]:
    """The board's rank rows on the screen: rank number -> the row's five squares."""
    rows = {}
    for line in screen.splitlines():
        if len(line) > 33 and line[0] in "12345" and line[1:3] == " |":
            rows[int(line[0])] = line[2:33]
    return rows


def _square(rows: dict[int, str], name: str) -> str:
    f, r = "abcde".index(name[0]), int(name[1])
    return rows[r][1 + 6 * f : 6 + 6 * f]


def _signs(screen: str, sign: str) -> list[str]:
    rows = _board_rows(screen)
    return [f + str(r) for r in rows for f in "abcde" if sign in _square(rows, f + str(r))[2:4]]


@pytest.mark.parametrize("no_color", [True, False])
def test_the_opponents_last_move_is_marked_on_your_turn(tmp_path, no_color):
    env = clean_env(tmp_path, **({"NO_COLOR": "1"} if no_color else {}))
    argv = [*SANTORINI, "play", "--bot", "easy", "--seed", "2", "--untimed", "--no-mouse"]
    with Terminal(argv, env=env, cwd=tmp_path) as term:
        term.wait_for("Place your workers")
        term.send("place a1,e5\r")
        # The computer placed its workers: both squares marked as arrivals on your turn.
        screen = term.wait_for(lambda s: "Your turn" in s and len(_signs(s, "*")) == 2)
        theirs = _signs(screen, "*")
        step = next(sq for sq in ("a2", "b1", "b2") if sq not in theirs)
        term.send(f"a1>{step}^a1\r")
        # Its reply: where its worker left, where it arrived and where it built.
        # (Its reply is drawn when the square a worker left is one of its own.)
        screen = term.wait_for(
            lambda s: (
                "Your turn" in s
                and len(_signs(s, ".")) == 1
                and _signs(s, ".")[0] in theirs
                and len(_signs(s, "+")) >= 1
            )
        )
        assert len(_signs(screen, "*")) == 1
        assert "a1" not in _signs(screen, "+")  # my own build is no longer marked
        left = _signs(screen, ".")[0]
        assert left in theirs
        if not no_color:
            # The sign's square is drawn in the mark's colour, unlike the plain squares.
            rows = [
                r for r in range(term.screen.lines) if term.text().splitlines()[r][:1] in "12345"
            ]
            cells = [
                term.screen.buffer[y][x]
                for y in rows
                for x in range(3, 33)
                if term.screen.buffer[y][x].data in ".*+"
            ]
            assert cells
            plain = term.screen.buffer[rows[0]][4]
            assert all(c.bg != plain.bg for c in cells)
        term.send("\x11")
        assert term.wait_exit() == 0


def test_a_new_play_asks_before_it_replaces_an_unfinished_game(tmp_path):
    env = clean_env(tmp_path)
    left = subprocess.run(
        [*SANTORINI, "play", "--players", "2", "--untimed"],
        input="place a1,a2\n",
        env=env,
        cwd=tmp_path,
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert left.returncode == 1  # the input ended first: the game is kept
    # Without a terminal a second play says what to do instead of giving the game up.
    again = subprocess.run(
        [*SANTORINI, "play", "--bot", "easy"],
        input="",
        env=env,
        cwd=tmp_path,
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert again.returncode == 2
    assert (
        "an unfinished game is kept on this terminal (hot-seat, 1 actions played)" in again.stderr
    )
    assert "--resume" in again.stderr
    assert "--new" in again.stderr
    # On a terminal the player is asked; choosing to resume shows the game where it was.
    argv = [*SANTORINI, "play", "--bot", "easy", "--no-mouse"]
    with Terminal(argv, env=env, cwd=tmp_path) as term:
        term.wait_for("An unfinished game is kept on this terminal")
        term.wait_for("1. Resume it (hot-seat, 1 actions played)")
        term.send("1")
        term.wait_for(lambda s: "Resumed the game" in s and "Santorini | hot-seat" in s)
        term.send("\x11")
        assert term.wait_exit() == 0
    new = subprocess.run(
        [*SANTORINI, "play", "--bot", "easy", "--new", "--untimed"],
        input="resign\n",
        env=env,
        cwd=tmp_path,
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert new.returncode == 0, new.stderr


def test_help_fits_60_columns_between_words_and_a_small_window_says_the_size_it_needs(tmp_path):
    env = clean_env(tmp_path)
    argv = [*SANTORINI, "play", "--gods", "random", "--seed", "1", "--untimed", "--no-mouse"]
    with Terminal(argv, env=env, cwd=tmp_path, columns=60, lines=18) as term:
        # At 60 columns the hint takes its short form rather than being cut.
        hint = term.wait_for("Place two workers (like b2,d4); Tab completes.")
        assert "Place your workers" not in hint
        term.send("?")
        # (The box is drawn whole once its last lines show.)
        screen = term.wait_for(lambda s: "| Help |" in s and "of choices)" in s)
        rows = screen.splitlines()
        box = [r for r in rows if r.startswith("│")]
        assert box
        # The box spans the screen: nothing of the board shows beside its borders.
        assert all(r.endswith("│") and len(r) == 60 for r in box)
        assert "│Esc, Ctrl-U     clear the line (Esc first closes the menu │" in box
        assert "│                of choices)" in "\n".join(box)
        term.send("\x1b")
        term.send("\x11")
        assert term.wait_exit() == 0
    with Terminal(argv, env=env, cwd=tmp_path, columns=50, lines=14) as term:
        term.wait_for("Window too small: needs 60x18, this is 50x14")
        term.send("\x11")
        assert term.wait_exit() == 0


def test_a_long_note_on_the_start_screen_is_wrapped_not_cut(tmp_path):
    env = clean_env(tmp_path)
    home = tmp_path / "santorini"
    home.mkdir(mode=0o700)
    journal = home / "local-game.json"
    journal.write_text('{"format": "santorini-local-game-1", "players": "not a list"}')
    with Terminal(SANTORINI, env=env, cwd=tmp_path, columns=60, lines=24) as term:
        screen = term.wait_for("Correspondence games")
        # The note follows the last entry; its words, wrapped or not.
        note = "".join(screen.split("8. Correspondence games")[1].split())
        assert note.startswith("".join(f"{journal}: cannot resume:".split()))
        assert all(len(line) <= 60 for line in screen.splitlines())
        term.send("\x11")
        assert term.wait_exit() == 0


def test_the_console_logs_to_a_private_file_in_its_home_not_to_a_shared_directory(tmp_path):
    env = clean_env(tmp_path, TMPDIR=str(tmp_path / "tmp"))
    (tmp_path / "tmp").mkdir()
    argv = [*SANTORINI, "play", "--untimed", "--no-mouse"]
    with Terminal(argv, env=env, cwd=tmp_path) as term:
        term.wait_for("Place your workers")
        term.send("\x11")
        assert term.wait_exit() == 0
    log = tmp_path / "santorini" / "console.log"
    assert log.exists()
    assert log.stat().st_mode & 0o777 == 0o600
    assert not list((tmp_path / "tmp").iterdir())
