"""Text formats: squares, turn text, setup actions and the position string (RULES.md section 7).

``parse_*`` checks syntax only and raises ``NotationError`` subclasses that carry the 1-based
column of the first bad character; ``format_*`` prints the canonical form. Input is
case-insensitive; output is lower case except the letters the format fixes in upper case.
"""

from __future__ import annotations

from dataclasses import replace

from santorini_p2p.engine.gods import ALL_GOD_NAMES, GOD_NAMES, GODS, power_of
from santorini_p2p.engine.order import lost_sides, most_workers, placement_due
from santorini_p2p.engine.position import (
    BUILD_ALL,
    DIRECTIONS,
    DOME,
    DRAG,
    DROP,
    FORCE,
    GAIN,
    HERO_DOME,
    MAX_PLACED_DOME,
    MOVE_ALL,
    MOVE_BUILD_ALL,
    NO_WINNER,
    OP,
    OP_CORNER,
    OP_DOME,
    OP_DROP,
    OP_ENTER,
    OP_NO_GAIN,
    OP_PAIR,
    OP_PLACE,
    OP_REMOVE,
    OP_SING,
    OP_WIND,
    PULL,
    STAR,
    SWAP,
    UNDECIDED,
    Action,
    ChooseGods,
    NameStart,
    Phase,
    PickGod,
    Place,
    Position,
    Selection,
    Sing,
    Turn,
    format_position,
)
from santorini_p2p.engine.squares import BITS, SQUARE_NAMES, Square
from santorini_p2p.errors import InvalidPositionError, InvalidTurnError, NotationError

__all__ = [
    "format_action",
    "format_position",
    "format_turn",
    "ordered_extra",
    "parse_action",
    "parse_position",
    "parse_square",
    "parse_turn",
]

_FILES = "abcde"
_RANKS = "12345"
_SIDE_LETTERS = "ABC"


def parse_square(text: str) -> Square:
    """Return the square named ``text`` (any case).

    >>> parse_square("C3")
    12

    Raises:
        NotationError: not a square name.
    """
    t = text.strip().lower()
    if len(t) != 2 or t[0] not in _FILES or t[1] not in _RANKS:
        raise NotationError("expected a square a1..e5", text, 1)
    return _FILES.index(t[0]) + 5 * _RANKS.index(t[1])


_SQUARE_OF = {name: s for s, name in enumerate(SQUARE_NAMES)}


def _plain_turn(text: str) -> Turn | None:
    """Read the commonest turn, ``w>t^b`` in lower case, by slicing; None for anything else.

    The same result as the general parser for that text, at a fraction of the cost: every
    record of a game is parsed when a replay is checked.
    """
    if len(text) == 8 and text[2] == ">" and text[5] == "^":
        get = _SQUARE_OF.get
        w, t, b = get(text[:2]), get(text[3:5]), get(text[6:])
        if w is not None and t is not None and b is not None:
            return Turn(w, (t,), (b,))
    return None


class _Cursor:
    """Reads notation left to right and reports the column of what it did not expect."""

    def __init__(self, text: str, error: type[NotationError]) -> None:
        self.text = text
        self.low = text.lower()
        self.i = 0
        self.error = error

    def fail(self, expected: str, offset: int = 0) -> NotationError:
        i = self.i + offset
        got = repr(self.text[i]) if i < len(self.text) else "end of text"
        return self.error(f"expected {expected}, got {got}", self.text, i + 1)

    def peek(self) -> str:
        return self.low[self.i] if self.i < len(self.low) else ""

    def square(self) -> Square:
        f, r = self.low[self.i : self.i + 1], self.low[self.i + 1 : self.i + 2]
        if not f or f not in _FILES:
            raise self.fail("a square (file a-e)")
        if not r or r not in _RANKS:
            raise self.fail("a rank 1-5", 1)
        self.i += 2
        return _FILES.index(f) + 5 * _RANKS.index(r)

    def expect(self, char: str, what: str) -> None:
        if self.peek() != char:
            raise self.fail(what)
        self.i += 1


