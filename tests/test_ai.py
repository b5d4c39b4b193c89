import json
import random
import re
import threading
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

import pytest

from santorini_p2p.ai import LEVELS, analyse, choose_action
from santorini_p2p.ai.evaluate import can_win_now
from santorini_p2p.cli import main
from santorini_p2p.engine import (
    GOD_NAMES,
    OPENING,
    Action,
    Phase,
    Place,
    Position,
    Turn,
    apply_action,
    generate_turns,
    legal_actions,
    new_game,
    parse_position,
)
from santorini_p2p.study.arena import GameSpec, play_game, schedule, signed_log, tally
from santorini_p2p.wire.log import encode_frames, read_log

SEARCH_LEVELS = ("easy", "medium", "hard")
NODES = 300

# Seat 1's worker on c3 (level 2) steps up onto d3 (level 3).
WIN_IN_ONE_CLIMB = "00000B/0B0000/002A30/00000/0A0000 1 -,- -"
# Seat 2's worker on c3 (level 2) threatens d3; seat 1 must dome d3 from e4.
BLOCK_IN_ONE_DOME = "00000/00000A/002B30/00000/0A000B0 1 -,- -"
# The same threat with 3 players: seat 2 moves next, seat 3 cannot help.
BLOCK_IN_ONE_THREE_PLAYERS = "0C000C0/00000A/002B30/00000/0A000B0 1 -,-,- -"
# The same threat with 4 players: team B (seats 2 and 4) threatens, seat 1 blocks.
BLOCK_IN_ONE_TEAMS = "00000/00000A/002B30/00000/0A000B0 1 -,-,-,- -"
# Seat 2 threatens both b3 and d3 from c3; seat 1 can dome only one: lost in two turns.
DOUBLE_THREAT_LOST = "00000/00000A/032B30/00000/0A000B0 1 -,- -"
# Pan on c3 (level 2) steps down onto b3 (level 0) and wins.
WIN_IN_ONE_PAN_DROP = "00000B/0B0000/002A00/00000/0A0000 1 pan,- -"
# Apollo on c3 (level 2) swaps onto seat 2's worker standing on d3 (level 3).
WIN_IN_ONE_APOLLO_SWAP = "00000/0B0000/002A3B0/00000/0A0000 1 apollo,- -"
# Artemis on b3 (level 1) steps onto c3 (level 2), then up onto d3 (level 3).
WIN_IN_ONE_ARTEMIS_TWO_STEPS = "00000B/0B0000/01A230/00000/0A0000 1 artemis,- -"
# Three players: seat 3's worker on c3 (level 2) steps up onto d3.
WIN_IN_ONE_THREE_PLAYERS = "0B0000C/0B0000/002C30/0A0000/0A0000 3 -,-,- -"
# Four players: seat 4 moves team B's worker on c3 (level 2) up onto d3.
WIN_IN_ONE_TEAMS = "00000/0A0000/002B30/0B0000/0A0000 4 -,-,-,- -"


def _turn(action: Action) -> Turn:
    assert isinstance(action, Turn)
    return action


def _play_out(
    position: Position, level: str, rng: random.Random, nodes: int = NODES, limit: int = 400
) -> tuple[Position, set[Phase]]:
    seen_phases: set[Phase] = set()
    steps = 0
    while position.phase is not Phase.OVER and steps < limit:
        action = choose_action(position, level, rng=rng, nodes=nodes)
        assert action in legal_actions(position)
        seen_phases.add(position.phase)
        position = apply_action(position, action)
        steps += 1
    return position, seen_phases


def test_levels_are_named_weakest_first():
    assert LEVELS == ("random", "easy", "medium", "hard")


@pytest.mark.parametrize("players", [2, 3, 4])
@pytest.mark.parametrize("gods", ["none", "challenger", "draft", "random"])
def test_every_level_returns_legal_actions_in_every_phase(players, gods):
    rng = random.Random(players * 10 + len(gods))
    want = 4 if players == 2 else players + 2
    drawn = {
        "none": (),
        "challenger": (),
        "draft": tuple(rng.sample(GOD_NAMES, want)),
        "random": tuple(rng.sample(GOD_NAMES, players)),
    }[gods]
    start = new_game(players, gods, drawn=drawn)
    for level in LEVELS:
        end, phases = _play_out(start, level, random.Random(level), nodes=30)
        assert end.phase is Phase.OVER
        assert Phase.PLACE in phases
        assert Phase.PLAY in phases
        if gods in ("challenger", "draft"):
            assert Phase.GODS in phases


