"""The lockstep session, driven without sockets over the in-memory link of ``harness.py``."""

from __future__ import annotations

import asyncio
import os
import re
import time

import pytest

from santorini_p2p.engine import Phase, legal_actions
from santorini_p2p.net.clock import TimeControl
from santorini_p2p.net.frames import RecordFrame, Status, encode_frame
from santorini_p2p.net.session import HOST_ID, Session
from santorini_p2p.net.trust import KnownPeers
from santorini_p2p.replay.verify import verify_bytes, verify_file
from santorini_p2p.wire import validator as wire_validator
from santorini_p2p.wire.log import read_log, seal
from santorini_p2p.wire.messages import Ack, Act
from tests.net.harness import Net, Policy, identity

pytestmark = pytest.mark.usefixtures("no_fsync")


def _assert_identical_complete(net: Net) -> None:
    data = net.journals()
    assert all(d == data[0] for d in data), net.summary()
    v = read_log(data[0])
    assert v.is_complete
    assert verify_bytes(data[0]).ok


@pytest.mark.parametrize(
    ("players", "gods"),
    [(2, "none"), (3, "none"), (4, "none"), (2, "challenger"), (3, "draft"), (4, "random")],
)
def test_bots_finish_with_byte_identical_verified_journals(tmp_path, players, gods):
    net = Net.create(tmp_path, players, gods, seed=players)
    net.run()
    assert not any(s.stopped for s in net.sessions)
    _assert_identical_complete(net)


def test_lossy_link_still_ends_identical(tmp_path):
    net = Net.create(
        tmp_path, 3, "draft", seed=5, policy=Policy(drop=0.2, dup=0.2, delay=5, reorder=True)
    )
    net.run(limit=60_000)
    assert not any(s.stopped for s in net.sessions), net.summary()
    _assert_identical_complete(net)


def _play_until(net: Net, phase: Phase, turns: int = 0) -> None:
    for _ in range(5_000):
        v = net.sessions[0].validator
        if (
            v is not None
            and v.position is not None
            and v.position.phase is phase
            and v.turns >= turns
            and not v.pending_acks
        ):
            return
        net.step()
    raise AssertionError(net.summary())


def _idle(net: Net) -> None:
    """Stop the bots and let every pending acknowledgement arrive."""
    net.bots = False
    for _ in range(30):
        net.step()


def _joiner_with_stop(net: Net, raw: bytes, index: int) -> Session:
    joiner = net.sessions[1]
    joiner.receive(HOST_ID, encode_frame(RecordFrame(index, raw)))
    return joiner


def test_forged_record_is_refused_and_stops_with_report(tmp_path):
    net = Net.create(tmp_path, 2, seed=1)
    _play_until(net, Phase.PLAY, turns=2)
    _idle(net)
    joiner = net.sessions[1]
    v = joiner.validator
    assert v is not None
    assert v.position is not None
    n = v.next_seq
    action = str(legal_actions(v.position)[0])
    # Signed by a key that holds no seat.
    forged = seal(identity(9), Act(n, v.last_hash, action, 0, bytes(32)))
    _joiner_with_stop(net, forged, n)
    assert joiner.stopped is not None
    assert "refused record" in joiner.stopped
    assert len(joiner.records) == n
    assert joiner.report_path is not None
    assert joiner.report_path.exists()
    verdict = verify_file(joiner.report_path.with_suffix(".sntr"))
    assert not verdict.ok
    assert verdict.record == n
    # The host hears the stop and stops too.
    net.run(limit=100)
    assert net.sessions[0].stopped is not None
    assert "stopped the game" in net.sessions[0].stopped


def test_wrong_seat_record_is_refused(tmp_path):
    net = Net.create(tmp_path, 2, seed=2)
    _play_until(net, Phase.PLAY, turns=1)
    _idle(net)
    joiner = net.sessions[1]
    v = joiner.validator
    assert v is not None
    assert v.position is not None
    mover = v.position.to_move
    other = identity(0 if v.seats[mover] == identity(1).public_key else 1)
    assert v.seats[mover] != other.public_key
    raw = v.make_act(other, str(legal_actions(v.position)[0]), 0)
    n = v.next_seq
    _joiner_with_stop(net, raw, n)
    assert joiner.stopped is not None
    assert "SignatureError" in joiner.stopped


