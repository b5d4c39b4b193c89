"""Forced wins and losses within three turns: exact, checked against plain minimax."""

import json
import random

import pytest

from santorini_p2p.ai import analyse
from santorini_p2p.ai.mate import result_text, solve
from santorini_p2p.cli import main
from santorini_p2p.engine import (
    ALL_GOD_NAMES,
    GOD_NAMES,
    NO_WINNER,
    Phase,
    Position,
    apply_action,
    apply_unchecked,
    ban_reason,
    generate_turns,
    legal_actions,
    new_game,
    parse_position,
)
from tests.brute_force import forced, wins_within
from tests.positions import make

# Each proved by brute_force.forced below (plain minimax over every turn); n > 0 wins in n
# of the mover's turns, n < 0 loses in -n.
PROVED = [
    (1, "1X2211X/1X2B1X0B3/0A303X3X/33X3X2X1/2X2A2X23 2 -,- -"),
    (1, "21X121/22X00A0/2X310X2B/11X2A23/20X0B23X 2 hermes,- -"),
    (2, "0X20A1X0/3223X2/3211X2/20A3X0X2X/21B0X2B0 2 -,- -"),
    (2, "12311/331B1X3X/3221A3X/22100B/10A112 1 -,- -"),
    (2, "32X212/1A2330B/1A1X0X23X/3X2B231/3X0X332 1 minotaur,- -"),
    (3, "0A10X0X2A/21031X/2222X0X/01X21B2B/22X22X2 2 -,- -"),
    (3, "0X2102/2A1X1A2X2/12B1X02/2X2231B/13X210X 1 -,- -"),
    (3, "0X3X2X2A0B/3211B1X/2313X1/10X3X3X1A/2X20X33X 2 demeter,- -"),
    (3, "12X03X3/11A11X1/2B23X22/1001X2B/1121A2 1 pan,- -"),
    (-1, "12X2A2X2/1X0X1X2A2/221X2B0X/2B1X113/1313X0 1 -,- -"),
    (-1, "0B2X1X31B/2X1A2X3X2/2103X2/3X322A1X/33X32X1 2 demeter,- -"),
    (-1, "32X103/3022B0A/2221B0/03112A/1X021X1 1 -,artemis -"),
    (-2, "0B31A1B0X/112A21/1X1X21X0X/0X1X133X/22X312 2 -,- -"),
    (-2, "2B0130X/20232/1B0X20X2/0A1210X/210A00 1 -,- -"),
    (-2, "2X2X3X0X2B/1X13X1X1X/0X3X1X12/1X22A1X0X/1B1A0X22 2 -,apollo -"),
    (-3, "1B200X3/12222B/3X2X0A2X2A/1203X2X/20X32X3 1 -,- -"),
    (-3, "11X1X2X3X/2X21X22A/0B2X12X2B/12A3X1X0/3X1X0X3X2 2 artemis,- -"),
]
# Seat 1 wins by leaving seat 2 no turn at all: e3>e4 takes the last free square near e5,
# and a1's worker cannot climb onto b1 (level 2).
STALL_WIN = make("a1=0B a2=0X b2=0X b1=2 e5=0B d5=0X d4=0X e3=0A c3=0A", seat=1)


def _keeps_win(p: Position, best, n: int) -> bool:
    """Whether ``best`` still wins within ``n`` turns whatever the other side does."""
    me = p.side_of(p.to_move)
    c = apply_unchecked(p, best)
    if c.winner >= 0:
        return c.winner != NO_WINNER and c.side_of(c.winner) == me
    if n == 1:
        return False
    for r in generate_turns(c):
        q = apply_unchecked(c, r)
        won = q.winner >= 0 and q.winner != NO_WINNER and q.side_of(q.winner) == me
        if not won and (q.winner >= 0 or not wins_within(q, n - 1)):
            return False
    return True


@pytest.mark.parametrize(("n", "text"), PROVED, ids=[f"{n:+d} {t}" for n, t in PROVED])
def test_forced_result_is_exact_and_best_turn_keeps_it(n, text):
    p = parse_position(text)
    assert forced(p, 3) == n  # the reference agrees with the pinned answer
    a = analyse(p, nodes=200_000)
    assert a.forced == n
    assert a.result == result_text(n)
    assert a.mate == (2 * n - 1 if n > 0 else 2 * n)
    if n > 0:
        assert _keeps_win(p, a.best, n)
        assert a.win == 1.0
    else:
        assert a.win == 0.0


