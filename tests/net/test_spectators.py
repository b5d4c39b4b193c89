"""Spectators of a network game, driven without sockets over the in-memory link (harness.py).

A spectator watches the host's game: it catches up from the log, verifies every record, and
can never act; the host takes at most ``gallery.limit`` of them.
"""

from __future__ import annotations

import pytest

from santorini_p2p.engine import legal_actions
from santorini_p2p.net.clock import TimeControl
from santorini_p2p.net.frames import (
    SESSION_VERSION,
    RecordFrame,
    Refuse,
    Status,
    Stop,
    Watch,
    decode_frame,
    encode_frame,
)
from santorini_p2p.net.game import rematch_session
from santorini_p2p.net.session import HOST_ID
from santorini_p2p.net.spectator import Spectator
from santorini_p2p.replay.verify import verify_bytes
from santorini_p2p.wire.messages import Act
from tests.net.harness import Net, identity

pytestmark = pytest.mark.usefixtures("no_fsync")

TIMED = TimeControl(60_000, 300_000)


def _play_until(net: Net, turns: int) -> None:
    for _ in range(5_000):
        v = net.sessions[0].validator
        if v is not None and v.position is not None and v.turns >= turns and not v.pending_acks:
            return
        net.step()
    raise AssertionError(net.summary())


def _idle(net: Net) -> None:
    """Stop the bots and let every pending acknowledgement arrive."""
    net.bots = False
    for _ in range(30):
        net.step()


def _finish(net: Net, *watchers: Spectator) -> None:
    """Play to the end; then step until every spectator holds the whole game (bounded)."""
    net.bots = True
    net.run()
    for _ in range(1_000):
        if all(w.is_complete or w.stopped for w in watchers):
            return
        net.step()
    raise AssertionError([(len(w.records), w.stopped) for w in watchers])


def _same_replay(net: Net, w: Spectator) -> None:
    data = net.journals()
    assert w.stopped is None, w.stopped
    assert w.is_complete
    assert all(d == w.replay_bytes() for d in data)
    assert verify_bytes(w.replay_bytes()).ok


def test_a_spectator_from_before_the_start_holds_the_players_replay(tmp_path):
    net = Net.create(tmp_path, 2, time=TIMED, seed=3)
    w = net.watch("carol")
    _finish(net, w)
    _same_replay(net, w)
    host = net.sessions[0]
    assert any("carol joined as a spectator (1 of 4" in n.text for n in host.notes)
    acts = sum(isinstance(r.message, Act) for r in w.records)
    assert sum(": " in n.text and n.text.split(": ")[0] in w.seat_names() for n in w.notes) == acts
    assert any(n.text.startswith("The game is over:") for n in w.notes)


def test_a_spectator_that_comes_mid_game_catches_up_from_the_log(tmp_path):
    net = Net.create(tmp_path, 2, time=TIMED, seed=4)
    _play_until(net, turns=8)
    _idle(net)
    held = len(net.sessions[0].records)
    assert held > 20
    w = net.watch()
    net.step()
    net.step()
    assert len(w.records) == held  # the whole log so far, verified, at once
    assert w.position == net.sessions[0].position
    _finish(net, w)
    _same_replay(net, w)


def test_a_spectator_cut_off_reconnects_and_catches_up(tmp_path):
    net = Net.create(tmp_path, 2, time=TIMED, seed=5)
    w = net.watch()
    _play_until(net, turns=2)
    host = net.sessions[0]
    net.down.add(2)
    before = len(w.records)
    for _ in range(80):
        net.step(100)  # 8 s: the host forgets the silent spectator, play goes on
    assert host.gallery is not None
    assert len(host.gallery) == 0
    assert len(host.records) > before
    net.down.clear()
    _finish(net, w)
    _same_replay(net, w)
    assert any("answers again" in n.text for n in w.notes)


def test_a_host_taking_no_spectators_refuses_them(tmp_path):
    net = Net.create(tmp_path, 2, seed=6)
    host = net.sessions[0]
    assert host.gallery is not None
    host.gallery.limit = 0
    w = net.watch()
    for _ in range(20):
        net.step()
    assert w.stopped == "refused by the host: this game takes no spectators"
    assert not w.records


