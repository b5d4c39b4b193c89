"""What a power did, and what it imposes, as the console and the exports describe it."""

from __future__ import annotations

import random

import pytest

from santorini_p2p.engine import (
    ALL_GOD_NAMES,
    EffectKind,
    Phase,
    apply,
    apply_action,
    describe_effect,
    find_turn,
    legal_actions,
    legal_turns,
    new_game,
    parse_position,
    standing_effects,
    turn_effects,
)
from santorini_p2p.engine.gods.bans import ban_reason as pairing_error
from santorini_p2p.engine.squares import SQUARE_NAMES, bits

TURN_CASES = [
    # (position, turn, kind, squares, text)
    (
        "0B000B0A/00000/00000/02A300/00000 1 minotaur,hera -",
        "e5>d5^c4",
        EffectKind.FORCED,
        ("d5", "c5"),
        "B's worker forced from d5 to c5",
    ),
    (
        "013X0A0/1001B0/101A23/01000/10B110 1 charon,aphrodite -",
        "c3~d4>b3^a2",
        EffectKind.FORCED,
        ("d4", "b2"),
        "B's worker forced from d4 to b2",
    ),
    (
        "0A0A010/00220/01010B/03000B/00310 1 ares,aphrodite -",
        "a5>a4^a3-c4",
        EffectKind.UNBUILT,
        ("c4",),
        "a block removed from c4",
    ),
    (
        "0X13X11A/0X00B02/132X0X1/030A21/0110X0 1 medusa,atlas -",
        "e5>d5^d4",
        EffectKind.REMOVED,
        ("c4",),
        "B's worker on c4 removed",
    ),
    (
        "0A0000A/00000/00000B/00000/00000B 1 bia,chronus -",
        "e5>e4^d3",
        EffectKind.REMOVED,
        ("e3",),
        "B's worker on e3 removed",
    ),
    (
        "00001/11211/322B21/3221B0/10A10A0 2 persephone,charon -",
        "d2~d1>c2^b2",
        EffectKind.FORCED,
        ("d1", "d3"),
        "A's worker forced from d1 to d3",
    ),
]


@pytest.mark.parametrize(("position", "text", "kind", "squares", "line"), TURN_CASES)
def test_a_turn_says_what_its_power_did_to_the_others(position, text, kind, squares, line):
    p = parse_position(position)
    effects = turn_effects(p, find_turn(p, text))
    assert [(e.kind, tuple(SQUARE_NAMES[s] for s in e.squares)) for e in effects] == [
        (kind, squares)
    ]
    assert describe_effect(p, effects[0]) == line


def test_a_plain_turn_has_no_effect():
    p = parse_position("00000/00B00A0/00000/00A00B0/00000 1 apollo,pan -")
    assert {turn_effects(p, t) for t in legal_turns(p)} == {()}
    q = parse_position("00000/00B00A0/00000/00A00B0/00000 1 -,- -")
    assert {turn_effects(q, t) for t in legal_turns(q)} == {()}
    assert standing_effects(q) == ()


STANDING_CASES = [
    (
        "00000/00B00A0/00000/00A00B0/00000 2 athena,- a",
        EffectKind.NO_UP,
        "may not move up",
    ),
    (
        "0B000B0A/00000/00000/02A300/00000 1 minotaur,hera -",
        EffectKind.NO_WIN,
        "no winning move onto the perimeter",
    ),
    (
        "3X03X03X/00000/3X00B00B/03000/0A0000A 1 chronus,atlas -",
        EffectKind.TOWERS,
        "A wins with 5 complete towers; 4 stand",
    ),
    (
        "013X0A0/1001B0/101A23/01000/10B110 1 charon,aphrodite -",
        EffectKind.BOUND,
        "workers on c3, d5, if moved, must end next to B's workers",
    ),
    (
        "0000B1/01001/0000B2/001A10/00010A 1 eros,hypnus -",
        EffectKind.FROZEN,
        "worker on c2 may not move",
    ),
    (
        "01000/00001B/00A101/010A00/10001B 2 persephone,ares -",
        EffectKind.MUST_UP,
        "must move up if possible",
    ),
]


@pytest.mark.parametrize(("position", "kind", "line"), STANDING_CASES)
def test_what_the_powers_impose_on_the_turn_to_play(position, kind, line):
    p = parse_position(position)
    effects = standing_effects(p)
    assert [e.kind for e in effects] == [kind]
    assert describe_effect(p, effects[0]) == line


def test_limus_forbids_the_squares_next_to_its_workers():
    p = parse_position("00010A/00001/0010A0B/00B020/00001 1 charon,limus -")
    (e,) = standing_effects(p)
    assert e.kind is EffectKind.NO_BUILD
    limus = p.workers[1]
    near = {
        n
        for w in bits(limus)
        for n in range(25)
        if max(abs(n % 5 - w % 5), abs(n // 5 - w // 5)) == 1
    }
    assert set(e.squares) == near
    # every legal build avoids them, except a tower's dome, unless Charon's ferry moved Limus first
    for t in legal_turns(p):
        if "~" in str(t):
            continue
        for b in t.builds:
            assert b & 31 not in near or p.level(b & 31) == 3


def test_effects_account_for_every_change_of_the_other_workers_in_random_games():
    """Over random games with every god, effects explain the other sides' boards exactly."""
    rng = random.Random(7)
    gods = list(ALL_GOD_NAMES)
    checked = 0
    for _ in range(40):
        pair = tuple(rng.sample(gods, 2))
        if pairing_error(pair):
            continue
        p = new_game(2, "random", drawn=pair)
        while p.phase is Phase.PLACE:
            p = apply_action(p, rng.choice(legal_actions(p)))
        for _ in range(60):
            if p.phase is not Phase.PLAY:
                break
            t = rng.choice(legal_turns(p))
            q = apply(p, t)
            mover = p.side_of(p.to_move)
            for side in range(p.sides):
                if side == mover:
                    continue
                board = set(bits(p.workers[side]))
                for e in turn_effects(p, t, q):
                    if e.side != side:
                        continue
                    if e.kind is EffectKind.FORCED:
                        board.remove(e.squares[0])
                        board.add(e.squares[1])
                    elif e.kind in (EffectKind.REMOVED, EffectKind.OUT):
                        board -= set(e.squares)
                    elif e.kind is EffectKind.JOINED:
                        board |= set(e.squares)
                assert board == set(bits(q.workers[side])), (str(p), str(t))
            lower = [s for s in range(25) if q.level(s) < p.level(s)]
            unbuilt = [e.squares[0] for e in turn_effects(p, t, q) if e.kind is EffectKind.UNBUILT]
            assert unbuilt == lower
            for e in standing_effects(q):
                assert describe_effect(q, e)
            checked += 1
            p = q
    assert checked > 1000


def test_limus_is_described_by_its_rule_not_a_list_of_squares():
    p = parse_position("00010A/00001/0010A0B/00B020/00001 1 charon,limus -")
    (e,) = standing_effects(p)
    assert describe_effect(p, e) == "no build next to the opponent's workers, but a dome on level 3"
