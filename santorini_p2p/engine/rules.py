"""The rule kernel: complete legal turns, applying them, eliminations and outcomes.

Implements RULES.md sections 2, 4, 5 and 6 for the play phase; ``setup.py`` handles the
setup phase and ``legal_actions``/``apply_action`` there cover every phase.
"""

from __future__ import annotations

from dataclasses import replace

from santorini_p2p.engine.position import NO_WINNER, Outcome, Phase, Position, Turn
from santorini_p2p.engine.squares import ALL, BITS, NEIGHBOURS, PUSH, bits
from santorini_p2p.errors import IllegalTurnError

__all__ = [
    "apply",
    "apply_unchecked",
    "athena_restricts",
    "end_by_agreement",
    "find_turn",
    "generate_turns",
    "has_legal_turn",
    "hermes_form",
    "is_legal",
    "legal_turns",
    "lose_on_time",
    "next_seat",
    "outcome",
    "plain_form",
    "resign",
    "turn_sort_key",
]


def _levels(p: Position) -> list[int]:
    g1, g2, g3 = p.ge1, p.ge2, p.ge3
    return [(g1 >> s & 1) + (g2 >> s & 1) + (g3 >> s & 1) for s in range(25)]


def athena_restricts(p: Position, seat: int) -> bool:
    """Return whether Athena's power stops ``seat`` from moving up now (RULES.md section 6)."""
    if not p.athena or "athena" not in p.gods:
        return False
    a = p.gods.index("athena")
    if a == seat or p.eliminated >> a & 1:
        return False
    return not (len(p.gods) == 4 and (a & 1) == (seat & 1))


def _reach(p: Position, restricted: bool) -> tuple[int, int, int, int]:
    """Masks of squares a worker on level 0..3 may move to by level (not occupancy)."""
    if restricted:
        return (ALL ^ p.ge1, ALL ^ p.ge2, ALL ^ p.ge3, ALL)
    return (ALL ^ p.ge2, ALL ^ p.ge3, ALL, ALL)


def _builds(
    out: list[Turn],
    god: str,
    worker: int,
    path: tuple[int, ...],
    free: int,
    lv: list[int],
    prebuild: int = -1,
) -> None:
    """Append every turn ending with builds on the squares of ``free``."""
    for b in bits(free):
        out.append(Turn(worker, path, (b,), prebuild))
        if god == "atlas":
            if lv[b] < 3:
                out.append(Turn(worker, path, (b,), prebuild, True))
        elif god == "hephaestus":
            if lv[b] <= 1:
                out.append(Turn(worker, path, (b, b), prebuild))
        elif god == "demeter":
            for b2 in bits(free & ~((2 << b) - 1)):
                out.append(Turn(worker, path, (b, b2), prebuild))


def _by_level(p: Position) -> tuple[int, int, int, int]:
    """Bitboards of the squares of exactly level 0, 1, 2 and 3."""
    return (ALL ^ p.ge1, p.ge1 ^ p.ge2, p.ge2 ^ p.ge3, p.ge3)


def _component(start: int, graph: int) -> int:
    """Return the 8-connected component of ``graph`` (a bitboard) that holds ``start``."""
    seen = BITS[start]
    frontier = seen
    while frontier:
        grow = 0
        for s in bits(frontier):
            grow |= NEIGHBOURS[s]
        frontier = grow & graph & ~seen
        seen |= frontier
    return seen


def _hermes_reach(p: Position, mine: int, opp: int, lv: list[int]) -> tuple[int, int, int] | None:
    """Where Hermes' two workers can end a power turn: ``(worker 1, its area, the other's)``.

    Each worker may step any number of times over free squares of its own level. When the two
    areas touch, they are one area (the second is 0) and the workers may end on any two of
    its squares; otherwise each ends in its own. None: the seat does not have two workers.
    """
    ws = bits(mine)
    if len(ws) != 2:
        return None
    w1, w2 = ws
    by_level = _by_level(p)
    open_ = ALL & ~p.domes & ~opp
    c1 = _component(w1, by_level[lv[w1]] & open_)
    if c1 >> w2 & 1:
        return w1, c1, 0
    return w1, c1, _component(w2, by_level[lv[w2]] & open_)


