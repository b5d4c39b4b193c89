"""Training by self-play: samples, a run that resumes, gating and the exported record."""

import hashlib
import json

import numpy as np
import pytest

from santorini_p2p.ai.net import Net
from santorini_p2p.cli import main
from santorini_p2p.engine import generate_turns, parse_position, parse_turn
from santorini_p2p.engine.gods import ALL_GOD_NAMES
from santorini_p2p.study import train

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
    ],
)
def test_train_cli_rejects_bad_numbers(tmp_path, capsys, args, message):
    assert main(["train", str(tmp_path / "r"), *args]) == 2
    assert message in capsys.readouterr().err
    assert not (tmp_path / "r").exists()


def test_selfplay_on_a_dask_cluster_gives_the_same_samples():
    distributed = pytest.importorskip("distributed")
    with distributed.LocalCluster(
        n_workers=2,
        threads_per_worker=1,
        processes=True,
        host="127.0.0.1",
        dashboard_address=None,
    ) as cluster:
        cfg = train.Config(nodes=60)
        far = train.selfplay(None, 4, cfg, 7, 1, scheduler=cluster.scheduler_address)
    assert far == train.selfplay(None, 4, cfg, 7, 1)


def test_an_unreachable_scheduler_is_named():
    pytest.importorskip("distributed")
    with pytest.raises(ValueError, match=r"scheduler: cannot reach tcp://127\.0\.0\.1:9"):
        train.selfplay(None, 1, TINY, 1, 1, scheduler="tcp://127.0.0.1:9")


def test_a_gate_at_equal_time_is_kept_in_the_run(tmp_path):
    cfg = train.Config(games=2, nodes=60, arena_games=2, epochs=1, hidden=8, gate_think=0.02)
    state = train.run(tmp_path / "run", 1, cfg)
    assert state["config"]["gate_think"] == 0.02
    assert state["history"][0]["arena_games"] == 2
    assert train.stored_config(tmp_path / "run") == cfg
