"""Hidden gods: which gods may be dealt secretly, and the rules that check a hidden game.

protocol/SECRET.md sections 5 to 7 say how a game with secret gods is played: a seat whose god
is hidden plays turns that need no power; the first turn that needs the power carries the god's
opening; a god that restricts opponents is enforced by its owner objecting to a turn that breaks
it, and a restriction not claimed is waived for that turn; at the end every god is opened and
the whole game is audited. Everything here is pure: a game is its first position of play (the
workers placed, every god blank), and its turns each with the seats known when it was played.

Public API:

- ``SECRET_POOL``: the gods a secret deal may hold (data, tested against the gods' hooks);
- ``restricts_opponents(god)``: whether the god is enforced by objection;
- ``Play(turn, known)``: a turn of the log and the seats (bit mask) whose gods were open;
- ``Leave(after, seat)``: a seat that resigned or lost on time after ``after`` turns (3 and 4
  players: the game goes on without it, or its side loses, as RULES.md 5 says);
- ``audit(start, plays, gods, leaves) -> Audit``: the game replayed under ``gods`` (blank: still
  hidden); the first turn a seat played against its own god, or hidden while it needed it;
- ``objection_error(start, plays, gods, objector, turn, leaves)``: why an objection is refused, or
  None when the turn breaks the objector's god.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, replace
from typing import Final, NamedTuple

from santorini_p2p.engine.gods import power_of
from santorini_p2p.engine.position import Phase, Position, Turn
from santorini_p2p.engine.power import Power
from santorini_p2p.engine.rules import apply_unchecked, is_legal, resign

__all__ = [
    "LEFT_OUT",
    "SECRET_POOL",
    "Audit",
    "Fault",
    "Leave",
    "Play",
    "audit",
    "objection_error",
    "restricts_opponents",
]

SECRET_POOL: Final[tuple[str, ...]] = (
    "apollo",
    "artemis",
    "athena",
    "atlas",
    "demeter",
    "hephaestus",
    "hermes",
    "minotaur",
    "pan",
    "prometheus",
    "aphrodite",
    "ares",
    "charon",
    "hera",
    "hestia",
    "limus",
    "persephone",
    "poseidon",
    "triton",
    "zeus",
    "pegasus",
    "iris",
    "asteria",
    "scylla",
    "castor",
)
"""The gods a secret deal may hold, in god order (SECRET.md 5): every god whose setup shows
nothing (two workers, no placement rule, no setup action), whose plain turns are legal turns,
with no effect at the end of a turn, no rule "at all times", no win but by levels, played
with 2, 3 and 4 players, less those of ``LEFT_OUT``. Each binds no one but its owner, or binds
opponents only by forbidding turns (enforced by objection). No two are a banned pair."""

LEFT_OUT: Final[dict[str, str]] = {
    "harpies": "it changes where an opponent's worker ends, not only which turns it may play",
    "hades": "a banned pair with pan and with asteria (RULES.md 9)",
    "nemesis": "a banned pair with aphrodite (RULES.md 9)",
    "urania": "a banned pair with aphrodite (RULES.md 9)",
}
"""Gods that fit the hooks' rule and are still not dealt secretly, and why."""


def restricts_opponents(god: str) -> bool:
    """Whether ``god``'s card forbids opponents some turns (its owner enforces it by objecting)."""
    return type(power_of(god)).restrict is not Power.restrict


def _fits_secret_deal(god: str) -> bool:
    """The rule SECRET_POOL is drawn by, read from the god's hooks (used by the tests)."""
    power = power_of(god)
    cls = type(power)
    return (
        power.players == frozenset({2, 3, 4})
        and power.placed == 2
        and power.most_workers == 2
        and power.plain_turns
        and not power.places_first
        and not power.end_effect
        and not power.removes_workers
        and power.wins_by_levels
        and not cls.stateful
        and cls.placement_error is Power.placement_error
        and cls.at_all_times is Power.at_all_times
        and cls.wins_at_end_of_turn is Power.wins_at_end_of_turn
        and cls.losers_at_end_of_turn is Power.losers_at_end_of_turn
        and cls.end_of_turn is Power.end_of_turn
        and cls.after_step is Power.after_step
    )


class Play(NamedTuple):
    """A turn of a hidden game and ``known``: the seats (bit mask) whose gods were open then.

    A turn that carries its mover's opening counts the mover as known.
    """

    turn: Turn
    known: int


class Leave(NamedTuple):
    """Seat ``seat`` left the game (it resigned or lost on time) after ``after`` turns of play.

    The audit replays it where it stands, as the engine's resignation (RULES.md 5): with 3
    players the seat's workers leave and the others play on; with 4 its side loses.
    """

    after: int
    seat: int


@dataclass(frozen=True)
class Fault:
    """The first turn found against the rules: ``seat`` (0-based) played play ``index``."""

    seat: int
    index: int
    reason: str


