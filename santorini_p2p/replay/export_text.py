"""The text export (``.santorini.txt``, SPEC.md section 14): tags, numbered actions, armoured log.

The readable part (tag lines, then one line per action or event) is written from the log,
with, in a game of an advanced god, a comment line (``;``) after a turn for each thing its
power did to the other workers or the buildings (readers ignore comments),
and the whole signed log follows in base64 between ``BEGIN``/``END`` lines, so the text alone
restores the exact replay file (``read_text``), which ``verify.verify_text`` verifies. A reader
rebuilds the readable part from the log and compares them line by line: an edit to a move
without the log, or to the log, is reported with its line.

Two formats are written and read (SPEC.md 14.7): format 2 (``[Format "2"]``, written by
default) numbers the actions as the game's one numbering does (``timeline.move_numbers``:
chat lines, requests and a takeback's acceptance are unnumbered ``-`` lines, the next action
takes an undone turn's number); format 1 (no ``Format`` tag) numbers every line, and is
still written on request, byte for byte as before.
"""

from __future__ import annotations

import base64
import re
from dataclasses import dataclass, replace
from typing import Final

from santorini_p2p.engine import describe_effect
from santorini_p2p.errors import ReplayError
from santorini_p2p.replay.timeline import (
    Step,
    Timeline,
    format_clock,
    has_advanced_god,
    move_numbers,
    pass_line,
    read_timeline,
    step_before,
    step_effects,
)
from santorini_p2p.wire.messages import Header

__all__ = [
    "ARMOUR_WIDTH",
    "BEGIN_LINE",
    "COMMENT",
    "END_LINE",
    "FORMATS",
    "LATEST_FORMAT",
    "NOTE",
    "TextReplay",
    "TextReplayError",
    "check_text",
    "compare_text",
    "effect_comments",
    "export_text",
    "is_text",
    "load_timeline",
    "move_lines",
    "read_text",
    "readable_lines",
    "tag_lines",
    "text_format",
]

BEGIN_LINE: Final = "-----BEGIN SANTORINI REPLAY-----"
END_LINE: Final = "-----END SANTORINI REPLAY-----"
ARMOUR_WIDTH: Final = 64
"""Base64 characters per armour line (48 bytes of the replay file)."""
_BYTES_PER_LINE: Final = ARMOUR_WIDTH * 3 // 4
_BASE64: Final = re.compile(r"[A-Za-z0-9+/]*={0,2}")
_INFO_TAG: Final = "[Verification "
FORMATS: Final = (1, 2)
"""The text export formats this program writes and reads (SPEC.md 14.7)."""
LATEST_FORMAT: Final = 2
"""The format written unless another is asked for."""
_FORMAT_TAG: Final = "[Format "
NOTE: Final = "-"
"""What starts an action line that has no number in format 2 (a chat line, a request ...)."""
COMMENT: Final = ";"
"""A readable line starting with this is a comment: information a reader ignores."""


class TextReplayError(ReplayError):
    """A text export that does not hold together; ``line`` is the 1-based line at fault."""

    def __init__(self, message: str, line: int, record_index: int | None = None) -> None:
        self.line = line
        super().__init__(f"line {line}: {message}", record_index)
        where = f" (record {record_index})" if record_index is not None else ""
        self.args = (f"{self.reason}{where}",)


def _quote(value: str) -> str:
    return '"' + value.replace("\\", "\\\\").replace('"', '\\"') + '"'


