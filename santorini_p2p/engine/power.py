"""God powers as plug-ins: the hook points of a turn, and the kernel steps they call.

The base game is the default power; DESIGN.md, "God powers", says why.

A power is a stateless object. Its methods are the timing words of the rulebook's glossary:

=====================  ==============================================================
Setup                  ``places_first``, ``placed`` and ``most_workers`` (how many
                       workers), :meth:`Power.placement_error`
Opponent's turn        :meth:`Power.restrict`: what this power imposes on another side's
                       turn (no moving up or down, frozen or bound workers, banned
                       builds, forbidden wins, "must move up", a slide after every
                       step), read once per turn
At all times           :meth:`Power.at_all_times`: wins that can happen in anyone's turn
Your turn              :meth:`Power.turns` (turns of every worker: ``H``, ``M``, ``B``,
                       ``T``), :meth:`Power.worker_turns` (a power step before moving);
                       ``plain_turns`` False for a compulsory power
Your move              :meth:`Power.step_mask`, ``forces`` with :meth:`Power.displace`,
                       :meth:`Power.moved` (extra steps, a force after the move)
After your move        :meth:`Power.after_step` (removals), :meth:`Power.wins_by_move`
Your build             :meth:`Power.builds` (and the choices at the end of the turn that
                       follow each build: a dome, an exchange, a worker gained or lost)
End of your turn       :meth:`Power.end_of_turn`, :meth:`Power.wins_at_end_of_turn`,
                       :meth:`Power.losers_at_end_of_turn`, :meth:`Power.next_state`
For the computer       :meth:`Power.quick_win`, :meth:`Power.extra_threats`,
                       :meth:`Power.evaluation`
=====================  ==============================================================

Every default is the plain rule of RULES.md section 2, so the kernel never asks "is there a
god?". The kernel (``rules.py``) builds one :class:`Gen` per generation: it reads the other
sides' restrictions once into plain masks, then the mover's power walks the turn through
these hooks and hands complete turns to :meth:`Gen.emit`.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import ClassVar, Final

from santorini_p2p.engine.position import DRAG, PULL, Position, Turn
from santorini_p2p.engine.squares import ALL, BITS, HEADING, NEIGHBOURS, SLANTED, bits, levels

__all__ = [
    "PERIMETER",
    "Board",
    "Gen",
    "Limits",
    "Power",
    "TurnFound",
    "build_on",
    "first_step",
    "is_free",
    "plain_steps",
    "plain_threats",
    "towers",
]

PERIMETER: Final = sum(BITS[s] for s in range(25) if s % 5 in (0, 4) or s // 5 in (0, 4))
"""The 16 edge squares (RULES.md section 8)."""

Board = tuple[list[int], int, tuple[int, ...]]
"""A board during generation: levels by square (0-3), the dome mask, and the workers by side.

