"""The real console driven by keys: create_pipe_input() in, DummyOutput() out."""

from __future__ import annotations

import asyncio
import contextlib
import io
import random
import re

import pytest
from prompt_toolkit.application import create_app_session
from prompt_toolkit.application.current import get_app_or_none
from prompt_toolkit.data_structures import Size
from prompt_toolkit.formatted_text import to_formatted_text
from prompt_toolkit.input import create_pipe_input
from prompt_toolkit.layout.controls import FormattedTextControl
from prompt_toolkit.output import DummyOutput
from prompt_toolkit.output.vt100 import Vt100_Output

from santorini_p2p.engine import Phase, legal_actions, parse_action, parse_position
from santorini_p2p.ui.app import GameScreen, help_text
from santorini_p2p.ui.board_view import fragments_text
from santorini_p2p.ui.local import LocalGame, Player
from santorini_p2p.ui.start import GameOptions, choose, console
from tests.patience import patient

TAB, ENTER, CTRL_Q, CTRL_Z = "\t", "\r", "\x11", "\x1a"


@contextlib.contextmanager
def terminal():
    with create_pipe_input() as keys, create_app_session(input=keys, output=DummyOutput()):
        yield keys


async def poll(condition, limit: float = 10.0) -> None:
    """Wait, at most ``limit`` seconds, for ``condition``: key handling has no event to await."""
    async with asyncio.timeout(patient(limit)):
        while not condition():  # noqa: ASYNC110
            await asyncio.sleep(0.002)


def screen_text(app) -> str:
    """The text of every formatted-text window of ``app``, as it would be drawn."""
    parts = []
    for window in app.layout.find_all_windows():
        if isinstance(window.content, FormattedTextControl):
            parts.append(fragments_text(to_formatted_text(window.content.text)))
    return "\n".join(parts)


def random_choice(position, level, rng, stop):
    return rng.choice(legal_actions(position))


def start(screen: GameScreen) -> asyncio.Task[str]:
    return asyncio.create_task(screen.run())


def test_a_whole_hotseat_game_typed_as_text():
    async def main():
        with terminal() as keys:
            game = LocalGame(
                [Player("Ann"), Player("Ben")], seed=2, time_control=None, gods="random"
            )
            screen = GameScreen(game)
            task = start(screen)
            rng = random.Random(7)
            while game.position.phase is not Phase.OVER:
                before = len(game.actions)
                keys.send_text(str(rng.choice(legal_actions(game.position))).upper() + ENTER)
                await poll(lambda before=before: len(game.actions) > before)
            assert " wins" in game.messages[-1].text
            assert "Enter for the start screen" in fragments_text(screen._hint())
            keys.send_text(ENTER)
            assert await asyncio.wait_for(task, 5) == "menu"

    asyncio.run(main())


def test_a_whole_game_against_the_computer_with_tab_and_enter_only():
    async def main():
        with terminal() as keys:
            game = LocalGame(
                [Player("You"), Player("Computer", "random")],
                seed=4,
                time_control=None,
                gods="draft",
                chooser=random_choice,
            )
            screen = GameScreen(game)
            buffer = screen.input.buffer
            task = start(screen)
            presses = 0
            while game.position.phase is not Phase.OVER:
                assert presses < 1000
                await poll(lambda: game.awaiting is not None or game.position.phase is Phase.OVER)
                if game.awaiting is None:
                    continue
                before = len(game.actions)
                typed = buffer.text
                # Tab shows the choices and takes none (a step alone is typed at once) ...
                keys.send_text(TAB)
                await poll(
                    lambda typed=typed: buffer.complete_state is not None or buffer.text != typed
                )
                if buffer.complete_state is not None:
                    assert buffer.text == typed  # nothing chosen yet
                    keys.send_text(TAB)  # ... Tab again takes the first
                    await poll(
                        lambda: (
                            buffer.complete_state is not None
                            and buffer.complete_state.current_completion is not None
                        )
                    )
                keys.send_text(ENTER)
                await poll(
                    lambda before=before: (
                        len(game.actions) > before
                        or (
                            buffer.complete_state is not None
                            and buffer.complete_state.complete_index is None
                            and bool(buffer.complete_state.completions)
                        )
                    )
                )
                presses += 2
            assert any(str(a).startswith("god ") for a in game.actions)
            assert game.messages[-1].text.startswith(("You win", "You lose"))
            keys.send_text(CTRL_Q)
            assert await asyncio.wait_for(task, 5) == "menu"

    asyncio.run(main())


