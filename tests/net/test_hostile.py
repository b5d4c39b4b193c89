"""Hostile peers on 127.0.0.1: a stranger and a replayer with nothing but pyzmq and msgpack.

The host and the joiner are the real sessions, transports and computer players, on one event
loop; the attacker is a raw ZeroMQ DEALER that sends msgpack arrays. Whatever it sends, the
honest game must finish with identical journals, or nothing must happen at all: no seat moves,
nothing stops.
"""

from __future__ import annotations

import asyncio
import random
from collections.abc import Callable
from pathlib import Path

import msgpack
import zmq
import zmq.asyncio

from santorini_p2p.net.frames import (
    SESSION_VERSION,
    Challenge,
    Hello,
    Proof,
    Proven,
    Refuse,
    Status,
    Welcome,
    decode_frame,
    sign_hello,
)
from santorini_p2p.net.game import NetworkGame, ai_bot, paced
from santorini_p2p.net.session import GameSettings, Session
from santorini_p2p.net.transport import (
    HOST_PEER,
    FrameLink,
    JoinTransport,
    bind_host,
    close_context,
    new_context,
)
from santorini_p2p.net.trust import KnownPeers
from santorini_p2p.wire.log import read_log
from tests.net.harness import identity
from tests.patience import patient

WAIT_S = patient(30.0)
_OPEN: set[object] = set()
"""Games and attackers not yet closed: a failing test closes them before the context ends."""
ALICE = identity(0, "alice")
BOB = identity(1, "bob")


class Tap:
    """A link that records every frame sent and received (what an eavesdropper sees)."""

    def __init__(self, link: FrameLink) -> None:
        self.link = link
        self.sent: list[bytes] = []
        self.received: list[bytes] = []

    def send(self, peer: bytes, frame: bytes) -> bool:
        self.sent.append(frame)
        return self.link.send(peer, frame)

    async def receive(self, limit: float) -> tuple[bytes, bytes] | None:
        got = await self.link.receive(limit)
        if got is not None:
            self.received.append(got[1])
        return got

    def close(self) -> None:
        self.link.close()

    def first(self, kind: type, frames: list[bytes]) -> bytes:
        for raw in frames:
            if isinstance(decode_frame(raw), kind):
                return raw
        raise AssertionError(f"no {kind.__name__} frame seen")


class Attacker:
    """A raw DEALER on the host's port: sends msgpack arrays, keeps what comes back."""

    def __init__(self, ctx: zmq.asyncio.Context, port: int) -> None:
        self.sock = ctx.socket(zmq.DEALER)
        self.sock.setsockopt(zmq.LINGER, 0)
        self.sock.connect(f"tcp://127.0.0.1:{port}")
        self.got: list[object] = []
        _OPEN.add(self)

    async def send(self, value: object) -> None:
        await self.sock.send(msgpack.packb(value, use_bin_type=True))

    async def send_raw(self, raw: bytes) -> None:
        await self.sock.send(raw)

    async def collect(self, seconds: float) -> list[object]:
        """Everything the host sends back within ``seconds``, decoded."""
        loop = asyncio.get_running_loop()
        end = loop.time() + seconds
        while (left := end - loop.time()) > 0:
            try:
                async with asyncio.timeout(left):
                    raw = await self.sock.recv()
            except TimeoutError:
                break
            self.got.append(decode_frame(raw))
        return self.got

    async def collect_until(self, what: Callable[[], bool]) -> list[object]:
        """What the host sends back until ``what()`` holds (bounded), decoded."""
        loop = asyncio.get_running_loop()
        end = loop.time() + WAIT_S
        while not what():
            if loop.time() > end:
                raise AssertionError(f"timed out; got {self.got}")
            await self.collect(0.05)
        got, self.got = self.got, []
        return got

    def close(self) -> None:
        self.sock.close(linger=0)
        _OPEN.discard(self)


async def until(what: Callable[[], bool], seconds: float = WAIT_S) -> None:
    """Wait (bounded) until ``what()`` holds, polling."""
    loop = asyncio.get_running_loop()
    end = loop.time() + seconds
    while not what():
        if loop.time() > end:
            raise AssertionError("timed out waiting")
        await asyncio.sleep(0.01)