def _hermes_turns(out: list[Turn], p: Position, mine: int, opp: int, lv: list[int]) -> None:
    """Append Hermes' power turns: same-level steps of both workers, then one build."""
    area = _hermes_reach(p, mine, opp, lv)
    if area is None:
        return
    _, c1, c2 = area
    pairs: set[tuple[int, int]] = set()
    if not c2:
        sq = bits(c1)
        for i, a in enumerate(sq):
            for b in sq[i + 1 :]:
                pairs.add((a, b))
    else:
        for a in bits(c1):
            for b in bits(c2):
                pairs.add((a, b) if a < b else (b, a))
    blocked = p.domes | opp
    for a, b in pairs:
        free = (NEIGHBOURS[a] | NEIGHBOURS[b]) & ~(blocked | BITS[a] | BITS[b])
        for s in bits(free):
            out.append(Turn(-1, (a, b), (s,), -1, False, True))


def _hermes_legal(p: Position, turn: Turn) -> bool:
    """Whether ``turn`` is one of Hermes' power turns in ``p``, without listing them."""
    if p.gods[p.to_move] != "hermes" or len(turn.path) != 2 or len(turn.builds) != 1:
        return False
    if turn.worker != -1 or turn.prebuild != -1 or turn.dome:
        return False
    a, b = turn.path
    build = turn.builds[0]
    if not (0 <= a < b < 25 and 0 <= build < 25):
        return False
    side = p.side_of(p.to_move)
    mine = p.workers[side]
    opp = 0
    for i, m in enumerate(p.workers):
        if i != side:
            opp |= m
    area = _hermes_reach(p, mine, opp, _levels(p))
    if area is None:
        return False
    _, c1, c2 = area
    ends = BITS[a] | BITS[b]
    # Both ends in the area(s); with two areas, one worker ends in each.
    placed = ends & (c1 | c2) == ends and (not c2 or bool(ends & c1 and ends & c2))
    free = (NEIGHBOURS[a] | NEIGHBOURS[b]) & ~(p.domes | opp | ends)
    return placed and bool(free >> build & 1)


def hermes_form(p: Position, turn: Turn) -> Turn | None:
    """Return the Hermes power turn that the plain turn ``turn`` is the same as, or None.

    A Hermes player's turn of one step on one level, then a build next to that worker, is
    written only as a power turn (RULES.md section 7: ``b2>a1^a2`` is ``Ha1,d4^a2`` with the
    other worker on d4). This maps the plain spelling a player may type to that text. None
    when ``turn`` is not such a turn; the power turn returned may still be illegal.
    """
    if (
        p.phase is not Phase.PLAY
        or p.gods[p.to_move] != "hermes"
        or turn.hermes
        or turn.prebuild != -1
        or turn.dome
        or len(turn.path) != 1
        or len(turn.builds) != 1
    ):
        return None
    w, t, build = turn.worker, turn.path[0], turn.builds[0]
    if not (0 <= w < 25 and 0 <= t < 25 and 0 <= build < 25):
        return None
    mine = p.workers[p.side_of(p.to_move)]
    rest = mine & ~BITS[w]
    if not (mine >> w & 1 and NEIGHBOURS[w] >> t & 1 and NEIGHBOURS[t] >> build & 1):
        return None
    if rest & (rest - 1) or not rest or rest >> t & 1 or p.level(w) != p.level(t):
        return None
    other = bits(rest)[0]
    return Turn(-1, (min(t, other), max(t, other)), (build,), -1, False, True)


