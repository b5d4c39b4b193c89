"""A network game on the event loop: the session, its transport, and a computer player.

:class:`NetworkGame` pumps frames between a :class:`~santorini_p2p.net.session.Session` and a
:class:`~santorini_p2p.net.transport.FrameLink`, runs a computer player for the local seat
when asked to (``asyncio.to_thread``), and offers what the console's game controller protocol
reads (``ui/state.py``): ``messages`` are :class:`~santorini_p2p.net.session.Note` values,
``seats()`` gives :class:`SeatInfo`. These values are defined here, in the lower layer, and
the console uses them as they are.

:func:`host_game`, :func:`join_game` and :func:`resume_game` set everything up from a
``SANTORINI_HOME`` and run one game to its end; the command line calls them. The console sets
its games up in ``ui/lan.py`` from :func:`connect`, :func:`reopen` and :func:`loopback_game`.
"""

from __future__ import annotations

import asyncio
import contextlib
import dataclasses
import logging
import os
import random
import tempfile
import threading
from collections.abc import Awaitable, Callable, Sequence
from dataclasses import dataclass, replace
from enum import Enum
from pathlib import Path
from typing import TYPE_CHECKING, Final

from santorini_p2p.ai import CLOCK_MARGIN_MS
from santorini_p2p.engine import Action, Position, new_game, parse_action
from santorini_p2p.errors import AddressError, IllegalTurnError, SantoriniError, StorageError
from santorini_p2p.net.clock import MonotonicMs, monotonic_ms
from santorini_p2p.net.frames import SESSION_VERSION
from santorini_p2p.net.gallery import DEFAULT_SPECTATORS
from santorini_p2p.net.listeners import Listeners
from santorini_p2p.net.rematch import (
    RematchVote,
    Verdict,
    header_check,
    next_start,
    rematch_save_path,
    rematch_settings,
)
from santorini_p2p.net.session import (
    GameSettings,
    Note,
    NoteKind,
    SeatClock,
    Session,
    SessionError,
    mark_saved,
    unfinished_games,
    unsaved_games,
)
from santorini_p2p.net.transport import (
    FrameLink,
    JoinTransport,
    TransportOptions,
    bind_host,
    check_listening,
    close_context,
    new_context,
    parse_address,
    resolve,
)
from santorini_p2p.net.trust import KnownPeers
from santorini_p2p.wire.identity import Identity, fingerprint
from santorini_p2p.wire.messages import Act, Header

if TYPE_CHECKING:
    from santorini_p2p.net.discovery import Advertiser

__all__ = [
    "ConnectionState",
    "GameOutcome",
    "Gate",
    "LoopbackGame",
    "NetworkGame",
    "PlayOptions",
    "SeatInfo",
    "SessionError",
    "advertise",
    "ai_bot",
    "connect",
    "find_unfinished",
    "host_game",
    "join_game",
    "lan_address",
    "loopback_game",
    "recover_unsaved",
    "reopen",
    "resume_game",
    "resumed_title",
    "save_replay",
    "shown_address",
]

LOG = logging.getLogger(__name__)

POLL_S: Final = 0.05
"""The longest the pump waits for a frame before it lets time pass in the session."""
BOT_WAIT_MS: Final = 50
"""How long a computer player waits for its peers to confirm its last record before thinking.

While a peer checks this peer's acknowledgement, the time to the end of that check is the
latency of the game; a search started at once competes with it for the CPU when both peers
share a machine (a tail of several milliseconds where they do, measured by
``benchmarks/net.py``). The peer's status frame ends the wait, a hop later; a lost one costs
at most this long."""
LINGER_MS: Final = 30_000
"""How long a complete peer keeps answering while a peer may still lack records (then it leaves)."""
GIVE_UP_MS: Final = 600_000
"""How long a command-line game waits with no peer heard before it leaves (journal kept)."""
FIRST_CONTACT_MS: Final = 30_000
"""How long a joining peer waits for the host's first answer."""
DRAIN_MS: Final = 300
"""How long a peer goes on answering after it knows every peer holds the complete game."""
SPECTATOR_DEFER_MS: Final = 50
"""The longest the spectators' frames wait for the players to hold every record (SESSION.md 11)."""
SPECTATOR_LINGER_MS: Final = 10_000
"""How long a host whose game is complete and settled goes on for spectators still catching up:
they are owed nothing, but each is a moment from holding the whole game (SESSION.md 11)."""
STOP_LINGER_MS: Final = 500
"""How long a stopped peer keeps sending, so that its stop frame reaches the others."""


class ConnectionState(Enum):
    """The link to the peer that plays a seat, as the side panel shows it."""

    CONNECTED = "connected"
    DISCONNECTED = "disconnected"


@dataclass(frozen=True, slots=True)
class SeatInfo:
    """Everything the side panel shows about one seat (0-based ``seat``, as in ``Position``).

    ``local`` is true for a seat played on this terminal, ``human`` for one typed by a person
    (a computer player has ``human`` false). ``fingerprint`` is the short identity fingerprint
    of a network seat ("" in local games); ``connection`` is None for seats on this terminal.
    ``clock`` is None in untimed games.
    """

    seat: int
    name: str
    local: bool
    human: bool
    fingerprint: str = ""
    connection: ConnectionState | None = None
    clock: SeatClock | None = None


