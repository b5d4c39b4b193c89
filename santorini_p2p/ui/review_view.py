"""The engine review of a game just played, from its game-over screen: progress, then the viewer.

``review_game`` runs ``santorini replay review``'s work (``study/review.py``) on the replay file
the game was saved as, off the event loop, while a screen shows how far it has got; Esc stops
it. The review is stored beside the replay as that command stores it, so the replay viewer, the
HTML export and a later ``replay review`` all find it; the viewer then opens on the game with
the review's marks, best turns and evaluation line.
"""

from __future__ import annotations

import asyncio
import logging
import os
import threading
from pathlib import Path
from typing import Final

from prompt_toolkit.application import Application
from prompt_toolkit.application.current import get_app
from prompt_toolkit.formatted_text import StyleAndTextTuples
from prompt_toolkit.key_binding import KeyBindings, KeyPressEvent
from prompt_toolkit.layout import FormattedTextControl, HSplit, Layout, Window

from santorini_p2p.errors import SantoriniError
from santorini_p2p.study.review import DEFAULT_LEVEL, DEFAULT_THINK, review_file
from santorini_p2p.ui.app import STYLE
from santorini_p2p.ui.replay_view import view_replay_file

__all__ = ["CANCELLED", "review_game"]

LOG = logging.getLogger(__name__)

CANCELLED: Final = "Review stopped; r starts it again."
"""What the game screen says after the player stopped a review."""


class _Stopped(Exception):
    """Raised from the review's progress report once the player has asked it to stop."""


def _bar(done: int, total: int, width: int) -> str:
    """``[#####.....]``: ``done`` of ``total`` over ``width`` columns (brackets included)."""
    inside = max(1, width - 2)
    filled = inside * done // total if total else 0
    return "[" + "#" * filled + "." * (inside - filled) + "]"


async def review_game(
    path: Path, *, think: float | None = None, mouse: bool = True, jobs: int | None = None
) -> str | None:
    """Review the game in the replay file ``path``, then show it with the review in the viewer.

    ``think`` is the search's seconds a position (the review's default when None), ``jobs``
    the processes it uses (one a core when None). Returns what the game screen should say
    afterwards: why there is no review (the file, the game of 3 players, ...), that it was
    stopped, or None once the viewer has been closed.
    """
    seconds = think if think is not None else DEFAULT_THINK
    workers = jobs if jobs is not None else (os.cpu_count() or 1)
    loop = asyncio.get_running_loop()
    stop = threading.Event()
    done = [0, 0]
    stopping = [False]

    def progress(k: int, total: int) -> None:
        if stop.is_set():
            raise _Stopped
        done[:] = [k, total]
        loop.call_soon_threadsafe(app.invalidate)

    def screen() -> StyleAndTextTuples:
        width = max(20, get_app().output.get_size().columns - 4)
        k, total = done
        count = f" {k} of {total} positions" if total else " verifying the replay"
        bar = _bar(k, total, max(10, width - len(count)))
        action = (
            "Stopping after the positions under way..."
            if stopping[0]
            else f"The engine ({DEFAULT_LEVEL}, {seconds:g} s a position) judges every turn."
        )
        return [
            ("bold", "\n  Reviewing this game\n"),
            ("", f"  {path.name}\n\n"),
            ("", f"  {bar}{count}\n\n"),
            ("class:hint", f"  {action}\n"),
        ]

    kb = KeyBindings()

    @kb.add("escape", eager=True)
    @kb.add("c-c")
    @kb.add("c-q")
    @kb.add("q")
    def _stop(event: KeyPressEvent) -> None:
        stop.set()
        stopping[0] = True

    footer: StyleAndTextTuples = [("class:title", " Esc stop the review ")]
    app: Application[None] = Application(
        layout=Layout(
            HSplit(
                [
                    Window(FormattedTextControl(screen)),
                    Window(FormattedTextControl(footer), height=1),
                ]
            )
        ),
        key_bindings=kb,
        style=STYLE,
        full_screen=True,
        refresh_interval=0.5,
    )
    work = asyncio.create_task(
        asyncio.to_thread(
            review_file, path, level=DEFAULT_LEVEL, think=seconds, jobs=workers, progress=progress
        )
    )

    def leave_when_done() -> None:
        # Registered once the screen runs: a review over before that still closes it.
        work.add_done_callback(lambda _: app.exit() if app.is_running else None)

    try:
        await app.run_async(pre_run=leave_when_done)
    finally:
        stop.set()  # however the screen went away, the review is not wanted any longer
        await asyncio.wait([work])
    if stopping[0]:
        return CANCELLED
    try:
        review, how = work.result()
    except _Stopped:
        return CANCELLED
    except (SantoriniError, ValueError, OSError) as e:
        return f"No review: {e}"
    except Exception as e:  # an edge (a search process lost): said, and the game kept
        LOG.exception("the review of %s failed", path)
        return f"No review: it failed ({e or type(e).__name__}); the game is kept in {path}."
    note = None if how in ("saved", "reused") else f"The review is {how}."
    why = await view_replay_file(str(path), mouse=mouse, review=review)
    return why or note
