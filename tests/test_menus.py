"""The same question is asked in the same words and order wherever a game is set up."""

from __future__ import annotations

import asyncio

from santorini_p2p.cli import _build_parser
from santorini_p2p.ui import start
from santorini_p2p.ui.lan import LanGames
from tests.net.harness import identity


def test_hosting_from_the_start_screen_asks_as_a_game_on_this_terminal(tmp_path):
    asked: dict[str, list[tuple[str, str]]] = {}

    async def menu(title, items):
        asked[title] = list(items)
        return None if title == "Clocks" else items[0][0]

    async def ask(title, prompt):
        return None

    lan = LanGames(tmp_path, identity(0), menu, ask, bind="127.0.0.1", discover=False)
    assert asyncio.run(lan.host()) is None
    assert asked["How many players?"] == list(start._PLAYERS_MENU)
    assert asked["Gods"] == list(start._GODS_MENU)
    assert asked["Clocks"] == list(start._CLOCKS_MENU)


def test_every_command_lists_the_god_modes_in_the_start_screens_order():
    order = [key for key, _ in start._GODS_MENU]
    parser = _build_parser()
    sub = next(a for a in parser._actions if a.dest == "command")
    for name in ("play", "watch", "host", "arena"):
        gods = next(a for a in sub.choices[name]._actions if a.dest == "gods")
        assert list(gods.choices) == order, name


def test_a_refused_address_is_asked_again_with_the_reason_whole(tmp_path):
    titles: list[str] = []
    answers = ["127.0.0.1:1", None]

    async def menu(title, items):
        return ""  # type an address

    async def ask(title, prompt):
        if prompt.startswith("Your name"):
            return ""  # Enter: the name offered
        titles.append(title)
        return answers.pop(0)

    lan = LanGames(tmp_path, identity(0), menu, ask, bind="127.0.0.1", discover=False)
    assert asyncio.run(asyncio.wait_for(lan.join(), 30)) is None
    assert titles[0] == "Join a game"
    first, reason = titles[1].split("\n")
    assert first == "Join a game"
    assert "127.0.0.1:1" in reason


def test_the_reason_under_a_question_is_wrapped_to_the_screen(monkeypatch):
    from prompt_toolkit.application import create_app_session
    from prompt_toolkit.application.current import get_app_or_none
    from prompt_toolkit.data_structures import Size
    from prompt_toolkit.input import create_pipe_input
    from prompt_toolkit.output import DummyOutput

    from tests.ui.test_app import poll, screen_text

    monkeypatch.setattr(DummyOutput, "get_size", lambda self: Size(rows=18, columns=60))
    reason = (
        "nothing listens at 127.0.0.1:1 (connection refused): check the address the host "
        "gave, and that the game is still offered there"
    )

    async def main():
        with create_pipe_input() as keys, create_app_session(input=keys, output=DummyOutput()):
            asked = asyncio.create_task(start.ask(f"Join a game\n{reason}", "host:port: "))
            await poll(lambda: (a := get_app_or_none()) is not None and a.is_running)
            shown = screen_text(get_app_or_none())
            keys.send_text("\x1b")
            assert await asyncio.wait_for(asked, 5) is None
            return shown

    shown = asyncio.run(main())
    lines = shown.splitlines()
    assert all(len(line) <= 60 for line in lines)
    assert " ".join(line.strip() for line in lines[7:11]).startswith(reason)


def test_both_set_up_screens_ask_for_the_god_pool_alike_and_ask_again_after_a_bad_name(
    tmp_path, monkeypatch
):
    from santorini_p2p.engine.setup import POOL_CHOICES

    def script(asked, typed):
        async def menu(title, items, **_):
            asked[title] = list(items)
            return {"Gods": "random", "Which gods?": "names", "Clocks": "untimed"}.get(
                title, items[0][0]
            )

        async def ask(title, prompt):
            typed.append(title)
            return ["chronos,zeus", "zeus,chronus"][len(typed) - 1] if len(typed) <= 2 else None

        return menu, ask

    asked_here, typed_here = {}, []
    menu, ask = script(asked_here, typed_here)
    monkeypatch.setattr(start, "choose", menu)
    monkeypatch.setattr(start, "ask", ask)
    chosen = asyncio.run(start._gods(start.GameOptions(), 2))
    assert chosen is not None
    assert chosen.gods == "random"
    assert chosen.pool == ("chronus", "zeus")
    assert asked_here["Which gods?"] == list(POOL_CHOICES)
    assert typed_here[0] == "Name the gods"
    assert typed_here[1].startswith("Name the gods\n")
    assert "unknown god 'chronos' (did you mean chronus" in typed_here[1]

    asked_lan, typed_lan = {}, []
    menu, ask = script(asked_lan, typed_lan)

    async def no_clocks(title, items, **_):
        return None if title == "Clocks" else await menu(title, items)

    lan = LanGames(tmp_path, identity(0), no_clocks, ask, bind="127.0.0.1", discover=False)
    assert asyncio.run(lan.host()) is None
    assert asked_lan["Which gods?"] == asked_here["Which gods?"]
    assert typed_lan == typed_here


def test_every_command_that_sets_up_gods_takes_a_pool_and_the_console_gets_it():
    from santorini_p2p.cli.console import _console_options

    parser = _build_parser()
    sub = next(a for a in parser._actions if a.dest == "command")
    for name in ("play", "watch", "host", "arena"):
        assert any(a.dest == "gods_from" for a in sub.choices[name]._actions), name
    for name in ("play", "watch"):
        args = parser.parse_args([name, "--gods", "draft", "--gods-from", "Zeus,ares,bia,hera"])
        assert _console_options(args).pool == ("ares", "bia", "hera", "zeus")
        args = parser.parse_args([name, "--gods", "draft", "--gods-from", "simple"])
        assert _console_options(args).pool == ()  # the simple gods: written as before