@pytest.mark.parametrize("god", GOD_NAMES)
def test_search_plays_legal_turns_with_every_god(god):
    other = GOD_NAMES[(GOD_NAMES.index(god) + 3) % len(GOD_NAMES)]
    for gods in ((god, other), (other, god)):
        start = new_game(2, "random", drawn=gods)
        end, _ = _play_out(start, "hard", random.Random(god), nodes=120)
        assert end.phase is Phase.OVER


@pytest.mark.parametrize("god", GOD_NAMES)
def test_search_plays_legal_turns_with_every_god_in_three_and_four_players(god):
    rest = [g for g in GOD_NAMES if g != god]
    for players in (3, 4):
        gods = (god, *rest[: players - 1])
        start = new_game(players, "random", drawn=gods)
        end, _ = _play_out(start, "medium", random.Random(players), nodes=60, limit=60)
        assert end.phase in (Phase.PLAY, Phase.OVER)


@pytest.mark.parametrize(
    ("position", "winning"),
    [
        (WIN_IN_ONE_CLIMB, "c3>d3"),
        (WIN_IN_ONE_PAN_DROP, None),
        (WIN_IN_ONE_APOLLO_SWAP, "c3>d3"),
        (WIN_IN_ONE_ARTEMIS_TWO_STEPS, "b3>c3>d3"),
        (WIN_IN_ONE_THREE_PLAYERS, "c3>d3"),
        (WIN_IN_ONE_TEAMS, "c3>d3"),
    ],
)
@pytest.mark.parametrize("level", SEARCH_LEVELS)
def test_finds_win_in_one(position, winning, level):
    p = parse_position(position)
    assert can_win_now(p)
    turn = _turn(choose_action(p, level, rng=random.Random(1), nodes=NODES))
    assert turn.is_win
    assert apply_action(p, turn).winner == p.to_move
    if winning is not None:
        assert str(turn) == winning


@pytest.mark.parametrize(
    "position", [BLOCK_IN_ONE_DOME, BLOCK_IN_ONE_THREE_PLAYERS, BLOCK_IN_ONE_TEAMS]
)
@pytest.mark.parametrize("level", SEARCH_LEVELS)
def test_blocks_win_in_one_with_a_dome(position, level):
    p = parse_position(position)
    for seed in range(3):
        turn = _turn(choose_action(p, level, rng=random.Random(seed), nodes=NODES))
        assert 13 in turn.builds  # d3 gets its dome
        after = apply_action(p, turn)
        assert after.has_dome(13)
        assert not can_win_now(after)


def test_random_level_does_not_search():
    p = parse_position(BLOCK_IN_ONE_DOME)
    turns = {str(choose_action(p, "random", rng=random.Random(s))) for s in range(30)}
    assert len(turns) > 5


def test_analyse_reports_win_in_one():
    a = analyse(parse_position(WIN_IN_ONE_CLIMB), nodes=NODES)
    assert str(a.best) == "c3>d3"
    assert a.mate == 1
    assert a.win == 1.0


def test_analyse_reports_double_threat_as_forced_loss():
    a = analyse(parse_position(DOUBLE_THREAT_LOST), nodes=2000)
    assert a.mate == -2
    assert a.win == 0.0
    assert a.best in generate_turns(parse_position(DOUBLE_THREAT_LOST))


def test_analyse_principal_variation_is_playable():
    p = parse_position(OPENING)
    a = analyse(p, nodes=3000)
    assert a.pv[0] == a.best
    assert a.depth >= 2
    for action in a.pv:
        p = apply_action(p, action)
    assert 0.0 < a.win < 1.0


def test_analyse_in_setup_gives_a_setup_action():
    p = new_game(2, "challenger")
    a = analyse(p, nodes=100)
    assert a.best in legal_actions(p)