def test_replayed_record_from_another_game_is_refused(tmp_path):
    first = Net.create(tmp_path / "a", 2, seed=3)
    first.run()
    other_records = first.sessions[0].records
    net = Net.create(tmp_path / "b", 2, seed=30)
    _play_until(net, Phase.PLAY, turns=1)
    net.bots = False
    joiner = net.sessions[1]
    n = len(joiner.records)
    _joiner_with_stop(net, other_records[n].raw, n)
    assert joiner.stopped is not None
    assert "ChainError" in joiner.stopped


def test_duplicate_and_old_records_are_ignored(tmp_path):
    net = Net.create(tmp_path, 2, seed=4)
    _play_until(net, Phase.PLAY, turns=2)
    joiner = net.sessions[1]
    before = len(joiner.records)
    for rec in joiner.records:
        joiner.receive(HOST_ID, encode_frame(RecordFrame(rec.index, rec.raw)))
    joiner.receive(HOST_ID, encode_frame(Status(0)))
    assert joiner.stopped is None
    assert len(joiner.records) == before


def test_disagreeing_engine_stops_both_sides_with_reports(tmp_path, monkeypatch):
    net = Net.create(tmp_path, 2, seed=6)
    real = wire_validator.state_hash

    def skewed(p):
        h = real(p)
        # Peer 1's engine disagrees as soon as a block stands on the board.
        if net.active[0] == 1 and p.ge1:
            return bytes(32)
        return h

    monkeypatch.setattr(wire_validator, "state_hash", skewed)
    net.run()
    host, joiner = net.sessions
    assert host.stopped is not None
    assert joiner.stopped is not None
    assert "desync" in (host.stopped + joiner.stopped)
    for s in (host, joiner):
        assert s.report_path is not None
        text = s.report_path.read_text()
        assert "state hash here" in text
        assert "position:" in text
        assert s.report_path.with_suffix(".sntr").exists()
        # Private, as every file of a player's: the directory 0700, the files 0600.
        assert s.report_path.parent.stat().st_mode & 0o777 == 0o700
        for report in (s.report_path, s.report_path.with_suffix(".sntr")):
            assert report.stat().st_mode & 0o777 == 0o600
    monkeypatch.setattr(wire_validator, "state_hash", real)
    verdict = verify_file(joiner.report_path.with_suffix(".sntr"))
    assert not verdict.ok
    assert verdict.record is not None


def test_changed_key_is_refused_naming_both_fingerprints(tmp_path):
    # The host remembers "player1" with another key from an earlier game.
    known = KnownPeers(tmp_path / "p0")
    impostor_key = identity(7).public_key
    known.check("player1", impostor_key)
    net = Net.create(tmp_path, 2, seed=7)
    for _ in range(50):
        net.step()
    joiner = net.sessions[1]
    assert joiner.stopped is not None
    real_fp = identity(1).fingerprint
    assert real_fp in joiner.stopped
    host_warnings = " ".join(n.text for n in net.sessions[0].notes)
    assert "HAS CHANGED" in host_warnings
    assert real_fp in host_warnings
    # The joiner cannot edit the host's known_peers: it is told whose file holds the old key.
    assert "player0 remembers another key for the name 'player1'" in joiner.stopped
    assert identity(7).fingerprint in joiner.stopped
    assert "--name" in joiner.stopped


def test_joiner_refuses_a_host_whose_key_changed(tmp_path):
    KnownPeers(tmp_path / "p1").check("player0", identity(8).public_key)
    net = Net.create(tmp_path, 2, seed=8)
    for _ in range(50):
        net.step()
    assert net.sessions[1].stopped is not None
    assert identity(0).fingerprint in net.sessions[1].stopped
    # The host hears why, in words for the host: the old key is in player1's known_peers.
    host_notes = " ".join(n.text for n in net.sessions[0].notes)
    assert "by player1: player1 remembers another key for the name 'player0'" in host_notes


