"""A plain reference for the fourteen gods of RULES.md section 9 with 2 players, from its text.

It extends tests/reference_advanced.py (which knows the 25 gods of sections 6 and 8) and shares
no code with the engine. A turn is simulated step by step on a dict board; every option is
tried; the result is the set of outcomes, reduced as the public outcome checker reduces them.
"""

from __future__ import annotations

from collections.abc import Iterator
from itertools import combinations, permutations

from tests.reference_advanced import (
    Key,
    Result,
    Sq,
    Turn,
    copy,
    levels,
    low_domes,
    next_to,
    on_board,
    perimeter,
    squares_of,
)
from tests.reference_rules import Board, around, from_position_string, index


def wrapped(sq: Sq) -> list[Sq]:
    """Urania's eight neighbours: opposite edges and corners meet."""
    return [
        ((sq[0] + dx) % 5, (sq[1] + dy) % 5) for dx in (-1, 0, 1) for dy in (-1, 0, 1) if dx or dy
    ]


def direction(frm: Sq, to: Sq) -> tuple[int, int]:
    """The direction of a step as played: a wrapped step goes the short way, a jump halves."""

    def one(d: int) -> int:
        if d in (4, -4):
            return -1 if d > 0 else 1
        return (d > 0) - (d < 0)

    return one(to[0] - frm[0]), one(to[1] - frm[1])


