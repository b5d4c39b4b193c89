#!/usr/bin/env python3
"""Replay export speed and size: 1,000 replays to HTML, and how large each export is.

Makes a batch of seeded random replays (2, 3 and 4 players, gods and clocks mixed), then
exports ``--exports`` of them (the batch over and over) and reports:

- HTML export alone, from a timeline already read (CPU time of this process);
- the whole path a user runs, read and verify the replay then write the page (CPU time);
- the same over ``--jobs`` processes (wall time);
- the size of the HTML page, the text export, the JSON export and the replay file: mean and
  largest over the batch (target: every HTML page under 100 KB).

Run by hand: ``python benchmarks/export.py [--exports 1000] [--games 40] [--jobs N]``.
"""

from __future__ import annotations

import argparse
import os
import random
import time
from concurrent.futures import ProcessPoolExecutor

from santorini_p2p.engine import GodMode, format_action, legal_actions
from santorini_p2p.replay.export_html import export_html
from santorini_p2p.replay.export_json import export_json
from santorini_p2p.replay.export_text import BEGIN_LINE, export_text
from santorini_p2p.replay.timeline import read_timeline
from santorini_p2p.wire.identity import Identity
from santorini_p2p.wire.log import encode_frames
from santorini_p2p.wire.script import play_script

IDS = [
    Identity.from_seed(bytes([i + 1]) * 32, n)
    for i, n in enumerate(("alice", "bob", "carol", "dave"))
]
MODES: list[tuple[int, GodMode, bool]] = [
    (2, "none", False),
    (2, "draft", True),
    (2, "random", False),
    (3, "draft", True),
    (4, "challenger", False),
]


def make_batch(games: int, seed: int) -> list[bytes]:
    """Return ``games`` seeded random replay files."""
    out = []
    for g in range(games):
        players, gods, timed = MODES[g % len(MODES)]
        rng = random.Random(seed * 1_000_003 + g)
        env = play_script(
            IDS[:players],
            lambda p, rng=rng: format_action(rng.choice(legal_actions(p))),  # type: ignore[misc]
            game_id=g.to_bytes(16, "big"),
            gods=gods,
            move_ms=30_000 if timed else 0,
            bank_ms=300_000 if timed else 0,
            clock_ms=rng.randrange(500, 40_000) if timed else 0,
            max_actions=400,
        )
        out.append(encode_frames(env))
    return out


def export_file(data: bytes) -> int:
    """Read, verify and export one replay to HTML; return the page's size in bytes."""
    return len(export_html(read_timeline(data)).encode())


def main() -> int:
    """Run the benchmark and print the figures."""
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--exports", type=int, default=1000, help="exports to time (1000)")
    parser.add_argument("--games", type=int, default=40, help="distinct replays (40)")
    parser.add_argument("--jobs", type=int, default=os.cpu_count() or 1, help="processes")
    parser.add_argument("--seed", type=int, default=1)
    args = parser.parse_args()

    batch = make_batch(args.games, args.seed)
    work = [batch[i % len(batch)] for i in range(args.exports)]
    timelines = [read_timeline(d) for d in batch]
    assert all(t.ok for t in timelines)

    cpu = time.process_time
    start = cpu()
    for i in range(args.exports):
        export_html(timelines[i % len(timelines)])
    html_only = cpu() - start

    start = cpu()
    for data in work:
        export_file(data)
    whole = cpu() - start

    wall = time.perf_counter
    start = wall()
    with ProcessPoolExecutor(max_workers=args.jobs) as pool:
        sizes = list(pool.map(export_file, work, chunksize=16))
    parallel = wall() - start
    assert len(sizes) == args.exports

    def stats(values: list[int]) -> str:
        return (
            f"mean {sum(values) / len(values) / 1000:6.1f} KB  largest {max(values) / 1000:6.1f} KB"
        )

    pages = [export_html(t) for t in timelines]
    html = [len(p.encode()) for p in pages]
    carried = sum(BEGIN_LINE in p for p in pages)
    text = [len(export_text(t).encode()) for t in timelines]
    js = [len(export_json(t).encode()) for t in timelines]
    raw = [len(d) for d in batch]
    turns = [t.turns for t in timelines]
    records = [len(t.records) for t in timelines]
    n = args.exports
    print(
        f"batch: {len(batch)} replays, {min(turns)}-{max(turns)} turns, "
        f"{min(records)}-{max(records)} records; {n} exports"
    )
    each = html_only / n * 1e3
    print(f"HTML export alone (timeline read)   {html_only:7.2f} s CPU  {each:6.2f} ms each")
    each = whole / n * 1e3
    print(f"read + verify + HTML, one process   {whole:7.2f} s CPU  {each:6.2f} ms each")
    print(f"read + verify + HTML, {args.jobs} processes  {parallel:7.2f} s wall")
    print(f"HTML page    {stats(html)}  (limit 100 KB: {'ok' if max(html) < 100_000 else 'OVER'})")
    print(f"             {carried} of {len(pages)} pages carry the signed record (text export)")
    print(f"text export  {stats(text)}")
    print(f"JSON export  {stats(js)}")
    print(f"replay file  {stats(raw)}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
