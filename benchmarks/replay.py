#!/usr/bin/env python3
"""Replay verification speed: records per second against the raw Ed25519 verification floor.

Writes a batch of seeded random replays to a temporary directory, then measures in one run:

- the raw Ed25519 rate of each library, over exactly the signatures of the batch (keys loaded
  beforehand): OpenSSL's (``cryptography``'s ``Ed25519PublicKey.verify``, the floor the target
  was set against) and libsodium's (PyNaCl's ``crypto_sign_open``, which the program verifies
  with since it is faster);
- single-core verification: ``read_log`` over every file in this process (all checks:
  decoding, signatures, chain, signer's rights, engine legality, state hashes);
- ``verify_files`` with 1 and with ``--jobs`` processes, file reading included.

The first three are CPU time of this process, interleaved file by file (each file's best of
``--repeats``), the last two wall time.

Target: single-core verification at least 90% of OpenSSL's raw rate, near-linear speed-up with
jobs. The share of libsodium's raw rate is printed too: what the checks beyond the signature
cost against the signature the program now checks.
A last row shows where the time beyond the signatures goes: every other check of a record
(``Validator.feed`` with the signature taken as checked), per record, acts and the rest apart.
Run by hand: ``python benchmarks/replay.py [--games N] [--jobs N]``.
"""

from __future__ import annotations

import argparse
import os
import random
import tempfile
import time
from collections.abc import Callable
from pathlib import Path
from typing import TypeVar

from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PublicKey
from nacl.bindings import crypto_sign_open

from santorini_p2p.engine import format_action, legal_actions
from santorini_p2p.replay.verify import verify_files
from santorini_p2p.wire.identity import Identity
from santorini_p2p.wire.log import (
    Validator,
    encode_frames,
    iter_frames,
    open_envelope,
    read_log,
    signing_input,
)
from santorini_p2p.wire.script import play_script

IDS = [Identity.from_seed(bytes([i + 1]) * 32, n) for i, n in enumerate(("alice", "bob", "carol"))]
T = TypeVar("T")

MODES = [(2, "none"), (2, "random"), (2, "draft"), (3, "random")]


def make_batch(directory: Path, games: int, seed: int) -> list[Path]:
    """Write ``games`` seeded random replays into ``directory`` and return their paths."""
    paths = []
    for g in range(games):
        players, gods = MODES[g % len(MODES)]
        rng = random.Random(seed * 1_000_003 + g)
        env = play_script(
            IDS[:players],
            lambda p, rng=rng: format_action(rng.choice(legal_actions(p))),  # type: ignore[misc]
            game_id=g.to_bytes(16, "big"),
            gods=gods,  # type: ignore[arg-type]
        )
        path = directory / f"game-{g:04d}.sntr"
        path.write_bytes(encode_frames(env))
        paths.append(path)
    return paths


def cpu_time(fn: Callable[[T], object], arg: T) -> float:
    """Return the CPU time of this process that one run of ``fn(arg)`` takes."""
    start = time.process_time()
    fn(arg)
    return time.process_time() - start


def timed(fn: Callable[[], object]) -> tuple[float, float]:
    """Return the wall time and the CPU time (this process and its children) of ``fn()``."""
    before, start = os.times(), time.perf_counter()
    fn()
    after, end = os.times(), time.perf_counter()
    cpu = sum(getattr(after, f) - getattr(before, f) for f in ("user", "system"))
    cpu += sum(getattr(after, f) - getattr(before, f) for f in ("children_user", "children_system"))
    return end - start, cpu


def _checks(raws: list[bytes]) -> tuple[float, float, int]:
    """CPU seconds of every check but the signature, for the acts and for the other records.

    Each record is fed with its signature taken as checked (``verified``) and timed alone;
    returns the two sums and the number of acts.
    """
    v = Validator()
    acts = other = 0.0
    n_acts = 0
    for raw in raws:
        act = open_envelope(raw).body[1:2] == b"\x03"  # record type 3: an act
        start = time.process_time()
        v.feed(raw, verified=True)
        spent = time.process_time() - start
        if act:
            acts += spent
            n_acts += 1
        else:
            other += spent
    return acts, other, n_acts


