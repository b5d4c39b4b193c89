"""What players and spectators are told outside the log: takeback refusals and who watches.

A takeback refusal is written in no record (SESSION.md 5): the refusing seat signs a
``Refused`` frame, which the host relays unchanged, and each receiver checks it against its
own log before it says so (:class:`Refusals`). Who watches is the host's to know; it tells
everyone in an ``Audience`` frame, and each receiver says who came and who left
(:func:`audience_lines`), in the same words as the host, so that every screen counts the same
spectators. Both are sans-I/O, shared by the session and the spectator.
"""

from __future__ import annotations

from collections import Counter
from typing import Final

from santorini_p2p.net.frames import Refused
from santorini_p2p.wire.log import Validator
from santorini_p2p.wire.messages import Act, Offer

__all__ = ["Refusals", "audience_lines", "spectators_count"]

_EARLY: Final = 8
"""The most refusals kept while their offer has not arrived yet."""


class Refusals:
    """The takeback refusals one peer was told: each checked, and said once."""

    def __init__(self) -> None:
        self._told: set[tuple[int, bytes]] = set()
        self._early: list[Refused] = []

    def read(self, v: Validator | None, frame: Refused) -> str | None:
        """Return what to say of ``frame`` (None: nothing, or kept until its offer arrives).

        Raises:
            ValueError: the frame is not a refusal of a takeback offer of this game by a seat
                that was asked (the message says why): it is dropped and counted.
        """
        h = v.header if v is not None else None
        if v is None or h is None or frame.game_id != h.game_id:
            raise ValueError("a takeback refusal of another game")
        keys = [s.public_key for s in h.seats]
        if frame.key not in keys:
            raise ValueError("a takeback refusal by a key that holds no seat")
        if not frame.is_signed():
            raise ValueError("a takeback refusal whose signature does not verify")
        if frame.index >= v.next_seq:
            if frame not in self._early:
                self._early = [*self._early, frame][-_EARLY:]
            return None
        rec = v.record(frame.index)
        m = rec.message
        if not isinstance(m, Offer) or m.kind != "takeback" or rec.signer == frame.key:
            raise ValueError("a takeback refusal of a record that is no other seat's offer")
        told = (frame.index, frame.key)
        if told in self._told:
            return None
        self._told.add(told)
        name = h.seats[keys.index(frame.key)].name
        turn = _offered_turn(v, frame.index)
        return f"{name} refused the takeback{f' of {turn}' if turn else ''}."

    def arrived(self, v: Validator | None) -> list[str]:
        """What to say of the refusals kept early whose offer the log now holds."""
        if v is None:
            return []
        ready = [f for f in self._early if f.index < v.next_seq]
        self._early = [f for f in self._early if f.index >= v.next_seq]
        out = []
        for f in ready:
            try:
                said = self.read(v, f)
            except ValueError:
                continue
            if said is not None:
                out.append(said)
        return out


def _offered_turn(v: Validator, index: int) -> str:
    """The turn the offer at ``index`` asked to take back: the asker's last act before it."""
    signer = v.record(index).signer
    for i in range(index - 1, -1, -1):
        rec = v.record(i)
        if isinstance(rec.message, Act) and rec.signer == signer:
            return rec.message.action
    return ""


def spectators_count(count: int, most: int) -> str:
    """How many watch, as every screen says it: ``1 of 4 spectators``."""
    return f"{count} of {most} spectator{'s' if most != 1 else ''}"


def audience_lines(
    before: tuple[str, ...], after: tuple[str, ...], count: int, most: int
) -> list[str]:
    """What to say when the spectators ``before`` become ``after`` (names, in order)."""
    now = spectators_count(count, most)
    gone = Counter(before) - Counter(after)
    came = Counter(after) - Counter(before)
    lines = [f"{n or 'a spectator'} stopped watching ({now})." for n in gone.elements()]
    lines += [f"{n or 'someone'} joined as a spectator ({now})." for n in came.elements()]
    return lines
