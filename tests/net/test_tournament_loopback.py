"""A Swiss club event of 8 computer players over 3 rounds, its games played over 127.0.0.1.

Each board is played by two ``santorini`` processes (``host --tournament EVENT --bot`` and
``join --bot``), each with its own ``SANTORINI_HOME``; the director (a third home) pairs each
round, reads the results from the saved replays, prints the standings and re-verifies the
event from the replays alone. Forged, tampered and mismatched results are refused.
"""

from __future__ import annotations

import contextlib
import io
import json
import os
import shutil
from pathlib import Path
from unittest import mock

import pytest

from santorini_p2p import cli
from santorini_p2p.tournament.club import load_event
from santorini_p2p.wire.identity import load_or_create_identity
from santorini_p2p.wire.log import read_log
from santorini_p2p.wire.messages import Act
from tests.net.test_loopback import Peer

NAMES = ("ann", "ben", "cat", "dan", "eve", "fay", "gus", "hal")

pytestmark = pytest.mark.timeout(600)


def run_cli(home: Path, *args: str) -> tuple[int, str, str]:
    """Run ``santorini ARGS`` in this process under ``SANTORINI_HOME=home``."""
    out, err = io.StringIO(), io.StringIO()
    with (
        mock.patch.dict(os.environ, {"SANTORINI_HOME": str(home)}),
        contextlib.redirect_stdout(out),
        contextlib.redirect_stderr(err),
    ):
        code = cli.main(list(args))
    return code, out.getvalue(), err.getvalue()


def _play_board(tmp: Path, event: Path, rnd: int, board: int, first: str, second: str):
    """Play one board: on even boards the second player hosts, to use both start slots."""
    host, joiner = (first, second) if board % 2 else (second, first)
    saves = {name: tmp / f"r{rnd}b{board}-{name}.sntr" for name in (first, second)}
    common = ["--bot", "random"]
    h = Peer(
        tmp,
        f"r{rnd}b{board}-{host}",
        [
            "host", "--bind", "127.0.0.1", "--no-advertise", "--tournament", str(event),
            "--seed", str(rnd * 10 + board), "--save", str(saves[host]), *common,
        ],
        home=tmp / "homes" / host,
    )  # fmt: skip
    port = int(h.wait_for(r"address: 127\.0\.0\.1:(\d+)").group(1))
    assert f"round {rnd} board {board}: {first} (first) - {second}" in h.text()
    j = Peer(
        tmp,
        f"r{rnd}b{board}-{joiner}",
        [
            "join", f"127.0.0.1:{port}", "--tournament", str(event),
            "--seed", str(rnd * 10 + board + 5),
            "--save", str(saves[joiner]), *common,
        ],
        home=tmp / "homes" / joiner,
    )  # fmt: skip
    return (h, j), saves


def _first_signer(path: Path) -> bytes:
    v = read_log(path.read_bytes())
    return next(r.signer for r in v.records if isinstance(r.message, Act))


@pytest.fixture(scope="module")
def swiss(tmp_path_factory):
    """Run the whole event; return its directory, the director's home and the replays."""
    tmp = tmp_path_factory.mktemp("swiss")
    prints = {}
    keys = {}
    for name in NAMES:
        me = load_or_create_identity(tmp / "homes" / name, name)
        prints[name], keys[name] = me.fingerprint, me.public_key
    director = tmp / "director"
    event = tmp / "club"
    players = [a for n in NAMES for a in ("--player", f"{n}={prints[n]}")]
    code, out, err = run_cli(
        director, "tournament", "new", str(event), *players, "--format", "swiss",
        "--rounds", "3", "--preset", "tournament", "--name", "Friday club",
    )  # fmt: skip
    assert code == 0, err
    assert "swiss, 3 rounds, 8 players; gods draft from simple; time 60+300" in out
    rounds = []
    replays: list[Path] = []
    for rnd in (1, 2, 3):
        code, out, err = run_cli(director, "tournament", "pair", str(event), "--json")
        assert code == 0, err
        pairing = json.loads(out)
        assert pairing["round"] == rnd
        assert pairing["bye"] is None
        rounds.append(pairing)
        # Asked again before the results, it prints the same round.
        assert run_cli(director, "tournament", "pair", str(event), "--json")[1] == out
        peers = []
        saved = []
        for b, game in enumerate(pairing["games"], 1):
            pair, saves = _play_board(tmp, event, rnd, b, game["first"], game["second"])
            peers += pair
            saved.append((game, saves))
        codes = [p.finish() for p in peers]
        assert codes == [0] * len(peers), "\n".join(p.text() for p in peers)
        # Host and joiner each found their board in the event's file.
        assert all(f"Friday club: round {rnd} board " in p.text() for p in peers)
        files = []
        for game, saves in saved:
            a, b = (saves[game["first"]], saves[game["second"]])
            assert a.read_bytes() == b.read_bytes()
            # The pairing's first player made the game's first action.
            assert _first_signer(a) == keys[game["first"]]
            files.append(a)
        code, out, err = run_cli(director, "tournament", "result", str(event), *map(str, files))
        assert code == 0, err
        assert out.count(f": round {rnd} board ") == 4
        replays += files
    return {"tmp": tmp, "event": event, "director": director, "rounds": rounds,
            "replays": replays, "prints": prints}  # fmt: skip


