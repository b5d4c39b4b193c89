"""A network game on the event loop: the session, its transport, and a computer player.

:class:`NetworkGame` pumps frames between a :class:`~santorini_p2p.net.session.Session` and a
:class:`~santorini_p2p.net.transport.FrameLink`, runs a computer player for the local seat
when asked to (``asyncio.to_thread``), and offers what the console's game controller protocol
reads (``ui/state.py``): ``messages`` are :class:`~santorini_p2p.net.views.Note` values,
``seats()`` gives :class:`~santorini_p2p.net.views.SeatInfo`.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import random
import threading
from collections.abc import Awaitable, Callable, Sequence
from pathlib import Path
from typing import Final

from santorini_p2p.ai import CLOCK_MARGIN_MS
from santorini_p2p.ai.choices import answer_for, go_on
from santorini_p2p.engine import Action, Position, new_game, parse_action
from santorini_p2p.errors import IllegalTurnError, StorageError
from santorini_p2p.net.bots import Answerer, Bot, Gate, ai_bot, gated, paced
from santorini_p2p.net.clock import MonotonicMs, monotonic_ms
from santorini_p2p.net.listeners import Listeners
from santorini_p2p.net.rematch import RematchVote, Verdict, open_vote, rematch_session
from santorini_p2p.net.session import Session
from santorini_p2p.net.transport import (
    FrameLink,
)
from santorini_p2p.net.views import ConnectionState, GameOutcome, Note, NoteKind, SeatInfo
from santorini_p2p.wire.identity import fingerprint
from santorini_p2p.wire.messages import Act

__all__ = [
    "BOT_WAIT_MS",
    "Bot",
    "Gate",
    "NetworkGame",
    "VoteLink",
    "ai_bot",
    "gated",
    "paced",
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


END_TOLD_MS: Final = 2000
"""How long a host whose game is complete and settled waits at most for its joiners to read
its last status and leave (SESSION.md 9): a frame a joiner has not read yet is lost when the
host's connection closes under it."""


STOP_TOLD_MS: Final = 2000
"""How long a stopped host waits at most for a joiner or spectator it told to read the stop and
leave (SESSION.md 6, 11): a frame a joiner or spectator has not read yet is lost when the host's
connection closes under it. One that has left costs nothing."""


REMATCH_PREFIX: Final = b"\x95\x0b"
"""The first two bytes of every rematch frame: a 5-element array, tag 11 (``net.frames``)."""


