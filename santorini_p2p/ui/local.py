"""Games played entirely on this terminal: against the computer, hot-seat, or two computers.

:class:`LocalGame` implements :class:`~santorini_p2p.ui.state.GameController`. It keeps the
position, the players behind the seats, the clocks and an undo history; computer players are
asked from a worker thread so the screen and the clocks never wait for them, and by default
search in a process of their own (``santorini_p2p.ai.worker``) so that they do not slow the
screen down either.
"""

from __future__ import annotations

import asyncio
import atexit
import contextlib
import json
import logging
import random
import threading
from collections.abc import Callable, Sequence
from dataclasses import dataclass, replace
from pathlib import Path
from typing import Final, Protocol

from santorini_p2p.ai import CLOCK_MARGIN_MS
from santorini_p2p.ai.choices import go_on
from santorini_p2p.ai.worker import SearchProcess
from santorini_p2p.engine import (
    GOD_NAMES,
    UNDECIDED,
    Action,
    GodMode,
    NameStart,
    Phase,
    Position,
    Turn,
    apply_action,
    format_position,
    legal_actions,
    lose_on_time,
    new_game,
    outcome,
    parse_action,
    parse_position,
    resign,
)
from santorini_p2p.engine.choices import (
    NO_CHOICE,
    Choice,
    choice_options,
    choices,
    deciders,
    go_on_with,
    named_turn,
)
from santorini_p2p.engine.legality import turn_is_legal
from santorini_p2p.engine.setup import redraw_banned
from santorini_p2p.errors import IllegalTurnError, SantoriniError
from santorini_p2p.net.bots import Answerer, ai_answerer
from santorini_p2p.net.clock import STANDARD, TimeControl, monotonic_ms
from santorini_p2p.net.listeners import Listeners
from santorini_p2p.net.views import Note, NoteKind, SeatClock, SeatInfo
from santorini_p2p.ui.games import Event, Recording, write_private
from santorini_p2p.ui.state import Listener
from santorini_p2p.wire.identity import Identity

__all__ = [
    "JOURNAL_FORMAT",
    "STANDARD_TIME",
    "Chooser",
    "LocalGame",
    "Player",
    "TimeControl",
    "choose_with_ai",
    "monotonic_ms",
    "side_letter",
]


LOG = logging.getLogger(__name__)

JOURNAL_FORMAT: Final = "santorini-local-game-1"
"""The ``format`` field of a local game's journal (JSON: players, start position, actions)."""


def side_letter(p: Position, seat: int) -> str:
    """Return the letter of ``seat``'s workers: its side, A to C (teams A and B with 4 players)."""
    return "ABC"[p.side_of(seat)]


@dataclass(frozen=True, slots=True)
class Player:
    """Who sits at a seat of a local game: a person (``bot`` None) or a computer level."""

    name: str
    bot: str | None = None


STANDARD_TIME: Final = STANDARD
"""RULES.md section 5: one minute per move plus a five-minute bank per player (the network
games' time control: one type and one monotonic clock, ``net.clock``, for every game)."""


class Chooser(Protocol):
    """Picks a computer player's action; runs in a worker thread and must honour ``stop``."""

    def __call__(
        self, position: Position, level: str, rng: random.Random, stop: threading.Event
    ) -> Action:
        """Return a legal action for the seat to move in ``position``."""
        ...


_SEARCH: SearchProcess | None = None


def _search_process() -> SearchProcess:
    """The console's one search process, started on first use and ended at exit."""
    global _SEARCH
    if _SEARCH is None:
        _SEARCH = SearchProcess()
        atexit.register(_SEARCH.close)
    return _SEARCH


def choose_with_ai(
    position: Position, level: str, rng: random.Random, stop: threading.Event
) -> Action:
    """The default chooser: the computer opponent of ``santorini_p2p.ai``.

    Its searches run in a process of their own, so that the console keeps the interpreter
    to itself and redraws at full speed while the computer thinks.
    """
    return _search_process().choose(position, level, rng, stop)


