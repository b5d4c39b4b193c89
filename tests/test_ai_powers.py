"""The computer opponent against powers that win or threaten in ways of their own."""

import random

import pytest

from santorini_p2p.ai.opening import choose_setup
from santorini_p2p.engine import (
    Phase,
    Place,
    apply_action,
    apply_unchecked,
    generate_turns,
    parse_position,
)


def _opponent_wins_at_once(text: str, place: Place) -> bool:
    p = apply_action(parse_position(text), place)
    assert p.phase is Phase.PLAY
    return any(apply_unchecked(p, t).winner == p.to_move for t in generate_turns(p))


@pytest.mark.parametrize("level", ["easy", "medium", "hard"])
def test_the_last_placement_leaves_no_worker_for_maenads_to_sandwich_at_once(level):
    # Maenads (seat 1) placed on d2 and b3 and moves first: c3, c2 and others lose at once.
    text = "00000/0000A0/00A000/00000/00000 2 maenads,hydra -"
    assert _opponent_wins_at_once(text, Place((12, 17)))
    for seed in range(8):
        place = choose_setup(parse_position(text), level, random.Random(seed))
        assert isinstance(place, Place)
        assert not _opponent_wins_at_once(text, place), place
