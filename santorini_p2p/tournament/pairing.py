"""Pairings of a club event: Swiss (Monrad, no repeated pairing) and round robin (EVENT.md 4).

Pure functions of the event's players and the games so far: the same history gives the same
pairing on every machine, which is what lets ``tournament verify`` re-derive every round.
Scores are counted in half points (a win 2, a draw 1, a bye 2), so nothing here is a float.

Public API:

- ``Played``: one finished board of an earlier round (who was first, second, and the points);
- ``History``: what the pairing rules read from the rounds so far (``scores``, ``met``, byes,
  first-player counts), built with ``History.of(players, rounds)``;
- ``swiss_round(history) -> Round`` and ``round_robin_round(players, number) -> Round``;
- ``round_robin_length(players)``: the rounds of one cycle;
- ``PairingError``: no pairing exists (every pairing would repeat a game).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Final

from santorini_p2p.errors import SantoriniError

__all__ = [
    "BYE_POINTS",
    "History",
    "PairingError",
    "Played",
    "Round",
    "round_robin_length",
    "round_robin_round",
    "swiss_round",
]

BYE_POINTS: Final = 2
"""A bye scores a win (in half points), as most club Swiss rules give it."""
_MAX_STEPS: Final = 200_000
"""The most steps the Swiss pairing search takes before it gives up (far above club sizes)."""


class PairingError(SantoriniError):
    """No pairing exists for the next round under the event's rules."""


@dataclass(frozen=True, slots=True)
class Round:
    """One round's pairing: ``games`` as (first, second) player indices, board 1 first."""

    number: int
    games: tuple[tuple[int, int], ...]
    bye: int | None


@dataclass(frozen=True, slots=True)
class Played:
    """One board of a round with its result: ``points`` in half points (first, second).

    ``points`` is None while the board has no result yet.
    """

    first: int
    second: int
    points: tuple[int, int] | None


@dataclass(frozen=True, slots=True)
class History:
    """The rounds so far as the pairing rules read them (player indices in event order)."""

    players: int
    scores: tuple[int, ...]
    met: frozenset[tuple[int, int]]
    byes: tuple[int, ...]
    firsts: tuple[int, ...]
    seconds: tuple[int, ...]
    last_first: tuple[bool | None, ...]
    rounds: int
    streaks: tuple[int, ...] = ()
    """Per player, the games in a row moved first (positive) or second (negative), lately."""

    @classmethod
    def of(cls, players: int, rounds: Sequence[tuple[Sequence[Played], int | None]]) -> History:
        """Fold the rounds so far: each is its boards and its bye (or None)."""
        scores = [0] * players
        byes = [0] * players
        firsts = [0] * players
        seconds = [0] * players
        last: list[bool | None] = [None] * players
        streaks = [0] * players
        met: set[tuple[int, int]] = set()
        for boards, bye in rounds:
            for b in boards:
                met.add((min(b.first, b.second), max(b.first, b.second)))
                firsts[b.first] += 1
                seconds[b.second] += 1
                last[b.first], last[b.second] = True, False
                streaks[b.first] = max(streaks[b.first], 0) + 1
                streaks[b.second] = min(streaks[b.second], 0) - 1
                if b.points is not None:
                    scores[b.first] += b.points[0]
                    scores[b.second] += b.points[1]
            if bye is not None:
                byes[bye] += 1
                scores[bye] += BYE_POINTS
        return cls(
            players,
            tuple(scores),
            frozenset(met),
            tuple(byes),
            tuple(firsts),
            tuple(seconds),
            tuple(last),
            len(rounds),
            tuple(streaks),
        )

    def has_met(self, a: int, b: int) -> bool:
        """Whether players ``a`` and ``b`` were paired in an earlier round."""
        return (min(a, b), max(a, b)) in self.met

    def ranking(self) -> list[int]:
        """Players by score, highest first; equal scores in event (seed) order."""
        return sorted(range(self.players), key=lambda i: (-self.scores[i], i))


def _first_of(h: History, high: int, low: int, number: int) -> tuple[int, int]:
    """Order a pair so that first moves are balanced (EVENT.md 4.2).

    The player who has been first less often, relative to second, is first; then the one who
    was second in their last game; then the higher-ranked player in odd rounds and the
    lower-ranked in even rounds.
    """
    bal_high = h.firsts[high] - h.seconds[high]
    bal_low = h.firsts[low] - h.seconds[low]
    if bal_high != bal_low:
        return (high, low) if bal_high < bal_low else (low, high)
    if h.last_first[high] != h.last_first[low]:
        return (low, high) if h.last_first[high] else (high, low)
    return (high, low) if number % 2 == 1 else (low, high)


