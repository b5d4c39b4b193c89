"""A correspondence game as its player reads it: each new record as a line, a game's standing.

``changes_since`` words the records of a log for people (acknowledgements left out);
``Status`` is a game as ``post list`` shows it, its result worded by ``result_text``; ``span``
says a duration as people do. Nothing here signs or stores anything.
"""

from __future__ import annotations

from dataclasses import dataclass

from santorini_p2p.wire.identity import Identity
from santorini_p2p.wire.log import Validator
from santorini_p2p.wire.messages import (
    Accept,
    Act,
    Chat,
    Commit,
    Header,
    Message,
    Offer,
    Resign,
    Result,
    Reveal,
    Timeout,
)

__all__ = ["Change", "Status", "changes_since", "result_text", "span"]


@dataclass(frozen=True, slots=True)
class Change:
    """One record new to this side, as a line for people: who, and what."""

    index: int
    who: str
    text: str
    mine: bool


@dataclass(frozen=True, slots=True)
class Status:
    """A game as ``post list`` shows it."""

    game: str
    opponent: str
    fingerprint: str
    turn: str
    since_ms: int
    days: int
    result: str
    records: int
    replay: str


def span(ms: int) -> str:
    """A duration as people say it: ``45 min``, ``5 h``, ``3 days``."""
    minutes = max(0, ms) // 60_000
    if minutes < 60:
        return f"{minutes} min"
    if minutes < 48 * 60:
        return f"{minutes // 60} h"
    return f"{minutes // 1440} days"


def changes_since(v: Validator, me: Identity, opponent: str, start: int) -> list[Change]:
    """The records of ``v`` from ``start`` as lines for people (acknowledgements left out).

    ``me`` is this side (its records are marked ``mine``); ``opponent`` the other side's name.
    """
    out = []
    for r in v.records[start:]:
        c = _describe(v, me, opponent, r.index, r.signer, r.message)
        if c is not None:
            out.append(c)
    return out


def _describe(
    v: Validator, me: Identity, opponent: str, index: int, key: bytes, msg: Message
) -> Change | None:
    mine = key == me.public_key
    who = me.name if mine else opponent
    match msg:
        case Header():
            return Change(index, who, "starts the game", mine)
        case Commit():
            return Change(index, who, "commits to the draw", mine)
        case Reveal():
            if v.position is not None and len(v.records) == index + 1:
                first = v.names[0]
                return Change(index, who, f"reveals; the draw: {first} is seat 1", mine)
            return Change(index, who, "reveals", mine)
        case Act():
            # The mover's own claim (POST.md 6): shown, never trusted as a fact.
            claim = "" if mine or msg.clock_ms < 60_000 else f" ({span(msg.clock_ms)}, says {who})"
            return Change(index, who, msg.action + claim, mine)
        case Resign():
            return Change(index, who, "resigns", mine)
        case Offer():
            what = {"draw": "offers a draw", "abort": "offers to abort the game"}
            return Change(index, who, what.get(msg.kind, f"offers {msg.kind}"), mine)
        case Accept():
            return Change(index, who, f"accepts the {msg.kind} offer", mine)
        case Chat():
            return Change(index, who, f"says: {msg.text}", mine)
        case Result():
            return Change(index, who, "signs the result", mine)
        case Timeout():
            return Change(index, who, "claims a timeout", mine)
        case _:
            return None


def result_text(v: Validator) -> str:
    """How a finished game ended, for people (``drawn by agreement``, ``bob won on time``).

    Empty while the log holds no result.
    """
    res = v.result
    if res is None:
        return ""
    winner, reason = res
    if reason == "draw":
        return "drawn by agreement"
    if reason == "abort":
        return "aborted by agreement"
    if winner < 0:
        return "no winner"
    how = {"resign": " by resignation", "time": " on time"}.get(reason, "")
    return f"{v.names[winner]} won{how}"