@dataclass(frozen=True, slots=True)
class GameOutcome:
    """How a network game run ended: complete (every seat signed), or stopped and why."""

    complete: bool
    stopped: str | None
    journal: Path | None
    report: Path | None
    result: str
    rematches: tuple[GameOutcome, ...] = ()
    """The rematches played after it over the same connection, in order (SESSION.md 10)."""


Bot = Callable[[Position, random.Random, threading.Event], Action]
"""A computer player: the action for the seat to move (called in a worker thread). Once the
event is set it must return at once with the best action it has."""


def ai_bot(level: str, think: float | None = None) -> Bot:
    """Return the computer opponent at ``level``; ``think``: seconds a turn (default: its own)."""
    from santorini_p2p.ai import choose_action

    def choose(position: Position, rng: random.Random, stop: threading.Event) -> Action:
        return choose_action(position, level, rng=rng, think=think, stop=stop)

    return choose


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


class NetworkGame:
    """A session, its link and an optional computer player, run on the event loop."""

    def __init__(
        self,
        session: Session,
        link: FrameLink,
        *,
        bot: Bot | None = None,
        rng: random.Random | None = None,
        now: MonotonicMs = monotonic_ms,
        title: str = "network game",
        on_close: Callable[[], Awaitable[None]] | None = None,
        give_up_ms: int | None = None,
    ) -> None:
        self.session = session
        self._on_close = on_close
        self.link = link
        self._bot = bot
        self._rng = rng or random.Random()
        self._now = now
        self._title = title
        self._listeners = Listeners()
        self._bot_task: asyncio.Task[None] | None = None
        self._bot_stop: tuple[Position, threading.Event] | None = None
        self._bot_waiting: tuple[Position, int] | None = None
        self._deferred_at: int | None = None
        self._gave_up: str | None = None
        self.give_up_ms = give_up_ms
        #: Offer a rematch once the game is complete (the console): ``run`` then holds the vote
        #: (SESSION.md 10) and ends when it is over; :meth:`next_game` is the rematch agreed.
        self.offer_rematch = False
        self.vote: RematchVote | None = None
        session.listen(self._notify)
        # A record goes out the moment it is journaled: the acknowledgement a peer waits for
        # does not wait for this peer's notes and screen.
        session.on_record_out = self._flush_players

    # -- the console's game controller protocol, by structure ---------------------------------

    @property
    def title(self) -> str:
        """A short description for the title bar."""
        return self._title

    @property
    def position(self) -> Position:
        """The current position (a blank board before the start player is drawn)."""
        p = self.session.position
        if p is not None:
            return p
        v = self.session.validator
        players = v.header.players if v is not None and v.header is not None else 2
        return new_game(players)

    @property
    def actions(self) -> Sequence[Action]:
        """Every action that stands, in order (a turn taken back is not one)."""
        v = self.session.validator
        acts = v.standing_acts() if v is not None else []
        return [parse_action(r.message.action) for r in acts if isinstance(r.message, Act)]

    @property
    def messages(self) -> Sequence[Note]:
        """Every note so far, oldest first."""
        return self.session.notes

    @property
    def awaiting(self) -> int | None:
        """The local seat whose action a person should type now (None with a bot)."""
        return None if self._bot is not None else self.session.awaiting

    @property
    def can_undo(self) -> bool:
        """Never: a signed record cannot be taken back."""
        return False

    @property
    def stopped(self) -> str | None:
        """Why the game stopped (with the report file), or None."""
        s = self.session.stopped
        if s is None:
            return None
        return f"{s} (report: {self.session.report_path})" if self.session.report_path else s

    @property
    def replay(self) -> Path | None:
        """The finished game's replay file: its journal, under ``$SANTORINI_HOME/games/``.

        None until every seat has signed the result.
        """
        s = self.session
        return s.journal_path if s.is_complete else None

    def seats(self) -> Sequence[SeatInfo]:
        """One view per seat in seat order, clocks read now."""
        s = self.session
        keys = s.seat_keys()
        names = s.seat_names()
        clocks = s.clocks()
        out = []
        for i, (k, n) in enumerate(zip(keys, names, strict=False)):
            local = k == s.identity.public_key
            out.append(
                SeatInfo(
                    seat=i,
                    name=n,
                    local=local,
                    human=self._bot is None if local else True,
                    fingerprint=fingerprint(k),
                    connection=None
                    if local
                    else ConnectionState.CONNECTED
                    if s.is_connected(k)
                    else ConnectionState.DISCONNECTED,
                    clock=clocks[i] if i < len(clocks) else None,
                )
            )
        return out

    def submit(self, action: Action) -> None:
        """Play ``action`` for the local seat (signed, journaled and sent at once).

        Raises:
            IllegalTurnError: no local action is awaited or it is not legal.
        """
        self.session.submit(action)
        self._flush()

    def resign(self) -> None:
        """Resign the local seat.

        Raises:
            IllegalTurnError: no game in play.
        """
        self.session.resign()
        self._flush()

    def ask_takeback(self) -> None:
        """Ask the other players to take back this player's last turn (SPEC.md 8.2).

        Raises:
            IllegalTurnError: the game allows none, or there is no turn of this player's to
                take back now.
        """
        self.session.ask_takeback()
        self._flush()

    @property
    def takeback_asked(self) -> str | None:
        """The turn another player asks this one to take back (awaiting y or n), or None."""
        o = self.session.takeback_asked
        return None if o is None or self._bot is not None else o.turn

    def answer_takeback(self, accept: bool) -> None:
        """Accept or refuse the takeback this player is asked for.

        Raises:
            IllegalTurnError: no takeback request awaits an answer.
        """
        self.session.answer_takeback(accept)
        self._flush()

    def say(self, text: str) -> None:
        """Say ``text`` to the other players (a signed chat line in the log).

        Raises:
            SessionError: the game has no chat, or the line is refused (the message says why).
        """
        self.session.say(text)
        self._flush()

    def undo(self) -> None:
        """Network games cannot undo.

        Raises:
            IllegalTurnError: always.
        """
        v = self.session.validator
        if v is not None and v.header is not None and "takeback" in v.header.options:
            raise IllegalTurnError(
                "no undo in a network game: type takeback to ask the others to take back your "
                "last turn"
            )
        raise IllegalTurnError("no undo in a network game, and this one allows no takebacks")

    def listen(self, listener: Callable[[], None]) -> Callable[[], None]:
        """Call ``listener`` after every change; return a function that stops the calls."""
        return self._listeners.add(listener)

    # -- running --------------------------------------------------------------------------------

    async def run(self) -> None:
        """Pump frames, play the bot, let time pass, until the game is over or stopped.

        When it returns (or is cancelled) the session's journal is closed.
        """
        s = self.session
        done_at: int | None = None
        settled_at: int | None = None
        heard = self._now()
        ever = False
        try:
            while True:
                self._flush()
                now = self._now()
                limit = self.give_up_ms
                if limit is not None and not ever and not s.is_host:
                    limit = min(limit, FIRST_CONTACT_MS)
                if limit is not None and now - heard > limit:
                    self._gave_up = (
                        f"no peer heard for {limit // 1000} s; the journal (if any) is kept: "
                        "run the same command again to resume"
                        if ever or s.is_host
                        else f"no answer from {s.address or 'the host'} in {limit // 1000} s"
                    )
                    s.notes.append(Note(self._gave_up, NoteKind.ERROR))
                    break
                if s.stopped is not None or s.is_complete:
                    done_at = now if done_at is None else done_at
                    linger = STOP_LINGER_MS if s.stopped is not None else LINGER_MS
                    if s.is_settled and settled_at is None:
                        settled_at = now
                        try:
                            s.mark_settled()
                        except StorageError as e:
                            LOG.error("%s", e)
                    # Settled: go on answering a moment, so that this peer's last frames
                    # (and answers to a peer still resending) leave before the socket closes.
                    vote = self._vote_now()
                    if vote is not None:
                        vote.tick()
                        self._flush()
                    drained = settled_at is not None and now - settled_at >= DRAIN_MS
                    if drained:
                        assert settled_at is not None
                        waiting = s.spectators_behind and s.stopped is None
                        drained = not waiting or now - settled_at >= SPECTATOR_LINGER_MS
                    if (drained or now - done_at >= linger) and (vote is None or vote.is_done):
                        break
                self._play_bot()
                got = await self.link.receive(POLL_S)
                if got is not None:
                    heard = self._now()
                    ever = True
                for _ in range(256):
                    if got is None:
                        break
                    vote = self.vote
                    if vote is None or got[1][:2] != REMATCH_PREFIX or not vote.receive(*got):
                        s.receive(*got)
                    # Answer at once: the acknowledgement is on the critical path.
                    self._flush()
                    got = await self.link.receive(0)
                s.tick()
                if self._bot_stop is not None and self._bot_stop[0] is not s.position:
                    self._bot_stop[1].set()
                if self._bot_task is not None and self._bot_task.done():
                    task, self._bot_task = self._bot_task, None
                    task.result()
            self._flush()
        finally:
            if self._bot_stop is not None:
                self._bot_stop[1].set()
            if self._bot_task is not None:
                self._bot_task.cancel()
                with contextlib.suppress(asyncio.CancelledError, IllegalTurnError):
                    await self._bot_task
            # Let go of the journal (and its lock): the same game may be resumed at once,
            # from this process too (the console's Join after leaving a game).
            s.close()
            agreed = self.vote is not None and self.vote.verdict is Verdict.AGREED
            # An agreed rematch goes on over the same link (next_game), which closes it.
            if self._on_close is not None and not agreed:
                close, self._on_close = self._on_close, None
                await close()

    def _play_bot(self) -> None:
        if self._bot is None or self._bot_task is not None:
            return
        seat = self.session.awaiting
        p = self.session.position
        # The engine settles a seat with no legal action at once, so one is to move here.
        if seat is None or p is None or p.winner >= 0:
            return
        if not self.session.peers_hold_all:
            now = self._now()
            if self._bot_waiting is None or self._bot_waiting[0] is not p:
                self._bot_waiting = (p, now)
            if now - self._bot_waiting[1] < BOT_WAIT_MS:
                return
        self._bot_waiting = None
        self._bot_task = asyncio.create_task(self._bot_turn(p))

    async def _bot_turn(self, p: Position) -> None:
        """Let the computer choose off the event loop, stopped when its time runs short.

        It is also stopped when the position changes under it (a resignation, a timeout)
        and when the run ends.
        """
        assert self._bot is not None
        stop = threading.Event()
        self._bot_stop = (p, stop)
        timer: asyncio.TimerHandle | None = None
        clocks = self.session.clocks()
        if clocks and clocks[p.to_move].running:
            c = clocks[p.to_move]
            left_s = max(0, c.move_ms + c.bank_ms - CLOCK_MARGIN_MS) / 1000
            timer = asyncio.get_running_loop().call_later(left_s, stop.set)
        try:
            action = await asyncio.to_thread(self._bot, p, self._rng, stop)
        finally:
            stop.set()
            if timer is not None:
                timer.cancel()
        if self.session.position is p and self.session.awaiting is not None:
            try:
                self.session.submit(action)
            except IllegalTurnError as e:
                LOG.error("the computer player chose an action the log refused: %s", e)
            self._flush()

    def _flush_players(self) -> None:
        """Send the players' frames now; the spectators' go at the next ``_flush``.

        That is once this peer has done its own work on the record: sending to spectators
        never delays a player.
        """
        for peer, frame in self.session.outgoing(spectators=False):
            self.link.send(peer, frame)

    # -- the rematch (SESSION.md 10) -------------------------------------------------------------

    def _vote_now(self) -> RematchVote | None:
        """The rematch vote, opened once the game is complete when a rematch is offered."""
        s = self.session
        if self.vote is None and self.offer_rematch and s.is_complete and s.stopped is None:
            self.vote = open_vote(s)
            self.vote.listen(self._notify)
            self._notify()
        return self.vote

    @property
    def played_here(self) -> bool:
        """Whether a person plays this peer's seat (no computer player): a rematch is theirs."""
        return self._bot is None

    @property
    def rematch_line(self) -> str | None:
        """The vote in words once there is something to say (an ask, an answer, the end)."""
        v = self.vote
        if v is None or (v.verdict is Verdict.OPEN and not v.answers):
            return None
        return v.describe()

    @property
    def can_answer_rematch(self) -> bool:
        """Whether this seat may still ask for (or accept, or decline) a rematch."""
        v = self.vote
        return v is not None and v.verdict is Verdict.OPEN and v.slot not in v.answers

    @property
    def rematch_agreed(self) -> bool:
        """Whether every seat asked: :meth:`next_game` is the new game."""
        return self.vote is not None and self.vote.verdict is Verdict.AGREED

    def answer_rematch(self, yes: bool) -> None:
        """Ask for a rematch or accept one (True), or decline (False)."""
        if self.can_answer_rematch:
            assert self.vote is not None
            self.vote.answer(yes)
            self._flush()
            self._notify()

    def next_game(self) -> NetworkGame:
        """The rematch the vote agreed: a new game over the same link (SESSION.md 10)."""
        vote = self.vote
        assert vote is not None
        assert vote.verdict is Verdict.AGREED
        session = rematch_session(self.session, vote.header)
        game = NetworkGame(
            session,
            _VoteLink(self.link, vote),
            bot=self._bot,
            rng=self._rng,
            now=self._now,
            title=self._title,
            on_close=self._on_close,
            give_up_ms=self.give_up_ms,
        )
        self._on_close = None
        game.offer_rematch = self.offer_rematch
        return game

    def _flush(self) -> None:
        s = self.session
        # Spectators' frames wait while a player still lacks a record (its acknowledgement is
        # on the way: the host's CPU is the players' until it comes), at most SPECTATOR_DEFER_MS.
        now = self._now()
        spectators = s.peers_hold_all
        if not spectators:
            self._deferred_at = now if self._deferred_at is None else self._deferred_at
            spectators = now - self._deferred_at >= SPECTATOR_DEFER_MS
        if spectators:
            self._deferred_at = None
        for peer, frame in s.outgoing(spectators=spectators):
            if not self.link.send(peer, frame):
                # A spectator whose queue is full is dropped (it may come back); a player's
                # frame is sent again by the session's timer.
                self.session.undelivered(peer)
        if self.vote is not None:
            for peer, frame in self.vote.outgoing():
                self.link.send(peer, frame)

    def _notify(self) -> None:
        self._listeners.notify()

    def outcome(self) -> GameOutcome:
        """Return how the run ended."""
        s = self.session
        return GameOutcome(
            complete=s.is_complete,
            stopped=s.stopped or self._gave_up,
            journal=s.journal_path if s.journal is not None else None,
            report=s.report_path,
            result=s.result_text(),
        )


