"""A hypothesis state machine drives sessions over a link that drops, duplicates, delays and
reorders frames: the peers never disagree on a record, and once the link heals every game
ends with byte-identical, verified journals (STYLE.md section 9, property 6)."""

from __future__ import annotations

import shutil
import tempfile
from pathlib import Path

import pytest
from hypothesis import settings
from hypothesis import strategies as st
from hypothesis.stateful import (
    RuleBasedStateMachine,
    initialize,
    invariant,
    precondition,
    rule,
)

from santorini_p2p.engine import legal_actions
from santorini_p2p.wire.log import read_log
from tests.net.harness import Net, Packet, Policy

pytestmark = pytest.mark.usefixtures("no_fsync")


class LossyLink(RuleBasedStateMachine):
    """Peers, a pool of frames in flight, and an adversarial scheduler."""

    def __init__(self) -> None:
        super().__init__()
        self.tmp = Path(tempfile.mkdtemp(prefix="santorini-machine-"))
        self.net: Net | None = None

    @initialize(
        players=st.sampled_from([2, 3, 4]), gods=st.sampled_from(["none", "draft", "challenger"])
    )
    def setup(self, players: int, gods: str) -> None:
        self.net = Net.create(self.tmp, players, gods, policy=Policy())
        self.net.bots = False
        self.net.tick_all(10)

    def _pool(self) -> list[Packet]:
        assert self.net is not None
        return self.net.packets

    @rule(ms=st.integers(0, 400))
    def time_passes(self, ms: int) -> None:
        assert self.net is not None
        self.net.tick_all(ms)

    @precondition(lambda self: self.net is not None and self.net.packets)
    @rule(data=st.data())
    def deliver_any(self, data: st.DataObject) -> None:
        pool = self._pool()
        i = data.draw(st.integers(0, len(pool) - 1), label="packet")
        assert self.net is not None
        self.net.deliver(pool.pop(i))

    @precondition(lambda self: self.net is not None and self.net.packets)
    @rule(count=st.integers(1, 8))
    def deliver_oldest(self, count: int) -> None:
        assert self.net is not None
        for _ in range(min(count, len(self._pool()))):
            self.net.deliver(self._pool().pop(0))

    @precondition(lambda self: self.net is not None and self.net.packets)
    @rule(data=st.data())
    def drop(self, data: st.DataObject) -> None:
        pool = self._pool()
        pool.pop(data.draw(st.integers(0, len(pool) - 1), label="dropped"))

    @precondition(lambda self: self.net is not None and self.net.packets)
    @rule(data=st.data())
    def duplicate(self, data: st.DataObject) -> None:
        pool = self._pool()
        pool.append(pool[data.draw(st.integers(0, len(pool) - 1), label="duplicated")])

    @rule(data=st.data())
    def play(self, data: st.DataObject) -> None:
        assert self.net is not None
        for i, s in enumerate(self.net.sessions):
            if s.awaiting is not None and s.position is not None:
                action = data.draw(st.sampled_from(legal_actions(s.position)), label="action")
                self.net.active[0] = i
                s.submit(action)
                self.net.flush()
                return

    @invariant()
    def peers_agree_on_every_record_they_hold(self) -> None:
        if self.net is None:
            return
        logs = [[r.raw for r in s.records] for s in self.net.sessions]
        for log in logs[1:]:
            common = min(len(log), len(logs[0]))
            assert log[:common] == logs[0][:common]
        for s in self.net.sessions:
            assert s.stopped is None, s.stopped

    def teardown(self) -> None:
        try:
            if self.net is not None:
                net = self.net
                net.bots = True
                net.packets = [Packet(0, p.src, p.dst, p.data) for p in net.packets]
                net.run(limit=20_000, ms=50)
                data = net.journals()
                assert all(d == data[0] for d in data), net.summary()
                assert read_log(data[0]).is_complete
        finally:
            shutil.rmtree(self.tmp, ignore_errors=True)


LossyLink.TestCase.settings = settings(
    settings.get_profile("ci"), max_examples=12, stateful_step_count=40
)
test_lossy_link_machine = LossyLink.TestCase
