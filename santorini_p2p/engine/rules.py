"""The rule kernel: complete legal turns, applying them, eliminations and outcomes.

Implements RULES.md sections 2, 4 and 5 for the play phase. Gods are powers (``power.py``,
``gods/``): the kernel reads the other sides' restrictions once per turn into plain masks and
lets the mover's power walk its turn through the hooks; it names no god. A game with no power
in play at all takes a plain fast path. ``setup.py`` covers the setup phase.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from dataclasses import replace
from typing import Final, NamedTuple

from santorini_p2p.engine.gods import MORTAL, power_of
from santorini_p2p.engine.notation import format_position, ordered_extra, parse_turn
from santorini_p2p.engine.position import (
    BUILD_ALL,
    DOME,
    DRAG,
    DROP,
    FORCE,
    GAIN,
    HERO_DOME,
    MOVE_ALL,
    NO_WINNER,
    OP_ENTER,
    OP_NONE,
    OP_PLACE,
    PULL,
    STAR,
    SWAP,
    Outcome,
    Phase,
    Position,
    Turn,
)
from santorini_p2p.engine.power import Board, Gen, Limits, Power, TurnFound, build_on
from santorini_p2p.engine.squares import ALL, BITS, NEIGHBOURS, bits
from santorini_p2p.errors import IllegalTurnError

__all__ = [
    "STOP_EVERY",
    "Listing",
    "apply",
    "apply_unchecked",
    "as_placements",
    "can_win_now",
    "count_turns",
    "end_by_agreement",
    "find_turn",
    "generate_turns",
    "has_legal_turn",
    "is_legal",
    "legal_turns",
    "limits",
    "list_turns",
    "lose_on_time",
    "next_seat",
    "outcome",
    "resign",
    "settle_start",
    "turn_form",
    "turn_sort_key",
    "turns_from",
    "without_builds",
]

_NO_LIMITS: Final = Limits()


def limits(p: Position, seat: int | None = None) -> Limits:
    """Return what the powers in play impose on ``seat``'s turn now (default: the seat to move).

    The other sides' restrictions and every power's "at all times" rules: RULES.md section 8,
    and section 6.
    """
    seat = p.to_move if seat is None else seat
    active = _LIMITING.get(p.gods)
    if active is None:
        active = _limiting(p.gods)
    if not active:
        return _NO_LIMITS
    recent = _RECENT.get(seat)
    if recent is not None and recent[0] is p:
        return recent[1]
    lim = Limits()
    me = p.side_of(seat)
    view = p if seat == p.to_move else p.with_mover(seat)
    for s, power in active:
        if p.eliminated >> s & 1:
            continue
        if p.side_of(s) != me:
            power.restrict(view, s, lim)
        power.at_all_times(view, s, lim)
    _RECENT[seat] = (p, lim)
    return lim


_RECENT: dict[int, tuple[Position, Limits]] = {}
"""The last position each seat's limits were read for, and those limits.

Applying a turn, then settling, searching and evaluating the position after it read the same
limits several times over; a position never changes, so the same object has the same limits.
The caller must not change the limits returned.
"""


_LIMITING: dict[tuple[str, ...], tuple[tuple[int, Power], ...]] = {}


def _limiting(gods: tuple[str, ...]) -> tuple[tuple[int, Power], ...]:
    """The seats whose powers restrict others or act at all times (cached by the gods)."""
    found = _LIMITING.get(gods)
    if found is None:
        found = _LIMITING[gods] = tuple(
            (s, power_of(name))
            for s, name in enumerate(gods)
            if name
            and (
                type(power_of(name)).restrict is not Power.restrict
                or type(power_of(name)).at_all_times is not Power.at_all_times
            )
        )
    return found


def _plain(p: Position, movers: int, no_up: bool, counting: bool) -> tuple[list[Turn], int]:
    """Every turn of a seat with no power and no restriction but "no moving up": the fast path."""
    side = p.side_of(p.to_move)
    mine = p.workers[side]
    occ = p.domes
    for m in p.workers:
        occ |= m
    g1, g2, g3 = p.ge1, p.ge2, p.ge3
    out: list[Turn] = []
    count = 0
    free_all = ALL & ~occ
    reach = (ALL ^ g1, ALL ^ g2, ALL ^ g3, ALL) if no_up else (ALL ^ g2, ALL ^ g3, ALL, ALL)
    for w in bits(movers & mine):
        h = (g1 >> w & 1) + (g2 >> w & 1) + (g3 >> w & 1)
        wb = BITS[w]
        free = free_all | wb
        for t in bits(NEIGHBOURS[w] & free_all & reach[h]):
            if h == 2 and g3 >> t & 1:
                if counting:
                    count += 1
                else:
                    out.append(Turn(w, (t,)))
                continue
            builds = NEIGHBOURS[t] & free
            if counting:
                count += builds.bit_count()
            else:
                path = (t,)
                for b in bits(builds):
                    out.append(Turn(w, path, (b,)))
    return out, count


def _gen(p: Position, movers: int, pair: bool, counting: bool) -> Gen:
    """Run the mover's power over a fresh :class:`Gen` and return it."""
    seat = p.to_move
    power = power_of(p.gods[seat])
    lim = limits(p, seat)
    g = Gen(p, power, lim, movers & ~lim.frozen, pair, counting)
    power.turns(g)
    return g


def _run(p: Position, movers: int, pair: bool, counting: bool) -> tuple[list[Turn], int]:
    """Return the turns (with ``counting`` none) and their number.

    Through the powers, or by the plain path when no power is in play for this turn.
    """
    if any(p.gods):
        lim = limits(p)
        if p.gods[p.to_move] or not lim.trivial:
            g = _gen(p, movers, pair, counting)
            return ([] if counting else g.result()), g.total()
        return _plain(p, movers, lim.no_up, counting)
    return _plain(p, movers, False, counting)


