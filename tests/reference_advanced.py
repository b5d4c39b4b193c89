"""A deliberately plain reference for all 25 gods with 2 players, written from RULES.md alone.

It shares no code with the engine's generator. A turn is simulated step by step on a dict board
(squares are (file, rank) pairs): every move, displacement, build and end-of-turn power is done
in order and every option is tried, so the result is the set of OUTCOMES of the complete legal
turns of the seat to move, reduced as the public outcome checker reduces them:

- a winner: ("W", winning seat, levels with a dome as 4, low domes when Chronus plays, the
  winner's worker squares);
- no winner: ("N", levels, low domes when Chronus plays, seat 1's worker squares, seat 2's
  worker squares, the seat to move next, Athena's flag when the mover is Athena).

Seats are 0-based and squares are indices (``a1 = 0``) in the keys. A plain outcome after which
the next side has no complete turn is also returned in a second set: that side loses, and an
engine may report it as a win for the mover instead.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator
from dataclasses import dataclass, field

from tests.reference_rules import Board, around, from_position_string, index

Sq = tuple[int, int]
Key = tuple[object, ...]


def on_board(sq: Sq) -> bool:
    return 0 <= sq[0] < 5 and 0 <= sq[1] < 5


def perimeter(sq: Sq) -> bool:
    return sq[0] in (0, 4) or sq[1] in (0, 4)


def beyond(frm: Sq, to: Sq) -> Sq:
    """The next square straight on from ``to``, in the direction frm -> to."""
    return (2 * to[0] - frm[0], 2 * to[1] - frm[1])


def next_to(a: Sq, b: Sq) -> bool:
    return a != b and abs(a[0] - b[0]) <= 1 and abs(a[1] - b[1]) <= 1


def copy(b: Board) -> Board:
    return Board(dict(b.level), set(b.dome), dict(b.worker))


def towers(b: Board) -> int:
    """Complete towers: domes on level 3."""
    return sum(1 for sq in b.dome if b.level[sq] == 3)


@dataclass
class Result:
    """The board after one complete turn, who won, and what Athena and Persephone look at."""

    board: Board
    winner: int | None
    moved_up: bool = False


@dataclass
class Turn:
    """Everything fixed at the start of a turn (RULES.md 8: recomputed every turn)."""

    board: Board
    me: int
    gods: list[str]
    athena_flag: bool
    god: str = ""
    foe: str = ""
    restricted: bool = False
    frozen: Sq | None = None
    bound: set[Sq] = field(default_factory=set)

    def __post_init__(self) -> None:
        self.god = self.gods[self.me]
        self.foe = self.gods[1 - self.me]
        self.restricted = self.foe == "athena" and self.athena_flag
        mine = self.mine(self.board)
        if self.foe == "hypnus" and len(mine) >= 2:
            top = max(self.board.level[w] for w in mine)
            highest = [w for w in mine if self.board.level[w] == top]
            if len(highest) == 1:
                self.frozen = highest[0]
        if self.foe == "aphrodite":
            hers = self.theirs(self.board)
            self.bound = {w for w in mine if any(next_to(w, a) for a in hers)}

    def mine(self, b: Board) -> list[Sq]:
        return sorted((sq for sq, s in b.worker.items() if s == self.me), key=index)

    def theirs(self, b: Board) -> list[Sq]:
        return sorted((sq for sq, s in b.worker.items() if s != self.me), key=index)

    # -- moves -------------------------------------------------------------------------------

    def steps(
        self, b: Board, frm: Sq, *, powers: bool, no_up: bool = False
    ) -> Iterator[tuple[Sq, Board, bool, list[Sq]]]:
        """Every single move of the worker on ``frm``: (to, board after, went up, killed)."""
        for to in around(frm):
            if to in b.dome:
                continue
            rise = b.level[to] - b.level[frm]
            if rise > 1 or (rise > 0 and (self.restricted or no_up)):
                continue
            nb = copy(b)
            side = nb.worker.pop(frm)
            occupant = nb.worker.get(to)
            if occupant is not None:
                if occupant == self.me or not powers or self.god not in ("apollo", "minotaur"):
                    continue
                del nb.worker[to]
                if self.god == "minotaur":
                    push = beyond(frm, to)
                    if not on_board(push) or not nb.free(push):
                        continue
                    nb.worker[push] = occupant
                else:
                    nb.worker[frm] = occupant  # Apollo's swap
            nb.worker[to] = side
            killed: list[Sq] = []
            if self.god == "bia":
                victim = beyond(frm, to)
                if on_board(victim) and nb.worker.get(victim) == 1 - self.me:
                    del nb.worker[victim]
                    killed.append(victim)
            yield to, nb, rise > 0, killed

    def move_wins(self, b: Board, frm: Sq, to: Sq) -> bool:
        """Does the mover's own move frm -> to win (``b`` is the board after the move)?"""
        win = b.level[frm] < 3 and b.level[to] == 3
        if self.god == "pan" and b.level[frm] - b.level[to] >= 2:
            win = True
        if self.god == "eros" and b.level[to] == 1:
            others = [w for w in self.mine(b) if w != to]
            if any(b.level[w] == 1 and next_to(w, to) for w in others):
                win = True
        if win and self.foe == "hera" and perimeter(to):
            return False
        return win

    def free_of_aphrodite(self, start: Sq, b: Board, final: Sq, killed: list[Sq]) -> bool:
        """A bound worker's last move must end next to one of Aphrodite's workers."""
        if start not in self.bound:
            return True
        hers = self.theirs(b) + killed
        return any(next_to(final, a) for a in hers)

    # -- builds ------------------------------------------------------------------------------

    def may_build(self, b: Board, sq: Sq, *, dome: bool) -> bool:
        """Limus: no build next to his workers, unless it is the dome completing a tower."""
        if self.foe != "limus":
            return True
        if dome and b.level[sq] == 3:
            return True
        return not any(next_to(sq, w) for w in self.theirs(b))

    def ordinary_builds(
        self, b: Board, at: Sq, *, atlas: bool = False
    ) -> Iterator[tuple[Sq, Board]]:
        """Every ordinary build next to ``at`` (Atlas may dome low): (square, board after)."""
        for sq in around(at):
            if not b.free(sq):
                continue
            if self.may_build(b, sq, dome=b.level[sq] == 3):
                nb = copy(b)
                if nb.level[sq] == 3:
                    nb.dome.add(sq)
                else:
                    nb.level[sq] += 1
                yield sq, nb
            if atlas and b.level[sq] < 3 and self.may_build(b, sq, dome=True):
                nb = copy(b)
                nb.dome.add(sq)
                yield sq, nb

    def chronus_wins(self, b: Board) -> int | None:
        if "chronus" in self.gods and towers(b) >= 5:
            return self.gods.index("chronus")
        return None

    def then(
        self, b: Board, rest: Callable[[Board], Iterator[Result]], up: bool
    ) -> Iterator[Result]:
        """After a single build: Chronus may end the game at once, else the turn goes on."""
        w = self.chronus_wins(b)
        if w is not None:
            yield Result(b, w, up)
        else:
            yield from rest(b)

    def build_phase(self, b: Board, at: Sq, unmoved: Sq | None, up: bool) -> Iterator[Result]:
        """The moved worker on ``at`` builds, then the mover's end-of-turn powers."""
        god = self.god

        def end(nb: Board) -> Iterator[Result]:
            yield from self.end_of_turn(nb, unmoved, up)

        for sq, nb in self.ordinary_builds(b, at, atlas=god == "atlas"):
            if god == "demeter":

                def demeter(nb1: Board, first: Sq = sq) -> Iterator[Result]:
                    yield from end(nb1)
                    for sq2, nb2 in self.ordinary_builds(nb1, at):
                        if sq2 != first:
                            yield from self.then(nb2, end, up)

                yield from self.then(nb, demeter, up)
            elif god == "hephaestus":

                def hephaestus(
                    nb1: Board, first: Sq = sq, was: int = b.level[sq]
                ) -> Iterator[Result]:
                    yield from end(nb1)
                    if (
                        was <= 1
                        and first not in nb1.dome
                        and self.may_build(nb1, first, dome=False)
                    ):
                        nb2 = copy(nb1)
                        nb2.level[first] += 1
                        yield from self.then(nb2, end, up)

                yield from self.then(nb, hephaestus, up)
            elif god == "hestia":

                def hestia(nb1: Board) -> Iterator[Result]:
                    yield from end(nb1)
                    for sq2, nb2 in self.ordinary_builds(nb1, at):
                        if not perimeter(sq2):
                            yield from self.then(nb2, end, up)

                yield from self.then(nb, hestia, up)
            else:
                yield from self.then(nb, end, up)
        if god == "zeus" and b.level[at] < 3 and self.may_build(b, at, dome=False):
            nb = copy(b)
            nb.level[at] += 1
            yield from self.then(nb, end, up)

    def end_of_turn(self, b: Board, unmoved: Sq | None, up: bool) -> Iterator[Result]:
        """Poseidon's extra builds, Ares's removal, Medusa's petrification; then the result."""
        god = self.god
        if god == "poseidon" and unmoved is not None and b.level[unmoved] == 0:
            yield from self.poseidon(b, unmoved, 3, up)
            return
        if god == "ares" and unmoved is not None:
            yield Result(b, None, up)
            for sq in around(unmoved):
                if sq in b.dome or sq in b.worker or b.level[sq] == 0:
                    continue
                nb = copy(b)
                nb.level[sq] -= 1
                yield Result(nb, None, up)
            return
        if god == "medusa":
            yield self.petrify(b, up)
            return
        yield Result(b, None, up)

    def poseidon(
        self, b: Board, unmoved: Sq, left: int, up: bool, seen: set[Key] | None = None
    ) -> Iterator[Result]:
        """Up to ``left`` more builds by the unmoved worker (boards already tried are skipped)."""
        seen = set() if seen is None else seen
        key = (levels(b), left)
        if key in seen:
            return
        seen.add(key)
        yield Result(b, None, up)
        if left == 0:
            return
        for _, nb in self.ordinary_builds(b, unmoved):
            yield from self.then(
                nb, lambda nb2: self.poseidon(nb2, unmoved, left - 1, up, seen), up
            )

    def petrify(self, b: Board, up: bool) -> Result:
        mine = self.mine(b)
        theirs = self.theirs(b)
        victims = [
            v for v in theirs if any(next_to(v, m) and b.level[v] < b.level[m] for m in mine)
        ]
        nb = copy(b)
        for v in victims:
            if self.foe == "limus" and any(next_to(v, w) for w in theirs):
                continue  # a block next to a Limus worker is not allowed: that victim stays
            del nb.worker[v]
            nb.level[v] += 1
        w = self.chronus_wins(nb)
        return Result(nb, w, up)

    # -- whole turns -------------------------------------------------------------------------

    def after_moves(
        self, b: Board, start: Sq, at: Sq, up: bool, unmoved: Sq | None, killed: list[Sq]
    ) -> Iterator[Result]:
        """The worker that started on ``start`` ended its moves on ``at`` without winning."""
        if self.free_of_aphrodite(start, b, at, killed):
            yield from self.build_phase(b, at, unmoved, up)

    def won(self, b: Board, start: Sq, at: Sq, up: bool, killed: list[Sq]) -> Iterator[Result]:
        if self.free_of_aphrodite(start, b, at, killed):
            yield Result(b, self.me, up)

    def worker_turns(self, b: Board, w: Sq, unmoved: Sq | None) -> Iterator[Result]:
        """Every complete turn in which the worker on ``w`` moves."""
        god = self.god
        starts: list[tuple[Board, bool]] = [(b, False)]
        if god == "charon":
            for t in around(w):
                if b.worker.get(t) == 1 - self.me:
                    dest = beyond(t, w)
                    if on_board(dest) and b.free(dest):
                        nb = copy(b)
                        nb.worker[dest] = nb.worker.pop(t)
                        starts.append((nb, False))
        if god == "prometheus":
            for _, nb in self.ordinary_builds(b, w):
                w_ = self.chronus_wins(nb)
                if w_ is not None:
                    yield Result(nb, w_, False)
                else:
                    starts.append((nb, True))
        for b0, no_up in starts:
            for to, b1, up, killed in self.steps(b0, w, powers=True, no_up=no_up):
                if self.move_wins(b1, w, to):
                    yield from self.won(b1, w, to, up, killed)
                    continue
                yield from self.after_moves(b1, w, to, up, unmoved, killed)
                if god == "artemis":
                    for to2, b2, up2, _ in self.steps(b1, to, powers=False):
                        if to2 == w:
                            continue
                        if self.move_wins(b2, to, to2):
                            yield from self.won(b2, w, to2, up or up2, [])
                        else:
                            yield from self.after_moves(b2, w, to2, up or up2, unmoved, [])
                if god == "triton" and perimeter(to):
                    yield from self.triton(b1, w, to, up, unmoved)

    def triton(self, b: Board, w: Sq, at: Sq, up: bool, unmoved: Sq | None) -> Iterator[Result]:
        """Triton moves on from the perimeter square ``at`` (revisits allowed)."""
        seen = {(at, up)}
        todo = [(b, at, up)]
        while todo:
            b1, sq, up1 = todo.pop()
            for to, b2, rise, _ in self.steps(b1, sq, powers=False):
                up2 = up1 or rise
                if self.move_wins(b2, sq, to):
                    yield from self.won(b2, w, to, up2, [])
                    continue
                if (to, up2) in seen:
                    continue
                seen.add((to, up2))
                yield from self.after_moves(b2, w, to, up2, unmoved, [])
                if perimeter(to):
                    todo.append((b2, to, up2))

    def hermes_turns(self) -> Iterator[Result]:
        """Hermes's power turn: level steps by each worker, any number, then one build."""
        b = self.board
        mine = self.mine(b)
        start = tuple(mine)
        seen = {start}
        todo = [start]
        while todo:
            config = todo.pop()
            for i, sq in enumerate(config):
                if start[i] == self.frozen:
                    continue
                for to in around(sq):
                    if to in config or to in b.dome or b.level[to] != b.level[sq]:
                        continue
                    if to in b.worker and to not in start:
                        continue  # an opponent's worker
                    nxt = (*config[:i], to, *config[i + 1 :])
                    if nxt not in seen:
                        seen.add(nxt)
                        todo.append(nxt)
        for config in seen:
            nb = copy(b)
            for sq in start:
                del nb.worker[sq]
            for sq in config:
                nb.worker[sq] = self.me
            if not all(
                self.free_of_aphrodite(s, nb, f, []) for s, f in zip(start, config, strict=True)
            ):
                continue
            for sq in config:
                for _, nb2 in self.ordinary_builds(nb, sq):
                    yield from self.then(nb2, lambda x: iter([Result(x, None, False)]), False)

    def raw(self) -> Iterator[Result]:
        """Every complete turn, before Persephone's filter."""
        mine = self.mine(self.board)
        for w in mine:
            if w == self.frozen:
                continue
            others = [o for o in mine if o != w]
            yield from self.worker_turns(self.board, w, others[0] if others else None)
        if self.god == "hermes":
            yield from self.hermes_turns()

    def results(self) -> list[Result]:
        out = list(self.raw())
        if self.foe == "persephone":
            up = [r for r in out if r.moved_up]
            if up:
                out = up
        return out