# -- setting games up -----------------------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class PlayOptions:
    """What the command line passes for one game: home, identity, computer player, output."""

    home: Path
    identity: Identity
    bot: str | None = None
    seed: int | None = None
    think: float | None = None
    save: Path | None = None
    on_note: Callable[[str], None] | None = None
    on_start: Callable[[NetworkGame], None] | None = None
    play: Callable[[NetworkGame], Awaitable[object]] | None = None
    """Runs the game in place of ``game.run()``: the console's game screen, which starts it."""
    transport: TransportOptions | None = None
    advertise: bool = True
    give_up_ms: int | None = GIVE_UP_MS
    takebacks: str = "refuse"
    """How the computer player answers a takeback request: ``accept`` or ``refuse``."""
    spectators: int = DEFAULT_SPECTATORS
    """How many spectators a host takes (0: none)."""
    spectator_chat: bool = False
    """Whether a host lets its spectators chat (SESSION.md 11; ``host --spectator-chat``)."""
    rematches: int = 0
    """How many rematches this peer asks for or accepts after ``host``/``join``: the vote
    after each complete game is answered yes while fewer were played, else no."""


def save_replay(journal: Path, dest: Path) -> None:
    """Copy a finished game's journal to ``dest`` whole or not at all (fsynced, then renamed).

    Raises:
        SessionError: it cannot be written (naming the file and the cause).
    """
    tmp = dest.with_name(f".{dest.name}.{os.getpid()}.tmp")
    try:
        data = journal.read_bytes()
        with open(tmp, "wb") as f:
            f.write(data)
            f.flush()
            os.fsync(f.fileno())
        os.replace(tmp, dest)
    except OSError as e:
        with contextlib.suppress(OSError):
            tmp.unlink()
        raise SessionError(
            f"cannot write the replay to {dest}: {e.strerror or e}; the game is kept in "
            f"{journal}, and running the same command again with --save writes it"
        ) from None


