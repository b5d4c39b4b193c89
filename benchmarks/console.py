#!/usr/bin/env python3
"""Console latency: time from a keystroke to the end of the redraw it causes, on a full board.

Run by hand (`python benchmarks/console.py`); prints the median and the worst time of typing
turns letter by letter into the real game screen (80x24, VT100 output to memory), with the
simple gods and with advanced ones (whose panel says what their powers impose), also while
the computer opponent searches: in its own process, as the console runs it, and for
comparison in a thread of this process. Target: well under 50 ms a keystroke.
"""

from __future__ import annotations

import argparse
import asyncio
import io
import random
import statistics
import threading
import time

from prompt_toolkit.application import create_app_session
from prompt_toolkit.data_structures import Size
from prompt_toolkit.input import create_pipe_input
from prompt_toolkit.output.vt100 import Vt100_Output

from santorini_p2p.ai import choose_action
from santorini_p2p.ai.worker import SearchProcess
from santorini_p2p.engine import OPENING, Phase, legal_actions, new_game, parse_position
from santorini_p2p.ui.app import GameScreen
from santorini_p2p.ui.local import LocalGame, Player


def _full_game(gods: tuple[str, str], plies: int, seed: int) -> LocalGame:
    """A hot-seat game with ``gods`` played ``plies`` actions into a random line."""
    rng = random.Random(seed)
    while True:
        start = new_game(2, "random", drawn=gods) if all(gods) else new_game(2)
        game = LocalGame([Player("A"), Player("B")], time_control=None, start=start)
        for _ in range(plies):
            if game.position.phase is Phase.OVER:
                break
            game.submit(rng.choice(legal_actions(game.position)))
        if game.position.phase is Phase.PLAY:
            return game
        seed += 1
        rng = random.Random(seed)


def _search_in_background(stop: threading.Event, where: str) -> None:
    """Keep the computer opponent searching, as it does while the player types ahead.

    ``where``: "thread" searches in this thread, "process" in the search process the console
    uses (this thread only waits for it).
    """
    p = parse_position(OPENING)
    searcher = SearchProcess() if where == "process" else None
    try:
        while not stop.is_set():
            if searcher is None:
                choose_action(p, "hard", rng=random.Random(0), think=0.5, stop=stop)
            else:
                searcher.choose(p, "hard", random.Random(0), stop, think=0.5)
    finally:
        if searcher is not None:
            searcher.close()


async def _measure(game: LocalGame, keys_to_type: int, busy: str = "") -> list[float]:
    stop = threading.Event()
    worker = threading.Thread(target=_search_in_background, args=(stop, busy), daemon=True)
    if busy:
        worker.start()
        await asyncio.sleep(1)  # the search process starts, as it has in a game
    try:
        return await _type(game, keys_to_type)
    finally:
        stop.set()
        if busy:
            worker.join(5)


async def _type(game: LocalGame, keys_to_type: int) -> list[float]:
    times: list[float] = []
    out = io.StringIO()
    output = Vt100_Output(out, lambda: Size(rows=24, columns=80), term="xterm-256color")
    with create_pipe_input() as pipe, create_app_session(input=pipe, output=output):
        screen = GameScreen(game, mouse=False)
        rendered = asyncio.Event()
        screen.app.after_render += lambda _app: rendered.set()
        task = asyncio.create_task(screen.run())
        await asyncio.wait_for(rendered.wait(), 5)
        rng = random.Random(1)
        typed = 0
        while typed < keys_to_type:
            text = str(rng.choice(legal_actions(game.position)))
            for ch in text[:-1]:
                rendered.clear()
                start = time.perf_counter()
                pipe.send_text(ch)
                await asyncio.wait_for(rendered.wait(), 5)
                times.append(time.perf_counter() - start)
                typed += 1
            pipe.send_text("\x15")  # Ctrl-U: clear the line without playing
            await asyncio.sleep(0.05)
        screen.app.exit(result="menu")
        await task
    return times


def main() -> int:
    """Print keystroke-to-redraw times."""
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--keys", type=int, default=200, help="keystrokes to time")
    args = parser.parse_args()
    # (gods, search beside, actions played first): Poseidon early, while its unmoved worker
    # can still build three times (thousands of legal turns).
    runs = (
        (("", ""), "", 30),
        (("hermes", "prometheus"), "", 30),
        (("poseidon", "limus"), "", 6),
        (("charon", "hypnus"), "", 30),
        (("triton", "aphrodite"), "", 30),
        (("ares", "chronus"), "", 30),
        (("", ""), "process", 30),
        (("", ""), "thread", 30),
    )
    for gods, busy, plies in runs:
        game = _full_game(gods, plies, 3)
        times = sorted(asyncio.run(_measure(game, args.keys, busy)))
        ms = [t * 1000 for t in times]
        name = ",".join(g or "-" for g in gods) + (f" +search ({busy})" if busy else "")
        print(
            f"gods {name:<22} legal {len(legal_actions(game.position)):>5}  "
            f"median {statistics.median(ms):6.1f} ms  p95 {ms[int(len(ms) * 0.95)]:6.1f} ms  "
            f"max {ms[-1]:6.1f} ms"
        )
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