def test_win_by_leaving_the_opponent_no_turn_counts_as_win_in_one():
    assert forced(STALL_WIN, 1) == 1
    a = analyse(STALL_WIN, nodes=10_000)
    assert a.result == "win in 1"
    assert apply_unchecked(STALL_WIN, a.best).winner == 0


def _random_small_position(rng: random.Random, gods=GOD_NAMES) -> Position | None:
    grid = []
    squares = rng.sample(range(25), 4)
    for s in range(25):
        if s in squares:
            grid.append(f"{rng.choice((0, 1, 2, 2))}{'A' if squares.index(s) < 2 else 'B'}")
        elif rng.random() < 0.4:
            grid.append(f"{rng.randrange(4)}X")
        else:
            grid.append(str(rng.choice((0, 1, 2, 2, 3))))
    ranks = ["".join(grid[r * 5 : r * 5 + 5]) for r in range(4, -1, -1)]
    gods = rng.choice((("-", "-"), (rng.choice(gods), "-"), ("-", rng.choice(gods))))
    try:
        p = parse_position(f"{'/'.join(ranks)} {rng.choice((1, 2))} {','.join(gods)} -")
    except ValueError:
        return None
    if p.phase is not Phase.PLAY or p.winner >= 0 or not 1 <= len(generate_turns(p)) <= 10:
        return None
    return p


def test_solver_agrees_with_plain_minimax_on_random_positions():
    rng = random.Random(25)
    checked = 0
    results = set()
    while checked < 60:
        p = _random_small_position(rng)
        if p is None:
            continue
        want = forced(p, 2)
        got, done = solve(p, 2)
        assert done
        assert (got.turns if got else None) == want, str(p)
        if got is not None and got.turns > 0:
            assert _keeps_win(p, got.best, got.turns)
        results.add(want)
        checked += 1
    assert {1, -1} <= results  # the sample holds both kinds


def test_solver_agrees_with_plain_minimax_with_the_advanced_gods():
    advanced = tuple(g for g in ALL_GOD_NAMES if g not in GOD_NAMES)
    rng = random.Random(26)
    checked = 0
    while checked < 40:
        p = _random_small_position(rng, advanced)
        if p is None:
            continue
        want = forced(p, 2)
        got, done = solve(p, 2)
        assert done
        assert (got.turns if got else None) == want, str(p)
        if got is not None and got.turns > 0:
            assert _keeps_win(p, got.best, got.turns)
        checked += 1


def test_solver_stops_on_its_budget_and_says_so():
    p = parse_position("00000/00000/00B0A0B0/000A00/00000 1 -,- -")
    assert solve(p, 3, nodes=50) == (None, False)


def test_three_players_have_no_exact_result():
    p = parse_position("0C000C0/00000A/002B30/00000/0A000B0 1 -,-,- -")
    assert solve(p, 3) == (None, True)


def test_analyse_json_gives_result_in_turns_and_mate_in_plies(capsys):
    n, text = PROVED[13]
    assert n == -2
    assert main(["analyse", text, "--nodes", "200000", "--json"]) == 0
    out = json.loads(capsys.readouterr().out)
    assert out["result"] == "loss in 2"
    assert out["mate"] == -4
    n, text = PROVED[5]
    assert n == 3
    assert main(["analyse", text, "--nodes", "200000", "--json"]) == 0
    out = json.loads(capsys.readouterr().out)
    assert out["result"] == "win in 3"
    assert out["mate"] == 5


def test_analyse_json_result_is_null_without_a_forced_result(capsys):
    assert (
        main(["analyse", "00000/00000/00B0A0B0/000A00/00000 1 -,- -", "--nodes", "3000", "--json"])
        == 0
    )
    assert json.loads(capsys.readouterr().out)["result"] is None


