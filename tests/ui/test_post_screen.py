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

    def new_game(self, *menus: str | None, name: str = "") -> None:
        """Start a game from the menu: the set-up answers (gods, pace, side), then the name."""
        self.menu_answers = ["new", *menus]
        self.turns = [name]
        asyncio.run(self.console.run())

    def read(self, text: str) -> None:
        self.menu_answers = ["read"]
        self.pastes = [text]
        asyncio.run(self.console.run())


def test_a_game_played_from_two_consoles_by_pasting_blocks(tmp_path):
    alice = Side(tmp_path / "a", "alice")
    bob = Side(tmp_path / "b", "bob")
    alice.new_game("none", "none", "you")
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
    alice.new_game("none", "none", "you")
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


def test_the_start_screen_starts_a_correspondence_game_with_the_lan_games_choices(tmp_path):
    from tests.terminal import Terminal, clean_env
    from tests.ui.test_screens import SANTORINI

    def all_of(*texts):
        return lambda screen: all(t in screen for t in texts)

    with Terminal(SANTORINI, env=clean_env(tmp_path), cwd=tmp_path) as term:
        term.wait_for("8. Correspondence games")
        term.send("8")
        term.wait_for(all_of("Read a block the other player sent", "Start a game"))
        term.send("2")  # start a game: the LAN game's questions first
        term.wait_for(all_of("Gods", "3. draft: take turns picking from gods drawn at random"))
        term.send("3")
        term.wait_for(all_of("Which gods?", "1. the ten simple gods"))
        term.send("1")
        term.wait_for(all_of("Pace (shown beside the game", "3. 3 days a move"))
        term.send("3")
        term.wait_for(all_of("Who plays your side?", "1. you: you play your turns"))
        term.send("1")
        term.wait_for("Your name (Enter for")
        term.send("\r")
        term.wait_for(
            all_of(
                "Send this to anyone",
                "a new game; gods draft from simple; 3 days a move",
                "-----BEGIN SANTORINI POST-----",
            )
        )
        term.send("\r")
        term.wait_for(all_of("Read a block the other player sent", "invitation sent"))
        term.send("\x1b")
        term.wait_for("What would you like to do?")
        term.send("\x11")
        assert term.wait_exit() == 0
    (kept,) = (tmp_path / "santorini" / "post").glob("*.out.txt")
    inv = _invitation(kept.read_text())
    assert (inv.gods, inv.pool, inv.days, inv.to) == ("draft", (), 3, b"")


def _invitation(text: str):
    from santorini_p2p.net.postio import read_block_text
    from santorini_p2p.wire.post import Invitation

    block, _ = read_block_text(text)
    assert isinstance(block, Invitation)
    return block


def test_a_new_game_takes_the_same_settings_as_post_new(tmp_path):
    from santorini_p2p.net.trust import KnownPeers

    bob = load_or_create_identity(tmp_path / "b", "bob")
    KnownPeers(tmp_path / "a").check("bob", bob.public_key)
    alice = Side(tmp_path / "a", "alice")
    # Draft from named gods (too few first: asked again with the reason), 5 days a
    # move, only for bob, the computer playing alice's side, under another name.
    alice.menu_answers = ["new", "draft", "names", "days", "bob", "medium"]
    alice.turns = ["hades,pan,zeus", "apollo,artemis,athena,atlas", "9 weeks", "5", "Alice B"]
    asyncio.run(alice.console.run())
    titles = [title for title, _, _ in alice.pages]
    assert titles[0] == "Name the gods"
    assert titles[1].startswith("Name the gods\n")
    assert "draft with 2 players needs at least 4" in titles[1]
    assert titles[2:5] == [
        "Days a move",
        "Days a move\nexpected a number of days from 1 to 365, got '9 weeks'",
        "Start a correspondence game",
    ]
    sent = alice.pages[-1]
    assert sent[0] == "Send this to bob"
    inv = _invitation(alice.last_block())
    assert (inv.gods, inv.pool, inv.days, inv.to, inv.name) == (
        "draft",
        ("apollo", "artemis", "athena", "atlas"),
        5,
        bob.public_key,
        "Alice B",
    )
    assert "game " in sent[1]
    assert "a new game; gods draft from apollo, artemis, athena, atlas; 5 days a move" in sent[1]
    assert "only bob may take it" in sent[1]
    assert "the computer (medium) plays your side" in sent[1]


