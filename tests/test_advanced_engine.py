"""The advanced gods (RULES.md section 8) through the public API: outcome sets of a sample,
notation round trips over every legal turn of random games, and the command line."""

from __future__ import annotations

import json
import random
import subprocess
import sys
from pathlib import Path

import pytest

from santorini_p2p.engine import (
    ADVANCED,
    ALL_GOD_NAMES,
    Phase,
    apply_action,
    apply_unchecked,
    count_turns,
    find_turn,
    format_position,
    legal_actions,
    legal_turns,
    new_game,
    outcome,
    parse_position,
    parse_turn,
    state_hash,
)

SAMPLE = Path(__file__).parent / "data" / "advanced-sample.jsonl"
ADVANCED_NAMES = [g.name for g in ADVANCED]


def _key(position: str, winner: int | None, mover: int, chronus: bool, plain=False) -> tuple:
    """What a turn's result is compared by (the sample's own reduction)."""
    board = position.split(" ")[0]
    fields = position.split(" ")
    levels, low, owners = [], [], {"A": [], "B": []}
    for i, row in enumerate(board.split("/")):
        j = f = 0
        while j < len(row):
            s = (4 - i) * 5 + f
            level = int(row[j])
            j += 1
            if j < len(row) and not row[j].isdigit():
                if row[j] == "X":
                    if level < 3:
                        low.append((s, level))
                    level = 4
                else:
                    owners[row[j]].append(s)
                j += 1
            levels.append((s, level))
            f += 1
    lv = tuple(v for _, v in sorted(levels))
    low_t = tuple(sorted(low)) if chronus else ()
    if winner is not None and not plain:
        return ("W", winner, lv, low_t, tuple(sorted(owners["AB"[winner]])))
    athena = "a" in fields[3] and fields[2].split(",")[mover] == "athena"
    seat = str(2 - mover) if plain else fields[1]
    return ("N", lv, low_t, tuple(sorted(owners["A"])), tuple(sorted(owners["B"])), seat, athena)


def _cases():
    return [json.loads(line) for line in SAMPLE.read_text().splitlines() if line.strip()]


@pytest.mark.parametrize("case", _cases(), ids=lambda c: c["id"])
def test_s8_every_turn_reaches_exactly_the_sample_outcomes(case):
    p = parse_position(case["position"])
    chronus = "chronus" in p.gods
    want = set()
    stuck = set()
    for o in case["outcomes"]:
        w = o["winner"]
        key = _key(o["position"], None if w is None else w - 1, p.to_move, chronus)
        want.add(key)
        if o.get("opp_stuck"):
            stuck.add(key)
    got = set()
    for t in legal_turns(p):
        child = apply_unchecked(p, t)
        won = outcome(child)
        text = format_position(child)
        key = _key(text, won.winner, p.to_move, chronus)
        if won.winner == p.to_move:
            # A win by leaving the opponent with no turn: the sample may write it as the plain
            # position (RULES.md 2: that player loses when its turn starts).
            plain = _key(text, won.winner, p.to_move, chronus, plain=True)
            key = plain if plain in stuck else key
        got.add(key)
    assert got == want


def _random_games(seed: int, count: int):
    rng = random.Random(seed)
    for _ in range(count):
        gods = tuple(rng.sample(ADVANCED_NAMES, 1) + rng.sample(list(ALL_GOD_NAMES[:25]), 1))
        if gods[0] == gods[1]:
            continue
        if rng.random() < 0.5:
            gods = gods[::-1]
        p = new_game(2, "random", drawn=gods)
        while p.phase is not Phase.OVER:
            actions = legal_actions(p)
            if not actions:
                break
            yield p
            p = apply_action(p, rng.choice(actions))