class Game:
    """A host (alice) and a joiner (bob) over 127.0.0.1, computer players at a human pace."""

    def __init__(self, root: Path, ctx: zmq.asyncio.Context, pace_ms: int = 30) -> None:
        self.root = root
        self.ctx = ctx
        self.pace_ms = pace_ms
        self.tasks: list[asyncio.Task[None]] = []
        _OPEN.add(self)

    async def start_host(self) -> None:
        self.link = await bind_host(self.ctx, "127.0.0.1", 0)
        self.port = self.link.port
        home = self.root / "alice"
        self.host = Session.host(
            ALICE, GameSettings(2), home=home, known=KnownPeers(home), now=_now, address=""
        )
        bot = paced(ai_bot("easy"), self.pace_ms)
        self.host_game = NetworkGame(self.host, self.link, bot=bot, rng=random.Random(1))
        self.tasks.append(asyncio.create_task(self.host_game.run()))

    def start_joiner(self) -> None:
        home = self.root / "bob"
        self.joiner = Session.join(BOB, home=home, known=KnownPeers(home), now=_now)
        self.tap = Tap(JoinTransport(self.ctx, f"127.0.0.1:{self.port}"))
        bot = paced(ai_bot("easy"), self.pace_ms)
        self.join_game = NetworkGame(self.joiner, self.tap, bot=bot, rng=random.Random(2))
        self.tasks.append(asyncio.create_task(self.join_game.run()))

    async def finish(self) -> None:
        async with asyncio.timeout(WAIT_S * 2):
            await asyncio.gather(*self.tasks)
        self.close()

    def close(self) -> None:
        for t in self.tasks:
            t.cancel()
        for link in (getattr(self, "link", None), getattr(self, "tap", None)):
            if link is not None:
                link.close()
        _OPEN.discard(self)

    def assert_identical_complete(self) -> None:
        assert self.host.stopped is None
        assert self.joiner.stopped is None
        assert self.host.is_complete
        assert self.joiner.is_complete
        a = self.host.journal_path.read_bytes()
        b = self.joiner.journal_path.read_bytes()
        assert a == b
        assert read_log(a).is_complete


def _now() -> int:
    from santorini_p2p.net.clock import monotonic_ms

    return monotonic_ms()


def run(main: Callable[[zmq.asyncio.Context], object]) -> None:
    async def wrapped() -> None:
        ctx = new_context()
        try:
            await main(ctx)  # type: ignore[misc]
        finally:
            for thing in list(_OPEN):
                thing.close()  # type: ignore[attr-defined]
            await asyncio.sleep(0)
            await close_context(ctx)

    asyncio.run(wrapped())


def test_a_strangers_unsigned_stop_in_the_lobby_is_dropped(tmp_path):
    async def main(ctx):
        g = Game(tmp_path, ctx)
        await g.start_host()
        evil = Attacker(ctx, g.port)
        try:
            await evil.send([6, "any reason", 0, b"", b""])
            await evil.send([6, "any reason", 0, b"", b"", bytes(64)])
            await evil.send([3, "no"])
            await evil.send([3, "no", bytes(64)])
            await until(lambda: g.host.dropped >= 3)
            assert g.host.stopped is None
            assert await evil.collect(0.3) == []
            g.start_joiner()
            await g.finish()
        finally:
            evil.close()
        g.assert_identical_complete()

    run(main)


def test_an_older_peers_hello_is_refused_naming_both_versions(tmp_path):
    async def main(ctx):
        g = Game(tmp_path, ctx)
        await g.start_host()
        old = Attacker(ctx, g.port)
        try:
            from santorini_p2p.net.frames import encode_frame

            await old.send_raw(encode_frame(sign_hello(BOB, 1, b"", 0)))
            got = await old.collect(1.0)
        finally:
            old.close()
        [refused] = got
        assert isinstance(refused, Refuse)
        assert refused.reason.startswith(f"protocol 1 is not {SESSION_VERSION}: ")
        assert g.host.seat_names() == ("alice",)
        g.close()
        await asyncio.gather(*g.tasks, return_exceptions=True)

    run(main)


async def _replay_handshake(
    evil: Attacker, host: Session, hello: bytes, proof: bytes
) -> list[object]:
    """Send a captured hello, then the captured proof once challenged; return the answers.

    Each step waits for its event: the challenge, then the host dropping the proof and stop.
    """
    await evil.send_raw(hello)
    got = await evil.collect_until(lambda: any(isinstance(f, Challenge) for f in evil.got))
    dropped = host.dropped
    await evil.send_raw(proof)
    await evil.send([6, "any reason", 0, b"", b""])
    await until(lambda: host.dropped >= dropped + 2)
    assert host.stopped is None
    await evil.send([5, 0])
    return got + await evil.collect(0.2)


def _assert_nothing_given(answers: list[object]) -> None:
    """A connection that never proved a key gets a challenge, and nothing of the game."""
    for f in answers:
        assert isinstance(f, Challenge) or type(f).__name__ == "Who", f
        assert not isinstance(f, Proven | Welcome | Status), f


