"""A timeout claim is checked by every receiver against its own clock (SESSION.md 7).

A dishonest peer (here: a session made to sign a timeout at once) claims the other seat out of
time the moment its move is due; the receiver refuses to sign the result and stops with a
report naming the claim, and its journal never holds the claim.
"""

from __future__ import annotations

import pytest

from santorini_p2p.engine import Phase, legal_actions
from santorini_p2p.net.clock import TimeControl
from santorini_p2p.net.session import Session
from santorini_p2p.replay.verify import verify_file
from santorini_p2p.wire.log import read_log
from santorini_p2p.wire.messages import Result, Timeout
from tests.net.harness import Net

pytestmark = pytest.mark.usefixtures("no_fsync")

TC = TimeControl(30_000, 60_000)


def _due(net: Net, mover: int) -> Session:
    """Play into the game, then make it ``mover``'s move, every peer watching for 6 s."""
    for _ in range(5_000):
        v = net.sessions[0].validator
        p = v.position if v is not None else None
        playing = v is not None and p is not None and p.phase is Phase.PLAY
        if playing and v is not None and v.turns >= 2 and not v.pending_acks:
            break
        net.step()
    net.bots = False
    for _ in range(30):
        net.step(200)  # keepalives flow; nobody is shown as disconnected
    s = net.sessions[mover]
    other = net.sessions[1 - mover]
    v = other.validator
    assert v is not None
    assert v.position is not None
    if v.seat_of(s.identity.public_key) != v.position.to_move:
        other.submit(legal_actions(other.position)[0])
        for _ in range(10):
            net.step()
    assert v.position.to_move == v.seat_of(s.identity.public_key)
    return s


def _claim_at_once(cheat: Session) -> None:
    v = cheat.validator
    assert v is not None
    cheat._write(v.make_timeout(cheat.identity))  # what a modified program would do
    cheat._advance()


@pytest.mark.parametrize("cheat", [0, 1], ids=["host-claims", "joiner-claims"])
def test_a_premature_timeout_claim_stops_the_game_and_is_never_signed(tmp_path, cheat):
    net = Net.create(tmp_path, 2, time=TC, seed=31)
    victim_i = 1 - cheat
    _due(net, victim_i)
    victim = net.sessions[victim_i]
    held = victim.validator.next_seq
    _claim_at_once(net.sessions[cheat])
    for _ in range(20):
        net.step()
    assert victim.stopped is not None
    assert "premature timeout claim" in victim.stopped
    assert "grace 3000 ms" in victim.stopped
    # The victim neither journaled the claim nor signed a result.
    log = read_log(victim.journal_path.read_bytes(), complete=False)
    assert log.next_seq == held
    assert not any(isinstance(r.message, Timeout | Result) for r in log.records)
    # Its report holds the refused claim, for replay verify to point at.
    assert victim.report_path is not None
    assert victim.report_path.exists()
    verdict = verify_file(victim.report_path.with_suffix(".sntr"))
    assert not verdict.ok
    # The cheat is told with a signed stop.
    assert net.sessions[cheat].stopped is not None


def test_a_claim_made_moments_before_the_time_is_up_is_within_the_grace(tmp_path):
    net = Net.create(tmp_path, 2, time=TC, seed=33)
    victim = _due(net, 1)
    host = net.sessions[0]
    seat = victim.my_seat
    assert seat is not None
    # 2 s short of the victim's time by the host's clock: network delay could explain it.
    for _ in range(1000):
        c = host.clocks()[seat]
        if c.move_ms + c.bank_ms <= 2000:
            break
        net.step(100)
    assert not victim.stopped
    _claim_at_once(host)
    for _ in range(20):
        net.step()
    assert victim.stopped is None, victim.stopped
    assert victim.is_complete
    v = read_log(victim.journal_path.read_bytes())
    assert v.result is not None
    assert v.result[1] == "time"


def _first_move_due(net: Net) -> None:
    """Play to the first move of the game (the first god pick or placement), then stop."""
    net.bots = False
    for _ in range(5_000):
        v = net.sessions[0].validator
        ready = v is not None and v.position is not None and not v.pending_acks
        if ready and all(
            s.validator is not None and s.validator.next_seq == v.next_seq for s in net.sessions
        ):
            break
        net.step()
    net.bots = False


