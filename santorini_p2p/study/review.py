"""The engine review of a replay file: verify it, judge every turn, keep the review beside it.

``review_data`` verifies a replay (or its text export) and runs ``ai.review.review_turns``
over the game's turns; ``review_file`` does the same for a file and stores the result beside
it (``replay.review.review_path``), or reuses the stored review when it was made of the same
bytes at the same level, think time (or nodes) and by the same evaluation.
"""

from __future__ import annotations

import os
from collections.abc import Callable
from pathlib import Path

from santorini_p2p.ai.review import review_turns
from santorini_p2p.ai.search import evaluation_id
from santorini_p2p.engine import Phase, Position, Turn, find_turn
from santorini_p2p.errors import ReplayError, SantoriniError
from santorini_p2p.replay.export_text import load_timeline
from santorini_p2p.replay.review import (
    Review,
    ReviewedTurn,
    load_review,
    replay_hash,
    review_path,
    save_review,
    summarise,
)
from santorini_p2p.replay.timeline import Timeline, move_numbers
from santorini_p2p.replay.verify import MAX_FILE_BYTES, verify_bytes

__all__ = [
    "DEFAULT_LEVEL",
    "DEFAULT_THINK",
    "game_turns",
    "review_data",
    "review_file",
    "turn_numbers",
]

DEFAULT_LEVEL = "hard"
"""The level a review searches at unless told otherwise."""
DEFAULT_THINK = 1.0
"""Seconds of search for each position of a review unless told otherwise."""


def game_turns(t: Timeline) -> tuple[list[Position], list[Turn], list[int]]:
    """The positions, turns and players (indexes into ``t.players``) of a timeline's play.

    ``positions[i]`` is where ``turns[i]`` was played; one more follows the last turn.
    """
    positions: list[Position] = []
    turns: list[Turn] = []
    owners: list[int] = []
    before = t.start
    after: Position | None = None
    for s in t.steps:
        if s.kind == "act" and before is not None and before.phase is Phase.PLAY:
            turns.append(find_turn(before, s.text))
            positions.append(before)
            owners.append(s.player)
            after = s.position
        before = s.position
    if after is not None:
        positions.append(after)
    return positions, turns, owners


def turn_numbers(t: Timeline) -> list[int]:
    """Each turn of play's number in the game's one numbering (``timeline.move_numbers``).

    In the order of ``game_turns``: the numbers the console's Turns panel, the viewer and the
    text export give these turns (the setup counted; a turn taken back and the turn played
    in its place share a number).
    """
    out: list[int] = []
    before = t.start
    for s, number in zip(t.steps, move_numbers(t.steps), strict=True):
        if s.kind == "act" and before is not None and before.phase is Phase.PLAY:
            out.append(number)
        before = s.position
    return out


def review_data(
    data: bytes,
    name: str,
    *,
    level: str = DEFAULT_LEVEL,
    think: float | None = DEFAULT_THINK,
    nodes: int | None = None,
    jobs: int = 1,
    progress: Callable[[int, int], None] | None = None,
) -> Review:
    """Verify the replay file (or text export) ``data`` and review every turn of its game.

    The search of each position stops at ``think`` seconds or ``nodes`` nodes, whichever
    comes first (with ``think`` None and ``nodes`` given, the review is the same on any
    machine and at any load).

    Raises:
        ReplayError: the replay does not verify (named by ``name``, with the bad record).
        SantoriniError: a game with no turns to review.
        ValueError: an unknown level, or a game of 3 players.
    """
    verdict = verify_bytes(data, name)
    if not verdict.ok:
        raise ReplayError(f"{name}: {verdict.error}", verdict.record)
    t = load_timeline(data)
    positions, turns, owners = game_turns(t)
    if not turns:
        raise SantoriniError(f"{name}: the game has no turns of play to review")
    judged = review_turns(
        positions, turns, level=level, think=think, nodes=nodes, jobs=jobs, progress=progress
    )
    # The game's own numbers, so that "ply 7" is the turn the Turns panel numbers 7.
    reviewed = tuple(
        ReviewedTurn(number, j.seat, j.turn, j.best, j.eval_before, j.eval_after, j.mark)
        for j, number in zip(judged, turn_numbers(t), strict=True)
    )
    players = summarise(reviewed, [(p.seat, p.name) for p in t.players], owners)
    return Review(replay_hash(data), level, think, reviewed, players, evaluation_id(level), nodes)


def review_file(
    path: str | os.PathLike[str],
    *,
    level: str = DEFAULT_LEVEL,
    think: float | None = DEFAULT_THINK,
    nodes: int | None = None,
    jobs: int = 1,
    progress: Callable[[int, int], None] | None = None,
) -> tuple[Review, str]:
    """Review the replay at ``path`` and store the review beside it.

    A stored review of the same bytes, level, think time, nodes and evaluation (``evaluation_id``:
    a review by an earlier evaluation is made again) is returned as it is. The text
    says which: "reused", "saved", or "not saved: " and why (a review that cannot be written
    is returned all the same).

    Raises:
        OSError: the replay cannot be read, or is too large.
        ReplayError, SantoriniError, ValueError: as ``review_data``.
    """
    name = os.fspath(path)
    if os.path.getsize(name) > 2 * MAX_FILE_BYTES:
        raise OSError(f"{name}: too large for a replay file")
    data = Path(name).read_bytes()
    stored = load_review(review_path(name), data)
    if (
        stored is not None
        and stored.level == level
        and stored.think == think
        and stored.nodes == nodes
        and stored.engine == evaluation_id(level)
    ):
        verdict = verify_bytes(data, name)
        if verdict.ok:
            return stored, "reused"
    review = review_data(
        data, name, level=level, think=think, nodes=nodes, jobs=jobs, progress=progress
    )
    try:
        save_review(review_path(name), review)
    except OSError as e:
        return review, f"not saved: cannot write {review_path(name)}: {e.strerror or e}"
    return review, "saved"