# Positions from random games with the advanced gods (removed workers, Chronus's towers,
# Hera's perimeter, Triton's chains, Charon's ferry, ...). Their results are not written
# here: brute_force.forced works each out below.
ADVANCED_PLAYED = [
    "013X10/3X223X1A/13330/11B11B1/133X13 1 charon,bia -",
    "333X1B2/1B3X3X3X3/23X13X1/1A3X21A3X/23X33X1 2 charon,apollo -",
    "02A110/3X3X3X03/1B3X3X31/23X33X3X/3X2B1A31 1 hermes,aphrodite -",
    "333X11B/1B3X3X3X3/23X13X1A/1A3X213/23X33X1 2 charon,apollo -",
    "0310A1/13X3X33X/31B230/20A323/121B20 1 chronus,athena -",
    "10220/23130B/13X331/03X1A0B2/113X21A 1 chronus,hestia -",
    "123B33/0A3X3X3X3X/2303X2/1B3X210/1320A0 2 triton,zeus -",
    "003X3X2/1B3X3X3X2/33X0A3X1A/33X2B3X3X/02233X 1 hera,ares -",
    "21120/221B31/103X3X0/333X30A/03231A 1 bia,triton -",
    "013X1A0/3X233X1/13330/111B1B1/133X23 1 charon,bia -",
    "0B2300/23X122/21310/1A1A3X3X2/2030B0 2 zeus,hephaestus -",
    "2223X2/3X3X3X2B1/3X0B3X23X/3X1A13X3X/133X3X0A 1 poseidon,minotaur -",
    "21110/33X312/13X00A2/1B3X3X33/010A2B2 2 chronus,eros -",
    "01322/120A33X/33X3X2A3/2B13X23/23X3X3X2 2 medusa,limus -",
    "00012B/03X03X2/0A131A0/32B33X0/11010 2 persephone,zeus -",
    "01A3X22/12033X/3X3X3X2A3/21B3X23/23X3X3X2 2 medusa,limus -",
    "032A20/123X33X/23X3X1B1A/20B3X3X1/31300 2 hera,zeus -",
    "03X33X1/1B313X3/3X3X3X2A3/1A3X313/11B33X3 2 limus,triton -",
]


@pytest.fixture(scope="module")
def advanced_results():
    """Each ADVANCED_PLAYED position with its result by plain minimax (None: none within 3)."""
    return [(text, forced(parse_position(text), 3)) for text in ADVANCED_PLAYED]


def test_advanced_positions_hold_wins_and_losses_in_one_two_and_three(advanced_results):
    assert {n for _, n in advanced_results} == {1, 2, 3, -1, -2, -3}


@pytest.mark.parametrize("index", range(len(ADVANCED_PLAYED)))
def test_forced_result_with_advanced_gods_is_exact_and_best_turn_keeps_it(advanced_results, index):
    text, n = advanced_results[index]
    p = parse_position(text)
    got, done = solve(p, 3)
    assert done
    assert (got.turns if got else None) == n
    a = analyse(p, nodes=200_000)
    assert a.forced == n
    if n is not None and n > 0:
        assert _keeps_win(p, a.best, n)
        assert a.win == 1.0


def test_solver_agrees_with_plain_minimax_on_random_advanced_games():
    advanced = tuple(g for g in ALL_GOD_NAMES if g not in GOD_NAMES)
    rng = random.Random(27)
    checked = 0
    results = set()
    while checked < 40:
        gods = (rng.choice(advanced), rng.choice(ALL_GOD_NAMES))
        if gods[0] == gods[1] or ban_reason(gods):
            continue
        p = new_game(2, "random", drawn=gods if rng.random() < 0.5 else gods[::-1])
        ends = []
        while p.phase is not Phase.OVER:
            if p.phase is Phase.PLAY and len(generate_turns(p)) <= 12:
                ends.append(p)
            p = apply_action(p, rng.choice(legal_actions(p)))
        for q in ends[-4:]:
            want = forced(q, 2)
            got, done = solve(q, 2)
            assert done
            assert (got.turns if got else None) == want, str(q)
            if got is not None and got.turns > 0:
                assert _keeps_win(q, got.best, got.turns)
            results.add(want)
            checked += 1
    assert {1, -1} <= results
