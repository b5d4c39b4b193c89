"""Hypothesis properties of the engine: playouts, round trips, purity, hash stability."""

from __future__ import annotations

import random

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from santorini_p2p.engine import (
    GOD_NAMES,
    SQUARE_NAMES,
    Phase,
    apply_action,
    format_action,
    format_position,
    legal_actions,
    new_game,
    outcome,
    parse_action,
    parse_position,
    parse_square,
    parse_turn,
    state_hash,
)
from santorini_p2p.errors import NotationError


@st.composite
def games(draw):
    """A new game with a random player count, god mode, draw and placement option."""
    players = draw(st.sampled_from([2, 3, 4]))
    mode = draw(st.sampled_from(["none", "challenger", "draft", "random"]))
    gods = draw(st.permutations(GOD_NAMES))
    drawn = ()
    if mode == "draft":
        drawn = tuple(gods[: 4 if players == 2 else players + 2])
    elif mode == "random":
        drawn = tuple(gods[:players])
    return new_game(players, mode, snake=draw(st.booleans()), drawn=drawn)


@given(games(), st.integers(0, 2**32 - 1))
def test_random_playouts_never_crash_and_end_within_100_turns(game, seed):
    rng = random.Random(seed)
    p = game
    turns = 0
    while True:
        actions = legal_actions(p)
        result = outcome(p)
        # legal_actions is empty exactly when the game is over.
        assert bool(actions) == (not result.over), format_position(p)
        if not actions:
            break
        texts = [format_action(a) for a in actions]
        if p.phase is Phase.PLAY:
            assert texts == sorted(texts)
            assert len(set(texts)) == len(texts)
            turns += 1
        action = rng.choice(actions)
        before = format_position(p), state_hash(p)
        nxt = apply_action(p, action)
        # apply never mutates its input.
        assert (format_position(p), state_hash(p)) == before
        # Round trips: the action text and the position string.
        assert parse_action(format_action(action)) == action
        assert parse_position(format_position(nxt)) == nxt
        assert state_hash(parse_position(format_position(nxt))) == state_hash(nxt)
        p = nxt
        assert turns <= 100
    assert p.phase is Phase.OVER


@given(st.sampled_from(range(25)))
def test_square_round_trip(s):
    assert parse_square(SQUARE_NAMES[s]) == s
    assert parse_square(SQUARE_NAMES[s].upper()) == s


@given(st.text(alphabet="abcdefgh123456>^,HDXx ", max_size=20))
def test_parse_turn_raises_only_notation_errors(text):
    try:
        turn = parse_turn(text)
    except NotationError:
        return
    assert parse_turn(str(turn)) == turn


@given(st.text(alphabet="0123ABCXabx/ -,?apolnsw[].12345", max_size=60))
def test_parse_position_raises_only_notation_errors(text):
    try:
        p = parse_position(text)
    except NotationError:
        return
    assert parse_position(format_position(p)) == p


@settings(max_examples=20)
@given(st.integers(0, 2**32 - 1))
def test_state_hash_is_stable_and_distinguishes_successors(seed):
    rng = random.Random(seed)
    p = new_game(2, "random", drawn=tuple(rng.sample(GOD_NAMES, 2)))
    seen = {}
    while legal_actions(p):
        h = state_hash(p)
        assert h == state_hash(parse_position(format_position(p)))
        prior = seen.setdefault(h, format_position(p))
        assert prior == format_position(p)
        p = apply_action(p, rng.choice(legal_actions(p)))


@pytest.mark.parametrize("players", [2, 3, 4])
def test_hash_is_32_bytes(players):
    assert len(state_hash(new_game(players))) == 32


@given(st.text(alphabet="abcdef012356>^D", min_size=8, max_size=8))
def test_the_plain_turn_shortcut_reads_like_the_general_parser(text):
    # 8-character texts such as c3>d4^e5 take a shortcut; with a trailing space they do not.
    try:
        general = parse_turn(text + " ")
    except NotationError:
        general = None
    try:
        fast = parse_turn(text)
    except NotationError:
        fast = None
    assert fast == general
    if fast is not None:
        assert parse_action(text) == fast
