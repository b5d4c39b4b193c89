"""The computer's side of a correspondence game: its moves, and its answers to offers.

A ``Bot`` gives the computer's action in a position; a ``Judge`` whether it takes a draw (or
abort) offer. ``answer_offer`` is the record the computer signs for the other side's open
offer: an accept, or a chat line saying it plays on, each offer judged once.
"""

from __future__ import annotations

import random
import threading
from collections.abc import Callable

from santorini_p2p.engine import Position, format_action
from santorini_p2p.net.bounds import may_request
from santorini_p2p.wire.identity import Identity
from santorini_p2p.wire.log import Validator

__all__ = ["Bot", "Judge", "answer_offer", "offer_judge", "random_bot"]

Bot = Callable[[Position], str]
"""A computer player: the canonical text of its action in a position."""

Judge = Callable[[Position, int], bool]
"""A computer player's answer to a draw (or abort) offer: whether it takes it, in a position,
playing a seat."""


def answer_offer(
    v: Validator, me: Identity, state: dict[str, object], judge: Judge
) -> bytes | None:
    """The computer's record answering the other side's open offer; None if none is due.

    Each offer is judged once (its record number is kept in ``state``, the game's): an
    accept, or a chat line saying it plays on (nothing where the log takes no chat line now).
    """
    offer = v.open_offer(me.public_key)
    p = v.position
    seat = v.seat_of(me.public_key)
    if offer is None or p is None or seat is None or v.is_over:
        return None
    kind, seq = offer
    if kind not in ("draw", "abort") or state.get("answered_offer") == seq:
        return None
    state["answered_offer"] = seq
    if not may_request(v):
        return None
    if judge(p, seat):
        return v.make_accept(me)
    if not v.can_chat():
        return None
    return v.make_chat(me, f"No {kind}, thank you: the computer plays on.")


def offer_judge(level: str) -> Judge:
    """The computer at ``level`` answering draw offers by its evaluation (``ai.takes_offer``)."""
    from santorini_p2p.ai import takes_offer

    def judge(position: Position, seat: int) -> bool:
        return takes_offer(position, seat, level, stop=threading.Event())

    return judge


def random_bot(level: str, seed: int | None = None) -> Bot:
    """The computer at ``level`` as a ``Bot`` (its own random numbers, or ``seed``'s)."""
    from santorini_p2p.ai import choose_action

    rng = random.Random(seed)

    def choose(position: Position) -> str:
        return format_action(choose_action(position, level, rng=rng, stop=threading.Event()))

    return choose
