#!/usr/bin/env python3
"""Regenerate the text export vectors (protocol/SPEC.md section 14).

Writes protocol/vectors/text/*.santorini.txt, the text export of each complete game in
protocol/vectors/replays/, and protocol/vectors/text-export.json: those files as valid cases,
and edits of one line of a text (a move, a tag, the armour) with the verdict a reader must
reach and the line it must report. The tests only read these files; ``--check`` compares
instead of writing.

Format 1 (SPEC.md 14.2: every line numbered) is what the first cases and text/*.santorini.txt
have always held, byte for byte; the format 2 exports (14.7: the game's one numbering) are
text/format2/*.santorini.txt, appended as cases with ``"format": 2``, with edits of their own.
"""

from __future__ import annotations

import argparse
import json
import re
import sys
from pathlib import Path
from typing import Any

from santorini_p2p.replay.export_text import (
    BEGIN_LINE,
    END_LINE,
    FORMATS,
    TextReplayError,
    check_text,
    export_text,
    read_text,
)
from santorini_p2p.replay.timeline import read_timeline
from santorini_p2p.replay.verify import verify_text

VECTORS = Path(__file__).resolve().parent.parent / "vectors"
GAMES = ("2p-none", "2p-challenger-timed", "3p-draft", "4p-random")
# Games of advanced gods (protocol 2): their exports carry comment lines (SPEC.md 14.2). They
# come after the edits, so that the cases before keep their numbers.
POOL_GAMES = ("2p-pool-random", "2p-pool-challenger")
# Games allowing takebacks and chat (protocol 2): requests, acceptances and chat are lines.
TAKEBACK_GAMES = ("2p-takeback", "2p-chat")
BASE = "2p-challenger-timed"


def _apply(lines: list[str], edit: dict[str, Any]) -> list[str]:
    out = list(lines)
    k = edit["line"] - 1
    if edit.get("delete"):
        del out[k]
    else:
        out[k] = edit["text"]
    return out


def _verdict(text: str) -> dict[str, Any]:
    """Return what a reader reports for ``text``: result, error kind, record, line."""
    data = text.encode()
    v = verify_text(data)
    if v.ok:
        return {"result": "valid"}
    try:
        tr = read_text(data)
        t = read_timeline(tr.data)
        if not t.ok:  # a log fault: the first armour line of the bad record's frame
            line = tr.begin + 1 if t.bad_record is None else tr.lines_of(t.bad_record)[0]
        else:
            check_text(data)
            raise AssertionError("verify_text failed but check_text passed")
    except TextReplayError as e:
        line = e.line
    return {"result": "invalid", "error": v.kind, "record": v.record, "line": line}


def _other_seat(m: re.Match[str]) -> str:
    return f"seat {int(m[1]) % 2 + 1}:"


