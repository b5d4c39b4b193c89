"""The computer opponent with every god: legal play at every level, in every player count."""

import json
import random
from dataclasses import replace

import pytest

from santorini_p2p.ai import LEVELS, analyse, choose_action
from santorini_p2p.ai.evaluate import evaluate
from santorini_p2p.cli import main
from santorini_p2p.engine import (
    ALL_GOD_NAMES,
    Phase,
    Position,
    apply_action,
    ban_reason,
    can_win_now,
    find_turn,
    format_position,
    generate_turns,
    has_legal_turn,
    legal_actions,
    new_game,
    parse_position,
)
from santorini_p2p.engine.gods import ADVANCED, power_of
from santorini_p2p.engine.rules import STOP_EVERY
from tests.positions import make

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
    """Another god to play against, spread over them all (never a banned pair)."""
    i = ALL_GOD_NAMES.index(god)
    other = ALL_GOD_NAMES[(i * 7 + 3 + k) % len(ALL_GOD_NAMES)] if k or i != 4 else "pan"
    return other if ban_reason((god, other)) is None else _partner(god, k + 1)


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
    while ban_reason(gods):
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
        drawn = tuple(rng.sample(allowed, players))
        while ban_reason(drawn):
            drawn = tuple(rng.sample(allowed, players))
        p = new_game(players, "random", drawn=drawn)
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


def test_a_threat_on_a_square_hera_forbids_is_no_pressure():
    # Seat 2's worker on b1 (level 2) could step up onto a1 (level 3, on the perimeter).
    cells = "b1=2B a1=3 c3=0A d4=0A e5=0B"
    assert evaluate(make(cells, gods="-,-"), 0)[1] == 1
    assert evaluate(make(cells, gods="hera,-"), 0)[1] == 0
    # A win into the middle (c2) still wins against her.
    assert evaluate(make(cells + " c2=3", gods="hera,-"), 0)[1] == 1


def test_a_worker_hypnus_freezes_makes_no_threat():
    # Seat 2's worker on b2 (level 2) is higher than its other one: Hypnus freezes it.
    cells = "b2=2B c3=3 e5=0B a5=0A e1=0A"
    assert evaluate(make(cells, gods="-,-"), 0)[1] == 1
    assert evaluate(make(cells, gods="hypnus,-"), 0)[1] == 0
    # With both of seat 2's workers on level 2 nobody is frozen.
    assert evaluate(make(cells.replace("e5=0B", "e5=2B"), gods="hypnus,-"), 0)[1] == 1


def test_a_lost_worker_costs_more_than_height():
    # Seat 1 with two workers on the ground, or one worker left on level 2.
    two = make("b2=0A d4=0A b4=0B d2=0B", gods="medusa,-")
    one = make("b2=2A b4=0B d2=0B", gods="medusa,-")
    assert evaluate(two, 0)[0] > evaluate(one, 0)[0]
    assert evaluate(two, 1)[0] < evaluate(one, 1)[0]


@pytest.mark.parametrize(
    ("god", "cells"),
    [
        # Bia on b2 steps to c3 and kills the worker on d4, straight on.
        ("bia", "b2=0A e1=0A d4=0B a5=0B"),
        # Medusa on b2 (level 1) steps up onto c3 (level 2), next to the worker on d4 (level 0).
        ("medusa", "b2=1A c3=2 e1=0A d4=0B a5=0B"),
    ],
)
def test_a_worker_a_power_can_remove_counts_as_nearly_lost(god, cells):
    plain = make(cells, gods="-,-")
    powered = make(cells, gods=f"{god},-")
    assert evaluate(powered, 0)[0] - evaluate(plain, 0)[0] >= 200
    # When the threatened side moves first, it can step away: a smaller term.
    later = make(cells, seat=2, gods=f"{god},-")
    gain = evaluate(later, 0)[0] - evaluate(make(cells, seat=2), 0)[0]
    assert 0 < gain < 200


def test_chronus_with_four_towers_and_a_fifth_to_dome_is_nearly_won():
    towers = "a1=3X b1=3X c1=3X d1=3X"
    # Chronus on c3 steps to d3 and domes e4 (level 3): the fifth complete tower.
    p = make(f"{towers} c3=0A e4=3 a5=0A a3=0B e2=0B", gods="chronus,-")
    assert evaluate(p, 0)[0] >= 1500
    # Three towers standing: some worth, far from a win.
    cells = "a1=3X b1=3X c1=3X c3=0A e4=3 a5=0A a3=0B e2=0B"
    gain = evaluate(make(cells, gods="chronus,-"), 0)[0] - evaluate(make(cells), 0)[0]
    assert 0 < gain < 500


