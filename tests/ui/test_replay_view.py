"""The replay viewer: the step model over a real replay file, and the screen driven by keys."""

from __future__ import annotations

import asyncio

from prompt_toolkit.application import create_app_session
from prompt_toolkit.input import create_pipe_input
from prompt_toolkit.output import DummyOutput

from santorini_p2p.cli import main
from santorini_p2p.engine import Phase, new_game
from santorini_p2p.ui.replay_view import load_replay, view_replay, view_replay_file
from santorini_p2p.wire.log import iter_frames
from tests.replays import game, replay_file


def test_a_good_replay_steps_through_every_action_and_verifies():
    model = load_replay(replay_file(2, "draft", 1), "g.sntr")
    assert model.ok
    assert model.bad is None
    assert model.status.startswith("g.sntr: alice vs bob; gods ")
    assert model.status.endswith("; ok")
    assert model.steps[0].position == new_game(2, "draft", drawn=model.steps[0].position.pool)
    assert model.steps[-1].position.phase is Phase.OVER
    assert model.steps[1].text.startswith("god ")
    model.to_end()
    assert model.lines()[-1][0] is True
    model.forward()
    assert model.index == len(model.steps) - 1
    model.to_start()
    model.back()
    assert model.index == 0
    model.forward()
    assert model.lines()[0] == (True, f"  1. {model.steps[1].text}")


def test_a_bad_record_opens_up_to_it_and_is_marked():
    envelopes = game(2, "none", 2)
    data = bytearray(replay_file(2, "none", 2))
    at = 5 + sum(4 + len(e) for e in envelopes[:15]) + 4 + 10
    data[at] ^= 1
    model = load_replay(bytes(data), "bad.sntr")
    assert not model.ok
    assert model.bad == 15
    assert model.status.startswith("FAILS VERIFICATION: bad.sntr: record 15:")
    assert model.lines()[-1][1].startswith("  !! record 15: ")
    assert all(s.record < 15 for s in model.steps)


def test_not_a_replay_file_is_an_empty_model_with_the_reason():
    model = load_replay(b"hello", "x")
    assert not model.ok
    assert model.empty
    assert len(model.steps) == 1
    assert "not a replay file" in model.status
    assert not load_replay(replay_file(2, "none", 0)).empty


def test_a_file_with_nothing_to_show_is_reported_not_opened(capsys, tmp_path):
    notes = tmp_path / "notes.txt"
    notes.write_text("just some notes\n")
    # No terminal here: the viewer could not open, so the error comes from reading the file.
    assert main(["replay", "show", str(notes)]) == 1
    err = capsys.readouterr().err
    assert f"{notes}: not a replay file" in err
    assert "nothing to show" in err
    # The start screen's entry says the same and opens nothing (no terminal is needed).
    why = asyncio.run(asyncio.wait_for(view_replay_file(str(notes)), 10))
    assert why is not None
    assert "nothing to show" in why


def test_the_viewer_steps_with_arrow_keys_and_quits():
    model = load_replay(replay_file(2, "none", 0))

    async def run():
        with create_pipe_input() as keys, create_app_session(input=keys, output=DummyOutput()):
            keys.send_text("\x1b[C\x1b[C\x1b[C\x1b[D")  # right x3, left
            keys.send_text("q")
            await asyncio.wait_for(view_replay(model), 10)

    asyncio.run(run())
    assert model.index == 2


def test_replay_show_reports_a_missing_file(capsys, tmp_path):
    assert main(["replay", "show", str(tmp_path / "none.sntr")]) == 2
    assert "cannot read" in capsys.readouterr().err


def test_frames_of_the_test_replay_are_real():
    assert len(list(iter_frames(replay_file()))) == len(game())


def test_a_powers_effect_is_marked_on_the_replay_board():
    from santorini_p2p.engine import apply, find_turn, parse_position
    from santorini_p2p.ui.board_view import fragments_text, render_board
    from santorini_p2p.ui.replay_view import ReplaySteps, Step, board_marks

    # Charon ferries the worker on d4 to b2, then moves to b3 and builds on a2.
    p = parse_position("013X0A0/1001B0/101A23/01000/10B110 1 charon,aphrodite -")
    q = apply(p, find_turn(p, "c3~d4>b3^a2"))
    model = ReplaySteps([Step(p, "", 0), Step(q, "c3~d4>b3^a2", 1)])
    model.forward()
    marks = board_marks(model)
    signs = dict(marks.last)
    assert signs[6] == "~"  # b2: the ferried worker
    assert signs[12] == "."  # c3: Charon's worker left
    assert signs[11] == "*"  # b3: and arrived
    assert signs[18] == "."  # d4: where the ferried worker was
    assert signs[5] == "+"  # a2: the build
    rows = fragments_text(render_board(q, marks)).split("\n")
    assert "~B" in rows[8]  # rank 2 row shows the forced worker's sign
    model.back()
    assert board_marks(model).last == ()