def test_a_bad_character_is_marked_and_enter_does_not_play():
    async def main():
        with terminal() as keys:
            game = LocalGame([Player("Ann"), Player("Ben")], time_control=None)
            screen = GameScreen(game)
            task = start(screen)
            keys.send_text("place a1,a1")
            buffer = screen.input.buffer
            await poll(lambda: buffer.text == "place a1,a1" and buffer.validation_error is not None)
            assert buffer.validation_error.cursor_position == 10
            keys.send_text(ENTER)
            await poll(lambda: "once" in fragments_text(screen._hint()))
            assert game.actions == []
            keys.send_text("\x7f2" + ENTER)
            await poll(lambda: len(game.actions) == 1)
            assert str(game.actions[0]) == "place a1,a2"
            keys.send_text(CTRL_Q)
            await asyncio.wait_for(task, 5)

    asyncio.run(main())


def test_help_opens_with_question_mark_and_names_the_gods_in_play():
    async def main():
        with terminal() as keys:
            game = LocalGame(
                [Player("Ann"), Player("Ben")], time_control=None, gods="random", seed=1
            )
            screen = GameScreen(game)
            task = start(screen)
            keys.send_text("?")
            await poll(lambda: screen.show_help)
            assert screen.input.buffer.text == ""
            text = help_text(game.position)
            for god in game.position.gods:
                assert f"  {god}: " in text
            keys.send_text("\x1b")
            await poll(lambda: not screen.show_help)
            keys.send_text(CTRL_Q)
            await asyncio.wait_for(task, 5)

    asyncio.run(main())


def test_ctrl_z_and_the_undo_word_take_back_moves():
    async def main():
        with terminal() as keys:
            game = LocalGame([Player("Ann"), Player("Ben")], time_control=None)
            screen = GameScreen(game)
            task = start(screen)
            keys.send_text("place b2,d4" + ENTER + "place b4,d2" + ENTER)
            await poll(lambda: len(game.actions) == 2)
            keys.send_text(CTRL_Z)
            await poll(lambda: len(game.actions) == 1)
            keys.send_text("undo" + ENTER)
            await poll(lambda: len(game.actions) == 0)
            keys.send_text("undo" + ENTER)
            await poll(lambda: screen.error is not None)
            assert "nothing to undo" in screen.error
            keys.send_text(CTRL_Q)
            await asyncio.wait_for(task, 5)

    asyncio.run(main())


def test_a_hermes_turn_typed_the_plain_way_is_played_in_its_h_form():
    async def main():
        with terminal() as keys:
            start_at = parse_position("00000/00B00A0/00000/00A00B0/00000 1 hermes,- -")
            game = LocalGame([Player("Ann"), Player("Ben")], time_control=None, start=start_at)
            screen = GameScreen(game)
            task = start(screen)
            keys.send_text("b2>c3^c4" + ENTER)
            await poll(lambda: len(game.actions) == 1)
            assert str(game.actions[0]) == "Hc3,d4^c4"
            keys.send_text(CTRL_Q)
            await asyncio.wait_for(task, 5)

    asyncio.run(main())


def test_clicking_worker_move_and_build_plays_the_turn():
    async def main():
        with terminal() as keys:
            game = LocalGame([Player("Ann"), Player("Ben")], time_control=None)
            screen = GameScreen(game)
            task = start(screen)
            keys.send_text("place b2,d4" + ENTER + "place b4,d2" + ENTER)
            await poll(lambda: len(game.actions) == 2)
            screen.click(6)
            assert screen.input.buffer.text == "b2"
            screen.click(12)
            assert screen.input.buffer.text == "b2>c3"
            screen.click(24)  # not a build square: ignored
            assert screen.input.buffer.text == "b2>c3"
            screen.click(11)
            assert str(game.actions[-1]) == "b2>c3^b3"
            assert screen.input.buffer.text == ""
            keys.send_text(CTRL_Q)
            await asyncio.wait_for(task, 5)

    asyncio.run(main())


