"""A computer seat in a correspondence game answers a draw offer in its next block.

It takes the draw when its evaluation says it stands clearly worse, and otherwise says so in a
chat line and plays on; each offer is answered once, however often its block is read.
"""

from __future__ import annotations

import json
from pathlib import Path
from unittest import mock

import pytest

from santorini_p2p.ai import takes_offer
from santorini_p2p.engine import legal_actions, new_game
from santorini_p2p.net.post import find_game
from santorini_p2p.replay.verify import verify_file
from santorini_p2p.wire.identity import load_or_create_identity
from tests.net.test_post import run_cli
from tests.positions import make

pytestmark = pytest.mark.timeout(300)


def test_the_computer_takes_a_draw_only_when_it_stands_clearly_worse():
    # Seat 1 to move steps up onto level 3 from b2: a win now. Seat 2 is lost.
    p = make("b2=2A c3=3 e5=A a5=B e1=B", seat=1)
    assert takes_offer(p, 1, "easy", nodes=4_000)
    assert not takes_offer(p, 0, "easy", nodes=4_000)
    # Seat 2 to move wins the same way; seat 1 is the one that takes the draw.
    q = make("b2=2B c3=3 e5=B a5=A e1=A", seat=2)
    assert takes_offer(q, 0, "easy", nodes=4_000)
    assert not takes_offer(q, 1, "easy", nodes=4_000)


def test_the_computer_plays_on_from_an_even_start_and_before_play():
    p = make("b2=A d4=A b4=B d2=B", seat=1)
    for level in ("random", "easy", "medium", "hard"):
        assert not takes_offer(p, 0, level, nodes=4_000), level
        assert not takes_offer(p, 1, level, nodes=4_000), level
    assert not takes_offer(new_game(2), 1, "easy")


def _pass(home: Path, block: Path, out: Path, *bot: str) -> str:
    """``post read BLOCK -o OUT`` in ``home``; its output."""
    out.unlink(missing_ok=True)
    code, text, err = run_cli(home, "post", "read", str(block), *bot, "-o", str(out))
    assert code == 0, err
    return text


def _to_play(tmp_path: Path) -> tuple[Path, Path, Path]:
    """Alice (a person) and a computer Bob until Alice is to move in play; her last block in."""
    alice, bob = tmp_path / "alice", tmp_path / "bob"
    load_or_create_identity(alice, "alice")
    load_or_create_identity(bob, "bob")
    code, _, err = run_cli(alice, "post", "new", "-o", str(tmp_path / "inv.txt"))
    assert code == 0, err
    _pass(bob, tmp_path / "inv.txt", tmp_path / "b.txt", "--bot", "easy")
    for _ in range(12):
        _pass(alice, tmp_path / "b.txt", tmp_path / "a.txt")
        game = find_game(alice, load_or_create_identity(alice), None)
        p = game.position
        if game.my_turn and p is not None and p.phase.name == "PLAY":
            return alice, bob, tmp_path / "a.txt"
        if game.my_turn:
            action = str(legal_actions(p)[0])
            code, _, err = run_cli(alice, "post", "play", action, "-o", str(tmp_path / "a.txt"))
            assert code == 0, err
        if (tmp_path / "a.txt").exists():
            _pass(bob, tmp_path / "a.txt", tmp_path / "b.txt")
    raise AssertionError("the game never reached play")


def _move_and_offer(alice: Path, out: Path) -> None:
    game = find_game(alice, load_or_create_identity(alice), None)
    turn = str(legal_actions(game.position)[0])
    code, _, err = run_cli(alice, "post", "play", turn, "-o", str(out))
    assert code == 0, err
    code, out_text, err = run_cli(alice, "post", "play", "draw", "-o", str(out))
    assert code == 0, err
    assert "alice: offers a draw" in out_text


def test_a_computer_seat_declines_a_draw_it_need_not_take_and_plays_on(tmp_path):
    alice, bob, _ = _to_play(tmp_path)
    offer = tmp_path / "offer.txt"
    _move_and_offer(alice, offer)
    reply = tmp_path / "reply.txt"
    said = _pass(bob, offer, reply)
    assert "bob: says: No draw, thank you: the computer plays on." in said
    # Its next action is in the same block: the offer is withdrawn, the game goes on.
    seen = _pass(alice, reply, tmp_path / "a2.txt")
    assert "bob: says: No draw, thank you: the computer plays on." in seen
    assert "your turn" in seen
    code, _, err = run_cli(alice, "post", "play", "accept", "-o", str(tmp_path / "x.txt"))
    assert code == 1
    assert "no open offer" in err
    # The offer's block read again answers nothing new: no second chat line.
    again = _pass(bob, offer, tmp_path / "again.txt")
    assert "already read; nothing new" in again
    assert "No draw" not in again


def test_a_computer_seat_that_stands_worse_takes_the_draw_and_the_game_ends_drawn(tmp_path):
    alice, bob, _ = _to_play(tmp_path)
    offer = tmp_path / "offer.txt"
    _move_and_offer(alice, offer)
    # A computer that judges every position worse than even takes every draw.
    with mock.patch("santorini_p2p.ai.offers.TAKE_BELOW", 1.01):
        said = _pass(bob, offer, tmp_path / "r0.txt")
    assert "bob: accepts the draw offer" in said
    block, reader, other = tmp_path / "r0.txt", alice, bob
    for n in range(1, 4):
        out = tmp_path / f"r{n}.txt"
        _pass(reader, block, out)
        if not out.exists():
            break
        block, reader, other = out, other, reader
    replays = []
    for home in (alice, bob):
        _, out_text, _ = run_cli(home, "post", "list", "--json")
        (game,) = json.loads(out_text)
        assert game["turn"] == "over"
        assert game["result"] == "drawn by agreement"
        replays.append(Path(game["replay"]))
    assert replays[0].read_bytes() == replays[1].read_bytes()
    assert verify_file(replays[0]).ok