MAX_STEPS = 25
"""The most moves a turn text may hold (a shortest path of extra steps is far shorter)."""
MAX_BUILDS = 40
"""The most builds a turn text may hold (a power that builds once a coin; 40 is more than a game
gives)."""
MAX_OPS = 8
"""The most operations of RULES.md 10.3 (``+``, ``#``, forces...) a turn text may hold."""


def parse_turn(text: str) -> Turn:
    """Parse turn text (syntax only) into a ``Turn`` (RULES.md sections 7 and 8).

    The H form's two squares may come in either order; the result is canonical. Builds keep the
    order typed (``rules.find_turn`` accepts any order where the order does not matter).

    >>> str(parse_turn("B2>C3^D4"))
    'b2>c3^d4'
    >>> str(parse_turn("b2~c3>c3^d4-a1"))
    'b2~c3>c3^d4-a1'

    Raises:
        InvalidTurnError: the text is not turn notation; names the column.
    """
    plain = _plain_turn(text)
    if plain is not None:
        return plain
    c = _Cursor(text.strip(), InvalidTurnError)
    if c.peek() == "s":
        sung = _siren_turn(c)
        return sung._replace(extra=ordered_extra(sung.extra))
    prefix: list[int] = []
    if c.peek() == "o":
        c.i += 1
        while True:
            if len(prefix) == MAX_OPS:
                raise c.fail("':' (no more forces allowed)")
            a = c.square()
            b = c.square()
            prefix.append(OP_CORNER << 10 | a << 5 | b)
            if c.peek() != ",":
                break
            c.i += 1
        c.expect(":", "':' after the forces, then the turn")
    if c.peek() == "j":
        c.i += 1
        prefix.append(OP_ENTER << 10)
    turn = _core_turn(c, text)
    if prefix or turn.extra:
        turn = turn._replace(extra=ordered_extra(tuple(prefix) + turn.extra))
    return turn


def ordered_extra(extra: tuple[int, ...]) -> tuple[int, ...]:
    """A turn's ``extra`` in its one order: the operations as written, then the placements.

    The ``+`` placements (RULES.md 10.3) go by the dome they answer, then their square.
    """
    places = sorted(e for e in extra if e >> 10 == OP_PLACE)
    if not places:
        return extra
    return (*(e for e in extra if e >> 10 != OP_PLACE), *places)


def _siren_turn(c: _Cursor) -> Turn:
    """``S`` forces ``,``-separated, then ``^`` the one build (RULES.md 10.3)."""
    c.i += 1
    ops: list[int] = []
    while True:
        if len(ops) == MAX_OPS:
            raise c.fail("'^' (no more forces allowed)")
        ops.append(OP_SING << 10 | c.square())
        if c.peek() != ",":
            break
        c.i += 1
    c.expect("^", "'^' and the build square")
    b = c.square()
    ops += _placements(c, 0)
    if c.peek():
        raise c.fail("end of turn")
    return Turn(-1, (), (b,), extra=tuple(ops))


