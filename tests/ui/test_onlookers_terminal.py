"""What players and a spectator are told outside the log, on the real program in
pseudo-terminals over 127.0.0.1: a refused takeback reaches the asker, and who watches
reaches every player, counted the same on every screen."""

from __future__ import annotations

import re
import sys

from tests.terminal import Terminal, clean_env
from tests.ui.test_network_extras_terminal import _my_turn
from tests.ui.test_takeback_terminal import _first_to_place, _panel_turns, _side, _to_play

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
            came = "eve is watching (1 of 4 spectators)."
            for term in (ann, bob):
                term.wait_for(came, timeout=30)
            corners = {"A": ("a1", "a5"), "B": ("e1", "e5")}
            played: list[tuple[str, str]] = []
            first = _first_to_place(players)
            order = [first, "bob" if first == "ann" else "ann"]
            while len(played) < 3:
                who = order[len(played) % 2]
                term = players[who]
                screen = term.wait_for(_to_play, timeout=30)
                mine = _side(screen, who)
                if " Place " in screen:
                    text = "place {},{}".format(*corners[mine])
                else:
                    turn = _my_turn(screen, mine)
                    assert turn is not None, screen
                    text = turn
                term.send(text + "\r")
                played.append((who, text))
                count = len(played)
                term.wait_for(lambda s, n=count: len(_panel_turns(s)) >= n, timeout=30)
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