def _generate(
    p: Position, movers: int = ALL, pair: bool = True, stop: Callable[[], bool] | None = None
) -> list[Turn]:
    """Every complete legal turn of the seat to move, unsorted (RULES.md sections 2, 6, 8, 10).

    ``movers`` narrows plain turns to those workers; ``pair`` includes turns of both workers.
    ``stop``: as for :func:`_extend` (which raises :class:`_Cut`).
    """
    turns = _run(p, movers, pair, False)[0]
    if special_powers(p.gods):
        turns = _extend(p, turns, stop)
    return turns


_SPECIALS: dict[tuple[str, ...], tuple[tuple[int, Power], ...]] = {}


def special_powers(gods: tuple[str, ...]) -> tuple[tuple[int, Power], ...]:
    """The seats whose powers add choices to turns or narrow them (RULES.md 10), cached."""
    found = _SPECIALS.get(gods)
    if found is None:
        found = _SPECIALS[gods] = tuple(
            (s, power_of(name))
            for s, name in enumerate(gods)
            if power_of(name).expands or power_of(name).reacts or power_of(name).filters
        )
    return found


class _Cut(Exception):
    """Raised inside :func:`_extend` when its ``stop`` asks to end the listing early."""

    def __init__(self, turns: list[Turn]) -> None:
        super().__init__()
        self.turns = turns


def _extend(p: Position, turns: list[Turn], stop: Callable[[], bool] | None = None) -> list[Turn]:
    """``turns`` with the choices powers add to them, then narrowed by the powers that narrow.

    A reacting power's choices (workers put on the board) come first, then the mover's end-of-turn
    choices, judged on the position each turn leads to; except end-of-turn domes
    (``expands_first``), which come before, so that a reacting power answers them too.

    ``stop`` is asked every ``STOP_EVERY`` turns added; when it answers True, :class:`_Cut`
    carries the turns listed so far (each phase keeps the turns it adds choices to, so these
    are turns of the whole list, in their one order, but no narrowing power has judged them).
    """
    seat = p.to_move
    me = p.side_of(seat)
    lim = limits(p, seat)
    reacted = False
    reacting = any(pw.reacts and not p.eliminated >> s & 1 for s, pw in special_powers(p.gods))
    for phase in ("first", "reacts", "expands"):
        powers = [
            (s, pw)
            for s, pw in special_powers(p.gods)
            if not p.eliminated >> s & 1
            and (
                pw.reacts
                if phase == "reacts"
                else pw.expands and s == seat and pw.expands_first == (phase == "first")
            )
        ]
        reacted = reacted or (phase == "reacts" and bool(powers))
        if not powers:
            continue
        out: list[Turn] = []
        mark = STOP_EVERY
        for i, t in enumerate(turns):
            if stop is not None and len(out) >= mark:
                mark = len(out) + STOP_EVERY
                if stop():
                    out.extend(turns[i:])
                    if reacting:
                        out = [
                            u._replace(extra=ordered_extra(u.extra)) if u.extra else u for u in out
                        ]
                    raise _Cut(out)
            out.append(t)
            if t.is_win:
                continue
            choosing = [(s, pw) for s, pw in powers if pw.may_vary(p, s, t)]
            if not choosing:
                continue
            if lim.tower_seat < 0 and not any(pw.needs_result for _, pw in choosing):
                # No build can end the game and no choice depends on the result.
                after = p
            else:
                after = _after(p, t)
                if after.winner >= 0:
                    continue
            for s, pw in choosing:
                out.extend(pw.variants(p, s, t, after, lim))
        turns = out
    if reacted:
        # One order for each turn's operations, the order its text is read in (notation); and
        # each turn once: a choice made again after a reacting power took its square (a
        # worker gained at the end of the turn) can land on a turn another choice already gave.
        turns = list(
            dict.fromkeys(t._replace(extra=ordered_extra(t.extra)) if t.extra else t for t in turns)
        )
    for s, pw in special_powers(p.gods):
        if pw.filters and p.side_of(s) != me and not p.eliminated >> s & 1:
            turns = pw.narrow(p, s, turns, lambda t: _result(p, t))
    return turns


def _result(p: Position, turn: Turn) -> tuple[Position, Callable[[int], int]]:
    """The position after ``turn`` and where each worker of ``p`` went in it."""
    after = _after(p, turn)
    return after, _tracker(p, turn, power_of(p.gods[p.to_move]), list(after.workers))


def count_turns(p: Position) -> int:
    """Return the number of complete legal turns of the seat to move (perft's last ply)."""
    if p.phase is not Phase.PLAY:
        return 0
    if special_powers(p.gods):
        return len(_generate(p))
    return _run(p, ALL, True, True)[1]


def turn_sort_key(turn: Turn) -> str:
    """The documented order of legal turns: ascending by turn text (ASCII)."""
    return str(turn)


def legal_turns(p: Position) -> list[Turn]:
    """Return every complete legal turn of the seat to move, sorted by turn text.

    Empty when the game is over, in the setup phase, or when the seat to move has no complete
    turn (it then loses, RULES.md section 2).
    """
    if p.phase is not Phase.PLAY:
        return []
    return sorted(_generate(p), key=str)


def generate_turns(p: Position) -> list[Turn]:
    """Every complete legal turn of the seat to move, unsorted: the fast path for search.

    Same set as ``legal_turns`` (which sorts); the order is deterministic but undocumented.
    Call only on positions in the play phase.
    """
    return _generate(p)


STOP_EVERY: Final = 4096
"""How many turns :func:`list_turns` adds between two questions to its ``stop``."""


