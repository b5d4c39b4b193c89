"""A person's seat at the secret table on a line prompt, and the lines the view prints."""

from __future__ import annotations

import asyncio
import io
import random

import pytest

from santorini_p2p.engine import Position, legal_actions, legal_turns
from santorini_p2p.engine.party import PARTY_POOL
from santorini_p2p.net.secrettable import PartyBot, SecretBot, SecretPeer, play_table
from santorini_p2p.ui import table_view
from santorini_p2p.ui.table_view import (
    LinePartyPlayer,
    LineSecretPlayer,
    TableView,
    _Lines,
    gods_line,
)
from santorini_p2p.wire.secretgame import Object


def test_the_gods_line_names_known_gods_and_hides_the_rest() -> None:
    assert gods_line(("athena", "", ""), 0) == "gods: seat 1 athena (you), seat 2 ?, seat 3 ?"
    assert gods_line(("", "pan"), 0) == "gods: seat 1 ? (you), seat 2 pan"


def test_standard_input_lines_arrive_and_its_end_is_none(monkeypatch) -> None:
    monkeypatch.setattr("sys.stdin", io.StringIO("a1\ny\n"))
    lines = _Lines()
    got: list[str | None] = []
    while len(got) < 3:
        line = lines.queue.get(timeout=5)
        got.append(line)
    assert got == ["a1\n", "y\n", None]


def test_a_person_with_a_hidden_restricting_god_is_asked_and_objects(
    monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    """Both gods restrict the opponent (athena, hera): the person is asked, answers y."""
    rng = random.Random(7)
    asked: list[str] = []

    def answer(self: object, key: object, prompt: str, board: Position | None = None) -> str:
        del self, key
        asked.append(prompt)
        if "object" in prompt:
            return "y"
        assert board is not None
        if "placement" in prompt:
            return str(rng.choice(legal_actions(board)))
        return str(rng.choice(legal_turns(board)))

    monkeypatch.setattr(table_view._Asker, "ask", answer)
    views: dict[int, TableView] = {}

    def show(peer: SecretPeer) -> None:
        view = views.setdefault(id(peer), TableView(peer, out=lambda _t: None))
        if isinstance(peer.bot, LineSecretPlayer):
            view.out = print
        view.show(peer)

    for attempt in range(6):
        asked.clear()
        bots = [LineSecretPlayer(0, b"person%d" % attempt), SecretBot(1, b"bot%d" % attempt)]
        views.clear()
        peers = asyncio.run(
            play_table(bots, ("athena", "hera"), clock=5.0, limit=120.0, on_record=show)
        )
        person = next(p for p in peers if isinstance(p.bot, LineSecretPlayer))
        me = person.bot.seat
        objected = [r for r in person.records if isinstance(r, Object) and r.seat == me]
        if objected:
            break
    else:
        pytest.fail("no objection in six games")
    out = capsys.readouterr().out
    assert person.game is not None
    assert person.game.result is not None
    mine = person.bot.god
    assert f"your god is {mine}" in out
    assert f"seat {me + 1} {mine} (you), seat {2 - me} ?" in out or (
        f"seat {2 - me} ?, seat {me + 1} {mine} (you)" in out
    )
    assert any("breaks your hidden" in q and "object and reveal" in q for q in asked)
    assert any(q.startswith("your turn (") for q in asked)
    assert "objects and reveals" in out
    assert "plays again" in out
    # The voided turn was played again: the next record after the objection is the mover's.
    at = person.records.index(objected[0])
    assert person.records[at + 1].seat == 1 - me
    assert objected[0].god == mine


def test_a_person_plays_party_and_sees_the_cards_pass(
    monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    rng = random.Random(3)
    asked: list[str] = []

    def answer(self: object, key: object, prompt: str, board: Position | None = None) -> str:
        del self, key
        asked.append(prompt)
        assert board is not None
        if "placement" in prompt:
            return str(rng.choice(legal_actions(board)))
        return str(rng.choice(legal_turns(board)))

    monkeypatch.setattr(table_view._Asker, "ask", answer)
    views: dict[int, TableView] = {}

    def show(peer: SecretPeer) -> None:
        if isinstance(peer.bot, LinePartyPlayer):
            views.setdefault(id(peer), TableView(peer)).show(peer)

    bots = [LinePartyPlayer(0, b"pp"), PartyBot(1, b"pb1"), PartyBot(2, b"pb2")]
    peers = asyncio.run(
        play_table(
            bots, PARTY_POOL, clock=5.0, limit=120.0, options=("party", "pass=1"), on_record=show
        )
    )
    person = peers[0]
    assert person.game is not None
    assert person.game.result is not None
    out = capsys.readouterr().out
    assert "table: Party (the cards pass every 1 turns), 3 players; you are seat 1" in out
    assert any(q.startswith("your placement") for q in asked)
    turns = [q for q in asked if q.startswith("your turn (")]
    assert turns
    passes = out.count("the cards pass to the next player after turn")
    assert passes == len(person.game.passes)
    # Each turn prompt names the god the person holds at that moment.
    held = {q.split("(")[1].split(";")[0] for q in turns}
    assert held <= set(PARTY_POOL)
