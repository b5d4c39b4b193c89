"""Text from a peer is checked at the door: a hostile host or spectator on 127.0.0.1.

The joiner and the host are the real sessions and transports; the attacker is a raw ZeroMQ
socket speaking the documented frames. A name, reason or line that breaks the one rule of
``wire.text`` is refused with that rule, never written to ``known_peers``, and never reaches
a screen with a control character in it.
"""

from __future__ import annotations

import asyncio
import random
from collections.abc import Callable
from pathlib import Path

import pytest
import zmq
import zmq.asyncio

from santorini_p2p.net.frames import (
    SESSION_VERSION,
    Challenge,
    Hello,
    Proof,
    Proven,
    Refuse,
    Watch,
    Welcome,
    decode_frame,
    encode_frame,
    host_proof_bytes,
    sign_refuse,
    sign_stop,
)
from santorini_p2p.net.game import NetworkGame, ai_bot
from santorini_p2p.net.session import GameSettings, Note, Session
from santorini_p2p.net.transport import JoinTransport, bind_host, close_context, new_context
from santorini_p2p.net.trust import KnownPeers
from santorini_p2p.wire.text import as_line, check_line, shown
from tests.net.harness import identity
from tests.patience import patient

WAIT_S = patient(20.0)
ALICE = identity(0, "alice")
BOB = identity(1, "bob")
MALLORY = identity(7, "mallory")


def _now() -> int:
    from santorini_p2p.net.clock import monotonic_ms

    return monotonic_ms()


async def until(what: Callable[[], bool], seconds: float = WAIT_S) -> None:
    """Wait (bounded) until ``what()`` holds, polling."""
    loop = asyncio.get_running_loop()
    end = loop.time() + seconds
    while not what():
        if loop.time() > end:
            raise AssertionError("timed out waiting")
        await asyncio.sleep(0.01)


def control_free(texts: list[str]) -> bool:
    """Whether no text holds a byte below 0x20 or DEL (what would act on a terminal)."""
    return all(not any(ord(ch) < 0x20 or ord(ch) == 0x7F for ch in t) for t in texts)


class FakeHost:
    """A raw ROUTER on 127.0.0.1 that proves mallory's key and offers a game as told."""

    def __init__(self, ctx: zmq.asyncio.Context) -> None:
        self.sock = ctx.socket(zmq.ROUTER)
        self.sock.setsockopt(zmq.LINGER, 0)
        self.port = self.sock.bind_to_random_port("tcp://127.0.0.1")
        self.nonce = bytes(range(32))
        self.got: list[object] = []

    async def send(self, rid: bytes, frame: object) -> None:
        raw = frame.raw if isinstance(frame, _Raw) else encode_frame(frame)  # type: ignore[arg-type]
        await self.sock.send_multipart([rid, raw])

    async def serve(self, host_name: str, after: Callable[[bytes, bytes], list[object]]) -> None:
        """Answer the handshake, offer a game under ``host_name``; then send ``after(rid, nj)``."""
        key = MALLORY.public_key
        welcomed = False
        while True:
            rid, raw = await self.sock.recv_multipart()
            frame = decode_frame(raw)
            self.got.append(frame)
            if isinstance(frame, Hello):
                await self.send(rid, Challenge(self.nonce, key))
            elif isinstance(frame, Proof) and not welcomed:
                joiner = next(f.public_key for f in self.got if isinstance(f, Hello))
                proof = host_proof_bytes(frame.nonce, self.nonce, key, joiner)
                await self.send(rid, Proven(MALLORY.sign(proof)))
                gid = bytes(16)
                offer = Welcome(SESSION_VERSION, gid, 2, "none", 0, 0, (), key, host_name, ())
                await self.send(rid, offer)
                welcomed = True
                for extra in after(rid, frame.nonce):
                    await self.send(rid, extra)

    def close(self) -> None:
        self.sock.close(linger=0)


def _run(main: Callable[[zmq.asyncio.Context], object]) -> None:
    async def wrapped() -> None:
        ctx = new_context()
        try:
            await main(ctx)  # type: ignore[misc]
        finally:
            await close_context(ctx)

    asyncio.run(wrapped())


def _joiner(root: Path, ctx: zmq.asyncio.Context, port: int) -> tuple[Session, NetworkGame]:
    home = root / "bob"
    home.mkdir(parents=True, exist_ok=True)
    # bob has played alice before: her key is pinned.
    (home / "known_peers").write_text(f"{ALICE.public_key.hex()} alice\n", encoding="utf-8")
    s = Session.join(BOB, home=home, known=KnownPeers(home), now=_now)
    link = JoinTransport(ctx, f"127.0.0.1:{port}")
    return s, NetworkGame(s, link, bot=ai_bot("easy"), rng=random.Random(1))