def _core_turn(c: _Cursor, text: str) -> Turn:
    """A turn from its worker on: section 7's grammar, then the section-10 operations."""
    if c.peek() == "h":
        c.i += 1
        a = c.square()
        if c.peek() == "^":
            # One worker left: its final square alone.
            c.i += 1
            s = c.square()
            placed = _placements(c, 0)
            if c.peek():
                raise c.fail("end of turn")
            return Turn(-1, (a,), (s,), extra=tuple(placed))
        c.expect(",", "',' between the two final squares, or '^' and the build square")
        b = c.square()
        c.expect("^", "'^' and the build square")
        s = c.square()
        placed = _placements(c, 0)
        if c.peek():
            raise c.fail("end of turn")
        if a == b:
            raise InvalidTurnError("the two final squares must differ", text, 2)
        return Turn(-1, (min(a, b), max(a, b)), (s,), extra=tuple(placed))
    if c.peek() in ("m", "t") or (c.peek() == "b" and c.low[c.i + 1 : c.i + 2] in _FILES):
        return _parse_all(c, text)
    if not c.peek():
        raise c.fail("a turn such as b2>c3^d4")
    worker = c.square()
    before = -1
    first: tuple[int, ...] = ()
    if c.peek() in ("^", "~"):
        force = c.peek() == "~"
        c.i += 1
        before = c.square() | (FORCE if force else 0)
        first = () if force else _placements(c, 7)
        if c.peek() != ">" and (force or c.peek()):
            raise c.fail("'>' (the worker moves after its power step)")
    path: list[Square] = []
    while c.peek() == ">":
        if len(path) == MAX_STEPS:
            raise c.fail("'^' (no more moves allowed here)")
        c.i += 1
        path.append(c.square())
    if not path and before < 0:
        raise c.fail("'>' and the square the worker moves to")
    post: list[int] = []
    if path and c.peek() in _MID_OPS:
        code = _MID_OPS[c.peek()]
        c.i += 1
        post.append(code * OP + c.square())
    builds: list[int] = []
    extra: list[int] = list(first) if before >= 0 else []
    while c.peek() == "^" and path:
        if len(builds) == MAX_BUILDS:
            raise c.fail(f"end of turn (at most {MAX_BUILDS} builds)")
        c.i += 1
        builds.append(c.square())
        if c.peek() == "d":
            if len(builds) != 1 or builds[0] & DOME:
                raise c.fail("'^' or end of turn (D marks a single low dome)")
            c.i += 1
            builds[0] |= DOME
            if c.peek() == "^":
                raise c.fail("end of turn after a dome")
        elif c.peek() == "x" and c.low[c.i + 1 : c.i + 2] in ("", "^", "+", "-", "@", "&"):
            c.i += 1
            builds[-1] |= HERO_DOME
        extra.extend(_placements(c, len(builds) - 1))
    after = -1
    if c.peek() == "-" and builds:
        c.i += 1
        after = c.square()
    _gained(c, builds, after, post, extra)
    while path and c.peek() in _END_OPS and c.low[c.i : c.i + 2] != "+-":
        code = _END_OPS[c.peek()]
        c.i += 1
        if any(op >> 5 == code for op in post):
            raise c.fail(f"one {_END_NAMES[code]} a turn", -1)
        if code == SWAP:
            a = c.square()
            c.expect(",", "',' and the second square of the exchange")
            b = c.square()
            if a == b:
                raise c.fail("two different squares to exchange with", -2)
            # Ascending by name, as RULES.md section 9 writes it (=a5,e1).
            a, b = sorted((a, b), key=SQUARE_NAMES.__getitem__)
            post += [SWAP * OP + a, SWAP * OP + b]
        else:
            post.append(code * OP + c.square())
            if code == STAR:
                # Workers put next to that dome (RULES.md 10.3).
                extra += _placements(c, len(builds))
                _gained(c, builds, -1, post, extra)
    domes = len(builds) + sum(1 for op in post if op >> 5 == STAR)
    while _tail_next(c) and path:
        if len(extra) == MAX_OPS:
            raise c.fail("end of turn (no more operations allowed)")
        ch = c.peek()
        c.i += 1
        if ch == "&":
            a = c.square()
            c.expect(".", "'.' between the two named workers' squares")
            extra.append(OP_PAIR << 10 | a << 5 | c.square())
        elif ch == "@":
            if c.peek() == "-":
                c.i += 1
                extra.append(OP_WIND << 10 | 8)
            else:
                two = c.low[c.i : c.i + 2]
                d = two if two in DIRECTIONS else c.low[c.i : c.i + 1]
                if d not in DIRECTIONS:
                    raise c.fail("a direction n, ne, e, se, s, sw, w, nw or '-'")
                c.i += len(d)
                extra.append(OP_WIND << 10 | DIRECTIONS.index(d))
        else:
            extra.append(_TAILS[ch] << 10 | c.square())
            if ch == "#":
                domes += 1
                # Workers put next to that dome (RULES.md 10.3).
                extra += _placements(c, domes - 1)
    if path and c.low[c.i : c.i + 2] == "+-" and extra:
        # No worker gained: the last free square went to a worker put next to the dome.
        c.i += 2
        extra.insert(0, OP_NO_GAIN << 10)
    if c.peek():
        raise c.fail("'^', '-' or end of turn" if path else "'>'")
    return Turn(worker, tuple(path), tuple(builds), before, after, tuple(post), tuple(extra))


