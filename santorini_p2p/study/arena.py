"""Computer against computer: play games locally, in parallel, and measure the difference.

``schedule`` lays out the games with seats swapped, ``play_game`` plays one (a pure function
of its ``GameSpec``), ``run`` plays many over worker processes, and ``tally`` turns the results
into wins, losses, a score with its 95% interval and an Elo difference. ``signed_log`` turns a
finished game into a replay file's records: the god draw and start seat of an arena game come
from its seed through the commit-reveal draw of protocol/SPEC.md section 11, exactly as in a
signed log of the same game.
"""

from __future__ import annotations

import hashlib
import math
import random
from collections.abc import Iterator, Sequence
from concurrent.futures import FIRST_COMPLETED, Future, ProcessPoolExecutor, wait
from dataclasses import dataclass
from typing import Final, cast

from santorini_p2p.ai.search import choose_action, find_level
from santorini_p2p.engine import (
    GodMode,
    NameStart,
    Phase,
    apply_action,
    format_position,
    new_game,
)
from santorini_p2p.engine.gods import GOD_NAMES
from santorini_p2p.wire.draw import draw_seed, draw_setup
from santorini_p2p.wire.identity import Identity
from santorini_p2p.wire.script import play_script, script_nonce

__all__ = [
    "GOD_MODES",
    "MAX_TURNS",
    "GameRecord",
    "GameSpec",
    "Tally",
    "elo",
    "elo_text",
    "game_id",
    "play_game",
    "run",
    "schedule",
    "signed_log",
    "tally",
]

GOD_MODES: Final = ("none", "random", "challenger", "draft")
"""How an arena game chooses gods (``new_game``'s modes; any draw comes from the seed)."""
MAX_TURNS: Final = 400
"""A safety stop: a game longer than this (it cannot happen by the rules) is a draw."""


@dataclass(frozen=True, slots=True)
class GameSpec:
    """One arena game: which level sits in each seat, the setting, the seed and budgets.

    ``think`` (seconds) and ``nodes`` replace each level's own budgets for every turn, except
    that a level whose own node budget is smaller keeps it. ``pool`` is the gods drawn or
    offered (empty: the ten simple gods).
    """

    index: int
    seats: tuple[str, ...]
    gods: str = "none"
    seed: int = 0
    think: float | None = None
    nodes: int | None = None
    pool: tuple[str, ...] = ()


@dataclass(frozen=True, slots=True)
class GameRecord:
    """A finished arena game: the winning player (None for no winner) and its whole course.

    ``winner`` indexes ``spec.seats`` (the challenger's choice of start player renumbers the
    engine's seats, not the players). ``positions`` has one more entry than ``actions``: the
    position before each action, then the final position.
    """

    spec: GameSpec
    winner: int | None
    positions: tuple[str, ...]
    actions: tuple[str, ...]

    @property
    def winner_level(self) -> str | None:
        """The level that won, or None."""
        return None if self.winner is None else self.spec.seats[self.winner]


def game_id(spec: GameSpec) -> bytes:
    """Return the 16-byte game id of an arena game, derived from its seed."""
    return hashlib.blake2b(
        spec.seed.to_bytes(8, "big"), digest_size=16, person=b"santorini arena"
    ).digest()


def _draw(spec: GameSpec) -> tuple[int, tuple[str, ...]]:
    """Return the game's start slot and god draw, as its signed log would draw them."""
    if spec.gods not in GOD_MODES:
        raise ValueError(f"gods: expected one of {', '.join(GOD_MODES)}, got {spec.gods!r}")
    gid = game_id(spec)
    n = len(spec.seats)
    nonces = tuple(script_nonce(gid, slot) for slot in range(n))
    return draw_setup(draw_seed(gid, nonces), n, spec.gods, spec.pool or GOD_NAMES)


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
    n = len(spec.seats)
    _, drawn = _draw(spec)
    p = new_game(n, cast(GodMode, spec.gods), drawn=drawn, offer=spec.pool)
    # players[k]: the index in spec.seats of the player in engine seat k.
    players = tuple(range(n))
    positions = [format_position(p)]
    actions: list[str] = []
    while p.phase is not Phase.OVER and len(actions) < MAX_TURNS:
        level = spec.seats[players[p.to_move]]
        a = choose_action(p, level, rng=rng, think=spec.think, nodes=_nodes(level, spec.nodes))
        p = apply_action(p, a)
        if isinstance(a, NameStart):
            players = tuple(players[(a.seat + i) % n] for i in range(n))
        actions.append(str(a))
        positions.append(format_position(p))
    winner = players[p.winner] if 0 <= p.winner < n else None
    return GameRecord(spec, winner, tuple(positions), tuple(actions))


def signed_log(record: GameRecord) -> list[bytes]:
    """Return ``record`` as the records of a replay file (protocol/SPEC.md), in order.

    Each player signs with a key derived from the game's seed under the name ``LEVEL-N``
    (N: its place in ``spec.seats``); the log's draw is the one the game was played with.
    A game stopped by ``MAX_TURNS`` ends in the log with the seat to move resigning.
    """
    spec = record.spec
    n = len(spec.seats)
    gid = game_id(spec)
    start, _ = _draw(spec)
    identities = []
    for slot in range(n):
        player = (slot - start) % n
        key_seed = hashlib.blake2b(gid + bytes([slot]), digest_size=32).digest()
        identities.append(Identity.from_seed(key_seed, f"{spec.seats[player]}-{player + 1}"))
    return play_script(
        identities, record.actions, game_id=gid, gods=cast(GodMode, spec.gods), pool=spec.pool
    )


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
    pool: tuple[str, ...] = (),
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
        out.append(GameSpec(i, seatings[i % len(seatings)], gods, game_seed, think, nodes, pool))
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

    @property
    def elo_interval(self) -> tuple[float, float]:
        """The 95% interval of the Elo difference: the score's interval, as Elo.

        Finite at one end even when one side won every game: how much stronger it is at least.
        """
        lo, hi = self.interval
        return elo(lo), elo(hi)


def elo(score: float) -> float:
    """Return the Elo difference that predicts ``score`` (±inf at 0 and 1)."""
    if score <= 0.0:
        return -math.inf
    if score >= 1.0:
        return math.inf
    return -400.0 * math.log10(1.0 / score - 1.0)


def elo_text(value: float) -> str:
    """An Elo difference as printed: signed whole points, or ``-inf``/``+inf``."""
    if math.isinf(value):
        return "+inf" if value > 0 else "-inf"
    return f"{round(value):+d}"  # an int: never "-0"


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