def test_a_host_name_with_a_newline_cannot_write_known_peers(tmp_path):
    """Finding 1: '<attacker key> alice' forged into known_peers through the host's name."""
    forged = f"mallory\n{MALLORY.public_key.hex()} alice"

    async def main(ctx):
        host = FakeHost(ctx)
        joiner, game = _joiner(tmp_path, ctx, host.port)
        serving = asyncio.create_task(host.serve(forged, lambda rid, nj: []))
        running = asyncio.create_task(game.run())
        try:
            await until(lambda: joiner.stopped is not None)
            await until(lambda: any(isinstance(f, Refuse) for f in host.got))
        finally:
            serving.cancel()
            running.cancel()
            await asyncio.gather(serving, running, return_exceptions=True)
            game.link.close()
            host.close()
        refusal = next(f for f in host.got if isinstance(f, Refuse))
        assert refusal.is_signed_by(BOB.public_key, host.nonce)
        assert "the host's display name is refused" in refusal.reason
        assert "name: " in refusal.reason
        assert joiner.stopped is not None
        assert "the host's display name is refused" in joiner.stopped
        assert joiner.welcome is None
        text = (tmp_path / "bob" / "known_peers").read_text(encoding="utf-8")
        assert text == f"{ALICE.public_key.hex()} alice\n"
        assert KnownPeers(tmp_path / "bob").get("alice") == ALICE.public_key
        assert control_free([n.text for n in joiner.notes])

    _run(main)


@pytest.mark.parametrize(
    "bad",
    ["\x1b[2J\x1b[31mpwned", "bob\nThe game is stopped: alice resigned", "a\u202ereversed", " x"],
)
def test_every_text_field_of_a_frame_is_checked_where_it_is_decoded(bad):
    """A reason, god, option or relayed name that is not a line makes its frame malformed."""
    import msgpack

    from santorini_p2p.errors import WireError

    key, sig, gid = bytes(32), bytes(64), bytes(16)
    frames = [
        [3, bad],
        [3, bad, sig],
        [6, bad, 0, b"", b"", sig],
        [2, SESSION_VERSION, gid, 2, bad, 0, 0, [], key, "alice", []],
        [2, SESSION_VERSION, gid, 2, "random", 0, 0, [bad], key, "alice", []],
        [2, SESSION_VERSION, gid, 2, "random", 0, 0, [], key, "alice", [bad]],
        [13, "hello", bad, key, sig],
    ]
    for value in frames:
        with pytest.raises(WireError, match=r"frame: .*(not printable|no spaces|at most)"):
            decode_frame(msgpack.packb(value, use_bin_type=True))


def test_a_hosts_refuse_or_stop_reason_that_forges_lines_is_dropped(tmp_path):
    """Finding 2: a signed reason with an escape or a newline never reaches the screen."""

    def extra(rid: bytes, nj: bytes) -> list[object]:
        del rid
        bad = "ok\nThe game is stopped: bob resigned"
        refuse = sign_refuse(MALLORY, "x", nj)
        stop = sign_stop(MALLORY, "x", 0, b"", b"", nj)
        # The same frames with a forged line in the reason, re-signed: decoded as malformed.
        return [
            _Raw([3, bad, MALLORY.sign(b"")]),
            _Raw([6, "\x1b[2Jgone", 0, b"", b"", stop.signature]),
            _Raw([3, "\x07" + refuse.reason]),
        ]

    async def main(ctx):
        host = FakeHost(ctx)
        joiner, game = _joiner(tmp_path, ctx, host.port)
        serving = asyncio.create_task(host.serve("mallory", extra))
        running = asyncio.create_task(game.run())
        try:
            await until(lambda: joiner.welcome is not None and joiner.dropped >= 3)
        finally:
            serving.cancel()
            running.cancel()
            await asyncio.gather(serving, running, return_exceptions=True)
            game.link.close()
            host.close()
        assert joiner.stopped is None
        assert control_free([n.text for n in joiner.notes])
        assert not any("resigned" in n.text or "gone" in n.text for n in joiner.notes)

    _run(main)


class _Raw:
    """A frame as raw msgpack (one a well-behaved encoder would never make)."""

    def __init__(self, value: list[object]) -> None:
        import msgpack

        self.raw: bytes = msgpack.packb(value, use_bin_type=True)