def save_when_complete(game: NetworkGame, dest: Path) -> None:
    """Copy ``game``'s replay to ``dest`` the moment it is complete (a rematch's ``FILE-N``).

    A copy that cannot be written is said in the game's messages; the game stays in ``games/``.
    """

    def save() -> None:
        s = game.session
        if s.saved or not s.is_complete:
            return
        try:
            save_replay(s.journal_path, dest)
            s.mark_saved()
        except SantoriniError as e:
            s.saved = True  # said once
            s.notes.append(Note(str(e), NoteKind.ERROR))

    game.session.set_save(str(dest.resolve()))
    game.listen(save)


def recover_unsaved(
    home: Path, *, role: str | None, address: str | None = None, save: Path | None = None
) -> list[str]:
    """Write the missing ``--save`` copy of each finished game of this role (and address).

    A peer killed after its game was over (the journal holds it all) may not have copied it;
    the same command run again writes it, to ``save`` or else where the note says, and the
    lines returned say so.

    Raises:
        SessionError: a copy cannot be written.
    """
    said = []
    for journal, note in unsaved_games(home):
        if role is not None and note.get("role") != role:
            continue
        if address is not None and note.get("address") != address:
            continue
        dest = save or Path(str(note["save"]))
        save_replay(journal, dest)
        mark_saved(journal)
        said.append(
            f"the game {journal.stem} was over, but its replay had not been saved: "
            f"written to {dest} from the journal"
        )
        if save is not None:
            break  # one file: the newest game
    return said


