"""Local games: a seat whose power chooses in another seat's turn chooses for itself.

RULES.md 10.5 (Gaea) and SPEC.md 8.4: in a game on this terminal, as over the network, the
mover's turn is a plan; the deciding seat's player (a person through ``choice_asked``, a
computer through its answerer) chooses, and the turn goes on from that answer.
"""

from __future__ import annotations

import asyncio
import io

import pytest

from santorini_p2p.ai.choices import answer_for
from santorini_p2p.engine import format_position, parse_action, parse_position
from santorini_p2p.errors import IllegalTurnError
from santorini_p2p.ui.local import LocalGame, Player
from tests.ui.test_local import until

# Apollo's player (seat 2) to move; a dome on c3 lets Gaea's player (seat 1) put a worker
# from her card beside it (tests/test_memory_gods.py has the rules' own tests).
DOME = "00000/00B000B/00300/00A000/0A0000 2 gaea,apollo -"
# Prometheus's player (seat 1) to move: a dome on c2 before moving, where Gaea's worker may
# land on the square the mover meant to move to.
BEFORE = "00000/00000/00100/00A300/0A000B0B 1 prometheus,gaea -"


def _turn(text: str):
    return parse_action(text)


def test_a_computer_seat_answers_and_the_person_mover_cannot_write_its_square():
    async def main() -> None:
        asked: list[str] = []

        def answerer(p, answered, at, rng):
            asked.append(at)
            return "-"

        game = LocalGame(
            [Player("Gaia", "easy"), Player("You")],
            start=parse_position(DOME),
            time_control=None,
            answerer=answerer,
        )
        runner = asyncio.create_task(game.run())
        try:
            assert game.awaiting == 1
            game.submit(_turn("b4>b3^c3+c4"))  # the mover writes the other seat's choice
            await until(game, lambda: len(game.actions) == 1)
            assert asked == ["b4>b3^c3"]
            assert str(game.actions[0]) == "b4>b3^c3"  # the computer chose no worker
            assert game.choice_asked is None  # a computer's choice is never asked here
        finally:
            runner.cancel()

    asyncio.run(main())


def test_a_computer_seat_answers_with_the_network_players_answer():
    async def main() -> None:
        start = parse_position(DOME)
        wanted = answer_for(start, (), "b4>b3^c3")
        game = LocalGame([Player("Gaia", "hard"), Player("You")], start=start, time_control=None)
        runner = asyncio.create_task(game.run())
        try:
            game.submit(_turn("b4>b3^c3"))
            assert game.awaiting is None  # the mover waits for the answer
            await until(game, lambda: len(game.actions) == 1)
            played = str(game.actions[0])
            assert played == "b4>b3^c3" + ("" if wanted == "-" else wanted)
        finally:
            runner.cancel()

    asyncio.run(main())


def test_hot_seat_asks_the_deciding_person_and_plays_the_turn_with_the_answer():
    game = LocalGame([Player("Gaia"), Player("Ben")], start=parse_position(DOME), time_control=None)
    game.submit(_turn("b4>b3^c3"))
    assert game.awaiting is None
    asked = game.choice_asked
    assert asked is not None
    assert asked[0] == "b4>b3^c3"
    assert asked[1][0] == "-"
    assert "+c2" in asked[1]
    assert not game.actions
    with pytest.raises(IllegalTurnError, match="not a choice here"):
        game.answer_choice("a1")
    game.answer_choice("c2")
    assert [str(a) for a in game.actions] == ["b4>b3^c3+c2"]
    assert game.choice_asked is None
    assert game.awaiting == 0
    assert format_position(game.position).split(" ")[2] == "gaea[1],apollo"


def test_a_computer_mover_waits_for_the_persons_choice():
    def chooses_a_square(position, level, rng, stop):
        return _turn("b4>b3^c3+c4")

    async def main() -> None:
        game = LocalGame(
            [Player("You"), Player("Ben", "easy")],
            start=parse_position(DOME),
            time_control=None,
            chooser=chooses_a_square,
        )
        runner = asyncio.create_task(game.run())
        try:
            await until(game, lambda: game.choice_asked is not None)
            assert game.choice_asked is not None
            assert game.choice_asked[0] == "b4>b3^c3"
            assert not game.actions
            game.answer_choice("-")
            assert [str(a) for a in game.actions] == ["b4>b3^c3"]
        finally:
            runner.cancel()

    asyncio.run(main())


