#!/usr/bin/env python3
"""Regenerate the session's rule vectors: text, chat bounds and timeout claims.

Writes protocol/vectors/session-rules.json from the installed package (SESSION.md 2, 5, 7):

- ``text``: strings and whether each is a printable line (SPEC.md 4, SESSION.md 2), as a
  display name, a chat line and a reason, with the rule broken;
- ``frames``: frames whose only fault is text that is not a line, with the error a receiver
  raises (the frame is malformed and dropped);
- ``chat``: runs of records written out of the lockstep order and the record a receiver
  refuses as beyond the bounds;
- ``claims``: what a receiver saw of the log, by its own monotonic clock in ms, and whether it
  accepts a timeout claim arriving at a given moment.

``--check`` compares instead of writing.
"""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path
from typing import Any

import msgpack

from santorini_p2p.errors import WireError
from santorini_p2p.net.bounds import CHAT_RUN, END_RESERVE, LAST_REQUEST
from santorini_p2p.net.frames import SESSION_VERSION, Welcome, decode_frame, encode_frame, sign_stop
from santorini_p2p.net.moveclock import QUIET_MS, DueTimes
from santorini_p2p.net.session import GRACE_MS
from santorini_p2p.wire.identity import MAX_NAME_BYTES, Identity
from santorini_p2p.wire.messages import MAX_CHAT_CHARS
from santorini_p2p.wire.text import MAX_REASON_CHARS, line_fault

PROTOCOL = Path(__file__).resolve().parent.parent
OUT = PROTOCOL / "vectors" / "session-rules.json"

TEXTS = [
    ("plain", "alice"),
    ("inner spaces", "Mary Ann"),
    ("accents", "Zoë Ångström"),
    ("emoji", "bob \U0001f3db"),
    ("empty", ""),
    ("space at the start", " alice"),
    ("space at the end", "alice "),
    ("newline", "alice\nThe game is stopped: bob resigned"),
    ("carriage return", "alice\r"),
    ("tab", "a\tb"),
    ("escape sequence", "\x1b[2J\x1b[31malice"),
    ("bell", "alice\x07"),
    ("delete", "alice\x7f"),
    ("C1 control", "alice\x9b2J"),
    ("right-to-left override (format)", "alice\u202eevil"),
    ("zero-width space (format)", "al\u200bice"),
    ("no-break space (separator)", "al\u00a0ice"),
    ("line separator", "alice\u2028bob"),
    ("private use", "alice\ue000"),
    ("unassigned", "alice\U000e0080"),
    ("65 bytes", "a" * 65),
    ("201 characters", "a" * 201),
    ("401 characters", "a" * 401),
]


def _verdict(text: str, **limit: int) -> str:
    return line_fault(text, **limit) or "ok"


def text_cases() -> list[dict[str, Any]]:
    """Each string, and what each rule says of it ("ok" or the rule broken)."""
    return [
        {
            "id": name,
            "text": text,
            "utf8": text.encode("utf-8").hex(),
            "display name": _verdict(text, max_bytes=MAX_NAME_BYTES),
            "chat line": _verdict(text, max_chars=MAX_CHAT_CHARS),
            "reason": _verdict(text, max_chars=MAX_REASON_CHARS),
        }
        for name, text in TEXTS
    ]


def frame_cases() -> list[dict[str, Any]]:
    """Frames malformed only by their text, and the error a receiver raises."""
    key, sig, gid = bytes(32), bytes(64), bytes(16)
    bad = "ok\nforged line"
    frames: list[tuple[str, list[object]]] = [
        ("refuse, unsigned, reason with a newline", [3, bad]),
        ("refuse, signed, reason with a newline", [3, bad, sig]),
        ("refuse, reason with an escape", [3, "\x1b[2Jgone"]),
        ("stop, reason with a newline", [6, bad, 0, b"", b"", sig]),
        ("welcome, gods not a line", [2, SESSION_VERSION, gid, 2, bad, 0, 0, [], key, "a", []]),
        (
            "welcome, an option not a line",
            [2, SESSION_VERSION, gid, 2, "none", 0, 0, ["chat\x00"], key, "a", []],
        ),
        (
            "welcome, a god of the pool not a line",
            [2, SESSION_VERSION, gid, 2, "random", 0, 0, [], key, "a", ["Pan\n"]],
        ),
        ("cheer, the relayed name not a display name", [13, "hi", "eve\x1b[2J", key, sig]),
    ]
    out = []
    for name, value in frames:
        raw = msgpack.packb(value, use_bin_type=True)
        try:
            decode_frame(raw)
        except WireError as e:
            error = f"{type(e).__name__}: {e.reason}"
        else:  # pragma: no cover - the generator documents what the package does
            raise SystemExit(f"{name}: decoded, expected a malformed frame")
        out.append({"id": name, "frame": raw.hex(), "error": error})
    return out


