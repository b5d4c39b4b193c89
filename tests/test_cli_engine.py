"""The engine's command-line contracts: show, moves (--json, batch), perft (--divide), errors."""

from __future__ import annotations

import io
import json
import subprocess
import sys

import pytest

from santorini_p2p.cli import main
from santorini_p2p.cli.engine import moves_batch
from santorini_p2p.engine import OPENING


def run(*args, stdin=""):
    return subprocess.run(
        [sys.executable, "-m", "santorini_p2p", *args],
        input=stdin,
        capture_output=True,
        text=True,
        timeout=60,
    )


def test_show_draws_levels_domes_and_workers(capsys):
    assert main(["show", "0A0010B/21B012/00220/02A000/3X0000 2 -,- -"]) == 0
    out = capsys.readouterr().out
    assert out.splitlines()[0] == "5  0A .  .  1  0B"
    assert "3X" in out
    assert "seat 2 to move" in out


def test_moves_lists_one_turn_per_line(capsys):
    assert main(["moves", OPENING]) == 0
    lines = capsys.readouterr().out.splitlines()
    assert len(lines) == 80
    assert lines[0] == "b2>a1^a2"
    assert lines == sorted(lines)


def test_moves_json_contract(capsys):
    assert main(["moves", "--json", OPENING]) == 0
    doc = json.loads(capsys.readouterr().out)
    assert doc["position"] == OPENING
    assert len(doc["turns"]) == 80
    first = doc["turns"][0]
    assert first == {
        "turn": "b2>a1^a2",
        "position": "00000/00B00A0/00000/1000B0/0A0000 2 -,- -",
        "winner": None,
    }


def test_moves_json_reports_the_winning_seat(capsys):
    p = "00000/00000/00000/002A30/0A0B0B00 1 -,- -"
    assert main(["moves", "--json", p]) == 0
    doc = json.loads(capsys.readouterr().out)
    wins = [t for t in doc["turns"] if t["turn"] == "c2>d2"]
    assert wins
    assert wins[0]["winner"] == 1
    assert wins[0]["position"].endswith(" 2 -,- w1")
    assert all(t["winner"] is None for t in doc["turns"] if t["turn"] != "c2>d2")


def test_moves_batch_reads_standard_input_one_json_line_per_position():
    out = io.StringIO()
    status = moves_batch(io.StringIO(OPENING + "\n\n" + OPENING.lower() + "\n"), out, True)
    lines = out.getvalue().splitlines()
    assert status == 0
    assert len(lines) == 2
    assert [len(json.loads(ln)["turns"]) for ln in lines] == [80, 80]


def test_moves_batch_via_subprocess_and_a_bad_line():
    p = run("moves", "--json", stdin=f"{OPENING}\nnonsense\n{OPENING}\n")
    lines = p.stdout.splitlines()
    assert len(lines) == 3
    assert "error" in json.loads(lines[1])
    assert p.returncode == 2
    assert "santorini: error: line 2: position:" in p.stderr


def test_perft_prints_the_count_as_its_last_line(capsys):
    assert main(["perft", OPENING, "3"]) == 0
    assert capsys.readouterr().out.splitlines()[-1] == "426384"


def test_perft_divide(capsys):
    assert main(["perft", OPENING, "2", "--divide"]) == 0
    lines = capsys.readouterr().out.splitlines()
    assert len(lines) == 81
    assert lines[-1] == "6176"
    assert lines[0].startswith("b2>a1^a2 ")


@pytest.mark.parametrize(
    ("args", "message"),
    [
        (["moves", "00000/00B00A0/00000/00A00B0/00000 1 odin,- -"], "unknown god 'odin'"),
        (["show", "0AB0000/00B00A0/00000/00A00B0/00000 1 -,- -"], "column 3"),
        (["moves", "0XA0000/00B00A0/00000/00A00B0/00000 1 -,- -"], "no worker on the dome"),
        (["perft", OPENING, "-1"], "depth"),
        (["perft", OPENING, "x"], "invalid int value"),
    ],
)
def test_bad_input_is_an_error_naming_the_problem_with_exit_2(args, message):
    p = run(*args)
    assert p.returncode == 2
    assert p.stderr.startswith(("santorini: error:", "usage:"))
    assert message in p.stderr
    assert "Traceback" not in p.stderr


def test_moves_in_the_setup_phase_lists_setup_actions(capsys):
    assert main(["moves", "00000/00000/00000/00000/00000 2 ?,? c[apollo.pan]"]) == 0
    assert capsys.readouterr().out.splitlines() == ["god apollo", "god pan"]


def test_moves_json_lists_the_offers_from_a_god_pool(capsys):
    pos = "00000/00000/00000/00000/00000 1 ?,? c[]o[chronus.medusa.zeus]"
    assert main(["moves", "--json", pos]) == 0
    doc = json.loads(capsys.readouterr().out)
    assert doc["position"] == pos
    assert [t["turn"] for t in doc["turns"]] == [
        "gods chronus,medusa",
        "gods chronus,zeus",
        "gods medusa,zeus",
    ]
    assert doc["turns"][1]["position"] == "00000/00000/00000/00000/00000 2 ?,? c[chronus.zeus]"
