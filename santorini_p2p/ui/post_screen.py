"""Correspondence games in the console: paste a block, see the board, play, copy the answer.

``PostGames`` is what the start screen's "Correspondence games" entry runs. It holds no game
logic (``net.post`` does) and reaches the screen through callables, so tests drive it
without a terminal: ``menu`` (the start screen's ``choose``), ``paste`` (a block pasted into a
text area, taken as soon as its END line is in), ``page`` (text to read, with an optional
input line) and ``ask`` (the start screen's one-line question; a page with a prompt without
it). ``paste_block`` and ``show_page`` are those screens for the real console.

A new game asks what ``santorini post new`` takes, with the LAN game's set-up questions
(``setup_form``): the god rule and the gods to draw from, the pace (days a move, shown and
never enforced), who may take the invitation (anyone, or one remembered player), who plays
this side (you, or the computer at a level) and the name to play under.

Every answer block is shown to copy and also written to ``$SANTORINI_HOME/post/<game>.out.txt``,
so that it can be sent from a file as well.
"""

from __future__ import annotations

import asyncio
import re
import time
from collections.abc import Awaitable, Callable, Sequence
from pathlib import Path
from typing import Final

from prompt_toolkit.application import Application
from prompt_toolkit.formatted_text import StyleAndTextTuples
from prompt_toolkit.key_binding import KeyBindings, KeyPressEvent
from prompt_toolkit.layout import AnyContainer, FormattedTextControl, HSplit, Layout, Window
from prompt_toolkit.widgets import TextArea

from santorini_p2p.net.post import PostGame, list_games
from santorini_p2p.net.postbot import offer_judge, random_bot
from santorini_p2p.net.postio import PostError, read_block_text
from santorini_p2p.net.postview import span
from santorini_p2p.net.trust import KnownPeers
from santorini_p2p.ui.app import STYLE
from santorini_p2p.ui.board_view import render_text
from santorini_p2p.ui.setup_form import Asker, ask_gods, ask_name
from santorini_p2p.wire.identity import Identity, fingerprint
from santorini_p2p.wire.post import END_LINE, Invitation

__all__ = ["Menu", "Page", "Paste", "PostGames", "paste_block", "show_page"]

Menu = Callable[[str, Sequence[tuple[str, str]]], Awaitable[str | None]]
Paste = Callable[[], Awaitable[str | None]]
Page = Callable[[str, str, str | None], Awaitable[str | None]]
"""``page(title, body, prompt)``: show ``body``; with ``prompt``, return the line typed (None
on Escape); without, return "" when the player leaves."""

_END: Final = "".join(END_LINE.split())

PACE_MENU: Final = (
    ("none", "no clock: a move whenever it suits you"),
    ("1", "1 day a move"),
    ("3", "3 days a move"),
    ("7", "7 days a move"),
    ("days", "another number of days a move"),
)
"""The paces a new correspondence game offers (``post new --time``): shown, never enforced."""
PACE_TITLE: Final = "Pace (shown beside the game and never enforced: no clock proves it)"
SIDE_MENU: Final = (
    ("you", "you: you play your turns"),
    ("easy", "the computer, easy"),
    ("medium", "the computer, medium"),
    ("hard", "the computer, hard"),
    ("random", "the computer, random moves"),
)
"""Who plays this side of a new game (``post new --bot LEVEL``)."""
ANYONE: Final = "\0anyone"


def _now_ms() -> int:
    return time.time_ns() // 1_000_000