def plain_form(p: Position, turn: Turn) -> Turn | None:
    """Return the plain spelling of the Hermes power turn ``turn``, or None if it has none.

    The inverse of :func:`hermes_form`: a power turn in which one worker takes one step and
    then builds next to itself can be typed as that worker's plain turn.
    """
    if not turn.hermes or p.phase is not Phase.PLAY:
        return None
    mine = p.workers[p.side_of(p.to_move)]
    ends = turn.path
    for w in bits(mine):
        other = bits(mine & ~BITS[w])
        if len(other) != 1 or other[0] not in ends:
            continue
        t = ends[1] if ends[0] == other[0] else ends[0]
        plain = Turn(w, (t,), turn.builds)
        if hermes_form(p, plain) == turn:
            return plain
    return None


def _generate(p: Position, worker: int = -1, first: int = -1, hermes: bool = True) -> list[Turn]:
    """Every complete legal turn of the seat to move, unsorted (RULES.md sections 2 and 6).

    ``worker``/``first`` narrow the search to turns of the worker on that square whose move
    goes to ``first`` first (-1: any; a worker of -2 skips plain turns); ``hermes`` includes
    Hermes' power turns. ``is_legal`` uses them to check one turn without listing all.
    """
    seat = p.to_move
    god = p.gods[seat]
    side = p.side_of(seat)
    mine = p.workers[side]
    opp = 0
    for i, m in enumerate(p.workers):
        if i != side:
            opp |= m
    occ = mine | opp | p.domes
    lv = _levels(p)
    reach = _reach(p, athena_restricts(p, seat))
    by_level = _by_level(p)
    movers = mine if worker == -1 else mine & BITS[worker] if worker >= 0 else 0
    only = ALL if first < 0 else BITS[first]
    out: list[Turn] = []
    for w in bits(movers):
        h = lv[w]
        wb = BITS[w]
        nb = NEIGHBOURS[w]
        step = nb & ~occ & reach[h] & only
        if god == "hermes":
            # A same-level move then a build is a power turn, written only in the H form.
            step &= ~by_level[h]
        for t in bits(step):
            ht = lv[t]
            if (ht == 3 and h < 3) or (god == "pan" and h - ht >= 2):
                out.append(Turn(w, (t,)))
                continue
            occ1 = occ ^ wb ^ BITS[t]
            _builds(out, god, w, (t,), NEIGHBOURS[t] & ~occ1, lv)
            if god == "artemis":
                for t2 in bits(NEIGHBOURS[t] & ~occ1 & reach[ht] & ~wb):
                    if lv[t2] == 3 and ht < 3:
                        out.append(Turn(w, (t, t2)))
                        continue
                    occ2 = occ ^ wb ^ BITS[t2]
                    _builds(out, god, w, (t, t2), NEIGHBOURS[t2] & ~occ2, lv)
        if god == "apollo" or god == "minotaur":
            for t in bits(nb & opp & reach[h] & only):
                if god == "apollo":
                    occ1 = occ
                else:
                    ps = PUSH[w][t]
                    if ps < 0 or occ >> ps & 1:
                        continue
                    occ1 = occ ^ wb ^ BITS[ps]
                if lv[t] == 3 and h < 3:
                    out.append(Turn(w, (t,)))
                    continue
                _builds(out, god, w, (t,), NEIGHBOURS[t] & ~occ1, lv)
        elif god == "prometheus":
            for pb in bits(nb & ~occ):
                lv2 = lv.copy()
                occ_pb = occ
                if lv[pb] == 3:
                    occ_pb |= BITS[pb]
                else:
                    lv2[pb] += 1
                for t in bits(nb & ~occ_pb & only):
                    if lv2[t] > h:
                        continue
                    occ1 = occ_pb ^ wb ^ BITS[t]
                    _builds(out, god, w, (t,), NEIGHBOURS[t] & ~occ1, lv2, pb)
    if god == "hermes" and hermes:
        _hermes_turns(out, p, mine, opp, lv)
    return out


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


