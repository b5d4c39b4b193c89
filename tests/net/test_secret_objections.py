"""A person asked before objecting to a turn that breaks its hidden god (protocol/SECRET.md
7.3): object and reveal, or accept the turn (the signed ack waives the rule for it), within a
bounded time, with the session going on meanwhile. Over the in-memory link of
``tests.net.harness``; the line prompt over 127.0.0.1 is in ``test_secret_loopback``."""

from __future__ import annotations

import pytest

from santorini_p2p.errors import IllegalTurnError
from santorini_p2p.net.secretseat import OBJECTION_MS
from santorini_p2p.replay.verify import verify_bytes
from santorini_p2p.wire.log import read_log
from santorini_p2p.wire.messages import Ack, Act, Forfeit, Object
from santorini_p2p.wire.secretgame import DEFAULT_POOL
from tests.net.harness import Net

SECRET = ("chat", "secret")


def _net(tmp_path, seed: int) -> Net:
    net = Net.create(tmp_path, 2, "random", pool=DEFAULT_POOL, options=SECRET, seed=seed)
    for s in net.sessions:
        s.ask_objections = True
    return net


def _until_asked(net: Net) -> int:
    """Step until a player is asked; return which."""
    for _ in range(20_000):
        for i, s in enumerate(net.sessions):
            if s.objection_asked is not None:
                return i
        assert not net.done(), "the game ended with no objection asked"
        net.step()
    raise AssertionError(net.summary())


def _play_out(net: Net) -> None:
    """Play to the end, each player objecting whenever asked."""
    for _ in range(20_000):
        if net.done():
            assert not any(s.stopped for s in net.sessions), net.summary()
            return
        for s in net.sessions:
            if s.objection_asked is not None:
                s.answer_objection(True)
        net.step()
    raise AssertionError(net.summary())


def _identical_and_verified(net: Net) -> bytes:
    data = net.journals()
    assert all(d == data[0] for d in data), net.summary()
    assert verify_bytes(data[0]).ok
    return data[0]


def test_a_person_waives_once_then_objects_and_the_log_holds_both(tmp_path):
    net = _net(tmp_path, 3)
    i = _until_asked(net)
    asker = net.sessions[i]
    god = asker.own_god
    question = asker.objection_asked
    assert question is not None
    v = asker.validator
    assert v is not None
    act = v.record(v.next_seq - 1)
    assert isinstance(act.message, Act)
    mover = v.names[act.seat]
    assert question == (
        f"{mover}'s turn {act.message.action} breaks your hidden {god}: object and reveal it "
        f"(y), or accept the turn (n)? ({OBJECTION_MS // 1000} s, then the turn is accepted)"
    )
    told = (
        f"{mover}'s turn {act.message.action} breaks your hidden {god}: y objects and reveals "
        "it, n accepts the turn."
    )
    assert any(n.text == told for n in asker.notes)
    # Nothing waits on the person: the game goes on around the open question, the ack unsent.
    waiting = v.next_seq
    for _ in range(100):
        net.step()
    assert asker.objection_asked is not None
    assert net.sessions[0].validator.next_seq == waiting
    assert all(s.stopped is None for s in net.sessions)
    # Accepting the turn waives the rule: the ack is signed, the god stays hidden.
    asker.answer_objection(False)
    ack = v.record(waiting)
    assert isinstance(ack.message, Ack)
    assert ack.message.acked == act.index
    assert v.secret is not None
    assert not v.secret.gods[v.seat_of(asker.identity.public_key)]
    assert "You waive" in asker.notes[-1].text
    with pytest.raises(IllegalTurnError, match="no turn awaits your objection"):
        asker.answer_objection(True)
    # The next time, the person objects: the turn is void, the god revealed.
    j = _until_asked(net)
    asker = net.sessions[j]
    v = asker.validator
    assert v is not None
    act = v.record(v.next_seq - 1)
    asker.answer_objection(True)
    objection = v.record(act.index + 1)
    assert isinstance(objection.message, Object)
    assert objection.message.objected == act.index
    assert objection.message.god == asker.own_god
    _play_out(net)
    data = _identical_and_verified(net)
    records = read_log(data).records
    assert isinstance(records[waiting].message, Ack)
    assert isinstance(records[objection.index].message, Object)


def test_an_unanswered_question_is_answered_by_accepting_the_turn_before_any_forfeit(
    tmp_path,
):
    net = _net(tmp_path, 3)
    i = _until_asked(net)
    asker = net.sessions[i]
    v = asker.validator
    assert v is not None
    waiting = v.next_seq
    for _ in range(OBJECTION_MS // 1000 - 1):
        net.step(1000)
    question = asker.objection_asked
    assert question is not None
    assert question.endswith("(1 s, then the turn is accepted)")
    for _ in range(3):
        net.step(1000)
    # Accepted for the person (the game went on: a later turn may be asked about afresh).
    asked = asker.objection_asked
    assert asked is None or asked.split(" breaks ")[0] != question.split(" breaks ")[0]
    assert isinstance(v.record(waiting).message, Ack)
    assert any(
        n.text == f"No answer in {OBJECTION_MS // 1000} s: the turn is accepted."
        for n in asker.notes
    )
    _play_out(net)
    data = _identical_and_verified(net)
    assert not any(isinstance(r.message, Forfeit) for r in read_log(data).records)


def test_a_computer_seat_objects_at_once(tmp_path):
    net = Net.create(tmp_path, 2, "random", pool=DEFAULT_POOL, options=SECRET, seed=3)
    net.run()
    data = _identical_and_verified(net)
    assert any(isinstance(r.message, Object) for r in read_log(data).records)
    assert all(s.objection_asked is None for s in net.sessions)