def test_node_budget_is_respected():
    p = parse_position(OPENING)
    for budget in (1, 50, 700):
        a = analyse(p, nodes=budget)
        assert a.nodes <= budget + 1
        assert a.best in generate_turns(p)


def test_time_budget_stops_the_search_on_a_fake_clock():
    ticks = iter(range(10**9))

    def clock() -> float:
        return next(ticks) / 1000.0  # every reading advances a millisecond

    p = parse_position(OPENING)
    a = analyse(p, think=0.05, clock=clock)
    assert a.nodes <= 64 * 60
    assert a.best in generate_turns(p)


def test_stop_event_returns_at_once_with_a_legal_turn():
    stop = threading.Event()
    stop.set()
    p = parse_position(OPENING)
    a = analyse(p, think=60.0, stop=stop)
    assert a.nodes <= 1
    assert a.best in generate_turns(p)
    turn = choose_action(p, "hard", rng=random.Random(0), think=60.0, stop=stop)
    assert turn in generate_turns(p)


def test_stop_from_another_thread_ends_a_long_search():
    p = parse_position(OPENING)
    stop = threading.Event()
    result: list[Action] = []

    def search() -> None:
        result.append(choose_action(p, "hard", rng=random.Random(0), think=600.0, stop=stop))

    worker = threading.Thread(target=search)
    worker.start()
    stop.set()
    worker.join(timeout=30)  # a backstop: the search returns as soon as it sees the event
    assert not worker.is_alive()
    assert result[0] in generate_turns(p)


def test_same_seed_same_choice_across_threads():
    p = parse_position(OPENING)

    def pick(seed: int) -> str:
        return str(choose_action(p, "hard", rng=random.Random(seed), nodes=400))

    serial = [pick(s) for s in range(4)]
    with ThreadPoolExecutor(max_workers=4) as pool:
        parallel = list(pool.map(pick, range(4)))
    assert serial == parallel


def test_same_seed_same_game():
    spec = GameSpec(0, ("medium", "easy"), "random", seed=7, nodes=80)
    first = play_game(spec)
    second = play_game(spec)
    assert first == second
    assert first.positions[-1] != first.positions[0]
    other = play_game(GameSpec(0, ("medium", "easy"), "random", seed=8, nodes=80))
    assert other.actions != first.actions


def test_unknown_level_is_a_value_error():
    with pytest.raises(ValueError, match="level"):
        choose_action(parse_position(OPENING), "grandmaster", rng=random.Random(0))


def test_finished_game_has_no_action():
    p = apply_action(
        parse_position(WIN_IN_ONE_CLIMB),
        choose_action(parse_position(WIN_IN_ONE_CLIMB), "easy", rng=random.Random(0)),
    )
    with pytest.raises(ValueError, match="over"):
        choose_action(p, "hard", rng=random.Random(0))


def test_schedule_swaps_seats_and_pairs_seeds():
    specs = schedule("hard", "random", 4, seed=3)
    assert [s.seats for s in specs] == [("hard", "random"), ("random", "hard")] * 2
    assert specs[0].seed == specs[1].seed
    assert specs[1].seed != specs[2].seed
    three = schedule("hard", "random", 6, players=3)
    for seat in range(3):
        assert {s.seats[seat] for s in three} == {"hard", "random"}


def test_tally_score_interval_and_elo():
    specs = schedule("easy", "random", 4)
    records = [play_game(GameSpec(s.index, s.seats, s.gods, s.seed, None, 40)) for s in specs]
    t = tally("easy", "random", records)
    assert t.wins + t.losses + t.draws == 4
    lo, hi = t.interval
    assert 0.0 <= lo <= t.score <= hi <= 1.0


def test_a_clean_sweep_has_an_infinite_elo_but_a_finite_bound():
    from santorini_p2p.study.arena import Tally, elo_text

    sweep = Tally("easy", "random", games=8, wins=8, losses=0, draws=0)
    assert elo_text(sweep.elo) == "+inf"
    lo, hi = sweep.elo_interval
    # Eight wins of eight: easy is at least ~127 Elo stronger, with 95% confidence.
    assert elo_text(lo) == "+127"
    assert hi == float("inf")
    even = Tally("easy", "random", games=10, wins=5, losses=5, draws=0)
    lo, hi = even.elo_interval
    assert lo == -hi
    assert elo_text(even.elo) == "+0"