def has_legal_turn(p: Position) -> bool:
    """Return whether the seat to move has at least one complete turn (quick check first)."""
    side = p.side_of(p.to_move)
    mine = p.workers[side]
    occ = p.domes
    for m in p.workers:
        occ |= m
    free = ALL & ~occ
    reach = _reach(p, athena_restricts(p, p.to_move))
    g1, g2, g3 = p.ge1, p.ge2, p.ge3
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
            # The square just left is always free to build on, but check in general.
            if NEIGHBOURS[tb.bit_length() - 1] & (free | wb):
                return True
    return bool(_generate(p))


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


def _play(p: Position, turn: Turn) -> Position:
    """Apply a turn known to be legal and settle what follows (the unchecked fast path)."""
    seat = p.to_move
    god = p.gods[seat]
    side = p.side_of(seat)
    workers = list(p.workers)
    ge1, ge2, ge3, domes = p.ge1, p.ge2, p.ge3, p.domes
    athena = p.athena
    if turn.hermes:
        a, b = turn.path
        workers[side] = BITS[a] | BITS[b]
    else:
        w = cur = turn.worker
        if turn.prebuild >= 0:
            ge1, ge2, ge3, domes = _build(ge1, ge2, ge3, domes, turn.prebuild)
        for s in turn.path:
            sb = BITS[s]
            for j, m in enumerate(workers):
                if j != side and m & sb:
                    dest = cur if god == "apollo" else PUSH[cur][s]
                    workers[j] = m ^ sb ^ BITS[dest]
                    break
            cur = s
        workers[side] ^= BITS[w] ^ BITS[cur]
        if god == "athena":
            athena = p.level(turn.path[0]) > p.level(w)
    for b in turn.builds:
        if turn.dome:
            domes |= BITS[b]
        else:
            ge1, ge2, ge3, domes = _build(ge1, ge2, ge3, domes, b)
    nxt = next_seat(p, seat)
    won = not turn.builds and not turn.hermes
    after = Position(
        ge1,
        ge2,
        ge3,
        domes,
        tuple(workers),
        nxt,
        p.gods,
        athena,
        p.eliminated,
        seat if won else -1,
        p.selection,
        p.pool,
        p.naming,
        p.snake,
    )
    if won or has_legal_turn(after):
        return after
    return _settle(after, seat)


def _eliminate(p: Position, seat: int) -> Position:
    """Remove ``seat`` from a 3-player game: its workers leave (RULES.md section 4)."""
    workers = list(p.workers)
    workers[seat] = 0
    athena = p.athena and p.gods[seat] != "athena"
    return replace(p, workers=tuple(workers), eliminated=p.eliminated | 1 << seat, athena=athena)


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


def find_turn(p: Position, text: str) -> Turn:
    """Return the legal turn written as ``text`` (any case, RULES.md section 7).

    Raises:
        InvalidTurnError: the text is not turn notation.
        IllegalTurnError: the turn is not legal in ``p``.
    """
    from santorini_p2p.engine.notation import format_position, parse_turn

    turn = parse_turn(text)
    if not is_legal(p, turn):
        raise IllegalTurnError(f"illegal turn: {text!r} in {format_position(p)}")
    return turn


def is_legal(p: Position, turn: Turn) -> bool:
    """Return whether ``turn`` is a complete legal turn in ``p``.

    Decided directly for a move over free squares and for a Hermes power turn; a move onto an
    occupied square (Apollo, Minotaur) generates only the turns that share the worker and first
    move. Checking a turn from a peer so costs a fraction of listing them all.
    """
    if p.phase is not Phase.PLAY or not isinstance(turn, Turn) or not turn.path:
        return False
    if turn.hermes:
        return _hermes_legal(p, turn)
    if not (0 <= turn.worker < 25 and 0 <= turn.path[0] < 25):
        return False
    plain = _plain_legal(p, turn)
    if plain is not None:
        return plain
    return turn in _generate(p, turn.worker, turn.path[0], False)


