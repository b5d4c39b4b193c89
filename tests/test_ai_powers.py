"""The computer opponent against powers that win or threaten in ways of their own."""

import random

import pytest

from santorini_p2p.ai.evaluate import evaluate
from santorini_p2p.ai.opening import choose_setup
from santorini_p2p.engine import (
    Phase,
    Place,
    apply_action,
    apply_unchecked,
    generate_turns,
    parse_position,
)
from tests.positions import make


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


def _gain(god: str, cells: str, seat: int = 1) -> int:
    """What ``god`` on seat 1 adds to the evaluation of seat 1's side in ``cells``."""
    powered = evaluate(make(cells, seat=seat, gods=f"{god},-"), 0)[0]
    return powered - evaluate(make(cells, seat=seat), 0)[0]


def test_nemesis_counts_on_taking_the_opponents_high_squares():
    # Nemesis on the ground (a1, a2), the opponent's workers on level 2, far from hers.
    apart = "a1=0A a2=0A d4=2B e4=2B"
    assert _gain("nemesis", apart) >= 300
    # Next to one of hers, the opponent can keep her from the exchange: less.
    near = "a1=0A c3=0A d4=2B e4=2B"
    assert 0 < _gain("nemesis", near) < _gain("nemesis", apart)
    # The opponent moves next: it can step next to her first.
    assert 0 < _gain("nemesis", apart, seat=2) < _gain("nemesis", apart)
    # Nothing to gain when hers stand as high as the opponent's.
    assert _gain("nemesis", "a1=2A a2=2A d4=1B e4=2B") == 0
