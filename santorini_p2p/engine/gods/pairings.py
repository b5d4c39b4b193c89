"""Which gods may not meet in one game (RULES.md 10.4): the bans, and pairs not yet ruled.

A table, read by the setup rules: a banned or unruled pair is never dealt, drafted or offered.
"""

from __future__ import annotations

from collections.abc import Iterable
from itertools import combinations
from typing import Final

__all__ = ["BANNED", "UNRULED", "pairing_error"]

BANNED: Final[dict[frozenset[str], str]] = {
    frozenset(("gaea", "atlas")): "Golden Fleece card, BGA",
    frozenset(("gaea", "nemesis")): "Golden Fleece card, BGA",
    frozenset(("gaea", "selene")): "Golden Fleece card, BGA",
    frozenset(("graeae", "nemesis")): "Golden Fleece card, BGA",
    frozenset(("eris", "persephone")): "BGA",
    frozenset(("nike", "hades")): "JP",
    frozenset(("nemesis", "theseus")): "BGA",
}
"""The banned pairs of RULES.md 10.4, each with where the ban comes from."""

UNRULED: Final[dict[frozenset[str], str]] = {
    frozenset(("nemesis", "selene")): "the exchange would have to say where the female goes",
    frozenset(("nemesis", "hippolyta")): "the exchange would have to say where the female goes",
    frozenset(("nemesis", "eris")): "the exchange would have to say where the marked worker goes",
    frozenset(("nemesis", "adonis")): "the exchange would have to say where the named pair goes",
    frozenset(("hermes", "eris")): "which Hermes worker moved most recently is not ruled",
}
"""The pairs RULES.md 10.4 has not ruled yet, refused for now, each with why."""


def pairing_error(gods: Iterable[str]) -> str | None:
    """Why ``gods`` may not play in one game (a banned or unruled pair), or None."""
    names = sorted({g for g in gods if g and g != "?"})
    for a, b in combinations(names, 2):
        pair = frozenset((a, b))
        if pair in BANNED:
            return f"{a} and {b} are banned together ({BANNED[pair]}; RULES.md 10.4)"
        if pair in UNRULED:
            return f"{a} and {b} are not yet ruled together: {UNRULED[pair]} (RULES.md 10.4)"
    return None
