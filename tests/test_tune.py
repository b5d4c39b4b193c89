"""The evaluation's weights fitted to self-play: the terms, the fit, a run that resumes (game by
game, in one process at a time), the shipped record, and the levels that search with the fitted
and the hand-set weights."""

import json
import math
import random
import subprocess
import sys
from dataclasses import replace
from importlib.resources import files

import pytest

from santorini_p2p.ai.evaluate import CLASSIC, EVAL_FILE, TUNED, Weights, evaluate
from santorini_p2p.ai.search import STUDY_LEVELS, evaluation_id, find_level
from santorini_p2p.cli import main
from santorini_p2p.engine import (
    Phase,
    apply_action,
    format_position,
    generate_turns,
    legal_actions,
    new_game,
)
from santorini_p2p.engine.gods import ALL_GOD_NAMES
from santorini_p2p.engine.gods.bans import ban_reason
from santorini_p2p.study import train, tune

TINY = tune.TuneConfig(games=2, nodes=60, arena_games=2, window=2)


def _positions(count: int, seed: int) -> list:
    """Positions of play from random games, half of them with a random god pair."""
    rng = random.Random(seed)
    out = []
    while len(out) < count:
        gods = tuple(rng.sample(ALL_GOD_NAMES, 2)) if rng.random() < 0.5 else None
        if gods and ban_reason(gods):
            continue
        p = new_game(2, "random", drawn=gods) if gods else new_game(2)
        for _ in range(200):
            if p.phase is Phase.OVER:
                break
            if p.phase is Phase.PLAY:
                out.append(p)
            turns = generate_turns(p) if p.phase is Phase.PLAY else None
            if turns is not None:
                p = apply_action(p, rng.choice(turns))
            else:
                from santorini_p2p.ai.search import choose_action

                p = apply_action(p, choose_action(p, "random", rng=rng))
    return out[:count]


def test_the_score_is_linear_in_the_weights_terms_read_through_evaluate():
    rng = random.Random(7)
    for p in _positions(150, 1):
        f = tune.features(p)
        n = len(Weights.NAMES)
        for w in (CLASSIC, TUNED, Weights.from_vector([rng.randint(-50, 400) for _ in range(n)])):
            dot = f[0] + sum(a * b for a, b in zip(f[1:], w.vector(), strict=True))
            assert dot == evaluate(p, p.side_of(p.to_move), w)[0], format_position(p)


def test_weights_round_trip_through_json_and_bad_ones_are_named():
    assert Weights.from_json(TUNED.to_json()) == TUNED
    assert Weights.from_vector(CLASSIC.vector()) == CLASSIC
    data = CLASSIC.to_json()
    del data["tempo"]
    with pytest.raises(ValueError, match=r"missing \['tempo'\]"):
        Weights.from_json(data)
    with pytest.raises(ValueError, match=r"unknown \['speed'\]"):
        Weights.from_json({**CLASSIC.to_json(), "speed": 3})
    with pytest.raises(ValueError, match="not integers: mobility"):
        Weights.from_json({**CLASSIC.to_json(), "mobility": 2.5})
    with pytest.raises(ValueError, match="expected 14 weights, got 3"):
        Weights.from_vector([1, 2, 3])


def test_a_fit_finds_the_weights_the_results_were_drawn_from():
    # Results drawn from known weights' win chances: the fit, from the hand-set weights,
    # predicts unseen results of the same kind better than those do.
    truth = Weights.from_vector([250, 60, 300, 120, 40, 60, 12, 200, 20, 90, 60, 300, 900, 60])
    rng = random.Random(3)

    def samples(positions: list) -> list:
        out = []
        for p in positions:
            s = evaluate(p, p.side_of(p.to_move), truth)[0]
            win = rng.random() < 1 / (1 + math.exp(-s / tune.SCALE))
            out.append((format_position(p), "", 0, 1 if win else -1))
        return out

    train, held = samples(_positions(2500, 4)), samples(_positions(800, 5))
    fitted, before, after = tune.fit(train, CLASSIC)
    assert after < before
    # The terms the games cannot tell stay as they started.
    for name in tune.HELD:
        i = Weights.NAMES.index(name)
        assert fitted.vector()[i] == CLASSIC.vector()[i]

    def loss(w: Weights) -> float:
        total = 0.0
        for text, _, _, result in held:
            from santorini_p2p.engine import parse_position

            p = parse_position(text)
            z = evaluate(p, p.side_of(p.to_move), w)[0] / tune.SCALE
            total += math.log1p(math.exp(-z if result == 1 else z))
        return total / len(held)

    assert loss(fitted) < loss(CLASSIC)
    # And it moved towards the truth, term by term on the whole.
    moved = sum(
        abs(f - t) < abs(c - t)
        for f, t, c in zip(fitted.vector(), truth.vector(), CLASSIC.vector(), strict=True)
    )
    assert moved >= 8


