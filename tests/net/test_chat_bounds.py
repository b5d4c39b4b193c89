"""Chat within bounds (SESSION.md 5): a flood is refused, and the log keeps room for the end.

Over the in-memory link of ``harness.py``. A hostile peer is a real session whose writer is
bypassed: it signs chat records itself and sends them as fast as it likes.
"""

from __future__ import annotations

import pytest

from santorini_p2p.engine import Phase
from santorini_p2p.net import bounds
from santorini_p2p.net.bounds import CHAT_RUN
from santorini_p2p.net.clock import TimeControl
from santorini_p2p.net.session import Session, SessionError
from santorini_p2p.wire.log import read_log
from santorini_p2p.wire.messages import Chat, Offer, Result
from tests.net.harness import Net

pytestmark = pytest.mark.usefixtures("no_fsync")


def _in_play(tmp_path, players: int = 2, time: TimeControl | None = None) -> Net:
    net = Net.create(tmp_path, players, seed=23, options=("chat", "takeback"), time=time)
    for _ in range(5_000):
        v = net.sessions[0].validator
        if v is not None and v.position is not None and v.position.phase is Phase.PLAY:
            return net
        net.step()
    raise AssertionError(net.summary())


def _flood(s: Session, lines: int) -> None:
    """Sign and send ``lines`` chat records at once, past the session's own writer."""
    for i in range(lines):
        v = s.validator
        assert v is not None
        s._write(v.make_chat(s.identity, f"spam {i}"))


def _longest_run(data: bytes) -> int:
    """The most chat lines one signer wrote with no other record between them."""
    best, runs = 0, {}
    for r in read_log(data, complete=False).records:
        if isinstance(r.message, Chat):
            runs[r.signer] = runs.get(r.signer, 0) + 1
            best = max(best, runs[r.signer])
        else:
            runs = {}
    return best


def test_a_seated_flooder_is_refused_and_the_game_still_ends_with_a_result(tmp_path):
    net = _in_play(tmp_path, time=TimeControl(2_000, 3_000))
    host, flooder = net.sessions
    _flood(flooder, 3 * CHAT_RUN)
    net.run(limit=5_000, ms=50)
    assert host.stopped is None, host.stopped
    assert host.is_complete
    data = host.journal_path.read_bytes()
    assert read_log(data).is_complete
    assert _longest_run(data) <= CHAT_RUN
    assert host.dropped > 0
    flood = [n.text for n in host.notes if "chat flood" in n.text]
    assert len(flood) == 1, flood
    assert f"more than {CHAT_RUN} chat lines" in flood[0]


def test_a_host_that_sends_a_flood_is_stopped_by_its_joiner_with_the_reason(tmp_path):
    net = _in_play(tmp_path)
    net.bots = False
    host, joiner = net.sessions
    _flood(host, CHAT_RUN + 1)
    for _ in range(20):
        net.step()
    assert joiner.stopped is not None
    assert f"chat flood at record {len(joiner.records)}" in joiner.stopped
    assert "SESSION.md 5" in joiner.stopped
    assert joiner.report_path is not None
    assert _longest_run(joiner.journal_path.read_bytes()) == CHAT_RUN


def test_an_honest_players_many_lines_all_arrive_in_runs_within_the_bound(tmp_path):
    net = _in_play(tmp_path)
    host, joiner = net.sessions
    said = [f"line {i}" for i in range(3 * CHAT_RUN)]
    for line in said:
        joiner.say(line)
    net.run()
    data = host.journal_path.read_bytes()
    assert data == joiner.journal_path.read_bytes()
    chats = [r.message.text for r in read_log(data).records if isinstance(r.message, Chat)]
    assert chats == said  # none lost, in the order said
    assert _longest_run(data) <= CHAT_RUN
    assert host.dropped == 0


def test_the_end_of_the_log_is_kept_for_the_result_whatever_is_said(tmp_path, monkeypatch):
    net = _in_play(tmp_path)
    host, joiner = net.sessions
    last = len(host.records) + 6
    monkeypatch.setattr(bounds, "LAST_REQUEST", last)
    for i in range(40):
        joiner.say(f"filler {i}")
        if i < 3:
            host.say(f"host {i}")
    net.run()
    data = host.journal_path.read_bytes()
    assert data == joiner.journal_path.read_bytes()
    log = read_log(data)
    assert log.is_complete
    late = [r for r in log.records[last:] if isinstance(r.message, Chat | Offer)]
    assert late == []
    assert isinstance(log.records[-1].message, Result)
    with pytest.raises(SessionError, match=r"game is not in play|records for the game's end"):
        joiner.say("one more")


def test_past_the_reserve_a_receiver_refuses_a_chat_line_with_the_reason(tmp_path, monkeypatch):
    net = _in_play(tmp_path)
    net.bots = False
    host, joiner = net.sessions
    monkeypatch.setattr(bounds, "LAST_REQUEST", len(host.records))
    _flood(host, 1)
    for _ in range(20):
        net.step()
    assert joiner.stopped is not None
    assert "keeps its last 1000 records for the game's end" in joiner.stopped