class PostGames:
    """The console's correspondence games of one home and identity."""

    def __init__(
        self,
        home: Path,
        me: Identity,
        menu: Menu,
        paste: Paste,
        page: Page,
        ask: Asker | None = None,
    ) -> None:
        """Keep where the games are, who plays them, and the screens."""
        self.home = home
        self.me = me
        self.menu = menu
        self.paste = paste
        self.page = page
        self.ask: Asker = ask or self._ask_on_page

    async def _ask_on_page(self, title: str, prompt: str) -> str | None:
        """A one-line question on a page, where no other was given."""
        return await self.page(title, "", prompt)

    def _label(self, game: PostGame) -> str:
        s = game.status()
        turn = {"you": "your turn", "over": f"over: {s.result}", "invited": "invitation sent"}
        waited_ms = _now_ms() - s.since_ms
        pace = ""
        if s.days and s.turn not in ("over", "invited"):
            # The agreed pace, and whether this side's clock says it has passed (POST.md 4).
            late = ", overdue by this clock" if waited_ms > s.days * 86_400_000 else ""
            pace = f"; {s.days} days a move{late}"
        label = turn.get(s.turn, f"{s.turn} to play")
        return f"{game.short} {s.opponent}: {label} ({span(waited_ms)}{pace})"

    async def run(self) -> None:
        """The correspondence menu, until the player goes back."""
        while True:
            games = list_games(self.home, self.me)
            items = [
                ("read", "Read a block the other player sent (paste it)"),
                ("new", "Start a game: an invitation to send"),
                *((g.game_id.hex(), self._label(g)) for g in games),
            ]
            picked = await self.menu("Correspondence games", items)
            if picked is None:
                return
            if picked == "read":
                await self.read()
            elif picked == "new":
                await self.new()
            else:
                await self.open(PostGame.load(self.home, self.me, bytes.fromhex(picked)), [])

    async def new(self) -> PostGame | None:
        """Ask the new game's settings, as ``post new`` takes them; send its invitation.

        Escape on any question backs out and starts nothing.
        """
        chosen = await ask_gods(self.menu, self.ask, 2)
        if chosen is None:
            return None
        gods, pool = chosen
        days = await self._pace()
        if days is None:
            return None
        known = KnownPeers(self.home)
        to_name = ""
        names = known.names()
        if names:
            items = [(ANYONE, "anyone: whoever reads it first")]
            for name in names:
                key = known.get(name)
                assert key is not None
                items.append((name, f"only {name} ({fingerprint(key)})"))
            picked = await self.menu("Who may take the invitation?", items)
            if picked is None:
                return None
            to_name = "" if picked == ANYONE else picked
        side = await self.menu("Who plays your side?", SIDE_MENU)
        if side is None:
            return None
        me = await ask_name(self.ask, self.home, self.me, "Start a correspondence game")
        if me is None:
            return None
        to = known.get(to_name) if to_name else None
        game, _ = PostGame.invite(
            self.home,
            me,
            gods=gods,
            pool=pool,
            days=days,
            now_ms=_now_ms(),
            bot=None if side == "you" else side,
            to=to or b"",
            to_name=to_name or None,
        )
        rule = "no gods" if gods == "none" else f"gods {gods} from {', '.join(pool) or 'simple'}"
        pace = f"{days} days a move" if days else "no clock"
        lines = [f"game {game.short}: a new game; {rule}; {pace}"]
        if to_name:
            lines.append(f"only {to_name} may take it")
        if side != "you":
            lines.append(f"the computer ({side}) plays your side")
        await self.send(game, lines)
        return game

    async def _pace(self) -> int | None:
        """Days a move (0: no clock), as ``post new --time``; None backs out."""
        picked = await self.menu(PACE_TITLE, PACE_MENU)
        if picked is None:
            return None
        if picked == "none":
            return 0
        if picked != "days":
            return int(picked)
        title = "Days a move"
        while True:
            typed = await self.ask(title, "days a move (1 to 365): ")
            if typed is None:
                return None
            m = re.fullmatch(r"\s*([0-9]+)\s*d?\s*", typed.lower())
            if m and 1 <= int(m.group(1)) <= 365:
                return int(m.group(1))
            title = f"Days a move\nexpected a number of days from 1 to 365, got {typed!r}"

    async def read(self) -> None:
        """Take a pasted block; show what it changed; play on, or say why it is refused."""
        text = await self.paste()
        if not text:
            return
        now = _now_ms()
        try:
            block, data = read_block_text(text)
            if isinstance(block, Invitation):
                try:
                    game = PostGame.load(self.home, self.me, block.game_id)
                except PostError:
                    game = PostGame.accept(self.home, self.me, block, data, now, None)
                    game.save()
                    await self.send(game, [f"you accept {block.name}'s invitation"])
                    return
                if game.state["role"] == "inviter":
                    raise PostError("this is your own invitation: send it to the other player")
                await self.send(game, ["the invitation was read before; nothing changes"])
                return
            game = PostGame.load(self.home, self.me, block.game_id)
            start = len(game.records)
            new = game.receive(block, now)
            level = game.state.get("bot")
            if level:
                # The computer plays this side: its turn, and its answer to an offer.
                bot, judge = random_bot(str(level)), offer_judge(str(level))
                await asyncio.to_thread(game.advance, bot, now, judge)
            else:
                game.advance(None, now)
            game.save()
        except PostError as e:
            await self.page("Refused", f"{e}\n\nNothing of any game changed.", None)
            return
        lines = [] if new else ["read before: nothing new"]
        lines += [f"{c.who}: {c.text}" for c in game.changes(start)]
        await self.open(game, lines)

    async def open(self, game: PostGame, lines: list[str]) -> None:
        """The board and what happened; the player's turn asked while it is theirs."""
        while True:
            body = "\n".join(lines)
            p = game.position
            if p is not None:
                body += ("\n\n" if body else "") + render_text(p)
            s = game.status()
            title = f"Game {game.short} with {s.opponent}"
            if game.my_turn:
                answer = await self.page(
                    title, body, "your turn (a turn, resign, draw, say TEXT): "
                )
                if not answer:
                    break
                start = len(game.records)
                try:
                    game.play(answer, _now_ms())
                except PostError as e:
                    lines = [str(e)]
                    continue
                game.save()
                lines = [f"{c.who}: {c.text}" for c in game.changes(start)]
                continue
            status = f"over: {s.result}" if s.turn == "over" else f"{s.opponent} to play"
            await self.page(title, body + f"\n\n{status}", None)
            break
        if game.outgoing() or not game.records:
            await self.send(game, [])

    async def send(self, game: PostGame, lines: list[str]) -> None:
        """Show the block to send (and keep it in a file beside the game)."""
        text = game.block_text(_now_ms())
        game.mark_sent(_now_ms())
        game.save()
        out = self.home / "post" / f"{game.game_id.hex()}.out.txt"
        note = ""
        try:
            out.write_text(text, encoding="utf-8")
            note = f"\n(also in {out})"
        except OSError as e:
            note = f"\n(could not keep it in {out}: {e.strerror or e})"
        head = "\n".join(lines) + ("\n\n" if lines else "")
        await self.page(
            f"Send this to {game.opponent_name}",
            f"{head}Copy the block below into your chat or mail:{note}\n\n{text}",
            None,
        )