def test_a_host_takes_at_most_its_number_of_spectators(tmp_path):
    net = Net.create(tmp_path, 2, seed=7)
    host = net.sessions[0]
    assert host.gallery is not None
    host.gallery.limit = 1
    first = net.watch("first")
    for _ in range(5):
        net.step()
    second = net.watch("second")
    for _ in range(20):
        net.step()
    assert first.stopped is None
    assert second.stopped is not None
    assert "the most its host takes" in second.stopped
    _finish(net, first)
    _same_replay(net, first)


def test_a_record_from_a_spectator_is_ignored_and_counted(tmp_path):
    net = Net.create(tmp_path, 2, seed=8)
    w = net.watch()
    _play_until(net, turns=2)
    _idle(net)
    host, joiner = net.sessions
    v = host.validator
    assert v is not None
    assert v.position is not None
    # A record the seat to move would sign, forged by nobody less than that seat's own key:
    # from a spectator's connection it is still nothing.
    mover = [s for s in (host, joiner) if v.seat_of(s.identity.public_key) == v.position.to_move]
    raw = v.make_act(mover[0].identity, legal_actions(v.position)[0], 10)
    count, dropped = len(host.records), host.dropped
    spectator_peer = bytes([2])
    host.receive(spectator_peer, encode_frame(RecordFrame(count, raw)))
    host.receive(spectator_peer, encode_frame(Status(0)))  # a status is read, not counted
    assert len(host.records) == count
    assert host.dropped == dropped + 1
    assert host.gallery is not None
    assert host.gallery.ignored == 1
    assert w.stopped is None


def test_a_watch_from_a_seated_connection_changes_nothing(tmp_path):
    net = Net.create(tmp_path, 2, seed=8)
    _play_until(net, turns=1)
    host = net.sessions[0]
    dropped = host.dropped
    host.receive(bytes([1]), encode_frame(Watch(SESSION_VERSION, b"\x01" * 32, b"", 0, "sneaky")))
    assert host.dropped == dropped + 1
    assert host.gallery is not None
    assert len(host.gallery) == 0
    _finish(net)


def test_a_bad_record_is_shown_as_such_and_never_trusted(tmp_path):
    net = Net.create(tmp_path, 2, seed=9)
    w = net.watch()
    _play_until(net, turns=2)
    _idle(net)
    count = len(w.records)
    host = net.sessions[0]
    v = host.validator
    assert v is not None
    assert v.position is not None
    # A record signed by a stranger in the place of the seat to move.
    raw = v.make_act(identity(9, "mallory"), legal_actions(v.position)[0], 10)
    w.receive(HOST_ID, encode_frame(RecordFrame(count, raw)))
    assert w.stopped is not None
    assert w.stopped.startswith(f"record {count} from the host is bad and was not trusted")
    assert w.bad_record == (count, raw)
    assert len(w.records) == count
    assert w.notes[-1].kind.value == "error"
    assert w.stopped in w.notes[-1].text
    # The game goes on for the players; the spectator trusts nothing more.
    _finish(net, w)
    assert len(w.records) == count


def test_a_record_changed_in_flight_is_refused_by_the_spectator(tmp_path):
    net = Net.create(tmp_path, 2, seed=10)
    w = net.watch()
    _play_until(net, turns=3)
    _idle(net)
    rec = net.sessions[0].records[-1]
    tampered = bytearray(rec.raw)
    tampered[-1] ^= 1  # the signature no longer holds
    w.receive(HOST_ID, encode_frame(RecordFrame(rec.index, bytes(tampered))))
    assert w.stopped is not None
    assert "different record" in w.stopped


def test_a_spectator_of_a_three_player_game(tmp_path):
    net = Net.create(tmp_path, 3, "draft", time=TIMED, seed=11)
    early = net.watch("early")
    _play_until(net, turns=4)
    late = net.watch("late")
    _finish(net, early, late)
    _same_replay(net, early)
    _same_replay(net, late)
    assert len(early.seat_names()) == 3


def test_a_host_that_stops_tells_its_spectators(tmp_path):
    net = Net.create(tmp_path, 2, seed=12)
    w = net.watch()
    _play_until(net, turns=2)
    _idle(net)
    host = net.sessions[0]
    host._stop("a test stop", index=len(host.records))
    for _ in range(5):
        net.step()
    assert w.stopped is not None
    assert "the host stopped the game" in w.stopped
    assert "a test stop" in w.stopped


