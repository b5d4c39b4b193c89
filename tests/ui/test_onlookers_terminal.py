"""What players and a spectator are told outside the log, on the real program in
pseudo-terminals over 127.0.0.1: a refused takeback reaches the asker, and who watches
reaches every player, counted the same on every screen."""

from __future__ import annotations

import re
import sys

from tests.terminal import Terminal, clean_env
from tests.ui.test_takeback_terminal import _panel_turns, _play_in_turn

SANTORINI = [sys.executable, "-m", "santorini_p2p"]


def test_a_refused_takeback_is_shown_to_the_asker_and_everyone_counts_the_spectators(tmp_path):
    host_argv = [*SANTORINI, "host", "--time", "none", "--bind", "127.0.0.1", "--no-advertise"]
    with Terminal([*host_argv, "--name", "ann"], env=clean_env(tmp_path / "ann")) as ann:
        screen = ann.wait_for(lambda s: re.search(r"127\.0\.0\.1:(\d+)", s) is not None)
        address = re.search(r"127\.0\.0\.1:\d+", screen).group(0)  # type: ignore[union-attr]
        join_argv = [*SANTORINI, "join", address, "--name", "bob"]
        watch_argv = [*SANTORINI, "watch", address, "--name", "eve"]
        with (
            Terminal(join_argv, env=clean_env(tmp_path / "bob")) as bob,
            Terminal(watch_argv, env=clean_env(tmp_path / "eve")) as eve,
        ):
            players = {"ann": ann, "bob": bob}
            # The joiner is told who watches as the host is, with the same count.
            came = "eve joined as a spectator (1 of 4 spectators)."
            for term in (ann, bob):
                term.wait_for(came, timeout=30)
            played = _play_in_turn(players, 3)
            # The last mover asks to take its turn back; the other refuses with n.
            asker, undone = played[-1]
            other = "bob" if asker == "ann" else "ann"
            players[asker].send("takeback\r")
            players[other].wait_for("accept (y)", timeout=30)
            players[other].send("n\r")
            told = f"{other} refused the takeback of {undone}."
            players[asker].wait_for(
                lambda s: told in s and _panel_turns(s)[-1:] == [undone], timeout=30
            )
            eve.wait_for(told, timeout=30)
            players[other].wait_for("You refuse the takeback", timeout=30)
            # The spectator leaves: both players are told, with the new count.
            eve.send("q")
            eve.wait_exit(timeout=30)
            gone = "eve stopped watching (0 of 4 spectators)."
            for term in (ann, bob):
                term.wait_for(gone, timeout=30)


def test_a_spectator_stays_for_the_rematch_and_sees_its_number_and_score(tmp_path):
    """A person hosts on the console, a computer joins with --rematch 1, and a spectator
    watches on the console: the rematch is numbered with the match's score on the host's
    screen and the spectator's alike, and the spectator watches it without watching again."""
    from tests.net.test_loopback import Peer
    from tests.ui.test_console_rematch import _resign

    argv = [*SANTORINI, "host", "--bind", "127.0.0.1", "--no-advertise", "--time", "none"]
    with Terminal([*argv, "--name", "ann"], env=clean_env(tmp_path / "ann")) as ann:
        screen = ann.wait_for("santorini join 127.0.0.1:")
        port = re.search(r"santorini join 127\.0\.0\.1:(\d+)", screen).group(1)  # type: ignore[union-attr]
        watch_argv = [*SANTORINI, "watch", f"127.0.0.1:{port}", "--name", "eve"]
        with Terminal(watch_argv, env=clean_env(tmp_path / "eve")) as eve:
            ann.wait_for("eve joined as a spectator (1 of 4 spectators).")
            bot = Peer(
                tmp_path,
                "bot",
                ["join", f"127.0.0.1:{port}", "--bot", "random", "--rematch", "1", "--name", "Bot"],
            )
            try:
                _resign(ann)
                ann.wait_for("Bot asks for a rematch: accept (y) / decline (n)")
                eve.wait_for(lambda s: "The game is over: Bot won" in s and "Bot asks" in s)
                ann.send("y")
                line = "Rematch: game 2. Score: "
                screen = ann.wait_for(lambda s: line in s and "Bot 1" in s and "ann 0" in s)
                shown = re.search(r"Rematch: game 2\. Score: [^.]*\.", screen).group(0)  # type: ignore[union-attr]
                eve.wait_for(lambda s: shown in s and "The game starts" in s, timeout=30)
                _resign(ann)
                eve.wait_for(lambda s: "The game is over: Bot won" in s and "no rematch" in s)
                ann.wait_for("no rematch: Bot is not playing again")  # it accepted one rematch only
                ann.send("\x11")
                assert ann.wait_exit() == 0
                assert bot.proc.wait(timeout=60) == 0, bot.text()
                assert "eve stopped watching" not in ann.text()
            finally:
                bot.kill()
