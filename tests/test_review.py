"""The engine review of a replay: marks, the stored review beside the replay, the command."""

import json
import re

import pytest

from santorini_p2p.ai.review import INACCURACY, MISTAKE, judge
from santorini_p2p.cli import main
from santorini_p2p.replay.review import load_review, parse_review, review_path
from santorini_p2p.study import review as study_review
from santorini_p2p.study.arena import GameSpec, play_game, signed_log
from santorini_p2p.study.review import review_file
from santorini_p2p.wire.log import encode_frames

THINK = "0.3"


@pytest.fixture(scope="module")
def hard_beats_random(tmp_path_factory):
    """A replay file of a game the hard level won against the random level.

    In this game (seed 3) the random side makes a turn that lets hard win at once from a
    position with no forced result within three turns: a blunder however fast the review
    searches (a faster one proves more losses earlier, which can turn a later blunder into
    "lost already").
    """
    spec = GameSpec(0, ("hard", "random"), "none", seed=3, nodes=3000)
    record = play_game(spec)
    assert record.winner_level == "hard"
    path = tmp_path_factory.mktemp("review") / "game.sntr"
    path.write_bytes(encode_frames(signed_log(record)))
    return path


def test_marks_follow_the_documented_thresholds():
    assert judge(0.6, 0.6 - INACCURACY) == "inaccuracy"
    assert judge(0.6, 0.6 - INACCURACY + 0.01) is None
    assert judge(0.6, 0.6 - MISTAKE) == "mistake"
    assert judge(0.9, 0.05) == "mistake"  # a big fall, but no forced loss
    assert judge(0.5, "loss in 2") == "blunder"
    assert judge("loss in 3", "loss in 1") is None  # lost already: nothing to avoid
    assert judge("win in 2", 0.8) == "missed win"
    assert judge("win in 2", "win in 2") is None
    assert judge("win in 1", "loss in 1") == "blunder"
    assert judge(0.7, 0.1, best=True) is None


def test_review_of_hard_against_random_marks_the_random_side(hard_beats_random, capsys):
    path = str(hard_beats_random)
    assert main(["replay", "review", path, "--think", THINK, "--jobs", "1", "--json"]) == 0
    captured = capsys.readouterr()
    out = json.loads(captured.out)
    assert set(out) == {"turns", "players"}
    turns = out["turns"]
    # The game's numbering: the two placements are 1 and 2, the first turn of play 3.
    assert [t["ply"] for t in turns] == list(range(3, len(turns) + 3))
    for t in turns:
        assert set(t) == {"ply", "seat", "turn", "best", "eval_before", "eval_after", "mark"}
    # hard sits in seat 1 of this game (the seed's draw), random in seat 2.
    hard = [t for t in turns if t["seat"] == 1]
    rand = [t for t in turns if t["seat"] == 2]
    assert hard
    assert rand
    assert any(t["mark"] in ("blunder", "missed win") for t in rand)
    assert not any(t["mark"] == "blunder" for t in hard)
    assert turns[-1]["eval_after"] == 1.0  # the winner's last turn won
    assert "1/" in captured.err  # the progress bar
    names = {p["name"]: p for p in out["players"]}
    assert names["random-2"]["blunders"] + names["random-2"]["missed_wins"] >= 1
    assert names["hard-1"]["blunders"] == 0
    assert names["hard-1"]["turns"] == len(hard)


def test_review_is_stored_beside_the_replay_and_reused(hard_beats_random, monkeypatch):
    path = hard_beats_random
    data = path.read_bytes()
    first, how = review_file(path, think=0.1)
    assert how in ("saved", "reused")
    stored = load_review(review_path(path), data)
    assert stored == first
    assert path.read_bytes() == data  # the signed log is untouched

    def fail(*args, **kwargs):
        raise AssertionError("searched again")

    monkeypatch.setattr(study_review, "review_turns", fail)
    again, how = review_file(path, think=0.1)
    assert (again, how) == (first, "reused")
    with pytest.raises(AssertionError, match="searched again"):
        review_file(path, think=0.2)  # other settings: a new review


