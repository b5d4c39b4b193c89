"""Change listeners: the one way a game object tells its screen that something changed."""

from __future__ import annotations

import contextlib
from collections.abc import Callable

__all__ = ["Listener", "Listeners"]

Listener = Callable[[], None]
"""Called with no argument after a change; it reads what it needs from the object."""


class Listeners:
    """The functions to call after every change, in the order they were added."""

    __slots__ = ("_calls",)

    def __init__(self) -> None:
        self._calls: list[Listener] = []

    def add(self, listener: Listener) -> Callable[[], None]:
        """Call ``listener`` after every change; return the function that stops the calls."""
        self._calls.append(listener)

        def stop() -> None:
            with contextlib.suppress(ValueError):
                self._calls.remove(listener)

        return stop

    def notify(self) -> None:
        """Call every listener (one may stop itself or another while it runs)."""
        for f in list(self._calls):
            f()