def test_swiss_pairings_are_valid_over_three_rounds(swiss):
    met = set()
    firsts = dict.fromkeys(NAMES, 0)
    for pairing in swiss["rounds"]:
        seated = [n for g in pairing["games"] for n in (g["first"], g["second"])]
        assert sorted(seated) == sorted(NAMES)
        for g in pairing["games"]:
            pair = frozenset((g["first"], g["second"]))
            assert pair not in met
            met.add(pair)
            firsts[g["first"]] += 1
    # Three rounds: everyone moved first once or twice.
    assert set(firsts.values()) <= {1, 2}


def test_every_result_is_read_from_a_replay_and_the_standings_have_tie_breaks(swiss):
    event = load_event(swiss["event"])
    assert event.rounds_paired == 3
    assert not event.open_boards()
    assert len(event.results) == 12
    code, out, _ = run_cli(swiss["director"], "tournament", "standings", str(swiss["event"]))
    assert code == 0
    lines = out.splitlines()
    assert lines[0] == "Friday club: final standings after 3 rounds"
    assert lines[1].split() == ["rank", "player", "points", "buchholz", "s-b", "w-d-l", "byes"]
    assert len(lines) == 2 + 8
    table = event.table()
    # Points total the games played: one point a board.
    assert sum(s.points for s in table) == 12
    for s, line in zip(table, lines[2:], strict=True):
        assert event.name_of(s.player) in line.split()
    # Buchholz is the sum of the opponents' points.
    points = {s.player: s.points for s in table}
    for s in table:
        opponents = [
            b.second if b.first == s.player else b.first
            for b in event.boards
            if s.player in (b.first, b.second)
        ]
        assert s.buchholz == sum(points[o] for o in opponents)


def test_standings_page_is_one_offline_file(swiss, tmp_path):
    page = tmp_path / "standings.html"
    code, _, err = run_cli(
        swiss["director"], "tournament", "standings", str(swiss["event"]), "--html", str(page)
    )
    assert code == 0, err
    text = page.read_text()
    assert "<h1>Friday club</h1>" in text
    assert "Buchholz" in text
    assert "Sonneborn-Berger" in text
    for name in NAMES:
        assert f"<td>{name}</td>" in text
    assert "http" not in text
    assert "<script" not in text
    # The page is made anew each time (after every round).
    page.write_text("old")
    code, _, err = run_cli(
        swiss["director"], "tournament", "standings", str(swiss["event"]), "--html", str(page)
    )
    assert code == 0, err
    assert page.read_text() == text


def test_event_reverifies_from_the_replays_alone(swiss, tmp_path):
    # Only the replays, under other names, and a reader who is not the director.
    alone = tmp_path / "replays"
    alone.mkdir()
    for i, path in enumerate(reversed(swiss["replays"])):
        shutil.copyfile(path, alone / f"game{i}.sntr")
    code, out, err = run_cli(
        tmp_path / "reader", "tournament", "verify", str(swiss["event"]), str(alone)
    )
    assert code == 0, err
    assert "3 round pairing(s) and 12 result(s) re-derived" in out
    # The event directory's own copies verify it too.
    code, out, err = run_cli(
        tmp_path / "reader", "tournament", "verify", str(swiss["event"]),
        str(swiss["event"] / "games"),
    )  # fmt: skip
    assert code == 0, err


def test_verify_names_the_result_whose_replay_is_missing_or_tampered(swiss, tmp_path):
    alone = tmp_path / "replays"
    alone.mkdir()
    for i, path in enumerate(swiss["replays"][1:]):
        shutil.copyfile(path, alone / f"game{i}.sntr")
    code, _, err = run_cli(tmp_path / "r", "tournament", "verify", str(swiss["event"]), str(alone))
    assert code == 1
    assert "record 2 (round 1 board 1): no replay" in err
    data = bytearray(swiss["replays"][0].read_bytes())
    data[-10] ^= 1
    (alone / "tampered.sntr").write_bytes(bytes(data))
    code, _, err = run_cli(tmp_path / "r", "tournament", "verify", str(swiss["event"]), str(alone))
    assert code == 1
    assert "record 2 (round 1 board 1): no replay" in err


