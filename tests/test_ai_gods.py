"""The computer opponent with every god: legal play at every level, in every player count."""

import random
from dataclasses import replace

import pytest

from santorini_p2p.ai import LEVELS, choose_action
from santorini_p2p.engine import (
    ALL_GOD_NAMES,
    Phase,
    Position,
    apply_action,
    can_win_now,
    generate_turns,
    has_legal_turn,
    legal_actions,
    new_game,
)
from santorini_p2p.engine.gods import ADVANCED, power_of

NODES = 40
"""A node budget small enough for a quick game, large enough for the search to go deep."""


def _play(start: Position, levels: tuple[str, ...], seed: int, limit: int) -> Position:
    """Play ``limit`` actions at most, seat ``i`` at ``levels[i]``; every action is legal."""
    rng = random.Random(seed)
    p = start
    for _ in range(limit):
        if p.phase is Phase.OVER:
            break
        level = levels[p.to_move]
        action = choose_action(p, level, rng=rng, nodes=NODES)
        assert action in legal_actions(p), (level, str(p), str(action))
        p = apply_action(p, action)
    return p


def _partner(god: str, k: int) -> str:
    """Another god to play against, spread over the 25."""
    i = ALL_GOD_NAMES.index(god)
    return ALL_GOD_NAMES[(i * 7 + 3 + k) % len(ALL_GOD_NAMES)] if k or i != 4 else "pan"


@pytest.mark.parametrize("god", ALL_GOD_NAMES)
def test_every_level_plays_every_god_legally(god):
    other = _partner(god, 0)
    if other == god:
        other = _partner(god, 1)
    for k, level in enumerate(LEVELS):
        # The god's seat alternates, the other seat is easy (quick, and plays to a finish).
        gods = (god, other) if k % 2 == 0 else (other, god)
        levels = (level, "easy") if k % 2 == 0 else ("easy", level)
        end = _play(new_game(2, "random", drawn=gods), levels, seed=k, limit=60)
        assert end.phase in (Phase.PLAY, Phase.OVER)


@pytest.mark.parametrize("players", [3, 4])
@pytest.mark.parametrize("k", range(3))
def test_every_level_plays_advanced_gods_with_three_and_four_players(players, k):
    rng = random.Random(players * 10 + k)
    advanced = [g.name for g in ADVANCED if players in g.players]
    first = rng.sample(advanced, 2)
    rest = [g for g in ALL_GOD_NAMES if g not in first and players in power_of(g).players]
    gods = (*first, *rng.sample(rest, players - 2))
    levels = tuple(LEVELS[(k + i) % len(LEVELS)] for i in range(players))
    end = _play(new_game(players, "random", drawn=gods), levels, seed=k, limit=40)
    assert end.phase in (Phase.PLAY, Phase.OVER)


def _random_games(seed: int, games: int) -> list[Position]:
    """The play positions of random games, each with random gods from all 25."""
    rng = random.Random(seed)
    out: list[Position] = []
    for _ in range(games):
        players = rng.choice([2, 2, 2, 3, 4])
        allowed = [g for g in ALL_GOD_NAMES if players in power_of(g).players]
        p = new_game(players, "random", drawn=tuple(rng.sample(allowed, players)))
        while p.phase is not Phase.OVER:
            if p.phase is Phase.PLAY:
                out.append(p)
            p = apply_action(p, rng.choice(legal_actions(p)))
    return out


def test_quick_win_check_agrees_with_the_engine_with_every_god():
    checked = wins = 0
    for p in _random_games(5, 60):
        won = any(t.is_win for t in generate_turns(p))
        assert can_win_now(p) == won, str(p)
        checked += 1
        wins += won
    assert checked > 1500
    assert wins > 50


def test_has_legal_turn_agrees_with_the_list_of_turns_with_every_god():
    stuck = 0
    for p in _random_games(6, 40):
        for seat in range(p.players):
            if p.eliminated >> seat & 1:
                continue
            q = replace(p, to_move=seat)
            has = bool(generate_turns(q))
            assert has_legal_turn(q) == has, str(q)
            stuck += not has
    assert stuck > 5
