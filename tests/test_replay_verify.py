"""Tampered replays fail at the right record, and ``santorini replay verify`` reports it."""

from __future__ import annotations

import json

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from santorini_p2p.cli import main
from santorini_p2p.replay.verify import verify_bytes, verify_files
from santorini_p2p.wire.codec import encode
from santorini_p2p.wire.log import encode_frames, open_envelope, signing_input
from tests.replays import IDS, STRANGER, frame_offsets, game, replay_file

GAMES = [(2, "none", 0), (3, "draft", 1), (4, "challenger", 2), (2, "random", 3)]
OTHER = (2, "none", 9)

games = st.sampled_from(GAMES)
bounded = settings(max_examples=25)


def failing_index(data: bytes):
    v = verify_bytes(data, "t")
    assert not v.ok, "tampering went unnoticed"
    return v.record


@bounded
@given(games, st.data())
def test_flipping_any_byte_fails_at_that_record(which, data):
    env = game(*which)
    blob = bytearray(encode_frames(env))
    at = data.draw(st.integers(0, len(blob) - 1), label="byte")
    blob[at] ^= data.draw(st.integers(1, 255), label="mask")
    spans = frame_offsets(env)
    expected = next((i for i, (a, b) in enumerate(spans) if a <= at < b), None)
    assert failing_index(bytes(blob)) == expected


@bounded
@given(games, st.data())
def test_truncating_fails_at_the_first_incomplete_record(which, data):
    env = game(*which)
    blob = encode_frames(env)
    cut = data.draw(st.integers(0, len(blob) - 1), label="cut")
    spans = frame_offsets(env)
    expected = None if cut < 5 else next(i for i, (_, b) in enumerate(spans) if b > cut)
    assert failing_index(blob[:cut]) == expected


@bounded
@given(games, st.data())
def test_reordering_two_records_fails_at_the_first(which, data):
    env = list(game(*which))
    i = data.draw(st.integers(0, len(env) - 2), label="i")
    j = data.draw(st.integers(i + 1, len(env) - 1), label="j")
    env[i], env[j] = env[j], env[i]
    assert failing_index(encode_frames(env)) == i


@bounded
@given(games, st.data())
def test_dropping_a_record_fails_at_its_place(which, data):
    env = list(game(*which))
    i = data.draw(st.integers(0, len(env) - 1), label="i")
    del env[i]
    assert failing_index(encode_frames(env)) == i


@bounded
@given(games, st.data())
def test_duplicating_a_record_fails_at_the_copy(which, data):
    env = list(game(*which))
    i = data.draw(st.integers(0, len(env) - 1), label="i")
    env.insert(i + 1, env[i])
    assert failing_index(encode_frames(env)) == i + 1


@bounded
@given(games, st.data())
def test_re_signing_with_a_key_that_is_not_the_seats_fails_there(which, data):
    env = list(game(*which))
    i = data.draw(st.integers(0, len(env) - 1), label="i")
    e = open_envelope(env[i])
    key = data.draw(
        st.sampled_from([k for k in (*IDS, STRANGER) if k.public_key != e.signer]), label="key"
    )
    env[i] = encode((1, key.public_key, e.body, key.sign(signing_input(e.body))))
    assert failing_index(encode_frames(env)) == i


@bounded
@given(games, st.data())
def test_splicing_a_record_from_another_game_fails_there(which, data):
    env = list(game(*which))
    other = game(*OTHER)
    i = data.draw(st.integers(0, len(env) - 1), label="i")
    j = data.draw(st.integers(0, len(other) - 1), label="j")
    env[i] = other[j]
    # Another game's header is a valid record 0: the chain breaks at record 1.
    assert failing_index(encode_frames(env)) == (i if i or j else 1)


# -- the command line ------------------------------------------------------------------------