def test_crashed_joiner_resumes_from_its_journal(tmp_path):
    net = Net.create(tmp_path, 3, "draft", seed=9)
    _play_until(net, Phase.PLAY, turns=4)
    crashed = net.sessions[2]
    path = crashed.journal_path
    crashed.close()
    net.down.add(2)
    for _ in range(20):
        net.step()
    net.sessions[2] = Session.resume(
        crashed.identity, path, home=crashed.home, now=net.clock, known=KnownPeers(crashed.home)
    )
    # A new process is a new connection: the host knows it by another peer id.
    old_id = net.peer_id
    net.peer_id = lambda i: b"\x02again" if i == 2 else old_id(i)  # type: ignore[method-assign]
    net.down.clear()
    net.run()
    assert not any(s.stopped for s in net.sessions), net.summary()
    _assert_identical_complete(net)
    # The host tells its player that the joiner is back, once.
    back = [n.text for n in net.sessions[0].notes if n.text.endswith(" is back.")]
    assert back == [f"{crashed.identity.name} is back."]


@pytest.mark.parametrize("crash", [1, 0])
def test_a_peer_resumed_mid_move_shows_the_same_clock_as_the_others(tmp_path, crash):
    net = Net.create(tmp_path, 2, time=TimeControl(60_000, 300_000), seed=21)
    _play_until(net, Phase.PLAY, turns=1)
    _idle(net)
    other = net.sessions[1 - crash]
    crashed = net.sessions[crash]
    path = crashed.journal_path
    crashed.close()
    net.down.add(crash)
    for _ in range(20):
        net.step(1000)  # 20 s pass with the peer down
    # Its journal was last written when the move became due, 20 s ago.
    due = time.time_ns() - 20 * 10**9
    os.utime(path, ns=(due, due))
    net.sessions[crash] = Session.resume(
        crashed.identity, path, home=crashed.home, now=net.clock, known=KnownPeers(crashed.home)
    )
    net.down.clear()
    host, joiner = net.sessions
    for _ in range(500):  # until the two hear each other again (bounded: 5 s of test time)
        # ... and the joiner shows the host's clock, from the host's next status, if it does.
        if (
            host.is_connected(joiner.identity.public_key)
            and joiner.is_connected(host.identity.public_key)
            and not joiner._clock_sync
        ):
            break
        net.step()
    mine, theirs = other.clocks(), net.sessions[crash].clocks()
    assert [c.running for c in mine] == [c.running for c in theirs]
    for a, b in zip(mine, theirs, strict=True):
        assert abs(a.move_ms - b.move_ms) <= 1000, (mine, theirs)
        assert abs(a.bank_ms - b.bank_ms) <= 1000, (mine, theirs)
    # The resumed peer, host or joiner, counts from when the move became due, 20 s ago.
    assert next(c for c in theirs if c.running).move_ms <= 41_000


def test_a_joiner_cut_off_while_it_moves_keeps_its_clock_as_the_host_does(tmp_path):
    net = Net.create(tmp_path, 2, time=TimeControl(60_000, 300_000), seed=21)
    _play_until(net, Phase.PLAY, turns=1)
    _idle(net)
    host, joiner = net.sessions
    v = host.validator
    if v.seat_of(joiner.identity.public_key) != v.position.to_move:
        net.bots = False
        host.submit(legal_actions(v.position)[0])
        _idle(net)
    net.bots = False
    assert v.seat_of(joiner.identity.public_key) == v.position.to_move
    net.down.add(1)
    for _ in range(20):
        net.step(1000)  # the link is down for 20 s while the joiner thinks
    net.down.clear()
    for _ in range(500):
        net.step()
        if host.is_connected(joiner.identity.public_key) and joiner.is_connected(
            host.identity.public_key
        ):
            break
    assert joiner.is_connected(host.identity.public_key)
    mine, theirs = host.clocks(), joiner.clocks()
    for a, b in zip(mine, theirs, strict=True):
        assert abs(a.move_ms - b.move_ms) <= 1000, (mine, theirs)
    assert next(c for c in theirs if c.running).move_ms <= 41_000


