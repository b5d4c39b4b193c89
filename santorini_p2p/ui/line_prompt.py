"""The line-by-line text front end: a game played from standard input, without a screen."""

from __future__ import annotations

import asyncio
import contextlib
import sys
import threading
from typing import TYPE_CHECKING

from santorini_p2p.errors import SantoriniError

if TYPE_CHECKING:
    from santorini_p2p.net.game import NetworkGame
    from santorini_p2p.ui.local import LocalGame

__all__ = ["choice_prompt", "play_by_lines", "start_prompt"]


def choice_prompt(asked: tuple[str, list[str]]) -> str:
    """The line asking this player's choice in another player's turn (SPEC.md 8.4)."""
    squares = ", ".join(a[1:] for a in asked[1] if a != "-")
    return (
        f"your power: after {asked[0]}, put a worker from your card on a square ({squares}) "
        "or type - for none: "
    )


def start_prompt(game: NetworkGame) -> None:
    """Without a terminal (scripts, pipes): a plain line prompt that reads action text."""
    wake = asyncio.Event()
    game.listen(wake.set)
    loop = asyncio.get_running_loop()
    lines: asyncio.Queue[str] = asyncio.Queue()

    def read_lines() -> None:
        # A daemon thread: a pending read must not keep the process alive after the game.
        try:
            for line in sys.stdin:
                loop.call_soon_threadsafe(lines.put_nowait, line)
            loop.call_soon_threadsafe(lines.put_nowait, "")
        except RuntimeError:
            return  # the game is over and its event loop closed

    threading.Thread(target=read_lines, daemon=True).start()

    async def prompt() -> None:
        from santorini_p2p.engine import format_position, legal_form, parse_action
        from santorini_p2p.ui.board_view import render_text

        asked = -1  # the record count when the prompt was last printed
        while game.session.stopped is None and not game.session.is_complete:
            count = len(game.session.records)
            choice = game.choice_asked
            question = game.objection_asked
            if question is not None and asked != count:
                asked = count
                print(f"{question} ", end="", flush=True)
            elif game.takeback_asked is not None and asked != count:
                asked = count
                print("takeback (y to accept, n to refuse): ", end="", flush=True)
            elif choice is not None and asked != count:
                asked = count
                print(render_text(game.position))
                print(choice_prompt(choice), end="", flush=True)
            elif game.awaiting is not None and asked != count:
                asked = count
                print(render_text(game.position))
                print(f"position: {format_position(game.position)}")
                print(
                    "your move (action text, 'takeback', 'say TEXT' or 'resign'): ",
                    end="",
                    flush=True,
                )
            # A line may come at any time: 'takeback' is typed after one's own move.
            wake.clear()
            line_task = asyncio.ensure_future(lines.get())
            wake_task = asyncio.ensure_future(wake.wait())
            await asyncio.wait(
                {line_task, wake_task}, timeout=0.5, return_when=asyncio.FIRST_COMPLETED
            )
            wake_task.cancel()
            if not line_task.done():
                line_task.cancel()
                continue
            line = line_task.result()
            if not line:
                return
            text = line.strip()
            try:
                if text == "resign":
                    game.resign()
                elif text == "takeback":
                    game.ask_takeback()
                elif text.startswith("say "):
                    game.say(text[4:])
                elif text in ("y", "n") and game.objection_asked is not None:
                    game.answer_objection(text == "y")
                elif text in ("y", "n") and game.takeback_asked is not None:
                    game.answer_takeback(text == "y")
                elif text and game.choice_asked is not None:
                    game.answer_choice(text)
                elif text and game.awaiting is None:
                    print("santorini: not your move yet", flush=True)
                elif text:
                    action = parse_action(text)
                    game.submit(legal_form(game.position, action) or action)
            except SantoriniError as e:
                print(f"santorini: {e}", flush=True)
            asked = -1

    asyncio.get_running_loop().create_task(prompt())


def _stdin_lines(loop: asyncio.AbstractEventLoop) -> asyncio.Queue[str]:
    """Lines of standard input as they come, then ``""`` at its end (a daemon thread reads)."""
    lines: asyncio.Queue[str] = asyncio.Queue()

    def read_lines() -> None:
        try:
            for line in sys.stdin:
                loop.call_soon_threadsafe(lines.put_nowait, line)
            loop.call_soon_threadsafe(lines.put_nowait, "")
        except RuntimeError:
            return  # the game is over and its event loop closed

    threading.Thread(target=read_lines, daemon=True).start()
    return lines


async def play_by_lines(game: LocalGame) -> bool:
    """Play a game on this terminal from standard input, one action a line; print its events.

    Before each of a person's turns the board, the position string and a prompt are printed;
    a line is an action's text, ``resign`` or ``undo``. Where a person here chooses in another
    seat's turn, the board and that question are printed, and a line is the answer. Returns
    whether the game reached its end (False: standard input ended first, and the game is kept
    unfinished).
    """
    from santorini_p2p.engine import Phase, format_position, legal_form, parse_action
    from santorini_p2p.ui.board_view import render_text

    loop = asyncio.get_running_loop()
    lines = _stdin_lines(loop)
    wake = asyncio.Event()
    game.listen(wake.set)
    runner = asyncio.create_task(game.run())
    shown = 0

    def show_messages() -> None:
        nonlocal shown
        for m in game.messages[shown:]:
            print(m.text, flush=True)
        shown = len(game.messages)

    try:
        while True:
            show_messages()
            if game.position.phase is Phase.OVER:
                return True
            if runner.done():
                runner.result()  # the game ended early: raise what ended it
                return False
            choice = game.choice_asked
            if choice is not None:
                # A person here chooses in another seat's turn (SPEC.md 8.4).
                print(render_text(game.position))
                print(choice_prompt(choice), end="", flush=True)
                line = await lines.get()
                if not line:
                    print(flush=True)
                    return False
                text = line.strip()
                try:
                    if text == "undo":
                        game.undo()
                    elif text:
                        game.answer_choice(text)
                except SantoriniError as e:
                    print(f"santorini: {e}", flush=True)
                continue
            if game.awaiting is None:
                wake.clear()
                with contextlib.suppress(TimeoutError):
                    async with asyncio.timeout(0.5):
                        await wake.wait()
                continue
            p = game.position
            print(render_text(p))
            print(f"position: {format_position(p)}")
            print(
                f"seat {p.to_move + 1} to move (action text, 'undo' or 'resign'): ",
                end="",
                flush=True,
            )
            line = await lines.get()
            if not line:
                print(flush=True)
                return False
            text = line.strip()
            if not text:
                continue
            try:
                if text == "resign":
                    game.resign()
                elif text == "undo":
                    game.undo()
                else:
                    action = parse_action(text)
                    game.submit(legal_form(game.position, action) or action)
            except SantoriniError as e:
                print(f"santorini: {e}", flush=True)
    finally:
        if not runner.done():
            runner.cancel()
            with contextlib.suppress(asyncio.CancelledError):
                await runner
        show_messages()
