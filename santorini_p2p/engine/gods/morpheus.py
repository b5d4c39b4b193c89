"""Morpheus (RULES.md 10.5): a coin a turn; he builds once for each coin he spends."""

from __future__ import annotations

from collections.abc import Callable

from santorini_p2p.engine.position import OP_NONE, Position, Turn
from santorini_p2p.engine.power import Board, Gen, Power
from santorini_p2p.engine.squares import bits


def coins(state: str) -> int:
    """The coins on his card between his turns (the bare entry: none)."""
    return int(state) if state else 0


class Morpheus(Power):
    """The state is his coins between turns; his turn has one more to spend.

    He spends any number (even zero): that many ordinary builds by the moved worker, one after
    another, the same square again allowed up to a dome. Written in ascending square order with
    repeats together (``b2>c3^d4^d4^e4``); zero builds is ``b2>c3``.
    """

    name = "morpheus"
    text = (
        "Start of your turn: place a coin on this card. You cannot build normally: instead "
        "spend any number of coins on this card (even zero) and build that many times."
    )
    stateful = True

    def read_state(self, text: str) -> str:
        """A count of at least 1, no leading zeros."""
        if not text.isdigit() or text[0] == "0" or not text.isascii():
            raise ValueError("expected the coins, a number from 1 with no leading zeros")
        if int(text) > 99:
            raise ValueError("at most 99 coins")
        return text

    def describe_state(self, state: str) -> str:
        """His coins."""
        n = coins(state)
        return f"{n} coin{'s' if n != 1 else ''} on his card ({n + 1} to spend on his turn)"

    def builds(
        self, g: Gen, w: int, path: tuple[int, ...], bd: Board, before: int, up: bool
    ) -> None:
        """Every multiset of up to his coins of ordinary builds next to the final square."""
        end = path[-1]
        spend = coins(g.p.state_of(g.seat)[1:-1]) + 1
        squares = bits(g.buildable(bd, end) | g.buildable((bd[0], bd[1], bd[2]), end))
        g.emit(Turn(w, path, (), before, extra=(OP_NONE << 10,)), up)
        if g.limits.tower_seat >= 0:
            # A build may end the game part-way: build one at a time and look each time.
            self._more(g, w, path, bd, before, up, squares, 0, (), spend)
            return
        # Otherwise each square takes up to its room (a dome on level 3 is its last build),
        # and every count of builds a square can take is one turn.
        lv = bd[0]
        room = [(s, 4 - lv[s]) for s in squares if not bd[1] >> s & 1]
        self._counts(g, w, path, before, up, room, 0, (), spend)

    def _counts(
        self,
        g: Gen,
        w: int,
        path: tuple[int, ...],
        before: int,
        up: bool,
        room: list[tuple[int, int]],
        start: int,
        done: tuple[int, ...],
        left: int,
    ) -> None:
        for i in range(start, len(room)):
            s, most = room[i]
            builds = done
            for _ in range(min(most, left)):
                builds = (*builds, s)
                g.emit(Turn(w, path, builds, before), up)
                if len(builds) - len(done) < left:
                    self._counts(
                        g,
                        w,
                        path,
                        before,
                        up,
                        room,
                        i + 1,
                        builds,
                        left - (len(builds) - len(done)),
                    )

    def _more(
        self,
        g: Gen,
        w: int,
        path: tuple[int, ...],
        bd: Board,
        before: int,
        up: bool,
        squares: list[int],
        start: int,
        done: tuple[int, ...],
        left: int,
    ) -> None:
        if not left:
            return
        for i in range(start, len(squares)):
            s = squares[i]
            if bd[1] >> s & 1 or not g.allowed(bd, 1 << s):
                continue
            bd2, won = g.build(bd, s)
            builds = (*done, s)
            g.emit(Turn(w, path, builds, before), up)
            if not won:
                self._more(g, w, path, bd2, before, up, squares, i, builds, left - 1)
        if g.limits.tower_seat < 0:
            return
        # A build that ends the game (RULES.md 8, Chronus) stops the turn, so it is written
        # last, after the builds before it in ascending order, whatever its square.
        for s in squares[:start]:
            if not bd[1] >> s & 1 and g.allowed(bd, 1 << s) and g.build(bd, s)[1]:
                g.emit(Turn(w, path, (*done, s), before), up)

    def evaluation(self, p: Position, side: int, occ: int, no_up: bool) -> int:
        """Coins stored are builds to come: worth a little each, up to four."""
        seat = next((s for s in range(p.players) if p.gods[s] == self.name), -1)
        return 15 * min(4, coins(p.state_of(seat)[1:-1])) if seat >= 0 else 0

    def after_turn(
        self,
        p: Position,
        seat: int,
        turn: Turn,
        state: str,
        where: Callable[[int], int],
        moves: tuple[tuple[int, int], ...] = (),
    ) -> str:
        """His turn adds a coin and spends one a build."""
        if seat != p.to_move:
            return state
        left = coins(state) + 1 - len(turn.builds)
        return str(left) if left > 0 else ""