class Listing(NamedTuple):
    """What :func:`list_turns` found: the turns, and whether the list is whole.

    ``complete``: every legal turn is there (the list ``generate_turns`` gives). Otherwise the
    listing was stopped: every turn of ``turns`` is one of the whole list's when ``checked``;
    when not, a power that narrows the turns judged over the whole list was in play and not
    asked, so a turn taken from it must be checked (``legality.turn_is_legal``).
    """

    turns: list[Turn]
    complete: bool
    checked: bool


def list_turns(p: Position, stop: Callable[[], bool] | None = None) -> Listing:
    """``generate_turns(p)``, which a caller may stop early (a player on the clock).

    ``stop`` is asked every ``STOP_EVERY`` turns added while powers add choices to the turns
    (the long lists: tens or hundreds of thousands of turns); once it answers True the turns
    listed so far come back at once, with ``complete`` False. The engine reads no clock: the
    caller's ``stop`` does. Call only on positions in the play phase.
    """
    try:
        return Listing(_generate(p, stop=stop), True, True)
    except _Cut as cut:
        narrows = any(
            pw.filters and p.side_of(s) != p.side_of(p.to_move) and not p.eliminated >> s & 1
            for s, pw in special_powers(p.gods)
        )
        return Listing(cut.turns, False, not narrows)


def has_legal_turn(p: Position) -> bool:
    """Return whether the seat to move has at least one complete turn (quick check first)."""
    lim = limits(p)
    gods = p.gods
    seat = p.to_move
    mine = p.workers[seat & 1 if len(gods) == 4 else seat]  # the mover's side's
    god = gods[seat]
    if (
        lim is _NO_LIMITS
        or not (
            lim.frozen
            or lim.bound
            or lim.ban_sides
            or lim.no_win
            or lim.no_down
            or lim.slide
            or lim.walks
        )
    ) and (not god or power_of(god).plain_turns):
        occ = p.domes
        for m in p.workers:
            occ |= m
        free = ALL & ~occ
        g1, g2, g3 = p.ge1, p.ge2, p.ge3
        reach = (ALL ^ g1, ALL ^ g2, ALL ^ g3, ALL) if lim.no_up else (ALL ^ g2, ALL ^ g3, ALL, ALL)
        while mine:
            wb = mine & -mine
            mine ^= wb
            w = wb.bit_length() - 1
            h = (g1 >> w & 1) + (g2 >> w & 1) + (g3 >> w & 1)
            targets = NEIGHBOURS[w] & free & reach[h]
            if h == 2 and targets & g3:
                return True
            while targets:
                tb = targets & -targets
                targets ^= tb
                if NEIGHBOURS[tb.bit_length() - 1] & (free | wb):
                    return True
    if any(gods) and (god or not lim.trivial):
        # The mover's power walks its turns until the first complete one.
        power = power_of(god)
        try:
            power.turns(Gen(p, power, lim, ALL & ~lim.frozen, True, False, first=True))
        except TurnFound:
            return True
        return False
    return bool(_generate(p))


def can_win_now(p: Position) -> bool:
    """Return whether the seat to move has a turn that wins by moving (play phase).

    Search asks this of every position, so the mover's power answers from the bitboards when
    it can; otherwise, and when it sees a win that an opponent's restriction of which moves are
    legal or win may forbid, the full list of turns decides. A win by a build (five towers) is
    not looked for.
    """
    seat = p.to_move
    gods = p.gods
    side = seat & 1 if len(gods) == 4 else seat  # p.side_of(seat)
    mine = p.workers[side]
    if not any(gods):
        # The plain rule alone: a level-2 worker next to a free level-3 square.
        occ = p.domes
        for m in p.workers:
            occ |= m
        top = p.ge3 & ~occ
        on2 = mine & p.ge2 & ~p.ge3
        while on2:
            low = on2 & -on2
            on2 ^= low
            if NEIGHBOURS[low.bit_length() - 1] & top:
                return True
        return False
    opp = 0
    for i, m in enumerate(p.workers):
        if i != side:
            opp |= m
    lim = limits(p, seat)
    quick = power_of(p.gods[seat]).quick_win(p, mine, opp, lim.no_up)
    if quick is None:
        return any(t.path and t.is_win for t in _generate(p))
    if quick and (lim.bound or lim.no_win or lim.frozen or lim.must_up or lim.no_down or lim.walks):
        # These restrictions only take turns away: a win the quick check does not see is
        # none, and one it sees may be forbidden.
        return any(t.path and t.is_win for t in _generate(p))
    return quick


def next_seat(p: Position, seat: int) -> int:
    """Return the seat after ``seat`` in turn order, skipping eliminated seats."""
    n = len(p.gods)
    s = (seat + 1) % n
    while p.eliminated >> s & 1 and s != seat:
        s = (s + 1) % n
    return s


def _build(ge1: int, ge2: int, ge3: int, domes: int, b: int) -> tuple[int, int, int, int]:
    bb = BITS[b]
    if not ge1 & bb:
        return ge1 | bb, ge2, ge3, domes
    if not ge2 & bb:
        return ge1, ge2 | bb, ge3, domes
    if not ge3 & bb:
        return ge1, ge2, ge3 | bb, domes
    return ge1, ge2, ge3, domes | bb


_PLAIN_APPLY: dict[type[Power], bool] = {}


def _is_plain_power(power: Power) -> bool:
    """Whether applying a turn of ``power`` needs no hook but :meth:`Power.displace`."""
    cls = type(power)
    plain = _PLAIN_APPLY.get(cls)
    if plain is None:
        plain = _PLAIN_APPLY[cls] = (
            not power.end_effect
            and cls.after_step is Power.after_step
            and cls.force_square is Power.force_square
            and cls.wins_at_end_of_turn is Power.wins_at_end_of_turn
            and cls.losers_at_end_of_turn is Power.losers_at_end_of_turn
        )
    return plain