def tag_lines(t: Timeline, version: int = LATEST_FORMAT) -> list[str]:
    """Return the tag lines ``[Name "value"]`` of ``t`` (SPEC.md section 14.1) in a format."""
    h = t.header
    tags: list[tuple[str, str]] = [("Event", "santorini-p2p game")]
    if version >= 2:
        tags.append(("Format", str(version)))
    date, time = t.date.split(" ") if t.date else ("????-??-??", "??:??:??")
    tags += [("Date", date.replace("-", ".")), ("Time", time)]
    if h is not None:
        tags += [
            ("Game", h.game_id.hex()),
            ("Protocol", str(h.protocol)),
            ("Players", str(h.players)),
            ("Mode", h.gods),
            ("TimeControl", t.time_control),
            ("Options", ",".join(h.options) or "-"),
        ]
        if h.pool:
            tags.append(("Pool", ",".join(h.pool)))
    for p in t.players:
        n = p.seat + 1
        tags += [(f"Seat{n}", p.name), (f"Seat{n}Key", p.fingerprint)]
        tags.append((f"Seat{n}God", p.god if p.god not in ("", "?") else "-"))
    if t.result is None:
        winner, reason = "*", "*"
    else:
        winner = str(t.result[0] + 1) if t.result[0] >= 0 else "-"
        reason = t.result[1]
    tags += [("Result", t.result_text), ("Winner", winner), ("Termination", reason)]
    tags.append(("Turns", str(t.turns)))
    last = t.steps[-1].position if t.steps else t.start
    if last is not None:
        tags.append(("Final", str(last)))
    tags.append(("Verification", t.verification))
    return [f"[{name} {_quote(value)}]" for name, value in tags]


def _move_line(s: Step, number: int, timed: bool, header: Header | None = None) -> str:
    line = f"{number}. " if number else f"{NOTE} "
    if s.kind == "pass":  # the rule passes the cards, not the seat whose ack came last
        return line + pass_line(s, header)
    line += f"seat {s.seat + 1}: {s.text}"
    if s.clock_ms is not None:
        clock = format_clock(s.clock_ms)
        line += f" {{{clock}, bank {format_clock(s.bank_ms)}}}" if timed else f" {{{clock}}}"
    return line


def move_lines(t: Timeline, version: int = LATEST_FORMAT) -> list[str]:
    """Return the action lines of ``t`` (SPEC.md section 14.2), one a step, in a format.

    Format 1 numbers every line by its step; format 2 numbers the actions as the game does
    (``move_numbers``) and starts every other line with ``-``.
    """
    timed = t.time_control != "-"
    numbers = tuple(s.number for s in t.steps) if version == 1 else move_numbers(t.steps)
    return [_move_line(s, n, timed, t.header) for s, n in zip(t.steps, numbers, strict=True)]


def readable_lines(t: Timeline, version: int = LATEST_FORMAT) -> list[str]:
    """Return the readable part a reader compares: the tag lines, a blank line, the actions."""
    return [*tag_lines(t, version), "", *move_lines(t, version)]


def effect_comments(t: Timeline) -> list[list[str]]:
    """Return, step by step, the comment lines that follow its action line (SPEC.md 14.2).

    One ``; WHAT`` line for each effect of a turn (``engine.describe_effect``), in a game
    where an advanced god plays; none at all otherwise, so that the text export of a game of
    the simple gods is what it always was.
    """
    if not has_advanced_god(t):
        return [[] for _ in t.steps]
    out: list[list[str]] = []
    for s, effects in zip(t.steps, step_effects(t), strict=True):
        before = step_before(t, s.number)
        if before is None:  # no turn of play before the first position
            out.append([])
            continue
        out.append([f"{COMMENT} {describe_effect(before, e)}" for e in effects])
    return out


def _armour(data: bytes) -> list[str]:
    text = base64.b64encode(data).decode("ascii")
    return [text[i : i + ARMOUR_WIDTH] for i in range(0, len(text), ARMOUR_WIDTH)]


def export_text(t: Timeline, version: int = LATEST_FORMAT) -> str:
    """Return the text export of ``t``: readable part, blank line, armoured replay file.

    ``version`` is the format (``FORMATS``): 1 gives what earlier versions wrote, byte for byte.
    """
    if version not in FORMATS:
        raise ValueError(f"text export format {version}: expected one of {FORMATS}")
    actions: list[str] = []
    for line, comments in zip(move_lines(t, version), effect_comments(t), strict=True):
        actions += [line, *comments]
    lines = [*tag_lines(t, version), "", *actions, "", BEGIN_LINE, *_armour(t.data), END_LINE]
    return "\n".join(lines) + "\n"