def test_an_answer_that_breaks_the_movers_turn_gives_the_turn_back():
    game = LocalGame(
        [Player("Pam"), Player("Gaia")], start=parse_position(BEFORE), time_control=None
    )
    game.submit(_turn("b2^c2>b3^a3"))
    assert game.choice_asked is not None
    assert game.choice_asked[0] == "b2^c2"
    game.answer_choice("+b3")  # her worker lands where the mover meant to go
    assert not game.actions
    assert game.awaiting == 0
    assert "play your turn on from b2^c2+b3" in game.messages[-1].text
    with pytest.raises(IllegalTurnError, match="must go on from"):
        game.submit(_turn("b2^c2>a3^a4"))
    game.submit(_turn("b2^c2+b3>a2^a3"))
    assert [str(a) for a in game.actions] == ["b2^c2+b3>a2^a3"]
    game.undo()  # the whole turn, choice and all, is taken back
    assert not game.actions
    assert game.awaiting == 0
    assert game.choice_asked is None


def test_an_answer_that_leaves_the_movers_part_whole_plays_it_on():
    game = LocalGame(
        [Player("Pam"), Player("Gaia")], start=parse_position(BEFORE), time_control=None
    )
    game.submit(_turn("b2^c2>b3^a3"))
    game.answer_choice("+b1")
    assert [str(a) for a in game.actions] == ["b2^c2+b1>b3^a3"]


def test_without_a_terminal_the_person_is_asked_on_the_line_prompt(monkeypatch, capsys):
    from santorini_p2p.ui.line_prompt import play_by_lines

    def chooses_a_square(position, level, rng, stop):
        return _turn("b4>b3^c3+c4")

    game = LocalGame(
        [Player("You"), Player("Ben", "easy")],
        start=parse_position(DOME),
        time_control=None,
        chooser=chooses_a_square,
    )
    monkeypatch.setattr("sys.stdin", io.StringIO("a1\nc2\n"))
    finished = asyncio.run(play_by_lines(game))
    out = capsys.readouterr().out
    assert not finished  # standard input ended on the person's own turn
    assert "your power: after b4>b3^c3, put a worker from your card on a square (" in out
    assert "or type - for none: " in out
    assert "'a1' is not a choice here" in out
    assert [str(a) for a in game.actions] == ["b4>b3^c3+c2"]
    assert "seat 1 to move" in out


class _AskedPeer:
    """The parts of a network game the line prompt reads, with this player asked a choice."""

    def __init__(self) -> None:
        self.position = parse_position(DOME)
        self.session = self
        self.stopped = None
        self.is_complete = False
        self.records: list[bytes] = []
        self.takeback_asked = None
        self.objection_asked = None
        self.awaiting = None
        self.answers: list[str] = []
        self.answered = asyncio.Event()
        self._listeners: list = []

    def listen(self, listener):
        self._listeners.append(listener)
        return lambda: None

    @property
    def choice_asked(self):
        return None if self.answers else ("b4>b3^c3", ["-", "+c2", "+d2"])

    def answer_choice(self, answer: str) -> None:
        self.answers.append(answer)
        self.answered.set()
        self.records.append(b"answer")
        for listener in self._listeners:
            listener()


def test_a_network_players_line_prompt_asks_its_choice(monkeypatch, capsys):
    from santorini_p2p.ui.line_prompt import start_prompt

    peer = _AskedPeer()
    monkeypatch.setattr("sys.stdin", io.StringIO("d2\n"))

    async def main() -> None:
        start_prompt(peer)  # type: ignore[arg-type]
        async with asyncio.timeout(10):
            await peer.answered.wait()

    asyncio.run(main())
    out = capsys.readouterr().out
    assert "your power: after b4>b3^c3, put a worker from your card on a square (c2, d2)" in out
    assert peer.answers == ["d2"]


def test_a_turn_with_no_choice_in_it_is_played_without_listing_every_turn(monkeypatch):
    """Heracles against Gaea has a million turns: a plain turn must not wait for their list."""

    def every_turn(*args: object) -> object:
        raise AssertionError("every turn of the position was listed")

    monkeypatch.setattr("santorini_p2p.engine.choices.legal_turns", every_turn)
    monkeypatch.setattr("santorini_p2p.engine.rules._generate", every_turn)
    game = LocalGame([Player("Gaia"), Player("Ben")], start=parse_position(DOME), time_control=None)
    with pytest.raises(IllegalTurnError):
        game.submit(_turn("b4>b3^b2"))  # a build under Gaea's worker
    game.submit(_turn("b4>b3^a3"))  # a block, no dome: nothing for Gaea to choose
    assert [str(a) for a in game.actions] == ["b4>b3^a3"]
    assert game.choice_asked is None
