"""Frozen values of the engine: positions, turns, setup actions, phases and outcomes."""

from __future__ import annotations

from dataclasses import dataclass
from enum import Enum, IntEnum
from typing import Any, Final, NamedTuple, TypeAlias

from santorini_p2p.engine.frozen import quick_init
from santorini_p2p.engine.squares import BITS, SQUARE_NAMES, Square

__all__ = [
    "ARROWS",
    "BUILD_ALL",
    "DIRECTIONS",
    "DOME",
    "DRAG",
    "DROP",
    "FORCE",
    "GAIN",
    "HERO_DOME",
    "MAX_PLACED_DOME",
    "MOVE_ALL",
    "MOVE_BUILD_ALL",
    "NO_WINNER",
    "OP",
    "OP_CORNER",
    "OP_DOME",
    "OP_DROP",
    "OP_ENTER",
    "OP_NONE",
    "OP_NO_GAIN",
    "OP_PAIR",
    "OP_PLACE",
    "OP_REMOVE",
    "OP_SING",
    "OP_WIND",
    "PLACES",
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
    "Sing",
    "Turn",
    "placement_marks",
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


HERO_DOME: Final = 128
"""Added to a build square in ``Turn.builds``: a dome at any level instead of a build (``X``)."""

DIRECTIONS: Final = ("n", "ne", "e", "se", "s", "sw", "w", "nw")
"""The eight directions of RULES.md 10.1 (wind, song), in the order of their codes 0-7."""

# The operations of RULES.md 10.3 that a turn carries in ``Turn.extra``: each entry is
# ``op << 10 | value``. Their order in the tuple is the order they are written.
OP_NONE: Final = 1
"""No build at all where the turn's power allows it (RULES.md 10.3): written as nothing."""
OP_WIND: Final = 2
"""``@dir`` (value 0-7) or ``@-`` (value 8): the wind is set or taken back, last."""
OP_PLACE: Final = 3
"""``+sq`` after build number ``value >> 5`` (0-based; 7: the build before moving): a worker
from a card next to a dome."""
MAX_PLACED_DOME: Final = 31
"""The highest build number a ``+`` may follow (five bits). Past it a turn has 32 builds,
whose text is longer than any act may carry (SPEC.md 7: 64 characters)."""
OP_PAIR: Final = 4
"""``&a.b`` (value ``a * 32 + b``): a worker of the mover and an opponent worker named, last."""
OP_DROP: Final = 5
"""``%sq``: every block under the worker on ``sq`` is removed, last."""
OP_DOME: Final = 6
"""``#sq``: a dome on ``sq`` at any level, last."""
OP_REMOVE: Final = 7
"""``xsq``: the opponent worker on ``sq`` is removed, last."""
OP_SING: Final = 8
"""``S..``: the opponent worker on ``value`` is forced one square in the song's direction."""
OP_ENTER: Final = 9
"""``J``: the turn's worker is first put on its square from the mover's card."""
OP_CORNER: Final = 10
"""``O..:`` (value ``from * 32 + to``): a worker is forced into a corner first."""
OP_NO_GAIN: Final = 11
"""``+-``, last: the mover's end-of-turn gain of a worker found no free square because a
worker another seat put down at once took the last one (RULES.md 10.5). Written only then:
without it the text would read as the mover gaining on that square (SPEC.md 2.1.2)."""

ARROWS: Final = dict(
    zip(DIRECTIONS, "\u2191\u2197\u2192\u2198\u2193\u2199\u2190\u2196", strict=True)
)
"""An arrow for each direction, for a screen."""

_OP_SUFFIX: Final = {OP_DROP: "%", OP_DOME: "#", OP_REMOVE: "x"}


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


@quick_init
@dataclass(frozen=True, slots=True)
class Position:
    """A complete game state: everything the rules need, nothing else.

    Levels are bitboards: ``ge1``/``ge2``/``ge3`` hold the squares of level at least 1/2/3,
    ``domes`` the squares with a dome. ``workers`` has one bitboard per side (a seat with 2 or
    3 players, a team with 4). Seats are 0-based here and 1-based in text.

    ``offer`` is the set the challenger offers from, while it has still to offer (flag
    ``o[..]``); empty means the ten simple gods (protocol/SPEC.md 1.4).

    ``power_state`` has one entry a seat (or is empty when every entry is): a power's flag
    letters (``a``), or its state in brackets as the gods field writes it (``[2]``,
    ``[c3]``; RULES.md 10.1). Only the seat's own power reads and writes it.
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
    owed: int = 0
    """Seats that placed and still owe a setup choice (RULES.md 10.2: a song); derived."""

    @property
    def players(self) -> int:
        """The number of players, 2 to 4."""
        return len(self.gods)

    @property
    def sides(self) -> int:
        """The number of sides: the players, or two teams with 4 players."""
        return 2 if len(self.gods) == 4 else len(self.gods)

    def with_mover(self, seat: int) -> Position:
        """This position with ``seat`` to move: ``replace(self, to_move=seat)``, twice as fast.

        Reading the limits a seat not to move plays under needs it at every position scored.
        """
        return Position(
            self.ge1,
            self.ge2,
            self.ge3,
            self.domes,
            self.workers,
            seat,
            self.gods,
            self.power_state,
            self.eliminated,
            self.winner,
            self.selection,
            self.pool,
            self.naming,
            self.snake,
            self.lost,
            self.offer,
            self.owed,
        )

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
        gods = self.gods
        if self.selection or self.naming or UNDECIDED in gods:
            return Phase.GODS
        need = _placed(gods)
        # A side out of the game (never with 4 players: teams) or that lost its workers has
        # nothing more to place.
        out = self.lost if len(gods) == 4 else self.lost | self.eliminated
        for side, mask in enumerate(self.workers):
            if mask.bit_count() < (need[side] if need else 2) and not out >> side & 1:
                return Phase.PLACE
        if self.owed:
            return Phase.PLACE
        return Phase.PLAY

    def state_of(self, seat: int) -> str:
        """Return the power state of ``seat``: flag letters, or ``[STATE]`` (RULES.md 10.1)."""
        return self.power_state[seat] if self.power_state else ""

    def __str__(self) -> str:
        return format_position(self)

    def __repr__(self) -> str:
        return f"parse_position({str(self)!r})"


PLACES: dict[str, int] = {}
"""How many workers a god's side places, for each god that places other than two.

Filled once by ``engine.gods`` from its powers (``Power.placed``): the powers live above this
module, which reads the table to tell placement from play.
"""

_PLACED: dict[tuple[str, ...], tuple[int, ...] | None] = {}
_LAST_PLACED: list[Any] = [None, None]
"""The gods tuple last asked about and its answer: positions of one game share the tuple."""


def _placed(gods: tuple[str, ...]) -> tuple[int, ...] | None:
    """How many workers each side places (RULES.md 10.2); None when every side places two."""
    last = _LAST_PLACED
    if last[0] is gods:
        known: tuple[int, ...] | None = last[1]
        return known
    found = _PLACED.get(gods, ())
    if found == ():
        four = len(gods) == 4
        counts = [2] * (2 if four else len(gods))
        for s, g in enumerate(gods):
            side = s & 1 if four else s
            counts[side] = max(counts[side], PLACES.get(g, 2))
        found = _PLACED[gods] = None if all(n == 2 for n in counts) else tuple(counts)
    _LAST_PLACED[:] = (gods, found)
    return found


def _format_flags(p: Position) -> str:
    out = "".join(f for f in p.power_state if not f.startswith("["))
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
    if p.power_state:
        state = p.power_state
        gods = ",".join(
            (g or "-") + (state[i] if state[i].startswith("[") else "")
            for i, g in enumerate(p.gods)
        )
    else:
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
    extra: tuple[int, ...] = ()

    def __str__(self) -> str:
        n = SQUARE_NAMES
        if self.extra:
            return _format_extra(self)
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
            text += "^" + n[b & 31] + ("D" if b & DOME else "X" if b & HERO_DOME else "")
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

        An ``M`` turn builds nothing by its shape: whether it won, the position says; a turn
        with a power step of RULES.md 10.3 (``extra``) is never a bare winning move.
        """
        return not self.builds and self.worker != MOVE_ALL and not self.extra

    def ops(self, op: int) -> tuple[int, ...]:
        """The values of this turn's ``extra`` entries of operation ``op``, in order."""
        return tuple(e & 1023 for e in self.extra if e >> 10 == op)

    @property
    def both(self) -> bool:
        """Whether this is a turn of both workers (``H`` form)."""
        return self.worker < 0

    @property
    def build_squares(self) -> tuple[Square, ...]:
        """The squares built on, in order (without the dome marks)."""
        return tuple(b & 31 for b in self.builds)


def _format_extra(t: Turn, marks: dict[int, int] | None = None) -> str:
    """The text of a turn with section 10 operations (RULES.md 10.3).

    A ``+`` placement (``OP_PLACE``) follows the dome it answers: build number ``value >> 5``
    of ``builds``, or past them the end-of-turn domes in the order written (a section 9
    ``*`` dome, then the ``#`` domes). ``marks``, when given, receives for each dome
    number the offset in the text where its ``+`` placements go (``placement_marks``).
    """
    n = SQUARE_NAMES
    m: dict[int, int] = {} if marks is None else marks
    ops = [(e >> 10, e & 1023) for e in t.extra]
    sung = [v for o, v in ops if o == OP_SING]
    if sung:
        text = "S" + ",".join(n[v] for v in sung) + "^" + n[t.builds[0] & 31]
        m[0] = len(text)
        return text + "".join("+" + n[v & 31] for o, v in ops if o == OP_PLACE)
    places: dict[int, str] = {}
    for o, v in ops:
        if o == OP_PLACE:
            places[v >> 5] = places.get(v >> 5, "") + "+" + n[v & 31]
    text = ""
    odys = [v for o, v in ops if o == OP_CORNER]
    if odys:
        text = "O" + ",".join(n[v >> 5] + n[v & 31] for v in odys) + ":"
    if any(o == OP_ENTER for o, _ in ops):
        text += "J"
    w = t.worker
    nb = len(t.builds)
    if w == BUILD_ALL:
        text += "B"
        for i, b in enumerate(t.builds):
            text += ("," if i else "") + n[b]
            m[i] = len(text)
            text += places.get(i, "")
        return text
    if w < -1:
        # The every-worker forms of RULES.md 9 (M, T), each placement after its build.
        text += str(t._replace(extra=(), builds=()))
        for i, b in enumerate(t.builds):
            text += "^" + n[b]
            m[i] = len(text)
            text += places.get(i, "")
        return text
    if w == -1:
        text += "H" + ",".join(n[s] for s in t.path) + "^" + n[t.builds[0] & 31]
        m[0] = len(text)
        text += "".join("+" + n[v & 31] for o, v in ops if o == OP_PLACE)
    else:
        text += n[w]
        if t.before >= 0:
            text += ("~" if t.before & FORCE else "^") + n[t.before & 31]
            m[7] = len(text)
            text += "".join("+" + n[v & 31] for o, v in ops if o == OP_PLACE and v >> 5 == 7)
        for s in t.path:
            text += ">" + n[s]
        for op in t.post:
            if op < STAR * OP:
                text += _OP_MARKS[op >> 5] + n[op & 31]
        for i, b in enumerate(t.builds):
            text += "^" + n[b & 31] + ("D" if b & DOME else "") + ("X" if b & HERO_DOME else "")
            m[i] = len(text)
            text += places.get(i, "")
        if t.after >= 0:
            text += "-" + n[t.after]
    last = 0
    k = nb
    for op in t.post:
        code = op >> 5
        if code >= STAR:
            text += ("," if code == last == SWAP else _OP_MARKS[code]) + n[op & 31]
            last = code
            if code == STAR:
                m[k] = len(text)
                text += places.get(k, "")
                k += 1
    for o, v in ops:
        if o in _OP_SUFFIX:
            text += _OP_SUFFIX[o] + n[v]
            if o == OP_DOME:
                m[k] = len(text)
                text += places.get(k, "")
                k += 1
        elif o == OP_PAIR:
            text += "&" + n[v >> 5] + "." + n[v & 31]
        elif o == OP_WIND:
            text += "@" + (DIRECTIONS[v] if v < 8 else "-")
    if any(o == OP_NO_GAIN for o, _ in ops):
        text += "+-"
    return text


def placement_marks(t: Turn) -> tuple[str, dict[int, int]]:
    """The text of ``t`` and, for each dome number, the offset where its ``+`` placements go.

    The dome numbers are those of ``OP_PLACE`` (build number; 7: the build before moving;
    past the builds the end-of-turn domes). Used to cut a turn's text at a choice another
    seat makes in it (``rules.choices``).
    """
    marks: dict[int, int] = {}
    return _format_extra(t, marks), marks


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
    """A side places workers on empty squares (ascending).

    ``female`` is the square of the worker named female (RULES.md 10.2: ``*``), or -1.
    """

    squares: tuple[Square, ...]
    female: int = -1

    def __str__(self) -> str:
        return "place " + ",".join(
            SQUARE_NAMES[s] + ("*" if s == self.female else "") for s in self.squares
        )

    def __repr__(self) -> str:
        return f"parse_action({str(self)!r})"


@dataclass(frozen=True, slots=True, repr=False)
class Sing:
    """A seat fixes the direction of its song after placing (RULES.md 10.2, ``song w``)."""

    direction: int

    def __str__(self) -> str:
        return "song " + DIRECTIONS[self.direction]

    def __repr__(self) -> str:
        return f"parse_action({str(self)!r})"


Action: TypeAlias = Turn | ChooseGods | PickGod | NameStart | Place | Sing
"""Anything a seat can do on its move: a turn, or a setup action."""


@dataclass(frozen=True, slots=True)
class Outcome:
    """How a position stands: ``winner`` seat (0-based) or None, and the seats that lost."""

    over: bool
    winner: int | None
    losers: tuple[int, ...]