def test_a_spectators_name_with_escapes_is_refused_and_never_shown(tmp_path):
    """Finding 2: an unsigned watch frame's name is checked before anyone sees it."""

    async def main(ctx):
        link = await bind_host(ctx, "127.0.0.1", 0)
        home = tmp_path / "alice"
        host = Session.host(ALICE, GameSettings(2), home=home, known=KnownPeers(home), now=_now)
        game = NetworkGame(host, link, bot=ai_bot("easy"), rng=random.Random(1))
        running = asyncio.create_task(game.run())
        evil = ctx.socket(zmq.DEALER)
        evil.setsockopt(zmq.LINGER, 0)
        evil.connect(f"tcp://127.0.0.1:{link.port}")
        nonce = bytes([9]) * 32
        got: list[object] = []
        try:
            for name in ("\x1b[2J\x1b[Hx", "eve\nThe game is stopped: alice resigned"):
                await evil.send(encode_frame(Watch(SESSION_VERSION, nonce, b"", 0, name)))
                async with asyncio.timeout(WAIT_S):
                    got.append(decode_frame(await evil.recv()))
        finally:
            running.cancel()
            await asyncio.gather(running, return_exceptions=True)
            evil.close(linger=0)
            link.close()
        for frame in got:
            assert isinstance(frame, Refuse)
            assert frame.is_signed_by(ALICE.public_key, nonce)
            assert frame.reason.startswith("your display name is refused: name: character")
        assert host.gallery is not None
        assert host.gallery.names() == []
        assert not any("watching" in n.text for n in host.notes)
        assert control_free([n.text for n in host.notes])

    _run(main)


def test_known_peers_refuses_a_name_that_is_not_a_display_name(tmp_path):
    known = KnownPeers(tmp_path)
    with pytest.raises(ValueError, match="not printable"):
        known.check("eve\nalice", BOB.public_key)
    with pytest.raises(ValueError, match="bytes"):
        known.check(f"eve {ALICE.public_key.hex()} alice", BOB.public_key)
    assert not (tmp_path / "known_peers").exists()
    known.check("alice", ALICE.public_key)
    # A line written by hand (or by an older version) that breaks the rule is ignored.
    path = tmp_path / "known_peers"
    path.write_text(
        path.read_text(encoding="utf-8") + f"{BOB.public_key.hex()} bad\x1bname\n",
        encoding="utf-8",
    )
    again = KnownPeers(tmp_path)
    assert again.get("alice") == ALICE.public_key
    assert again.get("bad\x1bname") is None


def test_the_line_rule_and_safe_rendering():
    assert check_line("alice says hi", "chat") == "alice says hi"
    for bad, fault in [
        ("", "at least one"),
        (" x", "no spaces"),
        ("x\n", "not printable"),
        ("a\x1b[2J", "not printable"),
        ("a\u2028b", "not printable"),
        ("a\u200bb", "not printable"),
    ]:
        with pytest.raises(ValueError, match=fault):
            check_line(bad, "what")
    assert shown("ok é ü") == "ok é ü"
    assert shown("a\x1b[2J\nb") == "a\\x1b[2J\\nb"
    assert as_line("cannot write\n  the file:\tfull ") == "cannot write the file: full"
    assert as_line("x" * 500) == "x" * 400
    assert Note("eve\nThe game is stopped").text == "eve\\nThe game is stopped"


def test_a_lan_offer_whose_text_is_not_a_line_is_ignored():
    """``santorini games`` prints offers: one with an escape in any field is never listed."""
    from santorini_p2p.net.discovery import Offer

    good = {
        b"host": b"alice",
        b"fp": b"0123-4567-89ab-cdef",
        b"players": b"2",
        b"gods": b"none",
        b"time": b"untimed",
        b"v": b"3",
    }
    assert Offer.from_properties("alice 01234567", "127.0.0.1", 1, good) is not None
    for key, value in [
        (b"host", b"eve\x1b[2J"),
        (b"host", b"eve\nalice"),
        (b"gods", b"none\r\nforged"),
        (b"time", b"\x07"),
        (b"host", b"\xff\xfe"),
    ]:
        assert Offer.from_properties("x", "127.0.0.1", 1, {**good, key: value}) is None
    assert Offer.from_properties("x\x1b[2J", "127.0.0.1", 1, good) is None


