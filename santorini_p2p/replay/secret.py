"""Verifying a secret-god game's replay file (SECRET.md 13): the whole transcript checked.

The file is a replay file (SPEC.md 9's framing) whose first frame is the table's ``seats``
frame and whose other frames are the sealed records. Verifying reads every record (signer,
signature, chain), runs the checker on them (the deal, every opening, objection, waiver and
forfeit) and, when the game is over, the audit under every god.

Public API: ``is_secret_replay(data)``, ``read_secret_replay(data) -> SecretReplay`` and
``secret_verdict(data, name)``, the line ``replay verify`` prints.
"""

from __future__ import annotations

from dataclasses import dataclass

from santorini_p2p.errors import WireError
from santorini_p2p.wire.codec import decode
from santorini_p2p.wire.framing import iter_frames
from santorini_p2p.wire.identity import fingerprint
from santorini_p2p.wire.partygame import PartyGame
from santorini_p2p.wire.secretgame import Object, Open, SecretGame, SecretRecordError
from santorini_p2p.wire.secretlog import (
    first_prev,
    make_game,
    read_records,
    read_seats,
    record_decoder,
)

__all__ = ["SecretReplay", "is_secret_replay", "read_secret_replay"]


@dataclass(frozen=True)
class SecretReplay:
    """A secret game read back: its keys, its checker after the last record, what was opened."""

    keys: tuple[bytes, ...]
    game: SecretGame | PartyGame
    records: int
    openings: int
    objections: int


def is_secret_replay(data: bytes) -> bool:
    """Whether ``data`` is a replay file whose first frame is a ``seats`` frame."""
    try:
        first = next(iter_frames(data), b"")
        value = decode(first)
    except (WireError, ValueError):
        return False
    return isinstance(value, tuple) and bool(value) and value[0] == "seats"


def read_secret_replay(data: bytes) -> SecretReplay:
    """Read and check a whole secret game.

    Raises:
        WireError: a frame, signature or chain that is wrong (names the record);
        SecretRecordError: a record the rules refuse (names it).
    """
    frames = list(iter_frames(data))
    _, _, keys = read_seats(frames[0])
    game = make_game(frames[0])
    records = read_records(frames[1:], keys, 1, first_prev(frames[0]), record_decoder(game))
    for r in records:
        game.feed(r)
    return SecretReplay(
        keys,
        game,
        len(records),
        sum(isinstance(r, Open) for r in records),
        sum(isinstance(r, Object) for r in records),
    )


def secret_verdict(
    data: bytes,
) -> tuple[bool, tuple[str, ...], tuple[str, ...], str, int, int]:
    """``(ok, fingerprints, gods, result or error, turns, records)`` for ``replay verify``."""
    try:
        r = read_secret_replay(data)
    except (WireError, SecretRecordError, ValueError) as e:
        return False, (), (), str(e), 0, 0
    prints = tuple(fingerprint(k) for k in r.keys)
    g = r.game
    if isinstance(g, PartyGame):
        gods = g.position.gods if g.position is not None else ()
        turns = g.turns
        mode = "Agora" if g.agora else f"Party, passing every {g.every} turns"
    else:
        gods = tuple(x or "?" for x in g.gods)
        turns = len(g.plays)
        mode = f"secret gods, {r.openings + r.objections} opened ({r.objections} by objection)"
    if g.result is None:
        return False, prints, gods, "the game is not over: its result is not final", turns, 0
    return True, prints, gods, f"{mode}; {g.result[1]}", turns, r.records
