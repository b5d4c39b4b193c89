#!/usr/bin/env python3
"""Regenerate the correspondence block vectors (protocol/POST.md 9).

Writes protocol/vectors/post.json: blocks signed with fixed keys, each as its bytes (hex)
and as armoured text (some of it mangled as a chat or a mail client would), with the verdict
a reader must reach. The records block carries the first records of
``vectors/replays/2p-none.sntr``. The tests only read the file; ``--check`` compares instead
of writing.
"""

from __future__ import annotations

import argparse
import json
import sys
import textwrap
from pathlib import Path
from typing import Any

from santorini_p2p.wire.codec import decode, encode
from santorini_p2p.wire.identity import Identity
from santorini_p2p.wire.log import iter_frames
from santorini_p2p.wire.post import (
    BlockError,
    Invitation,
    RecordsBlock,
    armour,
    open_block,
    seal_block,
    unarmour,
)

VECTORS = Path(__file__).resolve().parent.parent / "vectors"
ALICE = Identity.from_seed(bytes([1]) * 32, "alice")
BOB = Identity.from_seed(bytes([2]) * 32, "bob")
T0 = 1_790_000_000_000
GAME = bytes([0x11]) * 16


def _mangled(text: str) -> str:
    """Re-wrapped at 30 columns, quoted twice, with spaces around, inside a message."""
    lines = []
    for line in text.splitlines():
        lines += textwrap.wrap(line, 30, break_long_words=True)
    return "Your move:\n" + "\n".join(f">  > {line}  " for line in lines) + "\n-- \nbob\n"


def _verdict(text: str) -> tuple[str, bytes]:
    try:
        data = unarmour(text)
        open_block(data)
    except BlockError as e:
        return str(e), b""
    return "", data


def build() -> dict[str, Any]:
    """Build every case."""
    replay = (VECTORS / "replays" / "2p-none.sntr").read_bytes()
    records = tuple(list(iter_frames(replay))[:3])
    invitation = seal_block(ALICE, Invitation(GAME, ALICE.public_key, "alice", "draft", (), 3, T0))
    block = RecordsBlock(_game_of(records[0]), ALICE.public_key, 3, 0, records, T0 + 60_000)
    recs = seal_block(ALICE, block)
    inv_text = armour(invitation, "santorini post 11111111: alice invites you to a game")
    rec_text = armour(recs, "santorini post: alice to bob, records 0-2")
    lines = rec_text.splitlines()
    changed = lines[3][:10] + ("A" if lines[3][10] != "A" else "B") + lines[3][11:]
    fields = list(decode(recs, 1 << 20))  # type: ignore[arg-type]  # a block is an array
    fields[4] = 2  # have: 2 in place of 3, signature kept
    resigned = encode(tuple(fields))  # type: ignore[arg-type]  # the same value types
    version2 = seal_block(ALICE, block)
    v2 = list(decode(version2, 1 << 20))  # type: ignore[arg-type]  # a block is an array
    v2[0] = 2
    cases: list[dict[str, Any]] = [
        {"id": "invitation", "comment": "alice invites anyone to a draft game, 3 days a move",
         "flags": ["valid"], "data": invitation.hex(), "text": inv_text},
        {"id": "records", "comment": "the header and both commitments of replays/2p-none.sntr",
         "flags": ["valid"], "data": recs.hex(), "text": rec_text},
        {"id": "records-mangled", "comment": "the records block re-wrapped, quoted and spaced",
         "flags": ["valid", "mangled"], "data": recs.hex(), "text": _mangled(rec_text)},
        {"id": "changed-character", "comment": "one base64 character changed",
         "flags": ["damaged"], "text": "\n".join([*lines[:3], changed, *lines[4:]]),
         "error": "its checksum does not match"},
        {"id": "cut", "comment": "the text cut before the END line",
         "flags": ["truncated"], "text": "\n".join(lines[:4]), "error": "truncated block"},
        {"id": "line-missing", "comment": "one line of the middle left out",
         "flags": ["truncated"], "text": "\n".join([*lines[:3], *lines[4:]]),
         "error": "truncated or damaged"},
        {"id": "changed-after-signing", "comment": "have changed, the armour's checksum made anew",
         "flags": ["signature"], "text": armour(resigned, "t"), "error": "bad signature"},
        {"id": "version-2", "comment": "a block of a version this reader does not know",
         "flags": ["version"], "text": armour(encode(tuple(v2)), "t"),  # type: ignore[arg-type]
         "error": "block version 2"},
        {"id": "no-block", "comment": "text with no BEGIN line", "flags": ["truncated"],
         "text": "see you tomorrow", "error": "no block"},
    ]  # fmt: skip
    out = []
    for i, c in enumerate(cases, 1):
        c = {"tcId": i, **c, "result": "valid" if "valid" in c["flags"] else "invalid"}
        error, data = _verdict(c["text"])
        ok = (
            (not error and data.hex() == c["data"])
            if c["result"] == "valid"
            else (bool(error) and c["error"] in error)
        )
        if not ok:
            raise AssertionError(f"{c['id']}: {error}")
        out.append(c)
    return {
        "schema": "post.schema.json",
        "version": 1,
        "notes": {
            "valid": "a block a reader accepts: the data its text holds",
            "mangled": "the text as a chat or a mail client leaves it",
            "damaged": "the text changed on the way: its checksum catches it",
            "truncated": "the text cut short, or a line of it lost",
            "signature": "the block changed after it was signed",
            "version": "a version this reader does not know",
        },
        "keys": {"alice": ALICE.seed.hex(), "bob": BOB.seed.hex()},
        "tests": out,
    }


def _game_of(header: bytes) -> bytes:
    from santorini_p2p.wire.log import verify_envelope
    from santorini_p2p.wire.messages import Header

    msg = verify_envelope(header)[1]
    assert isinstance(msg, Header)
    return msg.game_id


def main() -> int:
    """Write (or with --check, compare) protocol/vectors/post.json."""
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--check", action="store_true", help="compare instead of writing")
    args = parser.parse_args()
    text = json.dumps(build(), indent=2) + "\n"
    path = VECTORS / "post.json"
    if args.check:
        if path.read_text(encoding="utf-8") != text:
            print(f"{path} differs from what the package writes", file=sys.stderr)
            return 1
        print("post vectors: unchanged")
        return 0
    path.write_text(text, encoding="utf-8")
    print(f"wrote {path}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