def test_a_fit_with_no_position_of_play_says_so():
    with pytest.raises(ValueError, match="no two-player position of play"):
        tune.fit([], CLASSIC)


def test_selfplay_draws_again_a_god_pair_that_may_not_play_together():
    rng = random.Random(0)
    for _ in range(300):
        p = train.selfplay_start(rng, 1.0)
        assert ban_reason(p.gods) is None


def test_selfplay_is_a_function_of_its_seed():
    a = tune.selfplay(CLASSIC, TINY, 5, 1)
    assert a == tune.selfplay(CLASSIC, TINY, 5, 1)
    assert a
    assert {r for *_, r in a} <= {-1, 0, 1}


def test_a_run_resumes_refuses_other_settings_and_exports_only_a_kept_fit(tmp_path):
    run_dir = tmp_path / "run"
    state = tune.run(run_dir, 1, TINY)
    assert [h["generation"] for h in state["history"]] == [1]
    (run_dir / "data" / "gen-0002.jsonl.gz").parent.mkdir(exist_ok=True)
    again = tune.run(run_dir, 2, TINY)
    assert [h["generation"] for h in again["history"]] == [1, 2]
    assert again["history"][0] == state["history"][0]
    with pytest.raises(ValueError, match="other settings"):
        tune.run(run_dir, 3, tune.TuneConfig(games=3, nodes=60, arena_games=2))
    out = tmp_path / "w.json"
    if any(h["accepted"] for h in again["history"]):
        best = tune.export(run_dir, out)
        record = json.loads(out.read_text())
        assert Weights.from_json(record["weights"]) == best
        assert [h["generation"] for h in record["generations"]] == [1, 2]
    else:
        with pytest.raises(ValueError, match="no generation has beaten"):
            tune.export(run_dir, out)


def test_a_run_starts_from_the_shipped_weights_and_resumes_a_run_older_than_that_choice(
    tmp_path,
):
    run_dir = tmp_path / "run"
    state = tune.run(run_dir, 0, replace(TINY, start="shipped"))
    assert Weights.from_json(state["best"]) == TUNED
    with pytest.raises(ValueError, match="other settings"):
        tune.run(run_dir, 0, TINY)
    # A run begun before runs could choose their start began from the hand-set weights.
    older = tmp_path / "older"
    tune.run(older, 0, TINY)
    saved = json.loads((older / "state.json").read_text())
    del saved["config"]["start"]
    (older / "state.json").write_text(json.dumps(saved))
    assert Weights.from_json(tune.run(older, 0, TINY)["best"]) == CLASSIC
    with pytest.raises(ValueError, match="start: expected one of classic, shipped"):
        tune.run(tmp_path / "bad", 0, replace(TINY, start="mine"))


def test_tune_on_the_command_line_runs_and_refuses_bad_options(tmp_path, capsys):
    run_dir = tmp_path / "r"
    args = ["tune", str(run_dir), "--games", "2", "--nodes", "60", "--arena-games", "2"]
    assert main([*args, "--jobs", "1"]) == 0
    out = capsys.readouterr().out
    assert "generation 1:" in out
    assert "log loss" in out
    assert main(["tune", str(run_dir), "--games", "0"]) == 2
    assert "games: expected a whole number of at least 1, got 0" in capsys.readouterr().err
    assert main(["tune", str(run_dir), "--games", "3", "--jobs", "1"]) == 2
    assert "other settings" in capsys.readouterr().err


def test_the_shipped_weights_come_with_the_record_of_their_making():
    record = json.loads(files("santorini_p2p.ai").joinpath(f"weights/{EVAL_FILE}").read_text())
    assert Weights.from_json(record["weights"]) == TUNED
    assert record["digest"] == TUNED.digest
    assert record["command"].startswith("santorini tune ")
    kept = [h for h in record["generations"] if h["accepted"]]
    assert kept
    assert all(h["arena_score"] >= 0.55 for h in kept)
    assert TUNED != CLASSIC


def test_hard_searches_with_the_fitted_weights_and_classic_with_the_hand_set_ones():
    assert "classic" in STUDY_LEVELS
    assert find_level("hard").weights == TUNED
    assert find_level("classic").weights == CLASSIC
    assert evaluation_id("classic") == "hand"
    assert evaluation_id("hard") == f"hand-{TUNED.digest}"