def _play(p: Position, turn: Turn) -> Position:
    """Apply a turn known to be legal and settle what follows (the unchecked fast path)."""
    if not any(p.gods):
        plain = _after_plain(p, turn)
        if plain is not None:
            if plain.winner >= 0 or _can_move(plain):
                return plain
            return _settle(plain, p.to_move)
    after = _after(p, turn)
    if after.winner >= 0 or has_legal_turn(after):
        return after
    return _settle(after, p.to_move)


def _after_plain(p: Position, turn: Turn) -> Position | None:
    """``_after`` of a move and builds where no seat has a god (None: another kind of turn).

    The base game's positions are most of those a search makes: this skips every power hook.
    """
    w, path, builds, before, after, post, extra = turn
    if w < 0 or not path or before >= 0 or after >= 0 or post or extra or p.power_state:
        return None
    seat = p.to_move
    gods = p.gods
    n = len(gods)
    side = seat & 1 if n == 4 else seat  # p.side_of(seat)
    workers = p.workers
    mine = workers[side]
    if not mine >> w & 1:
        return None
    moved = mine ^ BITS[w] ^ BITS[path[-1]]
    new: tuple[int, ...]
    if len(workers) == 2:
        new = (moved, workers[1]) if side == 0 else (workers[0], moved)
    else:
        listed = list(workers)
        listed[side] = moved
        new = tuple(listed)
    ge1, ge2, ge3, domes = p.ge1, p.ge2, p.ge3, p.domes
    for b in builds:
        bb = BITS[b & 31]
        if b & (DOME | HERO_DOME):
            domes |= bb
        elif not ge1 & bb:
            ge1 |= bb
        elif not ge2 & bb:
            ge2 |= bb
        elif not ge3 & bb:
            ge3 |= bb
        else:
            domes |= bb
    return Position(
        ge1,
        ge2,
        ge3,
        domes,
        new,
        next_seat(p, seat) if p.eliminated else (seat + 1) % n,
        gods,
        (),
        p.eliminated,
        seat if not builds else -1,
        p.selection,
        p.pool,
        p.naming,
        p.snake,
        p.lost,
    )


def _can_move(p: Position) -> bool:
    """``has_legal_turn`` where no seat has a god: some worker of the mover can move.

    A worker that moves can always build on the square it left.
    """
    seat = p.to_move
    mine = p.workers[seat & 1 if len(p.gods) == 4 else seat]
    occ = p.domes
    for m in p.workers:
        occ |= m
    free = ALL & ~occ
    g1, g2, g3 = p.ge1, p.ge2, p.ge3
    while mine:
        low = mine & -mine
        mine ^= low
        w = low.bit_length() - 1
        if not g1 >> w & 1:
            reach = free & ~g2
        elif not g2 >> w & 1:
            reach = free & ~g3
        else:
            reach = free
        if NEIGHBOURS[w] & reach:
            return True
    return False


def _after(p: Position, turn: Turn) -> Position:
    """The position right after a legal turn, before the next seat's turn is looked at."""
    seat = p.to_move
    gods = p.gods
    god = gods[seat]
    power = power_of(god) if god else MORTAL
    lim = limits(p, seat) if any(gods) else _NO_LIMITS
    side = seat & 1 if len(gods) == 4 else seat  # p.side_of(seat)
    plain = _PLAIN_APPLY.get(type(power))
    if (
        turn.worker >= 0
        and turn.path
        and not turn.extra
        and p.workers[side] >> turn.worker & 1
        and (turn.before < 0 or not turn.before & FORCE)
        and turn.after < 0
        and not turn.post
        and lim.tower_seat < 0
        and not lim.slide
        and (plain if plain is not None else _is_plain_power(power))
    ):
        workers = list(p.workers)
        ge1, ge2, ge3, domes = p.ge1, p.ge2, p.ge3, p.domes
        if turn.before >= 0:
            ge1, ge2, ge3, domes = _build(ge1, ge2, ge3, domes, turn.before)
        w = cur = turn.worker
        if power.forces:
            for s in turn.path:
                sb = BITS[s]
                for j, m in enumerate(workers):
                    if j != side and m & sb:
                        dest = power.displace(cur, s, ([], domes, tuple(workers)))
                        workers[j] = m ^ sb | BITS[dest]
                cur = s
        workers[side] ^= BITS[w] ^ BITS[turn.path[-1]]
        for b in turn.builds:
            if b & (DOME | HERO_DOME):
                domes |= BITS[b & 31]
            else:
                ge1, ge2, ge3, domes = _build(ge1, ge2, ge3, domes, b)
        winner = seat if not turn.builds else -1
        lost = p.lost
        out = 0
    else:
        ge1, ge2, ge3, domes, workers, winner, lost, out = _play_powers(p, turn, power, lim)
    state = p.power_state
    stateful = _STATEFUL.get(gods)
    if stateful is None:
        stateful = _stateful(gods)
    if state or power.flag or stateful:
        new = list(state or ("",) * len(p.gods))
        if not power.stateful:
            new[seat] = power.next_state(p, turn)
        if stateful:
            moved = tuple(power.worker_moves(p, turn))
            where = _tracker(p, turn, power, workers)
            for s, pw in stateful:
                if p.eliminated >> s & 1:
                    continue
                st = new[s][1:-1] if new[s].startswith("[") else ""
                if st:
                    st = pw.follow(st, where)
                st = pw.after_turn(p, s, turn, st, where, moved)
                new[s] = f"[{st}]" if st else ""
        state = tuple(new) if any(new) else ()
    after = Position(
        ge1,
        ge2,
        ge3,
        domes,
        tuple(workers),
        next_seat(p, seat) if p.eliminated else (seat + 1) % len(gods),
        gods,
        state,
        p.eliminated,
        winner,
        p.selection,
        p.pool,
        p.naming,
        p.snake,
        lost,
    )
    if out:
        # Opponents that lost at the end of the turn leave a 3-player game (RULES.md 4, 9).
        for s in range(len(p.gods)):
            if out >> s & 1:
                after = _eliminate(after, s)
        after = replace(after, to_move=next_seat(after, seat))
    return after


