#!/usr/bin/env python3
"""Network latency: from sending an action to holding every acknowledgement, over loopback.

Two computer players (host and joiner) play whole games over 127.0.0.1 through the real
transport and sessions. By default they are two processes, as two people would run them:
the host in this process, the joiner a ``santorini join`` process of its own. For each action
of the host the benchmark takes the time from the moment the action is submitted (signed,
journaled, sent) to the moment the host has checked and journaled the joiner's
acknowledgement. The floor, measured in the same run and across the same process boundary: a
bare ZeroMQ round trip over the same kind of sockets, to an echo process, plus one Ed25519
sign and one verify each way. Its samples are taken just before each action of the host
(while the game waits for the host's move), so that the two see the machine alike: a shared
virtual machine's speed drifts by a factor of two from one second to the next. Each time,
the first round trip starts from idle peers, as the action's own does (the peer has waited
for the move), and two more follow back to back; both floors are printed, and the target is
held to the first (on a virtual machine, waking an idle CPU costs a good part of a
millisecond, which back-to-back round trips never pay).

``--one-process`` runs both peers on one event loop instead, with the floor measured within
this process between the games; there each peer's work also delays the other's (one
interpreter lock).

``--runs N`` repeats the whole measurement and prints one row per run, with the share of
actions (and of floor round trips) over 5 ms, and how many runs met each half of the target:
on a shared machine one run says little about a 99th percentile.

``--spectators 0,10`` compares the same measurement with that many spectators watching the
host's game from its start (all of them in one process of their own, ``santorini watch`` as
a spectator on another machine would run it, each verifying every record): one row per
number, with how many spectators saw the whole game. On one 2-core machine the spectators'
own checking shares the CPU with both players, which another machine's spectators would not:
``--light-spectators`` (spectators that check nothing) measures the host's own cost alone, and
``--spectators-nice 19`` lets the players come first.

The journal fsyncs as shipped; ``--no-fsync`` measures the same path with fsync skipped in
this process, to show what the disk costs. The same times are also shown counted from the
moment the act is handed to the socket (signed, journaled and flushed to disk before it): the
target is held to the times from the submit, which include the mover's signature, as the
floor does.
"""

from __future__ import annotations

import argparse
import asyncio
import os
import random
import statistics
import sys
import tempfile
import time
from dataclasses import dataclass, field
from pathlib import Path

from santorini_p2p.engine import Action
from santorini_p2p.net.game import NetworkGame
from santorini_p2p.net.session import GameSettings, Session
from santorini_p2p.net.transport import (
    HOST_PEER,
    HostTransport,
    JoinTransport,
    close_context,
    new_context,
)
from santorini_p2p.net.transport import (
    Context as zmq_context,
)
from santorini_p2p.wire.identity import Identity, verify
from santorini_p2p.wire.log import Journal, Validator, iter_frames
from santorini_p2p.wire.messages import Ack, Act

SPECTATORS_NICE = [0]
"""The nice value of the spectators' process (``--spectators-nice``)."""
SPECTATORS_LIGHT = [False]
"""Whether the spectators check nothing (``--light-spectators``)."""
FLOOR_PER_TURN = 3
"""Floor round trips taken just before each host action (two-process mode): the first from
idle, as the action's own round trip starts, the others back to back."""


@dataclass
class Floors:
    """Floor samples in microseconds: from idle peers, and back to back."""

    idle: list[int] = field(default_factory=list)
    warm: list[int] = field(default_factory=list)


def _pct(values: list[int], q: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, int(q * len(ordered)))] / 1000


_A = Identity.from_seed(b"\x01" * 32, "a")
_B = Identity.from_seed(b"\x02" * 32, "b")


