"""A position of very many turns is listed for completion off the screen's thread.

Completion, the board's marks and the check of typed text read every spelling of every legal
turn. Where powers add choices to turns a position has hundreds of thousands (Polyphemus's
domes answered by Gaea: seconds to list), so the screen must not wait for them: the board and
Enter work at once, Tab and the marks once a thread has listed them.
"""

from __future__ import annotations

import asyncio
import threading

import pytest
from prompt_toolkit.completion import CompleteEvent
from prompt_toolkit.document import Document
from prompt_toolkit.validation import ValidationError

from santorini_p2p.engine import generate_turns, parse_position
from santorini_p2p.ui import completer
from santorini_p2p.ui.app import GameScreen
from santorini_p2p.ui.board_view import fragments_text
from santorini_p2p.ui.completer import ActionCompleter, next_steps, prepare, ready
from santorini_p2p.ui.local import LocalGame, Player
from santorini_p2p.ui.validator import ActionValidator
from tests.ui.test_app import poll, terminal

# Polyphemus to move with his domes unused: 18,096 turns (past the 4,096 listed at once).
BIG = "0B0000B/00000/000A00/00000/0A0000 1 polyphemus,apollo -"
SMALL = "0B0000B/00000/000A00/00000/0A0000 1 pan,apollo -"


@pytest.fixture(autouse=True)
def _fresh_lists(monkeypatch):
    """No position listed yet: the caches of earlier tests in this process are emptied."""
    monkeypatch.setattr(completer, "_PREPARED", {})
    for cached in (
        completer._quick,
        completer._spellings,
        completer._sorted,
        completer._builds,
        completer._heads,
        completer._lowered,
    ):
        cached.cache_clear()


def test_completion_and_checks_wait_for_a_big_positions_lists_then_use_them():
    p = parse_position(BIG)
    assert len(generate_turns(p)) > 10_000
    assert ready(parse_position(SMALL))
    assert not ready(p)
    complete = ActionCompleter(lambda: p)
    check = ActionValidator(lambda: p, ())
    assert list(complete.get_completions(Document("b"), CompleteEvent())) == []
    check.validate(Document("zz"))  # nothing refused while the turns are being listed

    prepare(p)
    assert ready(p)
    offered = [c.text for c in complete.get_completions(Document("c3"), CompleteEvent())]
    assert offered == next_steps(p, "c3")
    assert offered
    with pytest.raises(ValidationError):
        check.validate(Document("zz"))


def test_the_screen_lists_a_big_positions_turns_on_another_thread(monkeypatch):
    listed_on: list[str] = []
    spellings = completer._spellings

    def spelled(p):
        listed_on.append(threading.current_thread().name)
        return spellings(p)

    monkeypatch.setattr(completer, "_spellings", spelled)
    p = parse_position(BIG)

    async def main() -> None:
        with terminal():
            game = LocalGame([Player("You"), Player("Bot", "easy")], start=p, time_control=None)
            screen = GameScreen(game)
            assert game.awaiting == 0
            screen._board()
            assert "listing" in fragments_text(screen._hint())
            await poll(lambda: ready(p))
            assert listed_on
            assert set(listed_on) == {"santorini-turn-lists"}
            hint = fragments_text(screen._hint())
            assert "listing" not in hint
            assert "Tab completes" in hint

    asyncio.run(main())


def test_a_small_position_is_listed_on_the_screens_own_thread_at_once():
    p = parse_position(SMALL)

    async def main() -> None:
        with terminal():
            game = LocalGame([Player("You"), Player("Bot", "easy")], start=p, time_control=None)
            screen = GameScreen(game)
            assert screen.lists_ready(p)
            assert "listing" not in fragments_text(screen._hint())

    asyncio.run(main())
