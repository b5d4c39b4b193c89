"""Frozen values of the engine: positions, turns, setup actions, phases and outcomes."""

from __future__ import annotations

from dataclasses import dataclass
from enum import Enum, IntEnum
from typing import Any, Final, NamedTuple, TypeAlias

from santorini_p2p.engine.squares import BITS, SQUARE_NAMES, Square

__all__ = [
    "BUILD_ALL",
    "DOME",
    "DRAG",
    "DROP",
    "FORCE",
    "GAIN",
    "MOVE_ALL",
    "MOVE_BUILD_ALL",
    "NO_WINNER",
    "OP",
    "PULL",
    "STAR",
    "SWAP",
    "UNDECIDED",
    "Action",
    "ChooseGods",
    "NameStart",
    "Outcome",
    "Phase",
    "PickGod",
    "Place",
    "Position",
    "Selection",
    "Turn",
]

UNDECIDED: Final = "?"
"""The god entry of a seat that has not chosen yet."""
NO_WINNER: Final = 9
"""``Position.winner`` of a game that ended with no winner (a 3-player game abandoned in setup)."""
DOME: Final = 32
"""Added to a build square in ``Turn.builds``: a dome below level 3 (written ``D``)."""
FORCE: Final = 64
"""Added to ``Turn.before``: the power step forces the worker on that square (written ``~``)."""

MOVE_ALL: Final = -2
"""``Turn.worker`` of a turn that moves each worker once and builds nothing (``M`` form)."""
BUILD_ALL: Final = -3
"""``Turn.worker`` of a turn that moves nobody and builds once with each worker (``B`` form)."""
MOVE_BUILD_ALL: Final = -4
"""``Turn.worker`` of a turn that moves each worker once, then builds with each (``T`` form)."""

OP: Final = 32
"""``Turn.post`` holds ``code * OP + square``: the power steps of RULES.md section 9."""
DRAG: Final = 1
"""After the move, the opponent worker on the square is forced into the square left (``~``)."""
PULL: Final = 2
"""After the move, the mover's other worker on the square is forced into the square left (``<``)."""
STAR: Final = 3
"""At the end of the turn, a dome on the square, at any level (``*``)."""
SWAP: Final = 4
"""At the end of the turn, the mover's workers exchange squares with the opponent's named
workers (``=``, one op a square)."""
GAIN: Final = 5
"""At the end of the turn, the mover gains a worker on the square (``+``)."""
DROP: Final = 6
"""At the end of the turn, the mover's worker on the square is removed (``!``)."""

_OP_MARKS: Final = {DRAG: "~", PULL: "<", STAR: "*", SWAP: "=", GAIN: "+", DROP: "!"}


class Phase(Enum):
    """Where a game stands; derived from a position, never stored."""

    GODS = "gods"
    PLACE = "place"
    PLAY = "play"
    OVER = "over"


class Selection(IntEnum):
    """The god selection still under way (RULES.md section 3); values are pinned by the hash."""

    NONE = 0
    CHALLENGER = 1
    DRAFT = 2