def main() -> int:
    """Run the benchmark and print the figures."""
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--games", type=int, default=40, help="replays in the batch (40)")
    parser.add_argument("--jobs", type=int, default=os.cpu_count() or 1, help="processes")
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--repeats", type=int, default=3, help="best of N runs (3)")
    args = parser.parse_args()

    with tempfile.TemporaryDirectory() as tmp:
        paths = make_batch(Path(tmp), args.games, args.seed)
        datas = [p.read_bytes() for p in paths]
        records = sum(1 for data in datas for _ in iter_frames(data))
        keys: dict[bytes, Ed25519PublicKey] = {}
        triples: list[list[tuple[Ed25519PublicKey, bytes, bytes]]] = []
        pairs: list[list[tuple[bytes, bytes]]] = []
        for data in datas:
            triples.append([])
            pairs.append([])
            for raw in iter_frames(data):
                env = open_envelope(raw)
                if env.signer not in keys:
                    keys[env.signer] = Ed25519PublicKey.from_public_bytes(env.signer)
                signed = signing_input(env.body)
                triples[-1].append((keys[env.signer], env.signature, signed))
                pairs[-1].append((env.signer, env.signature + signed))

        def raw_openssl(signatures: list[tuple[Ed25519PublicKey, bytes, bytes]]) -> None:
            for key, sig, data in signatures:
                key.verify(sig, data)

        def raw_sodium(signatures: list[tuple[bytes, bytes]]) -> None:
            for key, signed in signatures:
                crypto_sign_open(signed, key)

        names = [str(p) for p in paths]
        # Single-core figures are CPU time of this process, so that other processes do not
        # count. The two are interleaved file by file and each file keeps its best of the
        # repeats: a virtual machine's speed drifts from second to second, and a whole-batch
        # best still compares a fast moment of one with a slow moment of the other.
        floor_s = sodium_s = single_s = 0.0
        for data, signatures, opened in zip(datas, triples, pairs, strict=True):
            floor_best = sodium_best = single_best = float("inf")
            for _ in range(args.repeats):
                floor_best = min(floor_best, cpu_time(raw_openssl, signatures))
                sodium_best = min(sodium_best, cpu_time(raw_sodium, opened))
                single_best = min(single_best, cpu_time(read_log, data))
            floor_s += floor_best
            sodium_s += sodium_best
            single_s += single_best
        act_s = other_s = 0.0
        n_acts = 0
        for data in datas:
            runs = [_checks(list(iter_frames(data))) for _ in range(args.repeats)]
            act_s += min(r[0] for r in runs)
            other_s += min(r[1] for r in runs)
            n_acts += runs[0][2]
        one_s, one_cpu = timed(lambda: list(verify_files(names, 1)))
        many_s, many_cpu = timed(lambda: list(verify_files(names, args.jobs)))

    floor = records / floor_s
    sodium = records / sodium_s
    single = records / single_s
    print(f"batch: {args.games} replays, {records} records (= signatures)")
    print(f"raw Ed25519 verify, OpenSSL   {floor:10.0f} signatures/s  (cryptography)")
    print(f"raw Ed25519 verify, libsodium {sodium:10.0f} signatures/s  (PyNaCl, used to verify)")
    print(
        f"read_log, one core            {single:10.0f} records/s  ({single / floor:.0%} of "
        f"OpenSSL's raw rate, {single / sodium:.0%} of libsodium's)"
    )
    verdict = "met" if single >= 0.9 * floor else "not met"
    print(f"target (one core at 90% of OpenSSL's raw rate or more): {verdict}")
    others = records - n_acts
    print(
        f"checks but the signature      {1e6 * (act_s + other_s) / records:10.1f} us a record  "
        f"(an act {1e6 * act_s / max(1, n_acts):.1f} us, any other record "
        f"{1e6 * other_s / max(1, others):.1f} us; a signature {1e6 / sodium:.1f} us with "
        f"libsodium, {1e6 / floor:.1f} us with OpenSSL)"
    )
    print(f"verify_files --jobs 1         {records / one_s:10.0f} records/s  (wall clock)")
    print(
        f"verify_files --jobs {args.jobs:<2}        {records / many_s:10.0f} records/s  "
        f"(speed-up {one_s / many_s:.2f}x on {os.cpu_count()} cores)"
    )
    # CPU seconds spent, this process and its workers: the work does not grow with jobs, so on
    # idle cores the speed-up is jobs x this efficiency, whatever else loads the machine now.
    print(
        f"CPU time, jobs 1 / jobs {args.jobs}       {one_cpu:.2f} s / {many_cpu:.2f} s  "
        f"(parallel efficiency {one_cpu / many_cpu:.0%})"
    )
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
