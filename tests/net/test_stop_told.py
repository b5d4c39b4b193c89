"""A joiner busy when the host stops the game still learns why (SESSION.md 6).

A joiner's socket drops what it holds of a connection that closes before it reads it; so a
host that stops tells each player again every 300 ms while it is connected, and stays
(bounded) until each has left. First on the in-memory link, then on real sockets, where the
joiner reads nothing until the host has stopped and would, before, have closed.
"""

from __future__ import annotations

import asyncio
import random
import threading
from pathlib import Path

from santorini_p2p.engine import Action, Position, legal_actions
from santorini_p2p.errors import StorageError
from santorini_p2p.net.frames import Refuse, Status, Stop, decode_frame
from santorini_p2p.net.game import NetworkGame
from santorini_p2p.net.session import HOST_ID
from santorini_p2p.net.transport import (
    JoinTransport,
    bind_host,
    close_context,
    new_context,
)
from tests.net.harness import Net
from tests.net.lastword import WAIT_S, Counting, ann_hosts, bob_joins, pump, pump_until, until


def _started(net: Net) -> None:
    """Step until every seat holds the header and the game is in play (bounded)."""
    for _ in range(5_000):
        if all(s.position is not None for s in net.sessions):
            net.bots = False
            for _ in range(30):  # every acknowledgement in flight arrives
                net.step()
            return
        net.step()
    raise AssertionError(net.summary())


def test_a_stopped_host_tells_each_joiner_again_until_it_has_left(tmp_path):
    """Two joiners, both busy when the stop comes: each is told again every 300 ms until a
    send to it fails (it has left); the host is held while one of them is connected."""
    net = Net.create(tmp_path, 3, seed=7)
    _started(net)
    host = net.sessions[0]
    bob, cat = net.peer_id(1), net.peer_id(2)
    host.outgoing()
    host._stop("a test stop", index=len(host.records))
    sent: dict[bytes, list[bytes]] = {bob: [], cat: []}

    def collect() -> None:
        for to, data in host.outgoing():
            sent[to].append(data)

    collect()
    assert host.told_stop
    assert sorted(host.players_told) == [bob, cat]
    for _ in range(13):  # 650 ms: both busy, reading nothing
        net.clock.ms += 50
        host.tick()
        collect()
    assert [len(sent[bob]), len(sent[cat])] == [3, 3], "the stop, then again every 300 ms"
    assert all(isinstance(decode_frame(d), Stop) for d in sent[bob] + sent[cat])
    # Bob reads the last one told him: the real reason, not a lost connection.
    joiner = net.sessions[1]
    joiner.receive(HOST_ID, sent[bob][-1])
    assert joiner.stopped is not None
    assert "stopped the game: a test stop" in joiner.stopped
    host.undelivered(bob)  # bob has left: his connection is gone
    assert host.players_told == [cat]
    assert host.told_stop
    sent = {bob: [], cat: []}
    net.clock.ms += 300
    host.tick()
    collect()
    assert (len(sent[bob]), len(sent[cat])) == (0, 1)
    host.undelivered(cat)
    assert not host.told_stop
    net.clock.ms += 1000
    host.tick()
    assert host.outgoing() == []


def test_a_joiner_that_stops_is_not_told_its_own_stop_again(tmp_path):
    """The host stopped by a joiner's stop tells the others, never that joiner, and a joiner
    that stops does not repeat its stop: the host's socket keeps what a joiner sent it."""
    net = Net.create(tmp_path, 3, seed=8)
    _started(net)
    host, joiner = net.sessions[0], net.sessions[1]
    host.outgoing()
    joiner.outgoing()
    joiner._stop("a joiner's test stop", index=len(joiner.records))
    [(to, data)] = joiner.outgoing()
    assert to == HOST_ID
    host.receive(net.peer_id(1), data)
    assert host.stopped is not None
    assert host.players_told == [net.peer_id(2)]
    for _ in range(10):
        net.clock.ms += 100
        host.tick()
        joiner.tick()
        assert all(to != net.peer_id(1) for to, _ in host.outgoing())
        assert joiner.outgoing() == []


async def _stopped_host_and_a_busy_joiner(tmp: Path) -> None:
    ctx = new_context()
    raw = await bind_host(ctx, "127.0.0.1", 0)
    link = Counting(raw)
    address = f"127.0.0.1:{raw.port}"
    session = ann_hosts(tmp, address)
    game = NetworkGame(session, link)
    host = asyncio.create_task(game.run())
    jctx = new_context()
    jlink = JoinTransport(jctx, address)
    bob = bob_joins(tmp, address)
    try:
        loop = asyncio.get_running_loop()
        deadline = loop.time() + WAIT_S
        while bob.position is None or session.position is None:
            assert loop.time() < deadline, "the game never started"
            assert not host.done(), "the host left before the game started"
            await pump(bob, jlink)
        [peer] = [p for p, st in session._peers.items() if st.slot is not None]
        # Bob is busy: he reads nothing while the host stops and tells him.
        session._stop("a test stop", index=len(session.records))
        await until(lambda: link.stops.get(peer, 0) >= 3 or host.done(), "the stop told again")
        assert not host.done(), "the host left a joiner that had not read its stop"
        # He reads it at last, and leaves; then the host ends.
        await pump_until(bob, jlink, lambda: bob.stopped is not None, "bob never read the stop")
        assert "ann stopped the game: a test stop" in bob.stopped
        jlink.close()
        await asyncio.wait_for(host, WAIT_S)
        assert game.stopped is not None
    finally:
        host.cancel()
        jlink.close()
        bob.close()
        await close_context(jctx)
        raw.close()
        await close_context(ctx)


