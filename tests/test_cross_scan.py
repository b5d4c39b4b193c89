"""A randomized self-consistency scan: each god of RULES.md 10 against each god of 6-9.

For random positions of every allowed pairing, every legal turn has one text that finds it
again, and the position it leads to reads back as the same string and hashes; where a power
binds every step (Hippolyta, Aeolus, Athena, Nike, Hades), each step written in a legal turn
keeps to it (RULES.md 10.4: a step's direction is the one it is played in).
"""

from __future__ import annotations

import random
import re

import pytest

from santorini_p2p.engine import (
    apply_unchecked,
    find_turn,
    format_position,
    legal_turns,
    parse_position,
    state_hash,
)
from santorini_p2p.engine.gods import GODS, HEROES, MEMORY
from santorini_p2p.engine.gods.bans import ban_reason
from santorini_p2p.engine.position import DIRECTIONS
from santorini_p2p.engine.squares import SQUARE_NAMES
from santorini_p2p.errors import InvalidPositionError

SECTION_10 = [g.name for g in MEMORY + HEROES]
EARLIER = [g.name for g in GODS if g.name not in SECTION_10]
WORKERS = {"graeae": 3, "proteus": 3}
DELTAS = ((0, 1), (1, 1), (1, 0), (1, -1), (0, -1), (-1, -1), (-1, 0), (-1, 1))
"""(file, rank) of the directions n, ne, e, se, s, sw, w, nw."""


def random_position(rng: random.Random, gods: tuple[str, str], to_move: int) -> str:
    """A random 2-player position string for ``gods`` with a valid state for each."""
    lv = [rng.choice((0, 0, 0, 1, 1, 2, 2, 3)) for _ in range(25)]
    marks = [""] * 25
    free = list(range(25))
    rng.shuffle(free)
    workers: list[list[int]] = [[], []]
    for i, g in enumerate(gods):
        n = rng.randint(1, 4) if g == "hydra" else WORKERS.get(g, 2)
        for _ in range(n):
            s = free.pop()
            workers[i].append(s)
            marks[s] = "AB"[i]
            if lv[s] == 3 and rng.random() < 0.7:
                lv[s] = rng.randint(0, 2)
    for _ in range(rng.randint(0, 3)):
        marks[free.pop()] = "X"
    rows = (
        "".join(f"{lv[r * 5 + f]}{marks[r * 5 + f]}" for f in range(5)) for r in range(4, -1, -1)
    )
    entries = []
    flags = ""
    for i, g in enumerate(gods):
        entry = g
        if g in ("hippolyta", "selene"):
            entry += f"[{SQUARE_NAMES[rng.choice(workers[i])]}]"
        elif g in ("aeolus", "siren"):
            entry += f"[{rng.choice(DIRECTIONS)}]"
        elif g == "eris" and rng.random() < 0.5:
            entry += f"[{SQUARE_NAMES[rng.choice(workers[1 - i])]}]"
        elif g == "morpheus" and rng.random() < 0.5:
            entry += f"[{rng.randint(1, 3)}]"
        elif g == "gaea" and rng.random() < 0.5:
            entry += f"[{rng.randint(0, 1)}]"
        elif g == "nike" and i != to_move - 1:
            flags += "k"
        elif g == "athena" and i != to_move - 1 and rng.random() < 0.5:
            flags += "a"
        entries.append(entry)
    return f"{'/'.join(rows)} {to_move} {','.join(entries)} {flags or '-'}"


def pairings() -> list[tuple[str, str]]:
    """Every allowed pairing of a section-10 god with an earlier one."""
    return [(a, b) for a in SECTION_10 for b in EARLIER if ban_reason((a, b)) is None]


