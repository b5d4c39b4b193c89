"""``santorini play`` without a terminal: turns read from standard input, the game kept.

A script plays a whole game against the computer through the command's standard input and
output, as a person piping text would; the finished game is then a replay file that
``replay verify`` and ``replay export`` accept.
"""

from __future__ import annotations

import json
import queue
import random
import subprocess
import sys
import threading
from pathlib import Path

from santorini_p2p.engine import Turn, apply_unchecked, legal_actions, outcome, parse_position

SANTORINI = [sys.executable, "-m", "santorini_p2p"]


def _lines(stream) -> queue.Queue[str | None]:
    q: queue.Queue[str | None] = queue.Queue()

    def read() -> None:
        for line in stream:
            q.put(line)
        q.put(None)

    threading.Thread(target=read, daemon=True).start()
    return q


def _choose(position_text: str, rng: random.Random) -> str:
    """A winning turn if there is one, else a random legal action."""
    p = parse_position(position_text)
    actions = legal_actions(p)
    for a in actions:
        if isinstance(a, Turn) and outcome(apply_unchecked(p, a)).winner == p.to_move:
            return str(a)
    return str(rng.choice(actions))


def play_by_script(cwd: Path, env: dict[str, str], argv: list[str], seed: int = 1):
    """Run ``santorini play ARGV`` answering every prompt; return (exit code, output, moves)."""
    proc = subprocess.Popen(
        [*SANTORINI, "play", *argv],
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
        cwd=cwd,
        env=env,
    )
    assert proc.stdin is not None
    assert proc.stdout is not None
    out = _lines(proc.stdout)
    rng = random.Random(seed)
    seen: list[str] = []
    played: list[str] = []
    try:
        while True:
            line = out.get(timeout=120)
            if line is None:
                break
            seen.append(line)
            if line.startswith("position: "):
                move = _choose(line.removeprefix("position: ").strip(), rng)
                played.append(move)
                proc.stdin.write(move + "\n")
                proc.stdin.flush()
        code = proc.wait(timeout=60)
    finally:
        if proc.poll() is None:
            proc.kill()
            proc.wait(10)
    assert proc.stderr is not None
    return code, "".join(seen), proc.stderr.read(), played


def _env(tmp_path: Path) -> dict[str, str]:
    import os

    env = dict(os.environ)
    env["SANTORINI_HOME"] = str(tmp_path / "home")
    return env


def test_a_whole_game_against_the_computer_from_standard_input(tmp_path):
    env = _env(tmp_path)
    code, out, err, played = play_by_script(
        tmp_path, env, ["--bot", "easy", "--seed", "3", "--save", "game.sntr", "--think", "0.2"]
    )
    assert code == 0, out + err
    assert "Traceback" not in err
    assert played, out
    kept = sorted((tmp_path / "home" / "games").glob("*.sntr"))
    assert len(kept) == 1
    assert f"game over; replay {kept[0]}" in out
    assert (tmp_path / "game.sntr").read_bytes() == kept[0].read_bytes()

    verify = subprocess.run(
        [*SANTORINI, "replay", "verify", "--json", "game.sntr"],
        cwd=tmp_path,
        env=env,
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert verify.returncode == 0, verify.stderr
    (verdict,) = json.loads(verify.stdout)
    assert verdict["ok"]
    me = subprocess.run(
        [*SANTORINI, "id", "--json"], cwd=tmp_path, env=env, capture_output=True, text=True
    )
    mine = json.loads(me.stdout)
    # This player's own key signs seat 1; the computer's seat has a key of its own.
    assert verdict["players"][0] == {"name": mine["name"], "fingerprint": mine["fingerprint"]}
    assert verdict["players"][1]["name"] == "Computer (easy)"

    data = subprocess.run(
        [*SANTORINI, "replay", "export", "game.sntr", "--format", "json"],
        cwd=tmp_path,
        env=env,
        capture_output=True,
        text=True,
        timeout=60,
    )
    records = json.loads(data.stdout)["records"]
    acts = [r["body"]["action"] for r in records if r["type"] == "act"]
    assert set(played) <= set(acts)
    assert len(acts) > len(played)  # the computer's turns are in it too

    export = subprocess.run(
        [*SANTORINI, "replay", "export", "game.sntr", "--format", "html", "-o", "game.html"],
        cwd=tmp_path,
        env=env,
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert export.returncode == 0, export.stderr
    assert (tmp_path / "game.html").read_text().startswith("<!DOCTYPE html>")


def test_play_keeps_everything_private_from_a_new_home(tmp_path):
    env = _env(tmp_path)
    done = subprocess.run(
        [*SANTORINI, "play", "--players", "2", "--untimed"],
        input="place a1,a2\n",
        cwd=tmp_path,
        env=env,
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert done.returncode == 1  # the input ended first: the game is kept in the journal
    home = tmp_path / "home"
    assert home.stat().st_mode & 0o777 == 0o700
    assert (home / "local-game.json").stat().st_mode & 0o777 == 0o600
    finished = subprocess.run(
        [*SANTORINI, "play", "--resume"],
        input="resign\n",
        cwd=tmp_path,
        env=env,
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert finished.returncode == 0, finished.stderr
    (kept,) = (home / "games").glob("*.sntr")
    assert (home / "games").stat().st_mode & 0o777 == 0o700
    assert kept.stat().st_mode & 0o777 == 0o600
    for path in home.rglob("*"):
        assert path.stat().st_mode & 0o077 == 0, path


def test_play_from_a_god_pool_offers_and_records_only_its_gods(tmp_path):
    env = _env(tmp_path)
    argv = ["--bot", "random", "--seed", "2", "--untimed", "--save", "game.sntr"]
    argv += ["--gods", "challenger", "--gods-from", "zeus,chronus,medusa"]
    code, out, err, played = play_by_script(tmp_path, env, argv)
    assert code == 0, out + err
    # The challenger (this player, seat 1) is shown the pool and offers from it.
    assert "?,? c[]o[chronus.medusa.zeus]" in out
    assert played[0] in ("gods chronus,medusa", "gods chronus,zeus", "gods medusa,zeus")
    from santorini_p2p.wire.log import read_log

    v = read_log((tmp_path / "game.sntr").read_bytes())
    assert v.header is not None
    assert v.header.pool == ("chronus", "medusa", "zeus")
    assert v.position is not None
    assert set(v.position.gods) <= {"chronus", "medusa", "zeus"}
