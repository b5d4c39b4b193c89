"""Takeback requests in network games (SPEC.md 8.2), over the in-memory link of ``harness.py``."""

from __future__ import annotations

import pytest

from santorini_p2p.engine import Phase, legal_actions
from santorini_p2p.errors import IllegalTurnError
from santorini_p2p.replay.export_text import export_text
from santorini_p2p.replay.timeline import read_timeline
from santorini_p2p.replay.verify import verify_bytes, verify_text
from santorini_p2p.wire.log import read_log
from santorini_p2p.wire.messages import Accept, Offer
from tests.net.harness import Net

pytestmark = pytest.mark.usefixtures("no_fsync")


def _game(tmp_path, players: int = 2, turns: int = 2) -> Net:
    """A game allowing takebacks, stopped after ``turns`` turns of play with every ack in."""
    net = Net.create(tmp_path, players, seed=11, options=("takeback",))
    for _ in range(5_000):
        v = net.sessions[0].validator
        playing = v is not None and v.position is not None and v.position.phase is Phase.PLAY
        if playing and v.turns >= turns and not v.pending_acks:
            break
        net.step()
    net.bots = False
    for _ in range(20):
        net.step()
    return net


def _mover(net: Net) -> tuple[int, int]:
    """The session index of the last turn's mover and of the next seat to move."""
    v = net.sessions[0].validator
    assert v is not None
    assert v.last_turn is not None
    seat = v.last_turn[0]
    keys = [s.identity.public_key for s in net.sessions]
    nxt = v.position.to_move
    return keys.index(v.seats[seat]), keys.index(v.seats[nxt])


def _notes(net: Net, i: int) -> list[str]:
    return [n.text for n in net.sessions[i].notes]


def _finish(net: Net) -> bytes:
    net.bots = True
    net.run()
    data = net.journals()
    assert all(d == data[0] for d in data), net.summary()
    assert verify_bytes(data[0]).ok
    return data[0]


def test_an_accepted_takeback_goes_back_a_turn_on_every_peer_and_is_in_the_replay(tmp_path):
    net = _game(tmp_path)
    asker, other = _mover(net)
    v = net.sessions[0].validator
    turn = v.last_turn[1]
    hash_before = _hash_before_last_turn(net)
    assert net.sessions[other].takeback_asked is None
    net.sessions[asker].ask_takeback()
    for _ in range(5):
        net.step()
    name = net.sessions[asker].identity.name
    assert f"{name} asks to take back {turn}: accept (y) / refuse (n)" in _notes(net, other)
    assert net.sessions[other].takeback_asked is not None
    net.sessions[other].answer_takeback(True)
    for _ in range(5):
        net.step()
    for s in net.sessions:
        assert s.validator.state_hash == hash_before
    seat = net.sessions[asker].validator.seat_of(net.sessions[asker].identity.public_key)
    assert net.sessions[asker].awaiting == seat
    assert net.sessions[other].awaiting is None
    assert any(n.startswith(f"Taken back: {turn}.") for n in _notes(net, asker))
    data = _finish(net)
    t = read_timeline(data)
    kinds = [(s.kind, s.text) for s in t.steps]
    at = kinds.index(("offer", f"asks to take back {turn}"))
    assert kinds[at - 1] == ("act", turn)
    assert kinds[at + 1] == ("accept", f"accepts the takeback: {turn} is taken back")
    assert t.steps[at + 1].state_hash == hash_before
    assert t.turns == read_log(data).turns
    # The text export numbers the game as the Turns panel does: the request and the
    # acceptance are unnumbered notes, and the turn played again takes the undone one's number.
    text = export_text(t)
    lines = text.split("\n")
    undone = lines.index(f"- seat {t.steps[at].seat + 1}: asks to take back {turn}") - 1
    n = lines[undone].split(".", 1)[0]
    assert lines[undone].startswith(f"{n}. seat {t.steps[at - 1].seat + 1}: {turn} {{")
    assert lines[undone + 1] == f"- seat {t.steps[at].seat + 1}: asks to take back {turn}"
    assert lines[undone + 2] == (
        f"- seat {t.steps[at + 1].seat + 1}: accepts the takeback: {turn} is taken back"
    )
    assert lines[undone + 3].startswith(f"{n}. seat ")
    assert verify_text(text.encode()).ok
    old = export_text(t, 1)  # format 1 numbers every line, as before
    m = t.steps[at].number
    assert f"{m}. seat {t.steps[at].seat + 1}: asks to take back {turn}\n" in old
    assert verify_text(old.encode()).ok


def _hash_before_last_turn(net: Net) -> bytes:
    v = net.sessions[0].validator
    seq = max(r.index for r in v.records if type(r.message).__name__ == "Act")
    # The state after the record before the last act: fold the log up to it.
    from santorini_p2p.wire.log import validate

    return validate(r.raw for r in v.records[:seq]).state_hash


def test_a_refused_takeback_lapses_when_the_opponent_moves(tmp_path):
    net = _game(tmp_path)
    asker, other = _mover(net)
    net.sessions[asker].ask_takeback()
    for _ in range(5):
        net.step()
    net.sessions[other].answer_takeback(False)
    assert net.sessions[other].takeback_asked is None
    with pytest.raises(IllegalTurnError, match="no takeback request"):
        net.sessions[other].answer_takeback(True)
    data = _finish(net)
    assert any("takeback of" in n and "lapsed" in n for n in _notes(net, asker))
    msgs = [r.message for r in read_log(data).records]
    assert any(isinstance(m, Offer) and m.kind == "takeback" for m in msgs)
    assert not any(isinstance(m, Accept) for m in msgs)


