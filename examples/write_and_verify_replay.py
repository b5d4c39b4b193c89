#!/usr/bin/env python3
"""Write a complete replay of a short scripted game between two fresh identities, then verify it.

Each player is a peer with its own identity (created in a temporary directory) and its own
journal. Every record one peer signs is appended to its journal (fsynced) and "sent" to the
other, which checks it and appends it to its journal too: the lockstep order of
protocol/SPEC.md section 8. At the end the journal is a replay file, verified as
``santorini replay verify`` does.
"""

from __future__ import annotations

import argparse
import os
import tempfile
import time
from pathlib import Path

from santorini_p2p.replay.verify import verify_file
from santorini_p2p.wire.identity import Identity, load_or_create_identity
from santorini_p2p.wire.log import Journal, make_header, seal

SCRIPT = ("place b2,d4", "place b4,d2", "b2>c3^c4", "d2>d3^e4", "c3>c2^b1", "d3>e3^e2")
"""The actions played after the draw, by whichever seat is to move."""


class Peer:
    """One player: an identity and a journal of the game."""

    def __init__(self, me: Identity, journal: Journal) -> None:
        self.me = me
        self.journal = journal


def main() -> int:
    """Play, write and verify the game; exit 0 when the replay verifies."""
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--keep", metavar="FILE", help="also copy the replay to FILE")
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as tmp:
        root = Path(tmp)
        alice = load_or_create_identity(root / "alice", name="alice")
        bob = load_or_create_identity(root / "bob", name="bob")
        print(f"alice {alice.fingerprint}  bob {bob.fingerprint}")

        header = make_header(
            os.urandom(16),
            [(alice.public_key, alice.name), (bob.public_key, bob.name)],
            move_ms=60_000,
            bank_ms=300_000,
            created_ms=time.time_ns() // 1_000_000,
        )
        first = seal(alice, header)
        peers = [
            Peer(alice, Journal.create(root / "alice.journal", first)),
            Peer(bob, Journal.create(root / "bob.journal", first)),
        ]

        def publish(raw: bytes) -> None:
            # Both peers check and journal every record; a bad one would raise ReplayError.
            for peer in peers:
                peer.journal.append(raw)

        def peer_with_key(key: bytes) -> Peer:
            return next(p for p in peers if p.me.public_key == key)

        nonces = [os.urandom(32) for _ in peers]
        for peer, nonce in zip(peers, nonces, strict=True):
            publish(peer.journal.validator.make_commit(peer.me, nonce))
        for peer, nonce in zip(peers, nonces, strict=True):
            publish(peer.journal.validator.make_reveal(peer.me, nonce))
        v = peers[0].journal.validator
        print(f"the draw made {v.names[0]} seat 1")

        turn_started = time.monotonic_ns()
        for text in SCRIPT:
            assert v.position is not None
            mover = peer_with_key(v.seats[v.position.to_move])
            seat = v.position.to_move + 1
            # The clock reading: how long the move took on the mover's monotonic clock.
            took = (time.monotonic_ns() - turn_started) // 1_000_000
            publish(mover.journal.validator.make_act(mover.me, text, clock_ms=took))
            print(f"seat {seat} {mover.me.name:<5} {text:<12} {took} ms")
            for seat in v.pending_acks:
                acker = peer_with_key(v.seats[seat])
                publish(acker.journal.validator.make_ack(acker.me))
            turn_started = time.monotonic_ns()

        assert v.position is not None
        loser = peer_with_key(v.seats[v.position.to_move])
        print(f"{loser.me.name} resigns")
        publish(loser.journal.validator.make_resign(loser.me))
        for seat in range(len(peers)):
            signer = peer_with_key(v.seats[seat])
            publish(signer.journal.validator.make_result(signer.me))
        for peer in peers:
            peer.journal.close()

        replay = root / "alice.journal"
        same = replay.read_bytes() == (root / "bob.journal").read_bytes()
        print(f"both journals identical: {same}")
        if args.keep:
            Path(args.keep).write_bytes(replay.read_bytes())
        verdict = verify_file(replay)
        print(verdict.line())
        return 0 if verdict.ok and same else 1


if __name__ == "__main__":
    raise SystemExit(main())