def test_clicking_two_squares_in_any_order_places_the_workers():
    async def main():
        with terminal() as keys:
            game = LocalGame([Player("Ann"), Player("Ben")], time_control=None)
            screen = GameScreen(game)
            task = start(screen)
            screen.click(24)  # e5 first, then c3
            assert screen.input.buffer.text == "place e5"
            screen.click(12)
            assert [str(a) for a in game.actions] == ["place c3,e5"]
            screen.click(18)  # d4, then b2
            screen.click(6)
            assert [str(a) for a in game.actions] == ["place c3,e5", "place b2,d4"]
            keys.send_text(CTRL_Q)
            await asyncio.wait_for(task, 5)

    asyncio.run(main())


def test_clicking_demeters_higher_build_first_leaves_room_for_the_second():
    async def main():
        with terminal() as keys:
            start_at = parse_position("00000/00B00A0/00000/00A00B0/00000 1 demeter,- -")
            game = LocalGame([Player("Ann"), Player("Ben")], time_control=None, start=start_at)
            screen = GameScreen(game)
            task = start(screen)
            for square in (6, 12, 17):  # b2, c3, then a build on c4
                screen.click(square)
            assert game.actions == [], "played with one build before the second could be chosen"
            screen.click(11)  # and b3
            assert [str(a) for a in game.actions] == ["b2>c3^b3^c4"]
            keys.send_text(CTRL_Q)
            await asyncio.wait_for(task, 5)

    asyncio.run(main())


def test_start_screen_opens_a_game_against_the_computer_and_quits(monkeypatch, tmp_path):
    monkeypatch.setenv("SANTORINI_HOME", str(tmp_path))

    async def main():
        with terminal() as keys:
            seen = []

            async def next_app():
                await poll(
                    lambda: (a := get_app_or_none()) is not None and a.is_running and a not in seen
                )
                seen.append(get_app_or_none())

            run = asyncio.create_task(console(GameOptions(timed=False, seed=3, mouse=False)))
            await next_app()
            keys.send_text(ENTER)  # play the computer
            await next_app()
            keys.send_text("4")  # random moves
            await next_app()
            keys.send_text(ENTER)  # no gods
            await next_app()
            keys.send_text("2")  # untimed
            await next_app()
            assert "you vs the computer" in screen_text(seen[-1])
            keys.send_text(CTRL_Q)
            await next_app()
            keys.send_text("7")
            assert await asyncio.wait_for(run, 5) == 0

    asyncio.run(main())


@pytest.mark.parametrize(("top", "expected"), [(True, "c"), (False, None)])
def test_escape_backs_out_of_a_submenu_but_does_not_quit_from_the_top(top, expected):
    items = [("a", "first"), ("b", "second"), ("c", "third")]

    async def main():
        with terminal() as keys:
            task = asyncio.create_task(choose("Pick", items, top=top))
            await poll(lambda: (a := get_app_or_none()) is not None and a.is_running)
            keys.send_text("\x1b")
            keys.send_text("3")
            return await asyncio.wait_for(task, 5)

    assert asyncio.run(main()) == expected


def test_the_start_screen_offers_to_resume_an_unfinished_game(monkeypatch, tmp_path):
    monkeypatch.setenv("SANTORINI_HOME", str(tmp_path))
    from santorini_p2p.ui.start import journal_path

    left = LocalGame([Player("Ann"), Player("Ben")], time_control=None, journal=journal_path())
    left.submit(parse_action("place b2,d4"))

    async def main():
        with terminal() as keys:
            run = asyncio.create_task(console(GameOptions(timed=False, mouse=False)))
            await poll(lambda: (a := get_app_or_none()) is not None and a.is_running)
            first = get_app_or_none()
            # The entry comes last, after Quit: the others keep their numbers.
            assert "7. Quit" in screen_text(first)
            assert "8. Resume the unfinished game (" in screen_text(first)
            keys.send_text(ENTER)  # chosen to begin with: resume
            await poll(
                lambda: (a := get_app_or_none()) is not None and a is not first and a.is_running
            )
            keys.send_text("place b4,d2" + ENTER)
            await poll(lambda: journal_path().exists() and "b4" in journal_path().read_text())
            keys.send_text("\x03")  # Ctrl-C quits the program
            assert await asyncio.wait_for(run, 5) == 0

    asyncio.run(main())
    again = LocalGame.resume(journal_path())
    assert [str(a) for a in again.actions] == ["place b2,d4", "place d2,b4"]


