"""Adonis (RULES.md 10.5): once, he names a pair that must end the opponent's turn as neighbours."""

from __future__ import annotations

from collections.abc import Callable

from santorini_p2p.engine.gods.hero import Hero
from santorini_p2p.engine.position import OP_PAIR, Position, Turn
from santorini_p2p.engine.power import Limits
from santorini_p2p.engine.squares import NEIGHBOURS, SQUARE_NAMES, bits


def pair_of(state: str) -> tuple[int, int] | None:
    """His worker's and the opponent worker's squares while the pair is pending, else None."""
    if "." not in state:
        return None
    a, b = state.split(".")
    return SQUARE_NAMES.index(a), SQUARE_NAMES.index(b)


class Adonis(Hero):
    """[BGA] revised; the state ``adonis[c3.d4]`` while pending, then ``adonis[x]``.

    Judged like Persephone over complete turns: if a legal turn of the opponent ends with the
    pair adjacent (where they stand then, after forces), only such turns are legal, winning
    turns included [ours]. The pair follows its workers; a removed worker voids it. Written
    ``&c3.e5`` last.
    """

    name = "adonis"
    text = (
        "Once per game, at the end of your turn, choose one of your workers and an opponent "
        "worker. If possible, they must be neighbouring at the end of your opponent's next turn."
    )
    expands = True
    filters = True

    def read_state(self, text: str) -> str:
        """``x``, or two squares joined by ``.``."""
        if text == "x":
            return text
        a, dot, b = text.partition(".")
        if not dot or a not in SQUARE_NAMES or b not in SQUARE_NAMES or a == b:
            raise ValueError(
                "expected 'x' or his worker's and an opponent worker's squares, 'c3.d4'"
            )
        return text

    def state_squares(self, state: str) -> tuple[tuple[int, bool], ...]:
        """His worker, then the opponent's."""
        pair = pair_of(state)
        return ((pair[0], True), (pair[1], False)) if pair else ()

    def state_marks(self, state: str) -> tuple[tuple[int, str], ...]:
        """``pair`` by both named workers while the pair is pending."""
        return tuple((sq, "pair") for sq, _ in self.state_squares(state))

    def describe_state(self, state: str) -> str:
        """The pending pair, or used."""
        pair = pair_of(state)
        if pair:
            a, b = (SQUARE_NAMES[s] for s in pair)
            return f"{a} and {b} must end the opponent's turn next to each other if they can"
        return super().describe_state(state)

    def follow(self, state: str, where: Callable[[int], int]) -> str:
        """The pair follows its workers; a removed worker voids it."""
        pair = pair_of(state)
        if pair is None:
            return state
        a, b = where(pair[0]), where(pair[1])
        if a < 0 or b < 0:
            return "x"
        return SQUARE_NAMES[a] + "." + SQUARE_NAMES[b]

    def variants(
        self, p: Position, seat: int, turn: Turn, after: Position, limits: Limits
    ) -> list[Turn]:
        """Each pair he may name."""
        if self.is_used(p, seat):
            return []
        side = after.side_of(seat)
        theirs = 0
        for i, m in enumerate(after.workers):
            if i != side:
                theirs |= m
        return [
            turn._replace(extra=(*turn.extra, OP_PAIR << 10 | a << 5 | b))
            for a in bits(after.workers[side])
            for b in bits(theirs)
        ]

    def narrow(
        self,
        p: Position,
        seat: int,
        turns: list[Turn],
        result: Callable[[Turn], tuple[Position, Callable[[int], int]]],
    ) -> list[Turn]:
        """Only the turns that end with the pair adjacent, if there are any."""
        pair = pair_of(p.state_of(seat)[1:-1])
        if pair is None:
            return turns
        near = []
        for t in turns:
            _, where = result(t)
            a, b = where(pair[0]), where(pair[1])
            if a >= 0 and b >= 0 and NEIGHBOURS[a] >> b & 1:
                near.append(t)
        return near or turns

    def after_turn(
        self,
        p: Position,
        seat: int,
        turn: Turn,
        state: str,
        where: Callable[[int], int],
        moves: tuple[tuple[int, int], ...] = (),
    ) -> str:
        """Pending after he names the pair; used once the opponent's next turn is over."""
        if seat != p.to_move:
            return "x" if pair_of(state) else state
        if state:
            return state
        for v in turn.ops(OP_PAIR) if turn.extra else ():
            return SQUARE_NAMES[v >> 5] + "." + SQUARE_NAMES[v & 31]
        return ""
