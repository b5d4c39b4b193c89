"""The set-up questions of a new game on the console's screens, shared by every entry.

A game on this terminal, a LAN game (Host) and a correspondence game ask the god rule and the
gods to draw from in the same words and order; Host, Join and a correspondence game ask the
display name the same way. Each question goes through two callables, the start screen's menu
(``Chooser``) and its one-line question (``Asker``), so that tests answer them with a script.
"""

from __future__ import annotations

import contextlib
from collections.abc import Awaitable, Callable, Sequence
from pathlib import Path
from typing import Final

from santorini_p2p.engine import GodMode
from santorini_p2p.ui.games import write_private
from santorini_p2p.wire.identity import Identity, check_name

__all__ = [
    "GODS_MENU",
    "LAST_NAME",
    "Asker",
    "Chooser",
    "ask_gods",
    "ask_name",
    "ask_pool",
    "last_name",
    "remember_name",
]

Chooser = Callable[[str, Sequence[tuple[str, str]]], Awaitable[str | None]]
"""The console's menu: a title and ``(key, label)`` items; the chosen key or None."""
Asker = Callable[[str, str], Awaitable[str | None]]
"""The console's one-line question: a title and a prompt; the answer or None."""

GODS_MENU: Final = (
    ("none", "no gods (the simple game)"),
    ("random", "a random god for each player"),
    ("draft", "draft: take turns picking from gods drawn at random"),
    ("challenger", "challenger: seat 1 offers gods, the others pick"),
)
"""The god rules a new game offers, as ``(key, label)``."""

LAST_NAME: Final = "last-name"
"""The file under ``$SANTORINI_HOME`` with the display name last given on Host or Join."""


def _mode(key: str) -> GodMode:
    for mode in ("random", "draft", "challenger"):
        if key == mode:
            return mode
    return "none"


async def ask_pool(
    choose: Chooser, ask: Asker, players: int, gods: GodMode
) -> tuple[str, ...] | None:
    """Ask which gods the game draws from (empty: the ten simple gods); None backs out.

    A list of names that cannot make the game (an unknown god, too few, a banned pair) is
    asked again, with the reason above the question.
    """
    from santorini_p2p.engine.gods import GOD_NAMES
    from santorini_p2p.engine.setup import POOL_CHOICES, POOL_PROMPT, resolve_pool

    pick = await choose("Which gods?", POOL_CHOICES)
    if pick is None:
        return None
    title = "Name the gods"
    while True:
        text = pick if pick != "names" else await ask(title, POOL_PROMPT)
        if text is None:
            return None
        try:
            pool = resolve_pool(text, players, gods)
        except ValueError as e:
            title, pick = f"Name the gods\n{e}", "names"
            continue
        return () if pool == GOD_NAMES else pool


async def ask_gods(
    choose: Chooser, ask: Asker, players: int = 2
) -> tuple[GodMode, tuple[str, ...]] | None:
    """Ask the god rule and, with gods, the pool: ``(rule, pool)``; None backs out."""
    key = await choose("Gods", GODS_MENU)
    if key is None:
        return None
    gods = _mode(key)
    if gods == "none":
        return gods, ()
    pool = await ask_pool(choose, ask, players, gods)
    return None if pool is None else (gods, pool)


def last_name(home: Path) -> str | None:
    """The display name last given on the console's Host or Join screen under ``home``, if any."""
    try:
        text = (home / LAST_NAME).read_text(encoding="utf-8").strip()
        return check_name(text)
    except (OSError, UnicodeDecodeError, ValueError):
        return None


def remember_name(home: Path, name: str) -> None:
    """Keep ``name`` as the one the Host and Join screens offer next time.

    Best effort: a name not kept only makes the next question offer another default.
    """
    with contextlib.suppress(OSError):
        write_private(home / LAST_NAME, (name + "\n").encode("utf-8"))


async def ask_name(ask: Asker, home: Path, identity: Identity, title: str) -> Identity | None:
    """Ask the display name to play under; None if the player backed out.

    Enter keeps the last name given here (or else the identity's); the key stays the
    identity's, as with ``santorini host --name``.
    """
    default = last_name(home) or identity.name
    why = ""
    while True:
        typed = await ask(f"{title}{why}", f"Your name (Enter for {default}): ")
        if typed is None:
            return None
        name = typed or default
        try:
            check_name(name)
        except ValueError as e:
            why = f"\n{e}"
            continue
        if name != default:
            remember_name(home, name)
        if name == identity.name:
            return identity
        return Identity.from_seed(identity.seed, name)
