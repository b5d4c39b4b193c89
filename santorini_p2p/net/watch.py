"""Watching a LAN game: a :class:`~santorini_p2p.net.spectator.Spectator` on the event loop.

:class:`SpectatorGame` pumps frames between a spectator and its link to the host, and offers
what the console's game controller reads (``ui/state.py``) by structure, as ``NetworkGame``
does: a read-only game, in which no seat is this peer's and nothing can be played.
:func:`watch_lan` sets one up from an address and runs it to its end; the command line calls
it. The verified copy of a complete game is written under ``$SANTORINI_HOME/games/`` (and to
``--save``), the same bytes as every player's replay.
"""

from __future__ import annotations

import contextlib
import os
from collections.abc import Awaitable, Callable, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Final

from santorini_p2p.engine import Action, Position, new_game, parse_action
from santorini_p2p.errors import IllegalTurnError
from santorini_p2p.net.clock import MonotonicMs, monotonic_ms
from santorini_p2p.net.game import (
    DRAIN_MS,
    FIRST_CONTACT_MS,
    GIVE_UP_MS,
    POLL_S,
    ConnectionState,
    SeatInfo,
)
from santorini_p2p.net.listeners import Listeners
from santorini_p2p.net.rematch import rematch_save_path
from santorini_p2p.net.session import DISCONNECT_MS, Note, NoteKind, SessionError
from santorini_p2p.net.spectator import Spectator
from santorini_p2p.net.store import game_dir
from santorini_p2p.net.transport import (
    Context,
    FrameLink,
    JoinTransport,
    check_listening,
    close_context,
    new_context,
    resolve,
)
from santorini_p2p.wire.identity import fingerprint
from santorini_p2p.wire.messages import Act

__all__ = ["SpectatorGame", "WatchOutcome", "watch_lan", "write_replay"]

WATCHED_SUFFIX: Final = "-watched.sntr"
"""How the copy a spectator keeps is named in ``games/``: ``<game id>-watched.sntr``."""


@dataclass(frozen=True, slots=True)
class WatchOutcome:
    """How watching ended: the game complete (and where its copy is), or why not."""

    complete: bool
    stopped: str | None
    result: str
    replay: Path | None
    saved: Path | None
    number: int = 1
    """The game's number in the match watched (2 and on: rematches watched)."""


