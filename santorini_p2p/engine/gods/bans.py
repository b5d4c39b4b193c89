"""The pairs of gods that never play in one game (RULES.md 9 and 10.4), as one table.

``BANNED`` holds the banned pairs, each with where its ban comes from; ``UNRULED`` the pairs
RULES.md 10.4 has not ruled yet, each with why, refused the same way for now. Setup (pools,
the challenger's offer, draft picks, a random deal) and the wire's draw read them through
:func:`ban_reason`.
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import Final

__all__ = ["BANNED", "UNRULED", "ban_reason"]

_SEC9: Final = "RULES.md 9"

BANNED: Final[dict[frozenset[str], str]] = {
    frozenset(pair): source
    for pair, source in (
        # RULES.md section 9: the Golden Fleece and promo cards.
        (("hades", "pan"), _SEC9),
        (("hades", "asteria"), _SEC9),
        (("harpies", "hermes"), _SEC9),
        (("harpies", "triton"), _SEC9),
        (("harpies", "maenads"), _SEC9),
        (("urania", "aphrodite"), _SEC9),
        (("nemesis", "aphrodite"), _SEC9),
        (("nemesis", "bia"), _SEC9),
        (("nemesis", "medusa"), _SEC9),
        (("terpsichore", "hypnus"), _SEC9),
        (("terpsichore", "limus"), _SEC9),
        (("terpsichore", "nemesis"), _SEC9),
        (("graeae", "nemesis"), "RULES.md 9 and 10.4, Golden Fleece card, BGA"),
        # RULES.md 10.4: the gods with memory and the heroes.
        (("gaea", "atlas"), "RULES.md 10.4, Golden Fleece card, BGA"),
        (("gaea", "nemesis"), "RULES.md 10.4, Golden Fleece card, BGA"),
        (("gaea", "selene"), "RULES.md 10.4, Golden Fleece card, BGA"),
        (("eris", "persephone"), "RULES.md 10.4, BGA"),
        (("nike", "hades"), "RULES.md 10.4, JP"),
        (("nemesis", "theseus"), "RULES.md 10.4, BGA"),
    )
}
"""Each banned pair, with where its ban comes from: the card texts contradict, or a source
bans it."""

UNRULED: Final[dict[frozenset[str], str]] = {
    frozenset(("nemesis", "selene")): "the exchange would have to say where the female goes",
    frozenset(("nemesis", "hippolyta")): "the exchange would have to say where the female goes",
    frozenset(("nemesis", "eris")): "the exchange would have to say where the marked worker goes",
    frozenset(("nemesis", "adonis")): "the exchange would have to say where the named pair goes",
    frozenset(("hermes", "eris")): "which Hermes worker moved most recently is not ruled",
}
"""The pairs RULES.md 10.4 has not ruled yet, refused for now, each with why."""


def ban_reason(gods: Iterable[str]) -> str | None:
    """Why ``gods`` may not play in one game (the first banned or unruled pair), or None."""
    named = [g for g in gods if g and g != "?"]
    for i, a in enumerate(named):
        for b in named[i + 1 :]:
            pair = frozenset((a, b))
            source = BANNED.get(pair)
            if source is not None:
                return f"{a} and {b} may not play in one game (a banned pair, {source})"
            why = UNRULED.get(pair)
            if why is not None:
                return f"{a} and {b} may not play in one game: not yet ruled, {why} (RULES.md 10.4)"
    return None