def _gained(c: _Cursor, builds: list[int], after: int, post: list[int], extra: list[int]) -> None:
    """Read a ``+`` that ends the text right after the last dome as a worker gained.

    RULES.md 9 writes a worker gained last (``+c2``); RULES.md 10.3 writes a worker put next
    to a dome right after that dome. A ``+`` that ends the text after the last build (or the ``*``
    dome) is read as the gain; where the position says it is a worker put next to that dome,
    ``rules.without_builds`` reads it so (``rules.as_placements``).
    """
    if c.peek() or after >= 0 or not extra:
        return
    last = extra[-1]
    dome = len(builds) - (0 if any(op >> 5 == STAR for op in post) else 1)
    placed_last = last >> 10 == OP_PLACE and (last >> 5 & 31) == dome
    if placed_last and not any(op >> 5 == GAIN for op in post):
        extra.pop()
        post.append(GAIN * OP + (last & 31))


def _placements(c: _Cursor, index: int) -> tuple[int, ...]:
    """The ``+sq`` operations right after build number ``index`` (7: the build first).

    Any build number up to ``MAX_PLACED_DOME`` may take one (SPEC.md 2.1.1).
    """
    out: list[int] = []
    while c.peek() == "+" and c.low[c.i + 1 : c.i + 2] != "-":
        if len(out) == MAX_OPS:
            raise c.fail("end of turn (no more operations allowed)")
        if index > MAX_PLACED_DOME:
            raise c.fail(f"end of turn (no '+' after build {MAX_PLACED_DOME + 1})")
        c.i += 1
        out.append(OP_PLACE << 10 | index << 5 | c.square())
    return tuple(out)


def _tail_next(c: _Cursor) -> bool:
    """Whether an end-of-turn operation starts here (``x`` only before a square)."""
    ch = c.peek()
    if not ch or ch not in _TAILS:
        return False
    nxt = c.low[c.i + 1 : c.i + 2]
    return ch != "x" or (nxt != "" and nxt in _FILES)


_TAILS = {"%": OP_DROP, "#": OP_DOME, "x": OP_REMOVE, "&": OP_PAIR, "@": OP_WIND}
"""The marks of the end-of-turn operations of RULES.md 10.3."""

_MID_OPS = {"~": DRAG, "<": PULL}
"""The power steps written between the moves and the builds (RULES.md section 9)."""
_END_OPS = {"*": STAR, "=": SWAP, "+": GAIN, "!": DROP}
"""The power steps written at the end of a turn (RULES.md section 9)."""
_END_NAMES = {STAR: "'*' dome", SWAP: "'=' exchange", GAIN: "'+' worker", DROP: "'!' removal"}


def _parse_all(c: _Cursor, text: str) -> Turn:
    """The turns of every worker (RULES.md section 9): ``Mb2>c3,d4>e4``, ``Bb3,d5``, ``T...``.

    The builds keep the order typed (canonical: ascending, unless the second ends the game);
    a ``+`` placement (RULES.md 10.3) follows the build whose dome it answers.
    """
    kind = c.peek()
    c.i += 1
    extra: list[int] = []
    if kind == "b":
        builds = [c.square()]
        extra += _placements(c, 0)
        if c.peek() == ",":
            c.i += 1
            builds.append(c.square())
            extra += _placements(c, 1)
        if c.peek():
            raise c.fail("',' and the second build, or end of turn")
        return Turn(BUILD_ALL, (), tuple(builds), extra=tuple(extra))
    path: list[Square] = []
    while True:
        path.append(c.square())
        c.expect(">", "'>' and the square the worker moves to")
        path.append(c.square())
        if c.peek() != "," or len(path) == 4:
            break
        c.i += 1
    if len(path) == 4 and path[0] == path[2]:
        raise InvalidTurnError("each worker moves once", text, 1)
    builds = []
    while kind == "t" and c.peek() == "^" and len(builds) < 2:
        c.i += 1
        builds.append(c.square())
        extra += _placements(c, len(builds) - 1)
    if c.peek():
        raise c.fail("'^' and a build, or end of turn" if kind == "t" else "end of turn")
    form = MOVE_ALL if kind == "m" else MOVE_BUILD_ALL
    return Turn(form, tuple(path), tuple(builds), extra=tuple(extra))