def test_the_rejected_character_is_drawn_in_reverse_video():
    out = io.StringIO()
    output = Vt100_Output(out, lambda: Size(rows=24, columns=80), term="xterm")

    async def main():
        with create_pipe_input() as keys, create_app_session(input=keys, output=output):
            game = LocalGame([Player("Ann"), Player("Ben")], time_control=None)
            screen = GameScreen(game, mouse=False)
            task = start(screen)
            keys.send_text("place a1,a1")
            await poll(lambda: screen.input.buffer.validation_error is not None)
            out.truncate(0)
            screen.app.invalidate()
            await poll(lambda: "once" in out.getvalue())
            keys.send_text(CTRL_Q)
            await asyncio.wait_for(task, 5)

    asyncio.run(main())
    drawn = out.getvalue()
    assert "each square may be placed on once" in drawn
    assert re.search(r"place a1,a\x1b\[[0-9;]*;7m1\x1b\[0m", drawn)


def test_without_a_terminal_the_console_says_so(capsys, monkeypatch, tmp_path):
    from santorini_p2p.cli import main

    monkeypatch.setenv("SANTORINI_HOME", str(tmp_path))
    monkeypatch.setattr("sys.stdin", io.StringIO(""))
    assert main([]) == 2
    assert "needs a terminal" in capsys.readouterr().err


def test_play_without_a_terminal_reads_turns_and_keeps_the_game_when_input_ends(
    capsys, monkeypatch, tmp_path
):
    from santorini_p2p.cli import main

    monkeypatch.setenv("SANTORINI_HOME", str(tmp_path))
    monkeypatch.setattr("sys.stdin", io.StringIO("place b2,d4\n"))
    assert main(["play", "--bot", "easy", "--untimed"]) == 1
    out, err = capsys.readouterr()
    assert "position: 00000/00000/00000/00000/00000 1 -,- -" in out
    assert "You (seat 1, A) played place b2,d4." in out
    assert "standard input ended before the game did" in err
    assert "play --resume" in err
    assert "b2,d4" in (tmp_path / "local-game.json").read_text()


def test_start_screen_opens_a_replay_and_a_network_game_through_its_hook(monkeypatch, tmp_path):
    from tests.replays import replay_file

    monkeypatch.setenv("SANTORINI_HOME", str(tmp_path))
    path = tmp_path / "g.sntr"
    path.write_bytes(replay_file())
    hosted = LocalGame([Player("Ann"), Player("Ben")], time_control=None)

    class Network:
        async def host(self):
            return hosted

        async def join(self):
            return None

    async def main():
        with terminal() as keys:
            seen = []

            async def next_app():
                await poll(
                    lambda: (a := get_app_or_none()) is not None and a.is_running and a not in seen
                )
                seen.append(get_app_or_none())

            run = asyncio.create_task(console(GameOptions(mouse=False), Network()))
            await next_app()
            keys.send_text("6")  # open a replay
            await next_app()
            keys.send_text(str(path) + ENTER)
            await next_app()  # the viewer
            keys.send_text("q")
            await next_app()
            keys.send_text("3")  # host
            await next_app()
            keys.send_text("place b2,d4" + ENTER)
            await poll(lambda: len(hosted.actions) == 1)
            keys.send_text(CTRL_Q)
            await next_app()
            keys.send_text("4")  # join: backed out, the start screen again
            await next_app()
            keys.send_text("7")
            assert await asyncio.wait_for(run, 5) == 0

    asyncio.run(main())


def test_without_a_network_host_and_join_say_so(monkeypatch, tmp_path):
    monkeypatch.setenv("SANTORINI_HOME", str(tmp_path))

    async def main():
        with terminal() as keys:
            run = asyncio.create_task(console(GameOptions(mouse=False)))
            await poll(lambda: (a := get_app_or_none()) is not None and a.is_running)
            first = get_app_or_none()
            keys.send_text("3")
            await poll(
                lambda: (a := get_app_or_none()) is not None and a is not first and a.is_running
            )
            text = screen_text(get_app_or_none())
            assert "LAN games are not available" in text
            keys.send_text("7")
            assert await asyncio.wait_for(run, 5) == 0

    asyncio.run(main())