def test_tune_names_a_damaged_run_state_and_keeps_it(tmp_path, capsys):
    run_dir = tmp_path / "r"
    run_dir.mkdir()
    state = run_dir / "state.json"
    for text, said in (
        ("{not json", "not a tuning run's state"),
        ('{"config": {"games": "many"}}', "not a tuning run's settings (bad games)"),
        ('{"config": {"speed": 1}}', "not a tuning run's settings"),
    ):
        state.write_text(text)
        assert main(["tune", str(run_dir), "--jobs", "1"]) == 2
        err = capsys.readouterr().err
        assert said in err
        assert str(state) in err
        assert state.read_text() == text


def test_the_base_games_fast_scoring_is_the_general_one():
    # Most positions a search scores have no god: they take a shorter path that must give
    # the same terms, for 2, 3 and 4 players and any weights, and tell at once whether the
    # seat to move wins by moving.
    from santorini_p2p.ai import evaluate as ev
    from santorini_p2p.engine import can_win_now

    rng = random.Random(11)
    weights = [TUNED, CLASSIC, Weights.from_vector([rng.randint(-90, 400) for _ in Weights.NAMES])]
    seen = 0
    for game in range(60):
        p = new_game((2, 3, 4)[game % 3])
        while p.phase is not Phase.OVER:
            if p.phase is Phase.PLAY:
                for w in weights:
                    t = ev._terms(w)
                    for side in range(len(p.workers)):
                        general = ev._general_evaluate(p, side, t)
                        score, pressure, wins = ev._plain_evaluate(p, side, t)
                        assert (score, pressure) == general
                        assert wins == can_win_now(p)
                seen += 1
            p = apply_action(p, rng.choice(legal_actions(p)))
    assert seen > 1000


# -- stopping and resuming inside a generation -----------------------------------------------

RESUMED = tune.TuneConfig(games=4, nodes=60, arena_games=4, window=2)
SELFPLAY_SEED = 1001 * 1_000_003  # generation 1's first self-play game, seed 1
ARENA_SEED = 1001 * 7919  # its first arena pair


class Stop(Exception):
    """A stop in mid-run (a kill, as the run sees it: nothing after it is written)."""


def _stopping(monkeypatch, name: str, after: int) -> list[int]:
    """Make ``tune.<name>`` (a game) raise ``Stop`` once ``after`` games are played.

    Returns the seeds of the games played since.
    """
    real = getattr(tune, name)
    played: list[int] = []

    def game(job):
        if len(played) == after:
            raise Stop(job[0])
        played.append(job[0])
        return real(job)

    monkeypatch.setattr(tune, name, game)
    return played


def _counting(monkeypatch, name: str) -> list[int]:
    return _stopping(monkeypatch, name, 10**9)


@pytest.fixture(scope="module")
def straight(tmp_path_factory):
    """A generation played without a stop: what a resumed one must end with."""
    path = tmp_path_factory.mktemp("straight") / "run"
    state = tune.run(path, 1, RESUMED)
    return path, state


def _without_times(history):
    return [{k: v for k, v in h.items() if k != "seconds"} for h in history]


