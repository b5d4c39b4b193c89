"""The PUCT tree search on the net: exact wins and losses, legal turns, its budgets."""

import random
import threading

import pytest

from santorini_p2p.ai import analyse, choose_action
from santorini_p2p.ai.evaluate import WIN
from santorini_p2p.ai.mate import MAX_TURNS, solve
from santorini_p2p.ai.search import STUDY_LEVELS, find_level, play_turn
from santorini_p2p.engine import (
    Phase,
    apply_action,
    apply_unchecked,
    generate_turns,
    legal_actions,
    new_game,
    parse_position,
)
from santorini_p2p.engine.gods import ALL_GOD_NAMES
from tests.test_ai_net import DOUBLE_THREAT_LOST, _midgame, _random_net

# Seat 1 climbs c3 (level 1) to c2 (level 2), between the level-3 squares b1 and d1: seat 2's
# workers on row 5 can dome neither in time, so seat 1 wins with its second turn.
DOUBLE_THREAT_WON = "03030/00200/001A00/00000/0B000B0A 1 -,- -"


def test_puct_is_a_study_level_that_searches_with_the_net():
    from santorini_p2p.ai import LEVELS

    assert "puct" in STUDY_LEVELS
    assert "puct" not in LEVELS
    level = find_level("puct")
    assert level.puct
    assert level.learned


def test_every_turn_losing_is_a_proved_loss():
    r = play_turn(
        parse_position(DOUBLE_THREAT_LOST),
        find_level("puct"),
        rng=random.Random(0),
        nodes=50,
        net=_random_net(1),
    )
    # Whatever seat 1 does, seat 2 wins with its next turn: lost in two plies.
    assert r.score == -WIN + 2
    assert r.best in generate_turns(parse_position(DOUBLE_THREAT_LOST))


@pytest.mark.parametrize("seed", range(3))
def test_a_forced_win_is_proved_and_played_whatever_the_net_says(seed):
    p = parse_position(DOUBLE_THREAT_WON)
    r = play_turn(p, find_level("puct"), rng=random.Random(seed), nodes=400, net=_random_net(seed))
    assert r.score == WIN - 3
    reply, _ = solve(apply_unchecked(p, r.best), MAX_TURNS, nodes=100_000)
    assert reply is not None
    assert reply.turns == -1  # every reply loses at once


def test_analyse_at_puct_keeps_forced_results_exact():
    net = _random_net(4)
    a = analyse(parse_position(DOUBLE_THREAT_WON), "puct", nodes=3000, net=net)
    assert a.forced == 2
    b = analyse(parse_position(DOUBLE_THREAT_LOST), "puct", nodes=3000, net=net)
    assert b.forced == -1


@pytest.mark.parametrize("god", ALL_GOD_NAMES)
def test_puct_plays_every_god_legally(god):
    net = _random_net(2)
    rng = random.Random(god)
    other = rng.choice([g for g in ALL_GOD_NAMES if g != god])
    p = new_game(2, "random", drawn=(god, other))
    plies = 0
    while p.phase is not Phase.OVER and plies < 12:
        if p.phase is Phase.PLAY:
            r = play_turn(p, find_level("puct"), rng=rng, nodes=8, net=net)
            assert r.best in generate_turns(p)
            assert r.nodes <= 8
            p = apply_action(p, r.best)
            plies += 1
        else:
            p = apply_action(p, choose_action(p, "hard", rng=rng))


class _Clock:
    """A clock that moves on 10 ms each reading: a search bounded by time must stop."""

    def __init__(self) -> None:
        self.now = 0.0
        self.readings = 0

    def __call__(self) -> float:
        self.now += 0.01
        self.readings += 1
        return self.now


def test_puct_keeps_to_its_time():
    p = _midgame(3)
    clock = _Clock()
    action = choose_action(
        p, "puct", rng=random.Random(0), think=0.5, clock=clock, net=_random_net()
    )
    assert action in legal_actions(p)
    # About 50 readings of the clock fit in half a second of it; none goes far past.
    assert clock.now <= 0.5 + 0.05


def test_a_stopped_puct_search_answers_at_once_with_a_legal_turn():
    p = _midgame(6)
    stop = threading.Event()
    stop.set()
    action = choose_action(
        p, "puct", rng=random.Random(0), think=60.0, stop=stop, net=_random_net()
    )
    assert action in legal_actions(p)


def test_where_the_net_does_not_apply_puct_searches_as_hard():
    p = parse_position("0C000C0/00000A/002B30/00000/0A000B0 1 -,-,- -")
    a = analyse(p, "puct", nodes=2000, net=_random_net())
    b = analyse(p, "hard", nodes=2000)
    assert (a.best, a.score, a.nodes, a.evaluated) == (b.best, b.score, b.nodes, 0)
