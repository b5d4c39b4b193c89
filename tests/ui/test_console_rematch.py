"""A rematch on the console's game screen, on the real program at 80x24 (SESSION.md 10).

A person hosts on a pseudo-terminal (``santorini host`` with no bot opens the game screen); a
computer player joins with ``--rematch 1``. The person resigns each game to end it quickly.
"""

from __future__ import annotations

import re
import sys

from santorini_p2p.replay.verify import verify_file
from santorini_p2p.wire.log import read_log
from tests.net.test_loopback import Peer
from tests.terminal import Terminal, clean_env

SANTORINI = [sys.executable, "-m", "santorini_p2p"]


def _resign(term: Terminal) -> None:
    term.wait_for(lambda s: "Place your workers" in s or "Your turn" in s or "Place two" in s)
    term.send("resign\r")
    term.wait_for("Type resign again")
    term.send("resign\r")


def test_a_person_accepts_a_rematch_with_y_and_the_other_player_moves_first(tmp_path):
    env = clean_env(tmp_path)
    save = tmp_path / "mine.sntr"
    argv = [*SANTORINI, "host", "--bind", "127.0.0.1", "--no-advertise", "--time", "none"]
    with Terminal([*argv, "--save", str(save)], env=env, cwd=tmp_path) as term:
        screen = term.wait_for("santorini join 127.0.0.1:")
        port = re.search(r"santorini join 127\.0\.0\.1:(\d+)", screen).group(1)
        bot = Peer(
            tmp_path,
            "bot",
            ["join", f"127.0.0.1:{port}", "--bot", "random", "--rematch", "1", "--name", "Bot"],
        )
        try:
            _resign(term)
            # The computer asks at once: the person is asked, with the keys to answer.
            term.wait_for("Bot asks for a rematch: accept (y) / decline (n)")
            term.send("y")
            # The rematch: a new game on the same screen, numbered, with the match's score (the
            # person resigned game 1); the person resigns it too.
            term.wait_for("Rematch: game 2. Score: ")
            assert re.search(r"Score: (root-\w+ 0, Bot 1|Bot 1, root-\w+ 0)\.", term.text())
            _resign(term)
            # The computer accepted one rematch only: it says no to the next (a decline of the
            # person's m, or, when its no comes first, that it is not playing again).
            term.wait_for("m rematch")
            term.send("m")
            term.wait_for(
                lambda s: "no rematch: Bot declined" in s or "no rematch: Bot is not playing" in s
            )
            term.send("\x11")
            assert term.wait_exit() == 0
            assert bot.proc.wait(timeout=60) == 0, bot.text()
        finally:
            bot.kill()
    second = tmp_path / "mine-2.sntr"
    assert verify_file(save).ok
    assert verify_file(second).ok
    first_log, second_log = read_log(save.read_bytes()), read_log(second.read_bytes())
    assert first_log.header.game_id != second_log.header.game_id
    slots = [s.public_key for s in first_log.header.seats]
    start1 = slots.index(first_log.seats[0])
    assert second_log.seats[0] == slots[(start1 + 1) % 2]
    assert "game 2 over" in bot.text()


def test_a_computer_without_rematch_is_said_not_to_play_again_not_to_decline(tmp_path):
    env = clean_env(tmp_path)
    argv = [*SANTORINI, "host", "--bind", "127.0.0.1", "--no-advertise", "--time", "none"]
    with Terminal(argv, env=env, cwd=tmp_path) as term:
        screen = term.wait_for("santorini join 127.0.0.1:")
        port = re.search(r"santorini join 127\.0\.0\.1:(\d+)", screen).group(1)  # type: ignore[union-attr]
        bot = Peer(
            tmp_path, "bot", ["join", f"127.0.0.1:{port}", "--bot", "random", "--name", "Bot"]
        )
        try:
            _resign(term)
            # Nobody asked for a rematch: the computer, which plays one game, is not said to
            # decline anything; it is not playing again.
            screen = term.wait_for("no rematch: Bot is not playing again")
            assert "declined" not in screen
            assert bot.proc.wait(timeout=60) == 0, bot.text()
            assert "no rematch from here (--rematch plays more games)" in bot.text()
            assert "decline" not in bot.text()
            term.send("\x11")
            assert term.wait_exit() == 0
        finally:
            bot.kill()


def test_a_joining_person_declines_with_n_and_both_end_cleanly(tmp_path):
    argv = [
        "host", "--bind", "127.0.0.1", "--no-advertise", "--time", "none", "--name", "Bot",
        "--bot", "random", "--rematch", "--save", str(tmp_path / "bot.sntr"),
    ]  # fmt: skip
    host = Peer(tmp_path, "bot", argv)
    try:
        port = host.wait_for(r"address: 127\.0\.0\.1:(\d+)").group(1)
        env = clean_env(tmp_path)
        with Terminal([*SANTORINI, "join", f"127.0.0.1:{port}"], env=env, cwd=tmp_path) as term:
            _resign(term)
            term.wait_for("Bot asks for a rematch: accept (y) / decline (n)")
            term.send("n")
            term.wait_for("no rematch: ")
            assert "declined" in term.text()
            term.send("\x11")
            assert term.wait_exit() == 0
        assert host.proc.wait(timeout=60) == 0, host.text()
    finally:
        host.kill()
    assert re.search(r"no rematch: \S+ declined", host.text())
    assert "game 2 over" not in host.text()
    assert verify_file(tmp_path / "bot.sntr").ok
    assert not (tmp_path / "bot-2.sntr").exists()
