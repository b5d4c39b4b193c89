"""A player who resigns or runs out of time in a secret-gods game of 3 or 4 players leaves as
at a real table (protocol/SECRET.md 8.1): with 3 the others play on and the last one left
wins, with 4 the leaver's side loses; the leaver's hidden god is still opened for the audit at
the end, or, withheld, is forfeited without changing the result. Over the in-memory link of
``tests.net.harness``."""

from __future__ import annotations

import pytest

from santorini_p2p.engine import Phase
from santorini_p2p.errors import IllegalTurnError
from santorini_p2p.net.clock import TimeControl
from santorini_p2p.net.secretseat import OWED_MS
from santorini_p2p.net.session import GRACE_MS
from santorini_p2p.replay.timeline import read_timeline
from santorini_p2p.replay.verify import verify_bytes
from santorini_p2p.wire.log import read_log
from santorini_p2p.wire.messages import Act, Forfeit, Open, Resign, Result, Timeout
from santorini_p2p.wire.secretgame import DEFAULT_POOL
from tests.net.harness import Net

SECRET = ("chat", "secret")


def _net(tmp_path, players: int, seed: int, time: TimeControl | None = None) -> Net:
    return Net.create(
        tmp_path, players, "random", pool=DEFAULT_POOL, options=SECRET, seed=seed, time=time
    )


def _play_turns(net: Net, turns: int) -> None:
    """Step until ``turns`` turns of play are in the host's log."""
    for _ in range(20_000):
        v = net.sessions[0].validator
        if v is not None and v.secret is not None and v.turns >= turns and not v.pending_acks:
            return
        net.step()
    raise AssertionError(net.summary())


def _identical_and_verified(net: Net) -> bytes:
    data = net.journals()
    assert all(d == data[0] for d in data), net.summary()
    assert read_log(data[0]).is_complete
    report = verify_bytes(data[0])
    assert report.ok, report
    return data[0]


def _seat(net: Net, i: int) -> int:
    v = net.sessions[0].validator
    assert v is not None
    seat = v.seat_of(net.sessions[i].identity.public_key)
    assert seat is not None
    return seat


def test_three_players_a_resigning_seat_leaves_and_the_others_play_on(tmp_path):
    net = _net(tmp_path, 3, 2)
    _play_turns(net, 1)
    quitter = _seat(net, 2)
    v = net.sessions[0].validator
    assert v is not None
    assert v.secret is not None
    assert not v.secret.gods[quitter]  # this seed's leaver has kept its god hidden
    net.sessions[2].resign()
    for _ in range(1_000):
        if any(isinstance(r.message, Resign) for r in net.sessions[2].records):
            break
        net.step()
    with pytest.raises(IllegalTurnError, match="you are out of the game"):
        net.sessions[2].resign()
    net.run()
    assert not any(s.stopped for s in net.sessions), net.summary()
    data = _identical_and_verified(net)
    v = read_log(data)
    # Each player is told: the leaver that it is out and its god hidden till the audit.
    name = v.names[quitter]
    said = [[n.text for n in s.notes] for s in net.sessions]
    assert (
        "You are out of the game (your god stays hidden until the audit at the end); "
        "play goes on." in said[2]
    )
    for notes in said[:2]:
        assert (
            f"{name} is out of the game (its god stays hidden until the audit at the end); "
            "play goes on." in notes
        )
    records = v.records
    [resign] = [r for r in records if isinstance(r.message, Resign)]
    assert resign.seat == quitter
    # Play went on after the resignation, between the two players left.
    after = [r for r in records[resign.index :] if isinstance(r.message, Act)]
    assert after
    assert all(r.seat != quitter for r in after)
    g = v.secret
    assert g is not None
    assert g.left == 1 << quitter
    # The leaver's god stayed hidden, and is opened for the audit once the public game is over.
    assert g.gods[quitter] == net.sessions[2].own_god
    [opened] = [r for r in records if isinstance(r.message, Open) and r.seat == quitter]
    assert opened.index > after[-1].index
    assert v.result is not None
    winner, reason = v.result
    assert winner not in (-1, quitter)
    assert reason in ("win", "fault")
    assert [type(r.message) for r in records[-3:]] == [Result] * 3
    # The export tells the leaving and the winner.
    t = read_timeline(data)
    assert t.result == v.result
    assert [s.seat for s in t.steps if s.kind == "resign"] == [quitter]
    assert t.result_text == f"{v.names[winner]} won"


def test_four_players_a_resignation_loses_for_the_side_after_the_audit(tmp_path):
    net = _net(tmp_path, 4, 5)
    _play_turns(net, 3)
    quitter = _seat(net, 1)
    net.sessions[1].resign()
    net.run()
    assert not any(s.stopped for s in net.sessions), net.summary()
    data = _identical_and_verified(net)
    v = read_log(data)
    g = v.secret
    assert g is not None
    assert all(g.gods)  # every god open for the audit
    assert v.result is not None
    winner, reason = v.result
    if reason == "resign":
        assert winner % 2 != quitter % 2  # the other side wins
    else:  # the audit found a fault before the resignation
        assert reason == "fault"
    # The resignation is followed by the openings the audit needs, then the results.
    records = v.records
    [resign] = [r for r in records if isinstance(r.message, Resign)]
    rest = {type(r.message) for r in records[resign.index + 1 :]}
    assert rest <= {Open, Result}