def format_turn(turn: Turn) -> str:
    """Return the canonical text of ``turn``."""
    return str(turn)


def parse_action(text: str) -> Action:
    """Parse any action: a turn, or a setup action.

    Setup actions are ``gods a,b``, ``god a``, ``start 2`` and ``place b2,d4`` (a bare
    ``b2,d4`` also places).

    Raises:
        InvalidTurnError: the text is not an action; names the column.
    """
    plain = _plain_turn(text)
    if plain is not None:
        return plain
    t = text.strip()
    low = t.lower()
    word, _, rest = low.partition(" ")
    arg = rest.strip()
    col = len(t) - len(rest) + (len(rest) - len(rest.lstrip())) + 1
    if word == "gods":
        names = arg.split(",")
        for n in names:
            if n not in ALL_GOD_NAMES:
                raise InvalidTurnError(
                    f"expected god names separated by ',', unknown {n!r}", text, col
                )
        if len(set(names)) != len(names):
            raise InvalidTurnError("each god may be offered once", text, col)
        return ChooseGods(tuple(sorted(names, key=ALL_GOD_NAMES.index)))
    if word == "god":
        if arg not in ALL_GOD_NAMES:
            raise InvalidTurnError(f"expected a god name, unknown {arg!r}", text, col)
        return PickGod(arg)
    if word == "start":
        if len(arg) != 1 or arg not in "1234":
            raise InvalidTurnError("expected the start seat 1-4", text, col)
        return NameStart(int(arg) - 1)
    if word == "song":
        if arg not in DIRECTIONS:
            raise InvalidTurnError(
                "expected the song's direction n, ne, e, se, s, sw, w or nw", text, col
            )
        return Sing(DIRECTIONS.index(arg))
    if word == "place" or (
        "," in low and all(part.strip().rstrip("*") in _SQUARE_OF for part in low.split(","))
    ):
        body = arg if word == "place" else t
        offset = col - 1 if word == "place" else 0
        squares: list[Square] = []
        female = -1
        for part in body.split(","):
            if part.strip().endswith("*"):
                if female >= 0:
                    raise InvalidTurnError(
                        "one worker may be named female ('*')", text, offset + len(part)
                    )
                part = part.strip()[:-1]
                female = len(squares)
            try:
                squares.append(parse_square(part))
            except NotationError:
                raise InvalidTurnError(
                    "expected squares separated by ',' such as b2,d4", text, offset + 1
                ) from None
            offset += len(part) + 1
        if len(set(squares)) != len(squares):
            raise InvalidTurnError("each square may be placed on once", text, col)
        return Place(tuple(sorted(squares)), squares[female] if female >= 0 else -1)
    return parse_turn(t)


def format_action(action: Action) -> str:
    """Return the canonical text of any action."""
    return str(action)


def _parse_board(c: _Cursor, players: int) -> tuple[list[int], int, list[int]]:
    levels = [0] * 25
    domes = 0
    sides = 2 if players == 4 else players
    workers = [0] * sides
    letters = "ab" if players == 4 else "abc"[:players]
    for r in range(4, -1, -1):
        for f in range(5):
            ch = c.peek()
            if not ch or ch not in "0123":
                raise c.fail(f"a level digit 0-3 for {_FILES[f]}{r + 1}")
            s = r * 5 + f
            levels[s] = int(ch)
            c.i += 1
            ch = c.peek()
            if ch == "x":
                domes |= BITS[s]
                c.i += 1
                if c.peek() and c.peek() in "abcd":
                    raise c.fail(f"no worker on the dome of {_FILES[f]}{r + 1}")
            elif ch.isalpha() and ch in "abcd":
                if ch not in letters:
                    raise c.fail(
                        f"a worker letter {'/'.join(letters.upper())} for {players} players"
                    )
                workers[letters.index(ch)] |= BITS[s]
                c.i += 1
        if r:
            ch = c.peek()
            if ch == "/":
                c.i += 1
            elif ch and ch in "0123":
                raise c.fail(f"'/' after the five squares of rank {r + 1}")
            else:
                raise c.fail(f"'/' after rank {r + 1}, or 'X' or a worker letter")
    if c.peek() != " ":
        ch = c.peek()
        raise c.fail("'X', a worker letter or ' '" if ch else "' ' and the seat to move")
    return levels, domes, workers