@dataclass(frozen=True, slots=True)
class Position:
    """A complete game state: everything the rules need, nothing else.

    Levels are bitboards: ``ge1``/``ge2``/``ge3`` hold the squares of level at least 1/2/3,
    ``domes`` the squares with a dome. ``workers`` has one bitboard per side (a seat with 2 or
    3 players, a team with 4). Seats are 0-based here and 1-based in text.

    ``offer`` is the set the challenger offers from, while it has still to offer (flag
    ``o[..]``); empty means the ten simple gods (protocol/SPEC.md 1.4).
    """

    ge1: int = 0
    ge2: int = 0
    ge3: int = 0
    domes: int = 0
    workers: tuple[int, ...] = (0, 0)
    to_move: int = 0
    gods: tuple[str, ...] = ("", "")
    power_state: tuple[str, ...] = ()
    eliminated: int = 0
    winner: int = -1
    selection: Selection = Selection.NONE
    pool: tuple[str, ...] = ()
    naming: bool = False
    snake: bool = False
    lost: int = 0
    offer: tuple[str, ...] = ()

    @property
    def players(self) -> int:
        """The number of players, 2 to 4."""
        return len(self.gods)

    @property
    def sides(self) -> int:
        """The number of sides: the players, or two teams with 4 players."""
        return 2 if len(self.gods) == 4 else len(self.gods)

    def side_of(self, seat: int) -> int:
        """Return the side (team with 4 players) that ``seat`` plays."""
        return seat & 1 if len(self.gods) == 4 else seat

    def level(self, s: Square) -> int:
        """Return the level (0-3) of square ``s``."""
        return (self.ge1 >> s & 1) + (self.ge2 >> s & 1) + (self.ge3 >> s & 1)

    def has_dome(self, s: Square) -> bool:
        """Return whether square ``s`` carries a dome."""
        return bool(self.domes >> s & 1)

    def worker_side(self, s: Square) -> int:
        """Return the side whose worker stands on ``s``, or -1."""
        b = BITS[s]
        for i, m in enumerate(self.workers):
            if m & b:
                return i
        return -1

    @property
    def phase(self) -> Phase:
        """The phase this position is in."""
        if self.winner >= 0:
            return Phase.OVER
        if self.selection or self.naming or UNDECIDED in self.gods:
            return Phase.GODS
        need = _placed(self.gods)
        for side, mask in enumerate(self.workers):
            if (
                mask.bit_count() < (need[side] if need else 2)
                and not self._side_out(side)
                and not self.lost >> side & 1
            ):
                return Phase.PLACE
        return Phase.PLAY

    def state_of(self, seat: int) -> str:
        """Return the power state (flag letters) of ``seat``."""
        return self.power_state[seat] if self.power_state else ""

    def _side_out(self, side: int) -> bool:
        if len(self.gods) == 4:
            return False
        return bool(self.eliminated >> side & 1)

    def __str__(self) -> str:
        return format_position(self)

    def __repr__(self) -> str:
        return f"parse_position({str(self)!r})"


_PLACED: dict[tuple[str, ...], tuple[int, ...] | None] = {}
_LAST_PLACED: list[Any] = [None, None]
"""The gods tuple last asked about and its answer: positions of one game share the tuple."""


def _placed(gods: tuple[str, ...]) -> tuple[int, ...] | None:
    """How many workers each side places (RULES.md 10.2); None when every side places two.

    Cached by the gods: the powers say it, and they live above this module.
    """
    last = _LAST_PLACED
    if last[0] is gods:
        known: tuple[int, ...] | None = last[1]
        return known
    try:
        found = _PLACED[gods]
        _LAST_PLACED[:] = (gods, found)
        return found
    except KeyError:
        from santorini_p2p.engine.order import placement_counts

        counts = placement_counts(gods)
        found = _PLACED[gods] = None if all(n == 2 for n in counts) else counts
        return found


def _format_flags(p: Position) -> str:
    out = "".join(p.power_state)
    if p.selection is Selection.CHALLENGER:
        out += "c[" + ".".join(p.pool) + "]"
        if p.offer:
            out += "o[" + ".".join(p.offer) + "]"
    elif p.selection is Selection.DRAFT:
        out += "d[" + ".".join(p.pool) + "]"
    if p.naming:
        out += "n"
    if p.snake:
        out += "s"
    if p.winner >= 0:
        out += "w" + ("0" if p.winner == NO_WINNER else str(p.winner + 1))
    if p.eliminated:
        out += "x" + "".join(str(s + 1) for s in range(len(p.gods)) if p.eliminated >> s & 1)
    return out or "-"


def format_position(p: Position) -> str:
    """Return the position string ``board seat gods flags`` (RULES.md section 7).

    A dome keeps the level beneath it (``0X``..``3X``); the power states come first among
    the flags, in seat order.
    """
    ranks = []
    letters = "AB" if len(p.gods) == 4 else "ABC"
    for r in range(4, -1, -1):
        row = ""
        for f in range(5):
            s = r * 5 + f
            row += str(p.level(s))
            if p.domes >> s & 1:
                row += "X"
            else:
                for side, mask in enumerate(p.workers):
                    if mask & BITS[s]:
                        row += letters[side]
                        break
        ranks.append(row)
    gods = ",".join(g or "-" for g in p.gods)
    return f"{'/'.join(ranks)} {p.to_move + 1} {gods} {_format_flags(p)}"