def test_three_players_a_seat_out_of_time_leaves_and_its_withheld_opening_is_forfeited(
    tmp_path,
):
    net = _net(tmp_path, 3, 2, time=TimeControl(2000, 0))
    _play_turns(net, 1)
    host = net.sessions[0]
    v = host.validator
    assert v is not None
    assert v.position is not None
    gone_seat = v.position.to_move
    gone = next(i for i in range(3) if _seat(net, i) == gone_seat)
    assert gone != 0  # this seed's seat to move is a joiner's
    assert v.secret is not None
    assert not v.secret.gods[gone_seat]
    # The seat to move vanishes: the others claim its time and play on without it.
    net.down.add(gone)
    for _ in range(20_000):
        g = v.secret
        if g is not None and (g.position.phase is Phase.OVER or g.result is not None):
            break
        net.step(100)
    [claim] = [r for r in v.records if isinstance(r.message, Timeout)]
    assert claim.message.seat == gone_seat
    assert any(isinstance(r.message, Act) for r in v.records[claim.index :])
    g = v.secret
    assert g is not None
    assert g.left == 1 << gone_seat
    assert g.result is None
    # Its opening is owed at the end; it sends none, is forfeited, and the result stands.
    for _ in range(200):
        if v.pending_acks == (gone_seat,):
            break
        net.step(100)
    for _ in range(50):
        net.step()  # every honest opening reaches every peer; the leaver's is owed
    assert v.pending_acks == (gone_seat,)
    for _ in range((OWED_MS + GRACE_MS) // 1000 + 5):
        net.step(1000)  # the first seat in the game signs the forfeit; it reaches the host
    [forfeit] = [r.message for r in v.records if isinstance(r.message, Forfeit)]
    assert forfeit.late == gone_seat
    assert v.result is not None
    winner, reason = v.result
    assert winner not in (-1, gone_seat)
    assert reason in ("win", "time")
    assert v.secret is not None
    assert not v.secret.gods[gone_seat]
    # It comes back for the results: every copy is the same, and verifies.
    net.down.clear()
    net.run(ms=100)
    data = _identical_and_verified(net)
    assert read_timeline(data).result == v.result


def _play_turns_plain(net: Net, turns: int) -> None:
    for _ in range(20_000):
        v = net.sessions[0].validator
        if v is not None and v.turns >= turns and not v.pending_acks:
            return
        net.step()
    raise AssertionError(net.summary())


def test_party_with_three_a_resigning_seat_leaves_and_the_cards_pass_among_the_others(tmp_path):
    from santorini_p2p.engine.party import PARTY_POOL

    net = Net.create(tmp_path, 3, "random", pool=PARTY_POOL, options=("party", "pass=2"), seed=5)
    _play_turns_plain(net, 1)
    quitter = _seat(net, 2)
    net.sessions[2].resign()
    net.run()
    assert not any(s.stopped for s in net.sessions), net.summary()
    data = _identical_and_verified(net)
    v = read_log(data)
    [resign] = [r for r in v.records if isinstance(r.message, Resign)]
    assert resign.seat == quitter
    assert any(isinstance(r.message, Act) for r in v.records[resign.index :])
    t = read_timeline(data)
    # After the leaving the cards pass between the two players left: the leaver's card left
    # with it, and neither moves on nor comes back.
    kept = next(s for s in t.steps if s.record == resign.index).position.gods[quitter]
    later = [s for s in t.steps if s.kind == "pass" and s.record > resign.index]
    assert later
    for s in later:
        before = t.steps[s.number - 2].position
        assert s.position.gods[quitter] == kept
        others = [x for x in range(3) if x != quitter]
        assert {s.position.gods[x] for x in others} == {before.gods[x] for x in others}
        assert all(s.position.gods[x] != before.gods[x] for x in others)
    assert v.result is not None
    assert v.result[0] not in (-1, quitter)


def test_agora_a_resigning_player_leaves_and_the_partner_plays_on(tmp_path):
    from santorini_p2p.engine.party import AGORA_GODS

    net = Net.create(tmp_path, 4, "random", pool=AGORA_GODS, options=("agora",), seed=5)
    _play_turns_plain(net, 2)
    quitter = _seat(net, 1)
    net.sessions[1].resign()
    net.run()
    assert not any(s.stopped for s in net.sessions), net.summary()
    data = _identical_and_verified(net)
    v = read_log(data)
    [resign] = [r for r in v.records if isinstance(r.message, Resign)]
    assert resign.seat == quitter
    partner = (quitter + 2) % 4
    later = [r.seat for r in v.records[resign.index :] if isinstance(r.message, Act)]
    assert partner in later  # the partner plays on, alone on the pair's turns
    assert quitter not in later
    assert v.result is not None
    assert v.result[0] not in (-1, quitter)
