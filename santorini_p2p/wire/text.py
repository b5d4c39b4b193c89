"""The one rule for text another party supplies: what a printable line is, and how to show one.

Every string that comes from a peer, a spectator, the LAN or a file (display names, refusal
and stop reasons, chat lines, god and option names) is checked with :func:`check_line` where
it is decoded, and refused with the rule it breaks, never cleaned into something else. A
**line** is non-empty, has no character of Unicode category C (control, format, surrogate,
private use, unassigned) or Z (separators) other than the plain space, and no space at either
end (protocol/SPEC.md 4, 8.3; protocol/SESSION.md 2).

What this program writes itself from such text goes through :func:`as_line` (a reason built
from an exception's message is made one line before it is signed), and what it shows that did
not come through a check (a file's text, a log line) through :func:`shown`, which escapes
every character the rule forbids, so that no byte below 0x20 from outside reaches a terminal.
"""

from __future__ import annotations

import unicodedata
from functools import lru_cache
from typing import Final

__all__ = ["MAX_REASON_CHARS", "as_line", "check_line", "line_fault", "shown"]

MAX_REASON_CHARS: Final = 400
"""The longest refusal or stop reason, in characters (protocol/SESSION.md 2)."""


@lru_cache(maxsize=4096)
def _bad_char(ch: str) -> bool:
    return ch != " " and unicodedata.category(ch)[0] in "CZ"


def line_fault(text: str, *, max_chars: int | None = None, max_bytes: int | None = None) -> str:
    """Return what is wrong with ``text`` as a line (the rule it breaks), or "" if nothing.

    ``max_chars`` and ``max_bytes`` bound its length in characters and in UTF-8 bytes.
    """
    if max_bytes is not None:
        size = len(text.encode("utf-8", "surrogatepass"))
        if not text or size > max_bytes:
            return f"expected 1 to {max_bytes} bytes of UTF-8, got {size}"
    if max_chars is not None and (not text or len(text) > max_chars):
        return f"expected 1 to {max_chars} characters, got {len(text)}"
    if not text:
        return "expected at least one character"
    if text[0] == " " or text[-1] == " ":
        return "no spaces at either end"
    if text.isascii() and text.isprintable():
        return ""  # the common case, without a look-up per character
    for i, ch in enumerate(text):
        if _bad_char(ch):
            return f"character {i + 1} ({ch!r}) is not printable"
    return ""


def check_line(
    text: str, what: str, *, max_chars: int | None = None, max_bytes: int | None = None
) -> str:
    """Return ``text`` if it is a printable line; ``what`` names it in the error.

    Raises:
        ValueError: the text breaks the rule; the message names ``what`` and the rule broken.
    """
    fault = line_fault(text, max_chars=max_chars, max_bytes=max_bytes)
    if fault:
        raise ValueError(f"{what}: {fault}")
    return text


def shown(text: str) -> str:
    """Return ``text`` safe to show on a terminal: every forbidden character escaped.

    A line that keeps the rule comes back unchanged; an escape character comes back as the
    four characters backslash, x, 1, b, so that nothing acts on the screen and no newline
    forges a line.
    """
    if text.isascii() and text.isprintable():
        return text
    out = []
    for ch in text:
        if ch == " " or not _bad_char(ch):
            out.append(ch)
        else:
            out.append(ascii(ch)[1:-1])
    return "".join(out)


def as_line(text: str, limit: int = MAX_REASON_CHARS) -> str:
    """Make this program's own text (a reason, a message) one printable line of ``limit``.

    Line breaks and other white space become single spaces, any other forbidden character is
    escaped, and the line is cut to ``limit`` characters without a space at either end. Only
    for text this program sends or writes itself: text from outside is checked, not cleaned.
    """
    words = "".join(" " if ch.isspace() else ch for ch in text).split(" ")
    line = shown(" ".join(w for w in words if w))
    return line[:limit].strip(" ") or "-"