def has_turn(b: Board, seat: int, gods: list[str], athena_flag: bool) -> bool:
    """Does ``seat`` have a complete turn (Persephone's filter never empties a non-empty list)?"""
    if not any(s == seat for s in b.worker.values()):
        return False
    return next(Turn(b, seat, gods, athena_flag).raw(), None) is not None


def levels(b: Board) -> tuple[int, ...]:
    out = [0] * 25
    for sq, lv in b.level.items():
        out[index(sq)] = 4 if sq in b.dome else lv
    return tuple(out)


def low_domes(b: Board, gods: list[str]) -> tuple[tuple[int, int], ...]:
    if "chronus" not in gods:
        return ()
    return tuple(sorted((index(sq), b.level[sq]) for sq in b.dome if b.level[sq] < 3))


def squares_of(b: Board, side: int) -> tuple[int, ...]:
    return tuple(sorted(index(sq) for sq, s in b.worker.items() if s == side))


def reference_outcomes(text: str) -> tuple[set[Key], set[Key]]:
    """(outcomes of every complete turn of the seat to move, those leaving the next side stuck)."""
    board, seat, gods, athena_flag = from_position_string(text)
    if len(gods) != 2:
        raise ValueError(f"two players only: {text}")
    turn = Turn(board, seat, gods, athena_flag)
    out: set[Key] = set()
    stuck: set[Key] = set()
    for r in turn.results():
        lv, low = levels(r.board), low_domes(r.board, gods)
        if r.winner is not None:
            out.add(("W", r.winner, lv, low, squares_of(r.board, r.winner)))
            continue
        athena = r.moved_up if gods[seat] == "athena" else False
        key = ("N", lv, low, squares_of(r.board, 0), squares_of(r.board, 1), 1 - seat, athena)
        out.add(key)
        if key not in stuck and not has_turn(r.board, 1 - seat, gods, athena):
            stuck.add(key)
    return out, stuck


def outcome_key(text: str, winner: int | None, mover: int, stuck: set[Key]) -> Key:
    """An engine's result position (and winner) reduced like the reference's outcomes."""
    board, seat, gods, flag = from_position_string(text)
    lv, low = levels(board), low_domes(board, gods)
    athena = flag if gods[mover] == "athena" else False
    plain = ("N", lv, low, squares_of(board, 0), squares_of(board, 1), seat, athena)
    if winner is None:
        return plain
    as_plain = ("N", lv, low, squares_of(board, 0), squares_of(board, 1), 1 - mover, athena)
    if winner == mover and as_plain in stuck:
        return as_plain  # a win by leaving the next side without a turn
    return ("W", winner, lv, low, squares_of(board, winner))