def test_a_review_by_another_evaluation_is_made_again(hard_beats_random, tmp_path, monkeypatch):
    from santorini_p2p.ai.search import evaluation_id

    other = tmp_path / "engine.sntr"
    other.write_bytes(hard_beats_random.read_bytes())
    first, _ = review_file(other, think=0.1)
    assert first.engine == evaluation_id("hard")
    assert json.loads(review_path(other).read_text())["engine"] == first.engine

    def fail(*args, **kwargs):
        raise AssertionError("searched again")

    monkeypatch.setattr(study_review, "review_turns", fail)
    assert review_file(other, think=0.1)[1] == "reused"
    # A review stored before reviews named their evaluation, or by another one.
    for engine in ("", "net-0000000000000000"):
        doc = json.loads(first.to_file())
        doc.pop("engine")
        if engine:
            doc["engine"] = engine
        review_path(other).write_text(json.dumps(doc))
        assert load_review(review_path(other), other.read_bytes()).engine == engine
        with pytest.raises(AssertionError, match="searched again"):
            review_file(other, think=0.1)


def test_a_review_of_other_bytes_is_not_reused(hard_beats_random, tmp_path):
    other = tmp_path / "other.sntr"
    other.write_bytes(hard_beats_random.read_bytes())
    first, _ = review_file(other, think=0.1)
    review_path(other).write_text(first.to_file().replace(first.replay, "0" * 64))
    assert load_review(review_path(other), other.read_bytes()) is None
    review_path(other).write_text("{not json")
    assert load_review(review_path(other), other.read_bytes()) is None
    _, how = review_file(other, think=0.1)
    assert how == "saved"


@pytest.mark.parametrize(
    ("text", "message"),
    [
        ('{"version": 3}', "version"),
        ('{"version": 1, "replay": "x"}', "version"),  # its plies counted another way
        ('{"version": 2, "replay": "x", "level": "hard", "think": 1, "turns": 3}', "turns"),
        (
            '{"version": 2, "replay": "x", "level": "hard", "think": 1, "players": [], '
            '"turns": [{"ply": 1, "seat": 1, "turn": "a", "best": "b", "eval_before": 2, '
            '"eval_after": 0.5, "mark": null}]}',
            "eval_before",
        ),
        (
            '{"version": 2, "replay": "x", "level": "hard", "think": 1, "players": [], '
            '"turns": [{"ply": 1, "seat": 1, "turn": "a", "best": "b", "eval_before": 0.5, '
            '"eval_after": "win in x", "mark": null}]}',
            "eval_after",
        ),
        (
            '{"version": 2, "replay": "x", "level": "hard", "think": null, "nodes": 0, '
            '"players": [], "turns": []}',
            "nodes: expected a whole number of at least 1",
        ),
    ],
)
def test_a_bad_review_file_is_named(text, message):
    with pytest.raises(ValueError, match=message):
        parse_review(text)


def test_review_of_a_bad_replay_fails_with_its_record(hard_beats_random, tmp_path, capsys):
    bad = bytearray(hard_beats_random.read_bytes())
    bad[-5] ^= 1
    path = tmp_path / "bad.sntr"
    path.write_bytes(bytes(bad))
    assert main(["replay", "review", str(path), "--think", "0.1"]) == 1
    err = capsys.readouterr().err
    assert err.startswith("santorini: error: ")
    assert "record" in err
    assert not review_path(path).exists()


def test_review_of_a_missing_file_is_an_error(tmp_path, capsys):
    assert main(["replay", "review", str(tmp_path / "none.sntr")]) == 1
    assert "santorini: error: cannot read" in capsys.readouterr().err


def test_review_refuses_three_players(tmp_path, capsys):
    spec = GameSpec(0, ("easy", "random", "random"), "none", seed=3, nodes=200)
    path = tmp_path / "three.sntr"
    path.write_bytes(encode_frames(signed_log(play_game(spec))))
    assert main(["replay", "review", str(path), "--think", "0.1", "--jobs", "1"]) == 1
    assert "two sides" in capsys.readouterr().err


EXTERNAL = re.compile(r"""(?:src|href)\s*=\s*["'](?!#|data:)""", re.IGNORECASE)


