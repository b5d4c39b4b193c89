"""``santorini host --secret-gods`` and ``join`` as processes over 127.0.0.1 (SECRET.md 12).

The secret deal, hidden play, objections and the audit run inside the session: each peer is
its own process with its own ``SANTORINI_HOME``, computer players play whole games, and the
saved replays must be byte-identical, verify, and hold no god in the clear before its opening.
"""

from __future__ import annotations

import dataclasses
import re
import subprocess
import sys
from pathlib import Path

import pytest

from santorini_p2p.replay.verify import verify_file
from santorini_p2p.wire.log import read_log
from santorini_p2p.wire.messages import Object, Open
from santorini_p2p.wire.secretgame import DEFAULT_POOL
from tests.net.test_loopback import Peer


def _play(tmp: Path, players: int, mode: tuple[str, ...] = ("--secret-gods",)) -> list[Peer]:
    common = ["--bot", "random", "--save"]
    host = Peer(
        tmp,
        "p0",
        [
            "host",
            "--bind",
            "127.0.0.1",
            "--no-advertise",
            *mode,
            "--players",
            str(players),
            "--seed",
            "1",
            *common,
            str(tmp / "r0"),
        ],
    )
    port = host.wait_for(r"others join with: santorini join (127\.0\.0\.1:\d+)").group(1)
    peers = [host]
    for i in range(1, players):
        args = ["join", port, "--seed", str(i + 1), *common, str(tmp / f"r{i}")]
        peers.append(Peer(tmp, f"p{i}", args))
    for p in peers:
        assert p.finish() == 0, p.text()
    return peers


def _fields(value: object) -> tuple[list[str], list[bytes]]:
    """Every text and every byte string inside a record's message, however nested."""
    texts: list[str] = []
    blobs: list[bytes] = []
    todo = [value]
    while todo:
        v = todo.pop()
        if isinstance(v, str):
            texts.append(v)
        elif isinstance(v, bytes):
            blobs.append(v)
        elif isinstance(v, tuple | list):
            todo.extend(v)
        elif dataclasses.is_dataclass(v):
            todo.extend(getattr(v, f.name) for f in dataclasses.fields(v))
    return texts, blobs


