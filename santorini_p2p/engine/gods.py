"""The ten simple gods: names, powers and the registry (RULES.md section 6).

A god is plain data; the rule kernel in ``rules.py`` reads which god a seat has and applies
its power at fixed points of turn generation. The registry is an explicit tuple whose order
fixes each god's id in the state hash, so it must never be reordered.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Final

__all__ = ["GODS", "GOD_NAMES", "God", "find_god", "god_id"]


@dataclass(frozen=True, slots=True)
class God:
    """A god card: its lower-case name and its power in one line."""

    name: str
    power: str

    def __str__(self) -> str:
        return self.name


GODS: Final = (
    God(
        "apollo",
        "Your worker may move into an opponent worker's space by forcing it to the "
        "space yours just vacated.",
    ),
    God("artemis", "Your worker may move one additional time, but not back to its initial space."),
    God(
        "athena",
        "If one of your workers moved up on your last turn, opponent workers cannot "
        "move up this turn.",
    ),
    God("atlas", "Your worker may build a dome at any level."),
    God("demeter", "Your worker may build one additional time, but not on the same space."),
    God(
        "hephaestus",
        "Your worker may build one additional block (not dome) on top of your first block.",
    ),
    God(
        "hermes",
        "If your workers do not move up or down, they may each move any number of "
        "times (even zero), and then either builds.",
    ),
    God(
        "minotaur",
        "Your worker may move into an opponent worker's space, if their worker can "
        "be forced one space straight backwards to an unoccupied space at any level.",
    ),
    God("pan", "You also win if your worker moves down two or more levels."),
    God(
        "prometheus", "If your worker does not move up, it may build both before and after moving."
    ),
)
"""Every god, in the fixed order that gives its id (1-based) in the state hash."""

GOD_NAMES: Final = tuple(g.name for g in GODS)
_BY_NAME: Final = {g.name: g for g in GODS}


def find_god(name: str) -> God:
    """Return the god called ``name`` (any case).

    Raises:
        ValueError: no god has that name.
    """
    try:
        return _BY_NAME[name.lower()]
    except KeyError:
        raise ValueError(f"unknown god {name!r}; expected one of {', '.join(GOD_NAMES)}") from None


def god_id(name: str) -> int:
    """Return the 1-based id of the god called ``name`` (0 for no god)."""
    return GOD_NAMES.index(name) + 1 if name else 0