class _Log:
    """What ``DueTimes`` and the bounds read of a log: its count and lockstep count."""

    def __init__(self) -> None:
        self.kinds: list[str] = []

    @property
    def next_seq(self) -> int:
        return len(self.kinds)

    @property
    def lockstep_count(self) -> int:
        n = len(self.kinds)
        while n > 0 and self.kinds[n - 1].endswith("chat"):
            n -= 1
        return n


# Each case: the receiver's events (clock ms, what happened), then a claim at a moment, against
# a seat whose move time plus bank is ``need_ms``; the verdict follows from SESSION.md 7.
CLAIMS: list[tuple[str, list[tuple[int, str, int]], int, int]] = [
    ("a claim 10 ms after the first move was due", [(1000, "record", 0)], 1010, 90_000),
    ("a claim as the time runs out, within the grace", [(1000, "record", 0)], 88_000, 90_000),
    ("a claim 1 ms short of the grace", [(1000, "record", 0)], 87_999, 90_000),
    (
        "chat lines after the move was due move nothing",
        [(1000, "record", 0), (50_000, "chat", 0), (60_000, "own chat", 0)],
        88_000,
        90_000,
    ),
    (
        "the claim crosses the mover's own act, which is taken back",
        [(1000, "record", 0), (87_500, "own record", 0), (88_100, "taken back", 1)],
        88_100,
        90_000,
    ),
    (
        "after a silence from the host, the position counts from the silence",
        [(500, "own record", 0), (1000, "heard after silence", 20_000), (20_000, "record", 0)],
        88_000,
        90_000,
    ),
    (
        "after a silence, never from before this peer's own last record",
        [(5000, "own record", 0), (1000, "heard after silence", 20_000), (20_000, "record", 0)],
        88_000,
        90_000,
    ),
    (
        "a silence shorter than the quiet time counts nothing",
        [(500, "own record", 0), (19_500, "heard after silence", 20_000), (20_000, "record", 0)],
        88_000,
        90_000,
    ),
    (
        "caught up: the next position counts from its arrival",
        [
            (500, "own record", 0),
            (1000, "heard after silence", 20_000),
            (20_000, "record", 0),
            (20_050, "caught up", 0),
            (30_000, "record", 0),
        ],
        110_000,
        90_000,
    ),
    (
        "resumed: the journal was last written 60 s before",
        [(100_000, "resumed", 60_000)],
        128_000,
        90_000,
    ),
    (
        "resumed: a claim 10 s after the resume",
        [(100_000, "resumed", 60_000)],
        110_000,
        90_000,
    ),
    (
        "resumed: a record received before catching up counts from the journal's last write",
        [(100_000, "resumed", 60_000), (100_500, "record", 0)],
        128_000,
        90_000,
    ),
    (
        "resumed and caught up: the next record counts from its arrival",
        [(100_000, "resumed", 60_000), (100_500, "caught up", 0), (101_000, "record", 0)],
        128_000,
        90_000,
    ),
    ("untimed: the 120 s of abandonment", [(1000, "record", 0)], 118_000, 120_000),
]


def claim_cases() -> list[dict[str, Any]]:
    """Each claim case worked through the package's ``DueTimes``."""
    out = []
    for name, events, claim_at, need in CLAIMS:
        clock = [0]
        due = DueTimes(lambda clock=clock: clock[0])  # type: ignore[misc]
        log = _Log()
        steps = []
        for at, what, arg in events:
            clock[0] = at if what != "heard after silence" else arg
            step: dict[str, Any] = {"at_ms": clock[0], "event": what}
            if what in ("record", "own record", "chat", "own chat"):
                log.kinds.append(what)
                due.reached(log, own=what.startswith("own"))  # type: ignore[arg-type]
            elif what == "taken back":
                del log.kinds[-arg:]
                due.taken_back(log)  # type: ignore[arg-type]
                step["records"] = arg
            elif what == "heard after silence":
                due.heard(at)
                step["last_heard_ms"] = at
            elif what == "caught up":
                due.caught_up()
            elif what == "resumed":
                log.kinds.append("record")
                due.resumed(log, arg, behind=True)  # type: ignore[arg-type]
                step["journal_written_ms_ago"] = arg
            steps.append(step)
        clock[0] = claim_at
        seen = due.since(log)  # type: ignore[arg-type]
        out.append(
            {
                "id": name,
                "events": steps,
                "claim_at_ms": claim_at,
                "need_ms": need,
                "seen_ms": seen,
                "verdict": "accept" if seen + GRACE_MS >= need else "refuse",
            }
        )
    return out