@pytest.mark.parametrize("players", [2, 3])
def test_secret_gods_games_over_loopback_end_with_the_same_verified_replay(tmp_path, players):
    peers = _play(tmp_path, players)
    saved = {(tmp_path / f"r{i}").read_bytes() for i in range(players)}
    assert len(saved) == 1, "the peers' replays differ"
    data = saved.pop()
    verdict = verify_file(tmp_path / "r0")
    assert verdict.ok, verdict.line()
    v = read_log(data)
    g = v.secret
    assert g is not None
    assert all(g.gods)
    for p in peers:
        text = p.text()
        m = re.search(r"your god is (\w+);", text)
        assert m, text
        # Right after the deal, every other god shows as '?', the player's own by name.
        line = text[m.end() :].splitlines()[1]
        assert line.count(" ?") == players - 1, line
        assert f"(you) {m.group(1)}" in line
        assert m.group(1) in g.gods
    # Before the first opening, no record but the header names a god: in no text field, and
    # in no byte field (ciphertext, keys, hashes). Random bytes hold a three-letter name about
    # once in five thousand games, so the byte fields are searched for the names of five
    # letters or more (about once in 10**8 for every name).
    first = min(r.index for r in v.records if isinstance(r.message, Open | Object))
    for r in v.records[1:first]:
        texts, blobs = _fields(r.message)
        assert not any(god in t for t in texts for god in DEFAULT_POOL), r.index
        long_names = [god.encode() for god in DEFAULT_POOL if len(god) >= 5]
        assert not any(name in b for b in blobs for name in long_names), r.index
    info = subprocess.run(
        [sys.executable, "-m", "santorini_p2p", "replay", "info", str(tmp_path / "r0")],
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert info.returncode == 0, info.stderr
    assert "secret" in info.stdout
    assert "verification  ok" in info.stdout


def test_party_and_agora_over_loopback_are_games_of_the_session(tmp_path):
    for mode, players in (("party", 3), ("agora", 4)):
        tmp = tmp_path / mode
        tmp.mkdir()
        peers = _play(tmp, players, ("--mode", mode))
        saved = {(tmp / f"r{i}").read_bytes() for i in range(players)}
        assert len(saved) == 1, "the peers' replays differ"
        verdict = verify_file(tmp / "r0")
        assert verdict.ok, verdict.line()
        v = read_log(saved.pop())
        assert v.header is not None
        assert mode in v.header.options
        for p in peers[1:]:
            assert "secret table" not in p.text()  # the session's hello was answered
        if mode == "party":
            assert "The cards pass on after turn 6:" in peers[0].text()
        else:
            assert re.search(r"won alone\. You (won|lost)", peers[0].text())


def test_a_person_on_the_line_prompt_is_asked_to_object_and_answers(tmp_path):
    """A person hosting on the line prompt against a computer, both with a god that forbids
    opponents turns: asked when the computer's turn breaks theirs, they accept it the first
    time (the rule is waived, the god stays hidden) and object the next."""
    import random
    import time

    from santorini_p2p.engine import legal_actions, parse_position
    from santorini_p2p.wire.messages import Ack
    from tests.net.test_loopback import WAIT_S

    host = Peer(
        tmp_path,
        "p0",
        [
            "host",
            "--bind",
            "127.0.0.1",
            "--no-advertise",
            "--secret-gods",
            "--gods-from",
            "limus,persephone",
            "--save",
            str(tmp_path / "r0"),
        ],
        stdin=subprocess.PIPE,
    )
    port = host.wait_for(r"others join with: santorini join (127\.0\.0\.1:\d+)").group(1)
    bot = Peer(tmp_path, "p1", ["join", port, "--bot", "random", "--save", str(tmp_path / "r1")])
    assert host.proc.stdin is not None
    rng = random.Random(7)
    moves = questions = 0
    deadline = time.monotonic() + WAIT_S * 4
    question = re.compile(
        r"(\w+)'s turn (\S+) breaks your hidden (\w+): object and reveal it \(y\), or accept "
        r"the turn \(n\)\? \(\d+ s, then the turn is accepted\)"
    )
    answered: list[tuple[str, str]] = []
    try:
        while host.proc.poll() is None:
            assert time.monotonic() < deadline, host.text()
            text = host.text()
            asked = question.findall(text)
            prompts = re.findall(r"position: ([^\n]+)\n[^\n]*your move \(", text)
            if len(asked) > questions:
                answer = "n" if not answered else "y"
                answered.append((asked[-1][1], answer))
                questions = len(asked)
                host.proc.stdin.write(f"{answer}\n".encode())
                host.proc.stdin.flush()
            elif len(prompts) > moves:
                moves = len(prompts)
                action = rng.choice(legal_actions(parse_position(prompts[-1])))
                host.proc.stdin.write(f"{action}\n".encode())
                host.proc.stdin.flush()
            else:
                time.sleep(0.05)
        assert host.finish() == 0, host.text()
        assert bot.finish() == 0, bot.text()
    finally:
        host.kill()
        bot.kill()
    text = host.text()
    assert answered, f"the computer never broke the person's god:\n{text}"
    assert "your god stays hidden" in text
    data = (tmp_path / "r0").read_bytes()
    assert (tmp_path / "r1").read_bytes() == data
    assert verify_file(tmp_path / "r0").ok
    v = read_log(data)
    me = v.seat_of(v.record(0).message.seats[0].public_key)
    acts = {r.index: r.message.action for r in v.records if type(r.message).__name__ == "Act"}
    # The first question's turn was accepted by the person's signed ack (the waiver).
    first = next(i for i, a in acts.items() if a == answered[0][0])
    answer = v.records[first + 1]
    assert answer.seat == me
    assert isinstance(answer.message, Ack)
    if len(answered) > 1:  # the second was objected to: void, the god revealed
        second = next(i for i, a in acts.items() if a == answered[1][0] and i > first)
        objection = v.records[second + 1]
        assert objection.seat == me
        assert isinstance(objection.message, Object)
