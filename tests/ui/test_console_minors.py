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


def _clock_of_seat_to_move(screen: str) -> str:
    m = re.search(r"(\d+:\d\d) \+(\d+:\d\d) left", screen)
    return m.group(0) if m else ""


def test_a_window_too_small_stops_a_local_games_clocks_and_says_whose_turn(tmp_path):
    argv = [*SANTORINI, "play", "--new", "--time", "30+600"]
    with Terminal(argv, columns=80, lines=24, env=clean_env(tmp_path)) as term:
        term.wait_for(lambda s: "Place your workers" in s and _board_whole(s))
        term.resize(50, 12)
        term.wait_for(
            lambda s: (
                "Window too small: needs 60x18, this is 50x12." in s
                and "seat 1 (A) Player 1: your turn" in s
                and _clock_of_seat_to_move(s) != ""
                and "Clocks stopped until the window is larger." in s
            )
        )
        term.resize(80, 24)
        term.wait_for(lambda s: "Place your workers" in s and _board_whole(s))


def test_a_local_games_clocks_stand_still_while_held_and_run_on_after():
    from santorini_p2p.net.clock import TimeControl
    from santorini_p2p.ui.local import LocalGame, Player

    now = [0]
    game = LocalGame(
        [Player("Ann"), Player("Ben")],
        time_control=TimeControl(move_ms=10_000, bank_ms=60_000),
        clock=lambda: now[0],
    )

    def left() -> tuple[int, int]:
        clock = game.seats()[0].clock
        assert clock is not None
        return clock.move_ms, clock.bank_ms

    now[0] = 4_000
    assert left() == (6_000, 60_000)
    game.hold_clocks(True)
    now[0] = 100_000  # a long while with the window too small
    assert left() == (6_000, 60_000)
    game.check_clock()
    assert game.position.phase.name != "OVER"
    game.hold_clocks(False)
    now[0] = 101_000
    assert left() == (5_000, 60_000)


def test_a_network_games_window_too_small_says_the_clocks_run_on(tmp_path):
    host = [*SANTORINI, "host", "--time", "30+600", "--bind", "127.0.0.1", "--no-advertise"]
    with Terminal([*host, "--name", "ann"], env=clean_env(tmp_path / "ann")) as ann:
        screen = ann.wait_for(lambda s: re.search(r"127\.0\.0\.1:\d+", s) is not None)
        address = re.search(r"127\.0\.0\.1:\d+", screen).group(0)  # type: ignore[union-attr]
        join = [*SANTORINI, "join", address, "--name", "bob"]
        with Terminal(join, env=clean_env(tmp_path / "bob")) as bob:
            bob.wait_for(lambda s: "ann" in s and "bob" in s and _board_whole(s), timeout=30)
            bob.resize(50, 12)
            screen = bob.wait_for(
                lambda s: (
                    "Window too small: needs 60x18, this is 50x12." in s
                    and re.search(r"seat \d \([AB]\) (ann|bob)", s) is not None
                    and _clock_of_seat_to_move(s) != ""
                    and "The clocks run on: a network game cannot wait." in s
                ),
                timeout=30,
            )
            assert "stopped" not in screen


def _panel_rows(screen: str) -> list[str]:
    """The side panel's rows (right of the board)."""
    return [row[34:] for row in screen.splitlines()[1:14]]


def test_at_60x18_names_show_whole_and_the_game_over_line_says_who_won_and_how(tmp_path):
    argv = [*SANTORINI, "play", "--new", "--bot", "easy", "--time", "60+300"]
    with Terminal(argv, columns=60, lines=18, env=clean_env(tmp_path)) as term:
        # With a running clock beside it the name is whole: "seat N" gives way on every line.
        screen = term.wait_for(
            lambda s: (
                "Place two workers" in s
                and any(re.search(r"> A You +\d:\d\d \+5:00$", r) for r in _panel_rows(s))
                and any(re.search(r" B Computer +5:00$", r) for r in _panel_rows(s))
            )
        )
        assert "~" not in "".join(r for r in _panel_rows(screen) if " You " in r)
        term.send("resign\r")
        term.wait_for("Type resign again")
        term.send("resign\r")
        # The message log has one row here: the hint line says who won and how.
        screen = term.wait_for(
            lambda s: (
                "game over: Computer won" in s
                and "You lose: Computer (seat 2, B) wins by resignation." in s
            )
        )