def positions(a: str, b: str, count: int) -> list[str]:
    """``count`` readable random positions of ``a`` against ``b``, seats and mover varied."""
    rng = random.Random(f"{a}-{b}")
    out: list[str] = []
    tries = 0
    while len(out) < count and tries < 50 * count:
        tries += 1
        gods = (a, b) if tries % 2 else (b, a)
        text = random_position(rng, gods, 1 + tries // 2 % 2)
        try:
            parse_position(text)
        except InvalidPositionError:
            continue
        out.append(text)
    return out


@pytest.mark.parametrize("god", SECTION_10)
def test_every_turn_of_each_pairing_has_one_text_and_a_result_that_reads_back(god):
    checked = 0
    for a, b in pairings():
        if a != god:
            continue
        for text in positions(a, b, 2):
            p = parse_position(text)
            turns = legal_turns(p)
            written = [str(t) for t in turns]
            assert len(set(written)) == len(written), text
            for t in random.Random(text).sample(turns, min(12, len(turns))):
                assert find_turn(p, str(t)) == t, (text, str(t))
                after = format_position(apply_unchecked(p, t))
                assert format_position(parse_position(after)) == after, (text, str(t))
                assert len(state_hash(parse_position(after))) == 32
                checked += 1
    assert checked > 50


def _steps(text: str) -> list[tuple[str, int, int]] | None:
    """The move steps (``"m"``, from, to) and builds (``"b"``, square, 0) a turn text writes,
    in the order played; None for the forms with no single path (Hermes, Siren, build-all)."""
    if text.startswith(("H", "S", "B")):
        return None
    if text.startswith("O"):
        text = text.split(":", 1)[1]
    sq = SQUARE_NAMES.index
    if text.startswith(("M", "T")):
        body = text[1:].split("^", 1)[0]
        return [("m", sq(m[:2]), sq(m[3:5])) for m in body.split(",")]
    text = text.removeprefix("J")
    out: list[tuple[str, int, int]] = []
    cur = sq(text[:2])
    for op, s, dome in re.findall(r"([>^])([a-e][1-5])(D?)", text[2:]):
        if op == ">":
            out.append(("m", cur, sq(s)))
            cur = sq(s)
        elif not dome:
            out.append(("b", sq(s), 0))
    return out


def _heading(frm: int, to: int) -> int:
    """The direction of a step as played: a wrapped step round the edge, a jump by its half."""
    df, dr = to % 5 - frm % 5, to // 5 - frm // 5
    df = -1 if df == 4 else 1 if df == -4 else (df > 0) - (df < 0)
    dr = -1 if dr == 4 else 1 if dr == -4 else (dr > 0) - (dr < 0)
    return DELTAS.index((df, dr))


BINDING = ["hippolyta", "aeolus", "nike", "hades", "athena"]


@pytest.mark.parametrize("binder", BINDING)
def test_every_step_of_a_legal_turn_keeps_to_the_powers_that_bind_steps(binder):
    movers = [g for g in EARLIER + SECTION_10 if g not in BINDING and g not in ("siren",)]
    checked = 0
    for mover in movers:
        if ban_reason((binder, mover)) is not None:
            continue
        for text in positions(binder, mover, 4):
            fields = text.split(" ")
            seat = int(fields[1])
            gods = fields[2].split(",")
            mine = [g.split("[")[0] for g in gods].index(binder) + 1
            state = gods[mine - 1].partition("[")[2].rstrip("]")
            female = SQUARE_NAMES.index(state) if binder == "hippolyta" else -1
            wind = DIRECTIONS.index(state) if binder == "aeolus" and state else -1
            against = seat != mine
            no_up = against and (fields[3] != "-") and binder in ("nike", "athena")
            no_down = against and binder == "hades" and "harpies" not in gods
            p = parse_position(text)
            levels = [p.level(s) for s in range(25)]
            for t in legal_turns(p):
                steps = _steps(str(t))
                if steps is None:
                    continue
                lv = list(levels)
                her = female
                for kind, a, b in steps:
                    if kind == "b":
                        lv[a] += 1
                        continue
                    d = _heading(a, b)
                    where = f"{text} | {t}"
                    assert not (binder == "hippolyta" and a != her and d % 2 == 0), where
                    assert d != (wind + 4) % 8 or wind < 0, where
                    assert not (no_up and lv[b] > lv[a]), where
                    assert not (no_down and lv[b] < lv[a]), where
                    her = b if a == her else a if b == her else her
                    checked += 1
    assert checked > 1000