def test_a_claim_in_the_first_seconds_of_a_fresh_game_is_refused(tmp_path):
    """Finding 4: no window at the start in which any claim is believed."""
    net = Net.create(tmp_path, 2, time=TC, seed=35)
    _first_move_due(net)
    host, joiner = net.sessions
    v = host.validator
    assert v is not None
    assert v.position is not None
    to_move = v.seats[v.position.to_move]
    cheat, victim = (host, joiner) if to_move == joiner.identity.public_key else (joiner, host)
    held = victim.validator.next_seq
    net.step()  # 10 ms after the first move was due
    _claim_at_once(cheat)
    for _ in range(20):
        net.step()
    assert victim.stopped is not None
    assert "premature timeout claim" in victim.stopped
    assert read_log(victim.journal_path.read_bytes(), complete=False).next_seq == held


def test_a_claim_that_crosses_the_movers_act_is_judged_from_when_the_move_was_due(tmp_path):
    """Finding 4: the mover's act lost the race to a fair claim; its clock is not reset."""
    net = Net.create(tmp_path, 2, time=TC, seed=37)
    victim = _due(net, 1)
    host = net.sessions[0]
    seat = victim.my_seat
    assert seat is not None
    for _ in range(1000):
        c = host.clocks()[seat]
        if c.move_ms + c.bank_ms <= 1500:
            break
        net.step(100)
    assert victim.stopped is None
    # Both in the same instant: the host's claim and the victim's act cross on the wire.
    _claim_at_once(host)
    victim.submit(legal_actions(victim.position)[0])
    for _ in range(40):
        net.step()
    assert victim.stopped is None, victim.stopped
    assert host.stopped is None, host.stopped
    net.run()
    v = read_log(victim.journal_path.read_bytes())
    assert v.result is not None
    assert v.result[1] == "time"
    assert victim.journal_path.read_bytes() == host.journal_path.read_bytes()


def test_after_a_silence_from_the_host_a_fair_claim_is_still_accepted(tmp_path):
    """A record held back by a broken link may have been due long before it came."""
    net = Net.create(tmp_path, 3, time=TC, seed=39)
    _first_move_due(net)
    host = net.sessions[0]
    v = host.validator
    assert v is not None
    assert v.position is not None
    # A third seat watches while the link to it is down for longer than the grace.
    mover = next(s for s in net.sessions if v.seats[v.position.to_move] == s.identity.public_key)
    watcher = next(s for s in net.sessions[1:] if s is not mover)
    w = net.sessions.index(watcher)
    net.down.add(w)
    for _ in range(TC.move_ms // 1000 + v.clocks[v.position.to_move] // 1000 + 4):
        net.step(1000)
    net.down.discard(w)
    for _ in range(200):
        net.step(50)
    assert watcher.stopped is None, watcher.stopped
    assert host.stopped is None, host.stopped
    assert any(isinstance(r.message, Timeout) for r in watcher.records)


def test_a_joiner_resumed_after_its_crash_accepts_the_claim_made_while_it_was_down(tmp_path):
    """The claim came while it was gone: judged from its journal's last write, not refused."""
    from santorini_p2p.net.session import Sources
    from santorini_p2p.net.trust import KnownPeers
    from tests.net.harness import identity

    net = Net.create(tmp_path, 2, time=TC, seed=45)
    victim = _due(net, 1)
    host = net.sessions[0]
    seat = victim.my_seat
    assert seat is not None
    path = victim.journal_path
    written_ms = path.stat().st_mtime_ns // 1_000_000
    crashed_at = net.clock.ms
    net.down.add(1)  # the joiner's process is killed with its move due
    victim.close()
    for _ in range(200):
        if host.validator is not None and host.validator.is_over:
            break
        net.step(1000)
    assert any(isinstance(r.message, Timeout) for r in host.records)
    # The same command again, as much later by the wall clock as the fake clock has run.
    home = tmp_path / "p1"
    wall = Sources(wall_ms=lambda: written_ms + (net.clock.ms - crashed_at))
    again = Session.resume(
        identity(1), path, home=home, now=net.clock, known=KnownPeers(home), sources=wall
    )
    net.sessions[1] = again
    net.down.discard(1)
    net.run(limit=2_000)
    assert again.stopped is None, again.stopped
    assert host.stopped is None, host.stopped
    assert again.journal_path.read_bytes() == host.journal_path.read_bytes()
    v = read_log(host.journal_path.read_bytes())
    assert v.result is not None
    assert v.result[1] == "time"
