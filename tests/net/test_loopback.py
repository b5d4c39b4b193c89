"""End to end over 127.0.0.1: ``santorini host`` and ``join`` processes with separate homes.

Each peer is its own process with its own ``SANTORINI_HOME``; computer players play whole
games unattended; the saved replays must be byte-identical and verify. A peer killed with
SIGKILL mid-game is started again with the same command and the game finishes.
"""

from __future__ import annotations

import os
import re
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

from santorini_p2p.errors import ReplayError
from santorini_p2p.net.trust import KnownPeers
from santorini_p2p.replay.verify import verify_file
from santorini_p2p.wire.log import read_log, scan_journal
from tests.patience import patient

WAIT_S = patient(30.0)


class Peer:
    """One ``santorini`` process, its home and its output file."""

    def __init__(
        self,
        tmp: Path,
        name: str,
        args: list[str],
        *,
        home: Path | None = None,
        stdin: int = subprocess.DEVNULL,
        runner: tuple[str, ...] = ("-m", "santorini_p2p"),
    ) -> None:
        self.home = home or tmp / name
        self.home.mkdir(parents=True, exist_ok=True)
        self.out = tmp / f"{name}.out"
        self.args = args
        self.stdin = stdin
        self.runner = runner
        self.proc = self.start()

    def start(self) -> subprocess.Popen[bytes]:
        env = {**os.environ, "SANTORINI_HOME": str(self.home), "PYTHONUNBUFFERED": "1"}
        with open(self.out, "ab") as out:
            return subprocess.Popen(
                [sys.executable, *self.runner, *self.args],
                stdout=out,
                stderr=subprocess.STDOUT,
                stdin=self.stdin,
                env=env,
            )

    def text(self) -> str:
        return self.out.read_text(errors="replace")

    def wait_for(self, pattern: str) -> re.Match[str]:
        """Wait (bounded) until the output matches ``pattern``."""
        deadline = time.monotonic() + WAIT_S
        while time.monotonic() < deadline:
            m = re.search(pattern, self.text())
            if m:
                return m
            if self.proc.poll() is not None:
                break
            time.sleep(0.02)
        raise AssertionError(f"{pattern!r} never appeared:\n{self.text()}")

    def finish(self) -> int:
        try:
            return self.proc.wait(timeout=WAIT_S * 2)
        except subprocess.TimeoutExpired:
            self.proc.kill()
            self.proc.wait(timeout=5)
            raise AssertionError(f"still running:\n{self.text()}") from None

    def kill(self) -> None:
        if self.proc.poll() is None:
            self.proc.send_signal(signal.SIGKILL)
            self.proc.wait(timeout=5)


def _host(tmp: Path, players: int, gods: str, extra: tuple[str, ...] = ()) -> tuple[Peer, int]:
    host = Peer(
        tmp,
        "p0",
        [
            "host",
            "--bind",
            "127.0.0.1",
            "--no-advertise",
            "--players",
            str(players),
            "--gods",
            gods,
            "--bot",
            "random",
            "--seed",
            "1",
            "--save",
            str(tmp / "r0"),
            *extra,
        ],
    )
    port = int(host.wait_for(r"address: 127\.0\.0\.1:(\d+)").group(1))
    host.wait_for(r"host fingerprint: [0-9a-f]{4}-")  # a line of its own: it may come later
    return host, port


def _join(tmp: Path, i: int, port: int, extra: tuple[str, ...] = ()) -> Peer:
    return Peer(
        tmp,
        f"p{i}",
        [
            "join",
            f"127.0.0.1:{port}",
            "--bot",
            "random",
            "--seed",
            str(i + 1),
            "--save",
            str(tmp / f"r{i}"),
            *extra,
        ],
    )


def _journal_records(home: Path) -> int:
    """How many records the peer's journal holds, read as a resume reads it (0: none yet)."""
    return _journal_state(home)[0]


