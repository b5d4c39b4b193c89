"""The console asks Gaea's player for her choice in the other player's turn (SPEC.md 8.4)."""

from __future__ import annotations

import asyncio

from santorini_p2p.errors import IllegalTurnError
from santorini_p2p.ui.app import GameScreen
from santorini_p2p.ui.local import LocalGame, Player
from santorini_p2p.ui.state import features_of
from tests.ui.test_app import ENTER, poll, screen_text, start, terminal


class _AskedGame(LocalGame):
    """A game in which the other player's turn has just built a dome next to free squares."""

    def __init__(self) -> None:
        super().__init__([Player("Gaia"), Player("Ben")], time_control=None)
        self.answers: list[str] = []

    @property
    def choice_asked(self) -> tuple[str, list[str]] | None:
        return None if self.answers else ("b4>b3^c3", ["-", "+c2", "+d2"])

    def answer_choice(self, answer: str) -> None:
        text = answer.strip().lower()
        text = text if text.startswith("+") or text == "-" else "+" + text
        if text not in ("-", "+c2", "+d2"):
            raise IllegalTurnError(f"{answer!r} is not a choice here after 'b4>b3^c3': -, +c2, +d2")
        self.answers.append(text)


def test_gaeas_player_is_asked_on_the_other_players_turn_and_answers_with_a_square():
    async def main() -> None:
        with terminal() as keys:
            game = _AskedGame()
            assert features_of(game).choosing is game
            screen = GameScreen(game)
            task = start(screen)
            wanted = ("Your power: after b4>b3^c3", "(c2, d2)", "- for none")
            await poll(lambda: all(w in screen_text(screen.app) for w in wanted))
            keys.send_text("a1" + ENTER)
            await poll(lambda: screen.error is not None)
            assert "not a choice here" in screen.error
            assert game.answers == []
            keys.send_text("c2" + ENTER)
            await poll(lambda: game.answers == ["+c2"])
            screen.close()
            await asyncio.wait_for(task, 5)

    asyncio.run(main())
