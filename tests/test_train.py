"""Training by self-play: samples, a run that resumes, gating and the exported record."""

import hashlib
import json
import math
import os
from dataclasses import replace

import numpy as np
import pytest

from santorini_p2p.ai.net import Net
from santorini_p2p.cli import main
from santorini_p2p.engine import generate_turns, parse_position, parse_turn
from santorini_p2p.engine.gods import ALL_GOD_NAMES
from santorini_p2p.study import jobs, train

GODS = {name: i + 1 for i, name in enumerate(ALL_GOD_NAMES)}
TINY = train.Config(games=2, nodes=60, arena_games=2, epochs=1, hidden=8, gods_share=0.5)


def test_selfplay_is_a_function_of_its_seed_and_records_legal_turns():
    a = train.selfplay_game(5, None, 60, 4, 1.0)
    assert a == train.selfplay_game(5, None, 60, 4, 1.0)
    assert a
    results = {r for _, _, _, r in a}
    assert results <= {-1, 0, 1}
    for text, turn, _, _ in a:
        p = parse_position(text)
        assert parse_turn(turn) in generate_turns(p)
    # The last mover won (or the game was stopped), the other side lost.
    if a[-1][3] != 0:
        assert a[-1][3] == 1
        assert a[-2][3] == -1


def test_samples_round_trip_and_a_bad_line_is_named(tmp_path):
    samples = train.selfplay_game(3, None, 60, 2, 0.0)
    path = tmp_path / "s.jsonl.gz"
    train.save_samples(path, samples)
    assert train.load_samples(path) == samples
    import gzip

    with gzip.open(path, "at") as f:
        f.write('["x"]\n')
    with pytest.raises(ValueError, match=rf"s\.jsonl\.gz:{len(samples) + 1}: not a sample"):
        train.load_samples(path)


def test_training_lowers_the_loss_on_its_data():
    samples = [s for seed in range(4) for s in train.selfplay_game(seed, None, 60, 2, 0.0)]
    data = train.to_dataset(samples, GODS)
    assert data.x.shape[0] == len(samples)
    assert np.all(np.abs(data.value) <= 1)
    cfg = train.Config(epochs=30, hidden=32, lr=3e-3, batch=64)
    net = train.fit(data, GODS, cfg, 0)

    def loss(n: Net) -> float:
        v, _ = n.forward(data.x, data.offset if n.residual else None)
        return float(((v - data.value) ** 2).mean())

    untrained = train.fit(data, GODS, train.Config(epochs=0, hidden=32), 0)
    assert loss(net) < loss(untrained)


def test_a_run_resumes_and_refuses_other_settings(tmp_path, monkeypatch):
    run = tmp_path / "run"
    state = train.run(run, 1, TINY, command="santorini train run")
    assert [h["generation"] for h in state["history"]] == [1]
    assert (run / "data" / "gen-0001.jsonl.gz").exists()
    assert (run / "nets" / "gen-0001.npz").exists()
    # Resuming to generation 1 again plays nothing more.
    before = (run / "data" / "gen-0001.jsonl.gz").read_bytes()
    again = train.run(run, 1, TINY)
    assert again["history"] == state["history"]
    assert (run / "data" / "gen-0001.jsonl.gz").read_bytes() == before
    with pytest.raises(ValueError, match="other settings"):
        train.run(run, 2, train.Config(games=3, nodes=60, arena_games=2, epochs=1, hidden=8))


def test_only_a_net_that_passed_its_gate_is_exported(tmp_path, monkeypatch):
    run = tmp_path / "run"
    monkeypatch.setattr(train, "GATE_SCORE", 1.01)
    train.run(run, 1, TINY, command="santorini train run")
    with pytest.raises(ValueError, match="no net has passed"):
        train.export(run, tmp_path / "w.npz")
    monkeypatch.setattr(train, "GATE_SCORE", 0.0)
    state = train.run(run, 2, TINY)
    assert state["best"] == "gen-0002.npz"
    net = train.export(run, tmp_path / "w.npz")
    back = Net.load(tmp_path / "w.npz")
    assert back.record["command"] == "santorini train run"
    assert [g["generation"] for g in back.record["generations"]] == [1, 2]
    assert back.record["games"] == 4
    assert back.residual == net.residual
    beside = json.loads((tmp_path / "w.json").read_text())
    assert beside["command"] == "santorini train run"
    assert beside["sha256"] == hashlib.sha256((tmp_path / "w.npz").read_bytes()).hexdigest()