async def _run(game: NetworkGame, opts: PlayOptions) -> GameOutcome:
    shown = 0
    save_error: list[str] = []
    if opts.save is not None:
        game.session.set_save(str(opts.save.resolve()))
    if game.session.gallery is not None:
        game.session.gallery.limit = opts.spectators
        game.session.gallery.chat = opts.spectator_chat

    def target() -> Path | None:
        """Where the replay goes: ``--save``, or where the game was first told to save it."""
        to = game.session.save_to
        return opts.save or (Path(to) if to else None)

    def save_now() -> None:
        """Copy the replay the moment the game is complete, before the end is shown."""
        s = game.session
        dest = target()
        if dest is None or s.saved or save_error or not s.is_complete:
            return
        try:
            save_replay(s.journal_path, dest)
            s.mark_saved()
        except SantoriniError as e:  # SessionError, StorageError: said, and said again below
            save_error.append(str(e))
            s.notes.append(Note(str(e), NoteKind.ERROR))

    def show() -> None:
        nonlocal shown
        save_now()
        if opts.on_note is None:
            return
        notes = game.session.notes
        for n in notes[shown:]:
            opts.on_note(n.text)
        shown = len(notes)

    game.listen(show)
    show()
    if opts.on_start is not None:
        opts.on_start(game)
    if opts.play is not None:
        await opts.play(game)
    else:
        await game.run()
    show()
    out = game.outcome()
    if out.complete:
        # Lingered as long as it does: resuming the finished game again would do no more.
        try:
            game.session.mark_settled()
        except StorageError as e:
            LOG.error("%s", e)
    game.session.close()
    dest = target()
    if out.complete and dest is not None and not game.session.saved:
        save_replay(game.session.journal_path, dest)
        game.session.mark_saved()
    return out


REMATCH_PREFIX: Final = b"\x95\x0b"
"""The first two bytes of every rematch frame: a 5-element array, tag 11 (``net.frames``)."""


class _VoteLink:
    """A link whose rematch frames go to a finished game's vote, the rest to the new game.

    A joiner that missed the host's last word on the vote sends its answer again; the host,
    already in the rematch, answers it from the vote (SESSION.md 10).
    """

    def __init__(self, link: FrameLink, vote: RematchVote) -> None:
        self._link = link
        self._vote = vote

    def send(self, peer: bytes, frame: bytes) -> bool:
        """Send as the link does."""
        return self._link.send(peer, frame)

    async def receive(self, limit: float) -> tuple[bytes, bytes] | None:
        """The next frame that is not a rematch frame, or None after ``limit`` seconds."""
        loop = asyncio.get_running_loop()
        deadline = loop.time() + limit
        while True:
            got = await self._link.receive(max(0.0, deadline - loop.time()))
            # A rematch frame is a 5-element array with tag 11 (net.frames).
            if got is None or got[1][:2] != REMATCH_PREFIX or not self._vote.receive(*got):
                return got
            for peer, data in self._vote.outgoing():
                self._link.send(peer, data)

    def close(self) -> None:
        """Close the link."""
        self._link.close()