def test_elo_of_three_quarters_is_191():
    from santorini_p2p.study.arena import elo

    assert round(elo(0.75)) == 191
    assert elo(0.5) == 0.0


def test_analyse_cli_last_line_is_the_best_turn(capsys):
    assert main(["analyse", WIN_IN_ONE_CLIMB, "--nodes", "200"]) == 0
    lines = capsys.readouterr().out.splitlines()
    assert lines[-1] == "c3>d3"
    assert "forced win in 1 turn" in lines[0]


def test_analyse_cli_plain_output_on_opening(capsys):
    assert main(["analyse", OPENING, "--level", "medium", "--nodes", "500"]) == 0
    lines = capsys.readouterr().out.splitlines()
    p = parse_position(OPENING)
    assert lines[-1] in {str(t) for t in generate_turns(p)}
    assert lines[0].startswith("evaluation: win probability")


def test_analyse_cli_json(capsys):
    assert main(["analyse", BLOCK_IN_ONE_DOME, "--nodes", "500", "--json"]) == 0
    data = json.loads(capsys.readouterr().out)
    assert data["position"] == BLOCK_IN_ONE_DOME
    assert data["best"].endswith("^d3")
    assert data["pv"][0] == data["best"]
    assert set(data) >= {"win", "mate", "depth", "nodes", "score", "level"}


def test_analyse_cli_rejects_finished_game(capsys):
    over = "00000B/0B0000/0023A0/00000/0A0000 2 -,- w1"
    assert main(["analyse", over]) == 2
    assert "santorini: error:" in capsys.readouterr().err


def test_arena_cli_prints_table_and_saves_replays(capsys, tmp_path):
    argv = ["arena", "easy", "random", "--games", "2", "--jobs", "1", "--nodes", "40"]
    assert main([*argv, "--gods", "random", "--save", str(tmp_path)]) == 0
    out = capsys.readouterr().out
    assert re.search(r"Elo difference \(easy - random\): \S+, 95% \[\S+, \S+\]", out)
    saved = sorted(tmp_path.iterdir())
    assert [f.name for f in saved] == ["game-0001.sntr", "game-0002.sntr"]
    for path in saved:
        assert main(["replay", "verify", str(path)]) == 0
        verdict = capsys.readouterr().out
        assert "easy-" in verdict
        assert "random-" in verdict
        assert verdict.rstrip().endswith("ok")


@pytest.mark.parametrize(("players", "gods"), [(2, "challenger"), (3, "random"), (4, "draft")])
def test_arena_game_as_a_signed_log_replays_the_same_game(players, gods):
    spec = GameSpec(0, ("easy", "random", "easy", "random")[:players], gods, seed=11, nodes=40)
    record = play_game(spec)
    log = read_log(encode_frames(signed_log(record)))
    assert log.is_complete
    # The log's draw and seat order are the game's: it ends in the same position.
    assert str(log.position) == record.positions[-1]
    assert sorted(log.drawn) == sorted(_drawn_of(record))
    assert sorted(log.names) == sorted(f"{lv}-{i + 1}" for i, lv in enumerate(spec.seats))
    assert log.result is not None
    seat, _ = log.result
    if record.winner is None:
        assert seat == -1
    else:
        assert log.names[seat].startswith(f"{spec.seats[record.winner]}-")


def _drawn_of(record):
    """The gods drawn for an arena game, read from its first position."""
    first = parse_position(record.positions[0])
    return {"random": first.gods, "draft": first.pool}.get(record.spec.gods, ())


def test_arena_follows_the_players_when_the_challenger_names_another_start_seat():
    # Player 1 (hard, the challenger) names a start seat; after the renumbering each level
    # must still play its own player's turns: the winner is counted for the right level.
    wins = {"easy": 0, "random": 0}
    for seed in range(6):
        for seats in (("easy", "random"), ("random", "easy")):
            r = play_game(GameSpec(0, seats, "challenger", seed=seed, nodes=60))
            assert r.winner is not None
            wins[seats[r.winner]] += 1
    assert wins["easy"] > wins["random"]


