"""A takeback as the players and a spectator see it: the real program in pseudo-terminals over
127.0.0.1 (both players' and the spectator's Turns panel and board), and the engine review of a
game with takebacks in the replay viewer."""

from __future__ import annotations

import contextlib
import re
import shutil
import subprocess
import sys
import time
from pathlib import Path

from tests.terminal import Terminal, clean_env
from tests.ui.test_network_extras_terminal import _board, _my_turn

SANTORINI = [sys.executable, "-m", "santorini_p2p"]
ROOT = Path(__file__).resolve().parents[2]
TAKEBACK_REPLAY = ROOT / "protocol" / "vectors" / "replays" / "2p-takeback.sntr"


def _panel_turns(screen: str) -> list[str]:
    """The entries of the Turns panel right of the board, in order (``3. a1>b1^b2`` -> text)."""
    rows = screen.splitlines()
    start = next((i for i, row in enumerate(rows) if row.endswith(" Turns")), None)
    if start is None:
        return []
    column = len(rows[start]) - len("Turns")
    out: list[str] = []
    for row in rows[start + 1 :]:
        found = re.findall(r"(\d+)\. (\S+ ?\S*)", row[column:])
        if not found:
            break
        out.extend(text.strip() for _, text in found)
    return out


def _side(screen: str, name: str) -> str:
    return re.search(rf"([AB]) seat \d {name}", screen).group(1)  # type: ignore[union-attr]


def _to_play(screen: str) -> bool:
    return "Your turn" in screen or " Place your workers" in screen


def _first_to_place(players: dict[str, Terminal], timeout: float = 30.0) -> str:
    """Who places first (drawn by the game): the one whose screen asks for the workers."""
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        for name, term in players.items():
            with contextlib.suppress(AssertionError):
                term.wait_for(_to_play, timeout=0.2)  # woken by the screen's next change
                return name
    raise AssertionError("neither player was asked to place its workers")


def _play_in_turn(players: dict[str, Terminal], count: int) -> list[tuple[str, str]]:
    """Play ``count`` actions, ann and bob in turn: each places on its own corner squares,
    then plays a legal turn read from its screen; return ``(who, text)`` in order."""
    corners = {"A": ("a1", "a5"), "B": ("e1", "e5")}
    played: list[tuple[str, str]] = []
    first = _first_to_place(players)
    order = [first, "bob" if first == "ann" else "ann"]
    while len(played) < count:
        who = order[len(played) % 2]
        term = players[who]
        screen = term.wait_for(_to_play, timeout=30)
        mine = _side(screen, who)
        if " Place " in screen:
            text = "place {},{}".format(*corners[mine])
        else:
            turn = _my_turn(screen, mine)
            assert turn is not None, screen
            text = turn
        term.send(text + "\r")
        played.append((who, text))
        done = len(played)
        term.wait_for(lambda s, n=done: len(_panel_turns(s)) >= n, timeout=30)
    return played


def test_a_takeback_leaves_every_turn_list_and_board_right_and_the_spectator_is_told(tmp_path):
    host_argv = [*SANTORINI, "host", "--time", "none", "--bind", "127.0.0.1", "--no-advertise"]
    with Terminal([*host_argv, "--name", "ann"], env=clean_env(tmp_path / "ann")) as ann:
        screen = ann.wait_for(lambda s: re.search(r"127\.0\.0\.1:(\d+)", s) is not None)
        address = re.search(r"127\.0\.0\.1:\d+", screen).group(0)  # type: ignore[union-attr]
        join_argv = [*SANTORINI, "join", address, "--name", "bob"]
        with (
            Terminal(join_argv, env=clean_env(tmp_path / "bob")) as bob,
            Terminal([*SANTORINI, "watch", address], env=clean_env(tmp_path / "eve")) as eve,
        ):
            eve.wait_for("as a spectator")
            players = {"ann": ann, "bob": bob}
            played = _play_in_turn(players, 5)
            # The last mover asks to take its turn back; the other accepts.
            asker, undone = played[-1]
            other = "bob" if asker == "ann" else "ann"
            players[asker].send("takeback\r")
            players[other].wait_for("accept (y)", timeout=30)
            players[other].send("y\r")
            eve.wait_for(f"Taken back: {undone}", timeout=30)
            standing = [text for _, text in played[:-1]]
            worker_from, worker_to = undone[:2], undone[3:5]
            for name, term in (*players.items(), ("spectator", eve)):
                screen = term.wait_for(
                    lambda s: _panel_turns(s) == standing and f"Taken back: {undone}" in s,
                    timeout=30,
                )
                cells = _board(screen)
                # The worker is back where it stood; no mark of the undone move is left.
                assert _side(screen, asker) in cells[worker_from], (name, screen)
                assert cells[worker_to].strip(" []") == "", (name, screen)
            players[asker].wait_for("Your turn", timeout=30)
            # Each player's terminal rang when its turn came after the other's move; the
            # spectator's, which has no turn, never did.
            assert ann.raw.count(b"\x07") >= 2
            assert bob.raw.count(b"\x07") >= 2
            assert b"\x07" not in eve.raw