class VoteLink:
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
                if not self._link.send(peer, data):
                    self._vote.undelivered(peer)

    def close(self) -> None:
        """Close the link."""
        self._link.close()


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
        answerer: Answerer | None = None,
    ) -> None:
        self.session = session
        # A person is asked before an objection to a turn that breaks its hidden god; a
        # computer objects at once (SECRET.md 7.3).
        session.ask_objections = bot is None
        self._answerer = answerer
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
        hidden = s.hidden_seats()
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
                    hidden=i in hidden,
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

    @property
    def choice_asked(self) -> tuple[str, list[str]] | None:
        """The mover's turn so far and the answers the local player may give, when it owes one.

        A seat with Gaea answers in another seat's turn (SPEC.md 8.4).
        """
        return self.session.choice_asked

    def answer_choice(self, answer: str) -> None:
        """Give the local player's answer (``+sq`` or ``-``) to the open ask."""
        self.session.answer_choice(answer)
        self._flush()

    @property
    def objection_asked(self) -> str | None:
        """The question when another player's turn breaks the local player's hidden god."""
        return self.session.objection_asked

    def answer_objection(self, objects: bool) -> None:
        """Object and reveal the god (True), or accept the turn and keep it hidden (False)."""
        self.session.answer_objection(objects)
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
        heard = started = self._now()
        ever = False
        try:
            while True:
                self._flush()
                now = self._now()
                limit = self.give_up_ms
                if limit is not None and not ever and not s.is_host:
                    limit = min(limit, FIRST_CONTACT_MS)
                offerless = (
                    limit is not None
                    and ever  # heard: a peer that never answered at all is not "offerless"
                    and not s.is_host
                    and s.journal is None
                    and s.welcome is None
                    and s.stopped is None
                    and now - started > min(limit, FIRST_CONTACT_MS)
                )
                if offerless:
                    # Heard all along, but never an offer it could use (a hostile peer, or a
                    # program it cannot read): say so rather than wait for ever.
                    wait = min(limit or 0, FIRST_CONTACT_MS) // 1000
                    self._gave_up = (
                        f"{s.address or 'the host'} answered for {wait} s but sent no offer "
                        "this program could accept"
                    )
                    if s.dropped:
                        self._gave_up += (
                            f"; {s.dropped} frame{'s' if s.dropped != 1 else ''} heard were "
                            f"dropped, the last {s.last_dropped}"
                        )
                    s.notes.append(Note(self._gave_up, NoteKind.ERROR))
                    break
                if limit is not None and now - heard > limit:
                    self._gave_up = (
                        f"no peer heard for {limit // 1000} s; the journal (if any) is kept: "
                        "run the same command again to resume"
                        if ever or s.is_host
                        else f"no answer from {s.address or 'the host'} in {limit // 1000} s"
                    )
                    if s.dropped:
                        # What it did hear and could not use: a hostile or newer peer says why.
                        self._gave_up += (
                            f"; {s.dropped} frame{'s' if s.dropped != 1 else ''} heard were "
                            f"dropped, the last {s.last_dropped}"
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
                    # Stopped: a joiner or spectator told may not have read the stop yet (the
                    # host tells it again until it has left), at most STOP_TOLD_MS.
                    held = s.stopped is not None and s.told_stop and now - done_at < STOP_TOLD_MS
                    # Complete, with no vote: a joiner may not have read the status that
                    # acknowledges the last record yet (told again until it has left).
                    if (
                        not held
                        and s.stopped is None
                        and vote is None
                        and settled_at is not None
                        and now - settled_at < END_TOLD_MS
                        and s.players_told_end
                    ):
                        held = True
                        s.tell_end_again()
                    if (
                        (drained or now - done_at >= linger)
                        and not held
                        and (vote is None or vote.is_done)
                    ):
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
        if self.session.choice_asked is not None:
            self._bot_task = asyncio.create_task(self._bot_answer())
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

    async def _bot_answer(self) -> None:
        """The computer's answer where it chooses in another seat's turn (SPEC.md 8.4)."""
        v = self.session.validator
        assert v is not None
        assert v.position is not None
        assert v.open_ask is not None
        p, answered, asked = v.position, v.answered, v.open_ask[1]
        answerer = self._answerer
        if answerer is None:
            answer = await asyncio.to_thread(answer_for, p, answered, asked)
        else:
            answer = await asyncio.to_thread(answerer, p, answered, asked, self._rng)
        if self.session.choice_asked is not None and v.open_ask == (v.open_ask[0], asked):
            try:
                self.session.answer_choice(answer)
            except IllegalTurnError as e:
                LOG.error("the computer player chose an answer the log refused: %s", e)
        self._flush()

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
        v = self.session.validator
        answered = v.answered if v is not None else ()
        try:
            if answered:
                # Another seat chose in this turn otherwise than planned: go on from there.
                action: Action = await asyncio.to_thread(go_on, p, answered)
            else:
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
            if not self.link.send(peer, frame):
                self.session.undelivered(peer)

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
            VoteLink(self.link, vote),
            bot=self._bot,
            rng=self._rng,
            now=self._now,
            title=self._title,
            on_close=self._on_close,
            give_up_ms=self.give_up_ms,
            answerer=self._answerer,
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
                if not self.link.send(peer, frame):
                    # A joiner or spectator gone: the host need not wait for it to learn the
                    # verdict (``RematchVote.is_done``).
                    self.vote.undelivered(peer)

    def _notify(self) -> None:
        self._listeners.notify()

    @property
    def gave_up(self) -> str | None:
        """Why this peer stopped waiting for the others (no peer heard, no offer), or None."""
        return self._gave_up

    def outcome(self) -> GameOutcome:
        """Return how the run ended."""
        s = self.session
        return GameOutcome(
            complete=s.is_complete,
            stopped=s.stopped or self._gave_up,
            journal=s.journal_path if s.journal is not None else None,
            report=s.report_path,
            result=s.result_text(),
            series=s.series,
        )


# -- setting games up -----------------------------------------------------------------------------