def is_text(data: bytes) -> bool:
    """Return whether ``data`` looks like a text export (it holds the BEGIN or the END line).

    One of the two is enough, so that a text whose BEGIN line was lost is read as text and
    its error names the line, rather than called "not a replay file".
    """
    if data.startswith(b"SNTR"):
        return False
    head = data[: 1 << 22]
    return BEGIN_LINE.encode() in head or END_LINE.encode() in head


@dataclass(frozen=True, slots=True)
class TextReplay:
    """A text export taken apart: the replay file and where each part stands.

    ``readable`` holds ``(line number, text)`` of the non-blank-edged readable part;
    ``begin`` is the line number of the BEGIN line (armour line k is ``begin + k``).
    """

    data: bytes
    readable: tuple[tuple[int, str], ...]
    begin: int

    def lines_of(self, record: int) -> tuple[int, int]:
        """Return the first and last armour line holding record ``record``'s frame.

        Frames are found by their length prefixes alone, so a bad prefix still maps.
        """
        at, end = 5, len(self.data)
        for _ in range(record):
            if at + 4 > end:
                break
            at += 4 + int.from_bytes(self.data[at : at + 4], "big")
        at = min(at, end - 1)
        size = int.from_bytes(self.data[at : at + 4], "big") if at + 4 <= end else 0
        return self._line(at), self._line(min(end, at + 4 + size) - 1)

    def _line(self, offset: int) -> int:
        return self.begin + 1 + offset // _BYTES_PER_LINE


def read_text(data: bytes) -> TextReplay:
    """Take a text export apart and decode its armour to the exact replay file bytes.

    The armour must be canonical: every line but the last exactly 64 base64 characters, no
    other characters, padding bits zero. Trailing white space and CR are ignored on every line,
    and so is a byte order mark at the start.

    Raises:
        TextReplayError: not UTF-8, no BEGIN/END lines, text after END, or bad armour; the
            error names the line.
    """
    try:
        text = data.decode("utf-8")
    except UnicodeDecodeError as e:
        at = data[: e.start].count(b"\n") + 1
        raise TextReplayError("not UTF-8 text", at) from None
    lines = [x.rstrip() for x in text.removeprefix("\ufeff").split("\n")]
    if lines and lines[-1] == "":
        lines.pop()
    try:
        begin = lines.index(BEGIN_LINE)
    except ValueError:
        where = lines.index(END_LINE) + 1 if END_LINE in lines else len(lines) + 1
        raise TextReplayError(f"no {BEGIN_LINE} line before this one", where) from None
    try:
        end = lines.index(END_LINE, begin + 1)
    except ValueError:
        raise TextReplayError(f"no {END_LINE} line", len(lines) + 1) from None
    for k in range(end + 1, len(lines)):
        if lines[k]:
            raise TextReplayError(f"text after the {END_LINE} line: {lines[k][:40]!r}", k + 1)
    body = lines[begin + 1 : end]
    if not body:
        raise TextReplayError("the armour is empty", end + 1)
    for k, line in enumerate(body):
        number = begin + 2 + k
        last = k == len(body) - 1
        if not _BASE64.fullmatch(line) or ("=" in line and not last):
            raise TextReplayError(f"not base64: {line[:40]!r}", number)
        if (not last and len(line) != ARMOUR_WIDTH) or (last and not 0 < len(line) <= 64):
            raise TextReplayError(
                f"armour lines are {ARMOUR_WIDTH} characters (the last at most), got {len(line)}",
                number,
            )
        if last and len(line) % 4:
            raise TextReplayError("the armour ends in the middle of a base64 group", number)
    joined = "".join(body)
    decoded = base64.b64decode(joined, validate=True)
    if base64.b64encode(decoded).decode("ascii") != joined:
        raise TextReplayError("the armour is not canonical base64 (padding bits)", end)
    head = [(i + 1, x) for i, x in enumerate(lines[:begin])]
    while head and not head[0][1]:
        head.pop(0)
    while head and not head[-1][1]:
        head.pop()
    return TextReplay(decoded, tuple(head), begin + 1)