class Turn9(Turn):
    """The turn of the seat to move, with the powers of section 9 besides sections 6 and 8."""

    def __post_init__(self) -> None:
        super().__post_init__()
        self.at: Sq = (0, 0)
        self.down = False

    # -- moves -------------------------------------------------------------------------------

    def near(self, sq: Sq) -> list[Sq]:
        return wrapped(sq) if self.god == "urania" else around(sq)

    def steps(
        self, b: Board, frm: Sq, *, powers: bool, no_up: bool = False
    ) -> Iterator[tuple[Sq, Board, bool, list[Sq]]]:
        targets = list(self.near(frm))
        if self.god == "iris":
            for over in around(frm):
                if over in b.worker:
                    land = (2 * over[0] - frm[0], 2 * over[1] - frm[1])
                    if on_board(land) and b.free(land):
                        targets.append(land)
        for to in targets:
            if to in b.dome:
                continue
            rise = b.level[to] - b.level[frm]
            jump = not next_to(frm, to) and to not in wrapped(frm)
            if rise > 1 and not (self.god == "pegasus" or jump):
                continue
            if rise > 0 and (self.restricted or no_up):
                continue
            if rise < 0 and self.foe == "hades":
                continue
            nb = copy(b)
            side = nb.worker.pop(frm)
            occupant = nb.worker.get(to)
            if occupant is not None:
                if jump or occupant == self.me or not powers:
                    continue
                if self.god not in ("apollo", "minotaur"):
                    continue
                del nb.worker[to]
                if self.god == "minotaur":
                    push = (2 * to[0] - frm[0], 2 * to[1] - frm[1])
                    if not on_board(push) or not nb.free(push):
                        continue
                    nb.worker[push] = occupant
                else:
                    nb.worker[frm] = occupant
            nb.worker[to] = side
            killed: list[Sq] = []
            if self.god == "bia":
                victim = (2 * to[0] - frm[0], 2 * to[1] - frm[1])
                if on_board(victim) and nb.worker.get(victim) == 1 - self.me:
                    del nb.worker[victim]
                    killed.append(victim)
            yield to, nb, rise > 0, killed

    def move_wins(self, b: Board, frm: Sq, to: Sq) -> bool:
        if self.god == "pegasus" and b.level[to] == 3 and b.level[frm] < 2:
            return False
        return super().move_wins(b, frm, to)

    def slide(self, b: Board, frm: Sq, to: Sq) -> tuple[Sq, Board]:
        """Harpies: the worker on ``to`` slides on in the step's direction."""
        if self.foe != "harpies":
            return to, b
        dx, dy = direction(frm, to)
        at = to
        while True:
            nxt = (at[0] + dx, at[1] + dy)
            if not on_board(nxt) or not b.free(nxt) or b.level[nxt] > b.level[at]:
                break
            at = nxt
        if at == to:
            return to, b
        nb = copy(b)
        nb.worker[at] = nb.worker.pop(to)
        return at, nb

    # -- builds ------------------------------------------------------------------------------

    def ordinary_builds(
        self, b: Board, at: Sq, *, atlas: bool = False
    ) -> Iterator[tuple[Sq, Board]]:
        if self.god != "urania":
            yield from super().ordinary_builds(b, at, atlas=atlas)
            return
        for sq in wrapped(at):
            if b.free(sq) and self.may_build(b, sq, dome=b.level[sq] == 3):
                nb = copy(b)
                if nb.level[sq] == 3:
                    nb.dome.add(sq)
                else:
                    nb.level[sq] += 1
                yield sq, nb

    def build_phase(self, b: Board, at: Sq, unmoved: Sq | None, up: bool) -> Iterator[Result]:
        self.at = at
        if self.god != "graeae":
            yield from super().build_phase(b, at, unmoved, up)
            return
        for o in self.mine(b):
            if o == at:
                continue
            for _, nb in self.ordinary_builds(b, o):
                yield from self.then(nb, lambda x: self.end_of_turn(x, unmoved, up), up)

    def end_of_turn(self, b: Board, unmoved: Sq | None, up: bool) -> Iterator[Result]:
        god = self.god
        if god == "asteria":
            yield Result(b, None, up)
            if self.down:
                for sq in b.level:
                    if b.free(sq) and self.may_build(b, sq, dome=True):
                        nb = copy(b)
                        nb.dome.add(sq)
                        yield from self.then(nb, lambda x: iter([Result(x, None, up)]), up)
            return
        if god == "nemesis":
            yield Result(b, None, up)
            mine, theirs = self.mine(b), self.theirs(b)
            if len(mine) == 2 and not any(next_to(m, t) for m in mine for t in theirs):
                for pair in combinations(theirs, 2):
                    nb = copy(b)
                    for sq in (*mine, *pair):
                        del nb.worker[sq]
                    for sq in pair:
                        nb.worker[sq] = self.me
                    for sq in mine:
                        nb.worker[sq] = 1 - self.me
                    yield Result(nb, None, up)
            return
        if god == "hydra":
            mine = self.mine(b)
            if not any(next_to(x, y) for x in mine for y in mine):
                free = [sq for sq in around(self.at) if b.free(sq)]
                if not free:
                    yield Result(b, None, up)
                    return
                low = min(b.level[sq] for sq in free)
                for sq in free:
                    if b.level[sq] == low:
                        nb = copy(b)
                        nb.worker[sq] = self.me
                        yield Result(nb, None, up)
            else:
                for sq in mine:
                    nb = copy(b)
                    del nb.worker[sq]
                    yield Result(nb, None, up)
            return
        if god == "maenads":
            mine = set(self.mine(b))
            for t in self.theirs(b):
                for dx, dy in ((1, 0), (0, 1), (1, 1), (1, -1)):
                    if (t[0] + dx, t[1] + dy) in mine and (t[0] - dx, t[1] - dy) in mine:
                        yield Result(b, self.me, up)
                        return
            yield Result(b, None, up)
            return
        yield from super().end_of_turn(b, unmoved, up)

    # -- whole turns -------------------------------------------------------------------------

    def landed(
        self, b: Board, w: Sq, frm: Sq, to: Sq, up: bool, unmoved: Sq | None, killed: list[Sq]
    ) -> Iterator[tuple[Board, Sq]]:
        """After a step that did not win: Proteus's force, the slide, Scylla's drag."""
        god = self.god
        if god == "proteus":
            others = [o for o in self.mine(b) if o != to]
            if not others:
                yield self.slide(b, frm, to)[::-1]
                return
            for o in others:
                nb = copy(b)
                nb.worker[w] = nb.worker.pop(o)
                yield self.slide(nb, frm, to)[::-1]
            return
        at, b2 = self.slide(b, frm, to)
        yield b2, at
        if god == "scylla":
            for t in self.theirs(b2):
                if next_to(t, w):
                    nb = copy(b2)
                    nb.worker[w] = nb.worker.pop(t)
                    yield nb, at

    def worker_turns(self, b: Board, w: Sq, unmoved: Sq | None) -> Iterator[Result]:
        god = self.god
        starts: list[tuple[Board, bool]] = [(b, False)]
        if god == "charon":
            for t in around(w):
                if b.worker.get(t) == 1 - self.me:
                    dest = (2 * w[0] - t[0], 2 * w[1] - t[1])
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
                self.down = b1.level[to] < b1.level[w]
                for b2, at in self.landed(b1, w, w, to, up, unmoved, killed):
                    yield from self.after_moves(b2, w, at, up, unmoved, killed)
                if god == "artemis":
                    at, b2 = self.slide(b1, w, to)
                    for to2, b3, up2, _ in self.steps(b2, at, powers=False):
                        if to2 == w:
                            continue
                        if self.move_wins(b3, at, to2):
                            yield from self.won(b3, w, to2, up or up2, [])
                            continue
                        at2, b4 = self.slide(b3, at, to2)
                        yield from self.after_moves(b4, w, at2, up or up2, unmoved, [])
                if god == "triton" and perimeter(to):
                    yield from self.triton(b1, w, to, up, unmoved)

    def every_move(self, b: Board, order: tuple[Sq, ...]) -> Iterator[tuple[Board, bool, bool]]:
        """Each worker on ``order`` moves once in that order: (board, moved up, won)."""
        if not order:
            yield b, False, False
            return
        w = order[0]
        for to, b1, up, _ in self.steps(b, w, powers=False):
            if self.move_wins(b1, w, to):
                if self.free_of_aphrodite(w, b1, to, []):
                    yield b1, up, True
                continue
            at, b2 = self.slide(b1, w, to)
            if not self.free_of_aphrodite(w, b2, at, []):
                continue
            for b3, up2, won in self.every_move(b2, order[1:]):
                yield b3, up or up2, won

    def every_build(self, b: Board, order: tuple[Sq, ...]) -> Iterator[Board]:
        """Each worker on ``order`` builds once next to itself (Chronus may end it)."""
        if not order:
            yield b
            return
        for _, nb in self.ordinary_builds(b, order[0]):
            if self.chronus_wins(nb) is not None:
                yield nb
            else:
                yield from self.every_build(nb, order[1:])

    def raw(self) -> Iterator[Result]:
        god = self.god
        mine = self.mine(self.board)
        if god == "terpsichore" and len(mine) > 1:
            for order in permutations(mine):
                for b1, up, won in self.every_move(self.board, order):
                    if won:
                        yield Result(b1, self.me, up)
                        continue
                    finals = [sq for sq, s in b1.worker.items() if s == self.me]
                    for order2 in permutations(finals):
                        for b2 in self.every_build(b1, tuple(order2)):
                            yield Result(b2, self.chronus_wins(b2), up)
            return
        yield from super().raw()
        if god == "castor":
            if self.frozen is None:
                for order in permutations(mine):
                    for b1, up, won in self.every_move(self.board, order):
                        yield Result(b1, self.me if won else None, up)
            for order in permutations(mine):
                for b2 in self.every_build(self.board, order):
                    yield Result(b2, self.chronus_wins(b2), False)

    def results(self) -> list[Result]:
        out = list(self.raw())
        if self.god == "graeae" and len(self.mine(self.board)) == 1:
            out = [r for r in out if r.winner is not None]
        if self.foe == "persephone":
            up = [r for r in out if r.moved_up]
            if up:
                out = up
        return out


def has_turn9(b: Board, seat: int, gods: list[str], athena_flag: bool) -> bool:
    if not any(s == seat for s in b.worker.values()):
        return False
    return bool(Turn9(b, seat, gods, athena_flag).results())


def reference_outcomes9(text: str) -> tuple[set[Key], set[Key]]:
    """(outcomes of every complete turn of the seat to move, those leaving the next side stuck)."""
    board, seat, gods, athena_flag = from_position_string(text)
    if len(gods) != 2:
        raise ValueError(f"two players only: {text}")
    out: set[Key] = set()
    stuck: set[Key] = set()
    for r in Turn9(board, seat, gods, athena_flag).results():
        lv, low = levels(r.board), low_domes(r.board, gods)
        if r.winner is not None:
            out.add(("W", r.winner, lv, low, squares_of(r.board, r.winner)))
            continue
        athena = r.moved_up if gods[seat] == "athena" else False
        key = ("N", lv, low, squares_of(r.board, 0), squares_of(r.board, 1), 1 - seat, athena)
        out.add(key)
        if key not in stuck and not has_turn9(r.board, 1 - seat, gods, athena):
            stuck.add(key)
    return out, stuck


__all__ = ["index", "reference_outcomes9"]