async def paste_block() -> str | None:
    """A text area to paste a block into; taken as soon as its END line is in (Esc: back)."""
    kb = KeyBindings()

    @kb.add("escape", eager=True)
    @kb.add("c-c")
    def _back(event: KeyPressEvent) -> None:
        event.app.exit(result=None)

    @kb.add("c-d")
    def _done(event: KeyPressEvent) -> None:
        event.app.exit(result=area.text)

    app: Application[str | None] = Application(full_screen=True, style=STYLE, key_bindings=kb)
    area = TextArea(multiline=True, scrollbar=True)

    def changed(_: object) -> None:
        if _END in "".join(area.text.split()).replace(">", ""):
            app.exit(result=area.text)

    area.buffer.on_text_changed += changed
    head: StyleAndTextTuples = [
        ("bold", "  Paste the block the other player sent\n"),
        ("", "  It is read as soon as its END line is in (Ctrl-D: read what is there).\n"),
    ]
    footer: StyleAndTextTuples = [("class:title", " Ctrl-D read  Esc back ")]
    app.layout = Layout(
        HSplit(
            [
                Window(FormattedTextControl(head), height=3),
                area,
                Window(FormattedTextControl(footer), height=1),
            ]
        )
    )
    app.layout.focus(area)
    return await app.run_async()


async def show_page(title: str, body: str, prompt: str | None) -> str | None:
    """``body`` to read (and select to copy), with an input line when ``prompt`` is given."""
    kb = KeyBindings()

    @kb.add("escape", eager=True)
    @kb.add("c-c")
    def _back(event: KeyPressEvent) -> None:
        event.app.exit(result=None if prompt else "")

    app: Application[str | None] = Application(full_screen=True, style=STYLE, key_bindings=kb)
    text = TextArea(text=body, read_only=True, scrollbar=True, focusable=prompt is None)
    parts: list[AnyContainer] = [
        Window(FormattedTextControl([("bold", f"  {title}\n")]), height=2),
        text,
    ]
    if prompt is not None:

        def accept(buffer: object) -> bool:
            app.exit(result=field.text.strip())
            return True

        field = TextArea(multiline=False, prompt=prompt, accept_handler=accept)
        parts.append(field)
        leave = " Enter play  Esc back "
    else:

        @kb.add("enter")
        @kb.add("q")
        def _leave(event: KeyPressEvent) -> None:
            event.app.exit(result="")

        leave = " Enter or Esc back (select the text to copy it) "
    parts.append(Window(FormattedTextControl([("class:title", leave)]), height=1))
    app.layout = Layout(HSplit(parts))
    app.layout.focus(field if prompt is not None else text)
    return await app.run_async()