def test_only_the_last_mover_may_ask_and_only_when_the_game_allows_it(tmp_path):
    net = _game(tmp_path)
    _, other = _mover(net)
    with pytest.raises(IllegalTurnError, match="no turn of yours"):
        net.sessions[other].ask_takeback()
    plain = Net.create(tmp_path / "plain", 2, seed=3)
    for _ in range(400):
        plain.step()
    v = plain.sessions[0].validator
    assert v.header.protocol == 1
    with pytest.raises(IllegalTurnError, match="allows no takebacks"):
        plain.sessions[0].ask_takeback()


def test_a_takeback_asked_before_the_acks_goes_out_once_they_are_in(tmp_path):
    net = _game(tmp_path)
    _, mover = _mover(net)
    me = net.sessions[mover]
    me.submit(legal_actions(me.position)[0])
    v = me.validator
    assert v.pending_acks  # nobody has acknowledged the turn yet
    turn = v.last_turn[1]
    me.ask_takeback()  # no refusal: the offer waits for the acks
    with pytest.raises(IllegalTurnError, match="waiting for an answer"):
        me.ask_takeback()
    for _ in range(10):
        net.step()
    others = [s for i, s in enumerate(net.sessions) if i != mover]
    for s in others:
        asked = s.takeback_asked
        assert asked is not None, net.summary()
        assert asked.turn == turn
    offers = [r for r in me.validator.records if isinstance(r.message, Offer)]
    assert len(offers) == 1  # asked twice, offered once


def test_a_computer_player_answers_by_itself(tmp_path):
    net = _game(tmp_path)
    asker, other = _mover(net)
    net.sessions[other].takeback_answer = True
    hash_before = _hash_before_last_turn(net)
    net.sessions[asker].ask_takeback()
    for _ in range(5):
        net.step()
    assert net.sessions[asker].validator.state_hash == hash_before
    assert any("the computer accepts" in n for n in _notes(net, other))
    _finish(net)


@pytest.mark.parametrize("host_asks", [True, False])
def test_a_request_racing_the_next_act_is_settled_by_the_host(tmp_path, host_asks):
    net = _game(tmp_path)
    asker, other = _mover(net)
    if (asker == 0) != host_asks:
        # One more turn, so that the other peer is the last mover.
        net.sessions[other].submit(legal_actions(net.sessions[other].position)[0])
        for _ in range(10):
            net.step()
        asker, other = _mover(net)
    assert (asker == 0) == host_asks
    # Both write record N at once: the asker its offer, the other its act.
    net.sessions[asker].ask_takeback()
    p = net.sessions[other].position
    net.sessions[other].submit(legal_actions(p)[0])
    for _ in range(10):
        net.step()
    assert not any(s.stopped for s in net.sessions), net.summary()
    if host_asks:
        # The host's offer stands; the joiner's act is taken back and it is asked.
        assert net.sessions[other].takeback_asked is not None
        net.sessions[other].answer_takeback(True)
    else:
        assert any("Too late to take back" in n for n in _notes(net, asker))
    _finish(net)


@pytest.mark.parametrize("players", [2, 3])
def test_a_refused_takeback_is_told_to_the_asker_and_everyone_else(tmp_path, players):
    """A refusal writes no record: a frame signed by the refusing seat tells every peer, once,
    and the replay is the same as without it."""
    net = _game(tmp_path, players)
    watcher = net.watch("eve")
    for _ in range(60):
        net.step()
    asker, other = _mover(net)
    v = net.sessions[0].validator
    turn = v.last_turn[1]
    net.sessions[asker].ask_takeback()
    for _ in range(5):
        net.step()
    net.sessions[other].answer_takeback(False)
    for _ in range(5):
        net.step()
    name = net.sessions[other].identity.name
    told = f"{name} refused the takeback of {turn}."
    for i in range(players):
        if i != other:
            assert _notes(net, i).count(told) == 1, _notes(net, i)
    assert told not in _notes(net, other)  # it says "You refuse the takeback" instead
    assert [n.text for n in watcher.notes].count(told) == 1
    _finish(net)


def test_a_refusal_signed_by_another_key_or_for_another_seat_is_dropped(tmp_path):
    from santorini_p2p.net.frames import Refused, encode_frame, sign_refused
    from santorini_p2p.net.session import HOST_ID

    net = _game(tmp_path)
    asker, other = _mover(net)
    net.sessions[asker].ask_takeback()
    for _ in range(5):
        net.step()
    s = net.sessions[asker]
    offer = s.validator.takeback_offer
    assert offer is not None
    # The asker's own key cannot refuse its own offer; a signature over another offer fails.
    own = sign_refused(s.identity, s.game_id, offer.seq)
    real = sign_refused(net.sessions[other].identity, s.game_id, offer.seq)
    moved = Refused(real.game_id, real.index - 1, real.key, real.signature)
    dropped = s.dropped
    for frame in (own, moved):
        s.receive(HOST_ID if asker else bytes([other]), encode_frame(frame))
    assert s.dropped == dropped + 2
    assert not any("refused the takeback" in n for n in _notes(net, asker))
