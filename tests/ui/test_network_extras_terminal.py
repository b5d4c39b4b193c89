"""Chat and takeback requests on the real program's game screen at 80x24, over 127.0.0.1."""

from __future__ import annotations

import re
import subprocess
import sys

from tests.terminal import Terminal, clean_env

SANTORINI = [sys.executable, "-m", "santorini_p2p"]
SQUARES = [f + r for r in "12345" for f in "abcde"]
STEPS = ((-1, -1), (-1, 0), (-1, 1), (0, -1), (0, 1), (1, -1), (1, 0), (1, 1))


def _board(screen: str) -> dict[str, str]:
    """Square name -> its cell on the screen's board."""
    rows = {}
    for line in screen.splitlines():
        if len(line) > 33 and line[0] in "12345" and line[1:3] == " |":
            rows[int(line[0])] = line[2:33]
    return {f + str(r): rows[r][1 + 6 * i : 6 + 6 * i] for r in rows for i, f in enumerate("abcde")}


def _turns_listed(screen: str) -> int:
    """The number of the Turns panel's last entry (0 before the first)."""
    return max((int(n) for n in re.findall(r"(\d+)\. (?:place|[a-eH])", screen)), default=0)


def _my_turn(screen: str, mine: str) -> str | None:
    """A legal-looking turn for side ``mine``: a worker steps to a free level-0 square next to
    it and builds back where it stood (legal on an empty board of level 0)."""
    cells = _board(screen)
    taken = {sq for sq, cell in cells.items() if "A" in cell or "B" in cell}
    for sq, cell in sorted(cells.items()):
        if mine not in cell:
            continue
        f, r = "abcde".index(sq[0]), int(sq[1])
        for df, dr in STEPS:
            if 0 <= f + df < 5 and 1 <= r + dr <= 5:
                to = "abcde"[f + df] + str(r + dr)
                if to not in taken and not cells[to].strip(" []*.+"):  # empty, level 0
                    return f"{sq}>{to}^{sq}"
    return None


def test_chat_mute_and_a_late_takeback_on_the_game_screen(tmp_path):
    host_env = clean_env(tmp_path / "ann")
    argv = [*SANTORINI, "host", "--time", "none", "--bind", "127.0.0.1", "--no-advertise"]
    with Terminal([*argv, "--name", "ann"], env=host_env, cwd=tmp_path) as term:
        screen = term.wait_for(lambda s: re.search(r"127\.0\.0\.1:(\d+)", s) is not None)
        port = re.search(r"127\.0\.0\.1:(\d+)", screen).group(1)  # type: ignore[union-attr]
        joiner = subprocess.Popen(
            [*SANTORINI, "join", f"127.0.0.1:{port}", "--name", "bob", "--bot", "random"],
            env=clean_env(tmp_path / "bob"),
            cwd=tmp_path,
            stdin=subprocess.DEVNULL,
            stdout=subprocess.PIPE,
            stderr=subprocess.STDOUT,
        )
        try:
            screen = term.wait_for("Place your workers", timeout=30)
            mine = re.search(r"([AB]) seat \d ann", screen).group(1)  # type: ignore[union-attr]
            free = [sq for sq, cell in sorted(_board(screen).items()) if "A" not in cell]
            free = [sq for sq in free if "B" not in _board(screen)[sq]]
            term.send(f"place {free[0]},{free[-1]}\r")
            screen = term.wait_for("Your turn:", timeout=30)
            term.send("say good luck, bob\r")
            term.wait_for("ann says: good luck, bob")
            turn = _my_turn(screen, mine)
            assert turn is not None, screen
            played = _turns_listed(term.text())
            term.send(turn + "\r")
            # The computer moves at once: once it has, the turn cannot be taken back, and the
            # screen says why (the game goes on). Its move is the Turns panel's next entry (the
            # message log scrolls, so its lines are not counted).
            term.wait_for(
                lambda s: _turns_listed(s) >= played + 2 and "Your turn:" in s, timeout=30
            )
            term.send("takeback\r")
            term.wait_for("there is no turn of yours to take back now")
            term.send("mute\r")
            screen = term.wait_for("Chat muted")
            assert "ann says: good luck, bob" not in screen
            term.send("mute\r")
            term.wait_for("ann says: good luck, bob")
            for line in term.text().splitlines():
                assert len(line) <= 80
            term.send("\x11\x11")  # leave; the game is kept to resume
            assert term.wait_exit() == 0  # leaving is no error
            assert "run the same command again to resume it" in term.text()
            assert "error" not in term.text()
        finally:
            joiner.kill()
            out = joiner.communicate(timeout=10)[0].decode()
    assert "ann says: good luck, bob" in out