def test_a_named_pool_with_a_banned_pair_is_asked_again_with_the_reason(tmp_path):
    alice = Side(tmp_path / "a", "alice")
    alice.menu_answers = ["new", "random", "names", "none", "you"]
    alice.turns = ["hades,pan", "hades,zeus", ""]
    asyncio.run(alice.console.run())
    assert "pan and hades may not play in one game (a banned pair" in alice.pages[1][0]
    inv = _invitation(alice.last_block())
    assert (inv.gods, inv.pool, inv.days, inv.to) == ("random", ("zeus", "hades"), 0, b"")


def test_backing_out_of_a_new_game_starts_nothing(tmp_path):
    alice = Side(tmp_path / "a", "alice")
    for answers in (["new", None], ["new", "none", None], ["new", "none", "3", None]):
        alice.menu_answers = list(answers)
        asyncio.run(alice.console.run())
    alice.new_game("none", "none", "you", name=None)
    assert not any(p[0].startswith("Send this") for p in alice.pages)
    assert not list((tmp_path / "a").glob("post/*.json"))


class Bob(Side):
    """A person who plays the first legal action, and resigns at the third turn of play."""

    plays = 0

    async def page(self, title, body, prompt):
        from santorini_p2p.engine import Phase, legal_actions
        from santorini_p2p.net.post import list_games

        self.pages.append((title, body, prompt))
        if prompt is None:
            return ""
        (game,) = list_games(self.home, self.me)
        p = game.position
        if p.phase is Phase.PLAY:
            self.plays += 1
            if self.plays == 3:
                return "resign"
        return str(legal_actions(p)[0])


def test_a_computer_side_plays_its_turns_when_a_block_is_read_on_the_console(tmp_path):
    alice = Side(tmp_path / "a", "alice")
    bob = Bob(tmp_path / "b", "bob")
    alice.new_game("none", "none", "random")
    bob.read(alice.last_block())
    text, reader, other = bob.last_block(), alice, bob
    for _ in range(30):
        before = len(reader.pages)
        reader.read(text)
        shown = reader.pages[before:]
        if reader is alice:
            # The computer plays alice's side: she is never asked for a turn.
            assert all(prompt is None for _, _, prompt in shown)
        if not any(p[0].startswith("Send this") for p in shown):
            break
        text, reader, other = reader.last_block(), other, reader
    assert bob.plays == 3
    (replay,) = (tmp_path / "a" / "games").glob("*.sntr")
    verdict = verify_file(replay)
    assert verdict.ok
    assert replay.read_bytes() == next((tmp_path / "b" / "games").glob("*.sntr")).read_bytes()


def test_the_games_list_shows_the_pace_and_when_this_clock_says_it_passed(tmp_path, monkeypatch):
    from santorini_p2p.ui import post_screen

    alice = Side(tmp_path / "a", "alice")
    bob = Side(tmp_path / "b", "bob")
    alice.new_game("none", "3", "you")
    bob.read(alice.last_block())
    alice.read(bob.last_block())

    def label():
        alice.menu_answers = []
        asyncio.run(alice.console.run())
        (text,) = [text for key, text in alice.items if key not in ("read", "new")]
        return text

    assert label().endswith(" (0 min; 3 days a move)")
    now = post_screen._now_ms()
    monkeypatch.setattr(post_screen, "_now_ms", lambda: now + 4 * 86_400_000)
    assert label().endswith(" (4 days; 3 days a move, overdue by this clock)")