def test_a_stopped_host_waits_for_a_busy_joiner_to_read_the_stop(tmp_path):
    asyncio.run(_stopped_host_and_a_busy_joiner(tmp_path))


def test_a_finished_host_sends_its_last_status_again_until_each_joiner_has_left(tmp_path):
    """The last record is a joiner's; the host's status acknowledges it. Until a send to the
    joiner fails (it has read it and left), the host sends it again every 300 ms."""
    net = Net.create(tmp_path, 2, seed=9)
    net.run()
    host = net.sessions[0]
    assert host.is_complete
    bob = net.peer_id(1)
    host.outgoing()
    assert host.players_told_end == [bob]
    sent: list[bytes] = []
    for _ in range(13):  # 650 ms
        net.clock.ms += 50
        host.tell_end_again()
        sent += [data for to, data in host.outgoing() if to == bob]
    assert len(sent) == 2, "a status every 300 ms"
    last = decode_frame(sent[-1])
    assert isinstance(last, Status)
    assert last.have == len(host.records)
    host.undelivered(bob)  # bob has left: his connection is gone
    assert host.players_told_end == []
    net.clock.ms += 1000
    host.tell_end_again()
    assert host.outgoing() == []


def _first_legal(p: Position, rng: random.Random, stop: threading.Event) -> Action:
    del rng, stop
    return legal_actions(p)[0]


async def _finished_host_and_a_busy_joiner(tmp: Path) -> None:
    ctx = new_context()
    raw = await bind_host(ctx, "127.0.0.1", 0)
    statuses: dict[bytes, int] = {}

    class _Statuses(Counting):
        def send(self, peer: bytes, frame: bytes) -> bool:
            if isinstance(decode_frame(frame), Status) and session.is_settled:
                statuses[peer] = statuses.get(peer, 0) + 1
            return self.link.send(peer, frame)

    address = f"127.0.0.1:{raw.port}"
    session = ann_hosts(tmp, address)
    game = NetworkGame(session, _Statuses(raw), bot=_first_legal)
    host = asyncio.create_task(game.run())
    jctx = new_context()
    jlink = JoinTransport(jctx, address)
    bob = bob_joins(tmp, address)
    try:
        loop = asyncio.get_running_loop()
        await pump_until(bob, jlink, lambda: bob.position is not None, "the game never started")
        bob.resign()  # signed at his turn; the result is signed in seat order, his last
        deadline = loop.time() + WAIT_S
        while not bob.is_complete:
            assert loop.time() < deadline, "the game never ended"
            assert not host.done(), "the host left before the end"
            await pump(bob, jlink)
        for peer, data in bob.outgoing():  # his last record goes; then he is busy
            jlink.send(peer, data)
        await until(lambda: session.is_settled or host.done(), "the host holds every record")
        await until(lambda: sum(statuses.values()) >= 2 or host.done(), "the status again")
        assert not host.done(), "the host left a joiner that had not read its last status"
        await pump_until(
            bob, jlink, lambda: bob.is_settled, "bob never learned that the host holds every record"
        )
        jlink.close()
        await asyncio.wait_for(host, WAIT_S)
        assert game.outcome().complete
    finally:
        host.cancel()
        jlink.close()
        bob.close()
        await close_context(jctx)
        raw.close()
        await close_context(ctx)


def test_a_finished_host_waits_for_a_busy_joiner_to_read_its_last_status(tmp_path):
    asyncio.run(_finished_host_and_a_busy_joiner(tmp_path))


async def _unstarted_host_and_a_busy_joiner(tmp: Path) -> None:
    ctx = new_context()
    raw = await bind_host(ctx, "127.0.0.1", 0)
    refusals: dict[bytes, int] = {}

    class _Refusals(Counting):
        def send(self, peer: bytes, frame: bytes) -> bool:
            if isinstance(decode_frame(frame), Refuse):
                refusals[peer] = refusals.get(peer, 0) + 1
            return self.link.send(peer, frame)

    address = f"127.0.0.1:{raw.port}"
    session = ann_hosts(tmp, address)

    def full(*args: object, **kwargs: object) -> object:
        raise StorageError("cannot write the journal: No space left on device")

    session.store.create_journal = full  # type: ignore[method-assign]
    game = NetworkGame(session, _Refusals(raw))
    host = asyncio.create_task(game.run())
    jctx = new_context()
    jlink = JoinTransport(jctx, address)
    bob = bob_joins(tmp, address)
    try:
        loop = asyncio.get_running_loop()
        deadline = loop.time() + WAIT_S
        # Bob says hello and proves his key; he reads nothing once the host has refused him.
        # A receive that finds nothing queued does not wait, so the host cannot refuse him
        # between the check and the read.
        while session.stopped is None:
            assert loop.time() < deadline, "the host never tried to start"
            await pump(bob, jlink, wait=0)
            await asyncio.sleep(0.005)
        assert bob.stopped is None
        await until(lambda: sum(refusals.values()) >= 3 or host.done(), "the refusal again")
        assert not host.done(), "the host left a joiner that had not read its refusal"
        await pump_until(bob, jlink, lambda: bob.stopped is not None, "bob never read the refusal")
        assert "cannot start the game" in bob.stopped
        assert "No space left on device" in bob.stopped
        jlink.close()
        await asyncio.wait_for(host, WAIT_S)
    finally:
        host.cancel()
        jlink.close()
        bob.close()
        await close_context(jctx)
        raw.close()
        await close_context(ctx)


def test_a_host_that_cannot_start_waits_for_a_busy_joiner_to_read_why(tmp_path):
    asyncio.run(_unstarted_host_and_a_busy_joiner(tmp_path))