class SpectatorGame:
    """A spectator and its link, run on the event loop; a read-only game for the console."""

    spectating: Final = True
    """The console shows this game read-only: no input line, ``q`` leaves."""

    def __init__(
        self,
        spectator: Spectator,
        link: FrameLink,
        *,
        now: MonotonicMs = monotonic_ms,
        title: str = "watching a LAN game",
        give_up_ms: int = GIVE_UP_MS,
        home: Path | None = None,
    ) -> None:
        self.spectator = spectator
        self._home = home
        #: The verified copy of the complete game, once written under ``home/games/``.
        self.kept: Path | None = None
        self.link = link
        self._now = now
        self._title = title
        self._listeners = Listeners()
        self._gave_up: str | None = None
        self.give_up_ms = give_up_ms
        #: Closes the link when ``run`` ends (the console's games own their sockets).
        self.on_close: Callable[[], Awaitable[None]] | None = None
        #: Where game N of the match watched is copied too (``--save FILE``: FILE, FILE-2, ...).
        self.save: Path | None = None
        spectator.listen(self._notify)
        spectator.before_next_game(self._finished)

    # -- the console's game controller protocol, by structure ---------------------------------

    @property
    def title(self) -> str:
        """A short description for the title bar."""
        return self._title

    @property
    def position(self) -> Position:
        """The current position (a blank board before the start player is drawn)."""
        p = self.spectator.position
        if p is not None:
            return p
        h = self.spectator.validator.header
        w = self.spectator.welcome
        return new_game(h.players if h is not None else w.players if w is not None else 2)

    @property
    def actions(self) -> Sequence[Action]:
        """Every action that stands, in order (a turn taken back is not one)."""
        acts = self.spectator.validator.standing_acts()
        return [parse_action(r.message.action) for r in acts if isinstance(r.message, Act)]

    @property
    def messages(self) -> Sequence[Note]:
        """Every note so far, oldest first."""
        return self.spectator.notes

    @property
    def awaiting(self) -> None:
        """Never: a spectator plays no seat."""
        return None

    @property
    def can_undo(self) -> bool:
        """Never."""
        return False

    @property
    def may_chat(self) -> bool:
        """Whether the host lets spectators chat (the watch screen then has an input line)."""
        return self.spectator.may_chat

    def say(self, text: str) -> None:
        """Say ``text`` to the players and the other spectators (SESSION.md 11).

        Raises:
            SessionError: the host does not allow it, or the line is refused (it says why).
        """
        why = self.spectator.say(text)
        if why is not None:
            raise SessionError(f"not sent: {why}")
        self._flush()
        self._notify()

    @property
    def stopped(self) -> str | None:
        """Why watching ended before the game did, or None."""
        return self.spectator.stopped or self._gave_up

    @property
    def replay(self) -> Path | None:
        """The verified copy of the complete game under ``$SANTORINI_HOME/games/``, or None."""
        return self.kept

    def seats(self) -> Sequence[SeatInfo]:
        """One view per seat in seat order, clocks as the host reads them."""
        s = self.spectator
        clocks = s.clocks()
        link = ConnectionState.CONNECTED if s.connected else ConnectionState.DISCONNECTED
        v = s.validator
        g = v.secret if v is not None else None
        # A spectator knows no hidden god (SECRET.md): each shows as '?' until it is opened.
        hidden = {i for i, god in enumerate(g.gods) if not god} if g and not g.result else set()
        return [
            SeatInfo(
                seat=i,
                name=n,
                local=False,
                human=True,
                fingerprint=fingerprint(k),
                connection=link,
                clock=clocks[i] if i < len(clocks) else None,
                hidden=i in hidden,
            )
            for i, (k, n) in enumerate(zip(s.seat_keys(), s.seat_names(), strict=False))
        ]

    def submit(self, action: Action) -> None:
        """A spectator cannot play.

        Raises:
            IllegalTurnError: always.
        """
        raise IllegalTurnError("a spectator cannot play")

    def resign(self) -> None:
        """A spectator cannot resign.

        Raises:
            IllegalTurnError: always.
        """
        raise IllegalTurnError("a spectator holds no seat to resign")

    def undo(self) -> None:
        """A spectator cannot undo.

        Raises:
            IllegalTurnError: always.
        """
        raise IllegalTurnError("a spectator cannot take anything back")

    def listen(self, listener: Callable[[], None]) -> Callable[[], None]:
        """Call ``listener`` after every change; return a function that stops the calls."""
        return self._listeners.add(listener)

    # -- running --------------------------------------------------------------------------------

    async def run(self) -> None:
        """Pump frames and let time pass until the game is complete or watching stopped."""
        try:
            await self._pump()
            try:
                self.keep()
            except SessionError as e:  # said on the screen; watch_lan tries again and says so
                self.spectator.notes.append(Note(str(e), NoteKind.ERROR))
                self._notify()
        finally:
            if self.on_close is not None:
                close, self.on_close = self.on_close, None
                await close()

    async def _pump(self) -> None:
        s = self.spectator
        heard = self._now()
        ever = False
        done_at: int | None = None
        while True:
            self._flush()
            now = self._now()
            limit = self.give_up_ms if ever else min(self.give_up_ms, FIRST_CONTACT_MS)
            if now - heard > limit:
                self._gave_up = (
                    f"the host was silent for {limit // 1000} s"
                    if ever
                    else f"no answer from {s.address or 'the host'} in {limit // 1000} s"
                )
                s.notes.append(Note(self._gave_up, NoteKind.ERROR))
                self._notify()
                break
            if s.stopped is not None:
                break
            if s.is_complete:
                # Its last status tells the host it holds everything. It stays while the
                # players may vote a rematch, which it watches too (SESSION.md 11): until one
                # declines, or the host, done, goes quiet.
                done_at = now if done_at is None else done_at
                over = s.match_over or now - heard > DISCONNECT_MS
                if over and now - done_at >= DRAIN_MS:
                    break
            else:
                done_at = None
            got = await self.link.receive(POLL_S)
            for _ in range(256):
                if got is None:
                    break
                heard = self._now()
                ever = True
                s.receive(*got)
                got = await self.link.receive(0)
            s.tick()
        self._flush()

    def keep(self) -> None:
        """Write the complete game's verified copy as ``games/<game id>-watched.sntr``.

        Raises:
            SessionError: it cannot be written.
        """
        s = self.spectator
        if self._home is None or not s.is_complete or self.kept is not None:
            return
        directory = game_dir(self._home)
        try:
            directory.mkdir(parents=True, exist_ok=True, mode=0o700)
        except OSError as e:
            raise SessionError(f"cannot write into {directory}: {e.strerror or e}") from None
        path = directory / f"{s.game_id.hex()}{WATCHED_SUFFIX}"
        write_replay(s.replay_bytes(), path)
        self.kept = path

    def _finished(self) -> None:
        """A rematch begins: keep the finished game's copy first (and its ``--save`` copy)."""
        s = self.spectator
        try:
            self.keep()
            if self.kept is not None:
                s.notes.append(Note(f"Kept game {s.number}'s verified copy as {self.kept}."))
            if self.save is not None:
                write_replay(s.replay_bytes(), rematch_save_path(self.save, s.number))
        except SessionError as e:
            s.notes.append(Note(str(e), NoteKind.ERROR))
        self.kept = None

    def _flush(self) -> None:
        for peer, frame in self.spectator.outgoing():
            self.link.send(peer, frame)

    def _notify(self) -> None:
        self._listeners.notify()