def _edits(lines: list[str]) -> list[tuple[str, str, dict[str, Any]]]:
    begin = lines.index(BEGIN_LINE) + 1  # 1-based line of BEGIN
    end = lines.index(END_LINE) + 1
    move = next(i for i, x in enumerate(lines) if x.startswith("12. ")) + 1
    seat1 = next(i for i, x in enumerate(lines) if x.startswith("[Seat1 ")) + 1
    winner = next(i for i, x in enumerate(lines) if x.startswith("[Winner ")) + 1
    info = next(i for i, x in enumerate(lines) if x.startswith("[Verification ")) + 1
    old_move = lines[move - 1]
    text = old_move.split(": ", 1)[1].split(" {")[0]
    mid = begin + (end - begin) // 2
    line = lines[mid - 1]
    flipped = ("B" if line[10] == "A" else "A").join((line[:10], line[11:]))
    last = lines[end - 2]
    cases: list[tuple[str, str, dict[str, Any]]] = [
        (
            "move-edited",
            "action 12's text changed without the log",
            {"line": move, "text": old_move.replace(f": {text}", ": a1>a2^a3", 1)},
        ),
        ("move-deleted", "action 12's line removed", {"line": move, "delete": True}),
        (
            "seat-edited",
            "action 12 credited to another seat",
            {"line": move, "text": re.sub(r"seat (\d):", _other_seat, old_move, count=1)},
        ),
        (
            "name-edited",
            "seat 1's display name changed",
            {"line": seat1, "text": '[Seat1 "mallory"]'},
        ),
        ("winner-edited", "the winner tag changed", {"line": winner, "text": '[Winner "9"]'}),
        (
            "verification-tag-edited",
            "the Verification tag is the exporter's own verdict: a reader checks for itself",
            {"line": info, "text": '[Verification "checked by a friend"]'},
        ),
        (
            "trailing-spaces",
            "trailing white space is ignored",
            {"line": move, "text": old_move + "   "},
        ),
        (
            "armour-char-changed",
            "one base64 character of the armour changed to another valid one",
            {"line": mid, "text": flipped},
        ),
        (
            "armour-bad-char",
            "a character outside base64 in the armour",
            {"line": mid, "text": line[:5] + "!" + line[6:]},
        ),
        (
            "armour-line-short",
            "an armour line one character short",
            {"line": mid, "text": line[1:]},
        ),
        ("armour-line-deleted", "an armour line removed", {"line": mid, "delete": True}),
        (
            "text-after-end",
            "only blank lines may follow the END line",
            {"line": end, "text": END_LINE + "\nPS: good game"},
        ),
        ("no-begin", "the BEGIN line is missing", {"line": begin, "text": "BEGIN"}),
    ]
    if last.endswith("=") and not last.endswith("=="):
        # The character before a single "=" carries 2 unused bits; set one.
        alphabet = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/"
        c = last[-2]
        odd = alphabet[alphabet.index(c) | 1]
        cases.append(
            (
                "armour-padding-bits",
                "non-zero padding bits: the same bytes, but not canonical base64",
                {"line": end - 1, "text": last[:-2] + odd + "="},
            )
        )
    cases += [
        (
            "comment-added",
            "a comment line (;) after an action is information: a reader ignores it",
            {"line": move, "text": old_move + "\n; B's worker forced from c3 to e3"},
        ),
        (
            "comment-in-tags",
            "a comment line among the tag lines is ignored too",
            {"line": winner, "text": lines[winner - 1] + "\n; a hard-fought game"},
        ),
        (
            "comment-replaces-move",
            "a comment is no action: an action line turned into a comment is missing",
            {"line": move, "text": "; " + old_move},
        ),
    ]
    return cases


def _format2_edits(files: dict[str, str]) -> list[tuple[str, tuple[str, str, dict[str, Any]]]]:
    """Edits of format 2 texts: its numbering, its notes and its Format tag."""
    takeback = "text/format2/2p-takeback.santorini.txt"
    chat = "text/format2/2p-chat.santorini.txt"
    none = "text/format2/2p-none.santorini.txt"
    lines = files[takeback].split("\n")
    note = next(i for i, x in enumerate(lines) if x.startswith("- ") and "taken back" in x)
    again = note + 1  # the turn played in place of the one taken back: the same number
    chat_lines = files[chat].split("\n")
    said = next(i for i, x in enumerate(chat_lines) if x.startswith("- ") and "says:" in x)
    tag = next(i for i, x in enumerate(lines) if x.startswith("[Format "))
    number = lines[again].split(".", 1)[0]
    return [
        (
            takeback,
            (
                "format2-renumbered",
                "the turn played after a takeback numbered on, as format 1 would",
                {"line": again + 1, "text": f"{int(number) + 1}.{lines[again].split('.', 1)[1]}"},
            ),
        ),
        (
            takeback,
            (
                "format2-note-numbered",
                "a takeback's acceptance given a number: it is no move",
                {"line": note + 1, "text": "6." + lines[note][1:]},
            ),
        ),
        (
            chat,
            (
                "format2-chat-numbered",
                "a chat line given a number: it is no move",
                {"line": said + 1, "text": "1." + chat_lines[said][1:]},
            ),
        ),
        (
            takeback,
            (
                "format2-later-format",
                "a Format this reader does not know (a later version's): refused, naming the line",
                {"line": tag + 1, "text": '[Format "3"]'},
            ),
        ),
        (
            takeback,
            (
                "format2-tag-deleted",
                "the Format tag removed: read as format 1, whose numbering the lines break",
                {"line": tag + 1, "delete": True},
            ),
        ),
        (
            none,
            (
                "format2-tag-deleted-no-notes",
                "the Format tag removed from a game with no notes: the lines are format 1's too",
                {"line": tag + 1, "delete": True},
            ),
        ),
    ]


