"""Computer against computer: play games locally, in parallel, and measure the difference.

``schedule`` lays out the games with seats swapped, ``play_game`` plays one (a pure function
of its ``GameSpec``), ``run`` plays many over worker processes, and ``tally`` turns the results
into wins, losses, a score with its 95% interval and an Elo difference.
"""

from __future__ import annotations

import math
import random
from collections.abc import Iterator, Sequence
from concurrent.futures import FIRST_COMPLETED, Future, ProcessPoolExecutor, wait
from dataclasses import dataclass
from typing import Final

from santorini_p2p.ai.search import choose_action, find_level
from santorini_p2p.engine import (
    GOD_NAMES,
    Phase,
    Position,
    apply_action,
    format_position,
    new_game,
)

__all__ = [
    "GOD_MODES",
    "MAX_TURNS",
    "GameRecord",
    "GameSpec",
    "Tally",
    "elo",
    "play_game",
    "run",
    "schedule",
    "tally",
]

GOD_MODES: Final = ("none", "random", "challenger", "draft")
"""How an arena game chooses gods (``new_game``'s modes; the draw comes from the seed)."""
MAX_TURNS: Final = 400
"""A safety stop: a game longer than this (it cannot happen by the rules) is a draw."""


@dataclass(frozen=True, slots=True)
class GameSpec:
    """One arena game: which level sits in each seat, the setting, the seed and budgets.

    ``think`` (seconds) and ``nodes`` replace each level's own budgets for every turn, except
    that a level whose own node budget is smaller keeps it.
    """

    index: int
    seats: tuple[str, ...]
    gods: str = "none"
    seed: int = 0
    think: float | None = None
    nodes: int | None = None


@dataclass(frozen=True, slots=True)
class GameRecord:
    """A finished arena game: the winning seat (None for no winner) and its whole course.

    ``positions`` has one more entry than ``actions``: the position before each action, then
    the final position.
    """

    spec: GameSpec
    winner: int | None
    positions: tuple[str, ...]
    actions: tuple[str, ...]

    @property
    def winner_level(self) -> str | None:
        """The level that won, or None."""
        return None if self.winner is None else self.spec.seats[self.winner]


def _first_position(players: int, gods: str, rng: random.Random) -> Position:
    if gods == "none":
        return new_game(players)
    if gods == "random":
        return new_game(players, "random", drawn=tuple(rng.sample(GOD_NAMES, players)))
    if gods == "draft":
        want = 4 if players == 2 else players + 2
        return new_game(players, "draft", drawn=tuple(rng.sample(GOD_NAMES, want)))
    if gods == "challenger":
        return new_game(players, "challenger")
    raise ValueError(f"gods: expected one of {', '.join(GOD_MODES)}, got {gods!r}")


def _nodes(level: str, nodes: int | None) -> int | None:
    """The node budget of ``level`` under the arena's cap (a smaller own budget stays)."""
    own = find_level(level).nodes
    if nodes is None or own is None:
        return nodes
    return min(nodes, own)


def play_game(spec: GameSpec) -> GameRecord:
    """Play one game from ``new_game`` to the end; the same spec gives the same game.

    With a time budget (``think``) the choices also depend on the machine's speed.
    """
    rng = random.Random(spec.seed)
    p = _first_position(len(spec.seats), spec.gods, rng)
    positions = [format_position(p)]
    actions: list[str] = []
    while p.phase is not Phase.OVER and len(actions) < MAX_TURNS:
        level = spec.seats[p.to_move]
        a = choose_action(p, level, rng=rng, think=spec.think, nodes=_nodes(level, spec.nodes))
        p = apply_action(p, a)
        actions.append(str(a))
        positions.append(format_position(p))
    winner = p.winner if 0 <= p.winner < len(spec.seats) else None
    return GameRecord(spec, winner, tuple(positions), tuple(actions))


def _seatings(a: str, b: str, players: int) -> list[tuple[str, ...]]:
    """The seatings that one round of games cycles through, each level in each seat."""
    if players == 2:
        return [(a, b), (b, a)]
    if players == 4:
        return [(a, b, a, b), (b, a, b, a)]
    return [(a, b, b), (b, a, a), (b, a, b), (a, b, a), (b, b, a), (a, a, b)]