def test_resign_must_be_typed_twice():
    async def main():
        with terminal() as keys:
            game = LocalGame([Player("Ann"), Player("Ben")], time_control=None)
            screen = GameScreen(game)
            task = start(screen)
            keys.send_text("resign" + ENTER)
            await poll(lambda: screen.error is not None)
            assert "again" in screen.error
            assert game.position.phase is not Phase.OVER
            keys.send_text("resign" + ENTER)
            await poll(lambda: game.position.phase is Phase.OVER)
            keys.send_text(CTRL_Q)
            await asyncio.wait_for(task, 5)

    asyncio.run(main())


def test_a_screen_can_show_a_game_driven_elsewhere_and_be_closed():
    async def main():
        with terminal():
            game = LocalGame(
                [Player("One", "random"), Player("Two", "random")],
                time_control=None,
                seed=1,
                chooser=random_choice,
            )
            screen = GameScreen(game)
            shown = asyncio.create_task(screen.run(drive=False))
            await game.run()
            assert game.position.phase is Phase.OVER
            await poll(lambda: screen.app.is_running)
            screen.close()
            assert await asyncio.wait_for(shown, 5) == "menu"

    asyncio.run(main())


def test_a_long_game_title_gives_way_to_whose_turn_it_is_at_80_columns():
    with terminal():
        game = LocalGame(
            [Player("Ann"), Player("Bob")],
            time_control=None,
            title="LAN game at 192.168.100.200:45678 (5a49-3d1b-5103-aad3)",
        )
        screen = GameScreen(game)
        bar = fragments_text(screen._title())
        assert len(bar) == 80
        assert "Ann: your turn" in bar
        assert bar.startswith(" LAN game at 192.168.100.200:45678 | ")  # the address whole
        assert bar.endswith("? help ")


class _Lobby(LocalGame):
    """A hosted game before the others joined: only the host's seat is known."""

    def seats(self):
        return super().seats()[:1]


LAN_TITLE = "LAN game at 192.168.100.200:45678 (5a49-3d1b-5103-aad3)"


@pytest.mark.parametrize("columns", [60, 61, 70, 80, 100, 140])
def test_a_waiting_host_shows_the_whole_join_address_at_every_width(monkeypatch, columns):
    monkeypatch.setattr(DummyOutput, "get_size", lambda self: Size(rows=24, columns=columns))
    with terminal():
        game = _Lobby([Player("Ann", "easy"), Player("Bob", "easy")], title=LAN_TITLE)
        screen = GameScreen(game)
        hint = fragments_text(screen._hint())
        assert len(hint) <= columns
        assert "192.168.100.200:45678" in hint
        if columns >= 80:
            assert (
                hint == " Waiting for players; they join with: santorini join 192.168.100.200:45678"
            )


def test_once_every_seat_is_taken_the_join_address_gives_way(monkeypatch):
    with terminal():
        game = LocalGame([Player("Ann", "easy"), Player("Bob", "easy")], title=LAN_TITLE)
        hint = fragments_text(GameScreen(game)._hint())
        assert "join" not in hint


def test_the_title_bar_drops_the_fingerprint_before_it_cuts_the_address():
    with terminal():
        game = _Lobby([Player("Ann", "easy"), Player("Bob", "easy")], title=LAN_TITLE)
        bar = fragments_text(GameScreen(game)._title())
        assert len(bar) == 80
        assert bar.startswith(" LAN game at 192.168.100.200:45678 | seat 1 (A) Ann: thinking")