async def _vote(vote: RematchVote, link: FrameLink, opts: PlayOptions, yes: bool) -> Verdict:
    """Run the rematch vote over ``link`` to its end; this peer answers ``yes``."""
    said: set[str] = set()

    def say(text: str) -> None:
        if text not in said and opts.on_note is not None:
            said.add(text)
            opts.on_note(text)

    vote.answer(yes)
    say("you ask for a rematch" if yes else "you decline a rematch")
    while not vote.is_done:
        for peer, data in vote.outgoing():
            link.send(peer, data)
        got = await link.receive(POLL_S)
        while got is not None:
            vote.receive(*got)
            got = await link.receive(0)
        vote.tick()
        for name in vote.asking():
            say(f"{name} asks for a rematch")
    for peer, data in vote.outgoing():
        link.send(peer, data)
    say(vote.describe())
    return vote.verdict


def open_vote(s: Session) -> RematchVote:
    """The rematch vote after ``s``'s complete game, over its proven connections."""
    v = s.validator
    assert v is not None
    assert v.header is not None
    return RematchVote(s.identity, v.header, s.proven_links(), is_host=s.is_host, now=s.now)


def rematch_session(s: Session, h: Header) -> Session:
    """The session of the rematch of ``s``'s game ``h``: the host's offer, or a joiner's."""
    start = next_start(h, s.records)
    known = KnownPeers(s.home)
    if s.is_host:
        # The finished game's spectators hold it complete and have left (SESSION.md 11); the
        # rematch takes as many new ones.
        session = Session.host(
            s.identity,
            rematch_settings(h, start),
            home=s.home,
            now=s.now,
            known=known,
            address=s.address,
            seats=tuple((seat.public_key, seat.name) for seat in h.seats),
        )
        if s.gallery is not None and session.gallery is not None:
            session.gallery.limit = s.gallery.limit
            session.gallery.chat = s.gallery.chat
        return session
    session = Session.join(s.identity, home=s.home, now=s.now, known=known, address=s.address)
    session.check_header = header_check(h, start)
    return session


async def _rematches(
    game: NetworkGame, link: FrameLink, opts: PlayOptions, first: GameOutcome, title: str
) -> GameOutcome:
    """After a complete game, vote on a rematch and play each one agreed, over ``link``.

    Each rematch is a new game (new id, new header, fresh commit-reveal) between the same
    identities in the same slots, with the same settings and the next start slot
    (``net.rematch``). Its replay lands in ``games/`` as every game's does, and with
    ``--save FILE`` in ``FILE-2``, ``FILE-3``, ... (:func:`rematch_save_path`).
    """
    played: list[GameOutcome] = []
    out = first
    while out.complete and not out.stopped:
        s = game.session
        v = s.validator
        if v is None or v.header is None:
            break
        vote = open_vote(s)
        if await _vote(vote, link, opts, len(played) < opts.rematches) is not Verdict.AGREED:
            break
        session = rematch_session(s, v.header)
        number = len(played) + 2
        game = _network_game(session, _VoteLink(link, vote), opts, f"{title}, game {number}")
        save = rematch_save_path(opts.save, number) if opts.save is not None else None
        out = await _run(game, replace(opts, save=save))
        played.append(out)
    return replace(first, rematches=tuple(played))


def _network_game(session: Session, link: FrameLink, opts: PlayOptions, title: str) -> NetworkGame:
    """The game of ``session`` over ``link`` as the command line sets it up."""
    bot = ai_bot(opts.bot, opts.think) if opts.bot else None
    if bot is not None:
        session.takeback_answer = opts.takebacks == "accept"
    rng = random.Random(opts.seed)
    return NetworkGame(session, link, bot=bot, rng=rng, give_up_ms=opts.give_up_ms, title=title)


async def host_game(
    settings: GameSettings,
    opts: PlayOptions,
    *,
    bind: str = "0.0.0.0",
    port: int = 0,
    on_listening: Callable[[int], None] | None = None,
) -> GameOutcome:
    """Offer a new game on ``bind:port``, wait for the players, and play it to the end."""
    ctx = new_context()
    try:
        link = await bind_host(ctx, bind, port, opts.transport)
    except AddressError:
        await close_context(ctx)
        raise
    advertiser = None
    try:
        if on_listening is not None:
            on_listening(link.port)
        address = f"{bind}:{link.port}"
        session = Session.host(
            opts.identity,
            settings,
            home=opts.home,
            now=monotonic_ms,
            known=KnownPeers(opts.home),
            address=address,
        )
        if opts.advertise:
            advertiser = await advertise(
                opts.identity,
                settings,
                bind,
                link.port,
                opts.spectators,
                spectator_chat=opts.spectator_chat,
            )
        title = f"LAN game at {shown_address(bind)}:{link.port} ({opts.identity.fingerprint})"
        game = _network_game(session, link, opts, title)
        withdrawn: list[asyncio.Task[None]] = []
        if advertiser is not None:
            adv = advertiser

            def withdraw() -> None:
                # The offer is withdrawn once the seats are taken (the header exists); a game
                # that takes spectators is announced as in play instead, to be watched.
                if not withdrawn and game.session.validator is not None:
                    if opts.spectators > 0:
                        playing = dataclasses.replace(adv.offer, playing=True)
                        change = adv.update(playing)
                    else:
                        change = adv.stop()
                    withdrawn.append(asyncio.get_running_loop().create_task(change))

            game.listen(withdraw)
        out = await _run(game, opts)
        if opts.play is not None:
            return out
        return await _rematches(game, link, opts, out, title)
    finally:
        if advertiser is not None:
            # stop() is idempotent and bounded; it also waits out a withdrawal under way.
            for task in withdrawn:
                with contextlib.suppress(Exception):
                    await task
            await advertiser.stop()
        link.close()
        await close_context(ctx)


