"""The static evaluation: how good a position is for one side, and immediate wins.

Scores are integers in hundredths of a level, roughly: a worker one level higher is worth
about 100. The evaluation knows workers (a side can lose some to a power), heights, mobility,
climbs, threats to move up onto level 3 (and the domes and workers that block them), what the
other sides' powers impose on a side's turn (read from the engine's ``limits``: no moving up
or down, frozen or bound workers, forbidden directions, squares no move may win on), and,
through each god's own hooks (``extra_threats``, ``evaluation``), the wins and captures its
power adds. Deeper god tactics are left to the search.
"""

from __future__ import annotations

import hashlib
import json
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from importlib.resources import files
from typing import ClassVar, Final

from santorini_p2p.engine import Position, can_win_now, find_god, limits
from santorini_p2p.engine.gods import power_of
from santorini_p2p.engine.power import Limits, Power
from santorini_p2p.engine.squares import ALL, NEIGHBOURS, bits

__all__ = [
    "CLASSIC",
    "TUNED",
    "WIN",
    "Weights",
    "can_win_now",
    "evaluate",
    "plain_leaf",
    "threat_squares",
]

WIN: Final = 1_000_000
"""The score of a won game; a win found ``k`` turns ahead scores ``WIN - k``."""

_RINGS: Final = tuple(min(min(s % 5, 4 - s % 5), min(s // 5, 4 - s // 5)) for s in range(25))
"""How far in from the edge each square is: 0 on the edge, 1 in the ring inside, 2 the centre."""


@dataclass(frozen=True, slots=True)
class Weights:
    """The evaluation's weights, one per term, in hundredths of a level.

    A side's score is a sum of terms, each a count times its weight: ``worker`` for each worker
    on the board (up to as many as the side placed; a worker gained by a power is worth its
    height, place and moves, and what its god's ``evaluation`` says), ``height`` for each worker
    on level 1, 2 or 3, ``ring`` for each worker one or two rings in from the edge, ``mobility``
    for each square a worker can move to, ``stuck`` taken off for each worker that cannot move,
    ``climb`` for each square one level up that a worker on level 0 or 1 can move to,
    ``near_threat`` for each free level-2 square next to a worker on level 2, ``threat_one`` for
    one square the side could win on by moving and ``threat_many`` for two or more, and
    ``tempo`` for the side to move. The score is linear in the weights, which is what lets
    ``study.tune`` fit them to the results of self-play games.
    """

    worker: int
    height: tuple[int, int, int]
    ring: tuple[int, int]
    mobility: int
    stuck: int
    climb: tuple[int, int]
    near_threat: int
    threat_one: int
    threat_many: int
    tempo: int

    NAMES: ClassVar[tuple[str, ...]] = (
        "worker",
        "height1",
        "height2",
        "height3",
        "ring1",
        "ring2",
        "mobility",
        "stuck",
        "climb0",
        "climb1",
        "near_threat",
        "threat_one",
        "threat_many",
        "tempo",
    )
    """The weights' names in the order of ``vector``."""

    def vector(self) -> tuple[int, ...]:
        """The weights as one vector, in the order of ``NAMES``."""
        return (
            self.worker,
            *self.height,
            *self.ring,
            self.mobility,
            self.stuck,
            *self.climb,
            self.near_threat,
            self.threat_one,
            self.threat_many,
            self.tempo,
        )

    @classmethod
    def from_vector(cls, v: Sequence[int]) -> Weights:
        """The weights of a vector in the order of ``NAMES``.

        Raises:
            ValueError: a vector of another length.
        """
        if len(v) != len(cls.NAMES):
            raise ValueError(f"expected {len(cls.NAMES)} weights, got {len(v)}")
        w = [int(x) for x in v]
        return cls(w[0], (w[1], w[2], w[3]), (w[4], w[5]), w[6], w[7], (w[8], w[9]), *w[10:])

    @classmethod
    def from_json(cls, data: object) -> Weights:
        """The weights of a JSON object ``{name: integer}`` with every name of ``NAMES``.

        Raises:
            ValueError: a name missing or unknown, or a value that is not an integer.
        """
        if not isinstance(data, dict):
            raise ValueError("weights: expected an object of named integers")
        missing = [n for n in cls.NAMES if n not in data]
        unknown = sorted(set(data) - set(cls.NAMES))
        if missing or unknown:
            raise ValueError(f"weights: missing {missing}, unknown {unknown}")
        values = [data[n] for n in cls.NAMES]
        bad = [n for n, x in zip(cls.NAMES, values, strict=True) if type(x) is not int]
        if bad:
            raise ValueError(f"weights: not integers: {', '.join(bad)}")
        return cls.from_vector(values)

    @property
    def digest(self) -> str:
        """A short name of these weights: 12 hex digits of the SHA-256 of their JSON."""
        text = json.dumps(self.to_json(), sort_keys=True, separators=(",", ":"))
        return hashlib.sha256(text.encode()).hexdigest()[:12]

    def to_json(self) -> dict[str, int]:
        """The weights as a JSON object ``{name: integer}`` (``from_json`` reads it back)."""
        return dict(zip(self.NAMES, self.vector(), strict=True))


CLASSIC: Final = Weights(
    worker=300,
    height=(100, 260, 180),
    ring=(8, 20),
    mobility=6,
    stuck=120,
    climb=(12, 40),
    near_threat=25,
    threat_one=160,
    threat_many=450,
    tempo=25,
)
"""The hand-set weights the evaluation had before any were fitted. A residual net's offset is
the evaluation with the weights it was trained on, these for a file that names none
(``ai.net.Net.offset``), so a trained net keeps its meaning when the search's weights are fitted
again."""


def _shipped() -> Weights:
    """The fitted weights shipped with the package (``ai/weights/eval-v1.json``)."""
    data = json.loads(files("santorini_p2p.ai").joinpath(f"weights/{EVAL_FILE}").read_text())
    return Weights.from_json(data["weights"])


EVAL_FILE: Final = "eval-v1.json"
"""The shipped fitted weights, with the record of how they were made."""
TUNED: Final = _shipped()
"""The weights every level searches with: fitted to self-play results (``santorini tune``)."""


@dataclass(frozen=True, slots=True)
class _Terms:
    """A ``Weights`` laid out for the hot loop: tables by level and by square."""

    worker: int
    height: tuple[int, int, int, int]
    centre: tuple[int, ...]
    mobility: int
    stuck: int
    climb: tuple[int, int, int, int]
    near_threat: int
    threat_one: int
    threat_many: int
    tempo: int


_TERMS: dict[Weights, _Terms] = {}


def _terms(w: Weights) -> _Terms:
    """``w`` laid out for scoring (made once per set of weights)."""
    t = _TERMS.get(w)
    if t is None:
        rings = (0, *w.ring)
        t = _TERMS[w] = _Terms(
            w.worker,
            (0, *w.height),
            tuple(rings[r] for r in _RINGS),
            w.mobility,
            w.stuck,
            (*w.climb, 0, 0),
            w.near_threat,
            w.threat_one,
            w.threat_many,
            w.tempo,
        )
    return t


_TUNED_TERMS: Final = _terms(TUNED)


_FREE: Final = Limits()


def _limits(p: Position, seat: int) -> Limits:
    """What the other sides' powers impose on ``seat``'s turn (the engine's limits).

    A power state held by the seat to move is about to be replaced by its move, so it
    stops nobody moving up in the evaluation of that seat's turn.
    """
    if not any(p.gods):
        return _FREE
    lim = limits(p, seat)
    if lim.no_up and p.power_state and p.state_of(p.to_move) and seat != p.to_move:
        stale = Limits()
        for name in Limits.__slots__:
            setattr(stale, name, getattr(lim, name))
        stale.no_up = False
        return stale
    return lim


def threat_squares(p: Position, side: int) -> int:
    """Return the squares where a worker of ``side`` would win by moving (basic rule only).

    These are the free level-3 squares next to its level-2 workers; the evaluation adds
    the gods' ways of winning.
    """
    top = p.ge3 & ~p.domes
    occ = p.domes
    for m in p.workers:
        occ |= m
    out = 0
    for w in bits(p.workers[side] & p.ge2 & ~p.ge3):
        out |= NEIGHBOURS[w] & top & ~occ
    return out


_SideInfo = tuple[
    int,
    Power | None,
    int,
    Callable[[Position, int, int, int, bool], int] | None,
    Callable[[Position, int, int, bool], int] | None,
]
_SIDES: dict[tuple[tuple[str, ...], int], _SideInfo] = {}


def _side_info(gods: tuple[str, ...], side: int) -> _SideInfo:
    """What a side's gods give its scoring, worked out once per table.

    Its first seat (-1: none), its power where one seat plays the side, how many workers it
    placed, and that power's ``extra_threats`` and ``evaluation`` where it has its own (None:
    the default, which adds nothing).
    """
    n = len(gods)
    seats = [s for s in range(n) if (s & 1 if n == 4 else s) == side]
    seat_gods = [gods[s] for s in seats]
    power = find_god(seat_gods[0]) if len(seat_gods) == 1 and seat_gods[0] else None
    placed = sum(power_of(g).placed for g in seat_gods) if seat_gods else 2
    extra = bonus = None
    if power is not None:
        kind = type(power)
        if kind.extra_threats is not Power.extra_threats:
            extra = power.extra_threats
        if kind.evaluation is not Power.evaluation:
            bonus = power.evaluation
    info = _SIDES[gods, side] = (seats[0] if seats else -1, power, placed, extra, bonus)
    return info


def _side_score(p: Position, side: int, occ: int, to_move_side: int, t: _Terms) -> tuple[int, int]:
    """The strength of one side's workers, ignoring everyone else's, and its threat squares."""
    mine = p.workers[side]
    if not mine:
        return 0, 0
    ge1, ge2, ge3 = p.ge1, p.ge2, p.ge3
    top = ge3 & ~p.domes
    lvl2 = ge2 & ~ge3
    info = _SIDES.get((p.gods, side))
    if info is None:
        info = _side_info(p.gods, side)
    first_seat, power, placed, extra, bonus = info
    lim = _limits(p, first_seat) if first_seat >= 0 else _FREE
    restricted = lim.no_up
    free_for = ALL & ~occ
    if power is not None and power.forces:
        free_for |= occ & ~mine & ~p.domes
    if restricted:
        reach = (free_for & ~ge1, free_for & ~ge2, free_for & ~ge3, free_for)
    else:
        reach = (free_for & ~ge2, free_for & ~ge3, free_for, free_for)
    up = (ge1 ^ ge2, lvl2)
    frozen, bound, no_down = lim.frozen, lim.bound, lim.no_down
    walks = lim.walk_ban or lim.diagonal
    near_binders = ALL
    if bound & mine:
        # A bound worker that moves must end next to a worker of a binding side.
        near_binders = 0
        for i, m in enumerate(p.workers):
            if lim.binders >> i & 1:
                for b in bits(m):
                    near_binders |= NEIGHBOURS[b]
    score = t.worker * min(mine.bit_count(), placed)
    threats = 0
    height, centre, mobility, climb = t.height, t.centre, t.mobility, t.climb
    left = mine
    while left:
        low = left & -left
        left ^= low
        w = low.bit_length() - 1
        h = (ge1 >> w & 1) + (ge2 >> w & 1) + (ge3 >> w & 1)
        nb = NEIGHBOURS[w]
        moves = 0 if frozen & low else nb & reach[h]
        if bound & low:
            moves &= near_binders
        if no_down:
            moves &= (ALL, ge1, ge2, ge3)[h]
        if walks:
            moves = lim.walk(w, moves)
        score += height[h] + centre[w] + mobility * moves.bit_count()
        if not moves:
            score -= t.stuck
            continue
        if h < 2:
            if not restricted:
                score += climb[h] * (moves & up[h]).bit_count()
        elif h == 2:
            if not restricted:
                threats |= moves & top
            score += t.near_threat * (nb & lvl2 & ~occ).bit_count()
        if extra is not None:
            threats |= extra(p, w, moves, occ, restricted)
    threats &= ~lim.no_win
    if bonus is not None:
        score += bonus(p, side, occ, restricted)
    if threats:
        score += t.threat_one if threats & (threats - 1) == 0 else t.threat_many
    if side == to_move_side:
        score += t.tempo
    return score, threats


def plain_leaf(p: Position, side: int, weights: Weights = TUNED) -> tuple[int, int, bool]:
    """``evaluate(p, side, weights)`` and ``can_win_now(p)`` at once, where no seat has a god.

    The seat to move wins by moving exactly where its own threat squares are: a search's
    leaf asks both of the same position.
    """
    return _plain_evaluate(p, side, _TUNED_TERMS if weights is TUNED else _terms(weights))


def _plain_evaluate(p: Position, side: int, t: _Terms) -> tuple[int, int, bool]:
    """``evaluate`` where no seat has a god: ``_side_score``'s terms without the powers' checks.

    The base game's positions are most of those a search scores; what every side shares
    (free squares, where each level may step) is worked out once for all of them.
    """
    ge1, ge2, ge3 = p.ge1, p.ge2, p.ge3
    workers = p.workers
    occ = p.domes
    for m in workers:
        occ |= m
    top = ge3 & ~p.domes
    lvl2 = ge2 & ~ge3
    free = ALL & ~occ
    reach0 = free & ~ge2
    reach1 = free & ~ge3
    up0 = ge1 & ~ge2
    h0, h1, h2, h3 = t.height
    climb0, climb1 = t.climb[0], t.climb[1]
    centre, mobility = t.centre, t.mobility
    stuck, near_threat, tempo = t.stuck, t.near_threat, t.tempo
    seat = p.to_move
    to_move_side = seat & 1 if len(p.gods) == 4 else seat
    own = 0
    other = -(10**9)
    against = 0
    wins = False
    for s, mine in enumerate(workers):
        if not mine:
            continue
        count = mine.bit_count()
        score = t.worker * (count if count < 2 else 2)
        threats = 0
        while mine:
            low = mine & -mine
            mine ^= low
            w = low.bit_length() - 1
            nb = NEIGHBOURS[w]
            if not low & ge1:
                moves = nb & reach0
                score += h0 + centre[w] + mobility * moves.bit_count()
                if moves:
                    score += climb0 * (moves & up0).bit_count()
                else:
                    score -= stuck
            elif not low & ge2:
                moves = nb & reach1
                score += h1 + centre[w] + mobility * moves.bit_count()
                if moves:
                    score += climb1 * (moves & lvl2).bit_count()
                else:
                    score -= stuck
            else:
                moves = nb & free
                if low & ge3:
                    score += h3 + centre[w] + mobility * moves.bit_count()
                    if not moves:
                        score -= stuck
                else:
                    score += h2 + centre[w] + mobility * moves.bit_count()
                    if moves:
                        threats |= moves & top
                        score += near_threat * (nb & lvl2 & free).bit_count()
                    else:
                        score -= stuck
        if threats:
            score += t.threat_one if threats & (threats - 1) == 0 else t.threat_many
        if s == to_move_side:
            score += tempo
            wins = threats != 0
        elif threats:
            against |= threats
        if s == side:
            own = score
        elif score > other:
            other = score
    return (own - other if other > -(10**9) else own), against.bit_count(), wins


def evaluate(p: Position, side: int, weights: Weights = TUNED) -> tuple[int, int]:
    """Return the static score of ``p`` for ``side`` and the threats facing the seat to move.

    The score is the side's strength minus its opponents'; with 3 players the opponents are
    taken together (the paranoid view): minus the strongest opponent's. The second value is
    the number of squares on which an opponent of the seat to move would win by moving there
    (with its god's power); two or more usually cannot all be blocked in one turn.
    """
    t = _TUNED_TERMS if weights is TUNED else _terms(weights)
    if not any(p.gods):
        score, pressure, _ = _plain_evaluate(p, side, t)
        return score, pressure
    return _general_evaluate(p, side, t)


def _general_evaluate(p: Position, side: int, t: _Terms) -> tuple[int, int]:
    """``evaluate`` through every side's powers and limits (any position)."""
    occ = p.domes
    for m in p.workers:
        occ |= m
    to_move_side = p.side_of(p.to_move)
    own = 0
    other = -(10**9)
    against = 0
    for s in range(len(p.workers)):
        if not p.workers[s]:
            continue
        score, threats = _side_score(p, s, occ, to_move_side, t)
        if s == side:
            own = score
        else:
            other = max(other, score)
        if s != to_move_side:
            against |= threats
    pressure = against.bit_count()
    return (own - other if other > -(10**9) else own), pressure
