"""The full-screen console asks a player with a hidden god whether to object to a turn that
breaks it (protocol/SECRET.md 7.3): y objects and reveals, n accepts the turn."""

from __future__ import annotations

import asyncio

import pytest

from santorini_p2p.ui.app import GameScreen
from santorini_p2p.ui.local import LocalGame, Player
from santorini_p2p.ui.state import features_of
from tests.ui.test_app import ENTER, poll, screen_text, start, terminal

QUESTION = (
    "Ben's turn b4>b3^c3 breaks your hidden limus: object and reveal it (y), or accept the "
    "turn (n)? (90 s, then the turn is accepted)"
)


class _AskedGame(LocalGame):
    """A game in which the other player's turn has just broken this player's hidden god."""

    def __init__(self) -> None:
        super().__init__([Player("Lia"), Player("Ben")], time_control=None)
        self.answers: list[bool] = []

    @property
    def objection_asked(self) -> str | None:
        return None if self.answers else QUESTION

    def answer_objection(self, objects: bool) -> None:
        self.answers.append(objects)


@pytest.mark.parametrize(("typed", "objects"), [("y", True), ("n", False)])
def test_the_player_is_asked_on_the_game_screen_and_answers(typed: str, objects: bool):
    async def main() -> None:
        with terminal() as keys:
            game = _AskedGame()
            assert features_of(game).objecting is game
            screen = GameScreen(game)
            task = start(screen)
            wanted = ("breaks your hidden limus", "object and reveal it (y)", "accept the turn (n)")
            await poll(lambda: all(w in screen_text(screen.app) for w in wanted))
            keys.send_text(typed + ENTER)
            await poll(lambda: game.answers == [objects])
            await poll(lambda: "breaks your hidden limus" not in screen_text(screen.app))
            screen.close()
            await asyncio.wait_for(task, 5)

    asyncio.run(main())
