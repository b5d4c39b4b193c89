"""The console's Host and Join entries: network games set up by asking the start screen's menus.

The network layer (``net/game.py``) plays the games; this module asks the questions a person
answers on the start screen (how many players, which gods, which game on the LAN) and hands
the game it sets up to the console as a :class:`~santorini_p2p.net.game.NetworkGame`, the
console's game controller.
"""

from __future__ import annotations

import asyncio
import dataclasses
from collections.abc import Sequence
from pathlib import Path
from typing import Final, cast

from santorini_p2p.engine import GodMode
from santorini_p2p.errors import AddressError, SantoriniError, StorageError
from santorini_p2p.net.clock import STANDARD, monotonic_ms
from santorini_p2p.net.game import (
    NetworkGame,
    advertise,
    connect,
    find_unfinished,
    loopback_game,
    reopen,
    resumed_title,
    shown_address,
)
from santorini_p2p.net.session import GameSettings, Session
from santorini_p2p.net.transport import bind_host, close_context, new_context
from santorini_p2p.net.trust import KnownPeers
from santorini_p2p.net.watch import SpectatorGame, open_watch
from santorini_p2p.ui.setup_form import (
    LAST_NAME,
    Asker,
    Chooser,
    ask_gods,
    ask_name,
    ask_pool,
    last_name,
    remember_name,
)
from santorini_p2p.wire.identity import Identity

__all__ = ["LAST_NAME", "Asker", "Chooser", "LanGames", "last_name", "remember_name"]