def test_a_stopped_host_tells_a_spectator_again_until_it_has_left(tmp_path):
    """A spectator busy when the stop came has not read it: were the host's connection to
    close then, its socket would drop the frame and it would wait for a silent host. The
    host tells it again every 300 ms while it is connected, and is done once it has left."""
    net = Net.create(tmp_path, 2, seed=12)
    w = net.watch()
    _play_until(net, turns=2)
    _idle(net)
    host = net.sessions[0]
    peer = net.peer_id(2)
    host.outgoing()
    host._stop("a test stop", index=len(host.records))
    stops = [data for to, data in host.outgoing() if to == peer]
    assert host.spectators_told_stop
    for _ in range(13):  # 650 ms: w, busy, reads nothing
        net.clock.ms += 50
        host.tick()
        stops += [data for to, data in host.outgoing() if to == peer]
    assert len(stops) == 3, "the stop, then again every 300 ms"
    assert all(isinstance(decode_frame(d), Stop) for d in stops)
    w.receive(HOST_ID, stops[-1])
    assert w.stopped is not None
    assert "a test stop" in w.stopped
    assert host.spectators_told_stop
    host.undelivered(peer)  # w has left: its connection is gone
    assert not host.spectators_told_stop
    net.clock.ms += 1000
    host.tick()
    assert [to for to, _ in host.outgoing() if to == peer] == []
    assert "stopped watching" not in " ".join(n.text for n in host.notes)
    # One that comes to watch the stopped game is told at once.
    late = bytes([9])
    host.receive(late, encode_frame(Watch(SESSION_VERSION, bytes(32), b"", 0, "late")))
    told = [decode_frame(d) for to, d in host.outgoing() if to == late]
    assert any(isinstance(f, Stop) and f.reason == "a test stop" for f in told)


def _mover_and_other(net: Net) -> tuple[int, int]:
    """Session numbers: the seat to move, and a joiner that is not to move."""
    v = net.sessions[0].validator
    assert v is not None
    assert v.position is not None
    seats = [v.seat_of(s.identity.public_key) for s in net.sessions]
    mover = seats.index(v.position.to_move)
    other = next(i for i in range(1, len(seats)) if i != mover)
    return mover, other


def test_a_joiner_cut_off_while_another_seat_moves_shows_the_hosts_clock(tmp_path):
    net = Net.create(tmp_path, 3, time=TIMED, seed=13)
    w = net.watch()
    _play_until(net, turns=3)
    _idle(net)
    mover, cut = _mover_and_other(net)
    host, joiner = net.sessions[0], net.sessions[cut]
    net.down.add(cut)
    for _ in range(20):
        net.step(1000)  # 20 s of the mover's clock pass while the joiner is cut off
    net.down.clear()
    for _ in range(500):  # until the two hear each other again, and a status after that
        net.step()
        if (
            host.is_connected(joiner.identity.public_key)
            and joiner.is_connected(host.identity.public_key)
            and not joiner._clock_sync
        ):
            break
    theirs, mine, watched = host.clocks(), joiner.clocks(), w.clocks()
    running = [c.running for c in theirs]
    assert running.count(True) == 1
    assert running == [c.running for c in mine]
    for a, b, c in zip(theirs, mine, watched, strict=True):
        assert abs(a.move_ms - b.move_ms) <= 1000, (theirs, mine)
        assert abs(a.bank_ms - b.bank_ms) <= 1000, (theirs, mine)
        assert abs(a.move_ms - c.move_ms) <= 1000, (theirs, watched)
    assert next(c for c in mine if c.running).move_ms <= 41_000
    del mover


def test_a_spectator_whose_frames_cannot_be_sent_is_dropped_and_comes_back(tmp_path):
    net = Net.create(tmp_path, 2, time=TIMED, seed=14)
    w = net.watch()
    _play_until(net, turns=2)
    host = net.sessions[0]
    assert host.gallery is not None
    assert len(host.gallery) == 1
    host.undelivered(bytes([2]))  # its queue at the host is full: the transport said so
    assert len(host.gallery) == 0
    assert host.gallery.dropped == 1
    assert any(n.text == "watcher stopped watching (0 of 4 spectators)." for n in host.notes)
    _finish(net, w)  # heard nothing for 5 s, it watches again and catches up
    _same_replay(net, w)
    assert len(host.gallery) == 1