def parse_position(text: str) -> Position:
    """Parse a position string and check that it describes a possible position.

    Raises:
        InvalidPositionError: names the field, the column and what was expected.
    """
    raw = text.strip()
    fields = raw.split(" ")
    if len(fields) != 4 or not all(fields):
        raise InvalidPositionError(
            f"expected 4 fields 'board seat gods flags' separated by single spaces, "
            f"got {len([f for f in fields if f])}",
            raw,
            0,
        )
    board_t, seat_t, gods_t, flags_t = fields
    seat_col = len(board_t) + 2
    gods_col = seat_col + len(seat_t) + 1
    flags_col = gods_col + len(gods_t) + 1

    names = gods_t.lower().split(",")
    if not 2 <= len(names) <= 4:
        raise InvalidPositionError(
            f"gods: expected 2 to 4 comma-separated entries, got {len(names)}", raw, gods_col
        )
    gods: list[str] = []
    brackets: list[str] = []
    col = gods_col
    for entry in names:
        n, bracket, state = entry.partition("[")
        if bracket:
            brackets.append(_read_state(n, state, raw, col))
            entry = n + "[" + state
        else:
            brackets.append("")
        if n == "-":
            gods.append("")
        elif n == UNDECIDED or n in ALL_GOD_NAMES:
            gods.append(n)
        else:
            raise InvalidPositionError(
                f"gods: unknown god {n!r}; expected one of {', '.join(ALL_GOD_NAMES)}, '-' or '?'",
                raw,
                col,
            )
        col += len(entry) + 1
    chosen = [g for g in gods if g and g != UNDECIDED]
    if len(set(chosen)) != len(chosen):
        raise InvalidPositionError("gods: each god may appear once", raw, gods_col)
    players = len(gods)

    c = _Cursor(raw[: len(board_t) + 1], InvalidPositionError)
    c.text = raw
    levels, domes, workers = _parse_board(c, players)

    if len(seat_t) != 1 or seat_t not in "1234"[:players]:
        raise InvalidPositionError(f"seat: expected the seat to move, 1-{players}", raw, seat_col)
    to_move = int(seat_t) - 1

    flags = _parse_flags(flags_t.lower(), raw, flags_col, players)
    ge = [0, 0, 0]
    for s, lv in enumerate(levels):
        for k in range(lv):
            ge[k] |= BITS[s]
    p = Position(
        ge1=ge[0],
        ge2=ge[1],
        ge3=ge[2],
        domes=domes,
        workers=tuple(workers),
        to_move=to_move,
        gods=tuple(gods),
        power_state=_power_state(flags.powers, tuple(gods), raw, flags_col, brackets),
        eliminated=flags.eliminated,
        winner=flags.winner,
        selection=flags.selection,
        pool=flags.pool,
        naming=flags.naming,
        snake=flags.snake,
        offer=flags.offer,
    )
    lost = lost_sides(p)
    if lost:
        p = replace(p, lost=lost)
    owed = _owed(p)
    if owed:
        p = replace(p, owed=owed)
    _check(p, raw, seat_col, gods_col, flags_col)
    return p


_FLAG_GODS = {g.flag: g.name for g in GODS if g.flag}
"""The flag letter of each power that keeps a state across turns (such as ``a``)."""