def ai_chooser(think: float | None = None) -> Chooser:
    """Return the computer opponent as a chooser, thinking ``think`` seconds a turn if given."""
    if think is None:
        return choose_with_ai

    def choose(position: Position, level: str, rng: random.Random, stop: threading.Event) -> Action:
        return _search_process().choose(position, level, rng, stop, think=think)

    return choose


@dataclass(frozen=True, slots=True)
class _Snapshot:
    """What undo restores: the state just before a local human action."""

    position: Position
    order: tuple[int, ...]
    banks: tuple[int, ...]
    actions: int
    events: int


class LocalGame:
    """A game whose every seat is on this terminal; a :class:`GameController`.

    ``players`` are listed in seat order of the new game (the first is the challenger with
    the challenger rule). ``pool`` is the gods drawn or offered (empty: the ten simple
    gods). ``seed`` fixes the god draw and the computer players' choices.
    ``time_control`` None plays untimed; ``clock`` returns monotonic milliseconds. ``pace_ms``
    is the least time between two computer actions, so that people can follow them.
    ``start``, when given, is the position to play from instead of a new game. ``journal``,
    when given, is the file that keeps the game after every change so that ``resume`` can
    pick it up after the program stopped; it is removed when the game is over. ``recording``,
    when given, makes the finished game a signed replay file under ``home/games/`` (the game
    then starts from the recording's draw, and ``replay`` names the file once written).
    ``answerer``, when given, answers for every computer seat whose power chooses in another
    seat's turn (default: the computer opponent at that seat's level, as in network games).

    A seat whose power chooses in another seat's turn (SPEC.md 8.4) chooses for itself here
    too: a turn typed or found by the mover is a plan; each choice in it is asked of its
    seat's player in turn (a person through ``choice_asked``, a computer through its
    answerer), and the turn is played once every answer fits it. An answer that breaks the
    mover's moves and builds hands the turn back to the mover, to go on from the answers.

    Raises:
        ValueError: ``start`` is for another number of players.
    """

    def __init__(
        self,
        players: Sequence[Player],
        *,
        gods: GodMode = "none",
        pool: tuple[str, ...] = (),
        snake: bool = False,
        seed: int | None = None,
        time_control: TimeControl | None = STANDARD_TIME,
        title: str = "local game",
        clock: Callable[[], int] = monotonic_ms,
        pace_ms: int = 0,
        chooser: Chooser = choose_with_ai,
        start: Position | None = None,
        journal: Path | None = None,
        recording: Recording | None = None,
        home: Path | None = None,
        answerer: Answerer | None = None,
    ) -> None:
        n = len(players)
        if recording is not None and start is None:
            start = recording.start()
        self._rng = random.Random(seed)
        drawn: tuple[str, ...] = ()
        gods_from = pool or GOD_NAMES
        if gods in ("draft", "random"):
            count = n if gods == "random" else 4 if n == 2 else n + 2
            drawn = tuple(self._rng.sample(gods_from, count))
            # A banned pair (RULES.md 9): one god is set aside and another drawn.
            drawn = redraw_banned(drawn, gods_from, n, gods, self._rng.randrange)
        if start is not None and start.players != n:
            raise ValueError(f"start: a position for {start.players} players, not {n}")
        self._position = start or new_game(n, gods, snake=snake, drawn=drawn, offer=pool)
        self._players = tuple(players)
        self._bot_rngs = [random.Random(self._rng.getrandbits(64)) for _ in players]
        self._order = tuple(range(n))
        self._time = time_control
        self._clock = clock
        self._banks = [time_control.bank_ms if time_control else 0] * n
        self._started = clock()
        self._held_at: int | None = None
        """When the clocks were stopped (``hold_clocks``), None while they run."""
        self._pace_ms = pace_ms
        self._chooser = chooser
        self._title = title
        self._actions: list[Action] = []
        self._messages: list[Note] = []
        self._history: list[_Snapshot] = []
        self._listeners = Listeners()
        self._generation = 0
        self._stop_search: threading.Event | None = None
        self._wake: asyncio.Event | None = None
        self._last_bot_ms: int | None = None
        self._start = self._position
        self._journal = journal
        self._recording = recording
        self._home = home
        self._events: list[Event] = []
        self._paused = False
        self._steps = 0
        self._go: asyncio.Event | None = None
        self.replay: Path | None = None
        """The replay file of the finished game, once written."""
        self._answerer = answerer
        self._plan: Turn | None = None
        """The mover's turn while other seats choose in it (SPEC.md 8.4), else None."""
        self._answered: list[Choice] = []
        """The choices other seats made so far in the turn under way."""
        self._announce_start()

    # -- reading -----------------------------------------------------------------------------

    @property
    def title(self) -> str:
        """A short description of the game for the title bar."""
        return self._title

    @property
    def position(self) -> Position:
        """The current position."""
        return self._position

    @property
    def actions(self) -> Sequence[Action]:
        """Every action played so far."""
        return self._actions

    @property
    def messages(self) -> Sequence[Note]:
        """Every message so far, oldest first."""
        return self._messages

    @property
    def stopped(self) -> str | None:
        """Local games never stop early."""
        return None

    @property
    def awaiting(self) -> int | None:
        """The seat to move if a person here plays it and the game goes on."""
        p = self._position
        if p.phase is Phase.OVER or self._plan is not None:
            return None
        return p.to_move if self.player(p.to_move).bot is None else None

    @property
    def choice_asked(self) -> tuple[str, list[str]] | None:
        """The mover's turn so far and the answers a person here may give, when one owes one.

        SPEC.md 8.4: a seat whose power chooses in another seat's turn answers ``+sq`` or
        ``-``; ``answer_choice`` gives the answer.
        """
        ask = self._next_ask()
        if ask is None or self.player(ask.seat).bot is not None:
            return None
        return ask.asked, choice_options(self._position, self._answered, ask.asked)[1]

    @property
    def choices_made(self) -> tuple[str, ...]:
        """The choices other seats made in the turn under way, as text."""
        return tuple(c.asked + (c.answer if c.answer != NO_CHOICE else "") for c in self._answered)

    def answer_choice(self, answer: str) -> None:
        """Give a person's answer (``+sq``, the square alone, or ``-``) to the open choice.

        Raises:
            IllegalTurnError: no person here is asked now, or the answer is not one the seat
                may give (the message lists those it may).
        """
        asked = self.choice_asked
        ask = self._next_ask()
        if asked is None or ask is None:
            raise IllegalTurnError("no choice of this player is awaited now")
        text = answer.strip().lower()
        if text and text[0] != "+" and text != NO_CHOICE:
            text = "+" + text
        if text not in asked[1]:
            raise IllegalTurnError(
                f"{answer!r} is not a choice here after {asked[0]!r}: " + ", ".join(asked[1])
            )
        self._take_answer(Choice(ask.seat, ask.asked, text))

    @property
    def can_undo(self) -> bool:
        """Whether a local human action can be taken back."""
        return bool(self._history)

    def player(self, seat: int) -> Player:
        """Return the player sitting at ``seat`` now (the challenger's choice renumbers seats)."""
        return self._players[self._order[seat]]

    def seats(self) -> Sequence[SeatInfo]:
        """One view per seat, clocks read now."""
        p = self._position
        running = p.phase is not Phase.OVER
        now = self._game_ms()
        views = []
        for seat in range(p.players):
            who = self.player(seat)
            clock = None
            if self._time is not None:
                bank = self._banks[self._order[seat]]
                move = self._time.move_ms
                ticking = running and seat == p.to_move
                if ticking:
                    used = now - self._started
                    move = max(0, self._time.move_ms - used)
                    bank = max(0, bank - max(0, used - self._time.move_ms))
                clock = SeatClock(move_ms=move, bank_ms=bank, running=ticking)
            views.append(
                SeatInfo(seat=seat, name=who.name, local=True, human=who.bot is None, clock=clock)
            )
        return tuple(views)

    def listen(self, listener: Listener) -> Callable[[], None]:
        """Call ``listener`` after every change; return the function that stops it."""
        return self._listeners.add(listener)

    # -- acting ------------------------------------------------------------------------------

    def submit(self, action: Action) -> None:
        """Play ``action`` for the person to move.

        Raises:
            IllegalTurnError: nobody here is to move, or the action is not legal.
        """
        if self.awaiting is None:
            raise IllegalTurnError("it is not your turn")
        before = self._snapshot()
        going_on = bool(self._answered)
        self._play(action)
        if not going_on:  # a turn taken up again after a choice keeps its first snapshot
            self._history.append(before)

    def resign(self) -> None:
        """Resign for the person to move, or the first person seated.

        Raises:
            IllegalTurnError: the game is over or every seat is a computer.
        """
        p = self._position
        seat = self.awaiting
        if seat is None:
            humans = [
                s
                for s in range(p.players)
                if self.player(s).bot is None and not p.eliminated >> s & 1
            ]
            if p.phase is Phase.OVER or not humans:
                raise IllegalTurnError("there is no seat here that can resign")
            seat = humans[0]
        before = self._snapshot()
        self._charge_clock()
        self._clear_turn()
        self._position = resign(p, seat)
        self._events.append(("resign", seat, 0))
        self._history.append(before)
        self._say(f"{self._who(seat)} resigned.", NoteKind.WARNING)
        self._after_change()

    def undo(self) -> None:
        """Take back the last action typed here and the computer's replies to it.

        Raises:
            IllegalTurnError: there is nothing to take back.
        """
        if not self._history:
            raise IllegalTurnError("there is nothing to undo")
        snap = self._history.pop()
        self._cancel_search()
        self._clear_turn()
        self._position = snap.position
        self._order = snap.order
        self._banks = list(snap.banks)
        del self._actions[snap.actions :]
        del self._events[snap.events :]
        self._started = self._game_ms()
        self._say("Took back the last move.")
        self._after_change()

    @property
    def paused(self) -> bool:
        """Whether the computer players wait (watching: ``pause`` and ``step``)."""
        return self._paused

    def pause(self, paused: bool) -> None:
        """Stop the computer players after the action under way, or let them play on."""
        self._paused = paused
        self._steps = 0
        self._say("Paused: p plays on, n one move." if paused else "Playing on.")
        self._release()
        self._after_change()

    def step(self) -> None:
        """While paused: let the computer players make one more action."""
        if self._paused:
            self._steps += 1
            self._release()

    def _release(self) -> None:
        if self._go is not None and (not self._paused or self._steps > 0):
            self._go.set()

    def check_clock(self) -> None:
        """End the game if the seat to move has run out of time (RULES.md section 5)."""
        p = self._position
        if self._time is None or p.phase is Phase.OVER:
            return
        if self._ms_left() > 0:
            return
        seat = p.to_move
        self._cancel_search()
        self._banks[self._order[seat]] = 0
        self._clear_turn()
        self._position = lose_on_time(p, seat)
        self._events.append(("timeout", seat, 0))
        self._say(f"{self._who(seat)} ran out of time.", NoteKind.WARNING)
        self._after_change()

    async def run(self) -> None:
        """Play the computer seats and watch the clocks until the game is over or cancelled."""
        self._wake = asyncio.Event()
        task: asyncio.Task[None] | None = None
        generation = -1
        try:
            while self._position.phase is not Phase.OVER:
                seat = self._position.to_move
                ask = self._next_ask()
                free = task is None or task.done() or generation != self._generation
                if ask is not None and self.player(ask.seat).bot is not None and free:
                    # A computer seat chooses in another seat's turn (SPEC.md 8.4).
                    generation = self._generation
                    task = asyncio.create_task(self._computer_answer(generation, ask))
                elif self._plan is None and self.player(seat).bot is not None and free:
                    generation = self._generation
                    task = asyncio.create_task(self._computer_turn(generation))
                timeout = None
                if self._time is not None and self._held_at is None:
                    timeout = max(0, self._ms_left()) / 1000 + 0.01
                # asyncio.timeout, not wait_for: on Python 3.11 wait_for can swallow a
                # cancellation that arrives as the wake-up does, and the game would play on.
                with contextlib.suppress(TimeoutError):
                    async with asyncio.timeout(timeout):
                        await self._wake.wait()
                self._wake.clear()
                if task is not None and task.done() and not task.cancelled():
                    task.result()
                self.check_clock()
        finally:
            self._cancel_search()
            if task is not None and not task.done():
                task.cancel()
                with contextlib.suppress(asyncio.CancelledError):
                    await task

    @classmethod
    def resume(
        cls,
        journal: Path,
        *,
        clock: Callable[[], int] = monotonic_ms,
        pace_ms: int = 0,
        chooser: Chooser = choose_with_ai,
        identity: Identity | None = None,
        home: Path | None = None,
    ) -> LocalGame:
        """Return the game kept in ``journal``, replayed to where it stopped.

        A game recorded for a replay file goes on being recorded when ``identity`` is the key
        it was recorded with (``home`` is where the replay goes).

        Raises:
            ValueError: the file is not a local game journal, or an action in it is illegal.
        """
        try:
            data = json.loads(journal.read_text(encoding="utf-8"))
            if data.get("format") != JOURNAL_FORMAT:
                raise ValueError(f"{journal}: not a local game journal")
            players = [
                Player(str(name), None if bot is None else str(bot))
                for name, bot in data["players"]
            ]
            time = data["time"]
            kept = data.get("recording")
            recording = None
            if isinstance(kept, dict) and identity is not None:
                recording = Recording.from_json(kept, identity)
            game = cls(
                players,
                time_control=None if time is None else TimeControl(int(time[0]), int(time[1])),
                title=str(data["title"]),
                clock=clock,
                pace_ms=pace_ms,
                chooser=chooser,
                start=parse_position(str(data["start"])),
                journal=journal,
                recording=recording,
                home=home,
            )
            banks = [int(b) for b in data["banks"]]
            if "events" in data:
                game._replay_events([(str(k), w, int(ms)) for k, w, ms in data["events"]], banks)
            else:
                for text in data["actions"]:
                    game._apply(parse_action(str(text)), quiet=True)
            game._banks = banks
        except (OSError, ValueError, KeyError, TypeError, IndexError, AttributeError) as e:
            raise ValueError(f"{journal}: cannot resume: {e}") from e
        game._say(f"Resumed the game from {journal} after {len(game._actions)} actions.")
        return game

    def _replay_events(self, events: Sequence[Event], banks: Sequence[int]) -> None:
        """Play a journal's events again (quietly), keeping what undo needs to take them back.

        A snapshot is kept before each person's action or resignation, as when it was played;
        its clocks are the ones the journal kept last (time spent is not given back).
        """
        for kind, what, ms in events:
            p = self._position
            person = self.player(p.to_move).bot is None
            before = self._snapshot()
            if kind == "act":
                self._apply(parse_action(str(what)), quiet=True)
                self._events[-1] = (kind, str(what), ms)
            elif kind == "resign":
                self._position = resign(p, int(what))
                self._events.append((kind, int(what), 0))
                person = self.player(int(what)).bot is None
            elif kind == "timeout":
                self._position = lose_on_time(p, int(what))
                self._events.append((kind, int(what), 0))
                person = False
            else:
                raise ValueError(f"unknown event {kind!r}")
            if person:
                self._history.append(replace(before, banks=tuple(banks)))

    def journal_summary(self) -> str:
        """A few words for the start screen: the title and how far the game got."""
        return f"{self._title}, {len(self._actions)} actions played"

    # -- inside ------------------------------------------------------------------------------

    def _save(self) -> None:
        """Write the journal (atomically); once the game is over, the replay in its place."""
        if self._position.phase is Phase.OVER and self._write_replay():
            if self._journal is not None:
                with contextlib.suppress(OSError):
                    self._journal.unlink()
            return
        if self._journal is None:
            return
        t = self._time
        data: dict[str, object] = {
            "format": JOURNAL_FORMAT,
            "title": self._title,
            "players": [[p.name, p.bot] for p in self._players],
            "time": None if t is None else [t.move_ms, t.bank_ms],
            "start": format_position(self._start),
            "actions": [str(a) for a in self._actions],
            "banks": self._banks,
            "events": [list(e) for e in self._events],
        }
        if self._recording is not None:
            data["recording"] = self._recording.to_json()
        try:
            write_private(self._journal, json.dumps(data).encode("utf-8"))
        except OSError as e:
            LOG.warning("cannot write the journal %s: %s", self._journal, e)

    def _write_replay(self) -> bool:
        """Write the finished game's replay file once; return whether the journal can go."""
        if self._recording is None or self._home is None:
            return True
        if self.replay is not None:
            return True
        try:
            self.replay = self._recording.save(self._home, self._events)
        except (OSError, SantoriniError) as e:
            LOG.warning("cannot write the replay of %s: %s", self._title, e)
            self._say(
                f"Could not save the replay: {e}; the game is kept in {self._journal}.",
                NoteKind.WARNING,
            )
            return False
        self._say(f"Saved the game as {self.replay}.")
        return True

    async def _computer_turn(self, generation: int) -> None:
        p = self._position
        seat = p.to_move
        who = self._order[seat]
        level = self._players[who].bot
        assert level is not None
        stop = threading.Event()
        self._stop_search = stop
        rng = self._bot_rngs[who]
        # On the clock, the search is stopped a second before the computer's time runs out.
        timer = None
        if self._time is not None:
            left_s = max(0, self._ms_left() - CLOCK_MARGIN_MS) / 1000
            timer = asyncio.get_running_loop().call_later(left_s, stop.set)
        answered = tuple(self._answered)
        try:
            if answered:
                # Another seat chose in this turn otherwise than planned: go on from there.
                action: Action = await asyncio.to_thread(go_on, p, answered)
            else:
                action = await asyncio.to_thread(self._chooser, p, level, rng, stop)
        finally:
            stop.set()
            if timer is not None:
                timer.cancel()
        if self._pace_ms > 0:
            since = self._clock() - (self._last_bot_ms or 0)
            if since < self._pace_ms:
                await asyncio.sleep((self._pace_ms - since) / 1000)
        if self._go is None:
            self._go = asyncio.Event()
        while self._paused and self._steps == 0:
            self._go.clear()
            await self._go.wait()
        if self._paused:
            self._steps -= 1
        if generation != self._generation or self._position is not p:
            return
        if tuple(self._answered) != answered or self._plan is not None:
            return
        self._last_bot_ms = self._clock()
        self._play(action)

    async def _computer_answer(self, generation: int, ask: Choice) -> None:
        """A computer seat's answer where it chooses in another seat's turn (SPEC.md 8.4)."""
        p = self._position
        answered = tuple(self._answered)
        level = self.player(ask.seat).bot
        assert level is not None
        answerer = self._answerer or ai_answerer(level)
        rng = self._bot_rngs[self._order[ask.seat]]
        answer = await asyncio.to_thread(answerer, p, answered, ask.asked, rng)
        if generation != self._generation or self._position is not p:
            return
        if tuple(self._answered) != answered or self._next_ask() != ask:
            return
        self._take_answer(Choice(ask.seat, ask.asked, answer))

    # -- choices in another seat's turn (SPEC.md 8.4) ------------------------------------------

    def _clear_turn(self) -> None:
        """Forget the turn under way and the choices made in it (the position changes)."""
        self._plan = None
        self._answered = []

    def _next_ask(self) -> Choice | None:
        """The choice the turn under way waits for (its ``answer`` is the plan's), or None."""
        plan = self._plan
        if plan is None or self._position.phase is Phase.OVER:
            return None
        wanted = choices(self._position, plan)
        k = len(self._answered)
        return wanted[k] if k < len(wanted) else None

    def _play(self, action: Action) -> None:
        """Play the mover's ``action``: at once, or as a plan asking other seats first.

        Raises:
            IllegalTurnError: the action is not legal, or does not go on from the choices
                already made in this turn.
        """
        p = self._position
        if not isinstance(action, Turn) or p.phase is not Phase.PLAY or not deciders(p):
            self._apply(action)
            return
        legal = named_turn(p, action, self._answered)
        if legal is None:
            if self._answered:
                made = "; ".join(self.choices_made)
                raise IllegalTurnError(
                    f"the turn must go on from what was chosen in it ({made}): "
                    f"{str(action)!r} does not"
                )
            self._apply(action)  # says why it is illegal
            return
        if not choices(p, legal):
            self._apply(legal)
            return
        self._plan = legal
        self._proceed()

    def _take_answer(self, choice: Choice) -> None:
        """Record a seat's answer in the turn under way and go on with the turn."""
        self._answered.append(choice)
        if choice.answer != NO_CHOICE:
            self._say(f"{self._who(choice.seat)} chose {choice.answer} after {choice.asked}.")
        self._proceed()

    def _proceed(self) -> None:
        """Ask the next choice of the planned turn, or play it once all are answered.

        An answer that breaks the plan's moves and builds gives the turn back to the mover,
        who goes on from the answers made.
        """
        p = self._position
        while self._plan is not None:
            plan = self._plan
            wanted = choices(p, plan)
            made = tuple(self._answered)
            k = len(made)
            if wanted[:k] != made:
                same = go_on_with(p, plan, made)
                if same is not None:
                    self._plan = same
                    continue
                self._plan = None
                last = made[-1]
                what = "no worker" if last.answer == NO_CHOICE else f"a worker on {last.answer[1:]}"
                made_text = "; ".join(self.choices_made)
                self._say(
                    f"{self._who(last.seat)} chose {what} after {last.asked}: "
                    f"{self._who(p.to_move)}, play your turn on from {made_text}.",
                    NoteKind.WARNING,
                )
                break
            if k < len(wanted):
                break
            self._clear_turn()
            self._apply(plan)
            return
        if self._wake is not None:
            self._wake.set()
        self._listeners.notify()

    def _cancel_search(self) -> None:
        self._generation += 1
        if self._stop_search is not None:
            self._stop_search.set()

    def hold_clocks(self, held: bool) -> None:
        """Stop the clocks while no one can see the board, or let them run on again.

        The window too small to show the board holds them; the time held is no one's.
        """
        if held and self._held_at is None:
            self._held_at = self._clock()
        elif not held and self._held_at is not None:
            self._started += self._clock() - self._held_at
            self._held_at = None
            if self._wake is not None:
                self._wake.set()  # the time left counts down again

    def _game_ms(self) -> int:
        """The clocks' time now: it stands still while they are held."""
        return self._held_at if self._held_at is not None else self._clock()

    def _ms_left(self) -> int:
        assert self._time is not None
        used = self._game_ms() - self._started
        bank = self._banks[self._order[self._position.to_move]]
        return self._time.move_ms + bank - used

    def _charge_clock(self) -> None:
        if self._time is None:
            return
        now = self._game_ms()
        used = now - self._started
        who = self._order[self._position.to_move]
        self._banks[who] = max(0, self._banks[who] - max(0, used - self._time.move_ms))
        self._started = now

    def _snapshot(self) -> _Snapshot:
        return _Snapshot(
            self._position, self._order, tuple(self._banks), len(self._actions), len(self._events)
        )

    def _apply(self, action: Action, *, quiet: bool = False) -> None:
        p = self._position
        # A turn by one turn's check: Heracles against Gaea has a million of them.
        legal = turn_is_legal(p, action) if isinstance(action, Turn) else action in legal_actions(p)
        if not legal:
            raise IllegalTurnError(f"{action} is not legal now")
        self._clear_turn()
        mover = self._who(p.to_move)
        used = self._game_ms() - self._started
        if self._time is not None:
            # The record's reading never exceeds what was left (the clock check runs late).
            who = self._order[p.to_move]
            used = max(0, min(used, self._time.move_ms + self._banks[who]))
        self._events.append(("act", str(action), max(0, used)))
        self._charge_clock()
        q = apply_action(p, action)
        if isinstance(action, NameStart):
            n = p.players
            self._order = tuple(self._order[(action.seat + i) % n] for i in range(n))
        self._position = q
        self._actions.append(action)
        if quiet:
            return
        self._say(f"{mover} played {action}.")
        for s in range(q.players):
            if q.eliminated >> s & 1 and not p.eliminated >> s & 1:
                self._say(f"{self._who(s)} has no turn left and leaves the game.", NoteKind.WARNING)
        self._after_change()

    def _who(self, seat: int) -> str:
        name = self.player(seat).name
        return f"{name} (seat {seat + 1}, {side_letter(self._position, seat)})"

    def _say(self, text: str, kind: NoteKind = NoteKind.INFO) -> None:
        self._messages.append(Note(text, kind))

    def _announce_start(self) -> None:
        p = self._position
        if p.phase is Phase.GODS and p.pool:
            self._say(f"Gods drawn for the draft: {', '.join(p.pool)}.")
        elif p.phase is Phase.GODS:
            self._say(
                f"{self._who(0)} is the challenger: offer {p.players} gods"
                + (f" from {', '.join(p.offer)}" if p.offer else "")
                + "; the others pick in turn, the challenger keeps the last and names the "
                "start player."
            )
        elif all(g and g != UNDECIDED for g in p.gods):
            for seat in range(p.players):
                verb = "have" if self.player(seat).name == "You" else "has"
                self._say(f"{self._who(seat)} {verb} {p.gods[seat]}.")
        if self._time is not None:
            t = self._time
            self._say(f"Clocks: {t.move_ms // 1000} s a move plus {t.bank_ms // 60000} min bank.")

    def _after_change(self) -> None:
        p = self._position
        if p.phase is Phase.OVER:
            self._announce_end()
        self._save()
        if self._wake is not None:
            self._wake.set()
        self._listeners.notify()

    def _announce_end(self) -> None:
        p = self._position
        result = outcome(p)
        if result.winner is None:
            self._say("The game is over with no winner.", NoteKind.WARNING)
            return
        winner = result.winner
        humans = {s for s in range(p.players) if self.player(s).bot is None}
        how = ""
        last = self._actions[-1] if self._actions else None
        ended = self._events[-1][0] if self._events else ""
        if ended == "resign":
            how = " by resignation"
        elif ended == "timeout":
            how = " on time"
        elif isinstance(last, Turn) and last.is_win:
            how = f" with {last}"
        if p.players == 4:
            side = p.side_of(winner)
            mates = " and ".join(
                self.player(s).name for s in range(p.players) if p.side_of(s) == side
            )
            text = f"{mates} (team {side_letter(p, winner)}) win{how}."
        else:
            text = f"{self._who(winner)} wins{how}."
        if humans and len(humans) < p.players:
            if any(p.side_of(s) == p.side_of(winner) for s in humans):
                self._say(f"You win{how}!", NoteKind.WIN)
            else:
                self._say(f"You lose: {text}", NoteKind.LOSS)
        else:
            self._say(text, NoteKind.WIN)