def test_train_cli_runs_and_exports(tmp_path, capsys, monkeypatch):
    monkeypatch.setattr(train, "GATE_SCORE", 0.0)
    out = tmp_path / "w.npz"
    code = main(
        [
            "train",
            str(tmp_path / "r"),
            "--games",
            "2",
            "--nodes",
            "60",
            "--arena-games",
            "2",
            "--epochs",
            "1",
            "--hidden",
            "8",
            "--jobs",
            "1",
            "--export",
            str(out),
        ]
    )
    assert code == 0
    printed = capsys.readouterr().out
    assert "generation 1:" in printed
    assert f"wrote {out}" in printed
    record = Net.load(out).record
    assert str(record["command"]).startswith(f"santorini train {tmp_path / 'r'} --generations 1")
    assert json.loads(json.dumps(record)) == record


@pytest.mark.parametrize(
    ("args", "message"),
    [
        (["--games", "0"], "games: expected a whole number of at least 1, got 0"),
        (["--gods-share", "2"], "gods-share: expected a number from 0 to 1, got 2.0"),
        (["--jobs", "0"], "jobs: expected a whole number of at least 1, got 0"),
        (["--gate-think", "0"], "gate-think: expected seconds above 0, got 0.0"),
        (["--outcome", "-1"], "outcome: expected a number from 0 to 1, got -1.0"),
        (["--clip", "-1"], "clip: expected a number of at least 0, got -1.0"),
        (["--lr", "0"], "lr: expected a number above 0, got 0.0"),
    ],
)
def test_train_cli_rejects_bad_numbers(tmp_path, capsys, args, message):
    assert main(["train", str(tmp_path / "r"), *args]) == 2
    assert message in capsys.readouterr().err
    assert not (tmp_path / "r").exists()


def test_selfplay_on_a_dask_cluster_gives_the_same_samples(tmp_path):
    distributed = pytest.importorskip("distributed")
    cfg = train.Config(nodes=60)
    partial = tmp_path / "games.partial.jsonl"

    def stop_after_two(done: int, games: int) -> None:
        if done == 2:
            raise Stop

    # Two of four games played here, then a stop: the cluster plays the other two.
    with pytest.raises(Stop):
        train.selfplay(None, 4, cfg, 7, 1, progress=stop_after_two, checkpoint=partial)
    with distributed.LocalCluster(
        n_workers=2,
        threads_per_worker=1,
        processes=True,
        host="127.0.0.1",
        dashboard_address=None,
    ) as cluster:
        far = train.selfplay(None, 4, cfg, 7, 1, scheduler=cluster.scheduler_address)
        resumed = train.selfplay(
            None, 4, cfg, 7, 1, scheduler=cluster.scheduler_address, checkpoint=partial
        )
    here = train.selfplay(None, 4, cfg, 7, 1)
    assert far == here
    assert resumed == here
    assert len(partial.read_bytes().splitlines()) == 1 + 4


def test_an_unreachable_scheduler_is_named(monkeypatch):
    pytest.importorskip("distributed")
    monkeypatch.setattr(jobs, "SCHEDULER_TIMEOUT_S", 2.0)  # not the user's 30 s of patience
    with pytest.raises(ValueError, match=r"scheduler: cannot reach tcp://127\.0\.0\.1:9"):
        train.selfplay(None, 1, TINY, 1, 1, scheduler="tcp://127.0.0.1:9")


def test_a_gate_at_equal_time_is_kept_in_the_run(tmp_path):
    cfg = train.Config(games=2, nodes=60, arena_games=2, epochs=1, hidden=8, gate_think=0.02)
    state = train.run(tmp_path / "run", 1, cfg)
    assert state["config"]["gate_think"] == 0.02
    assert state["history"][0]["arena_games"] == 2
    assert train.stored_config(tmp_path / "run") == cfg


# -- stopping and resuming inside a generation -----------------------------------------------

RESUMED = train.Config(games=4, nodes=60, arena_games=4, epochs=1, hidden=8, gods_share=0.5)


class Stop(Exception):
    """A stop in mid-run (a kill, as the run sees it: nothing after it is written)."""


def _stopping(monkeypatch, name: str, after: int) -> list[int]:
    """Make ``train.<name>`` (a game) raise ``Stop`` once ``after`` games are played.

    Returns the list of the games played (their seeds) since.
    """
    real = getattr(train, name)
    played: list[int] = []

    def game(*args):
        seed = args[0][0] if name == "_arena_game" else args[0]
        if len(played) == after:
            raise Stop(seed)
        played.append(seed)
        return real(*args)

    monkeypatch.setattr(train, name, game)
    return played