def write_replay(data: bytes, dest: Path) -> None:
    """Write a replay file whole or not at all (a temporary file, fsynced, then renamed).

    Raises:
        SessionError: it cannot be written (naming the file and the cause).
    """
    tmp = dest.with_name(f".{dest.name}.{os.getpid()}.tmp")
    try:
        fd = os.open(tmp, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o600)
        try:
            os.write(fd, data)
            os.fsync(fd)
        finally:
            os.close(fd)
        os.replace(tmp, dest)
    except OSError as e:
        with contextlib.suppress(OSError):
            tmp.unlink()
        raise SessionError(f"cannot write the replay to {dest}: {e.strerror or e}") from None


async def open_watch(
    address: str,
    name: str,
    *,
    give_up_ms: int = GIVE_UP_MS,
    context: Context | None = None,
    home: Path | None = None,
) -> tuple[SpectatorGame, Callable[[], Awaitable[None]]]:
    """Check ``address`` and open a spectator of the game there; return it and its closer.

    ``context``: a ZeroMQ context to open the socket in, which the caller closes (several
    spectators in one process share one); by default one of its own, closed with the socket.
    ``home``: where the verified copy of a complete game is kept (under ``games/``).

    Raises:
        ValueError: ``address`` is not ``host:port``.
        AddressError: its host name does not resolve, or nothing listens there.
    """
    await resolve(address)
    await check_listening(address)
    ctx = context or new_context()
    link = JoinTransport(ctx, address)
    spectator = Spectator(name, now=monotonic_ms, address=address)
    game = SpectatorGame(
        spectator,
        link,
        title=f"watching the LAN game at {address}",
        give_up_ms=give_up_ms,
        home=home,
    )

    async def close() -> None:
        link.close()
        if context is None:
            await close_context(ctx)

    return game, close


async def watch_lan(
    address: str,
    name: str,
    home: Path,
    *,
    save: Path | None = None,
    on_note: Callable[[str], None] | None = None,
    play: Callable[[SpectatorGame], Awaitable[object]] | None = None,
    give_up_ms: int = GIVE_UP_MS,
) -> WatchOutcome:
    """Watch the game at ``address`` to its end; keep the verified copy of a complete game.

    The copy is written to ``home/games/<game id>-watched.sntr`` and, with ``save``, there
    too, before the result is returned. ``on_note`` receives each note as it comes (unattended
    runs print them); ``play`` runs the game in place of ``run()`` (the console's screen).

    Raises:
        ValueError, AddressError: as :func:`open_watch`.
    """
    game, close = await open_watch(address, name, give_up_ms=give_up_ms, home=home)
    game.save = save
    shown = 0

    def show() -> None:
        nonlocal shown
        notes = game.spectator.notes
        if on_note is not None:
            for n in notes[shown:]:
                on_note(n.text)
        shown = len(notes)

    game.listen(show)
    show()
    try:
        if play is not None:
            await play(game)
        else:
            await game.run()
    finally:
        await close()
    show()
    s = game.spectator
    saved = None
    if s.is_complete:
        game.keep()  # the screen may have been left before its run wrote it
        if save is not None:
            # Game N of a match watched goes to FILE-N, as the players' copies do.
            saved = rematch_save_path(save, s.number)
            write_replay(s.replay_bytes(), saved)
    return WatchOutcome(
        s.is_complete, game.stopped, s.result_text(), game.kept, saved, number=s.number
    )
