"""Computer players for a network game: the engine's levels, paced or held by a gate.

A :data:`Bot` is called in a worker thread with the position and returns the action for the
seat to move; :func:`paced` makes one wait at a human pace, :func:`gated` until a test lets it.
"""

from __future__ import annotations

import random
import threading
from collections.abc import Callable, Sequence

from santorini_p2p.engine import Action, Position
from santorini_p2p.engine.choices import Choice, choice_options

__all__ = ["Answerer", "Bot", "Gate", "ai_answerer", "ai_bot", "gated", "paced"]


Bot = Callable[[Position, random.Random, threading.Event], Action]
"""A computer player: the action for the seat to move (called in a worker thread). Once the
event is set it must return at once with the best action it has."""


def ai_bot(level: str, think: float | None = None) -> Bot:
    """Return the computer opponent at ``level``; ``think``: seconds a turn (default: its own)."""
    from santorini_p2p.ai import choose_action

    def choose(position: Position, rng: random.Random, stop: threading.Event) -> Action:
        return choose_action(position, level, rng=rng, think=think, stop=stop)

    return choose


Answerer = Callable[[Position, Sequence[Choice], str, random.Random], str]
"""A computer player's answer where its seat chooses in another seat's turn (SPEC.md 8.4):
the position, the choices signed so far in the turn, the mover's turn so far; ``+sq`` or
``-``. Called in a worker thread."""


def ai_answerer(level: str) -> Answerer:
    """The answers of the computer opponent at ``level`` (``random``: any it may give)."""
    from santorini_p2p.ai.choices import answer_for

    def answer(p: Position, answered: Sequence[Choice], asked: str, rng: random.Random) -> str:
        if level == "random":
            return rng.choice(choice_options(p, answered, asked)[1])
        return answer_for(p, answered, asked)

    return answer


def paced(bot: Bot, pace_ms: int) -> Bot:
    """``bot``, taking at least ``pace_ms`` a turn so that people can follow the game."""
    if pace_ms <= 0:
        return bot

    def choose(position: Position, rng: random.Random, stop: threading.Event) -> Action:
        stop.wait(pace_ms / 1000)  # cut short when the computer must answer at once
        return bot(position, rng, stop)

    return choose


class Gate:
    """Pause and step for computer players choosing in threads (watching them play).

    While paused, each player holds the action it has chosen until ``step`` lets one through
    or play goes on; a player whose ``stop`` is set (its time is nearly out, the position
    changed, the run ends) is never held. ``on_hold`` is called, in the player's thread, each
    time one starts to wait.
    """

    def __init__(self) -> None:
        self._cond = threading.Condition()
        self._paused = False
        self._steps = 0
        self.on_hold: Callable[[], None] | None = None

    @property
    def paused(self) -> bool:
        """Whether the players hold their actions."""
        return self._paused

    def pause(self, paused: bool) -> None:
        """Hold the players' next actions, or let them all through."""
        with self._cond:
            self._paused = paused
            self._steps = 0
            self._cond.notify_all()

    def step(self) -> None:
        """While paused: let one more action through."""
        with self._cond:
            if self._paused:
                self._steps += 1
                self._cond.notify_all()

    def wait(self, stop: threading.Event) -> None:
        """Return once this player's action may be played (at once unless paused)."""
        with self._cond:
            if not self._paused or stop.is_set():
                return
            if self._steps == 0 and self.on_hold is not None:
                self.on_hold()
            while self._paused and self._steps == 0 and not stop.is_set():
                # ``stop`` is an event of its own: looked at again every 50 ms.
                self._cond.wait(0.05)
            if self._paused and self._steps > 0:
                self._steps -= 1


def gated(bot: Bot, gate: Gate) -> Bot:
    """``bot``, holding each action it chooses at ``gate`` before it is played."""

    def choose(position: Position, rng: random.Random, stop: threading.Event) -> Action:
        action = bot(position, rng, stop)
        gate.wait(stop)
        return action

    return choose
