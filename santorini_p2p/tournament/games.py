"""What a replay file says about one tournament game: who played first, who won, under what rules.

``read_game(data, name)`` verifies the replay with every check of ``replay verify`` and
returns a ``GameFacts``; anything that makes it unusable as an event's result (a bad record,
an unfinished game, a game not of two players, an aborted one, a player who signed nothing)
raises ``GameError`` with the reason.
"""

from __future__ import annotations

import hashlib
from dataclasses import dataclass

from santorini_p2p.engine.gods import GOD_NAMES
from santorini_p2p.errors import ReplayError, SantoriniError
from santorini_p2p.replay.export_text import TextReplayError, is_text, read_text
from santorini_p2p.wire.identity import fingerprint
from santorini_p2p.wire.log import read_log
from santorini_p2p.wire.messages import Act

__all__ = ["GameError", "GameFacts", "read_game"]


class GameError(SantoriniError):
    """A replay that cannot give an event a result; the message says why."""


@dataclass(frozen=True, slots=True)
class GameFacts:
    """One verified, finished two-player game as an event reads it.

    ``first`` and ``second`` are fingerprints: ``first`` made the game's first action (the
    start player; under the challenger rule, the challenger). ``winner`` is a fingerprint, or
    None for a draw; ``reason`` one of ``win``, ``resign``, ``time``, ``draw``, ``none``.
    ``sha256`` is of the replay file's exact bytes (a text export's log, restored).
    """

    sha256: bytes
    game_id: bytes
    created_ms: int
    first: str
    second: str
    names: dict[str, str]
    winner: str | None
    reason: str
    gods: str
    pool: tuple[str, ...]
    move_ms: int
    bank_ms: int
    turns: int


def read_game(data: bytes) -> GameFacts:
    """Verify a replay file (or its text export) and return what the event needs from it.

    Raises:
        GameError: the replay does not verify (the record and why), is not finished, is not
            a game of two players, was aborted, or one player signed none of it.
    """
    if is_text(data):
        try:
            data = read_text(data).data
        except TextReplayError as e:
            raise GameError(f"text export: {e.reason}") from None
    try:
        v = read_log(data, complete=True)
    except ReplayError as e:
        where = f"record {e.record_index}: " if e.record_index is not None else ""
        raise GameError(f"does not verify: {where}{e.reason}") from None
    h = v.header
    assert h is not None
    if h.players != 2:
        raise GameError(f"a game of {h.players} players; an event's games have two")
    res = v.result
    if res is None or not v.is_complete:
        raise GameError("the game is not finished")
    winner_seat, reason = res
    if reason == "abort":
        raise GameError("the game was aborted by agreement: it has no result")
    first_act = next((r for r in v.records if isinstance(r.message, Act)), None)
    if first_act is None:
        raise GameError("the game has no action")
    first_key = first_act.signer
    keys = [s.public_key for s in h.seats]
    second_key = keys[1] if keys[0] == first_key else keys[0]
    signers = {r.signer for r in v.records}
    for k in keys:
        if k not in signers:
            raise GameError(f"{fingerprint(k)} signed no record of it")
    winner: str | None = None
    if reason == "draw" or winner_seat < 0:
        reason = "draw" if reason == "draw" else "none"
    else:
        winner = fingerprint(v.seats[winner_seat])
    pool = h.pool if h.gods != "none" and h.pool != GOD_NAMES else ()
    return GameFacts(
        sha256=hashlib.sha256(data).digest(),
        game_id=h.game_id,
        created_ms=h.created_ms,
        first=fingerprint(first_key),
        second=fingerprint(second_key),
        names={fingerprint(s.public_key): s.name for s in h.seats},
        winner=winner,
        reason=reason,
        gods=h.gods,
        pool=pool,
        move_ms=h.move_ms,
        bank_ms=h.bank_ms,
        turns=v.turns,
    )
