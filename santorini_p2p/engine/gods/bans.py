"""The pairs of gods that never play against each other (RULES.md section 9), as data."""

from __future__ import annotations

from typing import Final

BANNED: Final = frozenset(
    frozenset(pair)
    for pair in (
        ("hades", "pan"),
        ("hades", "asteria"),
        ("harpies", "hermes"),
        ("harpies", "triton"),
        ("harpies", "maenads"),
        ("urania", "aphrodite"),
        ("nemesis", "aphrodite"),
        ("nemesis", "bia"),
        ("nemesis", "medusa"),
        ("terpsichore", "hypnus"),
        ("terpsichore", "limus"),
        ("terpsichore", "nemesis"),
        ("graeae", "nemesis"),
    )
)
"""Each banned pair: the card texts contradict or the rulings leave the pairing open."""


def ban_reason(gods: tuple[str, ...] | list[str]) -> str | None:
    """Why ``gods`` may not play in one game (the first banned pair among them), or None."""
    named = [g for g in gods if g and g != "?"]
    for i, a in enumerate(named):
        for b in named[i + 1 :]:
            if frozenset((a, b)) in BANNED:
                return f"{a} and {b} may not play in one game (a banned pair, RULES.md 9)"
    return None
