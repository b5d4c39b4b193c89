"""Local games: hot-seat, against the computer, watching; undo, clocks, resignation."""

from __future__ import annotations

import asyncio
import contextlib
import random

import pytest

from santorini_p2p.engine import Phase, legal_actions, parse_action
from santorini_p2p.errors import IllegalTurnError
from santorini_p2p.net.session import NoteKind
from santorini_p2p.ui.local import LocalGame, Player, TimeControl
from santorini_p2p.ui.state import GameController


class FakeClock:
    def __init__(self) -> None:
        self.now = 1_000

    def __call__(self) -> int:
        return self.now


def first_choice(position, level, rng, stop):
    return legal_actions(position)[0]


def random_choice(position, level, rng, stop):
    return rng.choice(legal_actions(position))


async def until(game, condition, limit: float = 10.0) -> None:
    """Wait, at most ``limit`` seconds, for the game to change until ``condition`` holds."""
    changed = asyncio.Event()
    stop = game.listen(changed.set)
    try:
        async with asyncio.timeout(limit):
            while not condition():
                await changed.wait()
                changed.clear()
    finally:
        stop()


def hotseat(**kw) -> LocalGame:
    kw.setdefault("time_control", None)
    return LocalGame([Player("Ann"), Player("Ben")], **kw)


def test_local_game_is_a_game_controller():
    assert isinstance(hotseat(), GameController)


def test_hotseat_awaits_each_seat_in_turn_and_undo_takes_back_one_action():
    g = hotseat()
    assert g.awaiting == 0
    g.submit(parse_action("place b2,d4"))
    assert g.awaiting == 1
    g.submit(parse_action("place b4,d2"))
    assert g.position.phase is Phase.PLAY
    g.undo()
    assert g.awaiting == 1
    assert len(g.actions) == 1
    assert g.messages[-1].text == "Took back the last move."


def test_undo_with_nothing_to_take_back_raises():
    with pytest.raises(IllegalTurnError):
        hotseat().undo()


def test_submit_refuses_illegal_actions_and_computer_turns():
    g = LocalGame([Player("Ann"), Player("Bot", "random")], time_control=None, chooser=first_choice)
    with pytest.raises(IllegalTurnError):
        g.submit(parse_action("b2>c3^d4"))
    g.submit(parse_action("place a1,b1"))
    assert g.awaiting is None
    with pytest.raises(IllegalTurnError):
        g.submit(parse_action("place c1,d1"))


def test_computer_plays_off_the_loop_and_undo_takes_back_its_reply_too():
    async def main():
        g = LocalGame(
            [Player("Ann"), Player("Bot", "random")], time_control=None, chooser=first_choice
        )
        changes = []
        g.listen(lambda: changes.append(len(g.actions)))
        runner = asyncio.create_task(g.run())
        g.submit(parse_action("place b2,d4"))
        await until(g, lambda: len(g.actions) == 2)
        assert g.awaiting == 0
        assert "Bot (seat 2, B) played place a1,b1." in [m.text for m in g.messages]
        g.undo()
        assert len(g.actions) == 0
        assert g.awaiting == 0
        assert changes[:2] == [1, 2]
        runner.cancel()
        with pytest.raises(asyncio.CancelledError):
            await runner

    asyncio.run(main())


def test_two_computers_finish_a_game_alone():
    async def main():
        g = LocalGame(
            [Player("One", "random"), Player("Two", "random")],
            time_control=None,
            seed=5,
            gods="random",
            chooser=random_choice,
        )
        assert g.awaiting is None
        assert not g.can_undo
        await asyncio.wait_for(g.run(), 20)
        assert g.position.phase is Phase.OVER
        assert g.messages[-1].kind is NoteKind.WIN
        assert " wins" in g.messages[-1].text

    asyncio.run(main())


def test_same_seed_same_game():
    async def play(seed):
        g = LocalGame(
            [Player("One", "random"), Player("Two", "random")],
            time_control=None,
            seed=seed,
            gods="draft",
            chooser=random_choice,
        )
        await asyncio.wait_for(g.run(), 20)
        return [str(a) for a in g.actions]

    assert asyncio.run(play(3)) == asyncio.run(play(3))


