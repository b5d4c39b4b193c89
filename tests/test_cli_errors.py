"""The command line's errors: the same error gets the same exit code and words everywhere."""

from __future__ import annotations

import pytest

from santorini_p2p.cli import main
from santorini_p2p.wire.log import encode_frames
from tests.replays import game


@pytest.fixture
def replay(tmp_path, monkeypatch):
    monkeypatch.setenv("SANTORINI_HOME", str(tmp_path / "home"))
    path = tmp_path / "game.sntr"
    path.write_bytes(encode_frames(game(2, "none", 0)))
    return path


@pytest.mark.parametrize(
    "argv",
    [
        ["replay", "verify", "MISSING"],
        ["replay", "info", "MISSING"],
        ["replay", "export", "MISSING"],
        ["replay", "import", "MISSING", "-o", "OUT"],
        ["replay", "show", "MISSING"],
    ],
)
def test_a_missing_file_is_exit_2_in_every_command(tmp_path, capsys, argv):
    missing = str(tmp_path / "nope.sntr")
    argv = [missing if a == "MISSING" else str(tmp_path / "out") if a == "OUT" else a for a in argv]
    assert main(argv) == 2
    err = capsys.readouterr().err
    assert err.startswith("santorini: error: ")
    assert "nope.sntr" in err
    assert "No such file or directory" in err


@pytest.mark.parametrize("fmt", [[], ["--format", "json"]])
def test_export_does_not_overwrite_without_force(replay, tmp_path, capsys, fmt):
    out = tmp_path / "game.txt"
    out.write_text("keep me")
    assert main(["replay", "export", str(replay), "-o", str(out), *fmt]) == 2
    assert f"output: {out} exists; add --force to overwrite it" in capsys.readouterr().err
    assert out.read_text() == "keep me"
    assert main(["replay", "export", str(replay), "-o", str(out), *fmt, "--force"]) == 0
    assert out.read_text() != "keep me"


def test_import_does_not_overwrite_without_force(replay, tmp_path, capsys):
    text = tmp_path / "game.santorini.txt"
    assert main(["replay", "export", str(replay), "-o", str(text)]) == 0
    assert main(["replay", "import", str(text), "-o", str(replay)]) == 2
    assert "exists; add --force" in capsys.readouterr().err
    assert main(["replay", "import", str(text), "-o", str(replay), "--force"]) == 0


def test_export_refuses_an_extension_it_cannot_write(replay, tmp_path, capsys):
    out = tmp_path / "game.pdf"
    assert main(["replay", "export", str(replay), "-o", str(out)]) == 2
    err = capsys.readouterr().err
    assert "cannot tell the format of" in err
    assert "'.pdf'" in err
    assert "--format" in err
    assert not out.exists()
    assert main(["replay", "export", str(replay), "-o", str(out), "--format", "svg"]) == 0


def test_info_of_a_file_that_is_not_a_replay_prints_only_the_error(tmp_path, capsys):
    notes = tmp_path / "notes.txt"
    notes.write_text("hello")
    assert main(["replay", "info", str(notes)]) == 1
    out, err = capsys.readouterr()
    assert out == ""
    assert err == f"santorini: error: {notes}: fails: not a replay file (no SNTR magic)\n"


@pytest.mark.parametrize("value", ["-5+10", "-1"])
def test_a_negative_time_says_what_is_wrong(tmp_path, monkeypatch, capsys, value):
    monkeypatch.setenv("SANTORINI_HOME", str(tmp_path))
    assert main(["host", "--time", value, "--bind", "127.0.0.1", "--no-advertise"]) == 2
    err = capsys.readouterr().err
    assert (
        f"santorini: error: time: expected MOVE+BANK in seconds (60+300) or none, got {value!r}"
        in err
    )
    assert "expected one argument" not in err


def test_play_with_a_bad_time_is_a_usage_error(tmp_path, monkeypatch, capsys):
    monkeypatch.setenv("SANTORINI_HOME", str(tmp_path))
    assert main(["play", "--time", "soon"]) == 2
    assert "time: expected MOVE+BANK" in capsys.readouterr().err


def test_games_has_a_header_and_fits_80_columns(monkeypatch, capsys):
    from santorini_p2p.net import discovery

    offers = [
        discovery.Offer(
            "g1",
            "192.168.100.200",
            45678,
            "a-very-long-display-name-of-someone",
            "5a49-3d1b-5103-aad3",
            4,
            "challenger",
            "60+300",
            1,
        ),
        discovery.Offer("g2", "10.0.0.2", 4000, "bob", "1111-2222-3333-4444", 2, "none", "-", 1),
    ]

    async def browse(wait):
        return offers

    monkeypatch.setattr(discovery, "browse", browse)
    assert main(["games", "--wait", "0"]) == 0
    lines = capsys.readouterr().out.splitlines()
    assert lines[0].split() == ["ADDRESS", "FINGERPRINT", "PL", "GODS", "TIME", "HOST"]
    assert len(lines) == 3
    assert all(len(line) <= 80 for line in lines)
    assert lines[1].startswith("192.168.100.200:45678 5a49-3d1b-5103-aad3  4 challenger 60+300")
    assert lines[1].endswith("a-very-long-dis~")
    assert lines[2].split() == ["10.0.0.2:4000", "1111-2222-3333-4444", "2", "none", "-", "bob"]


def test_show_prints_a_legend(capsys):
    assert main(["show", "00000/00B00A0/00000/00A00B0/00000 1 -,- -"]) == 0
    out = capsys.readouterr().out
    assert out.splitlines()[-1].startswith("legend: the digit is the level")
