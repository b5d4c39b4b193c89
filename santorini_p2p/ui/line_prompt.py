"""The line-by-line text front end: a network game played from standard input, without a screen."""

from __future__ import annotations

import asyncio
import sys
import threading
from typing import TYPE_CHECKING

from santorini_p2p.errors import SantoriniError

if TYPE_CHECKING:
    from santorini_p2p.net.game import NetworkGame

__all__ = ["start_prompt"]


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
        from santorini_p2p.engine import legal_form, parse_action
        from santorini_p2p.ui.board_view import render_text

        while game.session.stopped is None and not game.session.is_complete:
            if game.awaiting is None:
                wake.clear()
                try:
                    async with asyncio.timeout(0.5):
                        await wake.wait()
                except TimeoutError:
                    pass
                continue
            print(render_text(game.position))
            print("your move (action text, or 'resign'): ", end="", flush=True)
            line = await lines.get()
            if not line:
                return
            text = line.strip()
            try:
                if text == "resign":
                    game.resign()
                else:
                    action = parse_action(text)
                    game.submit(legal_form(game.position, action) or action)
            except SantoriniError as e:
                print(f"santorini: {e}", flush=True)

    asyncio.get_running_loop().create_task(prompt())