def test_clock_runs_for_the_seat_to_move_then_the_bank_drains():
    clock = FakeClock()
    g = hotseat(time_control=TimeControl(60_000, 300_000), clock=clock)
    clock.now += 61_500
    a, b = g.seats()
    assert a.clock is not None
    assert a.clock.running
    assert (a.clock.move_ms, a.clock.bank_ms) == (0, 298_500)
    assert b.clock is not None
    assert not b.clock.running
    assert b.clock.bank_ms == 300_000
    g.submit(parse_action("place b2,d4"))
    a, b = g.seats()
    assert a.clock.bank_ms == 298_500
    assert not a.clock.running
    assert b.clock.running
    assert b.clock.move_ms == 60_000


def test_running_out_of_time_loses_section_5():
    clock = FakeClock()
    g = hotseat(time_control=TimeControl(1_000, 2_000), clock=clock)
    clock.now += 2_999
    g.check_clock()
    assert g.position.phase is not Phase.OVER
    clock.now += 1
    g.check_clock()
    assert g.position.phase is Phase.OVER
    assert g.position.winner == 1
    texts = [m.text for m in g.messages]
    assert "Ann (seat 1, A) ran out of time." in texts
    assert texts[-1] == "Ben (seat 2, B) wins on time."


def test_the_run_loop_flags_a_clock_that_runs_out():
    async def main():
        g = hotseat(time_control=TimeControl(10, 10))
        await asyncio.wait_for(g.run(), 5)
        assert g.position.phase is Phase.OVER

    asyncio.run(main())


def test_resign_ends_the_game_and_can_be_undone():
    g = hotseat()
    g.resign()
    assert g.position.phase is Phase.OVER
    assert g.position.winner == 1
    assert g.messages[-2].text == "Ann (seat 1, A) resigned."
    g.undo()
    assert g.position.phase is Phase.GODS or g.position.phase is Phase.PLACE


def test_a_four_player_game_is_won_by_a_team_and_says_so():
    from santorini_p2p.ui.board_view import winner_text

    names = ["Ann", "Ben", "Cat", "Dan"]
    g = LocalGame([Player(n) for n in names], time_control=None)
    g.resign()  # Ann (team A) resigns: team B wins
    assert g.messages[-1].text == "Ben and Dan (team B) win by resignation."
    assert winner_text(g.position, g.position.winner) == "team B (seats 2 and 4)"
    two = LocalGame([Player(n) for n in names[:2]], time_control=None)
    two.resign()
    assert two.messages[-1].text == "Ben (seat 2, B) wins by resignation."
    assert winner_text(two.position, two.position.winner) == "seat 2"


def test_challenger_naming_the_start_player_moves_the_players_with_their_seats():
    g = hotseat(gods="challenger")
    g.submit(parse_action("gods apollo,pan"))
    g.submit(parse_action("god pan"))
    assert g.position.phase is Phase.GODS
    assert g.awaiting == 0
    g.submit(parse_action("start 2"))
    assert g.player(0).name == "Ben"
    assert g.player(1).name == "Ann"
    assert g.position.gods == ("pan", "apollo")
    assert [v.name for v in g.seats()] == ["Ben", "Ann"]
    g.undo()
    assert g.player(0).name == "Ann"


def test_vs_computer_end_message_speaks_to_the_player():
    async def main():
        g = LocalGame(
            [Player("You"), Player("Computer", "random")],
            time_control=None,
            seed=1,
            chooser=random_choice,
        )
        runner = asyncio.create_task(g.run())
        rng = random.Random(0)
        while g.position.phase is not Phase.OVER:
            await until(g, lambda: g.awaiting is not None or g.position.phase is Phase.OVER)
            if g.awaiting is not None:
                g.submit(rng.choice(legal_actions(g.position)))
        await asyncio.wait_for(runner, 5)
        last = g.messages[-1]
        assert last.kind in (NoteKind.WIN, NoteKind.LOSS)
        assert last.text.startswith(("You win", "You lose: Computer (seat 2, B) wins"))

    asyncio.run(main())


