"""One numbering of a game everywhere: the text export, `replay info`, the viewer, the review.

The console's Turns panel numbers the actions that stand, setup included; chat lines and
requests are not moves, a takeback's acceptance is an unnumbered note, and the turn played in
place of one taken back takes its number. Every other view of the same game says the same.
"""

from __future__ import annotations

import json
import re
import shutil
from pathlib import Path

import pytest

from santorini_p2p.cli import main
from santorini_p2p.replay.timeline import read_timeline
from santorini_p2p.ui.replay_view import load_replay

REPLAYS = Path(__file__).resolve().parent.parent / "protocol" / "vectors" / "replays"
_NUMBERED = re.compile(r"(\d+)\. seat \d: (\S+(?: \S+)?)")


def _export_numbers(capsys: pytest.CaptureFixture[str], path: Path, *extra: str) -> list[str]:
    """The numbered lines of ``replay export``'s text, as ``N. TEXT`` (the clock left out)."""
    assert main(["replay", "export", str(path), *extra]) == 0
    out = capsys.readouterr().out
    readable = out.split("\n-----BEGIN")[0].split("\n\n", 1)[1]
    found = []
    for line in readable.splitlines():
        m = _NUMBERED.match(line)
        if m:
            found.append(f"{m[1]}. {m[2].split(' {')[0]}")
        else:
            assert line.startswith(("- seat ", "; ")), line
    return found


def _viewer_numbers(path: Path) -> list[str]:
    lines = [text.strip() for _, text in load_replay(path.read_bytes()).lines()]
    return [x for x in lines if re.match(r"\d+\. ", x)]


@pytest.mark.parametrize("name", ["2p-takeback", "2p-chat", "2p-none"])
def test_the_text_export_numbers_the_game_as_the_viewer_and_replay_info_do(name, capsys):
    path = REPLAYS / f"{name}.sntr"
    exported = _export_numbers(capsys, path)
    assert exported == _viewer_numbers(path)
    # The last number is what the Turns panel ends on: the actions that stand, setup included.
    t = read_timeline(path.read_bytes())
    standing = [s for s in t.steps if s.kind == "act"]
    assert int(exported[-1].split(".")[0]) == t.moves
    assert main(["replay", "info", str(path)]) == 0
    info = capsys.readouterr().out
    assert f"turns         {t.turns} (moves numbered 1 to {t.moves}, setup included" in info
    if name == "2p-chat":
        assert "5 chat lines" in info
        # A chat line is no move: the chat game's numbers run 1, 2, 3 ... with no gap.
        assert [int(x.split(".")[0]) for x in exported] == list(range(1, len(standing) + 1))
    if name == "2p-takeback":
        assert "15 taken back" in info
        # The undone turn and the one played in its place share a number.
        assert exported[4:6] == ["5. b1>b2^a2", "5. c2>d2^e1"]


def test_format_1_is_still_written_on_request_byte_for_byte(capsys):
    path = REPLAYS / "2p-chat.sntr"
    assert main(["replay", "export", str(path), "--text-format", "1"]) == 0
    old = (REPLAYS.parent / "text" / "2p-chat.santorini.txt").read_text(encoding="utf-8")
    assert capsys.readouterr().out == old


def test_the_review_numbers_its_turns_as_the_game_does(tmp_path, capsys):
    replay = tmp_path / "takebacks.sntr"
    shutil.copyfile(REPLAYS / "2p-takeback.sntr", replay)
    args = ["replay", "review", str(replay), "--think", "0.001", "--jobs", "1", "--json"]
    assert main(args) == 0
    turns = json.loads(capsys.readouterr().out)["turns"]
    exported = _export_numbers(capsys, replay)
    # Every numbered line from the first turn of play on (placements are not judged).
    judged = [x for x in exported if not x.split(". ", 1)[1].startswith("place ")]
    assert [f"{t['ply']}. {t['turn']}" for t in turns] == judged


def test_ply_n_is_move_n_as_the_text_export_numbers_it(tmp_path, capsys):
    from santorini_p2p.replay.svg import step_svg

    path = REPLAYS / "2p-chat.sntr"
    t = read_timeline(path.read_bytes())
    exported = _export_numbers(capsys, path)
    # Move 3 of the chat game comes after a chat line: step 4 of the log, move 3 of the game.
    step = next(i + 1 for i, s in enumerate(t.steps) if s.kind == "act" and s.text in exported[2])
    assert step == 4, [s.text for s in t.steps[:5]]
    out = tmp_path / "move3.svg"
    assert main(["replay", "export", str(path), "--ply", "3", "-o", str(out)]) == 0
    assert out.read_text(encoding="utf-8") == f"{step_svg(t, step)}\n"
    assert main(["replay", "export", str(path), "--ply", str(t.moves + 1), "--format", "svg"]) == 2
    assert f"ply: expected 0 to {t.moves} (the game's moves" in capsys.readouterr().err