@dataclass(frozen=True)
class Audit:
    """A hidden game replayed under its gods: the position reached, and the first fault."""

    position: Position
    fault: Fault | None


def _blank(p: Position, seats: int) -> Position:
    """``p`` with the gods of ``seats`` (bit mask) blank: their powers play no part."""
    if not seats:
        return p
    gods = tuple("" if seats >> s & 1 else g for s, g in enumerate(p.gods))
    return replace(p, gods=gods)


def _board(p: Position) -> tuple[int, ...]:
    """What a turn did that everyone sees: levels, domes, workers, winner, who is out."""
    return (p.ge1, p.ge2, p.ge3, p.domes, *p.workers, p.winner, p.eliminated, p.lost)


def _leave(p: Position, seat: int) -> Position:
    """``p`` after ``seat`` leaves; a seat already out (or a game over) is left as it is."""
    if p.phase is Phase.OVER or p.eliminated >> seat & 1:
        return p
    return resign(p, seat)


def audit(
    start: Position,
    plays: Sequence[Play],
    gods: tuple[str, ...],
    leaves: Sequence[Leave] = (),
) -> Audit:
    """Replay ``plays`` from ``start`` under ``gods`` (blank: a god still hidden).

    ``leaves`` are the seats that left during play, each replayed after its turn count.

    Each turn must be legal with the gods that were open when it was played and the mover's
    own god (the restrictions of the other gods still hidden then were waived: their owners
    acknowledged it), and a turn played while its mover's god was hidden must be the same turn,
    with the same result, with or without that god. The first turn that is not is the fault:
    its mover loses from that turn (SECRET.md 7). The position goes on under every god.

    Raises:
        ValueError: ``gods`` or ``start`` does not fit (a mismatch of the caller's).
    """
    if len(gods) != start.players:
        raise ValueError(f"gods: expected {start.players}, got {len(gods)}")
    if start.phase is not Phase.PLAY and start.phase is not Phase.OVER:
        raise ValueError("start: the game's first position of play is needed")
    truth = replace(start, gods=gods)
    every = (1 << start.players) - 1
    for index, (turn, known) in enumerate(plays):
        for gone in leaves:
            if gone.after == index:
                truth = _leave(truth, gone.seat)
        if truth.phase is Phase.OVER:
            return Audit(truth, None)
        seat = truth.to_move
        mover = 1 << seat
        waived = every & ~known & ~mover
        view = _blank(truth, waived)
        god = gods[seat]
        if not is_legal(view, turn):
            why = f"{turn} is not legal for {god or 'a seat with no power'} here"
            return Audit(truth, Fault(seat, index, why))
        if god and not known & mover:
            plain = _blank(view, mover)
            if not is_legal(plain, turn) or _board(apply_unchecked(plain, turn)) != _board(
                apply_unchecked(view, turn)
            ):
                why = f"{turn} needed {god}'s power, and {god} was hidden"
                return Audit(truth, Fault(seat, index, why))
        truth = apply_unchecked(truth, turn)
        if truth.phase is Phase.OVER:
            return Audit(truth, None)
    for gone in leaves:
        if gone.after >= len(plays):
            truth = _leave(truth, gone.seat)
    return Audit(truth, None)


def objection_error(
    start: Position,
    plays: Sequence[Play],
    gods: tuple[str, ...],
    objector: int,
    objected: Play,
    leaves: Sequence[Leave] = (),
) -> str | None:
    """Why ``objector``'s objection to the turn ``objected`` (after ``plays``) is refused.

    ``gods`` holds the gods open after the objection (the objector's among them);
    ``objected.known`` the seats open when the turn was played. The objection stands (None)
    when the turn is legal without the objector's god and, with it, illegal or not the same
    (Hera's: a win on the perimeter is no win).
    """
    turn = objected.turn
    god = gods[objector]
    if not god:
        return f"seat {objector + 1} objects with no god opened"
    if not restricts_opponents(god):
        return f"{god} forbids opponents nothing; there is nothing to object to"
    before = audit(start, plays, gods, leaves)
    if before.fault is not None:
        return f"the game before the turn does not check under {god}: {before.fault.reason}"
    p = before.position
    if p.side_of(p.to_move) == p.side_of(objector):
        return f"seat {objector + 1} cannot object to its own side's turn"
    every = (1 << start.players) - 1
    hidden = every & ~objected.known & ~(1 << objector) & ~(1 << p.to_move)
    view = _blank(p, hidden)
    plain = _blank(view, 1 << objector)
    if not is_legal(plain, turn):
        return f"{turn} is not legal even without {god}"
    if is_legal(view, turn) and _board(apply_unchecked(view, turn)) == _board(
        apply_unchecked(plain, turn)
    ):
        return f"{turn} breaks no rule of {god}"
    return None
