#!/usr/bin/env python3
"""Share a signed game: export it as text, a web page, JSON and an image, then check the text.

Plays a seeded random game between two local identities (a complete signed replay), writes
``game.santorini.txt``, ``game.html``, ``game.json`` and ``board.svg`` into a directory (a
temporary one by default), restores the replay file from the text alone, checks that it is
byte for byte the original and that the text verifies, and shows that editing one move in
the readable part is caught with its line.
"""

from __future__ import annotations

import argparse
import random
import tempfile
from pathlib import Path

from santorini_p2p.engine import format_action, legal_actions
from santorini_p2p.replay.export_html import export_html
from santorini_p2p.replay.export_json import export_json
from santorini_p2p.replay.export_text import (
    TextReplayError,
    check_text,
    export_text,
    read_text,
)
from santorini_p2p.replay.svg import board_svg
from santorini_p2p.replay.timeline import read_timeline
from santorini_p2p.replay.verify import verify_text
from santorini_p2p.wire.identity import Identity
from santorini_p2p.wire.log import encode_frames
from santorini_p2p.wire.script import play_script


def share(directory: Path, seed: int) -> int:
    """Write the exports into ``directory`` and check them; return the exit code."""
    rng = random.Random(seed)
    players = [Identity.from_seed(bytes([i + 1]) * 32, n) for i, n in enumerate(("ann", "ben"))]
    envelopes = play_script(
        players, lambda p: format_action(rng.choice(legal_actions(p))), gods="draft"
    )
    replay = encode_frames(envelopes)
    timeline = read_timeline(replay)
    text = export_text(timeline)
    files = {
        "game.santorini.txt": text,
        "game.html": export_html(timeline),
        "game.json": export_json(timeline),
        "board.svg": board_svg(timeline.steps[-1].position),
    }
    for name, content in files.items():
        (directory / name).write_text(content, encoding="utf-8")
        print(f"wrote {directory / name} ({len(content.encode()) / 1000:.1f} KB)")
    restored = read_text(text.encode()).data
    print(f"restored from the text: {'identical' if restored == replay else 'DIFFERENT'} bytes")
    verdict = verify_text(text.encode(), "game.santorini.txt")
    print(verdict.line())
    move = next(s for s in timeline.steps if s.kind == "act" and s.text[0] in "abcde")
    edited = text.replace(f": {move.text} ", ": a1>a2^a3 ", 1)
    try:
        check_text(edited.encode())
    except TextReplayError as e:
        print(f"edited move caught: {e}")
    else:
        print("the edited move went unnoticed")
        return 1
    return 0 if restored == replay and verdict.ok else 1


def main() -> int:
    """Parse the arguments and run the example."""
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--out", type=Path, help="directory to write to (default: temporary)")
    parser.add_argument("--seed", type=int, default=3)
    args = parser.parse_args()
    if args.out is not None:
        args.out.mkdir(parents=True, exist_ok=True)
        return share(args.out, args.seed)
    with tempfile.TemporaryDirectory() as tmp:
        return share(Path(tmp), args.seed)


if __name__ == "__main__":
    raise SystemExit(main())