def test_a_tampered_event_file_does_not_verify(swiss, tmp_path):
    copy = tmp_path / "club"
    shutil.copytree(swiss["event"], copy)
    data = bytearray((copy / "event.snte").read_bytes())
    data[len(data) // 2] ^= 1
    (copy / "event.snte").write_bytes(bytes(data))
    code, _, err = run_cli(tmp_path / "r", "tournament", "verify", str(copy), str(copy / "games"))
    assert code == 1
    assert "record " in err


def _new_event(home: Path, directory: Path, prints: dict[str, str], order, *extra: str):
    players = [a for n in order for a in ("--player", f"{n}={prints[n]}")]
    code, _, err = run_cli(
        home, "tournament", "new", str(directory), *players, "--format", "swiss",
        "--rounds", "3", *extra,
    )  # fmt: skip
    assert code == 0, err
    code, out, err = run_cli(home, "tournament", "pair", str(directory), "--json")
    assert code == 0, err
    return json.loads(out)


def test_forged_tampered_and_mismatched_results_are_refused(swiss, tmp_path):
    home = tmp_path / "director"
    prints = swiss["prints"]
    first_game = swiss["rounds"][0]["games"][0]
    replay = swiss["replays"][0]
    a, b = first_game["first"], first_game["second"]
    others = [n for n in NAMES if n not in (a, b)]

    # The same two players, the other one first: it stands as played (as a chess game
    # played with colours reversed does), and says so.
    club = tmp_path / "swapped"
    _new_event(home, club, prints, [b, a, *others], "--preset", "tournament")
    code, out, err = run_cli(home, "tournament", "result", str(club), str(replay))
    assert code == 0, err
    assert f"played the other way round, {a} first: it stands as played" in out
    assert load_event(club).round_boards(1)[0].reversed

    # Other settings: no gods, untimed.
    club = tmp_path / "plain"
    _new_event(home, club, prints, [a, b, *others], "--time", "none")
    code, _, err = run_cli(home, "tournament", "result", str(club), str(replay))
    assert code == 1
    assert "refused: played with gods draft; the event's games use none" in err

    # Players not paired with each other this round.
    club = tmp_path / "apart"
    _new_event(home, club, prints, [a, *others, b], "--preset", "tournament")
    code, _, err = run_cli(home, "tournament", "result", str(club), str(replay))
    assert code == 1
    assert f"refused: {a} and {b} are not paired in any round so far" in err

    # A stranger's key in place of a player's.
    club = tmp_path / "stranger"
    forged = dict(prints, **{b: "0123-4567-89ab-cdef"})
    _new_event(home, club, forged, [a, b, *others], "--preset", "tournament")
    code, _, err = run_cli(home, "tournament", "result", str(club), str(replay))
    assert code == 1
    assert f"refused: {b} ({prints[b]}) is not a player of this event" in err

    # Tampered and truncated replays, beside a good one: the good one is recorded.
    club = tmp_path / "good"
    _new_event(home, club, prints, [a, b, *others], "--preset", "tournament")
    data = replay.read_bytes()
    flipped = bytearray(data)
    flipped[len(data) // 2] ^= 0x40
    (tmp_path / "flipped.sntr").write_bytes(bytes(flipped))
    (tmp_path / "cut.sntr").write_bytes(data[: len(data) - 30])
    code, out, err = run_cli(
        home, "tournament", "result", str(club), str(tmp_path / "flipped.sntr"),
        str(tmp_path / "cut.sntr"), str(replay),
    )  # fmt: skip
    assert code == 1
    assert f"{tmp_path / 'flipped.sntr'}: refused: does not verify: record " in err
    assert f"{tmp_path / 'cut.sntr'}: refused: does not verify: record " in err
    assert f"{replay}: round 1 board 1: " in out
    # Read again: accepted, nothing changes.
    before = (club / "event.snte").read_bytes()
    code, out, _ = run_cli(home, "tournament", "result", str(club), str(replay))
    assert code == 0
    assert "(already recorded)" in out
    assert (club / "event.snte").read_bytes() == before
    # Another director's key cannot add to the event.
    code, _, err = run_cli(tmp_path / "usurper", "tournament", "result", str(club), str(replay))
    assert code == 1
    assert "this event is directed by the key" in err