@pytest.fixture
def files(tmp_path):
    good = tmp_path / "good.sntr"
    good.write_bytes(replay_file(2, "draft", 0))
    bad = tmp_path / "bad.sntr"
    data = bytearray(replay_file(2, "none", 0))
    spans = frame_offsets(game(2, "none", 0))
    data[spans[7][1] - 3] ^= 0x10
    bad.write_bytes(bytes(data))
    return good, bad


def test_verify_prints_one_line_per_good_file(files, capsys):
    good, _ = files
    assert main(["replay", "verify", str(good)]) == 0
    out = capsys.readouterr().out.strip()
    assert out.startswith(f"{good}: ")
    assert "gods" in out
    assert " turns; ok" in out or " turn; ok" in out


def test_verify_names_the_file_and_the_first_bad_record(files, capsys):
    good, bad = files
    assert main(["replay", "verify", "--jobs", "1", str(good), str(bad)]) == 1
    cap = capsys.readouterr()
    assert cap.out.count("; ok") == 1
    assert cap.err.startswith(f"santorini: error: {bad}: record 7: bad signature")
    assert "Traceback" not in cap.err


def test_verify_json(files, capsys):
    good, bad = files
    assert main(["replay", "verify", "--json", "--jobs", "1", str(good), str(bad)]) == 1
    out = json.loads(capsys.readouterr().out)
    assert out[0]["ok"] is True
    assert out[0]["turns"] > 0
    assert len(out[0]["players"]) == 2
    assert out[1] == {
        "file": str(bad),
        "ok": False,
        "record": 7,
        "error": out[1]["error"],
        "kind": "SignatureError",
    }


def test_verify_missing_and_foreign_files(tmp_path, capsys):
    text = tmp_path / "notes.txt"
    text.write_text("hello")
    # A file that is not there is bad input (2), as in every command; the others still verify.
    assert main(["replay", "verify", str(tmp_path / "nope"), str(text)]) == 2
    err = capsys.readouterr().err
    assert "nope: cannot read" in err
    assert "notes.txt: not a replay file" in err


def test_verify_a_directory_or_empty_file_without_traceback(tmp_path, capsys):
    empty = tmp_path / "empty.sntr"
    empty.write_bytes(b"")
    assert main(["replay", "verify", str(tmp_path), str(empty)]) == 2
    err = capsys.readouterr().err
    assert f"{tmp_path}: cannot read" in err
    assert "empty.sntr: not a replay file" in err
    assert "Traceback" not in err


def test_verify_in_parallel_keeps_the_order(files):
    good, bad = files
    paths = [str(good), str(bad)] * 3
    verdicts = list(verify_files(paths, jobs=2))
    assert [v.path for v in verdicts] == paths
    assert [v.ok for v in verdicts] == [True, False] * 3


def test_replay_group_without_action_is_usage(capsys):
    assert main(["replay"]) == 2
    assert "verify" in capsys.readouterr().err


def test_bad_jobs_is_usage(files, capsys):
    good, _ = files
    assert main(["replay", "verify", "--jobs", "0", str(good)]) == 2


def test_id_creates_and_renames(tmp_path, monkeypatch, capsys):
    monkeypatch.setenv("SANTORINI_HOME", str(tmp_path))
    assert main(["id", "--json"]) == 0
    first = json.loads(capsys.readouterr().out)
    assert main(["id", "--name", "Zoë", "--json"]) == 0
    second = json.loads(capsys.readouterr().out)
    assert second == {"fingerprint": first["fingerprint"], "name": "Zoë"}
    assert main(["id", "--name", "bad\tname"]) == 2
    assert "printable" in capsys.readouterr().err


def test_progress_bar_on_a_terminal_with_many_files(files, monkeypatch, capsys):
    good, _ = files
    monkeypatch.setattr("sys.stderr.isatty", lambda: True, raising=False)
    assert main(["replay", "verify", "--jobs", "1"] + [str(good)] * 20) == 0
    cap = capsys.readouterr()
    assert cap.out.count("; ok") == 20
    assert "20/20" in cap.err