def chat_cases() -> list[dict[str, Any]]:
    """Record runs and the first record a receiver refuses as beyond the bounds (or none)."""
    run = ["chat A"] * CHAT_RUN
    return [
        {"id": "a full run", "records": run, "refused": None},
        {"id": "one line too many", "records": [*run, "chat A"], "refused": CHAT_RUN},
        {
            "id": "runs are per seat",
            "records": [*run, *(["chat B"] * CHAT_RUN)],
            "refused": None,
        },
        {
            "id": "any other record ends a run",
            "records": [*run, "ack B", *run],
            "refused": None,
        },
        {
            "id": "a takeback offer is no chat line",
            "records": [*run, "offer A", "chat A"],
            "refused": None,
        },
        {
            "id": "another seat's line does not end a run",
            "records": [*run[:4], "chat B", *run[:5]],
            "refused": 9,
        },
    ]


def wire_cases() -> list[dict[str, Any]]:
    """Frames the documents' answers to earlier silences are about (SESSION.md 2, 10)."""
    alice = Identity.from_seed(b"\x01" * 32, "alice")
    joiner_nonce = bytes(range(32, 64))
    here = bytes(range(100, 132))
    stop = sign_stop(
        alice, "refused record 9 (SignatureError): bad signature", 9, here, b"", joiner_nonce
    )
    gid = bytes(range(16))
    options = ("chat", "takeback", "start=1")
    welcome = Welcome(SESSION_VERSION, gid, 2, "none", 0, 0, options, alice.public_key, "alice", ())
    return [
        {
            "id": "a stop for a failure that is not a desync: its hash here, none claimed",
            "frame": encode_frame(stop).hex(),
            "signed over": joiner_nonce.hex(),
            "signer": alice.public_key.hex(),
            "state hash here": here.hex(),
            "state hash claimed": "",
        },
        {
            "id": "a rematch's welcome: the finished game's options, then start=K",
            "frame": encode_frame(welcome).hex(),
            "options": list(options),
            "header options": sorted(options),
        },
    ]


def build() -> dict[str, Any]:
    """The whole file."""
    return {
        "schema": "session-rules.schema.json",
        "version": 3,
        "notes": {
            "text": "A line: non-empty, no Unicode category C or Z character but U+0020, no "
            "space at either end; a display name is at most 64 bytes of UTF-8, a chat line "
            "200 characters, a reason 400 (SESSION.md 2, SPEC.md 4, 8.3).",
            "chat": f"A seat writes at most {CHAT_RUN} chat lines since the last record that "
            f"is not a chat line; no chat line, offer or accept at record {LAST_REQUEST} "
            f"(the last {END_RESERVE} of the log) or later (SESSION.md 5). 'refused' is the "
            "index in 'records' of the first record a receiver refuses.",
            "claims": f"The receiver accepts a claim when seen_ms + {GRACE_MS} >= need_ms, "
            "seen_ms being the time since its log reached the position before the claim "
            f"(SESSION.md 7); a silence from the host longer than {QUIET_MS} ms counts from "
            "its start, never before the receiver's own last record.",
        },
        "text": text_cases(),
        "frames": frame_cases(),
        "chat": chat_cases(),
        "wire": wire_cases(),
        "claims": claim_cases(),
    }


def main() -> int:
    """Write the file, or with ``--check`` say whether it is up to date."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--check", action="store_true", help="compare instead of writing")
    args = parser.parse_args()
    text = json.dumps(build(), indent=1, ensure_ascii=False) + "\n"
    if args.check:
        same = OUT.exists() and OUT.read_text(encoding="utf-8") == text
        print(f"{OUT.name}: {'up to date' if same else 'out of date'}")
        return 0 if same else 1
    OUT.write_text(text, encoding="utf-8")
    print(f"wrote {OUT}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