def test_a_spectator_reads_the_players_chat_and_keeps_it_in_its_copy(tmp_path):
    net = Net.create(tmp_path, 2, time=TIMED, seed=15, options=("chat",))
    w = net.watch()
    _play_until(net, turns=2)
    _idle(net)
    net.sessions[1].say("good luck")
    for _ in range(10):
        net.step()
    said = [n for n in w.notes if n.chat]
    assert [n.text for n in said] == [f"{net.sessions[1].identity.name} says: good luck"]
    _finish(net, w)
    _same_replay(net, w)


def _vote_yes(net: Net) -> None:
    """Every seat asks for a rematch; the host's frames reach its joiners and spectators."""
    from santorini_p2p.net.rematch import Verdict, open_vote

    vs = [open_vote(s) for s in net.sessions]
    for v in vs:
        v.answer(True)
    for _ in range(100):
        net.clock.ms += 50
        for v in vs:
            v.tick()
        for i, v in enumerate(vs):
            for peer, data in v.outgoing():
                if i != 0:
                    vs[0].receive(net.peer_id(i), data)
                elif peer[0] < len(vs):
                    vs[peer[0]].receive(HOST_ID, data)
                else:
                    net.node(peer[0]).receive(HOST_ID, data)
        if all(v.verdict is Verdict.AGREED for v in vs):
            return
    raise AssertionError([v.describe() for v in vs])


def test_a_rematch_keeps_the_finished_games_spectators_and_tells_them_the_score(tmp_path):
    net = Net.create(tmp_path, 2, seed=9, names=["ann", "bob"])
    host = net.sessions[0]
    assert host.gallery is not None
    host.gallery.limit = 2
    carol = net.watch("carol")
    _finish(net, carol)
    _same_replay(net, carol)
    first_copy = carol.replay_bytes()
    old = host.validator
    assert old is not None
    assert old.header is not None
    winner = old.names[old.result[0]]
    # The players agree a rematch over the same connections (SESSION.md 10); the spectator
    # is told each answer, then watches the new game over its connection, not saying watch.
    _vote_yes(net)
    assert _said(carol, "rematch agreed: the new game starts")
    kept: list[bytes] = []
    carol.before_next_game(lambda: kept.append(carol.replay_bytes()))
    net.sessions = [rematch_session(s, old.header) for s in net.sessions]
    rehost = net.sessions[0]
    assert rehost.gallery is not None
    assert rehost.gallery.limit == 2  # as many spectators as for the finished game
    assert len(rehost.gallery) == 1  # carol, still watching
    # A watch naming the finished game is refused; one for any game watches the rematch.
    spectator_peer = bytes([7])
    rehost.receive(
        spectator_peer, encode_frame(Watch(SESSION_VERSION, bytes(32), old.header.game_id, 0, ""))
    )
    refusals = []
    for peer, data in rehost.outgoing():
        if peer == spectator_peer:
            refusals.append(decode_frame(data))
        else:
            net.node(peer[0]).receive(HOST_ID, data)  # the game's own frames go on
    assert [r.reason for r in refusals if isinstance(r, Refuse)] == [
        "this is not the game you watched: no such game here"
    ]
    dave = net.watch("dave")
    _finish(net, carol, dave)
    for w in (carol, dave):
        _same_replay(net, w)
        assert w.game_id != old.header.game_id
    assert kept == [first_copy]  # the finished game's copy was kept before the rematch began
    # The score names the players in the finished game's seat order, as the players' screens.
    score = ", ".join(f"{name} {1 if name == winner else 0}" for name in old.names)
    assert carol.number == 2
    assert _said(carol, f"Rematch: game 2. Score: {score}.")
    assert not any(n.text.startswith("Rematch:") for n in dave.notes)  # it saw game 2 alone


def _said(node, text: str) -> bool:
    return any(n.text == text for n in node.notes)