def schedule(
    a: str,
    b: str,
    games: int,
    *,
    players: int = 2,
    gods: str = "none",
    seed: int = 0,
    think: float | None = None,
    nodes: int | None = None,
) -> list[GameSpec]:
    """Lay out ``games`` games of level ``a`` against ``b`` with the seats swapped in turn.

    With 3 players one level takes one seat and the other two, and both ways round in every
    seat; with 4 players each level plays a team.

    Raises:
        ValueError: an unknown level, god mode or player count.
    """
    find_level(a)
    find_level(b)
    if players not in (2, 3, 4):
        raise ValueError(f"players: expected 2, 3 or 4, got {players}")
    if gods not in GOD_MODES:
        raise ValueError(f"gods: expected one of {', '.join(GOD_MODES)}, got {gods!r}")
    seatings = _seatings(a, b, players)
    seeds = random.Random(seed)
    out = []
    game_seed = 0
    for i in range(games):
        # Each pair of games shares a seed, so the swapped seats face the same draw.
        if i % 2 == 0:
            game_seed = seeds.getrandbits(63)
        out.append(GameSpec(i, seatings[i % len(seatings)], gods, game_seed, think, nodes))
    return out


def run(specs: Sequence[GameSpec], jobs: int = 1) -> Iterator[GameRecord]:
    """Play ``specs`` over ``jobs`` processes, yielding each game as it finishes."""
    if jobs <= 1:
        for spec in specs:
            yield play_game(spec)
        return
    with ProcessPoolExecutor(max_workers=jobs) as pool:
        pending: set[Future[GameRecord]] = set()
        queue = list(reversed(specs))
        try:
            while queue or pending:
                while queue and len(pending) < 2 * jobs:
                    pending.add(pool.submit(play_game, queue.pop()))
                done, pending = wait(pending, return_when=FIRST_COMPLETED)
                for f in sorted(done, key=lambda f: f.result().spec.index):
                    yield f.result()
        finally:
            for f in pending:
                f.cancel()


@dataclass(frozen=True, slots=True)
class Tally:
    """Level ``a`` against level ``b``: counts, score with its 95% interval, Elo difference."""

    a: str
    b: str
    games: int
    wins: int
    losses: int
    draws: int

    @property
    def score(self) -> float:
        """The share of points won by ``a`` (a draw is half a point)."""
        return (self.wins + 0.5 * self.draws) / self.games if self.games else 0.5

    @property
    def interval(self) -> tuple[float, float]:
        """The Wilson 95% interval of the score."""
        n = self.games
        if not n:
            return 0.0, 1.0
        z = 1.959964
        s = self.score
        centre = (s + z * z / (2 * n)) / (1 + z * z / n)
        half = z * math.sqrt(s * (1 - s) / n + z * z / (4 * n * n)) / (1 + z * z / n)
        return max(0.0, min(s, centre - half)), min(1.0, max(s, centre + half))

    @property
    def elo(self) -> float:
        """The Elo difference of ``a`` over ``b`` (infinite at a score of 0 or 1)."""
        return elo(self.score)


def elo(score: float) -> float:
    """Return the Elo difference that predicts ``score`` (±inf at 0 and 1)."""
    if score <= 0.0:
        return -math.inf
    if score >= 1.0:
        return math.inf
    return -400.0 * math.log10(1.0 / score - 1.0)


def tally(a: str, b: str, records: Sequence[GameRecord]) -> Tally:
    """Count ``a``'s wins and losses against ``b``; a game with no winner is a draw.

    When ``a`` and ``b`` are the same level, the first seat's level counts as ``a``.
    """
    wins = losses = draws = 0
    for r in records:
        if r.winner is None:
            draws += 1
            continue
        won = r.spec.seats[r.winner]
        if a == b:
            won_a = r.winner % 2 == 0 if len(r.spec.seats) != 3 else r.winner == 0
        else:
            won_a = won == a
        if won_a:
            wins += 1
        else:
            losses += 1
    return Tally(a, b, len(records), wins, losses, draws)