def _journal_state(home: Path) -> tuple[int, bool]:
    """The records the peer's journal holds, and whether the game in it is complete."""
    games = home / "games"
    best = (0, False)
    for p in games.glob("*.sntr") if games.is_dir() else []:
        try:
            v = scan_journal(p.read_bytes())[0]
        except (ReplayError, OSError):
            continue
        best = max(best, (v.next_seq, v.is_complete))
    return best


def _check_replays(tmp: Path, players: int) -> None:
    data = [(tmp / f"r{i}").read_bytes() for i in range(players)]
    assert all(d == data[0] for d in data)
    for i in range(players):
        verdict = verify_file(tmp / f"r{i}")
        assert verdict.ok, verdict.line()


@pytest.mark.parametrize(("players", "gods"), [(2, "none"), (3, "draft"), (4, "challenger")])
def test_bots_play_a_whole_game_over_loopback(tmp_path, players, gods):
    host, port = _host(tmp_path, players, gods)
    joiners = [_join(tmp_path, i, port) for i in range(1, players)]
    started_ms = time.time_ns() // 1_000_000
    codes = [p.finish() for p in (host, *joiners)]
    assert codes == [0] * players, "\n".join(p.text() for p in (host, *joiners))
    _check_replays(tmp_path, players)
    # The header carries the date the game was set up (replay info shows it).
    header = read_log((tmp_path / "r0").read_bytes()).header
    assert header is not None
    assert started_ms - 60_000 < header.created_ms <= time.time_ns() // 1_000_000


def _wait_mid_game(peer: Peer, records: int = 14) -> None:
    """Wait until the peer's journal holds ``records`` records (the setup and some turns)."""
    deadline = time.monotonic() + WAIT_S
    while _journal_records(peer.home) < records:
        assert time.monotonic() < deadline, peer.text()
        assert peer.proc.poll() is None, "the game ended before the kill:\n" + peer.text()
        time.sleep(0.005)


# The peer that stays up plays at a pace, so the game is still going when the test's kill
# lands, however busy the machine: the kill waits for the journal, the pace for the kill.
PACE = ("--pace", "150")


def test_joiner_killed_mid_game_resumes_with_the_same_command(tmp_path):
    host, port = _host(tmp_path, 2, "none", ("--time", "5+30", *PACE))
    joiner = _join(tmp_path, 1, port)
    _wait_mid_game(joiner)
    joiner.kill()
    joiner.proc = joiner.start()
    assert host.finish() == 0, host.text()
    assert joiner.finish() == 0, joiner.text()
    assert "resuming the unfinished game" in joiner.text()
    _check_replays(tmp_path, 2)


def test_host_killed_mid_game_resumes_with_the_same_command(tmp_path):
    host, port = _host(tmp_path, 2, "draft", ("--port", "0"))
    joiner = _join(tmp_path, 1, port, PACE)
    _wait_mid_game(host)
    host.kill()
    host.proc = host.start()
    assert host.finish() == 0, host.text()
    assert joiner.finish() == 0, joiner.text()
    assert "resuming the unfinished game" in host.text()
    _check_replays(tmp_path, 2)


def test_a_game_in_play_is_refused_to_a_second_process_with_the_same_home(tmp_path):
    # A player who runs the same join again while the first is still playing must not get a
    # second writer of the journal: the two would sign different records with one number.
    host, port = _host(tmp_path, 2, "none")
    # No --bot and no terminal: it reads turns from a pipe, and none come.
    first = Peer(tmp_path, "p1", ["join", f"127.0.0.1:{port}"], stdin=subprocess.PIPE)
    try:
        first.wait_for(r"The game starts")
        second = Peer(tmp_path, "p1b", first.args, home=first.home)
        assert second.finish() == 1, second.text()
        assert "this game is open in another santorini process" in second.text()
        assert first.proc.poll() is None, first.text()
        assert host.proc.poll() is None, host.text()
    finally:
        first.kill()
        host.kill()
    # What the first wrote is intact: it verifies up to its last record and resumes.
    journal = next((first.home / "games").glob("*.sntr"))
    assert read_log(journal.read_bytes(), complete=False).next_seq > 0