def test_html_export_shows_the_stored_review_offline(hard_beats_random, tmp_path, capsys):
    path = str(hard_beats_random)
    review, _ = review_file(path, think=0.3)
    out = tmp_path / "game.html"
    assert main(["replay", "export", path, "-o", str(out)]) == 0
    page = out.read_text(encoding="utf-8")
    assert '<svg id="graph"' in page
    # Beside the board, at the head of the page's second column, with its axes labelled.
    assert page.index('<svg id="graph"') < page.index("<h2>Players</h2>")
    graph = page[page.index('<svg id="graph"') : page.index("</svg>", page.index('id="graph"'))]
    for label in (">100%</text>", ">50%</text>", ">0%</text>"):
        assert label in graph
    assert page.count('<rect data-i="') == len(review.turns)  # one hover area a turn
    marked = [t for t in review.turns if t.mark]
    assert page.count("<circle data-i=") == len(marked)
    signs = {"inaccuracy": "?!", "mistake": "?", "blunder": "??", "missed win": "(missed win)"}
    for t in marked:
        assert f">{signs[t.mark]}</span>" in page
    for t in review.turns:
        assert f"best {t.best}".replace(">", "&gt;") in page  # the best turn, on hover
    assert re.findall(r"https?://[^\s\"'<]+", page) == ["http://www.w3.org/2000/svg"] * 2
    assert EXTERNAL.findall(page.replace('href="#', "")) == []
    assert "default-src 'none'" in page


def test_html_export_leaves_out_a_review_of_other_bytes(hard_beats_random, tmp_path):
    path = tmp_path / "copy.sntr"
    path.write_bytes(hard_beats_random.read_bytes())
    review, _ = review_file(path, think=0.1)
    review_path(path).write_text(review.to_file().replace(review.replay, "0" * 64))
    out = tmp_path / "copy.html"
    assert main(["replay", "export", str(path), "-o", str(out)]) == 0
    page = out.read_text(encoding="utf-8")
    assert 'id="graph"' not in page
    assert '"review":null' in page


def test_console_viewer_shows_marks_best_turn_and_evaluation_line(hard_beats_random):
    from santorini_p2p.ui.board_view import Marks, render_board
    from santorini_p2p.ui.completer import squares_in
    from santorini_p2p.ui.replay_view import MARK_SIGNS, load_replay

    data = hard_beats_random.read_bytes()
    review, _ = review_file(hard_beats_random, think=0.3)
    model = load_replay(data, str(hard_beats_random))
    assert model.review_line() == ""
    assert model.attach_review(review)
    lines = [text for _, text in model.lines()]
    marked = [t for t in review.turns if t.mark]
    assert marked
    for t in marked:
        assert any(line.endswith(f"{t.turn} {MARK_SIGNS[t.mark]}") for line in lines)
    # Stand where the first marked turn was played: the board brackets the best turn there.
    first = marked[0]
    index = next(i for i, s in enumerate(model.steps) if i and s.text == first.turn) - 1
    model.index = index
    assert model.best_here == first.best
    assert f"best here [ ]: {first.best}" in model.review_line()
    board = "".join(
        text
        for _, text in render_board(
            model.current.position, Marks(targets=frozenset(squares_in(first.best)))
        )
    )
    assert board.count("[") == len(set(squares_in(first.best)))
    model.forward()
    assert f"{first.turn}: " in model.review_line()
    assert first.mark in model.review_line()


def test_console_viewer_refuses_a_review_of_another_game(hard_beats_random, tmp_path):
    from santorini_p2p.ui.replay_view import load_replay

    spec = GameSpec(0, ("easy", "random"), "none", seed=5, nodes=200)
    other = encode_frames(signed_log(play_game(spec)))
    review, _ = review_file(hard_beats_random, think=0.1)
    model = load_replay(other, "other")
    assert not model.attach_review(review)
    assert model.review_line() == ""


def test_review_over_two_processes_judges_every_turn(hard_beats_random, tmp_path, capsys):
    path = tmp_path / "jobs.sntr"
    path.write_bytes(hard_beats_random.read_bytes())
    assert main(["replay", "review", str(path), "--think", "0.2", "--jobs", "2", "--json"]) == 0
    out = json.loads(capsys.readouterr().out)
    alone, _ = review_file(hard_beats_random, think=0.3)
    assert [(t["ply"], t["turn"]) for t in out["turns"]] == [(t.ply, t.turn) for t in alone.turns]
    assert review_path(path).exists()


