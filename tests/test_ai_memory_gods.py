"""The computer at ``hard`` answers legally for each of RULES.md section 10's eighteen gods.

For each god, games against opponents drawn at random from sections 6 to 9 are played at
random into the middle game (coins stored, a wind set, a female worker, Eris's mark, heroes
used or not), and at each position on the way the god's seat or the opponent asks ``hard``
(``choose_action`` and ``analyse``, on a node budget so that the test is quick and the same
on any machine): every answer must be one of the position's legal actions. Timing is
measured by hand (``benchmarks/think.py``, ``benchmarks/memory_gods.py``), never here.
"""

from __future__ import annotations

import random

import pytest

from santorini_p2p.ai import analyse, choose_action
from santorini_p2p.engine import Phase, Position, apply_action, ban_reason, legal_actions, new_game
from santorini_p2p.engine.gods import ADVANCED, GROUP1, HEROES, MEMORY, SIMPLE

SECTION_10 = tuple(g.name for g in (*MEMORY, *HEROES))
OPPONENTS = tuple(g.name for g in (*SIMPLE, *ADVANCED, *GROUP1) if 2 in g.players)
NODES = 60
"""Enough for the search to look past the root with every god; small enough to be quick."""


def _opponents(god: str, rng: random.Random, k: int) -> list[str]:
    """``k`` gods of sections 6-9 that may play against ``god`` (no banned pair)."""
    allowed = [o for o in OPPONENTS if ban_reason((god, o)) is None]
    return rng.sample(allowed, k)


def _positions(god: str, other: str, seed: int) -> list[Position]:
    """Positions of a random 2-player game of ``god`` against ``other``, setup then play."""
    rng = random.Random(seed)
    gods = (god, other) if seed % 2 == 0 else (other, god)
    p = new_game(2, "random", drawn=gods)
    seen: list[Position] = []
    for _ in range(rng.randrange(8, 20)):
        if p.phase is Phase.OVER:
            break
        seen.append(p)
        p = apply_action(p, rng.choice(legal_actions(p)))
    return seen


def test_there_are_eighteen_and_each_has_opponents():
    assert len(SECTION_10) == 18
    assert all(len(_opponents(g, random.Random(0), 3)) == 3 for g in SECTION_10)


@pytest.mark.parametrize("god", SECTION_10)
def test_hard_answers_every_position_legally_against_random_opponents(god):
    rng = random.Random(f"hard-{god}")
    asked = 0
    for k, other in enumerate(_opponents(god, rng, 3)):
        positions = _positions(god, other, seed=k)
        # The last few: play has begun, and the states have had turns to change.
        for p in positions[-4:]:
            legal = legal_actions(p)
            action = choose_action(p, "hard", rng=random.Random(k), nodes=NODES)
            assert action in legal, (str(p), str(action))
            if p.phase is Phase.PLAY:
                best = analyse(p, "hard", nodes=NODES).best
                assert best in legal, (str(p), str(best))
                asked += 1
    assert asked >= 3, "too few positions in play: the games ended too soon"