@pytest.mark.parametrize(
    ("cells", "seat", "gods", "result"),
    [
        # Chronus domes e4 from d3 or d4: the fifth complete tower, a win by a build.
        ("a1=3X b1=3X c1=3X d1=3X c3=0A e4=3 a5=0A a3=0B e2=0B", 1, "chronus,-", "win in 1"),
        # Bia kills the last worker of seat 2 (b2 to c3, d4 straight on): it has no turn.
        ("b2=0A e1=0A d4=0B", 1, "bia,-", "win in 1"),
        # One worker against Medusa's two.
        ("b2=0A d4=0B e5=0B", 1, "-,medusa", None),
        # Medusa steps up onto c3 next to d4 (lower): petrified, one worker left.
        ("b2=1A c3=2 d4=0B a5=0B", 1, "medusa,-", None),
    ],
)
def test_analyse_json_answers_positions_with_removals_and_towers(capsys, cells, seat, gods, result):
    p = make(cells, seat=seat, gods=gods)
    assert main(["analyse", format_position(p), "--nodes", "3000", "--json"]) == 0
    out = json.loads(capsys.readouterr().out)
    best = find_turn(p, out["best"])
    assert out["result"] == result
    if result == "win in 1":
        assert apply_action(p, best).winner == p.to_move


@pytest.mark.parametrize(
    ("god", "cells", "without"),
    [
        # Seat 2's threat on c3 (b2 on level 2) is next to Ares on d4: he can lower it.
        ("ares", "b2=2B c3=3 d4=0A a5=0A e1=0B", "d4=0A"),
        # Zeus on b2 (level 1) next to c3 (level 3) rises to level 2 by a build under itself.
        ("zeus", "b2=1A c3=3 e5=0A a5=0B e1=0B", "c3=3"),
        # Eros on b2 (level 1) with his other worker two squares away.
        ("eros", "b2=1A d2=0A a5=0B e5=0B", "b2=1A"),
    ],
)
def test_a_power_adds_what_it_threatens_and_only_then(god, cells, without):
    def gain(cells: str) -> int:
        return evaluate(make(cells, gods=f"{god},-"), 0)[0] - evaluate(make(cells), 0)[0]

    assert gain(cells) > 0
    # Take away what the term is about (the worker's place, the tower square): no term.
    moved = {"d4=0A": "e4=0A", "c3=3": "c3=2", "b2=1A": "b2=0A"}[without]
    assert gain(cells.replace(without, moved)) == 0


@pytest.mark.parametrize("gods", ["challenger", "draft"])
def test_every_level_chooses_and_picks_from_a_pool_of_advanced_gods(gods):
    advanced = tuple(g.name for g in ADVANCED)
    for k, level in enumerate(LEVELS):
        rng = random.Random(k)
        if gods == "challenger":
            start = new_game(2, gods, offer=advanced)
        else:
            start = new_game(2, gods, drawn=tuple(rng.sample(advanced, 4)))
        end = _play(start, (level, level), seed=k, limit=30)
        assert end.phase in (Phase.PLAY, Phase.OVER)
        assert set(end.gods) <= set(advanced)


def test_the_time_budget_holds_when_listing_turns_is_what_costs(monkeypatch):
    # A clock that advances only while turns are listed (as with Poseidon's thousands of
    # extra builds): the search must look at it before each list, not every so many nodes.
    import santorini_p2p.ai.search as search

    listed = [0]
    real, real_stoppable = search.generate_turns, search.list_turns

    def counting(p):
        listed[0] += 1
        return real(p)

    def counting_stoppable(p, stop=None):
        listed[0] += 1
        return real_stoppable(p, stop)

    monkeypatch.setattr(search, "generate_turns", counting)
    monkeypatch.setattr(search, "list_turns", counting_stoppable)
    p = make("b2=0A d4=0A b4=0B d2=0B c3=1", gods="poseidon,aphrodite")
    for level in ("easy", "medium", "hard"):
        listed[0] = 0
        choose_action(p, level, rng=random.Random(1), think=0.05, clock=lambda: listed[0] / 1000)
        assert listed[0] <= 52, level


