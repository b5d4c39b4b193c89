"""Hidden gods in the engine (protocol/SECRET.md 5-7): the pool, objections, waivers, audit."""

from __future__ import annotations

import random
from dataclasses import replace

import pytest

from santorini_p2p.engine import (
    ALL_GOD_NAMES,
    Position,
    apply_unchecked,
    ban_reason,
    find_turn,
    legal_turns,
    parse_position,
)
from santorini_p2p.engine.secrecy import (
    LEFT_OUT,
    SECRET_POOL,
    Play,
    _fits_secret_deal,
    audit,
    objection_error,
    restricts_opponents,
)

# Seat 1 (A) on b2 beside c2 (level 1); seat 2 (B) on d4 beside e4 (level 1).
START = parse_position("00000/0000B1/00000/00A100/0A0000B 1 -,- -")


def _play(p: Position, text: str, known: int) -> tuple[Position, Play]:
    turn = find_turn(p, text)
    return apply_unchecked(p, turn), Play(turn, known)


def test_the_pool_is_the_hook_rule_less_the_gods_left_out_and_has_no_banned_pair() -> None:
    fit = tuple(g for g in ALL_GOD_NAMES if _fits_secret_deal(g) and g not in LEFT_OUT)
    assert fit == SECRET_POOL
    assert ban_reason(SECRET_POOL) is None
    for god in ("bia", "graeae", "eros", "medusa", "chronus", "terpsichore", "hypnus"):
        assert god not in SECRET_POOL


@pytest.mark.parametrize("god", [g for g in SECRET_POOL if restricts_opponents(g)])
def test_a_restricting_god_only_forbids_turns(god: str) -> None:
    """Objection can enforce it: with the god in play, an opponent's turns are a subset of
    the same turns without it, each moving and building the same, at most not winning."""
    rng = random.Random(god)
    p = START
    for _ in range(24):
        turns = legal_turns(p)
        if not turns:
            break
        for seat in (0, 1):
            if seat == p.to_move:
                continue
            gods = tuple(god if s == seat else "" for s in range(2))
            ruled = replace(p, gods=gods)
            plain = {t: apply_unchecked(p, t) for t in turns}
            for t in legal_turns(ruled):
                assert t in plain
                after, before = apply_unchecked(ruled, t), plain[t]
                board = (after.ge1, after.ge2, after.ge3, after.domes, after.workers)
                assert board == (before.ge1, before.ge2, before.ge3, before.domes, before.workers)
                assert after.winner in (before.winner, -1)
        p = apply_unchecked(p, rng.choice(turns))
        if p.winner >= 0:
            break


def test_hidden_athena_objects_to_a_move_up_and_the_turn_is_refused_after() -> None:
    gods = ("athena", "")
    p, athena_up = _play(START, "b2>c2^b2", 0)  # Athena, hidden, moves up: a plain turn
    plays = [athena_up]
    up = Play(find_turn(p, "d4>e4^d4"), 0)
    assert objection_error(START, plays, gods, 0, up) is None
    # The mover plays again knowing the god: a move up is now illegal, a level move is fine.
    check = audit(START, [*plays, Play(up.turn, 1)], gods)
    assert check.fault is not None
    assert check.fault.seat == 1
    level = Play(find_turn(p, "d4>c4^d4"), 1)
    assert audit(START, [*plays, level], gods).fault is None


def test_an_objection_to_a_turn_that_breaks_nothing_is_refused_with_a_reason() -> None:
    p, level = _play(START, "b2>b3^b2", 0)  # Athena did not move up
    up = Play(find_turn(p, "d4>e4^d4"), 0)
    assert "breaks no rule of athena" in (
        objection_error(START, [level], ("athena", ""), 0, up) or ""
    )
    assert "forbids opponents nothing" in (
        objection_error(START, [level], ("atlas", ""), 0, up) or ""
    )
    assert "no god opened" in (objection_error(START, [level], ("", ""), 0, up) or "")


def test_an_unclaimed_restriction_is_waived_and_the_audit_accepts_it() -> None:
    p, athena_up = _play(START, "b2>c2^b2", 0)
    p, waived = _play(p, "d4>e4^d4", 0)  # Athena's owner acknowledged without objecting
    assert audit(START, [athena_up, waived], ("athena", "")).fault is None


def test_a_hidden_god_that_used_its_power_without_opening_loses_from_that_turn() -> None:
    # Artemis, hidden, moves twice: a turn no plain worker may play.
    gods = ("", "artemis")
    p, first = _play(START, "b2>b3^b2", 0)
    ruled = replace(p, gods=gods)
    double = next(t for t in legal_turns(ruled) if len(t.path) == 2)
    hidden = audit(START, [first, Play(double, 0)], gods)
    assert hidden.fault is not None
    assert hidden.fault.seat == 1
    assert hidden.fault.index == 1
    assert "needed artemis's power" in hidden.fault.reason
    assert audit(START, [first, Play(double, 2)], gods).fault is None


def test_a_hidden_pan_that_dropped_two_levels_and_built_broke_its_own_must() -> None:
    # Pan on a level-2 square steps down to level 0: with Pan that move wins at once, so a
    # turn that goes on to build is no turn of Pan's (the plain turn everyone checked).
    p = parse_position("00000/0000B0/00000/02A000/0A0000B 1 -,- -")
    gods = ("pan", "")
    turn = find_turn(p, "b2>a3^a4")
    found = audit(p, [Play(turn, 0)], gods)
    assert found.fault is not None
    assert found.fault.seat == 0
    assert "b2>a3^a4 is not legal for pan" in found.fault.reason
    opened = audit(p, [Play(find_turn(replace(p, gods=gods), "b2>a3"), 1)], gods)
    assert opened.fault is None
    assert opened.position.winner == 0


def test_audit_refuses_a_wrong_number_of_gods() -> None:
    with pytest.raises(ValueError, match="gods: expected 2"):
        audit(START, [], ("athena",))


def test_hidden_hera_objects_to_a_win_on_the_perimeter() -> None:
    p = parse_position("00000/00000/0002B0/00A023/0A0000B 2 -,- -")
    gods = ("hera", "")
    win = Play(find_turn(p, "d3>e2"), 0)
    assert objection_error(p, [], gods, 0, win) is None
    inner = Play(find_turn(p, "d3>d2^d3"), 0)
    assert "breaks no rule of hera" in (objection_error(p, [], gods, 0, inner) or "")
    waived = audit(p, [win], gods)
    assert waived.fault is None
    assert waived.position.winner == 1
