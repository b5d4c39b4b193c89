"""The computer opponent against powers that win or threaten in ways of their own."""

import random

import pytest

from santorini_p2p.ai.evaluate import TUNED, evaluate
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


@pytest.mark.parametrize(
    ("god", "cells", "means", "without"),
    [
        # The opponent on c3 (level 2) threatens d4 (level 3); Asteria on a1 (level 1) can
        # step down to a2 and dome d4 from afar (on the ground she cannot step down).
        ("asteria", "a1=1A e1=0A c3=2B d4=3 a5=0B", "a1=1A", "a1=0A"),
        # Scylla on b2 (level 0) next to the opponent on c3 (level 2, threatening d4) steps
        # away and drags it down into b2 (from level 2 she would drag it no lower).
        ("scylla", "b2=0A e1=0A c3=2B d4=3 a5=0B", "b2=0A", "b2=2A"),
    ],
)
def test_a_power_that_spoils_a_threat_counts_it_on_its_turn(god, cells, means, without):
    assert _gain(god, cells) > 0
    # Not when the opponent moves next (it wins first), nor without the means.
    assert _gain(god, cells, seat=2) == 0
    assert _gain(god, cells.replace(means, without)) == 0
    # No threat, nothing to spoil.
    assert _gain(god, cells.replace("d4=3", "d4=2")) == 0


def test_a_worker_hades_keeps_from_moving_down_counts_as_stuck():
    # The opponent on c3 (level 2) has only lower squares around it: under Hades it cannot
    # move; its other worker on a5 can.
    cells = "a1=0A e1=0A c3=2B a5=0B b2=1 b3=1 b4=1"
    assert _gain("hades", cells, seat=2) >= TUNED.stuck
    # Squares as high around it: it moves as before.
    assert _gain("hades", cells.replace("b2=1", "b2=2"), seat=2) < _gain("hades", cells, seat=2)


def test_a_square_where_maenads_would_catch_a_worker_is_a_threat():
    # Maenads on a2 and d3, the opponent on c2: a2 to b1 puts c2 between two of hers.
    cells = "a2=0A d3=0A c2=0B e5=0B"
    plain = evaluate(make(cells, seat=2), 1)
    caught = evaluate(make(cells, seat=2, gods="maenads,-"), 1)
    assert plain[1] == 0
    assert caught[1] == 1
    assert caught[0] < plain[0] - 100
    # The opponent on e4 instead: nothing to catch.
    assert evaluate(make(cells.replace("c2", "e4"), seat=2, gods="maenads,-"), 1)[1] == 0


def test_siren_counts_a_song_that_forces_a_threatening_worker_down():
    # The opponent on c3 (level 2) threatens d4 (level 3); the song west forces it to b3.
    cells = "a1=0A e1=0A c3=2B d4=3 a5=0B d3=2"
    assert _gain("siren[w]", cells) > 0
    assert _gain("siren[w]", cells, seat=2) == 0
    # Sung east, it would land on d3, as high: no help.
    assert _gain("siren[e]", cells) == 0


def test_workers_a_power_gains_are_worth_less_than_the_placed_ones():
    # Hydra with four workers on the ground, the opponent with two: ahead, but by less than
    # the opponent would be if Hydra had lost one of her placed two.
    four = make("a1=0A a3=0A a5=0A e1=0A c3=0B e5=0B", gods="hydra,-")
    one = make("a1=0A c3=0B e5=0B", gods="hydra,-")
    assert 0 < evaluate(four, 0)[0] < -evaluate(one, 0)[0]
