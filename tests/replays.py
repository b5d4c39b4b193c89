"""Real replays for the wire and replay tests: fixed identities, seeded random games, cached."""

from __future__ import annotations

import random
from functools import cache

from santorini_p2p.engine import format_action, legal_actions
from santorini_p2p.wire.identity import Identity
from santorini_p2p.wire.log import encode_frames
from santorini_p2p.wire.script import play_script

IDS = tuple(
    Identity.from_seed(bytes([i + 1]) * 32, name)
    for i, name in enumerate(("alice", "bob", "carol", "dave"))
)
STRANGER = Identity.from_seed(b"\x77" * 32, "mallory")

MODES = (
    (2, "none"),
    (2, "challenger"),
    (2, "draft"),
    (2, "random"),
    (3, "draft"),
    (3, "none"),
    (4, "challenger"),
)


@cache
def game(
    players: int = 2, gods: str = "none", seed: int = 0, timed: bool = False
) -> tuple[bytes, ...]:
    """Return the envelopes of a seeded random game (cached: tests must not mutate)."""
    rng = random.Random(seed * 31 + players)
    game_id = bytes([seed % 256, players]) + gods.encode()[:4].ljust(4, b"-") + bytes(10)
    return tuple(
        play_script(
            IDS[:players],
            lambda p: format_action(rng.choice(legal_actions(p))),
            game_id=game_id,
            gods=gods,  # type: ignore[arg-type]
            move_ms=60_000 if timed else 0,
            bank_ms=300_000 if timed else 0,
            clock_ms=1_500 if timed else 0,
            max_actions=60,
        )
    )


def replay_file(players: int = 2, gods: str = "none", seed: int = 0) -> bytes:
    """Return a complete replay file of ``game(players, gods, seed)``."""
    return encode_frames(game(players, gods, seed))


def frame_offsets(envelopes: tuple[bytes, ...]) -> list[tuple[int, int]]:
    """Return (start, end) byte offsets of each frame (length prefix included) in the file."""
    at = 5
    out = []
    for raw in envelopes:
        out.append((at, at + 4 + len(raw)))
        at += 4 + len(raw)
    return out


@cache
def god_game(gods: tuple[str, ...], seed: int = 0, players: int = 2) -> bytes:
    """Return the replay file of a seeded random ``random`` game whose god pool is ``gods``."""
    rng = random.Random(seed)
    game_id = bytes([seed % 256, players]) + b"gods" + bytes(10)
    envelopes = play_script(
        IDS[:players],
        lambda p: format_action(rng.choice(legal_actions(p))),
        game_id=game_id,
        gods="random",
        pool=gods,
        max_actions=120,
    )
    return encode_frames(envelopes)