def test_a_generation_stopped_in_self_play_resumes_to_the_same_games_and_record(
    tmp_path, monkeypatch, straight
):
    done, done_state = straight
    run_dir = tmp_path / "run"
    partial = run_dir / "data" / "gen-0001.partial.jsonl"
    _stopping(monkeypatch, "_selfplay_game", 3)
    with pytest.raises(Stop):
        tune.run(run_dir, 1, RESUMED)
    lines = partial.read_bytes().splitlines(keepends=True)
    assert len(lines) == 1 + 3  # the header and three games
    header = json.loads(lines[0])
    assert header["weights"] == CLASSIC.digest
    assert {"seed", "games", "nodes", "noise_plies", "gods_share"} <= set(header)
    assert not (run_dir / "data" / "gen-0001.jsonl.gz").exists()
    # A stop in mid-write: the last game's line is cut short.
    partial.write_bytes(b"".join(lines[:-1]) + lines[-1][: len(lines[-1]) // 2])

    monkeypatch.undo()
    played = _stopping(monkeypatch, "_selfplay_game", 1)
    said: list[str] = []
    with pytest.raises(Stop):
        tune.run(run_dir, 1, RESUMED, log=said.append)
    # Games 0 and 1 were kept; game 2 (torn) was played again, its line replacing the torn one.
    assert played == [SELFPLAY_SEED + 2]
    assert any("dropped its last line, cut short; game 2 is played again" in s for s in said)
    assert "generation 1: self-play, 4 games (2 done, 2 to play)" in said
    records = [json.loads(line) for line in partial.read_bytes().splitlines()[1:]]
    assert [r["game"] for r in records] == [0, 1, 2]

    monkeypatch.undo()
    played = _counting(monkeypatch, "_selfplay_game")
    said = []
    state = tune.run(run_dir, 1, RESUMED, log=said.append)
    assert played == [SELFPLAY_SEED + 3]
    assert "generation 1: self-play, 4 games (3 done, 1 to play)" in said
    assert any(s.startswith("generation 1: self-play: 4 of 4 games played") for s in said)
    name = "gen-0001.jsonl.gz"
    assert (run_dir / "data" / name).read_bytes() == (done / "data" / name).read_bytes()
    assert _without_times(state["history"]) == _without_times(done_state["history"])
    assert state["best"] == done_state["best"]
    assert "pending" not in state
    assert sorted(p.name for p in (run_dir / "data").iterdir()) == [name]


def test_a_generation_stopped_in_the_arena_resumes_to_the_same_score_with_its_fit(
    tmp_path, monkeypatch, straight
):
    _done, done_state = straight
    run_dir = tmp_path / "run"
    partial = run_dir / "data" / "gen-0001.arena.partial.jsonl"
    _stopping(monkeypatch, "_arena_game", 2)
    with pytest.raises(Stop):
        tune.run(run_dir, 1, RESUMED)
    lines = partial.read_bytes().splitlines()
    assert len(lines) == 1 + 2
    fitted = json.loads((run_dir / "state.json").read_text())["pending"]["fit"]["weights"]
    assert json.loads(lines[0])["new"] == Weights.from_json(fitted).digest
    assert json.loads(lines[0])["old"] == CLASSIC.digest

    monkeypatch.undo()
    games = _counting(monkeypatch, "_selfplay_game")
    arena = _counting(monkeypatch, "_arena_game")

    def no_fit(*_args, **_kwargs):
        raise AssertionError("the fit made before the stop is played, not made again")

    monkeypatch.setattr(tune, "fit", no_fit)
    said: list[str] = []
    state = tune.run(run_dir, 1, RESUMED, log=said.append)
    assert games == []
    assert arena == [ARENA_SEED + 1, ARENA_SEED + 1]  # the second pair, from both seats
    assert "generation 1: arena, 4 games (2 done, 2 to play)" in said
    assert _without_times(state["history"]) == _without_times(done_state["history"])
    assert "pending" not in state
    assert not partial.exists()


def _fake_games(monkeypatch) -> list[int]:
    """Self-play games that cost nothing: one sample naming the game's seed."""
    played: list[int] = []

    def game(job):
        played.append(job[0])
        return [(f"game {job[0]}", "", 0, 0)]

    monkeypatch.setattr(tune, "_selfplay_game", game)
    return played


def test_a_checkpoint_of_other_weights_or_settings_is_refused_naming_the_field(
    tmp_path, monkeypatch
):
    _fake_games(monkeypatch)
    run_dir = tmp_path / "run"
    (run_dir / "data").mkdir(parents=True)
    partial = run_dir / "data" / "gen-0001.partial.jsonl"
    # Games of other weights (the shipped ones) under generation 1's name.
    tune.selfplay(TUNED, RESUMED, 1001, 1, checkpoint=partial)
    before = partial.read_bytes()
    with pytest.raises(
        ValueError,
        match=rf"gen-0001\.partial\.jsonl: games played with other settings \(.*weights "
        rf'"{TUNED.digest}" \(this run: "{CLASSIC.digest}"\)\)',
    ):
        tune.run(run_dir, 1, RESUMED)
    assert partial.read_bytes() == before
    assert not (run_dir / "data" / "gen-0001.jsonl.gz").exists()

    # Each setting the games depend on is named when it differs.
    games = tmp_path / "games.partial.jsonl"
    first = tune.selfplay(CLASSIC, RESUMED, 7, 1, checkpoint=games)
    before = games.read_bytes()
    for cfg, seed, differ in [
        (replace(RESUMED, nodes=61), 7, r"nodes 60 \(this run: 61\)"),
        (replace(RESUMED, noise_plies=2), 7, r"noise_plies 8 \(this run: 2\)"),
        (replace(RESUMED, gods_share=1.0), 7, r"gods_share 0\.5 \(this run: 1\.0\)"),
        (replace(RESUMED, games=5), 7, r"games 4 \(this run: 5\)"),
        (RESUMED, 8, r"seed 7 \(this run: 8\)"),
    ]:
        with pytest.raises(ValueError, match=rf"other settings \({differ}\)"):
            tune.selfplay(CLASSIC, cfg, seed, 1, checkpoint=games)
        assert games.read_bytes() == before
    # With the same settings and weights every game is there: none is played again.
    played = _fake_games(monkeypatch)
    assert tune.selfplay(CLASSIC, RESUMED, 7, 1, checkpoint=games) == first
    assert played == []

    # The arena's checkpoint names both sides' weights.
    arena = tmp_path / "arena.partial.jsonl"
    tiny = replace(RESUMED, arena_games=2)
    score = tune.gate(TUNED, CLASSIC, tiny, 3, 1, checkpoint=arena)
    assert tune.gate(TUNED, CLASSIC, tiny, 3, 1, checkpoint=arena) == score
    with pytest.raises(ValueError, match=rf'old "{CLASSIC.digest}" \(this run: "{TUNED.digest}"\)'):
        tune.gate(TUNED, TUNED, tiny, 3, 1, checkpoint=arena)


def test_tune_on_the_command_line_refuses_a_checkpoint_of_other_weights(
    tmp_path, capsys, monkeypatch
):
    _fake_games(monkeypatch)
    run_dir = tmp_path / "r"
    (run_dir / "data").mkdir(parents=True)
    partial = run_dir / "data" / "gen-0001.partial.jsonl"
    tune.selfplay(TUNED, replace(tune.TuneConfig(), games=2, nodes=60), 1001, 1, checkpoint=partial)
    before = partial.read_bytes()
    args = ["tune", str(run_dir), "--games", "2", "--nodes", "60", "--jobs", "1"]
    assert main(args) == 2
    err = capsys.readouterr().err
    assert f"santorini: error: {partial}: games played with other settings" in err
    assert f'weights "{TUNED.digest}" (this run: "{CLASSIC.digest}")' in err
    assert partial.read_bytes() == before


def test_tune_says_how_far_each_stage_is_on_stderr(tmp_path, capsys):
    run_dir = tmp_path / "r"
    args = ["tune", str(run_dir), "--games", "2", "--nodes", "60", "--arena-games", "2"]
    assert main([*args, "--jobs", "1"]) == 0
    captured = capsys.readouterr()
    err = captured.err.splitlines()
    assert "generation 1: self-play, 2 games (0 done, 2 to play)" in err
    assert any(s.startswith("generation 1: self-play: 1 of 2 games played, ") for s in err)
    assert any(
        s.startswith("generation 1: self-play: 1 of 2 games played, ") and "left" in s for s in err
    )
    assert "generation 1: arena, 2 games (0 done, 2 to play)" in err
    assert any(s.startswith("generation 1: arena: 2 of 2 games played, ") for s in err)
    assert "games played" not in captured.out


def test_a_run_being_run_elsewhere_is_refused(tmp_path, capsys):
    run_dir = tmp_path / "run"
    refused: list[str] = []

    def log(line: str) -> None:
        # While this run plays its first game, a second one on the same directory.
        if line.startswith("generation 1: self-play: 1 of"):
            with pytest.raises(ValueError, match="being run by another process") as e:
                tune.run(run_dir, 1, TINY)
            refused.append(str(e.value))
            assert main(["tune", str(run_dir), "--jobs", "1"]) == 2
            refused.append(capsys.readouterr().err)

    state = tune.run(run_dir, 1, TINY, log=log)
    assert len(refused) == 2
    assert all("this run is being run by another process" in s for s in refused)
    assert [h["generation"] for h in state["history"]] == [1]
    # Once it has ended, the run goes on.
    assert [h["generation"] for h in tune.run(run_dir, 2, TINY)["history"]] == [1, 2]


def test_a_run_locked_by_another_process_is_refused(tmp_path):
    pytest.importorskip("fcntl")
    run_dir = tmp_path / "run"
    run_dir.mkdir()
    holder = subprocess.Popen(
        [
            sys.executable,
            "-c",
            "import fcntl, os, sys\n"
            "fd = os.open(sys.argv[1], os.O_RDONLY)\n"
            "fcntl.flock(fd, fcntl.LOCK_EX)\n"
            "print('held', flush=True)\n"
            "sys.stdin.read()\n",
            str(run_dir),
        ],
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        text=True,
    )
    try:
        assert holder.stdout is not None
        assert holder.stdout.readline() == "held\n"
        with pytest.raises(ValueError, match="this run is being run by another process"):
            tune.run(run_dir, 1, TINY)
        assert not (run_dir / "state.json").exists()
    finally:
        holder.communicate(timeout=30)  # its stdin closed: it ends, and its lock goes
    assert tune.run(run_dir, 1, TINY)["history"]
