"""Computer players watched over 127.0.0.1 hold their turns while paused, one more per step."""

from __future__ import annotations

import asyncio
import contextlib
import threading

from santorini_p2p.engine import legal_actions
from santorini_p2p.net import game as net_game
from santorini_p2p.net.session import GameSettings
from santorini_p2p.ui.state import Pausable


def test_paused_players_hold_their_turns_and_a_step_lets_exactly_one_through(monkeypatch):
    chosen: list[int] = []
    lock = threading.Lock()

    def counting_bot(level, think=None):
        def choose(position, rng, stop):
            with lock:
                chosen.append(len(chosen))
            return rng.choice(legal_actions(position))

        return choose

    monkeypatch.setattr(net_game, "ai_bot", counting_bot)

    async def main():
        game = await net_game.loopback_game(
            ["random", "random"], GameSettings(2, "none", None), seed=5
        )
        assert isinstance(game, Pausable)
        assert not any(v.human for v in game.seats())
        assert game.replay is None  # its files go with the temporary directory
        changed = asyncio.Event()
        game.listen(changed.set)
        holds: list[int] = []
        loop = asyncio.get_running_loop()
        told = game._gate.on_hold

        def counted() -> None:
            holds.append(len(holds))
            changed.set()

        def on_hold():  # the gate's own report, counted, then passed on
            loop.call_soon_threadsafe(counted)
            told()

        game._gate.on_hold = on_hold

        async def until(condition):
            while not condition():
                changed.clear()
                await changed.wait()

        running = asyncio.create_task(game.run())
        try:
            async with asyncio.timeout(30):
                await until(lambda: len(game.actions) >= 2)
                game.pause(True)
                await until(
                    lambda: holds and any(m.text.startswith("Paused") for m in game.messages)
                )
                held = len(game.actions)
                assert len(chosen) == held + 1  # chosen, and held back
                game.step()
                await until(lambda: len(game.actions) == held + 1 and len(holds) == 2)
                # The next player has chosen and holds its turn: nothing else was played.
                assert len(chosen) == held + 2
                assert len(game.actions) == held + 1
                game.pause(False)
                # Played on: the held turn and the ones after it, to the end if it comes first.
                await until(lambda: len(game.actions) >= held + 3 or game.session.is_complete)
        finally:
            running.cancel()
            with contextlib.suppress(asyncio.CancelledError):
                await running

    asyncio.run(main())