def _plain_legal(p: Position, turn: Turn) -> bool | None:
    """Whether a turn of one worker over free squares is legal, decided without generating.

    That covers every turn but a move onto an occupied square (Apollo, Minotaur), for which it
    returns None, leaving it to the generator, and Hermes' power turns (checked before).
    """
    path = turn.path
    steps = len(path)
    pb = turn.prebuild
    seat = p.to_move
    god = p.gods[seat]
    if steps != 1 and (steps != 2 or god != "artemis"):
        return False
    if pb != -1 and (god != "prometheus" or not 0 <= pb < 25):
        return False
    w, t = turn.worker, path[0]
    wb, tb = BITS[w], BITS[t]
    workers = p.workers
    mine = workers[seat & 1 if len(p.gods) == 4 else seat]
    if not mine & wb or not NEIGHBOURS[w] & tb:
        return False
    occ = p.domes
    for m in workers:
        occ |= m
    g1, g2, g3, domes = p.ge1, p.ge2, p.ge3, p.domes
    h = (g1 >> w & 1) + (g2 >> w & 1) + (g3 >> w & 1)
    if pb != -1:
        # Prometheus builds first, next to the worker, which then may not move up.
        if not NEIGHBOURS[w] >> pb & 1 or occ >> pb & 1:
            return False
        g1, g2, g3, domes = _build(g1, g2, g3, domes, pb)
        occ |= domes
        if occ & tb:
            return False
        if (g1 >> t & 1) + (g2 >> t & 1) + (g3 >> t & 1) > h:
            return False
    elif occ & tb:
        return None
    ht = (g1 >> t & 1) + (g2 >> t & 1) + (g3 >> t & 1)
    up = 0 if athena_restricts(p, seat) else 1
    if ht > h + up:
        return False
    if god == "hermes" and ht == h:
        # A same-level move then a build is a power turn, written only in the H form.
        return False
    builds = turn.builds
    if (ht == 3 and h < 3) or (god == "pan" and h - ht >= 2):
        return steps == 1 and not builds and not turn.dome
    end, eb = t, tb
    if steps == 2:
        # Artemis' second step: a normal move from the first square, not back to the start.
        t2 = path[1]
        if not 0 <= t2 < 25:
            return False
        eb = BITS[t2]
        if t2 == w or not NEIGHBOURS[t] & eb or occ & eb:
            return False
        h2 = (g1 >> t2 & 1) + (g2 >> t2 & 1) + (g3 >> t2 & 1)
        if h2 > ht + up:
            return False
        if h2 == 3 and ht < 3:
            return not builds and not turn.dome
        end = t2
    free = NEIGHBOURS[end] & ~(occ ^ wb ^ eb)
    if len(builds) == 1:
        b = builds[0]
        if not (0 <= b < 25 and free >> b & 1):
            return False
        return not turn.dome or (god == "atlas" and not g3 >> b & 1)
    if len(builds) != 2 or turn.dome:
        return False
    b, b2 = builds
    if not (0 <= b < 25 and 0 <= b2 < 25 and free >> b & 1 and free >> b2 & 1):
        return False
    if god == "hephaestus":
        return b == b2 and not g2 >> b & 1
    return god == "demeter" and b < b2


def apply(p: Position, turn: Turn) -> Position:
    """Return the position after ``turn``; ``p`` is left as it was.

    Raises:
        IllegalTurnError: ``turn`` is not legal in ``p``.
    """
    if not is_legal(p, turn):
        from santorini_p2p.engine.notation import format_position

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


def generate_turns(p: Position) -> list[Turn]:
    """Every complete legal turn of the seat to move, unsorted: the fast path for search.

    Same set as ``legal_turns`` (which sorts); the order is deterministic but undocumented.
    Call only on positions in the play phase.
    """
    return _generate(p)


def apply_unchecked(p: Position, turn: Turn) -> Position:
    """Apply a turn taken from ``generate_turns(p)`` without checking it: the fast path."""
    return _play(p, turn)
