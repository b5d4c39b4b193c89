"""The rematch vote and the rematch itself, over the in-memory link (SESSION.md 10)."""

from __future__ import annotations

from dataclasses import replace

import pytest

from santorini_p2p.net.frames import encode_frame, sign_rematch
from santorini_p2p.net.rematch import (
    RematchVote,
    Verdict,
    header_check,
    next_start,
    rematch_save_path,
    rematch_settings,
)
from santorini_p2p.net.session import HOST_ID, Session
from santorini_p2p.net.trust import KnownPeers
from santorini_p2p.wire.framing import read_log
from tests.net.harness import Net, identity


def finished(tmp_path, players=2, gods="none", seed=3) -> Net:
    net = Net.create(tmp_path, players, gods, seed=seed)
    net.run()
    assert all(s.is_complete for s in net.sessions), net.summary()
    return net


def votes(net: Net) -> list[RematchVote]:
    out = []
    for s in net.sessions:
        assert s.validator is not None
        assert s.validator.header is not None
        out.append(
            RematchVote(
                s.identity, s.validator.header, s.proven_links(), is_host=s.is_host, now=net.clock
            )
        )
    return out


def pump(net: Net, vs: list[RematchVote], steps: int = 200) -> None:
    """Carry the votes' frames (host index 0), ticking, until every vote is done."""
    for _ in range(steps):
        net.clock.ms += 50
        for v in vs:
            v.tick()
        moved = True
        while moved:
            moved = False
            for i, v in enumerate(vs):
                for peer, data in v.outgoing():
                    moved = True
                    if i == 0:
                        assert vs[peer[0]].receive(HOST_ID, data)
                    else:
                        assert vs[0].receive(net.peer_id(i), data)
        if all(v.is_done for v in vs):
            return
    raise AssertionError([v.describe() for v in vs])


def test_the_other_player_asks_and_is_shown_then_both_agree(tmp_path):
    net = finished(tmp_path)
    host, joiner = vs = votes(net)
    joiner.answer(True)
    for _ in range(3):
        net.clock.ms += 400
        joiner.tick()
        for _peer, data in joiner.outgoing():
            host.receive(net.peer_id(1), data)
        for _peer, data in host.outgoing():
            joiner.receive(HOST_ID, data)
    assert host.describe() == "player1 asks for a rematch: accept (y) / decline (n)"
    assert host.verdict is Verdict.OPEN
    host.answer(True)
    pump(net, vs)
    assert [v.verdict for v in vs] == [Verdict.AGREED, Verdict.AGREED]


def test_a_decline_ends_the_vote_on_both_sides(tmp_path):
    net = finished(tmp_path)
    vs = votes(net)
    vs[0].answer(True)
    vs[1].answer(False)
    pump(net, vs)
    assert [v.verdict for v in vs] == [Verdict.DECLINED, Verdict.DECLINED]
    assert vs[0].describe() == "no rematch: player1 declined"


def test_a_rematch_frame_forged_or_replayed_from_another_connection_is_dropped(tmp_path):
    net = finished(tmp_path)
    host, joiner = votes(net)
    gid = host.header.game_id
    bob = identity(1)
    # Signed by the seated key over a nonce that is not this connection's.
    forged = sign_rematch(bob, gid, 0b10, 0, bytes(32))
    assert host.receive(net.peer_id(1), encode_frame(forged))
    # The joiner's genuine frame, sent again from another connection.
    joiner.answer(False)
    [(_, genuine)] = joiner.outgoing()
    assert host.receive(b"stranger", genuine)
    # And a stranger's key, over the right nonce.
    link = next(iter(joiner._links.values()))
    assert host.receive(
        net.peer_id(1), encode_frame(sign_rematch(identity(5), gid, 2, 0, link.sign_over))
    )
    assert host.answers == {}
    assert host.dropped == 3
    # A joiner answering for another slot is dropped too.
    assert host.receive(
        net.peer_id(1), encode_frame(sign_rematch(bob, gid, 0b01, 0, link.sign_over))
    )
    assert host.answers == {}
    assert host.dropped == 4
    # The genuine frame on its own connection counts.
    assert host.receive(net.peer_id(1), genuine)
    assert host.answers == {1: False}