def build() -> dict[str, str]:
    """Return every vector file's text by its path under protocol/vectors."""
    files: dict[str, str] = {}
    tests: list[dict[str, Any]] = []

    def export(name: str, comment: str, version: int = 1) -> None:
        data = (VECTORS / "replays" / f"{name}.sntr").read_bytes()
        text = export_text(read_timeline(data), version)
        assert read_text(text.encode()).data == data
        folder = "text/" if version == 1 else f"text/format{version}/"
        path = f"{folder}{name}.santorini.txt"
        files[path] = text
        case: dict[str, Any] = {
            "tcId": len(tests) + 1,
            "id": f"export-{name}" if version == 1 else f"export-format2-{name}",
            "comment": comment,
            "flags": ["export"],
            "file": path,
            "replay": f"replays/{name}.sntr",
            "edit": None,
            "result": "valid",
        }
        if version != 1:
            case["format"] = version
        tests.append(case)

    for name in GAMES:
        export(name, f"the text export of replays/{name}.sntr")
    base = files[f"text/{BASE}.santorini.txt"]
    lines = base.split("\n")
    for ident, comment, edit in _edits(lines):
        verdict = _verdict("\n".join(_apply(lines, edit)))
        case: dict[str, Any] = {
            "tcId": len(tests) + 1,
            "id": ident,
            "comment": comment,
            "flags": ["edit"],
            "file": f"text/{BASE}.santorini.txt",
            "replay": None,
            "edit": edit,
        }
        case.update(verdict)
        tests.append(case)
    for name in POOL_GAMES:
        export(name, f"the text export of replays/{name}.sntr, with comment lines (14.2)")
    for name in TAKEBACK_GAMES:
        export(name, f"the text export of replays/{name}.sntr, with takeback or chat lines")
    assert FORMATS == (1, 2)
    for name in (*GAMES, *POOL_GAMES, *TAKEBACK_GAMES):
        export(
            name,
            f"the format 2 text export of replays/{name}.sntr: actions in the game's numbering, "
            "chat lines, requests and acceptances as '-' lines",
            2,
        )
    for name, (ident, comment, edit) in _format2_edits(files):
        verdict = _verdict("\n".join(_apply(files[name].split("\n"), edit)))
        case = {
            "tcId": len(tests) + 1,
            "id": ident,
            "comment": comment,
            "flags": ["edit"],
            "file": name,
            "replay": None,
            "edit": edit,
            "format": 2,
        }
        case.update(verdict)
        tests.append(case)
    doc = {
        "schema": "text-export.schema.json",
        "version": 1,
        "notes": {
            "export": "a text export written from a replay file: a writer MUST produce it byte "
            "for byte, and a reader MUST restore the replay file from it",
            "edit": "the text export with one line replaced (edit.text, which may hold several "
            "lines) or deleted (edit.delete); line numbers are 1-based; for an invalid case "
            "the reader reports the error kind, the record (null when the fault is in the "
            "text) and the line: the edited line for a text fault, the first armour line of "
            "the bad record's frame for a log fault",
        },
        "tests": tests,
    }
    files["text-export.json"] = json.dumps(doc, indent=1, ensure_ascii=False) + "\n"
    return files


def main() -> int:
    """Write (or with --check, compare) the vector files."""
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--check", action="store_true", help="compare instead of writing")
    args = parser.parse_args()
    stale = 0
    for rel, text in build().items():
        path = VECTORS / rel
        if args.check:
            if not path.exists() or path.read_text(encoding="utf-8") != text:
                print(f"stale: {path}", file=sys.stderr)
                stale += 1
            continue
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(text, encoding="utf-8")
        print(f"wrote {path}")
    return 1 if stale else 0


if __name__ == "__main__":
    raise SystemExit(main())