Generation never mutates one: a step that changes the board makes a new tuple.
"""


def build_on(bd: Board, s: int, dome: bool = False) -> Board:
    """Return ``bd`` with one build on ``s``: a block, or a dome on level 3 (or if ``dome``)."""
    lv, domes, workers = bd
    if dome or lv[s] == 3:
        return lv, domes | BITS[s], workers
    lv2 = lv.copy()
    lv2[s] += 1
    return lv2, domes, workers


def is_free(bd: Board, s: int) -> bool:
    """Whether ``s`` is on the board with no worker and no dome: where a forced worker lands."""
    if s < 0 or bd[1] >> s & 1:
        return False
    return not any(m >> s & 1 for m in bd[2])


def towers(bd: Board) -> int:
    """Return the number of complete towers (a dome on level 3) on ``bd``."""
    lv, domes, _ = bd
    return sum(1 for s in bits(domes) if lv[s] == 3)


def first_step(frm: int, rest: int) -> int:
    """The square a plain step from ``frm`` went to when the worker came to rest on ``rest``.

    ``rest`` itself when it neighbours ``frm``; otherwise an opponent's slide carried the
    worker on (RULES.md 9), straight on, so the step went to the first square of that line.
    """
    if frm == rest or NEIGHBOURS[frm] >> rest & 1:
        return rest
    df, dr = rest % 5 - frm % 5, rest // 5 - frm // 5
    return frm + (df > 0) - (df < 0) + 5 * ((dr > 0) - (dr < 0))


def plain_steps(p: Position, w: int, occ: int, no_up: bool) -> int:
    """The free squares the worker on ``w`` may step to by the plain move rule.

    For the computer's evaluation hooks; ``occ`` is every occupied square, ``no_up`` a ban on
    moving up.
    """
    h = (p.ge1 >> w & 1) + (p.ge2 >> w & 1) + (p.ge3 >> w & 1)
    reach = (ALL ^ p.ge1, ALL ^ p.ge2, ALL ^ p.ge3, ALL) if no_up else (ALL ^ p.ge2, ALL ^ p.ge3)
    return NEIGHBOURS[w] & ~occ & (reach[h] if h < len(reach) else ALL)


def plain_threats(p: Position, side: int, occ: int) -> int:
    """The squares where a worker of another side than ``side`` would win by a plain move.

    For the computer's evaluation hooks (a power that can spoil such a threat): the free
    level-3 squares next to those sides' level-2 workers; ``occ`` is every occupied square.
    """
    top = p.ge3 & ~occ
    out = 0
    for i, m in enumerate(p.workers):
        if i != side:
            for w in bits(m & p.ge2 & ~p.ge3):
                out |= NEIGHBOURS[w] & top
    return out


class Limits:
    """What the other sides' powers impose on the mover's turn, read once per turn.

    Plain data that the kernel's loops test: ``no_up`` (no worker may move up), ``frozen``
    (workers that may not move), ``bound`` with ``binders`` (workers that, if they move, must
    end their last move next to a worker of a side in ``binders``), ``ban_sides`` (no build
    next to these sides' workers, unless it is the dome that completes a tower), ``no_win``
    (squares no move may win on), ``must_up`` (if a turn can move up, every turn must), and
    ``tower_seat``/``tower_count`` (that seat wins once that many complete towers stand, after
    any build by anyone); the step rules of RULES.md section 9: ``no_down`` (no move step
    may end lower than it started) and ``slide`` (after each move step the mover's worker is
    forced on in the step's direction, :meth:`Gen.slide`); and those of RULES.md 10.4:
    ``walk_ban`` holds the directions (bit ``d`` for ``STEP[d]``) no worker may step in, and
    ``diagonal`` says every worker steps diagonally only, except those on ``straight``
    (restrictions that bind every worker's moves, never forces); ``ordered`` says another
    side's power reads which worker the turn moved last, so two orders of the same moves are
    two turns (RULES.md 10.5).
    """

    __slots__ = (
        "ban_sides",
        "binders",
        "bound",
        "diagonal",
        "frozen",
        "must_up",
        "no_down",
        "no_up",
        "no_win",
        "ordered",
        "slide",
        "straight",
        "tower_count",
        "tower_seat",
        "walk_ban",
    )

    def __init__(self) -> None:
        self.no_up = False
        self.frozen = 0
        self.bound = 0
        self.binders = 0
        self.ban_sides = 0
        self.no_win = 0
        self.must_up = False
        self.tower_seat = -1
        self.tower_count = 0
        self.no_down = False
        self.slide = False
        self.walk_ban = 0
        self.diagonal = False
        self.straight = 0
        self.ordered = False

    @property
    def trivial(self) -> bool:
        """Whether nothing but ``no_up`` restricts the turn (the plain fast paths apply)."""
        return not (
            self.frozen
            or self.bound
            or self.ban_sides
            or self.no_win
            or self.must_up
            or self.tower_seat >= 0
            or self.no_down
            or self.slide
            or self.walk_ban
            or self.diagonal
        )

    @property
    def plain_moves(self) -> bool:
        """Whether a step may end anywhere the plain rule allows, with no effect after it.

        A power's own fast paths for its steps hold only then.
        """
        return not (
            self.bound
            or self.no_win
            or self.no_down
            or self.slide
            or self.walk_ban
            or self.diagonal
        )

    @property
    def walks(self) -> bool:
        """Whether some direction of step is forbidden (RULES.md 10.4)."""
        return bool(self.walk_ban or self.diagonal)

    def walk(self, at: int, targets: int) -> int:
        """Those of ``targets`` a worker on ``at`` may step to (a step, wrapped step or jump).

        A step's direction is the one it is played in (RULES.md 10.4).
        """
        if self.diagonal and not self.straight >> at & 1:
            targets &= SLANTED[at]
        ban = self.walk_ban
        if ban:
            for d in range(8):
                if ban >> d & 1:
                    targets &= ~HEADING[d][at]
        return targets


class TurnFound(Exception):
    """Raised by a :class:`Gen` made with ``first`` at its first complete turn."""


class Gen:
    """The state of one generation of turns, and the kernel steps a power's hooks call.

    ``movers`` are the workers whose turns are wanted (all but the frozen ones, or one when a
    single turn is checked); ``pair`` asks for turns of both workers too. With ``counting``
    complete turns are only counted, which is what perft's last ply needs; with ``first`` the
    first complete turn raises :class:`TurnFound` (whether the mover has a turn at all).

    ``target`` is set when one turn alone is looked for (its legality): a power may then skip
    whatever cannot lead to that turn, and must still hand it over if it is legal.
    """

    __slots__ = (
        "asked",
        "board",
        "count",
        "counting",
        "extra",
        "first",
        "limits",
        "movers",
        "out",
        "p",
        "pair",
        "power",
        "reach",
        "seat",
        "side",
        "target",
        "third",
        "up_count",
        "up_out",
    )

    def __init__(
        self,
        p: Position,
        power: Power,
        limits: Limits,
        movers: int,
        pair: bool,
        counting: bool,
        first: bool = False,
    ) -> None:
        self.first = first
        self.p = p
        self.seat = p.to_move
        self.side = p.side_of(p.to_move)
        self.power = power
        self.limits = limits
        self.movers = movers & p.workers[self.side]
        self.asked = movers
        """The workers asked for, before they are narrowed to the mover's own."""
        self.extra: tuple[int, ...] = ()
        """``Turn.extra`` entries every turn emitted now begins with (a power step first)."""
        self.pair = pair
        self.counting = counting
        self.board: Board = (levels(p.ge1, p.ge2, p.ge3), p.domes, p.workers)
        self.reach = (ALL ^ p.ge1, ALL ^ p.ge2, ALL ^ p.ge3, ALL)
        """Squares of level at most 0, 1, 2 and 3 on the board the turn starts from."""
        self.out: list[Turn] = []
        self.up_out: list[Turn] = []
        self.count = 0
        self.up_count = 0
        self.target: Turn | None = None
        self.third: dict[int, tuple[list[int], int]] = {}
        """The level-3 squares of each levels list seen by :meth:`tower_win`, by its id."""

    # --- What the board offers ------------------------------------------------------------

    def occupied(self, bd: Board) -> int:
        """Squares holding a worker or a dome."""
        occ = bd[1]
        for m in bd[2]:
            occ |= m
        return occ

    def opponents(self, bd: Board) -> int:
        """The workers of every other side."""
        side = self.side
        occ = 0
        for i, m in enumerate(bd[2]):
            if i != side:
                occ |= m
        return occ

    def steps(self, at: int, bd: Board, no_up: bool = False, climb: int = 1, near: int = -1) -> int:
        """Free squares a worker on ``at`` may step to by the plain move rule.

        ``climb`` is how many levels a step may go up (when nothing forbids moving up),
        ``near`` the squares the worker may step to (its neighbours unless a power says).
        An opponent's "no moving down" holds too.
        """
        lv = bd[0]
        h = lv[at]
        top = h + (0 if no_up or self.limits.no_up else climb)
        free = (NEIGHBOURS[at] if near < 0 else near) & ~self.occupied(bd)
        if self.limits.walks:
            free = self.limits.walk(at, free)
        if lv is self.board[0]:
            out = free & self.reach[top if top < 3 else 3]
            if h and self.limits.no_down:
                p = self.p
                out &= p.ge1 if h == 1 else p.ge2 if h == 2 else p.ge3
            return out
        low = h if self.limits.no_down else 0
        out = 0
        for t in bits(free):
            if low <= lv[t] <= top:
                out |= BITS[t]
        return out

    def slide(self, frm: int, to: int, bd: Board) -> tuple[int, Board]:
        """Where the mover's worker that stepped from ``frm`` to ``to`` comes to rest.

        An opponent's forced slide (RULES.md section 9): square by square straight on in the
        step's direction (a wrapped step keeps its direction; a jump's is half of it) while
        the next square is on the board, free and not higher; the slide itself never wraps.
        Returns the square and the board with the worker there.
        """
        df = to % 5 - frm % 5
        dr = to // 5 - frm // 5
        df = -1 if df == 4 else 1 if df == -4 else (df > 0) - (df < 0)
        dr = -1 if dr == 4 else 1 if dr == -4 else (dr > 0) - (dr < 0)
        lv, domes, workers = bd
        occ = domes
        for m in workers:
            occ |= m
        f, r = to % 5 + df, to // 5 + dr
        cur = to
        while 0 <= f < 5 and 0 <= r < 5:
            n = r * 5 + f
            if occ >> n & 1 or lv[n] > lv[cur]:
                break
            cur = n
            f += df
            r += dr
        if cur == to:
            return to, bd
        moved = list(workers)
        moved[self.side] ^= BITS[to] | BITS[cur]
        return cur, (lv, domes, tuple(moved))

    def land(self, frm: int, path: tuple[int, ...], bd: Board) -> tuple[tuple[int, ...], Board]:
        """The path and board once the last step of ``path`` (from ``frm``) has slid, if any."""
        if not self.limits.slide:
            return path, bd
        rest, bd = self.slide(frm, path[-1], bd)
        if rest != path[-1]:
            path = (*path[:-1], rest)
        return path, bd

    def buildable(self, bd: Board, near: int) -> int:
        """Squares next to ``near`` that the mover may build on: unoccupied, not banned."""
        free = NEIGHBOURS[near] & ~self.occupied(bd)
        return free & self.allowed(bd, free)

    def allowed(self, bd: Board, squares: int) -> int:
        """Those of ``squares`` that no opponent's ban forbids building on (RULES.md 8).

        A banned square is still allowed for the dome that completes a tower (level 3).
        """
        sides = self.limits.ban_sides
        if not sides:
            return squares
        ban = 0
        for i, m in enumerate(bd[2]):
            if sides >> i & 1:
                for s in bits(m):
                    ban |= NEIGHBOURS[s]
        lv = bd[0]
        out = squares & ~ban
        for s in bits(squares & ban):
            if lv[s] == 3:
                out |= BITS[s]
        return out

    def build(self, bd: Board, s: int, dome: bool = False) -> tuple[Board, bool]:
        """Build on ``s``; return the board and whether the game ends there (a tower win)."""
        bd = build_on(bd, s, dome)
        return bd, self.tower_win(bd)

    def tower_win(self, bd: Board) -> bool:
        """Whether the complete towers on ``bd`` end the game (checked after every build).

        Asked after every build of every turn (tens of thousands with a power that builds
        any set of domes): the domes are counted at once, and the level-3 squares of a
        levels list are found once (a dome keeps the list; the list is kept with them, so
        its id is not reused).
        """
        lim = self.limits
        if lim.tower_seat < 0:
            return False
        lv, domes, _ = bd
        if domes.bit_count() < lim.tower_count:
            return False
        found = self.third.get(id(lv))
        if found is None or found[0] is not lv:
            if len(self.third) >= 4096:
                self.third.clear()
            third = 0
            for s in range(25):
                if lv[s] == 3:
                    third |= BITS[s]
            found = self.third[id(lv)] = (lv, third)
        return (domes & found[1]).bit_count() >= lim.tower_count

    def bound_ok(self, w: int, end: int, bd: Board) -> bool:
        """Whether the worker that started on ``w`` may end its last move on ``end``."""
        lim = self.limits
        if not lim.bound >> w & 1 or end == w:
            return True
        near = NEIGHBOURS[end]
        return any(lim.binders >> i & 1 and near & m for i, m in enumerate(bd[2]))

    def may_win_on(self, s: int) -> bool:
        """Whether a move may win on ``s`` (an opponent may forbid squares)."""
        return not self.limits.no_win >> s & 1

    def first_steps(self, w: int) -> int:
        """The squares a first step of the worker on ``w`` may go to and still give ``target``.

        Every square when no one turn is looked for, or it is another worker's. A turn's path
        starts with its first step, unless an opponent's slide moved the worker on from there.
        """
        want = self.target
        if want is None or want.worker != w or self.limits.slide:
            return ALL
        path = want.path
        return BITS[path[0]] if path and 0 <= path[0] < 25 else 0

    # --- Handing over complete turns --------------------------------------------------------

    def emit(self, turn: Turn, up: bool) -> None:
        """Take one complete legal turn; ``up``: a worker of the mover moved up in it."""
        if self.first:
            raise TurnFound
        if self.extra:
            turn = turn._replace(extra=self.extra + turn.extra)
        if up and self.limits.must_up:
            if self.counting:
                self.up_count += 1
            else:
                self.up_out.append(turn)
        if self.counting:
            self.count += 1
        else:
            self.out.append(turn)

    def add(self, n: int) -> bool:
        """Count ``n`` turns at once when only counting and nothing filters them.

        Returns False when the caller must emit the turns one by one instead.
        """
        if self.first and n:
            raise TurnFound
        if self.counting and not self.limits.must_up:
            self.count += n
            return True
        return False

    def emit_builds(
        self,
        w: int,
        path: tuple[int, ...],
        free: int,
        before: int,
        up: bool,
    ) -> None:
        """Take one turn for each build square in ``free`` (the plain one-build ending)."""
        if not free:
            return
        if self.first:
            raise TurnFound
        if self.limits.must_up or self.extra:
            for b in bits(free):
                self.emit(Turn(w, path, (b,), before), up)
        elif self.counting:
            self.count += free.bit_count()
        else:
            out = self.out
            for b in bits(free):
                out.append(Turn(w, path, (b,), before))

    def result(self) -> list[Turn]:
        """The turns taken: only those that moved up if the mover must move up and can."""
        if self.limits.must_up and self.up_out:
            return self.up_out
        return self.out

    def total(self) -> int:
        """The number of turns taken, with the same "must move up" rule as :meth:`result`."""
        if self.limits.must_up and (self.up_count or self.up_out):
            return self.up_count or len(self.up_out)
        return self.count or len(self.out)


class Power:
    """The base game as a power: every hook is the plain rule (RULES.md section 2).

    A god subclasses it, sets ``name`` and ``text`` (the card), the player counts its card
    reads unambiguously for, and overrides the hooks its card names. Class flags let the kernel
    skip whole loops for powers that never use them.
    """

    name: ClassVar[str] = ""
    text: ClassVar[str] = "No power: the base game."
    players: ClassVar[frozenset[int]] = frozenset({2, 3, 4})
    flag: ClassVar[str] = ""
    """The letter this power writes into the position string's flags for its per-seat state."""
    places_first: ClassVar[bool] = False
    """Setup: this side places its workers before every other side."""
    removes_workers: ClassVar[bool] = False
    """Workers can leave the board in a game with this power (so a side may have fewer than 2)."""
    wins_by_levels: ClassVar[bool] = True
    """:meth:`wins_by_move` reads only the levels of the two squares (not the workers)."""
    forces: ClassVar[bool] = False
    """The mover may move onto an opponent's worker, forcing it (see :meth:`displace`)."""
    end_effect: ClassVar[bool] = False
    """The power changes the board at the end of its holder's turn (:meth:`end_of_turn`)."""
    placed: ClassVar[int] = 2
    """Setup: how many workers this side places (RULES.md 10.2)."""
    most_workers: ClassVar[int] = 2
    """How many workers this side may ever have on the board at once (RULES.md 10.2);
    :meth:`worker_limit` says how many its state allows now."""
    plain_shaped: ClassVar[bool] = False
    """Its turns of the plain shape (one step, then one block or none; no power step) are
    exactly the plain rules' turns: the power only adds turns of other shapes. Checking one
    such turn then needs no generation (``engine/legality.py``)."""
    plain_turns: ClassVar[bool] = True
    """Whether every plain turn (one worker moves, then builds next to itself) is legal for
    this power; False for a compulsory power whose turn is its power's turn (RULES.md 9)."""
    stateful: ClassVar[bool] = False
    """The power keeps a state on its gods entry, ``god[STATE]`` (RULES.md 10.1)."""
    state_needed: ClassVar[bool] = False
    """Once its workers stand, the state is always written (RULES.md 10.1)."""
    names_female: ClassVar[bool] = False
    """Its placement names one worker female (``place b2,d4*``, RULES.md 10.2)."""
    sings: ClassVar[bool] = False
    """After placing, its seat fixes a direction (``song w``, RULES.md 10.2)."""
    moves_others: ClassVar[bool] = False
    """A turn of this power may move another side's worker (``Turn.worker`` is not its own)."""
    expands: ClassVar[bool] = False
    """The power adds end-of-turn choices to its holder's turns (:meth:`variants`)."""
    reacts: ClassVar[bool] = False
    """The power adds its holder's choices to any seat's turn (:meth:`variants`, ``seat``)."""
    expands_first: ClassVar[bool] = False
    """The holder's end-of-turn choices (``expands``) come before the reacting powers' choices,
    which may answer them: the domes they build at the end of the turn. Other
    end-of-turn choices come after, and may use what the reactions put down."""
    needs_result: ClassVar[bool] = True
    """:meth:`variants` reads the position the turn leads to (else it is given the one before)."""
    filters: ClassVar[bool] = False
    """The power narrows another seat's legal turns by their results (:meth:`narrow`)."""
    example: ClassVar[str] = ""
    """How a turn of this power is typed and what it does, for the help (a line break goes on
    with the same example); empty when its turns are typed as the plain ones are."""
    rank: ClassVar[int | None] = None
    """Where the computer ranks this power when it picks or offers gods: 1 is the one whose
    power its search makes most of; None ranks after every ranked power."""
    win_from: ClassVar[int] = 2
    """The lowest level a worker may stand on and still win by moving up on its side's next
    turn (2 by the plain rule; lower for a power whose worker may move up more than once)."""
    moves_both: ClassVar[bool] = False
    """A turn of this power may move both of its side's workers."""

    def __str__(self) -> str:
        return self.name

    def __repr__(self) -> str:
        return f"find_god({self.name!r})"

    @property
    def power(self) -> str:
        """The card's text (the name the console has always used)."""
        return self.text

    # --- Setup ------------------------------------------------------------------------------

    def placement_error(self, squares: tuple[int, ...]) -> str | None:
        """Why this power's side may not have its workers on ``squares``, or None.

        ``squares`` are all the side's workers once a placement is made (one to ``placed``).
        """
        return None

    # --- Opponent's turn and at all times ----------------------------------------------------

    def restrict(self, p: Position, seat: int, limits: Limits) -> None:
        """Add to ``limits`` what this power (held by ``seat``) imposes on the mover's turn.

        Called once a turn for each seat of another side, at the start of the mover's turn.
        """

    def at_all_times(self, p: Position, seat: int, limits: Limits) -> None:
        """Add to ``limits`` what holds in every turn, the holder's own included."""

    # --- Your turn --------------------------------------------------------------------------

    def turns(self, g: Gen) -> None:
        """Every turn of the mover: each movable worker's turns."""
        for w in bits(g.movers):
            self.worker_turns(g, w)

    def worker_turns(self, g: Gen, w: int) -> None:
        """The turns of the worker on ``w``; a power step before moving goes here."""
        self.moves(g, w, g.board, -1, False)

    def step_mask(self, g: Gen, w: int, bd: Board, no_up: bool) -> int:
        """The free squares the worker on ``w`` may take its first step to."""
        return g.steps(w, bd, no_up)

    def moves(self, g: Gen, w: int, bd: Board, before: int, no_up: bool) -> None:
        """Your move: every first step of the worker on ``w``, each handed to :meth:`moved`."""
        lv, domes, workers = bd
        side = g.side
        wb = BITS[w]
        h = lv[w]
        lim = g.limits
        targets = self.step_mask(g, w, bd, no_up)
        only = g.first_steps(w)
        targets &= only
        if _plain_steps(type(self)) and not (lim.bound or lim.no_win or lim.slide):
            wins = None if type(self).wins_by_move is Power.wins_by_move else self.wins_by_move
            # The plain move rule with no restriction on where a move ends: the steps are
            # handed straight to the builds (or to the plain one-build ending).
            occ = domes
            for m in workers:
                occ |= m
            plain_builds = _plain_builds(type(self))
            count_only = g.counting and not (g.first or lim.must_up)
            for t in bits(targets):
                tb = BITS[t]
                up = lv[t] > h
                if (lv[t] == 3 and h < 3) if wins is None else wins(w, t, bd, g):
                    g.emit(Turn(w, (t,), (), before), up)
                    continue
                if plain_builds:
                    free = NEIGHBOURS[t] & ~(occ ^ wb ^ tb)
                    if lim.ban_sides:
                        free = g.allowed(bd, free)
                    if count_only:
                        g.count += free.bit_count()
                    else:
                        g.emit_builds(w, (t,), free, before, up)
                else:
                    moved = list(workers)
                    moved[side] ^= wb | tb
                    self.builds(g, w, (t,), (lv, domes, tuple(moved)), before, up)
        else:
            for t in bits(targets):
                moved = list(workers)
                moved[side] ^= wb | BITS[t]
                self.moved(g, w, (t,), (lv, domes, tuple(moved)), before, lv[t] > h)
        if self.forces:
            top = h + (0 if no_up or g.limits.no_up else 1)
            low = h if lim.no_down else 0
            for t in bits(g.limits.walk(w, NEIGHBOURS[w] & g.opponents(bd) & only)):
                if not low <= lv[t] <= top:
                    continue
                dest = self.displace(w, t, bd)
                if dest < 0:
                    continue
                moved = list(workers)
                for i, m in enumerate(moved):
                    if m & BITS[t]:
                        moved[i] = m ^ BITS[t] | BITS[dest]
                moved[side] ^= wb | BITS[t]
                self.moved(g, w, (t,), (lv, domes, tuple(moved)), before, lv[t] > h)

    def displace(self, frm: int, to: int, bd: Board) -> int:
        """Where the opponent worker on ``to`` is forced when the mover steps there, or -1."""
        return -1

    def alias(self, p: Position, turn: Turn) -> Turn | None:
        """The turn that ``turn``, as a player may type it, is written as; None if none."""
        return None

    def walks(self, p: Position, turn: Turn, no_up: bool) -> bool:
        """Whether ``turn``'s path is a way this power may move that is written another way.

        For a power whose turns are written by one of several paths (protocol/SPEC.md 2.1):
        the kernel then reads ``turn`` as the legal turn with the same end and builds.
        """
        return False

    def force_square(self, worker: int, victim: int, bd: Board) -> int:
        """Where a power step before moving (``~``) forces the worker on ``victim``, or -1."""
        return -1

    def wins_by_move(self, frm: int, to: int, bd: Board, g: Gen) -> bool:
        """Win condition: whether a step from ``frm`` to ``to`` wins (moving up onto level 3)."""
        lv = bd[0]
        return lv[to] == 3 and lv[frm] < 3

    def moved(
        self, g: Gen, w: int, path: tuple[int, ...], bd: Board, before: int, up: bool
    ) -> None:
        """After a step to ``path[-1]``: it wins, or the worker stops there and builds.

        Powers with extra steps call this for each step and go on from it.
        """
        frm = path[-2] if len(path) > 1 else w
        to = path[-1]
        if self.wins_by_move(frm, to, bd, g) and g.may_win_on(to):
            if g.bound_ok(w, to, bd):
                g.emit(Turn(w, path, (), before), up)
            return
        if g.limits.slide:
            # The step's effects first (a removal), then the slide into what they freed.
            path, bd = g.land(frm, path, self.after_step(frm, to, bd, g))
            if g.bound_ok(w, path[-1], bd):
                self.builds(g, w, path, bd, before, up)
            return
        if not g.bound_ok(w, to, bd):
            return
        self.builds(g, w, path, self.after_step(frm, to, bd, g), before, up)

    def quick_win(self, p: Position, mine: int, opp: int, no_up: bool) -> bool | None:
        """Whether a worker in ``mine`` can win by moving now, from the bitboards alone.

        For search, which asks this of every position it visits. None: this power's wins need
        the full list of turns. ``opp`` holds every other worker; ``no_up`` is an opponent's
        ban on moving up. The default is the plain rule: a level-2 worker next to a free
        level-3 square.
        """
        if no_up:
            return False
        occ = mine | opp | p.domes
        top = p.ge3 & ~occ
        return any(NEIGHBOURS[w] & top for w in bits(mine & p.ge2 & ~p.ge3))

    def extra_threats(self, p: Position, w: int, moves: int, occ: int, no_up: bool) -> int:
        """Squares beyond the plain ones where the worker on ``w`` would win by its next move.

        For the computer's evaluation (a level-2 worker next to a free level-3 square is the
        plain threat); ``moves`` are the worker's plain steps, ``occ`` every occupied square.
        """
        return 0

    def evaluation(self, p: Position, side: int, occ: int, no_up: bool) -> int:
        """What this power adds to the static score of ``side``, its holder, in ``p``.

        For the computer's evaluation, in its units (about 100 a level of a worker's height):
        the worth of what the power threatens or builds towards that the plain terms miss
        (towers counted for a win, opponent workers it can remove). ``occ`` is every
        occupied square; ``no_up``: an opponent stops this side moving up. The default is 0.
        """
        return 0

    def is_win(self, g: Gen, frm: int, to: int, bd: Board) -> bool:
        """Whether a step from ``frm`` to ``to`` ends the turn with a win (after restrictions)."""
        return self.wins_by_move(frm, to, bd, g) and g.may_win_on(to)

    def after_step(self, frm: int, to: int, bd: Board, g: Gen) -> Board:
        """After your move: the board once a step from ``frm`` to ``to`` has had its effects."""
        return bd

    # --- Your build -------------------------------------------------------------------------

    def builds(
        self, g: Gen, w: int, path: tuple[int, ...], bd: Board, before: int, up: bool
    ) -> None:
        """Your build: every way to end the turn with builds; the plain rule is one build."""
        g.emit_builds(w, path, g.buildable(bd, path[-1]), before, up)

    # --- End of your turn -------------------------------------------------------------------

    def end_of_turn(self, bd: Board, g: Gen) -> Board:
        """The board after this power's mandatory end-of-turn effects (none by default)."""
        return bd

    def wins_at_end_of_turn(self, bd: Board, g: Gen) -> bool:
        """Win condition: whether the holder wins at the end of its turn on ``bd`` (no)."""
        return False

    def losers_at_end_of_turn(self, bd: Board, g: Gen) -> int:
        """The opponent sides (a bit each) that lose at the end of the holder's turn on ``bd``.

        When every opponent side still in the game loses, the holder wins; otherwise (three
        players) the losers leave the game and play goes on (RULES.md section 4).
        """
        return 0

    def next_state(self, p: Position, turn: Turn) -> str:
        """This power's per-seat state after its holder played ``turn`` (its flag, or "")."""
        return ""

    # --- State across turns (RULES.md section 10) ---------------------------------------------
    # A state hook sees and returns the text inside the brackets ("" for the bare entry).

    def read_state(self, text: str) -> str:
        """Check the text inside this power's brackets; return it (RULES.md 10.1).

        Raises:
            ValueError: the text is not a state of this power, or writes its setup value.
        """
        raise ValueError(f"{self.name or 'no god'} keeps no state in brackets")

    def describe_state(self, state: str) -> str:
        """A short line saying what the holder's state means now, for a screen ("" for none).

        ``state`` is the text inside the brackets, or the flag letters of a one-bit state.
        """
        return ""

    def worker_limit(self, state: str) -> int:
        """The most workers the holder's side may have on the board with ``state``."""
        return self.most_workers

    def state_squares(self, state: str) -> tuple[tuple[int, bool], ...]:
        """The squares ``state`` names, each with whether it names a worker of the holder."""
        return ()

    def step_words(self, mark: str, own: bool) -> str:
        """What a power step marked ``mark`` in a turn's text means, in a few words ("" none).

        For a screen's completion hint (RULES.md 9 and 10.3: the same mark may mean another
        thing for another god). ``own``: the turn is its holder's (else another seat's turn,
        in which a power that reacts may write a step too).
        """
        return ""

    def state_marks(self, state: str) -> tuple[tuple[int, str], ...]:
        """The squares ``state`` names, each with a word of at most 5 letters, for a board.

        A screen draws the word by the square (a female worker, a marked or named worker),
        so that what the state names is seen where it stands; the default word is the
        god's name.
        """
        return tuple((sq, self.name[:5]) for sq, _ in self.state_squares(state))

    def follow(self, state: str, where: Callable[[int], int]) -> str:
        """``state`` once every worker it names has gone where ``where`` says (-1: removed)."""
        return state

    def after_turn(
        self,
        p: Position,
        seat: int,
        turn: Turn,
        state: str,
        where: Callable[[int], int],
        moves: tuple[tuple[int, int], ...] = (),
    ) -> str:
        """The state of the holder (``seat``) after ``turn`` by the seat to move in ``p``.

        ``state`` has already followed its workers; ``where`` maps a square of ``p`` to where
        its worker ended the turn; ``moves`` are the mover's :meth:`worker_moves`.
        """
        return state

    def female_state(self, squares: tuple[int, ...], female: int) -> str:
        """The state once the holder placed its workers on ``squares`` (``female``: ``*``)."""
        return ""

    def variants(
        self, p: Position, seat: int, turn: Turn, after: Position, limits: Limits
    ) -> list[Turn]:
        """More turns that are ``turn`` with this power's choices added (``after``: its result).

        For the holder's own turns (``expands``), or any seat's (``reacts``; ``seat`` is the
        holder). ``limits`` are those on the turn of the seat to move.
        """
        return []

    def choice_points(self, p: Position, seat: int, turn: Turn) -> tuple[int, ...]:
        """Where this power's holder ``seat`` decides in another seat's ``turn`` (``p``: before).

        For a power that ``reacts``: the numbers of the turn's domes (as ``OP_PLACE`` counts
        them), in the order written, at each of which the holder, not the mover, chooses what
        the text writes there (``rules.choices``). None by default.
        """
        return ()

    def end_workers(self, turn: Turn) -> int:
        """The squares where ``turn``'s end-of-turn choice put a worker of the mover's own.

        Another power that puts a worker on the board at once (RULES.md 10.5) may take one
        of them first; :meth:`end_with` then makes the choice again.
        """
        return 0

    def end_with(self, p: Position, turn: Turn, taken: int, after: Position) -> list[Turn]:
        """``turn`` with its end-of-turn choice made again once ``taken`` were filled first.

        ``after`` is the position ``turn`` led to. The default keeps the turn as it is.
        """
        return [turn]

    def may_vary(self, p: Position, seat: int, turn: Turn) -> bool:
        """A quick check before :meth:`variants`: False when it surely adds nothing."""
        return True

    def narrow(
        self,
        p: Position,
        seat: int,
        turns: list[Turn],
        result: Callable[[Turn], tuple[Position, Callable[[int], int]]],
    ) -> list[Turn]:
        """The turns of the seat to move that this power (held by ``seat``) leaves legal.

        ``result`` gives a turn's position and where each worker of ``p`` ended it.
        """
        return turns

    def begin(self, bd: Board, turn: Turn, g: Gen) -> Board:
        """The board after this power's steps before the turn's worker acts (``Turn.extra``)."""
        return bd

    def finish(self, bd: Board, turn: Turn, g: Gen) -> tuple[Board, bool]:
        """The board after this power's end-of-turn choices; True: a build there ended the game."""
        return bd, False

    def worker_moves(self, p: Position, turn: Turn) -> list[tuple[int, int]]:
        """The workers ``turn`` moves or forces, ``(from, to)``, as far as its text says.

        Each worker of an every-worker turn (RULES.md 9: ``M``, ``T``) in the order played; or
        a worker dragged or pulled into the square the turn's worker left (``~``, ``<``: forced,
        so listed first), then the turn's worker: the worker a side moved last comes last.
        """
        if turn.worker < -1:
            path = turn.path
            return [(path[i], path[i + 1]) for i in range(0, len(path), 2)]
        if turn.worker < 0 or not turn.path:
            return []
        out = [(op & 31, turn.worker) for op in turn.post if op >> 5 in (DRAG, PULL)]
        out.append((turn.worker, turn.path[-1]))
        return out


_PLAIN_STEPS: dict[type[Power], bool] = {}
_PLAIN_BUILDS: dict[type[Power], bool] = {}


def _plain_steps(cls: type[Power]) -> bool:
    """Whether ``cls`` keeps the plain rule after a step (no extra steps, effects or wins)."""
    plain = _PLAIN_STEPS.get(cls)
    if plain is None:
        plain = _PLAIN_STEPS[cls] = (
            cls.moved is Power.moved and cls.after_step is Power.after_step and cls.wins_by_levels
        )
    return plain


def _plain_builds(cls: type[Power]) -> bool:
    """Whether ``cls`` keeps the plain one-build rule."""
    plain = _PLAIN_BUILDS.get(cls)
    if plain is None:
        plain = _PLAIN_BUILDS[cls] = cls.builds is Power.builds
    return plain
