"""Who acts when: the placement order of the setup phase and the sides that lost workers.

Placement (RULES.md section 3): a side whose power places first places before every
other side; then the start player's side, then each other side in seat order; with ``snake``
(and no side placing first, no power removing workers) the start player places one worker
first and one last.
"""

from __future__ import annotations

from santorini_p2p.engine.gods import power_of
from santorini_p2p.engine.position import Position

__all__ = [
    "lost_sides",
    "most_workers",
    "placement_counts",
    "placement_due",
    "placement_order",
    "side_powers",
]


def side_powers(p: Position, side: int) -> list[str]:
    """The god names of the seats that play ``side`` (one seat, or a team of two)."""
    return [g for s, g in enumerate(p.gods) if g and p.side_of(s) == side]


def placement_counts(gods: tuple[str, ...]) -> tuple[int, ...]:
    """How many workers each side places: 2, or what its power says (RULES.md 10.2)."""
    sides = 2 if len(gods) == 4 else len(gods)
    out = [2] * sides
    for s, g in enumerate(gods):
        if g:
            side = s & 1 if len(gods) == 4 else s
            out[side] = max(out[side], power_of(g).placed)
    return tuple(out)


def most_workers(p: Position, side: int) -> int:
    """How many workers ``side`` may have on the board: 2, or what its power allows.

    A power's state may say (RULES.md 10.2: a third worker that needs its power used, or
    workers still waiting on a card).
    """
    most = 2
    for s, g in enumerate(p.gods):
        if g and p.side_of(s) == side:
            state = p.state_of(s)
            most = max(most, power_of(g).worker_limit(state[1:-1] if state[:1] == "[" else ""))
    return most


def placement_order(p: Position) -> list[int]:
    """The sides in the order they place their workers (eliminated sides left out)."""
    sides = [s for s in range(p.sides) if not (p.players != 4 and p.eliminated >> s & 1)]
    first = [s for s in sides if any(power_of(g).places_first for g in side_powers(p, s))]
    return first + [s for s in sides if s not in first]


def _due(
    counts: list[int], order: list[int], snake: bool, need: tuple[int, ...]
) -> tuple[int, int]:
    first = order[0]
    if snake and counts[first] == 0:
        return first, 1
    for s in order[1:] if snake else order:
        if counts[s] < need[s]:
            return s, need[s] - counts[s]
    return first, need[first] - counts[first]


def _snake(p: Position, order: list[int]) -> bool:
    # With a power that removes workers, one worker placed could not be told from one left,
    # so snake placement gives way to placing both at once; so it does for a side that
    # places other than two workers.
    return p.snake and not any(
        power_of(g).places_first or power_of(g).removes_workers or power_of(g).placed != 2
        for g in p.gods
    )


def placement_due(p: Position) -> tuple[int, int]:
    """Return ``(seat, count)``: who places next and how many workers, in the place phase.

    With 4 players seat 1 places team A's workers and seat 2 team B's.
    """
    if p.owed:
        # A seat that placed and owes its setup choice acts before anyone places again.
        return (p.owed & -p.owed).bit_length() - 1, 0
    order = placement_order(p)
    need = placement_counts(p.gods)
    return _due([m.bit_count() for m in p.workers], order, _snake(p, order), need)


def lost_sides(p: Position) -> int:
    """Return the sides that have lost workers to a power (RULES.md section 8).

    Those with fewer workers than they place, when the counts are not a placement still
    under way.

    0 unless a power in play removes workers; a position string does not write it.
    """
    if not any(power_of(g).removes_workers for g in p.gods):
        return 0
    counts = [m.bit_count() for m in p.workers]
    need = placement_counts(p.gods)
    live = [s for s in range(p.sides) if not (p.players != 4 and p.eliminated >> s & 1)]
    short = sum(1 << s for s in live if counts[s] < need[s])
    if not short:
        return 0
    order = placement_order(p)
    snake = _snake(p, order)
    step = [0] * len(counts)
    while True:
        seat, n = _due(step, order, snake, need)
        if step == counts:
            return 0 if p.to_move == seat else short
        if all(step[s] >= need[s] for s in live):
            return short
        step[seat] += n
