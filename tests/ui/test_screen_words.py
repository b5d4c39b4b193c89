"""What the game screen says at the seams: who won, in words a player reads ("You won", "Ben
won"), and Esc dropping a pending leave along with its message."""

from __future__ import annotations

import asyncio
from collections.abc import Callable, Sequence
from pathlib import Path

from santorini_p2p.engine import Action, Position, parse_position
from santorini_p2p.net.game import ConnectionState, SeatInfo
from santorini_p2p.ui.app import GameScreen
from santorini_p2p.ui.local import LocalGame, Player
from santorini_p2p.ui.state import Note
from tests.ui.test_app import CTRL_Q, ENTER, poll, terminal

# Seat 2 (B) has just climbed to level 3 on d3: the game is over, seat 2 won.
OVER = "00000/00000/000A3B0/000A00/0000B0 1 -,- w2"


class _Over:
    """A finished game between a person here (seat ``me``) and a player elsewhere."""

    def __init__(self, me: int, names: tuple[str, str] = ("ann", "bob")) -> None:
        self._me = me
        self._names = names
        self.position: Position = parse_position(OVER)
        self.actions: Sequence[Action] = ()
        self.messages: Sequence[Note] = ()
        self.awaiting: int | None = None
        self.can_undo = False
        self.replay: Path | None = None
        self.stopped: str | None = None
        self.title = "LAN game at 192.168.1.20:40000"

    def seats(self) -> Sequence[SeatInfo]:
        return [
            SeatInfo(
                i,
                name,
                local=i == self._me,
                human=True,
                connection=None if i == self._me else ConnectionState.CONNECTED,
            )
            for i, name in enumerate(self._names)
        ]

    def submit(self, action: Action) -> None:
        raise AssertionError("no turn to play")

    def resign(self) -> None:
        raise AssertionError("no game to resign")

    def undo(self) -> None:
        raise AssertionError("nothing to undo")

    def listen(self, listener: Callable[[], None]) -> Callable[[], None]:
        return lambda: None

    async def run(self) -> None:
        await asyncio.Event().wait()


def test_the_title_says_you_won_or_names_the_winner():
    with terminal():
        assert GameScreen(_Over(me=1))._status() == "game over: You won"
        assert GameScreen(_Over(me=0))._status() == "game over: bob won"


def test_hot_seat_and_computer_games_name_the_winner_never_you():
    def resigned(players: list[Player]) -> str:
        game = LocalGame(players, seed=3, time_control=None)
        game.resign()
        return GameScreen(game)._status()

    with terminal():
        said = resigned([Player("Ann"), Player("Ben")])
        assert said in ("game over: Ann won", "game over: Ben won")
        assert resigned([Player("Ann"), Player("Computer", "random")]) == (
            "game over: Computer won"
        )


def test_esc_drops_a_pending_leave_with_its_message():
    class _Going(_Over):
        def __init__(self) -> None:
            super().__init__(me=0)
            self.position = parse_position("00000/00000/000A2B0/000A00/0000B0 1 -,- -")

    async def main() -> str:
        with terminal() as keys:
            screen = GameScreen(_Going())
            task = asyncio.create_task(screen.run())
            keys.send_text(CTRL_Q)
            await poll(lambda: screen.error is not None and "Ctrl-Q again" in screen.error)
            keys.send_text("\x1b")
            await poll(lambda: screen.error is None)
            keys.send_text(CTRL_Q)  # asks again: the first one was dropped with Esc
            await poll(lambda: screen.error is not None and "Ctrl-Q again" in screen.error)
            assert not task.done()
            keys.send_text(CTRL_Q)
            result = await asyncio.wait_for(task, 10)
            keys.send_text(ENTER)
            return result

    assert asyncio.run(main()) == "menu"


def test_help_in_a_local_game_lists_no_network_keys():
    with terminal():
        help_here = GameScreen(LocalGame([Player("Ann"), Player("Ben")], seed=1))._help()
    assert "Ctrl-Z, undo" in help_here
    for network_only in ("takeback", "say TEXT", "rematch"):
        assert network_only not in help_here


def test_a_running_clock_low_on_time_is_drawn_in_the_low_time_colour():
    from santorini_p2p.net.session import SeatClock
    from santorini_p2p.ui.board_view import render_panel

    p = parse_position("00000/00000/000A2B0/000A00/0000B0 1 -,- -")

    def styles(clock: SeatClock) -> list[str]:
        seats = [
            SeatInfo(0, "ann", local=True, human=True, clock=clock),
            SeatInfo(1, "bob", local=False, human=True, clock=SeatClock(60_000, 300_000, False)),
        ]
        panel = render_panel(p, seats, (), 40, 13)
        return [style for style, _ in panel if "panel.clock" in style]

    low = styles(SeatClock(4_000, 0, True))
    assert len(low) == 2
    assert "clock.low" in low[0]
    assert "clock.low" not in low[1]  # bob's clock, not running
    assert not any("clock.low" in s for s in styles(SeatClock(40_000, 300_000, True)))


def test_a_turn_typed_another_way_is_played_and_its_written_form_is_said():
    # Hermes for seat 1: the plain one-step turn b2>c3^d3 is written as the power turn.
    hermes = parse_position("00000/00B00A0/00000/00A00B0/00000 1 hermes,- -")

    async def main() -> list[str]:
        with terminal() as keys:
            game = LocalGame([Player("Ann"), Player("Ben")], start=hermes, time_control=None)
            screen = GameScreen(game)
            task = asyncio.create_task(screen.run())
            keys.send_text("b2>c3^d3" + ENTER)
            await poll(lambda: len(game.actions) == 1)
            said = screen.notice
            keys.send_text("d2>c2^d2" + ENTER)  # Ben's turn, typed as it is written
            await poll(lambda: len(game.actions) == 2)
            again = screen.notice
            keys.send_text(CTRL_Q)
            await asyncio.wait_for(task, 10)
            return [str(game.actions[0]), said or "", again or ""]

    played, said, again = asyncio.run(main())
    assert played == "Hc3,d4^d3"
    assert said == "Played as Hc3,d4^d3 (the same turn, as it is written)."
    assert again == ""


def test_only_the_host_shows_the_address_others_join_while_it_waits():
    class _Waiting(_Over):
        def __init__(self, seats: list[SeatInfo]) -> None:
            super().__init__(me=0)
            self.position = parse_position("00000/00000/00000/00000/00000 1 -,- -")
            self._seats = seats

        def seats(self) -> Sequence[SeatInfo]:
            return self._seats

    host = [SeatInfo(0, "ann", local=True, human=True)]
    with terminal():
        invite = GameScreen(_Waiting(host))._invite()
        assert invite is not None
        assert "192.168.1.20:40000" in invite
        # A joiner still connecting (no seat known yet), or seated beside the host.
        assert GameScreen(_Waiting([]))._invite() is None


def test_the_god_draft_menu_shows_each_gods_power():
    from prompt_toolkit.completion import CompleteEvent
    from prompt_toolkit.document import Document

    from santorini_p2p.engine import find_god
    from santorini_p2p.ui.completer import ActionCompleter

    game = LocalGame([Player("Ann"), Player("Ben")], gods="draft", seed=1, time_control=None)
    offered = list(
        ActionCompleter(lambda: game.position).get_completions(Document(""), CompleteEvent())
    )
    assert offered
    for c in offered:
        assert c.text.startswith("god ")
        assert c.display_meta_text == find_god(c.text.split()[-1]).power