def _power_state(
    letters: str, gods: tuple[str, ...], raw: str, col: int, brackets: list[str]
) -> tuple[str, ...]:
    """Give each power flag to the seat whose god writes it; add the states in brackets."""
    if not letters and not any(brackets):
        return ()
    state = [""] * len(gods)
    for ch in letters:
        god = _FLAG_GODS[ch]
        if god not in gods:
            raise InvalidPositionError(f"flags: {ch!r} needs {god} among the gods", raw, col)
        state[gods.index(god)] += ch
    for seat, b in enumerate(brackets):
        if b:
            state[seat] = "[" + b + "]"
    return tuple(state)


def _read_state(name: str, text: str, raw: str, col: int) -> str:
    """The state in ``name[text`` (``text`` keeps the closing bracket), checked by its god."""
    if name not in ALL_GOD_NAMES:
        raise InvalidPositionError(f"gods: a state in brackets needs a god, got {name!r}", raw, col)
    if not text.endswith("]") or "[" in text or "]" in text[:-1]:
        raise InvalidPositionError(f"gods: {name}'s state needs one closing ']'", raw, col)
    body = text[:-1]
    if not body:
        raise InvalidPositionError(f"gods: {name}[] is empty; write the bare entry", raw, col)
    try:
        return power_of(name).read_state(body)
    except ValueError as e:
        raise InvalidPositionError(f"gods: {name}[{body}]: {e}", raw, col) from None


class _Flags:
    def __init__(self) -> None:
        self.powers = ""
        self.eliminated = 0
        self.winner = -1
        self.selection = Selection.NONE
        self.pool: tuple[str, ...] = ()
        self.offer: tuple[str, ...] = ()
        self.naming = False
        self.snake = False


def _parse_flags(t: str, raw: str, col0: int, players: int) -> _Flags:
    out = _Flags()
    if t == "-":
        return out
    i = 0
    seen = ""

    def fail(msg: str, at: int) -> InvalidPositionError:
        return InvalidPositionError(f"flags: {msg}", raw, col0 + at)

    while i < len(t):
        ch = t[i]
        if ch in seen or (ch in "cd" and ("c" in seen or "d" in seen)):
            raise fail(f"flag {ch!r} given twice", i)
        seen += ch
        if ch in _FLAG_GODS:
            out.powers += ch
            i += 1
        elif ch == "s":
            out.snake = True
            i += 1
        elif ch == "n":
            out.naming = True
            i += 1
        elif ch in "cdo":
            if ch == "o" and (seen[-2:-1] != "c" or out.pool):
                raise fail("'o[..]' follows 'c[]' alone (the gods to offer from)", i)
            if t[i + 1 : i + 2] != "[":
                raise fail(f"'[' and the god pool after {ch!r}", i + 1)
            end = t.find("]", i)
            if end < 0:
                raise fail("']' closing the god pool", len(t))
            body = t[i + 2 : end]
            pool = tuple(body.split(".")) if body else ()
            at = i + 2
            for g in pool:
                if g not in ALL_GOD_NAMES:
                    raise fail(f"unknown god {g!r} in the pool", at)
                at += len(g) + 1
            if len(set(pool)) != len(pool):
                raise fail("each god may be in the pool once", i + 2)
            pool = tuple(sorted(pool, key=ALL_GOD_NAMES.index))
            if ch == "o":
                if pool == GOD_NAMES:
                    raise fail("'o[..]' names the ten simple gods: leave it out", i)
                if len(pool) < players:
                    raise fail(f"'o[..]' needs at least {players} gods to offer", i + 2)
                for g in pool:
                    if players not in power_of(g).players:
                        raise fail(f"{g} is not played with {players} players", i + 2)
                out.offer = pool
            else:
                out.pool = pool
                out.selection = Selection.CHALLENGER if ch == "c" else Selection.DRAFT
            i = end + 1
        elif ch == "x":
            i += 1
            start = i
            while i < len(t) and t[i].isdigit():
                seat = int(t[i])
                if not 1 <= seat <= players:
                    raise fail(f"eliminated seat must be 1-{players}", i)
                out.eliminated |= 1 << (seat - 1)
                i += 1
            if i == start:
                raise fail("the eliminated seats after 'x', such as x3", i)
        elif ch == "w":
            d = t[i + 1 : i + 2]
            if not d or d not in "01234"[: players + 1]:
                raise fail(f"the winning seat 1-{players} (or 0 for none) after 'w'", i + 1)
            out.winner = NO_WINNER if d == "0" else int(d) - 1
            i += 2
        else:
            raise fail(
                f"unknown flag {ch!r}; expected '-' or flags from a, c[..], d[..], n, s, w, x",
                i,
            )
    return out