async def advertise(
    identity: Identity,
    settings: GameSettings,
    bind: str,
    port: int,
    spectators: int = DEFAULT_SPECTATORS,
    *,
    spectator_chat: bool = False,
) -> Advertiser | None:
    """Offer a hosted game on the LAN (mDNS); the advertiser to stop, or None where it failed."""
    from santorini_p2p.engine.setup import pool_name
    from santorini_p2p.net.discovery import Advertiser, Offer

    addr = shown_address(bind)
    offer = Offer(
        name=f"{identity.name} {identity.fingerprint[:9]}",
        address=addr,
        port=port,
        host_name=identity.name,
        fingerprint=identity.fingerprint,
        players=settings.players,
        gods=settings.gods,
        time=str(settings.time) if settings.time else "none",
        version=SESSION_VERSION,
        pool=pool_name(settings.god_pool, settings.players) if settings.god_pool else "",
        spectators=spectators,
        spectator_chat=spectator_chat and spectators > 0,
    )
    adv = Advertiser(offer)
    return adv if await adv.start() else None


def shown_address(bind: str) -> str:
    """Return the address to give other players for a host bound to ``bind``.

    An IPv6 address is put in brackets, so that ``ADDRESS:PORT`` reads as one.
    """
    shown = bind if bind not in ("0.0.0.0", "", "::", "[::]") else lan_address()
    return f"[{shown}]" if ":" in shown and not shown.startswith("[") else shown


def lan_address() -> str:
    """Return this machine's address on the LAN, to give other players (127.0.0.1 if none)."""
    from santorini_p2p.net import address

    return address.lan_address()


async def join_game(address: str, opts: PlayOptions) -> GameOutcome:
    """Join the game offered at ``address`` (``host:port``) and play it to the end.

    Raises:
        ValueError: ``address`` is not ``host:port``.
        AddressError: its host name does not resolve, or nothing listens there.
    """
    session, link, close = await connect(address, opts.identity, opts.home, opts.transport)
    try:
        title = f"LAN game at {address}"
        game = _network_game(session, link, opts, title)
        out = await _run(game, opts)
        if opts.play is not None:
            return out
        return await _rematches(game, link, opts, out, title)
    finally:
        await close()


async def connect(
    address: str, identity: Identity, home: Path, transport: TransportOptions | None = None
) -> tuple[Session, FrameLink, Callable[[], Awaitable[None]]]:
    """Check ``address`` and open a new joiner's session and link; return them as ``reopen``.

    Raises:
        ValueError: ``address`` is not ``host:port``.
        AddressError: its host name does not resolve, or nothing listens there.
    """
    await resolve(address)
    await check_listening(address)
    session = Session.join(
        identity, home=home, now=monotonic_ms, known=KnownPeers(home), address=address
    )
    ctx = new_context()
    link = JoinTransport(ctx, address, transport)

    async def close() -> None:
        link.close()
        await close_context(ctx)

    return session, link, close


async def reopen(
    journal: Path,
    note: dict[str, object],
    identity: Identity,
    home: Path,
    transport: TransportOptions | None = None,
) -> tuple[Session, FrameLink, Callable[[], Awaitable[None]]]:
    """Re-verify an unfinished game's journal and reopen its link; return the three parts.

    The parts: the session, the link (bound again on the host's address, or connected again
    to the host's) and what closes the link.

    The journal is opened (and locked) first, so that a game already being played by another
    process on this machine is reported as such, not as its port being in use.

    Raises:
        ValueError: the note's address is not ``host:port``.
        SessionError: the journal or its note cannot be used.
        ReplayError: the journal does not verify.
        JournalInUseError: another process is playing this game.
        AddressError: the host's port is in use, or the host's name does not resolve.
    """
    address = str(note.get("address", ""))
    host, port = parse_address(address)
    is_host = note.get("role") == "host"
    if not is_host:
        await resolve(address)
    session = Session.resume(identity, journal, home=home, now=monotonic_ms, known=KnownPeers(home))
    ctx = new_context()
    link: FrameLink
    try:
        if is_host:
            link = await bind_host(ctx, host, port, transport)
        else:
            link = JoinTransport(ctx, address, transport)
    except BaseException:
        session.close()
        await close_context(ctx)
        raise

    async def close() -> None:
        link.close()
        await close_context(ctx)

    return session, link, close


async def resume_game(journal: Path, note: dict[str, object], opts: PlayOptions) -> GameOutcome:
    """Resume an unfinished game from its journal (:func:`reopen`), then play on.

    Raises:
        as :func:`reopen`.
    """
    session, link, close = await reopen(journal, note, opts.identity, opts.home, opts.transport)
    try:
        game = _network_game(session, link, opts, resumed_title(note))
        return await _run(game, opts)
    finally:
        await close()