MAX_IMBALANCE: Final = 2
"""The most first moves over second moves (or the other way) a pairing gives a player."""
MAX_STREAK: Final = 2
"""The most games in a row a pairing has a player move first (or second)."""


def _fits(h: History, first: int, second: int) -> bool:
    """Whether ``first`` may move first against ``second`` under the balance limits."""
    return (
        h.firsts[first] - h.seconds[first] < MAX_IMBALANCE
        and h.seconds[second] - h.firsts[second] < MAX_IMBALANCE
        and h.streaks[first] < MAX_STREAK
        and h.streaks[second] > -MAX_STREAK
    )


def _oriented(h: History, high: int, low: int, number: int, strict: bool) -> tuple[int, int] | None:
    """The pair in the order it plays: the balance's choice, else the other way, else None.

    Without ``strict`` the balance's choice always stands.
    """
    first, second = _first_of(h, high, low, number)
    if not strict or _fits(h, first, second):
        return first, second
    if _fits(h, second, first):
        return second, first
    return None


def swiss_round(h: History) -> Round:
    """Pair the next Swiss round (EVENT.md 4.1).

    Players are ranked by score, then seed; with an odd number, the lowest-ranked player
    who has had no bye (or the fewest) sits out with a bye. The rest are paired top down,
    each with the next-ranked player they have not met (Monrad), backtracking where that
    leaves someone without an opponent. A pairing is first sought in which no player moves
    first (or second) more than twice over the other, nor three games in a row.

    Raises:
        PairingError: every pairing would repeat a game (too many rounds for the players).
    """
    number = h.rounds + 1
    ranked = h.ranking()
    steps = [0]

    def pair(rest: list[int], strict: bool) -> list[tuple[int, int]] | None:
        if not rest:
            return []
        top, others = rest[0], rest[1:]
        for k, other in enumerate(others):
            steps[0] += 1
            if steps[0] > _MAX_STEPS:
                raise PairingError(f"round {number}: no pairing found within the search limit")
            if h.has_met(top, other):
                continue
            game = _oriented(h, top, other, number, strict)
            if game is None:
                continue
            tail = pair(others[:k] + others[k + 1 :], strict)
            if tail is not None:
                return [game, *tail]
        return None

    if len(ranked) % 2 == 0:
        choices: list[int | None] = [None]
    else:
        fewest = min(h.byes)
        low_first = list(reversed(ranked))
        choices = [p for p in low_first if h.byes[p] == fewest]
        choices += [p for p in low_first if h.byes[p] != fewest]
    # First within the balance limits; only when no pairing keeps them, without.
    for strict in (True, False):
        for bye in choices:
            found = pair([p for p in ranked if p != bye], strict)
            if found is not None:
                return Round(number, tuple(found), bye)
    raise PairingError(
        f"round {number}: every pairing of the {h.players} players repeats a game "
        "(a Swiss event has at most players - 1 rounds, fewer when early rounds block later ones)"
    )


def round_robin_length(players: int) -> int:
    """The rounds of one round-robin cycle: players - 1, or players with an odd number."""
    return players - 1 if players % 2 == 0 else players


def round_robin_round(players: int, number: int) -> Round:
    """Round ``number`` (1-based) of a round robin by the circle method (EVENT.md 4.3).

    A second cycle (a double round robin) repeats the first with each pair's first player
    swapped. With an odd number of players a phantom player makes the count even, and whoever
    meets it has the bye.
    """
    m = players + players % 2
    cycle = m - 1
    r = (number - 1) % cycle
    again = (number - 1) // cycle % 2 == 1
    fixed = m - 1
    pairs: list[tuple[int, int]] = [(r, fixed) if r % 2 == 0 else (fixed, r)]
    for i in range(1, m // 2):
        a, b = (r + i) % cycle, (r - i) % cycle
        pairs.append((a, b) if i % 2 == 1 else (b, a))
    bye: int | None = None
    games: list[tuple[int, int]] = []
    phantom = players if players % 2 == 1 else None
    for first, second in pairs:
        if phantom in (first, second):
            bye = second if first == phantom else first
            continue
        games.append((second, first) if again else (first, second))
    games.sort(key=lambda g: min(g))
    return Round(number, tuple(games), bye)