_PASS_LINE: Final = re.compile(r"(\d+\.|-) (the cards pass after turn \d+) \(pass=\d+\)")
_OLD_PASS_LINE: Final = re.compile(r"(\d+\.|-) seat \d: (the cards pass after turn \d+)")


def _same(got: str, want: str) -> bool:
    if got.startswith(_INFO_TAG) and want.startswith(_INFO_TAG):
        return True  # the exporter's own verdict: a reader checks for itself
    new, old = _PASS_LINE.fullmatch(want), _OLD_PASS_LINE.fullmatch(got)
    if new and old:
        # A Party export written before the pass line named its rule: it named the seat
        # whose ack came last; the same pass, read as it was written.
        return new.groups() == old.groups()
    return got == want


def text_format(tr: TextReplay) -> int:
    """Return the format of a text export: its ``Format`` tag's, 1 when it has none.

    Raises:
        TextReplayError: a ``Format`` tag this program does not read (a later version's),
            naming its line.
    """
    for number, line in tr.readable:
        if not line.startswith("["):
            if line.startswith(COMMENT):
                continue
            break
        if line.startswith(_FORMAT_TAG):
            value = line[len(_FORMAT_TAG) :].removesuffix("]").strip('"')
            if value.isdigit() and int(value) in FORMATS[1:]:
                return int(value)
            if value == "1":
                raise TextReplayError("format 1 has no Format tag", number)
            known = " or ".join(str(f) for f in FORMATS)
            raise TextReplayError(
                f"text export format {value[:20]!r} is not one this program reads ({known}); "
                "a later version may read it",
                number,
            )
    return 1


def compare_text(tr: TextReplay, t: Timeline) -> None:
    """Raise ``TextReplayError`` at the first readable line that differs from the log's.

    The lines are rebuilt in the text's own format (``text_format``); comment lines (``;``)
    are information, not compared.
    """
    want = readable_lines(t, text_format(tr))
    moves = len(want) - len(t.steps)
    readable = [(n, x) for n, x in tr.readable if not x.startswith(COMMENT)]
    for k, (number, got) in enumerate(readable):
        if k >= len(want):
            raise TextReplayError(f"{got[:60]!r} is not in the log", number)
        if not _same(got, want[k]):
            record = t.steps[k - moves].record if k >= moves else None
            raise TextReplayError(
                f"the text says {got[:60]!r}, the log says {want[k][:60]!r}", number, record
            )
    if len(readable) < len(want):
        raise TextReplayError(
            f"the readable part ends early; the log goes on with {want[len(readable)]!r}",
            tr.begin,
        )


def check_text(data: bytes) -> tuple[TextReplay, Timeline]:
    """Read a text export and check that its readable part agrees with its log.

    The log itself may still fail verification: ``Timeline.ok`` says.

    Raises:
        TextReplayError: bad armour, or the first readable line that differs from what the
            log gives (``record_index`` the action's record when the line is an action).
    """
    tr = read_text(data)
    t = read_timeline(tr.data)
    compare_text(tr, t)
    return tr, t


def load_timeline(data: bytes) -> Timeline:
    """Read a replay file or a text export into a timeline, for the exports.

    A text export whose readable part disagrees with its log gives the log's timeline marked
    as failing, with the line.

    Raises:
        TextReplayError: a text export whose armour cannot be decoded.
    """
    if not is_text(data):
        return read_timeline(data)
    try:
        _, t = check_text(data)
    except TextReplayError as e:
        t = read_timeline(read_text(data).data)
        if t.ok:
            t = replace(t, ok=False, error=e.reason, bad_record=None, error_kind="TextReplayError")
    return t
