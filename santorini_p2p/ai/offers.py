"""The computer's answer to an offer to end the game by agreement (a draw or an abort).

It searches the position at its level and takes the offer when it stands clearly worse: a
proved loss, or an estimated chance of winning below ``TAKE_BELOW``. Level or better it plays
on. Before play (god choice, placement) nothing is to judge, so it plays on. The two lowest
levels judge as ``medium`` does: a one-turn search rates every position for the side that has
just moved (an even start reads as 70% to 30%), which is no ground to give up a game.
"""

from __future__ import annotations

from typing import Final

from santorini_p2p.ai.search import StopFlag, analyse
from santorini_p2p.engine import Phase, Position

__all__ = ["TAKE_BELOW", "takes_offer"]

TAKE_BELOW: Final = 0.3
"""The computer takes a draw when its estimated chance of winning is below this."""


def takes_offer(
    position: Position,
    seat: int,
    level: str,
    *,
    think: float | None = None,
    nodes: int | None = None,
    stop: StopFlag | None = None,
) -> bool:
    """Whether the computer at ``level``, playing ``seat``, accepts a draw in ``position``.

    ``think``, ``nodes`` and ``stop`` bound the search as for ``analyse`` (the level's own
    budget without them).
    """
    if position.phase is not Phase.PLAY:
        return False
    judged = "medium" if level in ("random", "easy") else level
    a = analyse(position, judged, think=think, nodes=nodes, stop=stop)
    mover = position.side_of(position.to_move)
    mine = a.win if mover == position.side_of(seat) else 1.0 - a.win
    if a.forced is not None:
        ahead = a.forced > 0
        return (mover != position.side_of(seat)) == ahead
    return mine < TAKE_BELOW