def _owed(p: Position) -> int:
    """The seats that placed and have not yet made their setup choice (a song)."""
    owed = 0
    for seat, g in enumerate(p.gods):
        if power_of(g).sings and not p.state_of(seat) and p.workers[p.side_of(seat)]:
            owed |= 1 << seat
    return owed


def _bare(state: str) -> str:
    """The text inside a stored state's brackets ("" for a flag or no state)."""
    return state[1:-1] if state.startswith("[") else ""


def _check(p: Position, raw: str, seat_col: int, gods_col: int, flags_col: int) -> None:
    """Reject positions the rules cannot reach (protocol/SPEC.md, position string)."""

    def bad(msg: str, col: int) -> InvalidPositionError:
        return InvalidPositionError(msg, raw, col)

    letters = "AB" if p.players == 4 else _SIDE_LETTERS
    for side, mask in enumerate(p.workers):
        most = most_workers(p, side)
        if mask.bit_count() > most:
            raise bad(
                f"board: side {letters[side]} has {mask.bit_count()} workers, at most {most}", 1
            )
    for seat, g in enumerate(p.gods):
        power = power_of(g)
        if not power.stateful:
            continue
        state = _bare(p.state_of(seat))
        side = p.side_of(seat)
        for sq, own in power.state_squares(state):
            holder = p.worker_side(sq)
            if (holder == side) != own or holder < 0:
                whose = "its own" if own else "another side's"
                raise bad(
                    f"gods: {g}[{state}] names {SQUARE_NAMES[sq]}, not {whose} worker", gods_col
                )
        if power.names_female and not state and p.workers[side]:
            raise bad(f"gods: {g} writes its state in brackets once workers stand", gods_col)
    if p.eliminated:
        if p.players != 3:
            raise bad("flags: only a 3-player game eliminates seats", flags_col)
        if p.eliminated.bit_count() > 2:
            raise bad("flags: at most two seats can be eliminated", flags_col)
        for s in range(3):
            if p.eliminated >> s & 1 and p.workers[s]:
                raise bad(f"board: eliminated seat {s + 1} still has workers", 1)
        if p.eliminated >> p.to_move & 1 and p.winner < 0:
            raise bad(f"seat: seat {p.to_move + 1} is eliminated", seat_col)
    undecided = UNDECIDED in p.gods
    if p.selection and not undecided:
        raise bad("flags: god selection flag but every god is chosen", flags_col)
    if undecided and not p.selection and not p.naming:
        raise bad("gods: '?' only while gods are being chosen (flag c[..] or d[..])", gods_col)
    if (undecided or p.naming) and any(p.workers):
        raise bad("board: workers are placed only after the gods are chosen", 1)
    if p.naming and (undecided or p.selection):
        raise bad("flags: 'n' comes after every god is chosen", flags_col)
    if set(p.pool) & set(p.gods):
        raise bad("flags: a god in the pool is already taken", flags_col)
    if p.phase is Phase.GODS and p.winner < 0:
        expect = 0
        if p.selection is Selection.CHALLENGER and p.pool:
            expect = p.gods.index(UNDECIDED, 1) if UNDECIDED in p.gods[1:] else 0
        elif p.selection is Selection.DRAFT:
            expect = p.gods.index(UNDECIDED)
        if p.to_move != expect:
            raise bad(f"seat: expected {expect + 1}, whose god choice is due", seat_col)
    if p.phase is Phase.PLACE:
        due = placement_due(p)[0]
        if p.to_move != due:
            raise bad(f"seat: expected {due + 1}, whose workers are due to be placed", seat_col)
    if p.winner >= 0 and p.winner != NO_WINNER and p.eliminated >> p.winner & 1:
        raise bad("flags: the winner cannot be an eliminated seat", flags_col)
