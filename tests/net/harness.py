"""Sessions over an in-memory link: a fake clock, a lossy network, seeded bots.

No sockets: frames go from ``Session.outgoing`` into a list of packets that a seeded policy
may drop, duplicate, delay or reorder, and arrive through ``Session.receive``.
"""

from __future__ import annotations

import random
from dataclasses import dataclass, field
from pathlib import Path

from santorini_p2p.engine import legal_actions
from santorini_p2p.engine.choices import turns_after
from santorini_p2p.net.clock import TimeControl
from santorini_p2p.net.session import HOST_ID, GameSettings, Session
from santorini_p2p.net.spectator import Spectator
from santorini_p2p.net.trust import KnownPeers
from santorini_p2p.wire.identity import Identity


class FakeClock:
    """A monotonic clock in ms that moves only when told."""

    def __init__(self) -> None:
        self.ms = 1_000

    def __call__(self) -> int:
        return self.ms


def identity(i: int, name: str | None = None) -> Identity:
    return Identity.from_seed(bytes([i + 1]) * 32, name or f"player{i}")


@dataclass
class Policy:
    """What the link does to each packet (probabilities, and delay in steps)."""

    drop: float = 0.0
    dup: float = 0.0
    delay: int = 0
    reorder: bool = False


@dataclass
class Packet:
    due: int
    src: int
    dst: int
    data: bytes


@dataclass
class Net:
    """A host (index 0) and joiners (1..n-1) over one in-memory star link."""

    sessions: list[Session]
    clock: FakeClock
    rng: random.Random
    policy: Policy = field(default_factory=Policy)
    packets: list[Packet] = field(default_factory=list)
    step_no: int = 0
    bots: bool = True
    down: set[int] = field(default_factory=set)
    #: Which session is being called (tests that patch the engine read it).
    active: list[int] = field(default_factory=lambda: [0])
    #: Spectators of the host's game, after the sessions in numbering (``watch``).
    watchers: list[Spectator] = field(default_factory=list)

    def node(self, i: int) -> Session | Spectator:
        """The session, or spectator, numbered ``i``."""
        n = len(self.sessions)
        return self.sessions[i] if i < n else self.watchers[i - n]

    def watch(self, name: str = "watcher") -> Spectator:
        """Add a spectator; it says watch on its first tick."""
        w = Spectator(name, now=self.clock, address="127.0.0.1:1")
        self.watchers.append(w)
        return w

    @classmethod
    def create(
        cls,
        tmp: Path,
        players: int = 2,
        gods: str = "none",
        *,
        time: TimeControl | None = None,
        seed: int = 0,
        policy: Policy | None = None,
        names: list[str] | None = None,
        pool: tuple[str, ...] = (),
        options: tuple[str, ...] = (),
    ) -> Net:
        clock = FakeClock()
        ids = [identity(i, names[i] if names else None) for i in range(players)]
        host = Session.host(
            ids[0],
            GameSettings(players, gods, time, options, pool=pool),
            home=tmp / "p0",
            now=clock,
            known=KnownPeers(tmp / "p0"),
            address="127.0.0.1:1",
            game_id=bytes([seed % 256]) * 16,
            nonce=bytes([seed % 256, 0]) * 16,
        )
        sessions = [host]
        for i in range(1, players):
            sessions.append(
                Session.join(
                    ids[i],
                    home=tmp / f"p{i}",
                    now=clock,
                    known=KnownPeers(tmp / f"p{i}"),
                    address="127.0.0.1:1",
                    nonce=bytes([seed % 256, i]) * 16,
                )
            )
        return cls(sessions, clock, random.Random(seed), policy or Policy())

    def peer_id(self, i: int) -> bytes:
        return bytes([i])

    def _send(self, src: int, dst: int, data: bytes) -> None:
        if src in self.down or dst in self.down:
            return
        p = self.policy
        if self.rng.random() < p.drop:
            return
        copies = 2 if self.rng.random() < p.dup else 1
        for _ in range(copies):
            delay = self.rng.randint(0, p.delay) if p.delay else 0
            self.packets.append(Packet(self.step_no + delay, src, dst, data))

    def step(self, ms: int = 10) -> None:
        """One round: time passes, every session ticks and plays, packets are delivered."""
        self.step_no += 1
        self.clock.ms += ms
        for i, s in enumerate(self.sessions):
            if i in self.down:
                continue
            self.active[0] = i
            s.tick()
            if self.bots and s.choice_asked is not None:
                # Gaea's seat answers the mover's ask (SPEC.md 8.4).
                options = s.choice_asked[1]
                s.answer_choice(random.Random(self.step_no * 7 + i).choice(options))
            elif self.bots and s.awaiting is not None:
                p = s.position
                v = s.validator
                assert p is not None
                assert v is not None
                # After another seat chose in this turn, the turn goes on from its choice.
                actions = turns_after(p, v.answered) if v.answered else legal_actions(p)
                s.submit(random.Random(self.step_no * 7 + i).choice(actions))
        for k, w in enumerate(self.watchers):
            if len(self.sessions) + k not in self.down:
                w.tick()
        self.flush()
        due = [p for p in self.packets if p.due <= self.step_no]
        self.packets = [p for p in self.packets if p.due > self.step_no]
        if self.policy.reorder:
            self.rng.shuffle(due)
        for p in due:
            if p.dst in self.down:
                continue
            self.active[0] = p.dst
            src_id = HOST_ID if p.src == 0 else self.peer_id(p.src)
            self.node(p.dst).receive(src_id, p.data)
        self.flush()

    def deliver(self, packet: Packet) -> None:
        """Hand one packet to its session now (the state machine picks which)."""
        self.active[0] = packet.dst
        src_id = HOST_ID if packet.src == 0 else self.peer_id(packet.src)
        self.node(packet.dst).receive(src_id, packet.data)
        self.flush()

    def tick_all(self, ms: int) -> None:
        """Let ``ms`` pass and tick every session (no bot moves)."""
        self.clock.ms += ms
        for i, s in enumerate(self.sessions):
            self.active[0] = i
            s.tick()
        self.flush()

    def flush(self) -> None:
        nodes: list[Session | Spectator] = [*self.sessions, *self.watchers]
        for i, s in enumerate(nodes):
            if i in self.down:
                s.outgoing()
                continue
            for peer, data in s.outgoing():
                dst = 0 if i != 0 else peer[0]
                self._send(i, dst, data)

    def run(self, limit: int = 20_000, ms: int = 10) -> int:
        """Step until every session is settled or one stopped; return the steps taken."""
        for n in range(limit):
            if self.done():
                return n
            self.step(ms)
        raise AssertionError(f"no end after {limit} steps: {self.summary()}")

    def done(self) -> bool:
        live = [s for i, s in enumerate(self.sessions) if i not in self.down]
        return all(s.is_settled for s in live) or all(s.stopped for s in live)

    def summary(self) -> str:
        return "; ".join(
            f"{s.identity.name}: {len(s.records)} records, stopped={s.stopped}"
            for s in self.sessions
        )

    def journals(self) -> list[bytes]:
        return [s.journal_path.read_bytes() for s in self.sessions]