_STATEFUL: dict[tuple[str, ...], tuple[tuple[int, Power], ...]] = {}


def _stateful(gods: tuple[str, ...]) -> tuple[tuple[int, Power], ...]:
    """The seats whose powers keep a state in brackets (RULES.md 10.1), cached by the gods."""
    found = _STATEFUL.get(gods)
    if found is None:
        found = _STATEFUL[gods] = tuple(
            (s, power_of(name)) for s, name in enumerate(gods) if power_of(name).stateful
        )
    return found


def _tracker(p: Position, turn: Turn, power: Power, after: list[int]) -> Callable[[int], int]:
    """Where the worker on each square of ``p`` ended ``turn`` (-1: it left the board).

    RULES.md 10.4: a state's square follows its worker. The moves the turn's text names come
    first; any other worker that left its square went to the one square of its side that
    a worker came to unexplained (the nearest, if several), or left the board.
    """
    known = dict(power.worker_moves(p, turn))
    tos = set(known.values())

    def where(sq: int) -> int:
        if sq in known:
            to = known[sq]
            return to if any(m >> to & 1 for m in after) else -1
        side = p.worker_side(sq)
        if side < 0:
            return -1
        if after[side] >> sq & 1:
            return sq
        came = [t for t in bits(after[side] & ~p.workers[side]) if t not in tos]
        if not came:
            return -1
        return min(came, key=lambda t: (max(abs(t % 5 - sq % 5), abs(t // 5 - sq // 5)), t))

    return where


def _play_powers(
    p: Position, turn: Turn, power: Power, lim: Limits
) -> tuple[int, int, int, int, list[int], int, int, int]:
    """Apply a turn step by step through the mover's power (RULES.md section 8).

    Returns the levels, domes and workers after it, the winner (-1: none), the sides that
    lost a worker, and the sides that lost the game and leave it (three players).
    """
    seat = p.to_move
    g = Gen(p, power, lim, 0, False, True)
    bd: Board = g.board
    side = g.side

    def done(
        bd: Board, winner: int, out: int = 0
    ) -> tuple[int, int, int, int, list[int], int, int, int]:
        lv, domes, workers = bd
        ge1 = ge2 = ge3 = 0
        for s, h in enumerate(lv):
            if h > 0:
                b = BITS[s]
                ge1 |= b
                if h > 1:
                    ge2 |= b
                    if h > 2:
                        ge3 |= b
        lost = p.lost
        for i, m in enumerate(workers):
            if m.bit_count() < p.workers[i].bit_count():
                lost |= 1 << i
        return ge1, ge2, ge3, domes, list(workers), winner, lost, out

    def build(bd: Board, b: int) -> tuple[Board, bool]:
        bd = build_on(bd, b & 31, bool(b & (DOME | HERO_DOME)))
        return bd, g.tower_win(bd)

    def put(bd: Board, frm: int, to: int, j: int = side) -> Board:
        if frm == to:
            return bd
        lv, domes, workers = bd
        moved = list(workers)
        moved[j] ^= BITS[frm] | BITS[to]
        return lv, domes, tuple(moved)

    def place(bd: Board) -> Board:
        # Workers put on the board next to a dome at once (RULES.md 10.5): before the
        # end of the turn, whose powers see them.
        placed = turn.ops(OP_PLACE)
        if not placed:
            return bd
        lv, domes, workers = bd
        moved = list(workers)
        for s, pw in special_powers(p.gods):
            if pw.reacts:
                moved[p.side_of(s)] |= sum(BITS[v & 31] for v in placed)
        return lv, domes, tuple(moved)

    if turn.extra:
        bd = power.begin(bd, turn, g)
    if turn.worker == -1:
        lv, domes, workers = bd
        if turn.path:
            moved = list(workers)
            moved[side] = sum(BITS[s] for s in turn.path)
            bd = (lv, domes, tuple(moved))
        for b in turn.builds:
            bd, won = build(bd, b)
            if won:
                return done(bd, lim.tower_seat)
        return done(place(bd) if turn.extra else bd, -1)
    if turn.worker < -1:
        # Every worker's turn (RULES.md 9): each moves once (a win ends the turn), then
        # each builds once; the squares are where the workers came to rest.
        path = turn.path
        for i in range(0, len(path), 2):
            frm, to = path[i], path[i + 1]
            step = _step_square(frm, to, lim)
            bd = put(bd, frm, step)
            if power.is_win(g, frm, step, bd):
                return done(bd, seat)
            if step != to:
                bd = put(bd, step, to)
        if turn.worker == MOVE_ALL:
            return done(bd, -1)
        if turn.worker != BUILD_ALL and not turn.builds:
            return done(bd, seat)
        for b in turn.builds:
            bd, won = build(bd, b)
            if won:
                return done(bd, lim.tower_seat)
        return done(place(bd) if turn.extra else bd, -1)
    w = cur = turn.worker
    if turn.extra and turn.ops(OP_ENTER):
        lv, domes, workers = bd
        bd = (lv, domes, tuple(m | BITS[w] if i == side else m for i, m in enumerate(workers)))
    wside = side
    if not bd[2][side] >> w & 1:
        # A power that moves another side's worker (RULES.md 10.5): that side's worker moves.
        wside = next(i for i, m in enumerate(bd[2]) if m >> w & 1)
    if turn.before >= 0:
        if turn.before & FORCE:
            v = turn.before & 31
            dest = power.force_square(w, v, bd)
            lv, domes, workers = bd
            bd = (lv, domes, tuple(m ^ BITS[v] | BITS[dest] if m & BITS[v] else m for m in workers))
        else:
            bd, won = build(bd, turn.before)
            if won:
                return done(bd, lim.tower_seat)
    for s in turn.path:
        # Under an opponent's slide the path holds where the worker came to rest: the step
        # itself went to the first square on the way (RULES.md section 9, a slide).
        step = _step_square(cur, s, lim) if power.forces or _has_after_step(power) else s
        lv, domes, workers = bd
        moved = list(workers)
        sb = BITS[step]
        for j, m in enumerate(moved):
            if j != wside and m & sb:
                moved[j] = m ^ sb | BITS[power.displace(cur, step, bd)]
        if step != cur:
            moved[wside] ^= BITS[cur] | sb
        bd = power.after_step(cur, step, (lv, domes, tuple(moved)), g)
        if step != s:
            bd = put(bd, step, s, wside)
        cur = s
    for op in turn.post:
        code, sq = op >> 5, op & 31
        if code == DRAG:
            bd = put(bd, sq, w, next(j for j, m in enumerate(bd[2]) if m >> sq & 1))
        elif code == PULL:
            bd = put(bd, sq, w)
    if turn.is_win:
        return done(bd, seat)
    for b in turn.builds:
        bd, won = build(bd, b)
        if won:
            return done(bd, lim.tower_seat)
    if turn.extra:
        bd = place(bd)
    if turn.after >= 0:
        lv, domes, workers = bd
        lv = lv.copy()
        lv[turn.after] -= 1
        bd = (lv, domes, workers)
    swap = [op & 31 for op in turn.post if op >> 5 == SWAP]
    if swap:
        lv, domes, workers = bd
        named = BITS[swap[0]] | BITS[swap[1]]
        mine = workers[side]
        bd = (
            lv,
            domes,
            tuple(
                named if j == side else m & ~named | (mine if m & named else 0)
                for j, m in enumerate(workers)
            ),
        )
    for op in turn.post:
        code, sq = op >> 5, op & 31
        if code == STAR:
            bd, won = build(bd, sq | DOME)
            if won:
                return done(bd, lim.tower_seat)
        elif code in (GAIN, DROP):
            lv, domes, workers = bd
            moved = list(workers)
            moved[side] ^= BITS[sq]
            bd = (lv, domes, tuple(moved))
    if power.end_effect:
        bd = power.end_of_turn(bd, g)
    if turn.extra:
        bd, won = power.finish(bd, turn, g)
        if won:
            return done(bd, lim.tower_seat)
    if power.wins_at_end_of_turn(bd, g):
        return done(bd, seat)
    out = power.losers_at_end_of_turn(bd, g)
    if out:
        live = sum(1 << i for i, m in enumerate(bd[2]) if i != side and not p.eliminated >> i & 1)
        if out & live == live:
            return done(bd, seat)
        return done(bd, -1, out & live)
    return done(bd, -1)


def _has_after_step(power: Power) -> bool:
    return type(power).after_step is not Power.after_step


def _step_square(frm: int, rest: int, lim: Limits) -> int:
    """The square a step from ``frm`` went to, when it came to rest on ``rest``.

    The same square unless an opponent's slide moved the worker on: then the first square
    from ``frm`` towards ``rest`` (a slide goes straight on, so the line says it).
    """
    if not lim.slide or frm == rest or NEIGHBOURS[frm] >> rest & 1:
        return rest
    df = rest % 5 - frm % 5
    dr = rest // 5 - frm // 5
    return frm + (df > 0) - (df < 0) + 5 * ((dr > 0) - (dr < 0))


def _eliminate(p: Position, seat: int) -> Position:
    """Remove ``seat`` from a 3-player game: its workers leave (RULES.md section 4)."""
    workers = list(p.workers)
    workers[seat] = 0
    state = p.power_state
    if state and state[seat]:
        new = list(state)
        new[seat] = ""
        state = tuple(new) if any(new) else ()
    return replace(
        p,
        workers=tuple(workers),
        eliminated=p.eliminated | 1 << seat,
        power_state=state,
        lost=p.lost & ~(1 << seat),
    )


def _remaining(p: Position) -> list[int]:
    return [s for s in range(len(p.gods)) if not p.eliminated >> s & 1]


def _settle(p: Position, mover: int) -> Position:
    """Pass the move on; a seat with no complete turn loses (and leaves, with 3 players)."""
    nxt = next_seat(p, mover)
    while True:
        p = replace(p, to_move=nxt)
        if has_legal_turn(p):
            return p
        if len(p.gods) == 3 and len(_remaining(p)) > 2:
            p = _eliminate(p, nxt)
            nxt = next_seat(p, nxt)
            continue
        return replace(p, winner=_other_than(p, nxt))


def _other_than(p: Position, loser: int) -> int:
    """The winning seat when ``loser`` loses with one opponent (side) left."""
    s = next_seat(p, loser)
    if len(p.gods) == 4 and (s & 1) == (loser & 1):
        s = next_seat(p, s)
    return s


def settle_start(p: Position) -> Position:
    """The first turn of play: the start player moves, or loses if it cannot (RULES.md 2)."""
    first = 0
    while p.eliminated >> first & 1:
        first += 1
    q = replace(p, to_move=first)
    return q if has_legal_turn(q) else _settle(q, (first - 1) % len(p.gods))


def find_turn(p: Position, text: str) -> Turn:
    """Return the legal turn written as ``text`` (any case, RULES.md section 7).

    Builds whose order does not matter may come in any order (protocol/SPEC.md 2.1).

    Raises:
        InvalidTurnError: the text is not turn notation.
        IllegalTurnError: the turn is not legal in ``p``.
    """
    turn = parse_turn(text)
    if is_legal(p, turn):
        return turn
    same = _reordered(p, turn)
    if same is not None:
        return same
    none = without_builds(p, turn)
    if none is not turn:
        return none
    raise IllegalTurnError(f"illegal turn: {text!r} in {format_position(p)}")


def _reordered(p: Position, turn: Turn) -> Turn | None:
    """The one legal turn that is ``turn`` with its builds in another order, or None."""
    if len(turn.builds) < 2 or turn.worker == -1 or p.phase is not Phase.PLAY:
        return None
    if limits(p).tower_seat >= 0:
        # A build can end the game part-way, so the order typed is the order meant.
        return None
    key = sorted(turn.builds)
    found = [
        t
        for t in _turns_of(p, turn.worker)
        if t.worker == turn.worker
        and t.path == turn.path
        and t.before == turn.before
        and t.after == turn.after
        and sorted(t.builds) == key
    ]
    return found[0] if len(found) == 1 else None


def turn_form(p: Position, turn: Turn) -> Turn | None:
    """Return the legal turn that ``turn`` stands for in ``p``, or None if there is none.

    That is ``turn`` itself when it is legal; otherwise the same builds in another order, the
    turn the mover's power writes it as (a plain one-step turn on one level is written in the
    ``H`` form), or the one legal turn with the same end and builds when the power may walk
    another path there. For reading what a player types; a record in a log
    must carry the canonical text itself.
    """
    if is_legal(p, turn):
        return turn
    same = _reordered(p, turn)
    if same is not None:
        return same
    read = without_builds(p, turn)
    if read is not turn:
        return read if is_legal(p, read) else None
    power = power_of(p.gods[p.to_move])
    alias = power.alias(p, turn)
    if alias is not None and is_legal(p, alias):
        return alias
    if turn.worker >= 0 and turn.path and power.walks(p, turn, limits(p).no_up):
        ends = [
            t
            for t in _turns_of(p, turn.worker)
            if t.path
            and (t.path[-1], t.builds, t.before, t.after)
            == (turn.path[-1], turn.builds, turn.before, turn.after)
        ]
        if len(ends) == 1:
            return ends[0]
    return None


def is_legal(p: Position, turn: Turn) -> bool:
    """Return whether ``turn`` is a complete legal turn in ``p``.

    Only the turns that may equal it are generated (:func:`_candidates`), unless a power
    makes the legality of one turn depend on the others ("must move up", a narrowing power).
    """
    if p.phase is not Phase.PLAY or not isinstance(turn, Turn):
        return False
    w = turn.worker
    if w >= 25:
        return False
    if w >= 0 and not p.workers[p.side_of(p.to_move)] >> w & 1:
        # Another side's worker, or one placed in the turn: all turns.
        if not (turn.extra or power_of(p.gods[p.to_move]).moves_others):
            return False
        return turn in set(_generate(p))
    return turn in set(_candidates(p, turn))


def _candidates(p: Position, turn: Turn) -> list[Turn]:
    """The legal turns of ``turn``'s worker (-1: of both) that may be ``turn``; others too.

    The choices powers add to a turn (RULES.md 10: end-of-turn domes, a reacting seat's
    workers) only add to its power steps (``Turn.extra``) and, when a reaction makes a
    worker's end-of-turn choice again, to what follows its build (``Turn.post``). So only
    the turns with ``turn``'s steps, builds and build timing are extended: a turn of many
    domes against a power that answers each dome lists the answers to that turn, not the
    million turns of the position.
    """
    w = turn.worker
    if _needs_every_turn(p):
        return _generate(p)
    turns = _run(p, BITS[w] if w >= 0 else 0, w < 0, False)[0]
    if special_powers(p.gods):
        key = turn[:5]  # worker, path, builds, before, after
        turns = _extend(p, [t for t in turns if t[:5] == key])
    return turns


def turns_from(p: Position, start: str) -> list[Turn]:
    """Return the legal turns whose text starts with ``start``, sorted by turn text.

    What another seat is asked in the mover's turn (``choices``) names the turn up to a dome:
    only the turns whose own steps and builds may be written so are extended by the powers
    (as in :func:`_candidates`), not the million turns of a position where a power answers
    each of many domes. All turns are listed when a power makes one turn's legality depend on
    the others.
    """
    if p.phase is not Phase.PLAY:
        return []
    if special_powers(p.gods) and not _needs_every_turn(p):
        own = _PLACED.sub("", start)
        turns = _extend(p, [t for t in _run(p, ALL, True, False)[0] if _may_start(t, own)])
    else:
        turns = _generate(p)
    return sorted((t for t in turns if str(t).startswith(start)), key=str)


_PLACED: Final = re.compile(r"\+[a-e][1-5]")
"""A worker another seat puts down, written in the mover's turn (RULES.md 10.3)."""


def _may_start(turn: Turn, own: str) -> bool:
    """Whether a turn the powers extend from ``turn`` may be written as ``own`` begins.

    ``own`` is a turn's beginning without the workers other seats put down (``+`` squares,
    written after the dome they answer). The powers' choices add power steps after the
    turn's own steps, or a letter form before them; they never change the worker, the step
    before moving, the path, a drag, the builds or a block removed (:func:`_candidates`).
    """
    if turn.worker < 0 or not own[:1].islower():
        return True
    steps = str(turn._replace(post=tuple(op for op in turn.post if op >> 5 < STAR)))
    n = min(len(steps), len(own))
    return steps[:n] == own[:n]


def _needs_every_turn(p: Position) -> bool:
    """Whether one turn's legality in ``p`` depends on the others (must move up, a narrowing).

    Then no part of the turns is judged alone: every turn is listed.
    """
    return any(p.gods) and (limits(p).must_up or _narrowing(p.gods))


def _narrowing(gods: tuple[str, ...]) -> bool:
    """Whether a power in play narrows turns by the others (its verdict needs all of them)."""
    return any(pw.filters for _, pw in special_powers(gods))


def _turns_of(p: Position, worker: int) -> list[Turn]:
    """The legal turns of the worker on ``worker`` (-1: the turns of both workers).

    All turns are generated when a power makes one turn's legality depend on the others.
    """
    if any(p.gods) and (limits(p).must_up or special_powers(p.gods)):
        return [t for t in _generate(p) if t.worker == worker]
    return _generate(p, BITS[worker] if worker >= 0 else 0, worker < 0)


def without_builds(p: Position, turn: Turn) -> Turn:
    """The turn a text stands for in ``p``, where the text alone reads two ways.

    A power's turn with zero builds (RULES.md 10.3) is written as a winning move is; where
    that text is not a legal win, it is the turn with no build. A ``+`` last is read as the
    mover's worker gained (RULES.md 9); where that is not legal, it is a worker put next to
    the dome before it (RULES.md 10.3). Otherwise ``turn`` itself.
    """
    if turn.path and not turn.builds and turn.is_win and not is_legal(p, turn):
        none = turn._replace(extra=(*turn.extra, OP_NONE << 10))
        if is_legal(p, none):
            return none
    if turn.post and any(op >> 5 == GAIN for op in turn.post) and not is_legal(p, turn):
        placed = as_placements(turn)
        if is_legal(p, placed):
            return placed
    return turn


def as_placements(turn: Turn) -> Turn:
    """``turn`` with each ``+`` read as a worker put next to the dome before it (RULES.md 10.3).

    The dome before it: the last build, or the ``*`` dome once one is written.
    """
    nb = len(turn.builds)
    k = nb - 1
    post: list[int] = []
    places: list[int] = []
    for op in turn.post:
        code = op >> 5
        if code == GAIN:
            places.append(OP_PLACE << 10 | k << 5 | op & 31)
            continue
        if code == STAR:
            k = nb
        post.append(op)
    rest = [e for e in turn.extra if e >> 10 != OP_PLACE]
    places += [e for e in turn.extra if e >> 10 == OP_PLACE]
    return turn._replace(post=tuple(post), extra=(*rest, *sorted(places)))


def apply(p: Position, turn: Turn) -> Position:
    """Return the position after ``turn``; ``p`` is left as it was.

    Raises:
        IllegalTurnError: ``turn`` is not legal in ``p``.
    """
    turn = without_builds(p, turn)
    if not is_legal(p, turn):
        raise IllegalTurnError(f"illegal turn: {str(turn)!r} in {format_position(p)}")
    return _play(p, turn)


def resign(p: Position, seat: int) -> Position:
    """Return the position after ``seat`` resigns (RULES.md section 5).

    With 3 players in play the seat's workers leave and the others play on; otherwise its
    side loses. A resignation during setup with 3 players ends the game with no winner.

    Raises:
        IllegalTurnError: the game is over, or ``seat`` is not in it.
    """
    if p.phase is Phase.OVER:
        raise IllegalTurnError(f"seat {seat + 1} cannot resign: the game is over")
    if not 0 <= seat < len(p.gods) or p.eliminated >> seat & 1:
        raise IllegalTurnError(f"seat {seat + 1} is not playing")
    if len(p.gods) != 3:
        return replace(p, winner=_other_than(p, seat))
    if p.phase is not Phase.PLAY:
        return replace(p, winner=NO_WINNER)
    q = _eliminate(p, seat)
    left = _remaining(q)
    if len(left) == 1:
        return replace(q, winner=left[0])
    if p.to_move == seat:
        return _settle(q, seat)
    return q


def end_by_agreement(p: Position) -> Position:
    """Return the position of a game the players ended by agreement (a draw or an abort).

    Nobody wins (the winner is ``NO_WINNER``); RULES.md has no draws, so this exists only as
    the engine's side of an agreement every seat signed (protocol/SPEC.md).

    Raises:
        IllegalTurnError: the game is already over.
    """
    if p.phase is Phase.OVER:
        raise IllegalTurnError("the game is already over")
    return replace(p, winner=NO_WINNER)


lose_on_time = resign
"""A seat whose time runs out loses exactly as if it resigned (RULES.md section 5)."""


def outcome(p: Position) -> Outcome:
    """Return whether the game is over, who won, and who lost.

    A position whose seat to move has no complete turn (as given in a position string) counts
    as lost for that seat; with 3 players that seat is eliminated and play would go on.
    """
    if p.winner == NO_WINNER:
        return Outcome(True, None, tuple(range(len(p.gods))))
    if p.winner >= 0:
        w = p.winner
        losers = tuple(s for s in range(len(p.gods)) if p.side_of(s) != p.side_of(w))
        return Outcome(True, w, losers)
    if p.phase is Phase.PLAY and not has_legal_turn(p):
        if len(p.gods) == 3 and len(_remaining(p)) > 2:
            return Outcome(False, None, (p.to_move,))
        w = _other_than(p, p.to_move)
        losers = tuple(s for s in range(len(p.gods)) if p.side_of(s) != p.side_of(w))
        return Outcome(True, w, losers)
    losers = tuple(s for s in range(len(p.gods)) if p.eliminated >> s & 1)
    return Outcome(False, None, losers)


def apply_unchecked(p: Position, turn: Turn) -> Position:
    """Apply a turn taken from ``generate_turns(p)`` without checking it: the fast path."""
    return _play(p, turn)
