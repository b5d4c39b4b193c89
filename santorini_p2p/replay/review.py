"""An engine review of a replay, as stored beside it and shown by the viewer and the exports.

A review is never part of the signed log: it lives in its own file next to the replay
(``game.sntr`` -> ``game.sntr.review.json``) and names the replay by the SHA-256 of its bytes,
so a review of another game (or of an edited file) is never shown or reused. The file holds
what ``santorini replay review --json`` prints (``to_json``: ``turns`` and ``players``) and,
beside it, ``version``, ``replay`` (the hash), ``level`` and ``think`` (the search's settings;
``nodes`` too where the review searched a number of nodes a position, the same on any machine)
and, from the trained evaluation on, ``engine``: which evaluation judged (``hand``, or ``net-``
and the first hex digits of its weights' SHA-256), so a review by another one is made again.

Evaluations are from the mover's side: a win probability (0 to 1), or a forced result in
words ("win in 2", "loss in 1"); seats are 1-based in the file and 0-based in memory.
"""

from __future__ import annotations

import hashlib
import json
import math
import os
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Final

__all__ = [
    "REVIEW_SUFFIX",
    "REVIEW_VERSION",
    "PlayerSummary",
    "Review",
    "ReviewedTurn",
    "load_review",
    "parse_review",
    "replay_hash",
    "review_path",
    "save_review",
    "summarise",
    "win_probability",
]

REVIEW_SUFFIX: Final = ".review.json"
"""What a review file's name adds to its replay file's name."""
REVIEW_VERSION: Final = 2
"""The review file's format version (2: ``ply`` is the turn's number in the game's numbering,
setup included, as the Turns panel and the text export give it; a version 1 file counted the
turns of play alone and is made again)."""
_MARKS: Final = ("inaccuracy", "mistake", "blunder", "missed win")
_MAX_FILE: Final = 4 << 20


@dataclass(frozen=True, slots=True)
class ReviewedTurn:
    """One turn judged: ``ply`` is its number in the game's numbering, ``seat`` is 0-based.

    The numbering is ``timeline.move_numbers``': the setup's actions counted, so the first
    turn of play of a 2-player game is 3; a turn taken back and the next share a number.
    """

    ply: int
    seat: int
    turn: str
    best: str
    eval_before: float | str
    eval_after: float | str
    mark: str | None

    def to_json(self) -> dict[str, object]:
        """The turn as ``replay review --json`` prints it (seat 1-based)."""
        return {
            "ply": self.ply,
            "seat": self.seat + 1,
            "turn": self.turn,
            "best": self.best,
            "eval_before": self.eval_before,
            "eval_after": self.eval_after,
            "mark": self.mark,
        }


@dataclass(frozen=True, slots=True)
class PlayerSummary:
    """One player's turns counted by mark; ``average_loss`` in win-probability points (0-100)."""

    seat: int
    name: str
    turns: int
    inaccuracies: int
    mistakes: int
    blunders: int
    missed_wins: int
    average_loss: float

    def to_json(self) -> dict[str, object]:
        """The summary as ``replay review --json`` prints it (seat 1-based)."""
        return {
            "seat": self.seat + 1,
            "name": self.name,
            "turns": self.turns,
            "inaccuracies": self.inaccuracies,
            "mistakes": self.mistakes,
            "blunders": self.blunders,
            "missed_wins": self.missed_wins,
            "average_loss": self.average_loss,
        }


@dataclass(frozen=True, slots=True)
class Review:
    """A whole review: the replay's hash, the search's settings, each turn, each player."""

    replay: str
    level: str
    think: float | None
    turns: tuple[ReviewedTurn, ...]
    players: tuple[PlayerSummary, ...]
    engine: str = ""
    nodes: int | None = None
    """The search's nodes a position, where it searched a number of them (None: ``think``)."""

    def to_json(self) -> dict[str, object]:
        """What ``replay review --json`` prints: ``{"turns": [...], "players": [...]}``."""
        return {
            "turns": [t.to_json() for t in self.turns],
            "players": [p.to_json() for p in self.players],
        }

    def to_file(self) -> str:
        """The review file's text."""
        doc: dict[str, object] = {
            "version": REVIEW_VERSION,
            "replay": self.replay,
            "level": self.level,
            "think": self.think,
        }
        if self.engine:
            doc["engine"] = self.engine
        if self.nodes is not None:
            doc["nodes"] = self.nodes
        doc.update(self.to_json())
        return json.dumps(doc, indent=1) + "\n"


def win_probability(e: float | str) -> float:
    """An evaluation as a win probability: a forced win counts 1, a forced loss 0."""
    if isinstance(e, str):
        return 1.0 if e.startswith("win") else 0.0
    return e


def summarise(
    turns: Sequence[ReviewedTurn], players: Sequence[tuple[int, str]], owners: Sequence[int]
) -> tuple[PlayerSummary, ...]:
    """Count each player's marks: ``players`` are (seat, name), ``owners[i]`` plays turn i."""
    out: list[PlayerSummary] = []
    for k, (seat, name) in enumerate(players):
        mine = [t for t, o in zip(turns, owners, strict=True) if o == k]
        marks = [t.mark for t in mine]
        losses = [
            max(0.0, win_probability(t.eval_before) - win_probability(t.eval_after)) for t in mine
        ]
        average = round(100 * sum(losses) / len(losses), 1) if losses else 0.0
        out.append(
            PlayerSummary(
                seat,
                name,
                len(mine),
                marks.count("inaccuracy"),
                marks.count("mistake"),
                marks.count("blunder"),
                marks.count("missed win"),
                average,
            )
        )
    return tuple(out)


