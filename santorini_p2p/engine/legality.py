"""One turn's legality without listing every turn: what reading a log needs.

Checking a record asks whether ONE turn is legal; listing every turn of the position to find
it costs most of the record's check. :func:`turn_is_legal` answers exactly as
``turn in generate_turns(p)`` does (the kernel's :func:`~santorini_p2p.engine.rules.is_legal`),
for every god and position, more cheaply:

- a turn of a seat that plays by the plain rules (no power in play for this turn, as the
  kernel's plain path decides), or a turn of the plain shape by a power whose turns of that
  shape are the plain ones (``Power.plain_shaped``), is checked square by square against
  those rules;
- a turn of one of the mover's own workers walks that worker's turns through the mover's
  power and stops at the first turn equal to it, building no list (turns of the plain
  one-build ending are compared without being built);
- anything else (a turn of both workers, a power step of RULES.md 10, another side's worker,
  "must move up", powers that add or narrow choices) is left to the kernel's check, which
  lists the turns that may equal it (all of them where "must move up" or a narrowing power
  makes one turn's legality depend on the others).

:func:`apply_checked` is ``apply_action`` with this check for turns of play.
"""

from __future__ import annotations

from santorini_p2p.engine.gods import power_of
from santorini_p2p.engine.position import Action, Phase, Position, Turn
from santorini_p2p.engine.power import Gen, Limits, Power
from santorini_p2p.engine.rules import apply_unchecked, is_legal, limits, special_powers
from santorini_p2p.engine.setup import apply_action
from santorini_p2p.engine.squares import ALL, BITS, NEIGHBOURS

__all__ = ["apply_checked", "turn_is_legal"]


def apply_checked(p: Position, action: Action) -> Position:
    """Return ``apply_action(p, action)``: the same position, or the same error.

    A turn of play that :func:`turn_is_legal` accepts is applied at once (``apply_action``
    reads a legal turn as itself); everything else, refusals included, takes the full path.

    Raises:
        IllegalTurnError: the action is not legal in ``p``.
    """
    if type(action) is Turn and p.phase is Phase.PLAY and _legal_in_play(p, action):
        return apply_unchecked(p, action)
    return apply_action(p, action)


def turn_is_legal(p: Position, turn: Turn) -> bool:
    """Return whether ``turn`` is a complete legal turn in ``p``: ``turn in generate_turns(p)``."""
    return isinstance(turn, Turn) and p.phase is Phase.PLAY and _legal_in_play(p, turn)


def _legal_in_play(p: Position, turn: Turn) -> bool:
    """:func:`turn_is_legal` for a position known to be in the play phase."""
    w = turn.worker
    gods = p.gods
    seat = p.to_move
    side = seat & 1 if len(gods) == 4 else seat  # p.side_of(seat)
    if not -1 <= w < 25 or turn.extra or (w >= 0 and not p.workers[side] >> w & 1):
        return is_legal(p, turn)
    if not any(gods):
        return w >= 0 and _plain_legal(p, turn, False)
    lim = limits(p)
    if lim.must_up or special_powers(gods):
        # One turn's legality depends on the others, or on powers that add or narrow turns.
        return is_legal(p, turn)
    god = gods[seat]
    if lim.trivial and (not god or (power_of(god).plain_shaped and _plain_shape(turn))):
        return w >= 0 and _plain_legal(p, turn, lim.no_up)
    return _seek(p, turn, lim)


def _plain_shape(turn: Turn) -> bool:
    """Whether ``turn`` has the plain rules' shape: one step, then one block or none."""
    builds = turn.builds
    return (
        len(turn.path) == 1
        and turn.before == -1
        and turn.after == -1
        and not turn.post
        and (not builds or (len(builds) == 1 and 0 <= builds[0] < 25))
    )


def _plain_legal(p: Position, turn: Turn, no_up: bool) -> bool:
    """Whether ``turn`` is one of the plain rules' turns (the kernel's plain path, one turn).

    The worker steps to a free neighbour at most one level up (none up with ``no_up``); a
    step from level 2 onto level 3 wins and ends the turn; otherwise it builds once next to
    where it stands, on a free square or the one it left.
    """
    if len(turn.path) != 1:
        return False
    w, t = turn.worker, turn.path[0]
    if not 0 <= t < 25:
        return False
    occ = p.domes
    for m in p.workers:
        occ |= m
    free = ALL & ~occ
    g1, g2, g3 = p.ge1, p.ge2, p.ge3
    h = (g1 >> w & 1) + (g2 >> w & 1) + (g3 >> w & 1)
    reach = (ALL ^ g1, ALL ^ g2, ALL ^ g3, ALL) if no_up else (ALL ^ g2, ALL ^ g3, ALL, ALL)
    if not (NEIGHBOURS[w] & free & reach[h]) >> t & 1:
        return False
    if h == 2 and g3 >> t & 1:
        return turn == Turn(w, (t,))
    if len(turn.builds) != 1:
        return False
    b = turn.builds[0]
    if not 0 <= b < 25 or not (NEIGHBOURS[t] & (free | BITS[w])) >> b & 1:
        return False
    return turn == Turn(w, (t,), (b,))


class _Found(Exception):
    """Raised by a :class:`_Seek` when the power hands over the turn looked for."""


class _Seek(Gen):
    """A generation of one worker's turns that stops at ``target`` and keeps no list."""

    __slots__ = ("want",)

    def __init__(
        self, p: Position, power: Power, lim: Limits, movers: int, pair: bool, target: Turn
    ) -> None:
        super().__init__(p, power, lim, movers, pair, False)
        self.target = target  # the powers skip what cannot lead to it
        self.want = target

    def emit(self, turn: Turn, up: bool) -> None:
        """Stop if ``turn`` is the target (``up`` does not matter: no "must move up" here)."""
        if self.extra:
            turn = turn._replace(extra=self.extra + turn.extra)
        if turn == self.want:
            raise _Found

    def emit_builds(
        self,
        w: int,
        path: tuple[int, ...],
        free: int,
        before: int,
        up: bool,
    ) -> None:
        """Stop if the target is one of these plain one-build turns, without building them."""
        if not free:
            return
        if self.extra:
            for b in range(25):
                if free >> b & 1:
                    self.emit(Turn(w, path, (b,), before), up)
            return
        t = self.want
        if t.worker == w and t.path == path and len(t.builds) == 1:
            b = t.builds[0]
            if 0 <= b < 25 and free >> b & 1 and t == Turn(w, path, (b,), before):
                raise _Found


def _seek(p: Position, turn: Turn, lim: Limits) -> bool:
    """Whether the mover's power hands over ``turn`` among its worker's turns."""
    power = power_of(p.gods[p.to_move])
    w = turn.worker
    # One worker's turns, or (worker -1) the turns of both workers, as the kernel asks.
    g = _Seek(p, power, lim, BITS[w] & ~lim.frozen if w >= 0 else 0, w < 0, turn)
    try:
        power.turns(g)
    except _Found:
        return True
    return False
