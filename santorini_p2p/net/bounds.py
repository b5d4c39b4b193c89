"""The bounds on records written out of the lockstep order: chat lines, offers, accepts.

Chat lines, takeback offers and accepts are written when a player asks, not when the log says
(protocol/SESSION.md 5), so a session bounds them, judged from the log alone so that every
peer judges alike (SESSION.md 5, "Bounds"):

- a seat writes at most ``CHAT_RUN`` chat lines since the last record that is not a chat line
  (any seat's); the next waits for the game to go on;
- no chat line, offer or accept is written at a record number of ``MAX_RECORDS -
  END_RESERVE`` or more: the rest of the log is kept for the game's end (the moves, the acks,
  a resignation or a timeout claim, and every seat's result), so that no number of them can
  keep a game from its result.

A peer never writes a record beyond these bounds; one that receives such a record treats it
as a protocol error (the host drops it, a joiner stops the game).
"""

from __future__ import annotations

from typing import Final

from santorini_p2p.errors import WireError
from santorini_p2p.wire.log import MAX_RECORDS, Validator, open_envelope
from santorini_p2p.wire.messages import Accept, Chat, Offer

__all__ = ["CHAT_RUN", "END_RESERVE", "LAST_REQUEST", "bound_fault", "may_request"]

CHAT_RUN: Final = 8
"""The most chat lines one seat writes since the last record that is not a chat line."""
END_RESERVE: Final = 1000
"""Records at the end of the log that only the lockstep (moves, acks, results) may use."""
LAST_REQUEST: Final = MAX_RECORDS - END_RESERVE
"""The first record number at which no chat line, offer or accept is written or accepted."""
_REQUESTS: Final = frozenset({Chat.TYPE, Offer.TYPE, Accept.TYPE})


def may_request(v: Validator) -> bool:
    """Whether a chat line, an offer or an accept may still be written at the log's end."""
    return v.next_seq < LAST_REQUEST


def bound_fault(v: Validator, raw: bytes) -> str:
    """Why record ``raw``, offered as ``v``'s next, breaks the bounds ("" if it does not).

    Reads only the envelope's signer and the body's type byte: the same small cost for every
    record, before any signature is checked. A record that does not decode is left to the
    log's own checks.
    """
    try:
        env = open_envelope(raw)
    except WireError:
        return ""
    kind = env.body[1] if len(env.body) > 1 else -1
    if kind not in _REQUESTS:
        return ""
    n = v.next_seq
    if n >= LAST_REQUEST:
        return (
            f"record {n} is a chat line, an offer or an accept where the log keeps its last "
            f"{END_RESERVE} records for the game's end (from record {LAST_REQUEST} on)"
        )
    if kind == Chat.TYPE and v.chat_run(env.signer) >= CHAT_RUN:
        seat = v.seat_of(env.signer)
        who = v.names[seat] if seat is not None else "a key that holds no seat"
        return (
            f"chat flood at record {n}: {who} wrote more than {CHAT_RUN} chat lines since the "
            "last record that is not one"
        )
    return ""