SKEWED_JOIN = """
import sys
from santorini_p2p.wire import validator
real = validator.state_hash
# This peer's engine disagrees as soon as a block stands on the board.
validator.state_hash = lambda p: bytes(32) if p.ge1 else real(p)
from santorini_p2p.cli import main
sys.exit(main(sys.argv[1:]))
"""


def test_a_disagreeing_engine_stops_both_processes_with_reports(tmp_path):
    host, port = _host(tmp_path, 2, "none")
    join = ["join", f"127.0.0.1:{port}", "--bot", "random"]
    skewed = Peer(tmp_path, "p1", join, runner=("-c", SKEWED_JOIN))
    assert host.finish() == 1, host.text()
    assert skewed.finish() == 1, skewed.text()
    for peer in (host, skewed):
        assert "desync" in peer.text()
        reports = list((peer.home / "games").glob("*-stop.txt"))
        assert len(reports) == 1, peer.text()
        text = reports[0].read_text()
        assert "state hash here" in text
        assert "position:" in text
        verdict = verify_file(reports[0].with_suffix(".sntr"))
        assert verdict.record is not None
    # The peer whose engine disagrees reports its own (zero) hash against the claimed one.
    report = next((skewed.home / "games").glob("*-stop.txt")).read_text()
    assert "state hash here: " + "00" * 32 in report


def test_a_joiner_with_a_changed_key_is_told_once_why_and_what_to_do(tmp_path):
    # The host remembers 'alice' with another key from an earlier game.
    old_key = bytes(range(32))
    KnownPeers(tmp_path / "p0").check("alice", old_key)
    host, port = _host(tmp_path, 2, "none")
    try:
        alice = Peer(tmp_path, "p1", ["join", f"127.0.0.1:{port}", "--name", "alice"])
        assert alice.finish() == 1, alice.text()
        host.wait_for("HAS CHANGED")
    finally:
        host.kill()
    out = alice.text()
    host_name = host.wait_for(r"host fingerprint: \S+ \((.+)\)").group(1)
    why = f"{host_name} remembers another key for the name 'alice'"
    # Once as the game's event on stdout, once as the command's error on stderr; not logged.
    assert out.count(why) == 2, out
    assert "santorini: error: refused by" in out
    assert ".." not in out
    assert "--name" in out


def test_a_journal_a_crash_left_unreadable_does_not_block_the_same_host_command(tmp_path):
    games = tmp_path / "p0" / "games"
    games.mkdir(parents=True)
    gid = "ab" * 16
    # An earlier version killed while creating its journal left the zeros and no header.
    (games / f"{gid}.sntr").write_bytes(bytes(1 << 16))
    (games / f"{gid}.json").write_text(
        '{"role": "host", "address": "127.0.0.1:1", "nonce": "00", "game": "' + gid + '"}'
    )
    host, port = _host(tmp_path, 2, "none")
    assert "resuming" not in host.text()
    assert re.search(rf"warning: .*{gid}\.sntr: cannot be read .*set aside", host.text())
    assert (games / f"{gid}.sntr.unreadable").exists()
    joiner = _join(tmp_path, 1, port)
    assert host.finish() == 0, host.text()
    assert joiner.finish() == 0, joiner.text()
    _check_replays(tmp_path, 2)