def test_a_journal_keeps_the_game_and_resume_plays_on(tmp_path):
    path = tmp_path / "home" / "local-game.json"
    g = LocalGame(
        [Player("Ann"), Player("Bot", "easy")],
        gods="challenger",
        time_control=TimeControl(60_000, 300_000),
        journal=path,
        chooser=first_choice,
    )
    g.submit(parse_action("gods apollo,pan"))
    g._apply(parse_action("god pan"))
    g.submit(parse_action("start 2"))
    assert path.exists()
    again = LocalGame.resume(path, chooser=first_choice)
    assert again.position == g.position
    assert [str(a) for a in again.actions] == [str(a) for a in g.actions]
    assert again.player(0).name == "Bot"
    assert again.messages[-1].text.startswith("Resumed the game from ")
    assert again.journal_summary() == "local game, 3 actions played"
    again.resign()
    assert not path.exists()


def test_resume_refuses_a_file_that_is_not_a_journal(tmp_path):
    path = tmp_path / "x.json"
    path.write_text('{"format": "something else"}')
    with pytest.raises(ValueError, match="not a local game journal"):
        LocalGame.resume(path)
    path.write_text("[1, 2")
    with pytest.raises(ValueError, match="cannot resume"):
        LocalGame.resume(path)


def test_a_thinking_computer_is_stopped_before_its_clock_runs_out():
    import threading
    import time

    from santorini_p2p.ai import CLOCK_MARGIN_MS

    stopped_after: list[float] = []

    def patient(position, level, rng, stop: threading.Event):
        started = time.monotonic()
        assert stop.wait(20), "the computer player was never stopped"
        stopped_after.append(time.monotonic() - started)
        return rng.choice(legal_actions(position))

    allowance_ms = 1_500

    async def main():
        g = LocalGame(
            [Player("Bot 1", "hard"), Player("Bot 2", "hard")],
            time_control=TimeControl(allowance_ms, 0),
            chooser=patient,
            seed=3,
        )
        task = asyncio.create_task(g.run())
        await until(g, lambda: len(stopped_after) >= 3, limit=20)
        assert g.position.phase is not Phase.OVER, "no one lost on time"
        task.cancel()
        with contextlib.suppress(asyncio.CancelledError):
            await task

    asyncio.run(main())
    left = (allowance_ms - CLOCK_MARGIN_MS) / 1000
    assert all(left - 0.05 <= s < allowance_ms / 1000 for s in stopped_after[:3]), stopped_after


def test_cancelling_the_run_stops_computer_players_at_once():
    # Leaving the screen cancels run(); the computers must not play on (many tries, since
    # a cancellation that arrives with a wake-up is the case that can be lost).
    def thinking(position, level, rng, stop):
        stop.wait(0.01)
        return rng.choice(legal_actions(position))

    async def main():
        for seed in range(10):
            g = LocalGame(
                [Player("Bot 1", "random"), Player("Bot 2", "random")],
                time_control=TimeControl(60_000, 0),
                chooser=thinking,
                seed=seed,
            )
            task = asyncio.create_task(g.run())
            await until(g, lambda g=g: len(g.actions) >= 6)
            at_cancel = len(g.actions)
            task.cancel()
            with contextlib.suppress(asyncio.CancelledError):
                await asyncio.wait_for(task, 5)
            assert len(g.actions) <= at_cancel + 1, (seed, at_cancel, len(g.actions))

    asyncio.run(main())


def test_the_gods_dealt_are_said_with_the_right_verb_for_you_and_the_computer():
    g = LocalGame(
        [Player("You"), Player("Computer", bot="easy")],
        gods="random",
        pool=("ares", "charon"),
        time_control=None,
    )
    said = [m.text for m in g.messages if m.text.endswith((" ares.", " charon."))]
    assert len(said) == 2
    assert any(t.startswith("You (seat") and " have " in t for t in said)
    assert any(t.startswith("Computer (seat") and " has " in t for t in said)