@pytest.mark.parametrize("players", [2, 3, 4])
def test_a_rematch_seats_the_same_players_and_the_next_slot_starts(tmp_path, players):
    net = finished(tmp_path, players, "random")
    old = [s for s in net.sessions]
    h = old[0].validator.header
    first = old[0].validator.seats[0]
    start = next_start(h, old[0].records)
    assert h.seats[start].public_key != first
    assert h.seats[(start - 1) % players].public_key == first
    vs = votes(net)
    for v in vs:
        v.answer(True)
    pump(net, vs)
    assert all(v.verdict is Verdict.AGREED for v in vs)
    # The new game over the same link: the host reserves the seats, the joiners check it.
    settings = rematch_settings(h, start)
    home0 = tmp_path / "p0"
    new = [
        Session.host(
            old[0].identity,
            settings,
            home=home0,
            now=net.clock,
            known=KnownPeers(home0),
            seats=tuple((s.public_key, s.name) for s in h.seats),
        )
    ]
    for i in range(1, players):
        home = tmp_path / f"p{i}"
        j = Session.join(old[i].identity, home=home, now=net.clock, known=KnownPeers(home))
        j.check_header = header_check(h, start)
        new.append(j)
    net.sessions = new
    # The last joiner says hello first: the slots are the reserved ones all the same.
    for _ in range(3):
        net.clock.ms += 400
        new[-1].tick()
        net.flush()
    net.run()
    assert all(s.is_complete for s in new), net.summary()
    v = read_log(new[0].journal_path.read_bytes())
    assert v.header.game_id != h.game_id
    assert [s.public_key for s in v.header.seats] == [s.public_key for s in h.seats]
    assert v.seats[0] == h.seats[start].public_key
    assert f"start={start}" in v.header.options
    assert len({s.journal_path.read_bytes() for s in new}) == 1


def test_a_joiner_refuses_a_rematch_header_that_is_not_the_game_agreed(tmp_path):
    net = finished(tmp_path)
    h = net.sessions[0].validator.header
    assert header_check(h, 1)(h) == "it has the finished game's id"
    other = replace(h, game_id=bytes(16), options=("start=0",))
    assert header_check(h, 1)(other) == "options start=0, not start=1"
    swapped = replace(h, game_id=bytes(16), seats=h.seats[::-1], options=("start=1",))
    assert header_check(h, 1)(swapped) == "its players or their slots are not the finished game's"
    timed = replace(h, game_id=bytes(16), options=("start=1",), move_ms=5000, bank_ms=0)
    assert header_check(h, 1)(timed) == "its gods or time control are not the finished game's"
    assert header_check(h, 1)(replace(h, game_id=bytes(16), options=("start=1",))) is None


def test_the_save_copy_of_game_n_takes_n_before_the_extension(tmp_path):
    assert rematch_save_path(tmp_path / "g.sntr", 2) == tmp_path / "g-2.sntr"
    assert rematch_save_path(tmp_path / "g", 3) == tmp_path / "g-3"


def test_a_joiner_that_missed_the_agreement_asks_again_and_is_answered(tmp_path):
    net = finished(tmp_path)
    host, joiner = vs = votes(net)
    host.answer(True)
    joiner.answer(True)
    [(_, ask)] = joiner.outgoing()
    host.outgoing()
    assert host.receive(net.peer_id(1), ask)
    assert host.verdict is Verdict.AGREED
    # The host's answer is lost; the joiner, still waiting, sends its answer again.
    host.outgoing()
    assert joiner.verdict is Verdict.OPEN
    assert host.receive(net.peer_id(1), ask)
    for _, data in host.outgoing():
        joiner.receive(HOST_ID, data)
    assert [v.verdict for v in vs] == [Verdict.AGREED, Verdict.AGREED]


def test_a_later_game_s_vote_frame_is_left_to_that_game(tmp_path):
    net = finished(tmp_path)
    host, _ = votes(net)
    link = host._links[net.peer_id(1)]
    later = sign_rematch(identity(1), bytes(16), 0b10, 0, link.verify_over[0])
    assert not host.receive(net.peer_id(1), encode_frame(later))
    assert host.dropped == 0


def test_no_player_is_said_disconnected_while_the_finished_game_is_quiet(tmp_path):
    """Once a game is complete and settled its peers send nothing (they may be voting on a
    rematch, SESSION.md 10): that silence is not shown as a disconnection."""
    from tests.net.harness import Net

    net = Net.create(tmp_path, 3, seed=31)
    net.run()
    for _ in range(200):
        net.step(100)  # 20 s of silence after the end
    for s in net.sessions:
        said = [n.text for n in s.notes if "disconnected" in n.text]
        assert said == [], (s.identity.name, said)