async def loopback_game(
    levels: Sequence[str],
    settings: GameSettings,
    *,
    think: float | None = None,
    seed: int | None = None,
    pace_ms: int = 0,
) -> LoopbackGame:
    """Computer players of ``levels`` (one a seat) playing over 127.0.0.1 in this process.

    The whole network stack is used: the host and each joiner have their own key, journal and
    socket. Returns the host's game, for a screen to show; the joiners run beside it from
    the start. Keys and journals live in a temporary directory, removed (with the joiners
    stopped) when the host's game ends.

    Raises:
        AddressError: no port on 127.0.0.1 could be bound.
    """
    rng = random.Random(seed)
    gate = Gate()
    # Named before the draw decides the seats: a number in a name would not be its seat's.
    names = [f"{level.capitalize()} {CALL_SIGNS[i]}" for i, level in enumerate(levels)]
    temp = tempfile.TemporaryDirectory(prefix="santorini-watch-")
    root = Path(temp.name)
    ctx = new_context()
    try:
        link = await bind_host(ctx, "127.0.0.1", 0)
    except BaseException:
        await close_context(ctx)
        temp.cleanup()
        raise
    address = f"127.0.0.1:{link.port}"

    def seat(i: int) -> tuple[Identity, Path, KnownPeers, Bot, random.Random]:
        home = root / f"seat{i + 1}"
        bot = gated(paced(ai_bot(levels[i], think), pace_ms), gate)
        return Identity.generate(names[i]), home, KnownPeers(home), bot, random.Random(rng.random())

    me, home, known, host_bot, host_rng = seat(0)
    session = Session.host(me, settings, home=home, now=monotonic_ms, known=known, address=address)
    session.onlooker = True
    joiners: list[NetworkGame] = []
    for i in range(1, len(levels)):
        me, home, known, bot, bot_rng = seat(i)
        joined = Session.join(me, home=home, now=monotonic_ms, known=known, address=address)
        joiners.append(NetworkGame(joined, JoinTransport(ctx, address), bot=bot, rng=bot_rng))
    tasks = [asyncio.create_task(g.run()) for g in joiners]

    async def close() -> None:
        for task in tasks:
            task.cancel()
        for task in tasks:
            with contextlib.suppress(asyncio.CancelledError):
                await task
        for g in joiners:
            g.link.close()
        link.close()
        await close_context(ctx)
        temp.cleanup()

    title = f"computer players over {address}"
    return LoopbackGame(
        session, link, gate=gate, bot=host_bot, rng=host_rng, title=title, on_close=close
    )


class LoopbackGame(NetworkGame):
    """The host's side of a game of computer players over 127.0.0.1, for a person to watch.

    Every seat is a computer player (none is ``human``), and all of them, the joiners' too,
    hold their actions at one :class:`Gate`: ``pause`` and ``step`` are the console's keys p
    and n. The clocks are the game's signed clocks and cannot stop: a player held until its
    time is nearly out plays then.
    """

    def __init__(
        self,
        session: Session,
        link: FrameLink,
        *,
        gate: Gate,
        bot: Bot,
        rng: random.Random,
        title: str,
        on_close: Callable[[], Awaitable[None]],
    ) -> None:
        super().__init__(session, link, bot=bot, rng=rng, title=title, on_close=on_close)
        self._gate = gate
        self._loop: asyncio.AbstractEventLoop | None = None
        self._told = False
        gate.on_hold = self._on_hold

    @property
    def paused(self) -> bool:
        """Whether the computer players hold their actions."""
        return self._gate.paused

    def pause(self, paused: bool) -> None:
        """Hold the computer players after the action under way, or let them play on."""
        self._loop = asyncio.get_running_loop()
        self._gate.pause(paused)
        self._told = False
        if not paused:
            self.session.notes.append(Note("Playing on."))
        self._notify()

    def step(self) -> None:
        """While paused: let the computer players make one more action."""
        self._gate.step()

    @property
    def replay(self) -> Path | None:
        """None: the players' files live in a temporary directory, gone with the game."""
        return None

    def seats(self) -> Sequence[SeatInfo]:
        """One view per seat; every seat is a computer player."""
        return [replace(v, human=False) for v in super().seats()]

    def _on_hold(self) -> None:
        """A player started to hold its action (in its thread): say so once a pause."""
        if self._loop is not None:
            self._loop.call_soon_threadsafe(self._held)

    def _held(self) -> None:
        if self._gate.paused and not self._told:
            self._told = True
            timed = " (the clocks run on)" if self.session.clocks() else ""
            self.session.notes.append(Note(f"Paused{timed}: p plays on, n one move."))
            self._notify()


CALL_SIGNS: Final = ("Alpha", "Bravo", "Charlie", "Delta")
"""What tells apart the computer players watched over loopback (seat numbers come later)."""


def resumed_title(note: dict[str, object]) -> str:
    """The title of a resumed game: the address as it was given out when the game was offered."""
    address = str(note.get("address", ""))
    if note.get("role") == "host":
        host, port = parse_address(address)
        address = f"{shown_address(host)}:{port}"
    return f"LAN game at {address} (resumed)"


def find_unfinished(
    home: Path, *, role: str, address: str | None = None, notes: list[str] | None = None
) -> tuple[Path, dict[str, object]] | None:
    """Return the newest unfinished game under ``home`` with this role (and address).

    ``notes`` receives a line for each unreadable journal set aside (``unfinished_games``).
    """
    for journal, note in unfinished_games(home, notes=notes):
        if note.get("role") != role:
            continue
        if address is not None and note.get("address") != address:
            continue
        return journal, note
    return None