def _counting(monkeypatch, name: str) -> list[int]:
    return _stopping(monkeypatch, name, 10**9)


@pytest.fixture(scope="module")
def straight(tmp_path_factory):
    """A run of one generation played without a stop: what a resumed run must end with."""
    path = tmp_path_factory.mktemp("straight") / "run"
    state = train.run(path, 1, RESUMED)
    return path, state


def _same_net(a, b) -> None:
    x, y = Net.load(a), Net.load(b)
    for (wa, ba), (wb, bb) in zip(x.layers, y.layers, strict=True):
        assert np.array_equal(wa, wb)
        assert np.array_equal(ba, bb)
    for pa, pb in ((x.value, y.value), (x.policy, y.policy)):
        assert np.array_equal(pa[0], pb[0])
        assert np.array_equal(pa[1], pb[1])
    assert (x.gods, x.god_positions, x.residual) == (y.gods, y.god_positions, y.residual)


def _without_times(history):
    return [{k: v for k, v in h.items() if "seconds" not in k} for h in history]


def test_a_run_stopped_in_self_play_resumes_to_the_same_games_and_net(
    tmp_path, monkeypatch, straight
):
    done, done_state = straight
    run = tmp_path / "run"
    partial = run / "data" / "gen-0001.partial.jsonl"
    _stopping(monkeypatch, "selfplay_game", 3)
    with pytest.raises(Stop):
        train.run(run, 1, RESUMED)
    lines = partial.read_bytes().splitlines(keepends=True)
    assert len(lines) == 1 + 3  # the header and three games
    assert not (run / "data" / "gen-0001.jsonl.gz").exists()
    # The settings are kept from the first start: a resume without options finds them.
    assert train.stored_config(run) == RESUMED
    # A stop in mid-write: the last game's line is cut short.
    partial.write_bytes(b"".join(lines[:-1]) + lines[-1][: len(lines[-1]) // 2])

    monkeypatch.undo()
    played = _stopping(monkeypatch, "selfplay_game", 1)
    said: list[str] = []
    with pytest.raises(Stop):
        train.run(run, 1, RESUMED, log=said.append)
    # Games 0 and 1 were kept; game 2 (torn) was played again, and its line replaces the torn one.
    assert played == [1001 * 1_000_003 + 2]
    assert any("dropped its last line, cut short; game 2 is played again" in s for s in said)
    assert "generation 1: self-play, 4 games (2 done, 2 to play)" in said
    records = [json.loads(line) for line in partial.read_bytes().splitlines()[1:]]
    assert [r["game"] for r in records] == [0, 1, 2]

    monkeypatch.undo()
    played = _counting(monkeypatch, "selfplay_game")
    said = []
    state = train.run(run, 1, RESUMED, log=said.append)
    assert played == [1001 * 1_000_003 + 3]
    assert "generation 1: self-play, 4 games (3 done, 1 to play)" in said
    assert (run / "data" / "gen-0001.jsonl.gz").read_bytes() == (
        done / "data" / "gen-0001.jsonl.gz"
    ).read_bytes()
    _same_net(run / "nets" / "gen-0001.npz", done / "nets" / "gen-0001.npz")
    assert _without_times(state["history"]) == _without_times(done_state["history"])
    assert not partial.exists()
    assert sorted(p.name for p in (run / "data").iterdir()) == ["gen-0001.jsonl.gz"]


def test_a_run_stopped_in_the_arena_resumes_to_the_same_score(tmp_path, monkeypatch, straight):
    _done, done_state = straight
    run = tmp_path / "run"
    partial = run / "nets" / "gen-0001.arena.partial.jsonl"
    _stopping(monkeypatch, "_arena_game", 2)
    with pytest.raises(Stop):
        train.run(run, 1, RESUMED)
    assert len(partial.read_bytes().splitlines()) == 1 + 2
    assert train.load_samples(run / "data" / "gen-0001.jsonl.gz")  # self-play is done

    monkeypatch.undo()
    games = _counting(monkeypatch, "selfplay_game")
    arena = _counting(monkeypatch, "_arena_game")
    said: list[str] = []
    state = train.run(run, 1, RESUMED, log=said.append)
    assert games == []
    assert len(arena) == 2
    assert "generation 1: arena, 4 games (2 done, 2 to play)" in said
    assert not any("training on" in s for s in said)  # the net was kept too
    assert _without_times(state["history"]) == _without_times(done_state["history"])
    # The time of the stopped session's stages is in the record.
    assert state["history"][0]["selfplay_seconds"] is not None
    assert "pending" not in state
    assert not partial.exists()


def test_a_stopped_arena_ends_game_by_game_as_one_never_stopped(tmp_path, monkeypatch, straight):
    done, _ = straight
    net = (done / "nets" / "gen-0001.npz").read_bytes()
    whole = tmp_path / "whole.jsonl"
    assert train.gate(net, None, RESUMED, 1001, 1, checkpoint=whole) == (
        straight[1]["history"][0]["arena_score"],
        4,
    )
    stopped = tmp_path / "stopped.jsonl"
    _stopping(monkeypatch, "_arena_game", 3)
    with pytest.raises(Stop):
        train.gate(net, None, RESUMED, 1001, 1, checkpoint=stopped)
    monkeypatch.undo()
    played = _counting(monkeypatch, "_arena_game")
    train.gate(net, None, RESUMED, 1001, 1, checkpoint=stopped)
    assert played == [1001 * 7919 + 1]  # the fourth game: the second pair's other seat

    def games(path):
        return [
            (r["game"], r["seed"], r["score"])
            for r in map(json.loads, path.read_bytes().splitlines()[1:])
        ]

    assert games(stopped) == games(whole)


def _fake_games(monkeypatch) -> list[int]:
    """Self-play games that cost nothing: one sample naming the game's seed."""
    played: list[int] = []

    def game(seed, weights, nodes, noise_plies, gods_share):
        played.append(seed)
        return [(f"game {seed}", "a1", nodes, 0)]

    monkeypatch.setattr(train, "selfplay_game", game)
    return played


def test_self_play_says_how_far_it_is_every_so_often(monkeypatch):
    _fake_games(monkeypatch)
    said: list[str] = []
    samples = train.selfplay(None, 100, TINY, 3, 1, log=said.append)
    assert len(samples) == 100
    assert said[0] == "self-play, 100 games (0 done, 100 to play)"
    counts = [s for s in said[1:] if s.startswith("self-play: ")]
    # One line each 5 games (a twentieth), not one a game.
    assert len(counts) == 20
    assert counts[0].startswith("self-play: 5 of 100 games played")
    assert counts[-1].startswith("self-play: 100 of 100 games played")


def test_a_checkpoint_of_other_settings_is_refused_and_kept(tmp_path, monkeypatch):
    _fake_games(monkeypatch)
    partial = tmp_path / "games.partial.jsonl"
    first = train.selfplay(None, 3, TINY, 7, 1, checkpoint=partial)
    before = partial.read_bytes()
    for cfg, seed, differ in [
        (replace(TINY, nodes=61), 7, r"nodes 60 \(this run: 61\)"),
        (TINY, 8, r"seed 7 \(this run: 8\)"),
    ]:
        with pytest.raises(ValueError, match=rf"games\.partial\.jsonl: .*other settings.*{differ}"):
            train.selfplay(None, 3, cfg, seed, 1, checkpoint=partial)
        assert partial.read_bytes() == before
    # Games of another net (the best changed) are not mixed in either.
    with pytest.raises(ValueError, match="weights null"):
        train.selfplay(b"a net", 3, TINY, 7, 1, checkpoint=partial)
    # With the same settings every game is there: nothing is played again.
    played = _fake_games(monkeypatch)
    assert train.selfplay(None, 3, TINY, 7, 1, checkpoint=partial) == first
    assert played == []


def test_a_run_refuses_another_generations_games(tmp_path, monkeypatch):
    _fake_games(monkeypatch)
    run = tmp_path / "run"
    (run / "data").mkdir(parents=True)
    partial = run / "data" / "gen-0001.partial.jsonl"
    # The self-play games of generation 2 (its seed), under generation 1's name.
    train.selfplay(None, 1, TINY, 1002, 1, checkpoint=partial)
    with pytest.raises(
        ValueError, match=r"gen-0001\.partial\.jsonl: .*seed 1002 \(this run: 1001\)"
    ):
        train.run(run, 1, TINY)
    assert len(partial.read_bytes().splitlines()) == 2


def test_a_damaged_checkpoint_line_is_named(tmp_path, monkeypatch):
    _fake_games(monkeypatch)
    partial = tmp_path / "games.partial.jsonl"
    train.selfplay(None, 3, TINY, 7, 1, checkpoint=partial)
    lines = partial.read_bytes().splitlines(keepends=True)
    # A whole line (it ends in a newline) that is not a record is damage, not a stop.
    partial.write_bytes(lines[0] + lines[1] + b'{"game": 1, "seed"\n' + lines[3])
    with pytest.raises(ValueError, match=r"games\.partial\.jsonl:3: not a game's record"):
        train.selfplay(None, 3, TINY, 7, 1, checkpoint=partial)
    partial.write_bytes(lines[0] + lines[2])
    with pytest.raises(ValueError, match=r"games\.partial\.jsonl:2: not the record of game 0"):
        train.selfplay(None, 3, TINY, 7, 1, checkpoint=partial)


def test_train_cli_refuses_a_checkpoint_of_other_settings(tmp_path, capsys, monkeypatch):
    _fake_games(monkeypatch)
    run = tmp_path / "r"
    (run / "data").mkdir(parents=True)
    partial = run / "data" / "gen-0001.partial.jsonl"
    train.selfplay(None, 2, replace(train.Config(), nodes=61), 1001, 1, checkpoint=partial)
    before = partial.read_bytes()
    assert main(["train", str(run), "--games", "2", "--nodes", "60", "--jobs", "1"]) == 2
    err = capsys.readouterr().err
    assert f"santorini: error: {partial}: games played with other settings" in err
    assert "nodes 61 (this run: 60)" in err
    assert partial.read_bytes() == before


def test_a_run_being_run_elsewhere_is_refused(tmp_path, monkeypatch):
    fcntl = pytest.importorskip("fcntl")
    played = _fake_games(monkeypatch)
    run = tmp_path / "run"
    run.mkdir()
    # Another process holding the run (a lock on another open file of it conflicts alike).
    fd = os.open(run, os.O_RDONLY)
    try:
        fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
        with pytest.raises(ValueError, match="this run is being run by another process"):
            train.run(run, 1, TINY)
    finally:
        os.close(fd)
    assert played == []
    assert not (run / "state.json").exists()
    # Once it has ended, the run goes on here.
    monkeypatch.undo()
    assert train.run(run, 1, replace(TINY, games=1, arena_games=1))["history"]


def test_a_run_on_the_fitted_evaluation_trains_and_plays_with_it(tmp_path, capsys, monkeypatch):
    from santorini_p2p.ai.evaluate import TUNED

    monkeypatch.setattr(train, "GATE_SCORE", 0.0)
    out = tmp_path / "w.npz"
    args = ["train", str(tmp_path / "r"), "--games", "2", "--nodes", "60", "--arena-games", "2"]
    args += ["--epochs", "1", "--hidden", "8", "--jobs", "1", "--offset", "shipped"]
    assert main([*args, "--export", str(out)]) == 0
    net = Net.load(out)
    assert net.offset == TUNED
    assert "--offset shipped" in str(net.record["command"])
    assert train.stored_config(tmp_path / "r").offset == "shipped"
    # Resuming with the other evaluation is another run's settings.
    assert main([*args[:-1], "classic"]) == 2
    assert "other settings" in capsys.readouterr().err


def test_a_run_begun_before_gradient_clipping_resumes_without_it(tmp_path, monkeypatch):
    run = tmp_path / "run"
    train.run(run, 1, TINY)
    state = json.loads((run / "state.json").read_text())
    assert state["config"]["clip"] == 1.0
    del state["config"]["clip"]
    (run / "state.json").write_text(json.dumps(state))
    old = train.stored_config(run)
    assert old is not None
    assert old.clip == 0.0
    assert train.run(run, 1, old)["history"] == state["history"]
    with pytest.raises(ValueError, match="other settings"):
        train.run(run, 1, TINY)


def test_a_step_is_clipped_to_its_norm_as_a_whole():
    small = [np.full((2, 2), 0.1, np.float32), np.full(3, 0.1, np.float32)]
    assert all(a is b for a, b in zip(train.clipped(small, 1.0), small, strict=True))
    big = [np.full((2, 2), 3.0, np.float32), np.full(3, 4.0, np.float32)]  # norm sqrt(84)
    out = train.clipped(big, 1.0)
    assert math.isclose(math.sqrt(sum(float((g * g).sum()) for g in out)), 1.0, rel_tol=1e-5)
    # The direction is kept: every part shrinks by the same factor.
    assert np.allclose(out[0] / big[0], out[1][0] / big[1][0])
    assert train.clipped(big, 0.0) is big