class LanGames:
    """Host, join and watch network games from the console's start screen.

    ``choose`` and ``ask`` are the menu and the one-line question the questions are asked
    with: the start screen's own (``ui/start.py``, passed in by the command line), a script's in
    tests. The games returned own their sockets and close them when their ``run`` ends.
    """

    def __init__(
        self,
        home: Path,
        identity: Identity,
        choose: Chooser,
        ask: Asker,
        *,
        bind: str = "0.0.0.0",
        discover: bool = True,
    ) -> None:
        self.home = home
        self._discover = discover
        self.identity = identity
        self._choose = choose
        self._ask = ask
        self._bind = bind

    async def host(self) -> NetworkGame | str | None:
        """Ask for the players and gods, offer the game, and return it (waiting for players).

        With a hosted game left unfinished here, first ask whether to resume it instead.
        """
        found = find_unfinished(self.home, role="host")
        if found is not None:
            where = resumed_title(found[1]).removesuffix(" (resumed)")
            pick = await self._choose(
                "Host a LAN game",
                [("resume", f"Resume the unfinished {where}"), ("new", "Offer a new game")],
            )
            if pick is None:
                return None
            if pick == "resume":
                return await self._resume_host(*found)
        # The same questions, in the same words and order, as a game on this terminal.
        players = await self._choose(
            "How many players?",
            [("2", "2 players"), ("3", "3 players"), ("4", "4 players (2 vs 2)")],
        )
        if players is None:
            return None
        chosen = await ask_gods(self._choose, self._ask, int(players))
        if chosen is None:
            return None
        gods, pool = chosen
        clocks = await self._choose(
            "Clocks",
            [
                ("timed", "1 minute a move plus a 5-minute bank (the standard)"),
                ("untimed", "untimed"),
            ],
        )
        if clocks is None:
            return None
        me = await self._ask_name("Host a LAN game")
        if me is None:
            return None
        # Players on the console may chat and ask for takebacks (SPEC.md 8.2, 8.3).
        settings = GameSettings(
            int(players),
            gods,
            STANDARD if clocks == "timed" else None,
            ("chat", "takeback"),
            pool=pool,
        )
        ctx = new_context()
        try:
            link = await bind_host(ctx, self._bind, 0)
        except OSError as e:
            await close_context(ctx)
            return f"cannot listen for players: {e}"
        shown = shown_address(self._bind)
        address = f"{shown}:{link.port}"
        try:
            session = Session.host(
                me,
                settings,
                home=self.home,
                now=monotonic_ms,
                known=KnownPeers(self.home),
                address=f"{self._bind}:{link.port}",
            )
        except StorageError as e:  # a full disk: said on the screen, nothing offered
            link.close()
            await close_context(ctx)
            return str(e)
        advertiser = (
            await advertise(me, settings, self._bind, link.port) if self._discover else None
        )

        async def close() -> None:
            if advertiser is not None:
                await advertiser.stop()
            link.close()
            await close_context(ctx)

        game = NetworkGame(
            session,
            link,
            title=f"LAN game at {address} ({me.fingerprint})",
            on_close=close,
        )
        if advertiser is not None:
            adv = advertiser
            updated: list[asyncio.Task[None]] = []

            def in_play() -> None:
                # Once the seats are taken the game is announced as in play: to be watched.
                if not updated and session.validator is not None:
                    playing = dataclasses.replace(adv.offer, playing=True)
                    updated.append(asyncio.get_running_loop().create_task(adv.update(playing)))

            game.listen(in_play)
        return game

    async def _pool(self, players: int, gods: str) -> tuple[str, ...] | None:
        """Ask which gods the game draws from (empty: the ten simple gods); None backs out."""
        return await ask_pool(self._choose, self._ask, players, cast(GodMode, gods))

    async def watch(
        self,
        levels: Sequence[str],
        gods: str,
        *,
        timed: bool = True,
        think: float | None = None,
        seed: int | None = None,
        pace_ms: int = 0,
        pool: tuple[str, ...] = (),
    ) -> NetworkGame | str:
        """Computer players of ``levels`` over 127.0.0.1 (``net.game.loopback_game``)."""
        settings = GameSettings(len(levels), gods, STANDARD if timed else None, pool=pool)
        try:
            return await loopback_game(levels, settings, think=think, seed=seed, pace_ms=pace_ms)
        except OSError as e:
            return f"cannot play over 127.0.0.1: {e}"

    async def _ask_name(self, title: str) -> Identity | None:
        """Ask the display name to play under (``setup_form.ask_name``); None backs out."""
        return await ask_name(self._ask, self.home, self.identity, title)

    async def _resume_host(self, journal: Path, note: dict[str, object]) -> NetworkGame | str:
        """Reopen a hosted game from its journal on the address it was offered on."""
        try:
            session, link, close = await reopen(journal, note, self.identity, self.home)
        except AddressError as e:
            return f"cannot listen for players: {e}"
        except (SantoriniError, ValueError, OSError) as e:
            return f"cannot resume {journal.name}: {e}"
        return NetworkGame(session, link, title=resumed_title(note), on_close=close)

    async def _watch(self, address: str) -> SpectatorGame | str:
        """Watch the game at ``address`` as a spectator, under this player's name."""
        try:
            game, close = await open_watch(address, self.identity.name, home=self.home)
        except (ValueError, AddressError) as e:
            return str(e)
        game.on_close = close
        return game

    async def join(self) -> NetworkGame | SpectatorGame | str | None:
        """List the games on the LAN (or ask for ``host:port``) and return the joined game.

        A new game asks the name to play under first, as Host does; a game left unfinished
        here is resumed under the name it was joined with. A game whose host takes spectators
        is listed a second time, marked "watch": chosen, it is watched read-only (a game in
        play is listed only so, its seats being taken).
        """
        from santorini_p2p.net.discovery import browse

        offers = await browse(1.5) if self._discover else []
        items = []
        for o in offers:
            about = f"{o.host_name} ({o.fingerprint}), {o.players} players, gods {o.gods_shown}"
            if o.board:
                # A club tournament's board: its name first, as the pairing printed it.
                about = f"{o.board}: {about}"
            if not o.playing:
                items.append((o.endpoint, about))
            if o.watchable:
                state = "in play" if o.playing else "seats free"
                items.append((WATCH + o.endpoint, f"watch: {about}, {state}"))
        items.append(("", "Type an address (host:port)"))
        choice = await self._choose("Join which game?", items)
        if choice is None:
            return None
        if choice.startswith(WATCH):
            return await self._watch(choice.removeprefix(WATCH))
        typed = not choice
        title = "Join a game"
        me: Identity | None = None  # asked once, before the first new connection
        while True:
            if typed:
                choice = await self._ask(title, "host:port: ")
                if not choice:
                    return None
            # connect() and reopen() check the address (a joiner's resume resolves it too).
            found = find_unfinished(self.home, role="join", address=choice)
            if found is not None:
                try:
                    session, link, close = await reopen(*found, self.identity, self.home)
                except (SantoriniError, ValueError) as e:
                    return f"cannot resume {found[0].name}: {e}"
            else:
                me = me or await self._ask_name("Join a game")
                if me is None:
                    return None
                try:
                    session, link, close = await connect(choice, me, self.home)
                except (ValueError, AddressError) as e:
                    if not typed:
                        return str(e)
                    # A typed address: say why under the title and ask again.
                    title = f"Join a game\n{e}"
                    continue
            return NetworkGame(session, link, title=f"LAN game at {choice}", on_close=close)


WATCH: Final = "watch:"
"""How the Join list's key of a game to watch starts (the rest is its ``host:port``)."""