async def floor(samples: int) -> list[int]:
    """Microseconds of a bare round trip within this process plus a sign and a verify each way."""
    a, b = _A, _B
    ctx = new_context()
    host = HostTransport(ctx, "127.0.0.1", 0)
    join = JoinTransport(ctx, f"127.0.0.1:{host.port}")
    payload = os.urandom(200)
    out = []
    try:
        peer = b""
        for _ in range(200):
            join.send(HOST_PEER, b"hi")
            got = await host.receive(0.05)
            if got is not None:
                peer = got[0]
                break
        for _ in range(samples):
            t0 = time.perf_counter_ns()
            join.send(HOST_PEER, payload + a.sign(payload))
            got = await host.receive(1.0)
            assert got is not None
            assert verify(a.public_key, got[1][-64:], got[1][:-64])
            host.send(peer, payload + b.sign(payload))
            back = await join.receive(1.0)
            assert back is not None
            assert verify(b.public_key, back[1][-64:], back[1][:-64])
            out.append((time.perf_counter_ns() - t0) // 1000)
    finally:
        join.close()
        host.close()
        await close_context(ctx)
    return out


async def _echo(port: int) -> None:
    """The floor's far end: verify each message, sign it back; ends on ``bye`` or silence."""
    ctx = new_context()
    link = JoinTransport(ctx, f"127.0.0.1:{port}")
    started = False
    try:
        while True:
            got = await link.receive(30.0 if started else 0.05)
            if got is None:
                if started:
                    return
                link.send(HOST_PEER, b"hi")
                continue
            msg = got[1]
            if msg == b"go":
                started = True
            elif msg == b"bye":
                return
            else:
                body = msg[:-64]
                assert verify(_A.public_key, msg[-64:], body)
                link.send(HOST_PEER, body + _B.sign(body))
    finally:
        link.close()
        await close_context(ctx)


class EchoProcess:
    """An echo process over the real transport, for the floor across a process boundary."""

    def __init__(self) -> None:
        self._ctx = new_context()
        self._link = HostTransport(self._ctx, "127.0.0.1", 0)
        self._peer = b""
        self._child: asyncio.subprocess.Process | None = None

    async def start(self) -> None:
        """Start the echo process and wait until it is connected."""
        self._child = await asyncio.create_subprocess_exec(
            sys.executable, __file__, "--echo", str(self._link.port)
        )
        got = await self._link.receive(30.0)
        assert got is not None, "the echo process did not connect"
        self._peer = got[0]
        self._link.send(self._peer, b"go")
        while await self._link.receive(0.1) is not None:
            pass  # its repeated greetings

    async def floor(self, samples: int) -> list[int]:
        """Microseconds of a round trip to the echo process plus a sign and a verify each way."""
        payload = os.urandom(200)
        out = []
        for _ in range(samples):
            t0 = time.perf_counter_ns()
            self._link.send(self._peer, payload + _A.sign(payload))
            back = await self._link.receive(1.0)
            assert back is not None
            assert verify(_B.public_key, back[1][-64:], back[1][:-64])
            out.append((time.perf_counter_ns() - t0) // 1000)
        return out

    async def stop(self) -> None:
        """End the echo process and close the socket."""
        if self._peer:
            self._link.send(self._peer, b"bye")
        if self._child is not None:
            try:
                async with asyncio.timeout(5):
                    await self._child.wait()
            except TimeoutError:
                self._child.kill()
                await self._child.wait()
        self._link.close()
        await close_context(self._ctx)


async def _watchers(address: str, count: int) -> None:
    """The spectators' process: ``count`` spectators of the game at ``address``, to its end.

    Prints how many held the whole verified game. They share one ZeroMQ context.
    """
    from santorini_p2p.net.watch import open_watch

    os.nice(int(os.environ.get("SPECTATORS_NICE", "0")))
    ctx = new_context()
    if os.environ.get("SPECTATORS_LIGHT"):
        try:
            await asyncio.gather(*(_light_watcher(ctx, address, i) for i in range(count)))
        finally:
            await close_context(ctx)
        print("0", flush=True)
        return
    opened = [
        await open_watch(address, f"watcher{i}", give_up_ms=60_000, context=ctx)
        for i in range(count)
    ]
    try:
        await asyncio.gather(*(game.run() for game, _ in opened))
    finally:
        for _, close in opened:
            await close()
        await close_context(ctx)
    whole = sum(game.spectator.is_complete for game, _ in opened)
    print(f"{whole}", flush=True)


async def _light_watcher(ctx: zmq_context, address: str, i: int) -> int:
    """A spectator that checks nothing: it only says watch and how many records it holds.

    The host's cost per spectator without the spectators' own checking on this machine's CPU.
    Returns the records it held when the host went quiet (2 s).
    """
    from santorini_p2p.net.frames import (
        SESSION_VERSION,
        RecordFrame,
        Status,
        Watch,
        Welcome,
        decode_frame,
        encode_frame,
    )

    link = JoinTransport(ctx, address)
    have, welcomed, heard, sent = 0, False, 0.0, 0.0
    try:
        while True:
            now = time.monotonic()
            if now - sent >= 0.3:
                sent = now
                frame = (
                    Status(have)
                    if welcomed
                    else Watch(SESSION_VERSION, os.urandom(32), b"", have, f"light{i}")
                )
                link.send(HOST_PEER, encode_frame(frame))
            got = await link.receive(0.05)
            if got is None:
                if heard and time.monotonic() - heard > 2.0:
                    return have
                continue
            heard = time.monotonic()
            f = decode_frame(got[1])
            if isinstance(f, Welcome):
                welcomed = True
            elif isinstance(f, RecordFrame) and f.index == have:
                have += 1
    finally:
        link.close()


async def one_game(
    tmp: Path,
    seed: int,
    samples: list[int],
    *,
    process: bool = False,
    echo: EchoProcess | None = None,
    floors: Floors | None = None,
    from_send: list[int] | None = None,
    spectators: int = 0,
    watched: list[int] | None = None,
) -> None:
    """Play one game; append the host's submit-to-all-acks times (µs) to ``samples``.

    ``from_send`` gets the same times counted from the moment the act is handed to the socket
    (signed, journaled and flushed to disk before it).

    With ``process`` the joiner is a ``santorini join`` process of its own. With ``echo``,
    the host's computer player first takes ``FLOOR_PER_TURN`` floor samples into ``floors``
    before each of its moves, so that each action and its floor see the machine alike. With
    ``spectators``, that many watch from a process of their own, from before the joiner
    comes; ``watched`` gets how many of them held the whole game.
    """
    a = Identity.from_seed(seed.to_bytes(4, "big") * 8, "host")
    b = Identity.from_seed((seed + 1).to_bytes(4, "big") * 8, "joiner")
    ctx = new_context()
    host_link = HostTransport(ctx, "127.0.0.1", 0)
    join_link = JoinTransport(ctx, f"127.0.0.1:{host_link.port}")
    hs = Session.host(a, GameSettings(2), home=tmp / f"h{seed}", now=_ms)
    js = Session.join(b, home=tmp / f"j{seed}", now=_ms)
    assert hs.gallery is not None
    hs.gallery.limit = max(hs.gallery.limit, spectators)
    child = None
    watchers = None
    if spectators:
        watchers = await asyncio.create_subprocess_exec(
            sys.executable,
            __file__,
            "--watch-for",
            str(host_link.port),
            "--watchers",
            str(spectators),
            stdout=asyncio.subprocess.PIPE,
            stderr=asyncio.subprocess.DEVNULL,
            env={
                **os.environ,
                "SPECTATORS_NICE": str(SPECTATORS_NICE[0]),
                "SPECTATORS_LIGHT": "1" if SPECTATORS_LIGHT[0] else "",
            },
        )
        # The host answers them while they come; the joiner comes once all of them watch.
        async with asyncio.timeout(30):
            while len(hs.gallery) < spectators:
                got = await host_link.receive(0.05)
                if got is not None:
                    hs.receive(*got)
                hs.tick()
                for peer, frame in hs.outgoing():
                    host_link.send(peer, frame)
    if process:
        join_link.close()
        home = tmp / f"p{seed}"
        env = {**os.environ, "SANTORINI_HOME": str(home)}
        child = await asyncio.create_subprocess_exec(
            sys.executable,
            "-m",
            "santorini_p2p",
            "join",
            f"127.0.0.1:{host_link.port}",
            "--bot",
            "random",
            "--seed",
            str(seed),
            "--name",
            f"joiner{seed}",
            stdout=asyncio.subprocess.DEVNULL,
            stderr=asyncio.subprocess.DEVNULL,
            env=env,
        )
    sent: list[int] = []
    left: list[int] = []
    real_submit = hs.submit
    real_send = host_link.send

    def timed_submit(action: Action) -> None:
        sent.append(time.perf_counter_ns())
        real_submit(action)

    def timed_send(peer: bytes, frame: bytes) -> bool:
        if sent and not left:
            left.append(time.perf_counter_ns())  # the act itself: the first frame after submit
        return real_send(peer, frame)

    def check() -> None:
        v = hs.validator
        if sent and v is not None and v.next_seq and not v.pending_acks:
            last = v.records[-1]
            if isinstance(last.message, Ack):
                now = time.perf_counter_ns()
                samples.append((now - sent.pop()) // 1000)
                if from_send is not None and left:
                    from_send.append((now - left.pop()) // 1000)

    host_link.send = timed_send  # type: ignore[method-assign]  # measuring

    hs.submit = timed_submit  # type: ignore[method-assign]  # measuring
    hs.listen(check)
    loop = asyncio.get_running_loop()

    def host_bot(position: object, rng: random.Random, stop: object) -> Action:
        if echo is not None and floors is not None:
            sampled = asyncio.run_coroutine_threadsafe(echo.floor(FLOOR_PER_TURN), loop)
            first, *rest = sampled.result(timeout=10)
            floors.idle.append(first)
            floors.warm.extend(rest)
        return _random_bot(position, rng, stop)

    bot = _random_bot
    games = [NetworkGame(hs, host_link, bot=host_bot, rng=random.Random(seed))]
    if child is None:
        games.append(NetworkGame(js, join_link, bot=bot, rng=random.Random(seed + 1)))
    try:
        async with asyncio.timeout(60):
            async with asyncio.TaskGroup() as tg:
                for g in games:
                    tg.create_task(g.run())
            if child is not None:
                await child.wait()
            if watchers is not None:
                out, _ = await watchers.communicate()
                if watched is not None:
                    watched.append(int(out.decode().strip() or 0))
    finally:
        for proc in (child, watchers):
            if proc is not None and proc.returncode is None:
                proc.kill()
                await proc.wait()
        hs.close()
        js.close()
        join_link.close()
        host_link.close()
        await close_context(ctx)


def _ms() -> int:
    return time.monotonic_ns() // 1_000_000


def _random_bot(position: object, rng: random.Random, stop: object) -> Action:
    from santorini_p2p.engine import Position, legal_actions

    assert isinstance(position, Position)
    return rng.choice(legal_actions(position))


async def sessions(
    turns: int,
    *,
    process: bool = True,
    from_send: list[int] | None = None,
    spectators: int = 0,
    watched: list[int] | None = None,
) -> tuple[list[int], Floors, dict[str, list[int]]]:
    """Play games until ``turns`` host actions were timed; also time checking each record.

    Returns the samples, the floor samples (taken before each host action with ``process``;
    between the games without, back to back only), and the record checks. With ``process``
    the joiner, and the floor's far end, are processes of their own. ``from_send`` gets the
    times from the act leaving (see ``one_game``).
    """
    samples: list[int] = []
    floors = Floors()
    echo = EchoProcess() if process else None
    try:
        if echo is not None:
            await echo.start()
        with tempfile.TemporaryDirectory() as d:
            seed = 1
            while len(samples) < turns:
                before = len(samples)
                await one_game(
                    Path(d),
                    seed,
                    samples,
                    process=process,
                    echo=echo,
                    floors=floors,
                    from_send=from_send,
                    spectators=spectators,
                    watched=watched,
                )
                if echo is None:
                    floors.warm += await floor(max(20, 3 * (len(samples) - before)))
                seed += 2
            checks = _time_checks(Path(d))
            checks["journal"] = _time_journal(Path(d))
    finally:
        if echo is not None:
            await echo.stop()
    return samples, floors, checks


def _time_checks(root: Path) -> dict[str, list[int]]:
    """Microseconds to check each record of the journals under ``root``, by record type."""
    checks: dict[str, list[int]] = {}
    for journal in root.glob("h*/games/*.sntr"):
        v = Validator()
        for raw in iter_frames(journal.read_bytes()):
            t0 = time.perf_counter_ns()
            rec = v.feed(raw)
            kind = type(rec.message).__name__.lower()
            checks.setdefault(kind, []).append((time.perf_counter_ns() - t0) // 1000)
    return checks


def _time_journal(root: Path) -> list[int]:
    """Microseconds to append and flush each act of a played game to a new journal.

    As a mover journals its own record before sending it: checked (signature skipped, as
    for a record just signed), written, flushed to disk; on the disk the games were played on.
    """
    journal = next(root.glob("h*/games/*.sntr"))
    raws = list(iter_frames(journal.read_bytes()))
    times: list[int] = []
    for n in range(3):
        with Journal.create(root / f"timing-{n}.sntr", raws[0]) as j:
            for raw in raws[1:]:
                t0 = time.perf_counter_ns()
                rec = j.append(raw, own=True)
                if isinstance(rec.message, Act):
                    times.append((time.perf_counter_ns() - t0) // 1000)
    return times


@dataclass(frozen=True)
class Run:
    """One run's figures in milliseconds: the floors, the actions, and the target's verdict."""

    idle: list[int]
    warm: list[int]
    actions: list[int]
    from_send: list[int] = field(default_factory=list)
    """The actions timed from the act leaving (after its journal flush) instead."""

    @property
    def reference(self) -> float:
        """The floor the median is held to: from idle peers when sampled, else back to back."""
        return statistics.median(self.idle or self.warm) / 1000

    @property
    def median(self) -> float:
        """Median action to every ack."""
        return statistics.median(self.actions) / 1000

    @property
    def p99(self) -> float:
        """99th percentile action to every ack."""
        return _pct(self.actions, 0.99)

    @property
    def median_met(self) -> bool:
        """Median within 2x the floor."""
        return self.median <= 2 * self.reference

    @property
    def p99_met(self) -> bool:
        """99th percentile under 5 ms."""
        return self.p99 < 5


def _over(values: list[int], ms: float) -> str:
    return f"{100 * sum(1 for v in values if v > ms * 1000) / len(values):.1f} %"


def _print_run(run: Run, checks: dict[str, list[int]], where: str, fsync: str) -> None:
    print(f"floor ({where}: zmq round trip + Ed25519 sign/verify each way):")
    rows = [("from idle", run.idle)] if run.idle else []
    rows.append(("back to back", run.warm))
    for label, values in rows:
        long = "from idle peers, one before each action" if label == "from idle" else label
        print(
            f"  {long + ':':42s} median {statistics.median(values) / 1000:.3f} ms, "
            f"p99 {_pct(values, 0.99):.3f} ms ({len(values)} samples)"
        )
    print(
        f"action to every ack (journal fsync {fsync}): median {run.median:.3f} ms, "
        f"p99 {run.p99:.3f} ms ({len(run.actions)} samples)"
    )
    if run.from_send:
        print(
            f"  the same from the act leaving (signed, journaled, flushed): median "
            f"{statistics.median(run.from_send) / 1000:.3f} ms, "
            f"p99 {_pct(run.from_send, 0.99):.3f} ms"
        )
    ratios = [f"{run.median / (statistics.median(v) / 1000):.1f}x {label}" for label, v in rows]
    print(f"median / floor: {', '.join(ratios)}")
    print(
        f"over 5 ms: {_over(run.actions, 5)} of actions"
        + (f", {_over(run.idle, 5)} of floor round trips from idle" if run.idle else "")
    )
    # An action's round trip starts from peers that have been idle (waiting for a move), so
    # the floor it is held to is the round trip from idle; on a virtual machine that costs
    # more than one right after another (an idle virtual CPU takes time to wake).
    met = run.median_met and run.p99_met
    print(
        f"target (median within 2x the floor{' from idle peers' if run.idle else ''}, "
        f"p99 under 5 ms): {'met' if met else 'not met'}"
    )
    for kind in ("act", "ack"):
        if kind in checks:
            m = statistics.median(checks[kind]) / 1000
            print(
                f"checking one {kind} record (signature, chain, legality, state hash): {m:.3f} ms"
            )
    if checks.get("journal"):
        flush = checks["journal"]
        print(
            f"journaling one act before it is sent (check, write, flush to disk): "
            f"median {statistics.median(flush) / 1000:.3f} ms, p99 {_pct(flush, 0.99):.3f} ms"
        )
    print("on the path of one act: the mover builds and checks it, the peer checks it and")
    print("builds and checks its ack, the mover checks the ack; then two loopback hops")


def _print_table(runs: list[Run]) -> None:
    """One row per run, then how many runs met each half of the target.

    The floor is the one the median is held to: from idle peers (two processes) or back to
    back (one process).
    """
    print(
        f"{'run':>3} {'floor':>10} {'p99':>6} {'b2b':>6} {'action':>7} {'p99':>6} "
        f"{'ratio':>6} {'>5 ms':>7} {'floor >5 ms':>11} {'sent':>6}  target"
    )
    for i, r in enumerate(runs, 1):
        b2b = statistics.median(r.warm) / 1000
        idle_p99 = f"{_pct(r.idle, 0.99):6.3f}" if r.idle else f"{'-':>6}"
        idle_over = _over(r.idle, 5) if r.idle else "-"
        verdict = (
            "met"
            if r.median_met and r.p99_met
            else ("median only" if r.median_met else "p99 only" if r.p99_met else "not met")
        )
        sent = f"{statistics.median(r.from_send) / 1000:6.3f}" if r.from_send else f"{'-':>6}"
        print(
            f"{i:>3} {r.reference:10.3f} {idle_p99} {b2b:6.3f} {r.median:7.3f} {r.p99:6.3f} "
            f"{r.median / r.reference:5.2f}x {_over(r.actions, 5):>7} {idle_over:>11} {sent}  "
            f"{verdict}"
        )
    n = len(runs)
    print(
        f"median within 2x the floor in {sum(r.median_met for r in runs)} of {n} runs; "
        f"p99 under 5 ms in {sum(r.p99_met for r in runs)} of {n}; "
        f"both in {sum(r.median_met and r.p99_met for r in runs)} of {n} (times in ms; "
        "'sent': the action's median from the act leaving, after its journal flush)"
    )


def _compare_spectators(counts: list[int], turns: int, process: bool) -> int:
    """Measure the players' round trip with each number of spectators; print a table."""
    print(
        f"{'spectators':>10} {'actions':>7} {'median':>7} {'p99':>7} {'>5 ms':>7} "
        f"{'floor':>7} {'ratio':>6}  saw the whole game"
    )
    for n in counts:
        watched: list[int] = []
        got, floors, _ = asyncio.run(
            sessions(turns, process=process, spectators=n, watched=watched)
        )
        run = Run(floors.idle, floors.warm, got)
        seen = f"{sum(watched)} of {n * len(watched)}" if n and not SPECTATORS_LIGHT[0] else "-"
        print(
            f"{n:>10} {len(got):>7} {run.median:7.3f} {run.p99:7.3f} {_over(got, 5):>7} "
            f"{run.reference:7.3f} {run.median / run.reference:5.2f}x  {seen}",
            flush=True,
        )
    print(
        "times in ms: from the host's action submitted to the joiner's acknowledgement "
        "checked; floor: zmq round trip + Ed25519 sign/verify each way"
        + (" from idle peers (two processes)" if process else " (one process)")
        + f"; the spectators' process at nice {SPECTATORS_NICE[0]}"
        + ("; spectators that check nothing" if SPECTATORS_LIGHT[0] else "")
    )
    return 0


def main() -> int:
    """Run the benchmark and print median and 99th percentile next to the floor."""
    ap = argparse.ArgumentParser(description=__doc__)
    ap.add_argument("--turns", type=int, default=300, help="host actions to time")
    ap.add_argument(
        "--runs", type=int, default=1, help="repeat the whole measurement; print a row for each"
    )
    ap.add_argument("--no-fsync", action="store_true", help="skip the journal's fsync")
    ap.add_argument(
        "--one-process", action="store_true", help="run both peers on this process's event loop"
    )
    ap.add_argument(
        "--spectators",
        metavar="N,N",
        help="compare the round trip with these numbers of spectators watching (e.g. 0,10)",
    )
    ap.add_argument(
        "--spectators-nice",
        type=int,
        default=0,
        metavar="N",
        help="run the spectators' process at this nice value (19: the players come first, as "
        "with spectators on other machines)",
    )
    ap.add_argument(
        "--light-spectators",
        action="store_true",
        help="spectators that check nothing: the host's own cost, without theirs on this CPU",
    )
    ap.add_argument("--echo", type=int, metavar="PORT", help=argparse.SUPPRESS)
    ap.add_argument("--watch-for", type=int, metavar="PORT", help=argparse.SUPPRESS)
    ap.add_argument("--watchers", type=int, default=0, help=argparse.SUPPRESS)
    args = ap.parse_args()
    if args.echo is not None:
        asyncio.run(_echo(args.echo))
        return 0
    if args.watch_for is not None:
        asyncio.run(_watchers(f"127.0.0.1:{args.watch_for}", args.watchers))
        return 0
    if args.spectators is not None:
        try:
            counts = [int(n) for n in args.spectators.split(",")]
        except ValueError:
            ap.error(f"--spectators: expected numbers joined by ',', got {args.spectators!r}")
        if any(n < 0 for n in counts) or args.turns < 1:
            ap.error("--spectators: numbers of at least 0; --turns at least 1")
        SPECTATORS_NICE[0] = args.spectators_nice
        SPECTATORS_LIGHT[0] = args.light_spectators
        return _compare_spectators(counts, args.turns, not args.one_process)
    if args.turns < 1 or args.runs < 1:
        ap.error("--turns and --runs must be at least 1")
    if args.no_fsync:
        os.fsync = os.fdatasync = lambda fd: None
    process = not args.one_process
    fsync = "off" if args.no_fsync else "on"
    if process and args.no_fsync:
        fsync += " here, on in the joining process"
    where = "two processes" if process else "one process"
    runs = []
    for _ in range(args.runs):
        from_send: list[int] = []
        got, floors, checks = asyncio.run(
            sessions(args.turns, process=process, from_send=from_send)
        )
        runs.append(Run(floors.idle, floors.warm, got, from_send))
        if args.runs == 1:
            _print_run(runs[0], checks, where, fsync)
        else:
            print(f"run {len(runs)} of {args.runs} done", file=sys.stderr, flush=True)
    if args.runs > 1:
        print(f"{where}, journal fsync {fsync}, {args.turns} host actions a run")
        _print_table(runs)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