def test_a_host_killed_after_game_over_keeps_its_replay_and_a_rerun_rewrites_it(tmp_path):
    host, port = _host(tmp_path, 2, "none")
    joiner = _join(tmp_path, 1, port)
    host.wait_for(r"You (won|lost)")
    host.kill()
    # The copy is written before the end is shown on screen.
    assert (tmp_path / "r0").exists(), host.text()
    assert joiner.finish() == 0, joiner.text()
    _check_replays(tmp_path, 2)
    # Lost all the same (a disk swapped, a file deleted): the same command writes it again
    # from the journal, and says so, instead of offering a new game.
    (tmp_path / "r0").unlink()
    note = next((tmp_path / "p0" / "games").glob("*.json"))
    note.write_text(note.read_text().replace('"saved": true', '"saved": false'))
    host.proc = host.start()
    assert host.finish() == 0, host.text()
    assert "was over, but its replay had not been saved: written to" in host.text()
    assert "address:" not in host.text().split("was over")[1]
    _check_replays(tmp_path, 2)


def test_a_finished_game_whose_copy_is_missing_is_listed_and_resume_writes_it(tmp_path):
    from santorini_p2p.net.session import unsaved_games

    host, port = _host(tmp_path, 2, "none")
    joiner = _join(tmp_path, 1, port)
    assert host.finish() == 0, host.text()
    assert joiner.finish() == 0, joiner.text()
    note = next((tmp_path / "p1" / "games").glob("*.json"))
    note.write_text(note.read_text().replace('"saved": true', '"saved": false'))
    (tmp_path / "r1").unlink()
    assert [j.stem for j, _ in unsaved_games(tmp_path / "p1")] == [note.stem]
    listing = Peer(tmp_path, "p1", ["games", "--wait", "0"], home=tmp_path / "p1")
    assert listing.finish() == 0
    assert f"finished here, replay not saved: {note.stem}" in listing.text()
    resumed = Peer(tmp_path, "p1", ["resume", "--save", str(tmp_path / "r1")], home=tmp_path / "p1")
    assert resumed.finish() == 0, resumed.text()
    assert f"written to {tmp_path / 'r1'}" in resumed.text()
    _check_replays(tmp_path, 2)
    assert unsaved_games(tmp_path / "p1") == []


@pytest.mark.parametrize("seed", [1, 2])
def test_peers_killed_at_random_records_resume_and_finish_identically(tmp_path, seed):
    # SIGKILL the host or the joiner, chosen at random, when its journal reaches each of a
    # few random record counts, and run the same command again at once each time.
    import random

    rng = random.Random(seed)
    host, port = _host(tmp_path, 2, "none", ("--time", "20+60"))
    joiner = _join(tmp_path, 1, port)
    for target in sorted(rng.sample(range(3, 60), 4)):
        who = rng.choice([host, joiner])
        deadline = time.monotonic() + WAIT_S
        while _journal_state(who.home)[0] < target and who.proc.poll() is None:
            assert time.monotonic() < deadline, who.text()
            time.sleep(0.003)
        if who.proc.poll() is not None:
            break  # the game ended first
        who.kill()
        if _journal_state(who.home)[1] and _settled(who.home):
            break  # killed when every peer held the whole game: nothing to resume
        who.proc = who.start()
    for peer in (host, joiner):
        if peer.proc.returncode != -signal.SIGKILL:
            assert peer.finish() == 0, peer.text()
    _check_replays(tmp_path, 2)


def _settled(home: Path) -> bool:
    """Whether the peer's note says every peer held the whole finished game."""
    import json

    notes = [json.loads(p.read_text()) for p in (home / "games").glob("*.json")]
    return any(n.get("settled") for n in notes)


def test_a_pace_is_for_the_computer_and_counts_ms_from_0(tmp_path, monkeypatch, capsys):
    from santorini_p2p.cli import main

    monkeypatch.setenv("SANTORINI_HOME", str(tmp_path))
    assert main(["join", "127.0.0.1:1", "--pace", "100"]) == 2
    assert "pace: only with --bot" in capsys.readouterr().err
    assert main(["host", "--bot", "random", "--pace", "-5"]) == 2
    assert "pace: expected a number of ms from 0, got -5" in capsys.readouterr().err