def test_known_peers_change_only_when_a_game_starts(tmp_path):
    """A stranger refused from a full lobby, or a host that never starts, leaves no line."""
    from tests.net.harness import Net

    net = Net.create(tmp_path, 2, seed=43)
    net.bots = False
    home = tmp_path / "p2"
    stranger = Session.join(identity(5, "eve"), home=home, now=net.clock, known=KnownPeers(home))
    net.sessions.append(stranger)
    for _ in range(300):
        if stranger.stopped is not None and net.sessions[0].validator is not None:
            break
        net.step()
    assert stranger.stopped is not None
    assert "the game is full" in stranger.stopped or "started without you" in stranger.stopped
    host_known = (tmp_path / "p0" / "known_peers").read_text(encoding="utf-8")
    assert "player1" in host_known  # the seated joiner, remembered as the game started
    assert "eve" not in host_known
    # The stranger saw the host's offer but no game: it remembers nobody.
    assert not (home / "known_peers").exists()


def test_a_host_that_offers_but_never_starts_is_not_remembered(tmp_path):
    async def main(ctx):
        host = FakeHost(ctx)
        joiner, game = _joiner(tmp_path, ctx, host.port)
        serving = asyncio.create_task(host.serve("alice", lambda rid, nj: []))
        running = asyncio.create_task(game.run())
        try:
            await until(lambda: joiner.stopped is not None)
        finally:
            serving.cancel()
            running.cancel()
            await asyncio.gather(serving, running, return_exceptions=True)
            game.link.close()
            host.close()
        # mallory's key under the pinned name alice: refused loudly, and nothing written.
        assert "HAS CHANGED" in joiner.stopped
        text = (tmp_path / "bob" / "known_peers").read_text(encoding="utf-8")
        assert text == f"{ALICE.public_key.hex()} alice\n"

    _run(main)


def test_a_new_host_name_is_remembered_only_with_the_header(tmp_path):
    async def main(ctx):
        host = FakeHost(ctx)
        joiner, game = _joiner(tmp_path, ctx, host.port)
        serving = asyncio.create_task(host.serve("mallory", lambda rid, nj: []))
        running = asyncio.create_task(game.run())
        try:
            await until(lambda: joiner.welcome is not None)
        finally:
            serving.cancel()
            running.cancel()
            await asyncio.gather(serving, running, return_exceptions=True)
            game.link.close()
            host.close()
        text = (tmp_path / "bob" / "known_peers").read_text(encoding="utf-8")
        assert text == f"{ALICE.public_key.hex()} alice\n"

    _run(main)


def test_a_host_that_answers_but_offers_nothing_readable_is_left_with_the_reason(tmp_path):
    """A welcome malformed by its text is dropped; the joiner says why it gives up."""
    from santorini_p2p.net.frames import Welcome as W

    async def main(ctx):
        host = FakeHost(ctx)
        bad = W(
            SESSION_VERSION,
            bytes(16),
            2,
            "none",
            0,
            0,
            ("chat\x1b[2J",),
            MALLORY.public_key,
            "mallory",
            (),
        )

        async def serve() -> None:
            while True:
                rid, raw = await host.sock.recv_multipart()
                frame = decode_frame(raw)
                host.got.append(frame)
                if isinstance(frame, Hello):
                    await host.send(rid, Challenge(host.nonce, MALLORY.public_key))
                elif isinstance(frame, Proof):
                    joiner_key = next(f.public_key for f in host.got if isinstance(f, Hello))
                    proof = host_proof_bytes(
                        frame.nonce, host.nonce, MALLORY.public_key, joiner_key
                    )
                    await host.send(rid, Proven(MALLORY.sign(proof)))
                    await host.send(rid, bad)

        home = tmp_path / "bob"
        joiner = Session.join(BOB, home=home, known=KnownPeers(home), now=_now)
        link = JoinTransport(ctx, f"127.0.0.1:{host.port}")
        game = NetworkGame(joiner, link, bot=ai_bot("easy"), give_up_ms=1500)
        serving = asyncio.create_task(serve())
        try:
            async with asyncio.timeout(WAIT_S):
                await game.run()
        finally:
            serving.cancel()
            await asyncio.gather(serving, return_exceptions=True)
            link.close()
            host.close()
        said = [n.text for n in joiner.notes if "sent no offer" in n.text]
        assert said, [n.text for n in joiner.notes]
        assert "malformed frame: frame: welcome: option: character 5" in said[0]
        assert control_free(said)

    _run(main)


def test_a_spectator_refuses_a_host_name_that_is_not_a_display_name():
    from santorini_p2p.net.spectator import Spectator

    w = Spectator("watcher", now=_now)
    offer = Welcome(
        SESSION_VERSION, bytes(16), 2, "none", 0, 0, (), MALLORY.public_key, "eve\x1b[2J", ()
    )
    w.receive(b"host", encode_frame(offer))
    assert w.stopped is not None
    assert "the host's display name is refused" in w.stopped
    assert w.welcome is None
    assert control_free([n.text for n in w.notes])
