"""Running network games: set up from a ``SANTORINI_HOME``, played to the end, rematched.

The pump itself is :class:`~santorini_p2p.net.networkgame.NetworkGame`; the values a screen
reads are in ``net.views``; ``--save`` copies in ``net.saving``; addresses in
``net.transport``. Their names are importable from here too, as before.

:func:`host_game`, :func:`join_game` and :func:`resume_game` set everything up from a
``SANTORINI_HOME`` and run one game to its end; the command line calls them. The console sets
its games up in ``ui/lan.py`` from :func:`connect`, :func:`reopen` and :func:`loopback_game`.
"""

from __future__ import annotations

import asyncio
import contextlib
import dataclasses
import logging
import random
import tempfile
from collections.abc import Awaitable, Callable, Sequence
from dataclasses import dataclass, replace
from pathlib import Path
from typing import TYPE_CHECKING, Final

from santorini_p2p.errors import AddressError, SantoriniError, StorageError
from santorini_p2p.net.bots import ai_answerer
from santorini_p2p.net.clock import monotonic_ms
from santorini_p2p.net.frames import SESSION_VERSION
from santorini_p2p.net.gallery import DEFAULT_SPECTATORS
from santorini_p2p.net.networkgame import (
    BOT_WAIT_MS,
    DRAIN_MS,
    FIRST_CONTACT_MS,
    GIVE_UP_MS,
    LINGER_MS,
    POLL_S,
    SPECTATOR_DEFER_MS,
    SPECTATOR_LINGER_MS,
    STOP_LINGER_MS,
    Bot,
    Gate,
    NetworkGame,
    VoteLink,
    ai_bot,
    gated,
    paced,
)
from santorini_p2p.net.rematch import (
    RematchVote,
    Verdict,
    match_points,
    open_vote,
    rematch_save_path,
    rematch_session,
    score_line,
)
from santorini_p2p.net.saving import recover_unsaved, save_replay, save_when_complete
from santorini_p2p.net.session import (
    GameSettings,
    Note,
    NoteKind,
    Session,
    SessionError,
    unfinished_games,
)
from santorini_p2p.net.transport import (
    FrameLink,
    JoinTransport,
    TransportOptions,
    bind_host,
    check_listening,
    close_context,
    lan_address,
    new_context,
    parse_address,
    resolve,
    shown_address,
)
from santorini_p2p.net.trust import KnownPeers
from santorini_p2p.net.views import ConnectionState, GameOutcome, SeatInfo
from santorini_p2p.wire.identity import Identity

if TYPE_CHECKING:
    from santorini_p2p.net.discovery import Advertiser

LOG = logging.getLogger(__name__)

__all__ = [
    "BOT_WAIT_MS",
    "DRAIN_MS",
    "FIRST_CONTACT_MS",
    "GIVE_UP_MS",
    "LINGER_MS",
    "POLL_S",
    "SPECTATOR_DEFER_MS",
    "SPECTATOR_LINGER_MS",
    "STOP_LINGER_MS",
    "Bot",
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
    "gated",
    "host_game",
    "join_game",
    "lan_address",
    "loopback_game",
    "paced",
    "recover_unsaved",
    "reopen",
    "resume_game",
    "resumed_title",
    "save_replay",
    "save_when_complete",
    "shown_address",
]


@dataclass(frozen=True, slots=True)
class PlayOptions:
    """What the command line passes for one game: home, identity, computer player, output."""

    home: Path
    identity: Identity
    bot: str | None = None
    seed: int | None = None
    think: float | None = None
    pace_ms: int = 0
    """The computer player's least time a turn, in ms, so that people can follow (0: none)."""
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
    board: str = ""
    """A club tournament's board (``host --tournament``): the name announced on the LAN."""