def test_s8_every_legal_turn_text_parses_back_to_the_same_turn_and_is_unique():
    seen = 0
    for p in _random_games(11, 25):
        if p.phase is not Phase.PLAY:
            continue
        turns = legal_turns(p)
        texts = [str(t) for t in turns]
        assert len(set(texts)) == len(texts), format_position(p)
        for t, text in zip(turns, texts, strict=True):
            assert parse_turn(text) == t
        for t in turns[:: max(1, len(turns) // 4)]:
            assert find_turn(p, str(t).upper()) == t
        assert count_turns(p) == len(turns), format_position(p)
        seen += len(turns)
    assert seen > 1000


def test_s8_position_strings_and_state_hashes_of_advanced_games_round_trip():
    for p in _random_games(12, 20):
        text = format_position(p)
        q = parse_position(text)
        assert format_position(q) == text
        assert q.phase is p.phase, text
        assert state_hash(q) == state_hash(p), text


def test_s8_every_game_of_advanced_gods_ends():
    ends = 0
    for p in _random_games(13, 30):
        if p.phase is Phase.PLAY and not legal_turns(p):
            pytest.fail(f"a live position with no turn: {format_position(p)}")
        ends += 1
    assert ends > 100


def _santorini(*args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "santorini_p2p", *args], capture_output=True, text=True, timeout=60
    )


def test_gods_lists_every_god_with_its_power_and_player_counts():
    p = _santorini("gods", "--json")
    assert p.returncode == 0, p.stderr
    listed = json.loads(p.stdout)
    assert [g["name"] for g in listed] == list(ALL_GOD_NAMES)
    hypnus = next(g for g in listed if g["name"] == "hypnus")
    assert hypnus["players"] == [2, 4]
    assert hypnus["set"] == "advanced"
    assert "higher than all" in hypnus["power"]
    text = _santorini("gods").stdout
    assert "zeus" in text
    assert "block under itself" in text


def test_moves_and_perft_accept_the_advanced_gods():
    position = "0A0000A/00000/00000B/00000/00000B 1 bia,chronus -"
    p = _santorini("moves", "--json", position)
    assert p.returncode == 0, p.stderr
    assert len(json.loads(p.stdout)["turns"]) == count_turns(parse_position(position))
    p = _santorini("perft", position, "2")
    assert p.returncode == 0
    assert p.stdout.split()[-1] == "1414"


def test_s8_a_game_with_a_god_its_card_does_not_read_for_is_refused_when_created():
    with pytest.raises(ValueError, match="hypnus is played with 2 or 4 players, not 3"):
        new_game(3, "random", drawn=("hypnus", "pan", "zeus"))


def test_can_win_now_agrees_with_the_turn_list_for_every_god():
    from santorini_p2p.engine import can_win_now

    checked = 0
    for p in _random_games(14, 40):
        if p.phase is Phase.PLAY:
            wins = any(t.path and t.is_win for t in legal_turns(p))
            assert can_win_now(p) == wins, format_position(p)
            checked += 1
    assert checked > 300
    # Pan could drop two levels, but Persephone makes the seat move up: no win then.
    p = parse_position("0A0100/001A11/10C010/101B12/102C21B 3 limus,persephone,pan -")
    assert not can_win_now(p)
    assert not any(t.path and not t.builds for t in legal_turns(p))


def _plain_play_positions(seed: int, games: int):
    """Every play position of ``games`` random games without gods, 2, 3 and 4 players in turn."""
    rng = random.Random(seed)
    for game in range(games):
        p = new_game((2, 3, 4)[game % 3])
        while p.phase is not Phase.OVER:
            if p.phase is Phase.PLAY:
                yield p
            p = apply_action(p, rng.choice(legal_actions(p)))


def test_can_win_now_agrees_with_the_turn_list_without_gods():
    from santorini_p2p.engine import can_win_now

    checked = wins = 0
    for p in _plain_play_positions(15, 90):
        win = any(t.path and t.is_win for t in legal_turns(p))
        assert can_win_now(p) == win, format_position(p)
        checked += 1
        wins += win
    assert checked > 1000
    assert wins > 50


def test_s8_triton_a_longer_path_to_the_same_outcome_is_read_as_the_written_one():
    from santorini_p2p.engine import legal_form
    from tests.positions import make

    p = make("a2=A e5=A c5=B e1=B", gods="triton,-")
    # RULES.md 8's example text: three steps where two reach the same square.
    typed = parse_turn("a2>a1>b1>c2^d3")
    assert typed not in legal_turns(p)
    assert str(legal_form(p, typed)) == "a2>b1>c2^d3"
    assert str(find_turn(p, "a2>b1>c2^d3")) == "a2>b1>c2^d3"
    # A path Triton may not take is not read as anything: b2 is not on the perimeter.
    assert legal_form(p, parse_turn("a2>b2>c2^d3")) is None


def test_s8_with_chronus_the_order_typed_is_the_order_meant():
    from santorini_p2p.errors import IllegalTurnError
    from tests.positions import make

    # Four complete towers; d4 at level 3 completes the fifth. Demeter's second build is then
    # never made, so 'd4 then c5' is not 'c5 then d4'.
    towers = "a5=3X b5=3X d5=3X e5=3X"
    p = make(f"{towers} c3=A a1=A e2=B e1=B d4=3", gods="demeter,chronus")
    assert "c3>c4^c5^d4" in {str(t) for t in legal_turns(p)}
    with pytest.raises(IllegalTurnError):
        find_turn(p, "c3>c4^d4^c5")


def test_s6_a_lone_hermes_worker_keeps_its_power_and_its_level_moves():
    # Medusa took one of Hermes's workers: the last one still walks its level (written in the
    # H form with its one square) and still has its plain turns that change level.
    p = parse_position("0B0000B/00000/00000/00000/0A0000 1 hermes,medusa -")
    texts = {str(t) for t in legal_turns(p)}
    assert {"Ha2^a3", "Ha1^a2", "He1^d2"} <= texts
    after = find_turn(p, "Ha3^a4")
    assert str(apply_unchecked(p, after)).startswith("0B0000B/10000/0A0000/")
    from santorini_p2p.engine import legal_form

    assert str(legal_form(p, parse_turn("a1>a2^a3"))) == "Ha2^a3"
    assert parse_turn("Hb1^c1") == parse_turn("hB1^C1")


def test_s8_aphrodite_a_bound_hermes_worker_cannot_pass_the_other_in_a_lane():
    # The level-0 lane a5..a1: Hermes's a4 worker starts next to Aphrodite's b3 (bound), the
    # a5 worker does not. They cannot pass each other, so Ha1,a4 leaves the bound one on a1.
    p = parse_position("0A2222/0A2222/02B222/02222/02222B 1 hermes,aphrodite -")
    texts = {str(t) for t in legal_turns(p)}
    assert not any(t.startswith(("Ha1,a4", "Ha1,a3", "Ha1,a2")) for t in texts)
    assert any(t.startswith("Ha3,a4") for t in texts)


def test_s8_with_a_power_that_removes_workers_snake_placement_places_both_at_once():
    from santorini_p2p.engine import placement_due

    # One worker left after a removal could not be told from one placed of a snake's two.
    p = new_game(2, "random", snake=True, drawn=("charon", "medusa"))
    assert placement_due(p) == (0, 2)
    removed = parse_position("000B00/10000/1B1000/0000A0/00000 1 charon,medusa s")
    assert removed.phase is Phase.PLAY
    assert legal_turns(removed)


def test_s8_with_three_players_opponent_means_every_other_seat():
    from santorini_p2p.engine import can_win_now
    from tests.positions import make

    # Hera in seat 1: neither seat 2 nor seat 3 wins by moving up onto a perimeter square.
    cells = "a1=3 b1=2C d1=C a3=3 b3=2B d3=B d5=A e5=A"
    for seat in (2, 3):
        p = make(cells, seat=seat, gods="hera,-,-")
        assert not can_win_now(p), seat
        assert make(cells, seat=seat, gods="-,-,-").winner < 0
        assert can_win_now(make(cells, seat=seat, gods="-,-,-")), seat


def test_s8_with_four_players_opponent_means_the_other_team():
    from santorini_p2p.engine import limits

    # Limus in seat 1 (team A) bans builds next to team A's workers for seats 2 and 4 (team B),
    # not for seat 3, his teammate.
    board = "00000/00B00A0/00000/00A00B0/00000"
    p = parse_position(f"{board} 2 limus,-,-,- -")
    assert limits(p, 1).ban_sides == 1
    assert limits(p, 3).ban_sides == 1
    assert limits(p, 2).ban_sides == 0


def test_the_base_games_fast_apply_is_the_general_one():
    # A turn without gods takes a shorter path through apply_unchecked (no power hooks) and
    # a shorter "can the next seat move" check: both must agree with the general ones.
    from santorini_p2p.engine import rules

    applied = stuck = 0
    for p in _plain_play_positions(31, 45):
        for t in rules.generate_turns(p):
            fast = rules._after_plain(p, t)
            assert fast == rules._after(p, t), f"{format_position(p)} {t}"
            assert fast is not None
            can = rules._can_move(fast)
            assert can == rules.has_legal_turn(fast), format_position(fast)
            applied += 1
            stuck += not can
    assert applied > 10_000
    assert stuck > 0


def test_bits_reads_every_board_mask_as_the_bit_scan_does():
    # bits() answers a board's masks from two tables: the same squares, in order, as scanning
    # the set bits one by one, and a new list each time (callers may change it).
    from santorini_p2p.engine.squares import _scan, bits

    rng = random.Random(7)
    masks = [0, (1 << 25) - 1, 1 << 12, 1 << 13, 1 << 24, (1 << 25) | 5, 1 << 40]
    masks += [rng.getrandbits(25) & rng.getrandbits(25) for _ in range(20_000)]
    for m in masks:
        assert bits(m) == _scan(m) == [s for s in range(m.bit_length()) if m >> s & 1]
    first = bits(0b111)
    first.append(99)
    assert bits(0b111) == [0, 1, 2]
