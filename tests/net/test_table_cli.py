"""``santorini host --table --mode party|agora`` and ``join`` as processes (the secret table).

(Without ``--table`` these games, and ``--secret-gods``, play in the session:
``tests/net/test_secret_loopback.py``.)

Each peer is its own process with its own ``SANTORINI_HOME`` on 127.0.0.1; computer players
play whole games; every peer keeps the same replay under its home's ``games/``, ``--save``
copies it, and ``replay verify``, ``replay info`` and ``replay export`` read it.
"""

from __future__ import annotations

import re
import subprocess
import sys
from pathlib import Path

import pytest

from santorini_p2p.cli import main
from santorini_p2p.replay.verify import verify_file
from tests.net.test_loopback import Peer


def _play(tmp: Path, players: int, host_args: list[str]) -> list[Peer]:
    host = Peer(
        tmp,
        "p0",
        [
            "host",
            "--bind",
            "127.0.0.1",
            *host_args,
            "--bot",
            "random",
            "--seed",
            "1",
            "--save",
            str(tmp / "r0"),
        ],
    )
    port = host.wait_for(r"others join with: santorini join (127\.0\.0\.1:\d+)").group(1)
    peers = [host]
    for i in range(1, players):
        peers.append(
            Peer(
                tmp,
                f"p{i}",
                [
                    "join",
                    port,
                    "--bot",
                    "random",
                    "--seed",
                    str(i + 1),
                    "--save",
                    str(tmp / f"r{i}"),
                ],
            )
        )
    for p in peers:
        assert p.finish() == 0, p.text()
    for p in peers[1:]:
        # The host's answer to the session hello names its protocol; join goes on in it.
        assert "this host plays a secret-gods table (table protocol 1)" in p.text()
    return peers


def _same_verified_replay(tmp: Path, peers: list[Peer]) -> bytes:
    saved = {(tmp / f"r{i}").read_bytes() for i in range(len(peers))}
    assert len(saved) == 1, "the peers' replays differ"
    data = saved.pop()
    for p in peers:
        (kept,) = (p.home / "games").glob("table-*.sntr")
        assert kept.read_bytes() == data
        assert re.search(r"game over: .*; replay .*table-[0-9a-f]{32}\.sntr", p.text())
    verdict = verify_file(tmp / "r0")
    assert verdict.ok, verdict.line()
    return data


def test_a_party_game_passes_the_cards_and_verifies(tmp_path):
    peers = _play(
        tmp_path, 3, ["--table", "--mode", "party", "--players", "3", "--pass-every", "2"]
    )
    _same_verified_replay(tmp_path, peers)
    assert "Party (the cards pass every 2 turns)" in peers[0].text()
    text = subprocess.run(
        [
            sys.executable,
            "-m",
            "santorini_p2p",
            "replay",
            "export",
            "--format",
            "text",
            str(tmp_path / "r0"),
        ],
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert text.returncode == 0, text.stderr
    passes = re.findall(r"the cards pass after turn (\d+)", text.stdout)
    assert passes, text.stdout
    assert [int(n) for n in passes] == list(range(2, 2 * len(passes) + 1, 2))
    assert text.stdout.count("the cards pass") == peers[1].text().count("the cards pass")


def test_an_agora_game_of_four_verifies(tmp_path):
    peers = _play(tmp_path, 4, ["--table", "--mode", "agora"])
    _same_verified_replay(tmp_path, peers)
    assert "table: Agora, 4 players; you are seat 1" in peers[0].text()
    assert re.search(r"wins alone \(Agora\)|abandons", peers[0].text())


@pytest.fixture
def home(tmp_path, monkeypatch):
    monkeypatch.setenv("SANTORINI_HOME", str(tmp_path))
    return tmp_path


@pytest.mark.parametrize(
    ("argv", "said"),
    [
        (["--secret-gods", "--mode", "party"], "different games; pick one: a card dealt"),
        (["--secret-gods", "--mode", "agora"], "does not audit a hidden game under Agora"),
        (["--mode", "agora", "--players", "3"], "Agora is played by 4 players, got 3"),
        (["--mode", "party", "--players", "4"], "Party is played by 2 or 3 players, got 4"),
        (["--mode", "party", "--pass-every", "0"], "pass-every: expected 1 to 99 turns, got 0"),
        (["--pass-every", "3"], "pass-every: only with --mode party"),
        (["--secret-gods", "--pass-every", "3"], "pass-every: only with --mode party"),
        (["--secret-gods", "--gods", "draft"], "gods: --secret-gods deals them at random"),
        (["--secret-gods", "--gods-from", "atlas,harpies"], "harpies cannot be dealt secretly"),
        (["--mode", "party", "--gods", "draft"], "gods: --mode party deals them at random"),
        (["--table", "--mode", "party", "--gods", "draft"], "gods: not with --mode party"),
        (["--table", "--mode", "agora", "--time", "60+300"], "time: not with --mode agora"),
        (["--secret-gods", "--bot", "genius"], "bot: expected one of"),
    ],
)
def test_table_options_that_do_not_go_together_are_usage_errors(home, capsys, argv, said):
    assert main(["host", "--bind", "127.0.0.1", "--no-advertise", *argv]) == 2
    assert said in capsys.readouterr().err


def test_a_table_replay_exports_as_text_only(home, tmp_path, capsys):
    peers = _play(tmp_path, 2, ["--table", "--mode", "party"])
    del peers
    assert main(["replay", "export", "--format", "html", str(tmp_path / "r0")]) == 2
    assert "exports as text only" in capsys.readouterr().err


def test_a_joiner_after_the_seats_are_taken_is_told_the_table_is_full(tmp_path):
    host = Peer(
        tmp_path,
        "p0",
        [
            "host",
            "--bind",
            "127.0.0.1",
            "--table",
            "--mode",
            "party",
            "--save",
            str(tmp_path / "r0"),
        ],
        stdin=subprocess.PIPE,
    )
    port = host.wait_for(r"others join with: santorini join (127\.0\.0\.1:\d+)").group(1)
    first = Peer(tmp_path, "p1", ["join", port, "--bot", "random"])
    host.wait_for(r"the gods are drawn")
    # The person hosting is asked for a placement; a wrong one is refused, a good one played.
    host.wait_for(r"your placement \(action text, like c2,a4\): ")
    assert host.proc.stdin is not None
    host.proc.stdin.write(b"z9\nc2,a4\n")
    host.proc.stdin.flush()
    host.wait_for(r"santorini: .*\n(.|\n)*seat 1 \(you\): place c2,a4")
    first.wait_for(r"seat 1: place c2,a4")
    late = Peer(tmp_path, "p2", ["join", port, "--bot", "random"])
    assert late.finish() == 1
    assert "the table is full" in late.text()
    host.kill()
    first.kill()