async def _run(game: NetworkGame, opts: PlayOptions) -> GameOutcome:
    shown = 0
    save_error: list[str] = []
    if opts.save is not None:
        # Game N of a series (a rematch, resumed or not) has its own copy, FILE-N: --save
        # names the series' first file, never another game's (SESSION.md 10).
        own = rematch_save_path(opts.save, game.session.series)
        game.session.set_save(str(own.resolve()))
    if game.session.gallery is not None:
        game.session.gallery.limit = opts.spectators
        game.session.gallery.chat = opts.spectator_chat

    def target() -> Path | None:
        """Where the replay goes: this game's own ``--save`` copy, as its note says."""
        to = game.session.save_to
        return Path(to) if to else None

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
        # Why the game stopped is the command's error line (``_net_finish``): said once.
        stopped = game.session.stopped or game.gave_up
        for n in notes[shown:]:
            if not (n.kind is NoteKind.ERROR and n.text == stopped):
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


async def _vote(vote: RematchVote, link: FrameLink, opts: PlayOptions, yes: bool) -> Verdict:
    """Run the rematch vote over ``link`` to its end; this peer answers ``yes``."""
    said: set[str] = set()

    def say(text: str) -> None:
        if text not in said and opts.on_note is not None:
            said.add(text)
            opts.on_note(text)

    asked = bool(vote.asking())
    vote.answer(yes)
    if yes:
        say("you ask for a rematch")
    elif asked:
        say("you decline a rematch")
    else:  # nobody asked: this player leaves, and the others are told so
        say("no rematch from here (--rematch plays more games): the others are told")
    while not vote.is_done:
        _send_vote(vote, link)
        got = await link.receive(POLL_S)
        while got is not None:
            vote.receive(*got)
            got = await link.receive(0)
        vote.tick()
        for name in vote.asking():
            say(f"{name} asks for a rematch")
    _send_vote(vote, link)
    say(vote.describe())
    return vote.verdict


def _send_vote(vote: RematchVote, link: FrameLink) -> None:
    """Send the vote's frames; a peer that cannot be sent to has left (``undelivered``)."""
    for peer, data in vote.outgoing():
        if not link.send(peer, data):
            vote.undelivered(peer)


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
    score: dict[str, float] = {}
    while out.complete and not out.stopped:
        s = game.session
        v = s.validator
        p = s.position
        if v is None or v.header is None or p is None:
            break
        vote = open_vote(s)
        if await _vote(vote, link, opts, len(played) < opts.rematches) is not Verdict.AGREED:
            break
        sides = [p.side_of(i) for i in range(v.header.players)]
        for name, points in match_points(v.names, v.result, sides).items():
            score[name] = score.get(name, 0) + points
        session = rematch_session(s, v.header)
        number = len(played) + 2
        # The match so far, as every participant is told it (spectators too).
        session.notes.append(Note(score_line(number, score)))
        game = _network_game(session, VoteLink(link, vote), opts, f"{title}, game {number}")
        out = await _run(game, opts)  # its copy: FILE-N (``_run``, from the series number)
        played.append(out)
    return replace(first, rematches=tuple(played))


def _network_game(session: Session, link: FrameLink, opts: PlayOptions, title: str) -> NetworkGame:
    """The game of ``session`` over ``link`` as the command line sets it up."""
    bot = paced(ai_bot(opts.bot, opts.think), opts.pace_ms) if opts.bot else None
    if bot is not None:
        session.takeback_answer = opts.takebacks == "accept"
    rng = random.Random(opts.seed)
    return NetworkGame(
        session,
        link,
        bot=bot,
        rng=rng,
        give_up_ms=opts.give_up_ms,
        title=title,
        answerer=ai_answerer(opts.bot) if opts.bot else None,
    )


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
                board=opts.board,
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
    board: str = "",
) -> Advertiser | None:
    """Offer a hosted game on the LAN (mDNS); the advertiser to stop, or None where it failed.

    ``board`` names a club tournament's board, announced with the offer.
    """
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
        # A game with secret gods says so (SPEC.md 10): a browser shows "secret from POOL".
        gods="secret" if "secret" in settings.options else settings.gods,
        time=str(settings.time) if settings.time else "none",
        version=SESSION_VERSION,
        pool=pool_name(settings.god_pool, settings.players) if settings.god_pool else "",
        spectators=spectators,
        spectator_chat=spectator_chat and spectators > 0,
        board=board,
    )
    adv = Advertiser(offer)
    return adv if await adv.start() else None


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