def test_console_viewer_screen_runs_with_the_stored_review(hard_beats_random):
    import asyncio

    from prompt_toolkit.application import create_app_session
    from prompt_toolkit.input import create_pipe_input
    from prompt_toolkit.output import DummyOutput

    from santorini_p2p.ui.replay_view import view_replay_file

    review_file(hard_beats_random, think=0.3)

    async def run() -> str | None:
        with create_pipe_input() as keys, create_app_session(input=keys, output=DummyOutput()):
            keys.send_text("\x1b[H" + "\x1b[C" * 6 + "\x1b[D")  # home, right x6, left
            keys.send_text("q")
            return await asyncio.wait_for(view_replay_file(str(hard_beats_random)), 10)

    assert asyncio.run(run()) is None


def test_a_turn_in_a_position_proved_lost_already_is_no_blunder():
    from santorini_p2p.ai.review import _recheck
    from santorini_p2p.engine import apply_unchecked, generate_turns, parse_position

    # Lost in 1 (tests/test_ai_mate.py): whatever seat 1 plays, seat 2 wins at once.
    p = parse_position("12X2A2X2/1X0X1X2A2/221X2B0X/2B1X113/1313X0 1 -,- -")
    nxt = apply_unchecked(p, generate_turns(p)[0])
    # The search left the position before the turn open (a probability): proved again.
    before, after = _recheck(p, nxt, 0.4, "loss in 1", 0.5, None)
    assert (before, after) == ("loss in 1", "loss in 1")
    assert judge(before, after) is None
    assert judge(0.4, "loss in 1") == "blunder"


def test_a_win_still_there_after_the_turn_is_not_missed():
    from santorini_p2p.ai import analyse
    from santorini_p2p.ai.review import _recheck
    from santorini_p2p.engine import apply_unchecked, parse_position

    # Won in 2 (tests/test_ai_mate.py); after the best turn the win is one turn away.
    p = parse_position("0X20A1X0/3223X2/3211X2/20A3X0X2X/21B0X2B0 2 -,- -")
    nxt = apply_unchecked(p, analyse(p, nodes=100_000).best)
    before, after = _recheck(p, nxt, "win in 2", 0.7, 0.5, None)
    assert after == "win in 1"
    assert judge(before, after) is None


def test_review_prints_a_table_and_each_players_counts(hard_beats_random, capsys):
    review, _ = review_file(hard_beats_random, think=0.3)
    assert main(["replay", "review", str(hard_beats_random), "--think", "0.3"]) == 0
    out = capsys.readouterr().out.splitlines()
    assert out[0].split() == ["ply", "seat", "turn", "best", "before", "after", "mark"]
    assert len(out) == 1 + len(review.turns) + len(review.players)
    for line, t in zip(out[1:], review.turns, strict=False):
        assert line.split()[:4] == [str(t.ply), str(t.seat + 1), t.turn, t.best]
    assert out[-1].startswith("seat 2 random-2: ")


def test_a_review_at_a_node_budget_is_the_same_anywhere_and_kept_by_its_budget(
    hard_beats_random, tmp_path, capsys, monkeypatch
):
    path = tmp_path / "game.sntr"
    path.write_bytes(hard_beats_random.read_bytes())
    args = ["replay", "review", str(path), "--nodes", "2000", "--json"]
    assert main([*args, "--jobs", "1"]) == 0
    alone = json.loads(capsys.readouterr().out)
    stored = load_review(review_path(path), path.read_bytes())
    assert stored is not None
    assert (stored.nodes, stored.think) == (2000, None)
    assert json.loads(review_path(path).read_text())["nodes"] == 2000
    # Searched again over two processes (the stored one set aside): the same review.
    review_path(path).rename(tmp_path / "first.json")
    assert main([*args, "--jobs", "2"]) == 0
    assert json.loads(capsys.readouterr().out) == alone
    marks = {t["mark"] for t in alone["turns"] if t["seat"] == 2}
    assert "blunder" in marks

    def fail(*a, **k):
        raise AssertionError("searched again")

    monkeypatch.setattr(study_review, "review_turns", fail)
    assert review_file(path, think=None, nodes=2000)[1] == "reused"
    with pytest.raises(AssertionError, match="searched again"):
        review_file(path, think=None, nodes=3000)
    with pytest.raises(AssertionError, match="searched again"):
        review_file(path)  # a review by time is another review


def test_review_refuses_a_node_budget_below_one(hard_beats_random, capsys):
    assert main(["replay", "review", str(hard_beats_random), "--nodes", "0"]) == 2
    assert "nodes: expected a whole number of at least 1, got 0" in capsys.readouterr().err
