"""Party and Agora (protocol/SECRET.md sections 10 and 11): passing the cards, the gods offered.

Public API:

- ``PARTY_POOL`` / ``AGORA_GODS``: the gods each mode deals or offers (data);
- ``default_pass(players)``: the header's ``pass=K`` unless the host names another;
- ``passes_after(turns, every)``: whether the cards pass after that many turns of play;
- ``pass_cards(p)``: the position after every player in the game passes their card on;
- ``agora_error(gods)``: why gods may not play an Agora game, or None;
- ``agora_play(p, turn)``: the position after a legal turn under Agora's rules.
"""

from __future__ import annotations

from dataclasses import replace
from typing import Final

from santorini_p2p.engine.position import Position, Turn
from santorini_p2p.engine.rules import apply_unchecked, has_legal_turn, next_seat, resign
from santorini_p2p.engine.secrecy import SECRET_POOL

__all__ = [
    "AGORA_GODS",
    "MAX_PASS",
    "PARTY_POOL",
    "agora_error",
    "agora_leave",
    "agora_play",
    "default_pass",
    "pass_cards",
    "passes_after",
]

PARTY_POOL: Final = SECRET_POOL
"""Party deals from the gods whose setup shows nothing: a card that changes setup or worker
counts cannot change hands during play (SECRET.md 10)."""

AGORA_GODS: Final = SECRET_POOL
"""The gods offered in Agora: each reads "your workers" as the shared pair and "opponent" as
the other pair without change (SECRET.md 11)."""

MAX_PASS: Final = 99


def default_pass(players: int) -> int:
    """Two rounds: the cards pass after every ``2 * players`` turns."""
    return 2 * players


def passes_after(turns: int, every: int) -> bool:
    """Whether the cards pass once ``turns`` turns of play (placements not counted) are done.

    Raises:
        ValueError: ``every`` outside 1 .. MAX_PASS.
    """
    if not 1 <= every <= MAX_PASS:
        raise ValueError(f"pass: expected 1 to {MAX_PASS}, got {every}")
    return turns > 0 and turns % every == 0


def pass_cards(p: Position) -> Position:
    """Every player in the game gives their card to the next player in the game in turn order.

    A player out of the game neither gives nor gets a card. Every power state is cleared (it
    remembers its owner's turns); the board, the workers and the seat to move stay. A player
    to move who has no complete turn with the card they now hold loses, as at the start of
    any turn (RULES.md 2).
    """
    seats = [s for s in range(p.players) if not p.eliminated >> s & 1]
    gods = list(p.gods)
    for i, s in enumerate(seats):
        gods[seats[(i + 1) % len(seats)]] = p.gods[s]
    q = replace(p, gods=tuple(gods), power_state=())
    while q.winner < 0 and not has_legal_turn(q):
        q = resign(q, q.to_move)  # no complete turn: the player loses as if resigning
    return q


def agora_error(gods: tuple[str, ...]) -> str | None:
    """Why ``gods`` cannot play Agora (four players, each god offered), or None."""
    if len(gods) != 4:
        return f"Agora is played by 4 players, not {len(gods)}"
    for g in gods:
        if g and g not in AGORA_GODS:
            return (
                f"{g} is not offered in Agora: its setup, worker count or lasting effect "
                "belongs to one owner of shared workers (SECRET.md 11)"
            )
    return None


def agora_play(p: Position, turn: Turn) -> Position:
    """The position after ``turn`` (legal in ``p``) under Agora (SECRET.md 11).

    A win is the mover's alone (``winner`` is the mover's seat, not a team). A player who
    cannot play when their turn comes leaves the game (``eliminated``): the shared workers
    stay, and their partner plays on; when one player is left in the game, they win.
    """
    mover = p.to_move
    q = apply_unchecked(p, turn)
    if q.winner < 0 or (q.winner == mover and not turn.builds):
        return q  # play goes on, or the mover won by moving (a winning move builds nothing)
    r = replace(q, winner=-1)
    while not has_legal_turn(r):
        out = r.eliminated | 1 << r.to_move
        left = [s for s in range(r.players) if not out >> s & 1]
        if len(left) == 1:
            return replace(r, eliminated=out, winner=left[0])
        gone = replace(r, eliminated=out)
        r = replace(gone, to_move=next_seat(gone, r.to_move))
    return r


def agora_leave(p: Position, seat: int) -> Position:
    """The position after ``seat`` leaves an Agora game (a resignation, its time run out).

    As a player who cannot play (``agora_play``): the shared workers stay, the partner plays
    on, and when one player is left in the game, they win. A seat to move that leaves passes
    the move to the next player in the game who can play.

    Raises:
        ValueError: the game is over, or ``seat`` is not in it.
    """
    if p.winner >= 0 or p.eliminated >> seat & 1 or not 0 <= seat < p.players:
        raise ValueError(f"seat {seat + 1} cannot leave: it is not in a game in play")
    out = p.eliminated | 1 << seat
    left = [s for s in range(p.players) if not out >> s & 1]
    if len(left) == 1:
        return replace(p, eliminated=out, winner=left[0])
    r = replace(p, eliminated=out)
    if p.to_move == seat:
        r = replace(r, to_move=next_seat(r, seat))
    while not has_legal_turn(r):
        out = r.eliminated | 1 << r.to_move
        left = [s for s in range(r.players) if not out >> s & 1]
        if len(left) == 1:
            return replace(r, eliminated=out, winner=left[0])
        gone = replace(r, eliminated=out)
        r = replace(gone, to_move=next_seat(gone, r.to_move))
    return r