class Turn(NamedTuple):
    """One complete turn of play, as the grammar of RULES.md sections 7 and 8 writes it.

    ``worker`` is the selected worker's square, ``before`` a power step before it moves (a
    build first, or with ``FORCE`` added a worker forced: ``^``/``~``; -1 for none), ``path``
    the squares it moves to in order, ``builds`` the builds in order (``DOME`` added for a
    dome below level 3), and ``after`` a block removed at the end (``-``; -1 for none). A
    turn of both workers (the H form) has ``worker`` -1 and ``path`` their two final
    squares in ascending order (one square when one worker is left). Which worker makes a
    build is the power's rule, not a field.

    The turns of RULES.md section 9: ``post`` holds the power steps after the move (``OP``
    codes: a drag or pull, written before the builds; a dome, an exchange, a worker gained or
    removed, written last); ``worker`` ``MOVE_ALL``/``MOVE_BUILD_ALL`` with ``path`` holding
    each moving worker's from and to squares in the order played (``M``/``T``), and
    ``BUILD_ALL`` with only ``builds`` (``B``). Each step's square is where the worker came
    to rest (after an opponent's slide).

    An immutable named tuple rather than a frozen dataclass: search creates millions of turns,
    and a tuple is built three times faster (benchmarks/engine.py).
    """

    worker: Square
    path: tuple[Square, ...]
    builds: tuple[int, ...] = ()
    before: int = -1
    after: int = -1
    post: tuple[int, ...] = ()

    def __str__(self) -> str:
        n = SQUARE_NAMES
        w = self.worker
        if w < 0:
            if w == -1:
                return "H" + ",".join(n[s] for s in self.path) + "^" + n[self.builds[0] & 31]
            if w == BUILD_ALL:
                return "B" + ",".join(n[b] for b in self.builds)
            path = self.path
            text = ("M" if w == MOVE_ALL else "T") + ",".join(
                n[path[i]] + ">" + n[path[i + 1]] for i in range(0, len(path), 2)
            )
            for b in self.builds:
                text += "^" + n[b]
            return text
        text = n[w]
        if self.before >= 0:
            text += ("~" if self.before & FORCE else "^") + n[self.before & 31]
        for s in self.path:
            text += ">" + n[s]
        post = self.post
        for op in post:
            if op < STAR * OP:
                text += _OP_MARKS[op >> 5] + n[op & 31]
        for b in self.builds:
            text += "^" + n[b & 31] + ("D" if b & DOME else "")
        if self.after >= 0:
            text += "-" + n[self.after]
        last = 0
        for op in post:
            code = op >> 5
            if code >= STAR:
                text += ("," if code == last == SWAP else _OP_MARKS[code]) + n[op & 31]
                last = code
        return text

    def __repr__(self) -> str:
        return f"parse_turn({str(self)!r})"

    @property
    def is_win(self) -> bool:
        """Whether this turn wins by moving (a complete turn with no build is a win).

        An ``M`` turn builds nothing by its shape: whether it won, the position says.
        """
        return not self.builds and self.worker != MOVE_ALL

    @property
    def both(self) -> bool:
        """Whether this is a turn of both workers (``H`` form)."""
        return self.worker < 0

    @property
    def build_squares(self) -> tuple[Square, ...]:
        """The squares built on, in order (without the dome marks)."""
        return tuple(b & 31 for b in self.builds)


@dataclass(frozen=True, slots=True, repr=False)
class ChooseGods:
    """The challenger offers one god per player (RULES.md section 3, challenger)."""

    gods: tuple[str, ...]

    def __str__(self) -> str:
        return "gods " + ",".join(self.gods)

    def __repr__(self) -> str:
        return f"parse_action({str(self)!r})"


@dataclass(frozen=True, slots=True, repr=False)
class PickGod:
    """A player takes one god from the offered or drafted pool."""

    god: str

    def __str__(self) -> str:
        return "god " + self.god

    def __repr__(self) -> str:
        return f"parse_action({str(self)!r})"


@dataclass(frozen=True, slots=True, repr=False)
class NameStart:
    """The challenger names the start player (``seat`` 0-based, 1-based in text)."""

    seat: int

    def __str__(self) -> str:
        return f"start {self.seat + 1}"

    def __repr__(self) -> str:
        return f"parse_action({str(self)!r})"


@dataclass(frozen=True, slots=True, repr=False)
class Place:
    """A side places workers on empty squares (ascending)."""

    squares: tuple[Square, ...]

    def __str__(self) -> str:
        return "place " + ",".join(SQUARE_NAMES[s] for s in self.squares)

    def __repr__(self) -> str:
        return f"parse_action({str(self)!r})"


Action: TypeAlias = Turn | ChooseGods | PickGod | NameStart | Place
"""Anything a seat can do on its move: a turn, or a setup action."""


@dataclass(frozen=True, slots=True)
class Outcome:
    """How a position stands: ``winner`` seat (0-based) or None, and the seats that lost."""

    over: bool
    winner: int | None
    losers: tuple[int, ...]