def replay_hash(data: bytes) -> str:
    """The name a review gives its replay: the SHA-256 of the file's bytes, in hex."""
    return hashlib.sha256(data).hexdigest()


def review_path(replay: str | os.PathLike[str]) -> Path:
    """Where the review of the replay file at ``replay`` is stored."""
    return Path(os.fspath(replay) + REVIEW_SUFFIX)


def _eval(value: object, where: str) -> float | str:
    if isinstance(value, bool) or not isinstance(value, int | float | str):
        raise ValueError(f"{where}: expected a number or a forced result, got {value!r:.80}")
    if isinstance(value, str):
        kind, _, n = value.partition(" in ")
        if kind not in ("win", "loss") or not n.isdigit():
            raise ValueError(f"{where}: expected 'win in N' or 'loss in N', got {value!r:.80}")
        return value
    if not (math.isfinite(value) and 0.0 <= value <= 1.0):
        raise ValueError(f"{where}: expected a win probability from 0 to 1, got {value!r}")
    return float(value)


def _int(obj: dict[str, object], key: str, where: str) -> int:
    value = obj.get(key)
    if not isinstance(value, int) or isinstance(value, bool) or value < 0:
        raise ValueError(f"{where}: {key!r} should be a whole number, got {value!r:.80}")
    return value


def _str(obj: dict[str, object], key: str, where: str) -> str:
    value = obj.get(key)
    if not isinstance(value, str):
        raise ValueError(f"{where}: {key!r} should be text, got {value!r:.80}")
    return value


def _list(obj: dict[str, object], key: str) -> list[object]:
    value = obj.get(key)
    if not isinstance(value, list):
        raise ValueError(f"review: {key!r} should be a list, got {value!r:.80}")
    return value


def parse_review(text: str) -> Review:
    """Read a review file's text.

    Raises:
        ValueError: not JSON, another version, or a field of the wrong kind (named).
    """
    try:
        doc = json.loads(text)
    except json.JSONDecodeError as e:
        raise ValueError(f"not JSON: {e}") from None
    if not isinstance(doc, dict):
        raise ValueError("expected a JSON object")
    if doc.get("version") != REVIEW_VERSION:
        raise ValueError(f"version: expected {REVIEW_VERSION}, got {doc.get('version')!r:.80}")
    think = doc.get("think")
    if think is not None and (isinstance(think, bool) or not isinstance(think, int | float)):
        raise ValueError(f"think: expected seconds or null, got {think!r:.80}")
    nodes = doc.get("nodes")
    if nodes is not None and (type(nodes) is not int or nodes < 1):
        raise ValueError(f"nodes: expected a whole number of at least 1 or null, got {nodes!r:.80}")
    turns: list[ReviewedTurn] = []
    for i, t in enumerate(_list(doc, "turns")):
        where = f"turns[{i}]"
        if not isinstance(t, dict):
            raise ValueError(f"{where}: expected an object")
        mark = t.get("mark")
        if mark is not None and mark not in _MARKS:
            raise ValueError(f"{where}: unknown mark {mark!r:.80}")
        turns.append(
            ReviewedTurn(
                _int(t, "ply", where),
                _int(t, "seat", where) - 1,
                _str(t, "turn", where),
                _str(t, "best", where),
                _eval(t.get("eval_before"), f"{where}: eval_before"),
                _eval(t.get("eval_after"), f"{where}: eval_after"),
                mark,
            )
        )
    players: list[PlayerSummary] = []
    for i, p in enumerate(_list(doc, "players")):
        where = f"players[{i}]"
        if not isinstance(p, dict):
            raise ValueError(f"{where}: expected an object")
        loss = p.get("average_loss")
        if isinstance(loss, bool) or not isinstance(loss, int | float):
            raise ValueError(f"{where}: 'average_loss' should be a number, got {loss!r:.80}")
        players.append(
            PlayerSummary(
                _int(p, "seat", where) - 1,
                _str(p, "name", where),
                _int(p, "turns", where),
                _int(p, "inaccuracies", where),
                _int(p, "mistakes", where),
                _int(p, "blunders", where),
                _int(p, "missed_wins", where),
                float(loss),
            )
        )
    return Review(
        _str(doc, "replay", "review"),
        _str(doc, "level", "review"),
        None if think is None else float(think),
        tuple(turns),
        tuple(players),
        _str(doc, "engine", "review") if "engine" in doc else "",
        nodes,
    )


def load_review(path: str | os.PathLike[str], data: bytes) -> Review | None:
    """The review stored at ``path`` if it is one of the replay ``data``, else None.

    A missing, unreadable or malformed review file, or one made for other bytes, counts as
    no review (it is made again).
    """
    try:
        p = Path(path)
        if p.stat().st_size > _MAX_FILE:
            return None
        review = parse_review(p.read_text(encoding="utf-8"))
    except (OSError, UnicodeDecodeError, ValueError):
        return None
    return review if review.replay == replay_hash(data) else None


def save_review(path: str | os.PathLike[str], review: Review) -> None:
    """Write ``review`` to ``path`` (through a temporary file, so a reader never sees half).

    Raises:
        OSError: the file cannot be written.
    """
    target = Path(path)
    tmp = target.with_name(target.name + ".tmp")
    # Private like the replay beside it (0600): a review says how each player played.
    fd = os.open(tmp, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o600)
    with os.fdopen(fd, "w", encoding="utf-8") as f:
        os.fchmod(f.fileno(), 0o600)
        f.write(review.to_file())
    os.replace(tmp, target)
