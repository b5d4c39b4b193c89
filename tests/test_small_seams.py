"""Small things players expect, at the command line: ``host --untimed``, a private review
file, ``replay info`` on a game not yet finished."""

from __future__ import annotations

import shutil
import stat
from pathlib import Path

import pytest

from santorini_p2p.cli import main
from santorini_p2p.replay.review import Review, save_review
from santorini_p2p.wire.log import encode_frames, iter_frames

ROOT = Path(__file__).resolve().parents[1]
TAKEBACK_REPLAY = ROOT / "protocol" / "vectors" / "replays" / "2p-takeback.sntr"


def test_host_takes_untimed_as_play_does_and_refuses_it_with_a_time(tmp_path, monkeypatch, capsys):
    monkeypatch.setenv("SANTORINI_HOME", str(tmp_path))
    assert main(["host", "--untimed", "--time", "60+300"]) == 2
    assert "--untimed and --time 60+300" in capsys.readouterr().err


def test_a_review_file_is_as_private_as_the_replay(tmp_path):
    path = tmp_path / "game.review.json"
    save_review(path, Review("x" * 64, "hard", 0.1, (), ()))
    assert stat.S_IMODE(path.stat().st_mode) == 0o600


def test_replay_info_on_an_unfinished_game_is_no_failure(tmp_path, capsys):
    frames = list(iter_frames(TAKEBACK_REPLAY.read_bytes()))
    unfinished = tmp_path / "unfinished.sntr"
    unfinished.write_bytes(encode_frames(frames[:40]))
    assert main(["replay", "info", str(unfinished)]) == 0
    out = capsys.readouterr().out
    assert "result        unfinished" in out
    assert "verification  every record good; unfinished:" in out
    # A file that is bad, not just unfinished, still fails.
    bad = tmp_path / "bad.sntr"
    shutil.copyfile(TAKEBACK_REPLAY, bad)
    data = bytearray(bad.read_bytes())
    data[-10] ^= 1
    bad.write_bytes(bytes(data))
    assert main(["replay", "info", str(bad)]) == 1


def test_gods_on_an_80_column_terminal_wraps_each_power_under_its_column(tmp_path):
    import sys

    from tests.terminal import Terminal, clean_env

    argv = [sys.executable, "-m", "santorini_p2p", "gods"]
    with Terminal(argv, env=clean_env(tmp_path), columns=80, lines=200) as term:
        assert term.wait_exit() == 0
        lines = term.raw.decode().splitlines()
    # Columns as wide as the longest name (bellerophon, terpsichore) and set (goldenfleece).
    assert lines[0].startswith("apollo      simple       players 2,3,4  Your worker may move")
    assert max(len(line) for line in lines) < 80
    # A continuation line starts under the power's column.
    assert lines[1].startswith(" " * 40)
    assert lines[1].strip()


def test_help_lists_the_players_commands_first(capsys):
    with pytest.raises(SystemExit):
        main(["--help"])
    out = capsys.readouterr().out
    listed = [line.split()[0] for line in out.splitlines() if line.startswith("    ")]
    assert listed[:4] == ["play", "watch", "host", "join"]
    assert listed.index("perft") > listed.index("replay")


def test_an_ipv6_join_where_nothing_listens_fails_at_once_and_says_so_once(
    tmp_path, monkeypatch, capsys
):
    import socket

    monkeypatch.setenv("SANTORINI_HOME", str(tmp_path))
    try:
        with socket.socket(socket.AF_INET6) as s:
            s.bind(("::1", 0))
            port = s.getsockname()[1]
    except OSError:
        pytest.skip("no IPv6 loopback here")
    assert main(["join", f"[::1]:{port}", "--bot", "random"]) == 1
    captured = capsys.readouterr()
    said = captured.out + captured.err
    assert said.count(f"nothing listens at [::1]:{port} (connection refused)") == 1
    assert "no answer" not in said


def test_a_missing_replay_file_is_asked_again_on_the_same_screen(tmp_path):
    import sys

    from tests.terminal import Terminal, clean_env

    argv = [sys.executable, "-m", "santorini_p2p"]
    with Terminal(argv, env=clean_env(tmp_path), cwd=tmp_path) as term:
        term.wait_for("Open a replay")
        term.send("6")  # no games yet: straight to the file's name
        term.wait_for("file:")
        term.send("missing.sntr\r")
        # The error, the screen's title and the input line come in one redraw: wait for all.
        wanted = (
            "cannot read missing.sntr: No such file or directory",
            "Open a replay file",
            "file:",
        )
        screen = term.wait_for(lambda s: all(text in s for text in wanted))
        assert "Play the computer" not in screen  # not sent back to the start screen
        term.send("\x1b")  # Escape: back to the start screen
        term.wait_for("Play the computer")
        term.send("\x11")
        assert term.wait_exit() == 0


def test_hot_seat_and_computer_games_record_the_names_the_screen_shows(tmp_path, monkeypatch):
    from santorini_p2p.ui.lan import remember_name
    from santorini_p2p.ui.start import GameOptions, computer_game, hotseat_game
    from santorini_p2p.wire.log import read_log

    monkeypatch.setenv("SANTORINI_HOME", str(tmp_path))
    options = GameOptions(timed=False, seed=3)

    def recorded(game) -> list[str]:
        game.resign()  # seat 1 resigns at once: the game is over, and kept
        assert game.replay is not None
        header = read_log(game.replay.read_bytes()).header
        return [s.name for s in header.seats]

    assert sorted(recorded(hotseat_game(2, options))) == ["Player 1", "Player 2"]
    remember_name(tmp_path, "ann")  # the display name last given on Host or Join
    assert sorted(recorded(computer_game("random", 2, options))) == ["Computer (random)", "ann"]


def test_ctrl_c_in_a_game_says_it_is_kept(tmp_path):
    import sys

    from tests.terminal import Terminal, clean_env

    argv = [sys.executable, "-m", "santorini_p2p"]
    with Terminal(argv, env=clean_env(tmp_path), cwd=tmp_path) as term:
        term.wait_for("Play the computer")
        term.send("2")  # hot-seat
        for _ in range(8):  # the set-up's questions, each answered with its default
            before = term.wait_for(lambda s: "Play the computer" not in s)
            if "| hot-seat |" in before:  # the game screen's title bar
                break
            term.send("\r")
            term.wait_for(lambda s, before=before: s != before)
        term.wait_for("| hot-seat |")
        term.send("\x03")
        assert term.wait_exit() == 0
        assert "The game is kept: the start screen offers to resume it." in term.text()