def test_crashed_host_resumes_from_its_journal(tmp_path):
    net = Net.create(tmp_path, 2, "challenger", seed=10)
    _play_until(net, Phase.PLAY, turns=3)
    host = net.sessions[0]
    host.close()
    net.down.add(0)
    for _ in range(20):
        net.step()
    net.sessions[0] = Session.resume(
        host.identity, host.journal_path, home=host.home, now=net.clock
    )
    net.down.clear()
    net.run()
    assert not any(s.stopped for s in net.sessions), net.summary()
    _assert_identical_complete(net)


def test_own_clock_running_out_loses_on_time(tmp_path):
    net = Net.create(tmp_path, 2, time=TimeControl(1000, 2000), seed=11)
    _play_until(net, Phase.PLAY, turns=1)
    net.bots = False
    net.run(ms=100)
    v = read_log(net.journals()[0])
    assert v.result is not None
    assert v.result[1] == "time"
    _assert_identical_complete(net)
    # Every peer names who ran out; the seat that claimed its own timeout is not named twice.
    late = v.names[v.result[0] ^ 1] if v.position.players == 2 else None
    for session in net.sessions:
        notes = [n.text for n in session.notes if "ran out of time" in n.text]
        assert notes == [f"{late} ran out of time."], notes
        # The flagged seat's clock shows no time left, not what it had when its move began.
        loser = v.result[0] ^ 1
        assert session.clocks()[loser].bank_ms == 0
        assert session.clocks()[loser].move_ms == 0
        assert session.clocks()[v.result[0]].bank_ms > 0


def test_silent_mover_is_claimed_out_of_time(tmp_path):
    net = Net.create(tmp_path, 2, time=TimeControl(1000, 1000), seed=12)
    _play_until(net, Phase.PLAY, turns=1)
    _idle(net)
    host = net.sessions[0]
    v = host.validator
    assert v is not None
    assert v.position is not None
    if v.seat_of(identity(0).public_key) == v.position.to_move:
        host.submit(legal_actions(v.position)[0])
        _idle(net)
    assert v.position.to_move == v.seat_of(identity(1).public_key)
    net.down.add(1)
    for _ in range(100):
        net.step(100)
    assert v.is_over
    assert v.result is not None
    assert v.result[1] == "time"
    net.down.clear()
    net.run(ms=100)
    _assert_identical_complete(net)
    late, claimer = v.names[v.position.to_move], v.names[1 - v.position.to_move]
    assert any(n.text == f"{late} ran out of time ({claimer} claimed it)." for n in host.notes)


def test_resignation_ends_the_game(tmp_path):
    net = Net.create(tmp_path, 2, seed=13)
    _play_until(net, Phase.PLAY, turns=2)
    net.sessions[1].resign()
    net.run()
    v = read_log(net.journals()[0])
    assert v.result is not None
    assert v.result[1] == "resign"
    _assert_identical_complete(net)


def test_three_player_resignation_eliminates_and_play_goes_on(tmp_path):
    net = Net.create(tmp_path, 3, seed=14)
    _play_until(net, Phase.PLAY, turns=1)
    net.sessions[2].resign()
    net.run()
    _assert_identical_complete(net)


def test_a_stopped_game_is_not_resumed_by_default(tmp_path):
    from santorini_p2p.net.session import unfinished_games

    net = Net.create(tmp_path, 2, seed=15)
    _play_until(net, Phase.PLAY, turns=1)
    _idle(net)
    joiner = net.sessions[1]
    n = joiner.validator.next_seq
    _joiner_with_stop(net, joiner.records[n - 1].raw, n)
    assert joiner.stopped is not None
    assert unfinished_games(joiner.home) == []
    assert [j for j, _ in unfinished_games(joiner.home, stopped=True)] == [joiner.journal_path]