def test_a_hello_replayed_from_an_earlier_game_gets_nowhere(tmp_path):
    async def main(ctx):
        first = Game(tmp_path / "first", ctx, pace_ms=0)
        await first.start_host()
        first.start_joiner()
        await first.finish()
        first.assert_identical_complete()
        # Captured off the LAN: bob's hello (the same bytes every new game) and proof.
        hello = first.tap.first(Hello, first.tap.sent)
        proof = first.tap.first(Proof, first.tap.sent)

        g = Game(tmp_path / "second", ctx)
        await g.start_host()
        g.start_joiner()
        await until(lambda: len(g.host.records) >= 12)
        assert g.tap.first(Hello, g.tap.sent) == hello  # the same bytes indeed
        evil = Attacker(ctx, g.port)
        try:
            answers = await _replay_handshake(evil, g.host, hello, proof)
        finally:
            evil.close()
        _assert_nothing_given(answers)
        assert g.host.stopped is None
        await g.finish()
        g.assert_identical_complete()

    run(main)


def test_a_hello_replayed_within_the_game_from_a_second_connection_gets_nowhere(tmp_path):
    async def main(ctx):
        g = Game(tmp_path, ctx)
        await g.start_host()
        g.start_joiner()
        await until(lambda: len(g.host.records) >= 12)
        hello = g.tap.first(Hello, g.tap.sent)
        proof = g.tap.first(Proof, g.tap.sent)
        evil = Attacker(ctx, g.port)
        try:
            answers = await _replay_handshake(evil, g.host, hello, proof)
        finally:
            evil.close()
        _assert_nothing_given(answers)
        assert g.host.stopped is None
        await g.finish()
        g.assert_identical_complete()

    run(main)


def test_frames_from_a_connection_whose_seat_moved_get_nowhere(tmp_path):
    async def main(ctx):
        g = Game(tmp_path, ctx)
        await g.start_host()
        g.start_joiner()
        await until(lambda: len(g.host.records) >= 12)
        # Bob's connection is replaced by a new one (as after a network change): the seat
        # moves only once the new connection proves bob's key.
        old = g.tap
        g.tap = Tap(JoinTransport(ctx, f"127.0.0.1:{g.port}"))
        g.join_game.link = g.tap
        await until(lambda: any(isinstance(decode_frame(f), Proven) for f in g.tap.received))
        # The old connection is told, signed, and forgotten.
        told = []
        for _ in range(100):
            got = await old.receive(0.05)
            if got is not None:
                told.append(decode_frame(got[1]))
            if any(isinstance(f, Refuse) for f in told):
                break
        refusal = next(f for f in told if isinstance(f, Refuse))
        assert "another connection" in refusal.reason
        assert refusal.signature
        # What the old connection sends now, even a stop signed by bob for that connection,
        # changes nothing.
        old_challenge = decode_frame(old.first(Challenge, old.received))
        assert isinstance(old_challenge, Challenge)
        from santorini_p2p.net.frames import encode_frame, sign_stop

        dropped = g.host.dropped
        stop = sign_stop(BOB, "stolen seat", 0, b"", b"", old_challenge.nonce)
        old.send(HOST_PEER, encode_frame(stop))
        old.send(HOST_PEER, msgpack.packb([3, "no"]))
        await until(lambda: g.host.dropped >= dropped + 2)
        old.close()
        assert g.host.stopped is None
        await g.finish()
        g.assert_identical_complete()

    run(main)


def test_unsigned_or_missigned_control_frames_from_a_seated_connection_are_dropped(tmp_path):
    async def main(ctx):
        g = Game(tmp_path, ctx)
        await g.start_host()
        g.start_joiner()
        await until(lambda: len(g.host.records) >= 12)
        dropped = g.host.dropped
        # Bob's own, proven connection: a stop in the old shape, one signed with the wrong
        # nonce, one signed by another key, and an unsigned refusal in play.
        from santorini_p2p.net.frames import encode_frame, sign_stop

        g.tap.send(HOST_PEER, msgpack.packb([6, "any reason", 0, b"", b""]))
        g.tap.send(HOST_PEER, encode_frame(sign_stop(BOB, "x", 0, b"", b"", bytes(32))))
        challenge = decode_frame(g.tap.first(Challenge, g.tap.received))
        assert isinstance(challenge, Challenge)
        forged = sign_stop(ALICE, "x", 0, b"", b"", challenge.nonce)
        g.tap.send(HOST_PEER, encode_frame(forged))
        g.tap.send(HOST_PEER, msgpack.packb([3, "no"]))
        await until(lambda: g.host.dropped >= dropped + 4)
        assert g.host.stopped is None
        await g.finish()
        g.assert_identical_complete()

    run(main)