class _WorkClock:
    """A clock that advances only with the engine's work: per turn listed and per turn played.

    Patched into the search and the proof search, it makes "the search keeps to its time"
    exact and independent of the machine's speed.
    """

    LIST_S = 2e-6
    PLAY_S = 1e-4

    def __init__(self, monkeypatch: pytest.MonkeyPatch) -> None:
        import santorini_p2p.ai.mate as mate
        import santorini_p2p.ai.search as search

        self.now = 0.0
        for module in (search, mate):
            listing, playing = module.generate_turns, module.apply_unchecked
            monkeypatch.setattr(module, "generate_turns", self._listing(listing))
            monkeypatch.setattr(module, "apply_unchecked", self._playing(playing))
        for module in (search, mate):
            monkeypatch.setattr(module, "list_turns", self._stoppable(module.list_turns))

    def _listing(self, real):
        def listing(p):
            turns = real(p)
            self.now += self.LIST_S * len(turns)
            return turns

        return listing

    def _stoppable(self, real):
        """``list_turns``, the clock advancing as the turns are listed (its ``stop`` sees it)."""

        def listing(p, stop=None):
            asked = [0]

            def stopping():
                asked[0] += 1
                self.now += self.LIST_S * STOP_EVERY
                return stop is not None and stop()

            found = real(p, stopping)
            self.now += self.LIST_S * max(0, len(found.turns) - asked[0] * STOP_EVERY)
            return found

        return listing

    def _playing(self, real):
        def playing(p, t):
            self.now += self.PLAY_S
            return real(p, t)

        return playing

    def __call__(self) -> float:
        return self.now


# Tens of thousands of turns at the root: Morpheus's coins, Heracles's and Polyphemus's domes.
MANY_TURNS = [
    "0B0000B/00000/000A00/00000/0A0000 1 morpheus[8],apollo -",
    "0B0000B/00000/000A00/00000/0A0000 1 heracles,apollo -",
    "0B0000B/00000/000A00/00000/0A0000 1 polyphemus,apollo -",
]


@pytest.mark.parametrize("text", MANY_TURNS)
@pytest.mark.parametrize("level", ["easy", "medium", "hard"])
def test_analyse_keeps_to_its_time_with_thousands_of_turns(monkeypatch, text, level):
    p = parse_position(text)
    clock = _WorkClock(monkeypatch)
    a = analyse(p, level, think=0.5, clock=clock)
    assert a.best in generate_turns(p)
    # The root's list counts; past the deadline at most the 64 turns between two readings.
    assert clock.now <= 0.5 + 64 * _WorkClock.PLAY_S, clock.now


@pytest.mark.parametrize("level", ["easy", "medium", "hard"])
def test_a_move_keeps_to_its_time_when_one_reply_has_a_quarter_million_turns(monkeypatch, level):
    # Gaea to move against Polyphemus: each of her turns leads to a position where his domes,
    # with her workers put by each, make about 250,000 turns; listing one costs 0.5 s here.
    # The search must stop inside that list, not after it.
    p = parse_position("00000/000A00/0000B0/0A0000B/00000 1 gaea,polyphemus -")
    clock = _WorkClock(monkeypatch)
    t = choose_action(p, level, rng=random.Random(3), think=0.3, clock=clock)
    assert t in generate_turns(p)
    assert clock.now <= 0.3 + _WorkClock.LIST_S * STOP_EVERY + 64 * _WorkClock.PLAY_S, clock.now


@pytest.mark.parametrize("level", ["easy", "medium", "hard"])
def test_analyse_keeps_to_its_time_when_one_reply_has_a_quarter_million_turns(monkeypatch, level):
    # As above, with the proof search first (analyse, the review, `santorini analyse`).
    p = parse_position("00000/000A00/0000B0/0A0000B/00000 1 gaea,polyphemus -")
    clock = _WorkClock(monkeypatch)
    a = analyse(p, level, think=0.3, clock=clock)
    assert a.best in generate_turns(p)
    assert clock.now <= 0.3 + _WorkClock.LIST_S * STOP_EVERY + 64 * _WorkClock.PLAY_S, clock.now


@pytest.mark.parametrize("level", ["easy", "medium", "hard"])
def test_a_move_comes_back_within_the_time_with_thousands_of_turns(monkeypatch, level):
    p = parse_position(MANY_TURNS[0])
    clock = _WorkClock(monkeypatch)
    t = choose_action(p, level, rng=random.Random(3), think=0.5, clock=clock)
    assert t in generate_turns(p)
    assert clock.now <= 0.5 + 64 * _WorkClock.PLAY_S, clock.now