def _declined_with_a_slow_spectator(tmp_path):
    """Both players say no after a game that carol watched; carol reads nothing yet.

    Returns the net, carol, her peer id at the host, and the host's vote once it holds
    every answer and its joiner, told, has left.
    """
    from santorini_p2p.net.rematch import Verdict, open_vote

    net = Net.create(tmp_path, 2, seed=9, names=["ann", "bob"])
    carol = net.watch("carol")
    _finish(net, carol)
    _same_replay(net, carol)
    host, joiner = (open_vote(s) for s in net.sessions)
    host.answer(False)
    joiner.answer(False)
    for _peer, data in joiner.outgoing():
        assert host.receive(net.peer_id(1), data)
    for peer, data in host.outgoing():
        if peer == net.peer_id(1):
            joiner.receive(HOST_ID, data)
    assert host.verdict is Verdict.DECLINED
    assert joiner.is_done  # the host holds its answer: it leaves, its connection gone
    host.undelivered(net.peer_id(1))
    return net, carol, bytes([2]), host


def test_a_host_whose_vote_is_declined_stays_until_its_spectator_told_has_left(tmp_path):
    """A frame the spectator has not read yet is lost if the host's connection closes under
    it (its socket drops what it holds of a connection gone): the host keeps telling it
    the verdict while it is connected, and leaves once it has gone."""
    net, carol, peer, host = _declined_with_a_slow_spectator(tmp_path)
    held = []
    for _ in range(20):  # a second: a busy spectator reads nothing
        assert not host.is_done, "the host left its spectator untold"
        net.clock.ms += 50
        host.tick()
        held += [data for to, data in host.outgoing() if to == peer]
    assert len(held) >= 3  # the tally, sent again every 300 ms
    for data in held:
        carol.receive(HOST_ID, data)
    assert carol.match_over
    assert _said(carol, "no rematch: ann and bob declined")
    assert not host.is_done
    host.undelivered(peer)  # told, she leaves: the next send to her connection fails
    assert host.is_done
    assert host.listening() == []


def test_a_host_waits_for_a_spectator_that_never_leaves_two_seconds_at_most(tmp_path):
    from santorini_p2p.net.rematch import SETTLE_MS

    net, _carol, peer, host = _declined_with_a_slow_spectator(tmp_path)
    assert host.listening() == [peer]
    start = net.clock.ms
    while not host.is_done:
        assert net.clock.ms - start < SETTLE_MS, "the host waited past its bound"
        net.clock.ms += 50
        host.tick()
        host.outgoing()
    assert net.clock.ms - start >= SETTLE_MS - 50


def test_every_player_and_spectator_is_told_who_watches_and_counts_the_same(tmp_path):
    """Who watches is the host's to know; it tells the seated joiners and the spectators too,
    signed, with the same count, when someone comes and when someone leaves."""
    net = Net.create(tmp_path, 3, time=TIMED, seed=21, names=["ann", "bob", "dan"])
    _play_until(net, turns=1)
    carol = net.watch("carol")
    eve = net.watch("eve")
    came = [
        "carol joined as a spectator (1 of 4 spectators).",
        "eve joined as a spectator (2 of 4 spectators).",
    ]
    everyone = [*net.sessions, carol, eve]
    for _ in range(200):
        if all(_said(n, came[1]) for n in everyone):
            break
        net.step()
    for node in [*net.sessions, carol]:
        assert _said(node, came[0]), [n.text for n in node.notes]
    for node in everyone:
        assert _said(node, came[1]), [n.text for n in node.notes]
    for s in net.sessions[1:]:
        assert s.audience == ("carol", "eve")
        assert s.audience_count == (2, 4)
    # Eve leaves (her connection goes quiet): everyone is told, with the new count.
    net.down.add(len(net.sessions) + 1)
    left = "eve stopped watching (1 of 4 spectators)."
    for _ in range(1_000):
        if all(_said(n, left) for n in [*net.sessions, carol]):
            break
        net.step()
    for node in [*net.sessions, carol]:
        assert _said(node, left), [n.text for n in node.notes]
    assert net.sessions[2].audience == ("carol",)


def test_a_list_of_spectators_the_host_did_not_sign_is_dropped(tmp_path):
    from santorini_p2p.net.frames import sign_audience

    net = Net.create(tmp_path, 2, time=TIMED, seed=22)
    _play_until(net, turns=1)
    bob = net.sessions[1]
    dropped = bob.dropped
    forged = sign_audience(identity(1), ("mallory",), 4, bob._round_nonce)
    bob.receive(HOST_ID, encode_frame(forged))
    assert bob.dropped == dropped + 1
    assert bob.audience == ()
    assert not any("mallory" in n.text for n in bob.notes)