def test_opponent_gone_before_acknowledging_is_claimed_out_of_time(tmp_path):
    net = Net.create(tmp_path, 2, time=TimeControl(1000, 1000), seed=16)
    _play_until(net, Phase.PLAY, turns=1)
    _idle(net)
    v = net.sessions[0].validator
    assert v is not None
    assert v.position is not None
    host_seat = v.seat_of(identity(0).public_key)
    if v.position.to_move != host_seat:
        net.sessions[1].submit(legal_actions(net.sessions[1].position)[0])
        _idle(net)
    # The host moves; the joiner vanishes before acknowledging.
    net.down.add(1)
    net.sessions[0].submit(legal_actions(net.sessions[0].position)[0])
    for _ in range(60):
        net.step(100)
    host = net.sessions[0].validator
    assert host is not None
    assert host.result is not None
    assert host.result[1] == "time"
    net.down.clear()
    net.run(ms=100)
    _assert_identical_complete(net)


def test_untimed_game_with_the_mover_gone_is_claimed_as_abandoned(tmp_path):
    from santorini_p2p.net.session import ABANDON_MS

    net = Net.create(tmp_path, 2, seed=17)
    _play_until(net, Phase.PLAY, turns=1)
    _idle(net)
    host = net.sessions[0]
    v = host.validator
    assert v is not None
    assert v.position is not None
    if v.seat_of(identity(0).public_key) == v.position.to_move:
        host.submit(legal_actions(v.position)[0])
        _idle(net)
    net.down.add(1)
    for _ in range(ABANDON_MS // 1000 + 10):
        net.step(1000)
    assert v.result is not None
    assert any("abandoned" in n.text for n in host.notes)
    net.down.clear()
    net.run(ms=100)
    _assert_identical_complete(net)


def test_host_resumed_with_fewer_records_than_acknowledged_gets_them_again(tmp_path):
    from santorini_p2p.wire.log import encode_frames

    net = Net.create(tmp_path, 2, seed=18)
    _play_until(net, Phase.PLAY, turns=2)
    _idle(net)
    host = net.sessions[0]
    if host.records[-1].signer == host.identity.public_key:
        host.submit(legal_actions(host.position)[0])
        _idle(net)
    records = [r.raw for r in host.records]
    assert host.records[-1].signer != host.identity.public_key
    host.close()
    # The host lost its last record (the joiner's), which it had acknowledged.
    host.journal_path.write_bytes(encode_frames(records[:-1]))
    net.sessions[0] = Session.resume(
        host.identity, host.journal_path, home=host.home, now=net.clock
    )
    net.bots = True
    net.run()
    assert not any(s.stopped for s in net.sessions), net.summary()
    _assert_identical_complete(net)


def test_a_resumed_peer_signs_again_the_acknowledgement_a_power_cut_took(tmp_path):
    # Acks are sent before they are fsynced (SESSION.md 8). A power cut can take the joiner's
    # last ack and the act it acknowledged; resumed, the joiner must sign that same ack again,
    # even with a resignation asked for, or the host would hold two records with one number.
    from santorini_p2p.wire.log import encode_frames

    net = Net.create(tmp_path, 2, seed=20)
    _play_until(net, Phase.PLAY, turns=2)
    _idle(net)
    host, joiner = net.sessions
    if host.awaiting is None:
        assert joiner.position is not None
        joiner.submit(legal_actions(joiner.position)[0])
        _idle(net)
    assert host.position is not None
    host.submit(legal_actions(host.position)[0])
    _idle(net)
    held = [r.raw for r in joiner.records]
    assert isinstance(joiner.records[-1].message, Ack)
    assert joiner.records[-1].signer == joiner.identity.public_key
    joiner.close()
    joiner.journal_path.write_bytes(encode_frames(held[:-2]))
    net.sessions[1] = resumed = Session.resume(
        joiner.identity, joiner.journal_path, home=joiner.home, now=net.clock
    )
    resumed.resign()
    net.run()
    assert not any(s.stopped for s in net.sessions), net.summary()
    _assert_identical_complete(net)
    assert resumed.records[len(held) - 1].raw == held[-1]
    v = resumed.validator
    assert v is not None
    assert v.result == (v.seat_of(host.identity.public_key), "resign")


def test_a_clock_reading_far_below_what_was_observed_is_reported(tmp_path):
    net = Net.create(tmp_path, 2, time=TimeControl(60_000, 300_000), seed=19)
    _play_until(net, Phase.PLAY, turns=1)
    _idle(net)
    host = net.sessions[0]
    v = host.validator
    assert v is not None
    assert v.position is not None
    mover = net.sessions[1] if v.seat_of(identity(0).public_key) != v.position.to_move else host
    watcher = net.sessions[0] if mover is not host else net.sessions[1]
    for _ in range(10):
        net.step(1000)
    # The mover under-reports: its own reading starts now, 10 s after the move was due.
    mover._clock.started = net.clock.ms
    mover.submit(legal_actions(mover.position)[0])
    for _ in range(5):
        net.step()
    said = [n.text for n in watcher.notes if "reports the move took" in n.text]
    assert said, [n.text for n in watcher.notes]
    assert re.search(r"reports the move took \d+\.\d s, but 1\d\.\d s passed here", said[0])


def test_stop_and_refuse_from_an_unknown_connection_are_ignored_by_the_host(tmp_path):
    from santorini_p2p.net.frames import Refuse, Stop

    net = Net.create(tmp_path, 2, seed=20)
    _play_until(net, Phase.PLAY, turns=1)
    host = net.sessions[0]
    host.receive(b"stranger", encode_frame(Stop("go away", 0, b"", b"")))
    host.receive(b"stranger", encode_frame(Refuse("no")))
    assert host.stopped is None
    net.run()
    _assert_identical_complete(net)


def test_a_joiner_refusing_in_the_lobby_frees_its_seat(tmp_path):
    KnownPeers(tmp_path / "p1").check("player0", identity(8).public_key)
    net = Net.create(tmp_path, 4, seed=21)
    net.down.add(3)
    for _ in range(20):
        net.step()
    # player1 refused the host's key and left its seat; player2 moved down to the second.
    assert net.sessions[1].stopped is not None
    assert net.sessions[0].validator is None
    net.sessions[1] = Session.join(identity(5), home=tmp_path / "p5", now=net.clock)
    net.down.clear()
    net.run()
    assert not any(s.stopped for s in net.sessions), net.summary()
    _assert_identical_complete(net)


def test_an_illegal_local_turn_is_refused_and_the_game_goes_on(tmp_path):
    from santorini_p2p.engine import parse_turn
    from santorini_p2p.errors import IllegalTurnError

    net = Net.create(tmp_path, 2, seed=22)
    _play_until(net, Phase.PLAY, turns=1)
    _idle(net)
    mover = next(s for s in net.sessions if s.awaiting is not None)
    before = len(mover.records)
    for text in ("a1>e5^a1", "c3>c4^c5", "Ha1,e5^c3"):
        turn = parse_turn(text)
        if turn in legal_actions(mover.position):
            continue
        with pytest.raises(IllegalTurnError):
            mover.submit(turn)
    assert mover.stopped is None
    assert len(mover.records) == before
    net.bots = True
    net.run()
    _assert_identical_complete(net)


def test_an_offer_closed_before_the_game_starts_leaves_nothing_to_resume(tmp_path):
    from santorini_p2p.net.session import GameSettings, game_dir, unfinished_games

    home = tmp_path / "host"
    s = Session.host(identity(0), GameSettings(2), home=home, now=lambda: 0)
    assert list(game_dir(home).glob("*.json")), "the offer keeps a note while it is open"
    s.close()
    assert not list(game_dir(home).iterdir())
    assert unfinished_games(home) == []


class _RecordingLink:
    """A link that keeps what is sent (the session runner's view of the socket)."""

    def __init__(self) -> None:
        self.sent: list[bytes] = []

    def send(self, peer: bytes, frame: bytes) -> bool:
        self.sent.append(frame)
        return True

    async def receive(self, limit: float) -> tuple[bytes, bytes] | None:
        return None

    def close(self) -> None:
        pass


def test_a_network_game_sends_a_record_before_its_listeners_hear_of_it(tmp_path):
    # The peer waiting for this record should not wait for this peer's notes and screen.
    from santorini_p2p.net.frames import decode_frame
    from santorini_p2p.net.game import NetworkGame

    net = Net.create(tmp_path, 2, seed=21)
    _play_until(net, Phase.PLAY, turns=2)
    _idle(net)
    session = next(s for s in net.sessions if s.awaiting is not None)
    link = _RecordingLink()
    game = NetworkGame(session, link)
    heard: list[int] = []
    session.listen(lambda: heard.append(len(link.sent)))
    assert session.position is not None
    game.submit(legal_actions(session.position)[0])
    sent = [decode_frame(f) for f in link.sent]
    records = [f for f in sent if isinstance(f, RecordFrame)]
    assert [f.envelope for f in records] == [session.records[-1].raw]
    assert heard
    assert heard[0] >= 1  # already on the link when the first listener ran


def test_a_computer_player_thinks_once_its_peers_hold_its_acknowledgement(tmp_path):
    # Both peers on one machine: a search started at once slows the peer checking the ack.
    from santorini_p2p.net.game import BOT_WAIT_MS, NetworkGame

    net = Net.create(tmp_path, 2, seed=21)
    _play_until(net, Phase.PLAY, turns=2)
    _idle(net)
    mover = next(i for i, s in enumerate(net.sessions) if s.awaiting is not None)
    other = 1 - mover
    a, b = net.sessions[mover], net.sessions[other]
    assert a.position is not None
    a.submit(legal_actions(a.position)[0])
    a_id = HOST_ID if mover == 0 else net.peer_id(mover)
    b_id = HOST_ID if other == 0 else net.peer_id(other)
    for _, frame in a.outgoing():
        b.receive(a_id, frame)  # b checks the action and acknowledges it: b is to move
    b_out = b.outgoing()
    assert b.awaiting is not None
    assert not b.peers_hold_all
    thought: list[int] = []

    def bot(position, rng, stop):
        thought.append(1)
        return legal_actions(position)[0]

    clock = [0]
    game = NetworkGame(b, _RecordingLink(), bot=bot, now=lambda: clock[0])

    async def main() -> None:
        game._play_bot()
        assert game._bot_task is None, "thinking before the peer holds the acknowledgement"
        clock[0] += BOT_WAIT_MS - 1
        game._play_bot()
        assert game._bot_task is None
        for _, frame in b_out:
            a.receive(b_id, frame)  # the ack arrives; a says how much it holds
        for _, frame in a.outgoing():
            b.receive(a_id, frame)
        assert b.peers_hold_all
        game._play_bot()
        assert game._bot_task is not None
        await game._bot_task

    asyncio.run(main())
    assert thought == [1]


def test_a_computer_player_thinks_anyway_when_no_confirmation_comes(tmp_path):
    from santorini_p2p.net.game import BOT_WAIT_MS, NetworkGame

    net = Net.create(tmp_path, 2, seed=22)
    _play_until(net, Phase.PLAY, turns=2)
    _idle(net)
    mover = next(i for i, s in enumerate(net.sessions) if s.awaiting is not None)
    a, b = net.sessions[mover], net.sessions[1 - mover]
    assert a.position is not None
    a.submit(legal_actions(a.position)[0])
    a_id = HOST_ID if mover == 0 else net.peer_id(mover)
    for _, frame in a.outgoing():
        b.receive(a_id, frame)
    b.outgoing()  # the acknowledgement is lost
    clock = [0]
    game = NetworkGame(
        b, _RecordingLink(), bot=lambda p, rng, stop: legal_actions(p)[0], now=lambda: clock[0]
    )

    async def main() -> None:
        game._play_bot()
        assert game._bot_task is None
        clock[0] += BOT_WAIT_MS
        game._play_bot()
        assert game._bot_task is not None
        await game._bot_task

    asyncio.run(main())
    assert b.awaiting is None  # it played