def test_takes_the_strongest_god_on_offer():
    p = new_game(2, "draft", drawn=("hermes", "atlas", "artemis", "pan"))
    for level in SEARCH_LEVELS:
        assert str(choose_action(p, level, rng=random.Random(0))) == "god artemis"


def test_challenger_offers_gods_and_names_itself_start_player():
    p = new_game(2, "challenger")
    offer = choose_action(p, "hard", rng=random.Random(0))
    p = apply_action(p, offer)
    p = apply_action(p, choose_action(p, "hard", rng=random.Random(0)))
    start = choose_action(p, "hard", rng=random.Random(0))
    assert str(start) == "start 1"


def test_places_workers_in_the_middle():
    p = new_game(2)
    for seed in range(5):
        place = choose_action(p, "hard", rng=random.Random(seed))
        assert isinstance(place, Place)
        for s in place.squares:
            assert 1 <= s % 5 <= 3
            assert 1 <= s // 5 <= 3


def test_quick_win_check_agrees_with_the_engine_on_random_games():
    rng = random.Random(3)
    checked = 0
    for _ in range(40):
        players = rng.choice([2, 2, 3, 4])
        p = new_game(players, "random", drawn=tuple(rng.sample(GOD_NAMES, players)))
        while p.phase is not Phase.OVER:
            if p.phase is Phase.PLAY:
                assert can_win_now(p) == any(t.is_win for t in generate_turns(p)), str(p)
                checked += 1
            p = apply_action(p, rng.choice(legal_actions(p)))
    assert checked > 500


def test_the_base_games_fast_ordering_is_the_general_one():
    # Without gods the search lists and orders a node's turns in one pass: the same turns in
    # the same order as the engine's list ordered by order(), whatever the history holds,
    # less the table's turn, for 2, 3 and 4 players.
    from santorini_p2p.ai.search import _Search
    from santorini_p2p.engine import generate_turns

    rng = random.Random(41)
    seen = wins = 0
    for game in range(45):
        p = new_game((2, 3, 4)[game % 3])
        history = {rng.randrange(20_000): rng.randrange(-3, 60) for _ in range(3000)}
        while p.phase is not Phase.OVER:
            if p.phase is Phase.PLAY:
                s = _Search(p, max_nodes=None, deadline=None, stop=None, clock=lambda: 0.0)
                s.history = history
                turns = generate_turns(p)
                skip = rng.choice(turns)
                general = s.order(p, turns, skip)
                fast = [t for t in s._candidates(p, skip)]
                assert fast == [skip, *general], str(p)
                seen += 1
                wins += any(t.is_win for t in turns)
            p = apply_action(p, rng.choice(legal_actions(p)))
    assert seen > 1000
    assert wins > 50


def test_analyse_cli_think_counts_the_commands_start_up_and_exit(capsys, monkeypatch):
    """A program giving ``analyse --think S`` S seconds a move times the whole process."""
    import santorini_p2p.ai
    from santorini_p2p.cli import computer

    budgets: list[float | None] = []
    real = santorini_p2p.ai.analyse

    def timed(p, level, think=None, nodes=None):
        budgets.append(think)
        return real(p, level, think=None, nodes=200)

    monkeypatch.setattr(santorini_p2p.ai, "analyse", timed)
    monkeypatch.setattr(computer, "command_age", lambda: 0.7)
    assert main(["analyse", OPENING, "--think", "2", "--json"]) == 0
    assert main(["analyse", OPENING, "--think", "0.5", "--json"]) == 0
    assert main(["analyse", OPENING, "--json"]) == 0
    assert budgets == [pytest.approx(2 - 0.7 - computer.EXIT_S), computer.LEAST_S, None]
    assert capsys.readouterr().out.count('"best"') == 3


@pytest.mark.skipif(not Path("/proc/self/stat").exists(), reason="no /proc: counted from import")
def test_a_commands_age_counts_from_the_processs_start():
    """What a command did before the command line was imported counts too (Linux)."""
    import subprocess
    import sys

    code = (
        "import time; time.sleep(0.2)\n"
        "from santorini_p2p.cli.common import command_age; print(command_age())"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=60)
    assert 0.2 <= float(out.stdout) < 60, out.stderr