def test_the_engine_review_of_a_game_with_takebacks_shows_in_the_viewer(tmp_path):
    replay = tmp_path / "takebacks.sntr"
    shutil.copyfile(TAKEBACK_REPLAY, replay)
    env = clean_env(tmp_path)
    done = subprocess.run(
        [*SANTORINI, "replay", "review", str(replay), "--think", "0.01", "--jobs", "1"],
        env=env,
        capture_output=True,
        text=True,
        timeout=300,
        check=False,
    )
    assert done.returncode == 0, done.stderr
    with Terminal([*SANTORINI, "replay", "show", str(replay)], env=env) as term:
        # At the start: each player's marked turns, counted, and how to go from one to the next.
        counted = re.compile(r"alice: \d+ blunders?, \d+ mistakes?, \d+ inaccurac")
        term.wait_for(
            lambda s: (
                "m goes to the next marked turn" in s and bool(counted.search(s)) and "bob: " in s
            )
        )
        # On to the first takeback: the acceptance is no turn, so the review stays in step.
        term.send("\x1b[C" * 6)
        # The screen is drawn in pieces: wait for the whole of it, the cursor on the note too.
        marked = re.compile(r">\s+\(b1>b2\^a2 taken back\)")  # a note, no number
        screen = term.wait_for(
            lambda s: " step 6/" in s and "review:" in s and marked.search(s) is not None
        )
        term.send("\x1b[C")
        screen = term.wait_for(lambda s: " step 7/" in s and "review: c2>d2^e1:" in s)
        assert "accept" not in screen
        term.send("q")
        term.wait_exit()


def test_the_viewer_numbers_actions_as_the_turn_list_did_and_notes_a_takeback():
    from santorini_p2p.ui.replay_view import load_replay

    model = load_replay(TAKEBACK_REPLAY.read_bytes())
    lines = [text for _, text in model.lines()][:8]
    assert lines == [
        "  1. place a1,c2",
        "  2. place d2,c3",
        "  3. a1>b1^b2",
        "  4. d2>d3^c4",
        "  5. b1>b2^a2",
        "     (b1>b2^a2 taken back)",
        "  5. c2>d2^e1",  # the turn played instead takes the number back
        "  6. c3>b2^c2",
    ]


def test_m_goes_from_one_marked_turn_to_the_next_and_back():
    from santorini_p2p.ui.replay_view import TurnNote, load_replay

    model = load_replay(TAKEBACK_REPLAY.read_bytes())
    model.notes = {
        3: TurnNote(None, "a1>b1^b2", "50%", "50%"),
        7: TurnNote("mistake", "c2>d2^e1", "50%", "30%"),
        12: TurnNote("blunder", "d3>e3^d4", "40%", "0%"),
    }
    assert model.next_marked(1)
    assert model.index == 7
    assert model.next_marked(1)
    assert model.index == 12
    assert not model.next_marked(1)  # none after the last: it stays
    assert model.index == 12
    assert model.next_marked(-1)
    assert model.index == 7