def test_the_menu_of_choices_opens_on_tab_only_and_esc_and_ctrl_u_clear_the_line():
    async def main():
        with terminal() as keys:
            game = LocalGame([Player("Ann"), Player("Ben")], time_control=None)
            screen = GameScreen(game)
            task = start(screen)
            buffer = screen.input.buffer
            keys.send_text("place a1,a2" + ENTER)
            await poll(lambda: len(game.actions) == 1)
            keys.send_text("place b")
            await poll(lambda: buffer.text == "place b")
            assert buffer.complete_state is None  # typing and turn ends open nothing
            keys.send_text("\t")
            await poll(lambda: buffer.complete_state is not None)
            keys.send_text("\x1b")  # Esc: first the menu closes, the text stays
            await poll(lambda: buffer.complete_state is None)
            assert buffer.text.startswith("place b")
            keys.send_text("\x1b")  # then the line is cleared
            await poll(lambda: buffer.text == "")
            # After a rejected turn Ctrl-U clears the whole line, not only up to the error.
            keys.send_text("place a1,b1" + ENTER)
            await poll(lambda: buffer.text == "place a1,b1" and game.actions[-1:] != [])
            keys.send_text("\x15")
            await poll(lambda: buffer.text == "")
            assert len(game.actions) == 1
            keys.send_text("undo" + ENTER)
            await poll(lambda: not game.actions)
            assert buffer.complete_state is None
            keys.send_text(CTRL_Q)
            await asyncio.wait_for(task, 5)

    asyncio.run(main())


class _Remote(LocalGame):
    """A game whose second seat is played elsewhere, as in a network game."""

    def seats(self):
        from dataclasses import replace

        views = super().seats()
        return (views[0], replace(views[1], local=False))


def test_ctrl_q_in_a_network_game_asks_to_be_pressed_again():
    async def main():
        with terminal() as keys:
            game = _Remote([Player("Ann"), Player("Ben")], time_control=None)
            screen = GameScreen(game)
            task = start(screen)
            keys.send_text(CTRL_Q)
            await poll(lambda: screen.error is not None)
            assert screen.error.startswith("Ctrl-Q again to leave this game (it is kept")
            assert not task.done()
            keys.send_text("place a1,a2" + ENTER)  # anything else in between starts over
            await poll(lambda: len(game.actions) == 1)
            keys.send_text(CTRL_Q)
            await poll(lambda: screen.error is not None)
            assert not task.done()
            keys.send_text(CTRL_Q)
            assert await asyncio.wait_for(task, 5) == "menu"

    asyncio.run(main())


def test_watching_p_pauses_the_computers_and_n_plays_one_move():
    calls = []

    def counted(position, level, rng, stop):
        calls.append(len(calls))
        return rng.choice(legal_actions(position))

    async def main():
        with terminal() as keys:
            game = LocalGame(
                [Player("One", "easy"), Player("Two", "easy")],
                time_control=None,
                chooser=counted,
                seed=3,
            )
            screen = GameScreen(game)
            task = start(screen)
            await poll(lambda: len(game.actions) >= 2)
            keys.send_text("p")
            await poll(lambda: game.paused)
            # The search under way may finish; then the next one is asked and held back.
            await poll(lambda: len(calls) == len(game.actions) + 1)
            held = len(game.actions)
            assert "p play on  n one move" in fragments_text(screen._toolbar())
            keys.send_text("n")
            await poll(lambda: len(game.actions) == held + 1)
            await poll(lambda: len(calls) == held + 2)  # the next one is held again
            assert len(game.actions) == held + 1
            keys.send_text("p")
            await poll(lambda: len(game.actions) >= held + 3 or game.position.phase is Phase.OVER)
            keys.send_text(CTRL_Q)
            await asyncio.wait_for(task, 5)

    asyncio.run(main())


@pytest.mark.parametrize(("rows", "first_shown"), [(24, False), (44, True)])
def test_the_turns_panel_grows_into_a_tall_windows_spare_rows(monkeypatch, rows, first_shown):
    monkeypatch.setattr(DummyOutput, "get_size", lambda self: Size(rows=rows, columns=80))
    with terminal():
        game = LocalGame([Player("Ann"), Player("Ben")], time_control=None)
        rng = random.Random(4)
        while len(game.actions) < 40 and game.position.phase is not Phase.OVER:
            game.submit(rng.choice(legal_actions(game.position)))
        screen = GameScreen(game)
        panel = fragments_text(screen._panel())
        assert len(panel.splitlines()) <= max(13, rows - 10)
        assert str(game.actions[-1]) in panel
        assert ("1. place" in panel) is first_shown
