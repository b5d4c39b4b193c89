"""Decoder fuzz, time-bounded: untrusted frames never stop a game, damaged journals never crash.

Frames built from random msgpack values with a real tag go to a host and a joiner in play,
from a stranger and from the seated peer's own connection: nothing may stop either session
(a frame that changes a game must be signed for the connection). Records (tag 4) go from the
stranger only: a bad record from a seated peer at the next number stops the game by design.
Journals damaged at random are read as a resume reads them: they verify, or fail with
``ReplayError``, nothing else.
"""

from __future__ import annotations

import copy

import msgpack
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from santorini_p2p.engine import Phase
from santorini_p2p.errors import ReplayError
from santorini_p2p.net.session import HOST_ID
from santorini_p2p.wire.log import scan_journal
from tests.net.harness import Net

pytestmark = pytest.mark.usefixtures("no_fsync")

scalars = st.one_of(
    st.none(),
    st.booleans(),
    st.integers(-(2**63), 2**64 - 1),
    st.binary(max_size=70),
    st.text(max_size=40),
)
values = st.recursive(scalars, lambda inner: st.lists(inner, max_size=6), max_leaves=12)
frames = st.builds(
    lambda tag, rest: msgpack.packb([tag, *rest], use_bin_type=True),
    st.integers(0, 11),
    st.lists(values, max_size=10),
)


def _in_play(tmp_path_factory) -> Net:
    net = Net.create(tmp_path_factory.mktemp("fuzz"), 2, seed=60)
    for _ in range(5_000):
        v = net.sessions[0].validator
        if v is not None and v.position is not None and v.position.phase is Phase.PLAY:
            break
        net.step()
    net.bots = False
    for _ in range(20):
        net.step()
    return net


@pytest.fixture(scope="module")
def playing(tmp_path_factory):
    import os

    real = os.fsync
    os.fsync = lambda fd: None
    try:
        yield _in_play(tmp_path_factory)
    finally:
        os.fsync = real


@settings(
    max_examples=120,
    deadline=2000,
    suppress_health_check=[HealthCheck.function_scoped_fixture, HealthCheck.too_slow],
)
@given(st.lists(frames, min_size=1, max_size=5))
def test_random_frames_never_stop_a_game_in_play(playing, data):
    host, joiner = playing.sessions
    held = (len(host.records), len(joiner.records))
    for raw in data:
        host.receive(b"stranger", raw)
        if raw[1] != 4:
            host.receive(playing.peer_id(1), raw)
            joiner.receive(HOST_ID, raw)
    host.outgoing()
    joiner.outgoing()
    assert host.stopped is None
    assert joiner.stopped is None
    assert (len(host.records), len(joiner.records)) == held


@pytest.fixture(scope="module")
def journal(playing):
    return playing.sessions[0].journal_path.read_bytes()


@settings(max_examples=300, deadline=2000, suppress_health_check=[HealthCheck.too_slow])
@given(st.data())
def test_a_damaged_journal_is_read_or_refused_with_a_replay_error(journal, data):
    raw = bytearray(copy.copy(journal))
    for _ in range(data.draw(st.integers(1, 4))):
        kind = data.draw(st.sampled_from(["flip", "cut", "zeros", "junk"]))
        at = data.draw(st.integers(0, max(0, len(raw) - 1)))
        if kind == "flip" and raw:
            raw[at] ^= data.draw(st.integers(1, 255))
        elif kind == "cut":
            del raw[at:]
        elif kind == "zeros":
            raw[at:] = bytes(len(raw) - at + data.draw(st.integers(0, 300)))
        else:
            raw[at:at] = data.draw(st.binary(min_size=1, max_size=20))
    try:
        v, good = scan_journal(bytes(raw))
    except ReplayError:
        return
    assert 0 < good <= len(raw)
    assert v.next_seq >= 0
