"""Correspondence games in the console: start, paste, play and copy, between two homes."""

from __future__ import annotations

import asyncio

from prompt_toolkit.application.current import get_app_or_none

from santorini_p2p.replay.verify import verify_file
from santorini_p2p.ui.post_screen import PostGames, paste_block, show_page
from santorini_p2p.wire.identity import load_or_create_identity
from tests.ui.test_app import poll, terminal


class Side:
    """One player's console with scripted screens: what it showed, what it is given."""

    def __init__(self, home, name):
        self.home = home
        self.me = load_or_create_identity(home, name)
        self.pages: list[tuple[str, str, str | None]] = []
        self.menu_answers: list[str | None] = []
        self.pastes: list[str] = []
        self.turns: list[str] = []
        self.console = PostGames(home, self.me, self.menu, self.paste, self.page)

    async def menu(self, title, items):
        self.items = list(items)
        return self.menu_answers.pop(0) if self.menu_answers else None

    async def paste(self):
        return self.pastes.pop(0)

    async def page(self, title, body, prompt):
        self.pages.append((title, body, prompt))
        if prompt is None:
            return ""
        return self.turns.pop(0) if self.turns else None

    def last_block(self) -> str:
        _, body, _ = next(p for p in reversed(self.pages) if p[0].startswith("Send this"))
        return body[body.index("santorini post ") :]

    def read(self, text: str) -> None:
        self.menu_answers = ["read"]
        self.pastes = [text]
        asyncio.run(self.console.run())


def test_a_game_played_from_two_consoles_by_pasting_blocks(tmp_path):
    alice = Side(tmp_path / "a", "alice")
    bob = Side(tmp_path / "b", "bob")
    alice.menu_answers = ["new"]
    asyncio.run(alice.console.run())
    invitation = alice.last_block()
    assert "alice" in invitation
    assert (tmp_path / "a" / "post").glob("*.out.txt")
    bob.read(invitation)
    assert "you accept alice's invitation" in bob.pages[-1][1]
    # Blocks go back and forth; each side places its workers when asked, then resigns.
    text, reader, other = bob.last_block(), alice, bob
    placements = {"alice": "place a1,e5", "bob": "place b2,d4"}
    for _ in range(12):
        reader.turns = [placements.pop(reader.me.name, "resign")]
        before = len(reader.pages)
        reader.read(text)
        shown = reader.pages[before:]
        if any(p[0].startswith("Send this") for p in shown):
            text, reader, other = reader.last_block(), other, reader
        else:
            break
    for side in (alice, bob):
        side.menu_answers = []
        asyncio.run(side.console.run())
        assert any("over: " in label for _, label in side.items)
    (replay,) = (tmp_path / "a" / "games").glob("*.sntr")
    assert verify_file(replay).ok
    assert replay.read_bytes() == next((tmp_path / "b" / "games").glob("*.sntr")).read_bytes()


def test_a_damaged_block_is_refused_on_a_page_and_nothing_changes(tmp_path):
    alice = Side(tmp_path / "a", "alice")
    bob = Side(tmp_path / "b", "bob")
    alice.menu_answers = ["new"]
    asyncio.run(alice.console.run())
    text = alice.last_block()
    cut = text[: len(text) // 2]
    bob.read(cut)
    title, body, _ = bob.pages[-1]
    assert title == "Refused"
    assert "truncated" in body
    assert not (tmp_path / "b" / "post").exists()


def test_the_paste_area_takes_the_block_when_its_end_line_is_in():
    block = "santorini post\n-----BEGIN SANTORINI POST-----\nAAAA\n> -----END SANTORINI\n"

    async def main():
        with terminal() as keys:
            task = asyncio.create_task(paste_block())
            await poll(lambda: (a := get_app_or_none()) is not None and a.is_running)
            keys.send_text(block + "> POST-----")
            return await asyncio.wait_for(task, 5)

    got = asyncio.run(main())
    assert got is not None
    assert got.replace("\r", "\n").endswith("> POST-----")


def test_a_page_with_a_prompt_returns_the_line_typed():
    async def main():
        with terminal() as keys:
            task = asyncio.create_task(show_page("Game", "the board", "your turn: "))
            await poll(lambda: (a := get_app_or_none()) is not None and a.is_running)
            keys.send_text("place a1,b2\r")
            return await asyncio.wait_for(task, 5)

    assert asyncio.run(main()) == "place a1,b2"


def test_the_start_screen_opens_the_correspondence_games(tmp_path):
    from tests.terminal import Terminal, clean_env
    from tests.ui.test_screens import SANTORINI

    with Terminal(SANTORINI, env=clean_env(tmp_path), cwd=tmp_path) as term:
        term.wait_for("8. Correspondence games")
        term.send("8")
        term.wait_for("Read a block the other player sent (paste it)")
        term.send("2")  # start a game: its invitation is shown to copy
        term.wait_for("Send this to anyone")
        term.wait_for("-----BEGIN SANTORINI POST-----")
        term.send("\r")
        term.wait_for("invitation sent")
        term.send("\x1b")
        term.wait_for("What would you like to do?")
        term.send("\x11")
        assert term.wait_exit() == 0
