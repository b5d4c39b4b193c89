"""A deliberately plain reference move generator, written from RULES.md alone.

It shares no code with the engine's generator: squares are (file, rank) pairs, the board is a
dict, and Hermes' power is simulated step by step over every interleaving instead of reasoned
about. Differential tests compare its turn texts with the engine's on random positions.
"""

from __future__ import annotations

from dataclasses import dataclass

FILES = "abcde"


def name(sq: tuple[int, int]) -> str:
    return f"{FILES[sq[0]]}{sq[1] + 1}"


def index(sq: tuple[int, int]) -> int:
    return sq[1] * 5 + sq[0]


def around(sq: tuple[int, int]) -> list[tuple[int, int]]:
    f, r = sq
    return [
        (f + df, r + dr)
        for df in (-1, 0, 1)
        for dr in (-1, 0, 1)
        if (df or dr) and 0 <= f + df < 5 and 0 <= r + dr < 5
    ]


@dataclass
class Board:
    level: dict[tuple[int, int], int]
    dome: set[tuple[int, int]]
    worker: dict[tuple[int, int], int]  # square -> side

    def free(self, sq: tuple[int, int]) -> bool:
        return sq not in self.dome and sq not in self.worker


def from_position_string(text: str) -> tuple[Board, int, list[str], bool]:
    board_t, seat_t, gods_t, flags = text.split(" ")
    letters = "ABC"
    board = Board({}, set(), {})
    for i, rank in enumerate(board_t.split("/")):
        r = 4 - i
        f = 0
        j = 0
        while j < len(rank):
            sq = (f, r)
            board.level[sq] = int(rank[j])
            j += 1
            if j < len(rank) and rank[j] == "X":
                board.dome.add(sq)
                j += 1
            elif j < len(rank) and rank[j] in letters:
                board.worker[sq] = letters.index(rank[j])
                j += 1
            f += 1
    gods = [g if g != "-" else "" for g in gods_t.split(",")]
    return board, int(seat_t) - 1, gods, "a" in flags


def side_of(seat: int, players: int) -> int:
    return seat % 2 if players == 4 else seat


def reference_turns(text: str) -> set[str]:
    """Every complete turn text of the seat to move, straight from RULES.md."""
    board, seat, gods, athena_flag = from_position_string(text)
    players = len(gods)
    god = gods[seat]
    me = side_of(seat, players)
    restricted = False
    if athena_flag and "athena" in gods:
        a = gods.index("athena")
        restricted = a != seat and side_of(a, players) != me
    out: set[str] = set()
    mine = sorted((sq for sq, s in board.worker.items() if s == me), key=index)

    def can_step(b: Board, frm, to, *, no_up: bool) -> bool:
        rise = b.level[to] - b.level[frm]
        if rise > 1:
            return False
        return not ((restricted or no_up) and rise > 0)

    def builds(b: Board, at, prefix: str) -> None:
        for sq in around(at):
            if not b.free(sq):
                continue
            out.add(f"{prefix}^{name(sq)}")
            if god == "atlas" and b.level[sq] < 3:
                out.add(f"{prefix}^{name(sq)}D")
            if god == "hephaestus" and b.level[sq] <= 1:
                out.add(f"{prefix}^{name(sq)}^{name(sq)}")
            if god == "demeter":
                for sq2 in around(at):
                    if sq2 != sq and b.free(sq2):
                        a, c = sorted((sq, sq2), key=index)
                        out.add(f"{prefix}^{name(a)}^{name(c)}")

    def moved(b: Board, frm, to):
        """Board after the worker on ``frm`` steps to ``to`` (with Apollo/Minotaur forcing)."""
        nb = Board(dict(b.level), set(b.dome), dict(b.worker))
        side = nb.worker.pop(frm)
        if to in nb.worker:
            other = nb.worker.pop(to)
            if god == "apollo":
                nb.worker[frm] = other
            else:
                push = (2 * to[0] - frm[0], 2 * to[1] - frm[1])
                nb.worker[push] = other
        nb.worker[to] = side
        return nb

    def targets(b: Board, frm, *, no_up: bool, powers: bool):
        for to in around(frm):
            if to in b.dome:
                continue
            if to in b.worker:
                if not powers or b.worker[to] == me or god not in ("apollo", "minotaur"):
                    continue
                if god == "minotaur":
                    push = (2 * to[0] - frm[0], 2 * to[1] - frm[1])
                    if not (0 <= push[0] < 5 and 0 <= push[1] < 5):
                        continue
                    if not b.free(push):
                        continue
            if can_step(b, frm, to, no_up=no_up):
                yield to

    def wins(b: Board, frm, to) -> bool:
        if b.level[frm] < 3 and b.level[to] == 3:
            return True
        return god == "pan" and b.level[frm] - b.level[to] >= 2

    for w in mine:
        for to in targets(board, w, no_up=False, powers=True):
            prefix = f"{name(w)}>{name(to)}"
            if wins(board, w, to):
                out.add(prefix)
                continue
            after = moved(board, w, to)
            if not (god == "hermes" and board.level[to] == board.level[w]):
                builds(after, to, prefix)
            if god == "artemis":
                for to2 in targets(after, to, no_up=False, powers=False):
                    if to2 == w:
                        continue
                    p2 = f"{prefix}>{name(to2)}"
                    if wins(after, to, to2):
                        out.add(p2)
                        continue
                    builds(moved(after, to, to2), to2, p2)
        if god == "prometheus":
            for pb in around(w):
                if not board.free(pb):
                    continue
                b1 = Board(dict(board.level), set(board.dome), dict(board.worker))
                if b1.level[pb] == 3:
                    b1.dome.add(pb)
                else:
                    b1.level[pb] += 1
                for to in targets(b1, w, no_up=True, powers=False):
                    builds(moved(b1, w, to), to, f"{name(w)}^{name(pb)}>{name(to)}")

    if god == "hermes" and len(mine) == 2:
        start = frozenset(mine)
        seen = {start}
        todo = [start]
        while todo:
            config = todo.pop()
            for sq in config:
                for to in around(sq):
                    if to in config or to in board.dome:
                        continue
                    if to in board.worker and to not in start:
                        continue  # an opponent's worker
                    if board.level[to] != board.level[sq]:
                        continue
                    nxt = (config - {sq}) | {to}
                    if nxt not in seen:
                        seen.add(nxt)
                        todo.append(nxt)
        for config in seen:
            a, c = sorted(config, key=index)
            for sq in set(around(a)) | set(around(c)):
                if sq in config or sq in board.dome:
                    continue
                if sq in board.worker and sq not in start:
                    continue
                out.add(f"H{name(a)},{name(c)}^{name(sq)}")
    return out
