"""The same question is asked in the same words and order wherever a game is set up."""

from __future__ import annotations

import asyncio

from santorini_p2p.cli import _build_parser
from santorini_p2p.net.game import LanGames
from santorini_p2p.ui import start
from tests.net.harness import identity


def test_hosting_from_the_start_screen_asks_as_a_game_on_this_terminal(tmp_path):
    asked: dict[str, list[tuple[str, str]]] = {}

    async def menu(title, items):
        asked[title] = list(items)
        return None if title == "Gods" else items[0][0]

    async def ask(title, prompt):
        return None

    lan = LanGames(tmp_path, identity(0), menu, ask, bind="127.0.0.1", discover=False)
    assert asyncio.run(lan.host()) is None
    assert asked["How many players?"] == list(start._PLAYERS_MENU)
    assert asked["Gods"] == list(start._GODS_MENU)


def test_every_command_lists_the_god_modes_in_the_start_screens_order():
    order = [key for key, _ in start._GODS_MENU]
    parser = _build_parser()
    sub = next(a for a in parser._actions if a.dest == "command")
    for name in ("play", "watch", "host", "arena"):
        gods = next(a for a in sub.choices[name]._actions if a.dest == "gods")
        assert list(gods.choices) == order, name
