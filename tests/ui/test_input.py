"""The completer and the validator, called directly (prompt_toolkit's own test style)."""

from __future__ import annotations

import pytest
from prompt_toolkit.completion import CompleteEvent
from prompt_toolkit.document import Document
from prompt_toolkit.validation import ValidationError

from santorini_p2p.engine import OPENING, legal_actions, new_game, parse_position
from santorini_p2p.ui.completer import (
    ActionCompleter,
    is_complete,
    marks_for,
    next_steps,
    step_starts,
)
from santorini_p2p.ui.validator import ActionValidator, check_input, find_action

START = parse_position(OPENING)


def completions(p, text):
    c = ActionCompleter(lambda: p)
    return list(c.get_completions(Document(text), CompleteEvent(completion_requested=True)))


def test_steps_split_before_each_operator():
    assert step_starts("b2>c3^d4") == [2, 5]
    assert step_starts("b2^c2>b3^c2") == [2, 5, 8]
    assert step_starts("Ha1,c2^b2") == [3, 6]
    assert step_starts("b2>c3^d4D") == [2, 5, 8]
    assert step_starts("god apollo") == []


def test_empty_input_offers_the_workers_that_can_start_a_turn():
    assert next_steps(START, "") == ["b2", "d4"]


def test_after_a_worker_only_its_steps_are_offered():
    steps = next_steps(START, "b2>")
    assert steps == ["b2>a1", "b2>a2", "b2>a3", "b2>b1", "b2>b3", "b2>c1", "b2>c2", "b2>c3"]
    assert next_steps(START, "b2") == steps


def test_after_a_move_the_builds_of_that_worker_are_offered():
    assert next_steps(START, "b2>c3") == [
        "b2>c3^b2",
        "b2>c3^b3",
        "b2>c3^c2",
        "b2>c3^c4",
        "b2>c3^d3",
    ]


def test_every_legal_turn_is_reached_by_following_steps():
    reached = set()
    frontier = [""]
    while frontier:
        text = frontier.pop()
        for step in next_steps(START, text):
            if is_complete(START, step):
                reached.add(step)
            frontier.append(step)
    assert reached == {str(a) for a in legal_actions(START)}


def test_completion_ignores_case_and_replaces_the_whole_input():
    got = completions(START, "B2>C3^B")
    assert [c.text for c in got] == ["b2>c3^b2", "b2>c3^b3"]
    assert all(c.start_position == -7 for c in got)
    assert [c.display_text for c in got] == ["^b2", "^b3"]


def test_a_winning_turn_is_labelled():
    p = parse_position("00000/00000/00100/02A30B0/0A0B000 1 -,- -")
    got = {c.text: c.display_meta_text for c in completions(p, "b2>")}
    assert got["b2>c2"] == "wins"


def test_setup_completion_goes_one_square_at_a_time():
    p = new_game(2)
    first = next_steps(p, "")
    assert first[0] == "place a1"
    assert len(first) == 25
    assert next_steps(p, "place a1")[:2] == ["place a1,b1", "place a1,c1"]


def test_a_placement_can_start_on_either_square():
    p = new_game(2)
    # e5 first: a fine prefix at every character, offered and highlighted like any square ...
    for i in range(1, len("e5,c3") + 1):
        assert check_input(p, "e5,c3"[:i]) is None, "e5,c3"[:i]
    assert "place e5" in next_steps(p, "")
    assert 24 in marks_for(p, "").targets
    after = next_steps(p, "e5,")
    assert len(after) == 24
    assert after[0] == "place e5,a1"
    # ... with every other square after the first, lower ones too ...
    assert marks_for(p, "c3,").targets == frozenset(range(25)) - {12}
    # ... and played in its canonical, ascending form.
    assert is_complete(p, "e5,c3") == "place c3,e5"
    assert is_complete(p, "place e5,c3") == "place c3,e5"
    assert check_input(p, "e5,e5") is not None


def test_demeters_builds_hermes_squares_and_offered_gods_go_in_any_order():
    # Demeter: a first build on the higher square still leaves the second to come.
    p = parse_position("00000/00B00A0/00000/00A00B0/00000 1 demeter,- -")
    assert "b2>c3^c4^b3" in next_steps(p, "b2>c3^c4")
    assert is_complete(p, "b2>c3^c4^b3") == "b2>c3^b3^c4"
    assert check_input(p, "b2>c3^c4^c4") is not None  # not twice on one square
    # Hermes: the power turn's squares, either one first.
    p = parse_position("00000/00B00A0/00000/00A00B0/00000 1 hermes,- -")
    assert "He5" in next_steps(p, "")
    assert check_input(p, "He5,d4") is None
    assert is_complete(p, "Hd4,a1^a2") == "Ha1,d4^a2"
    # The challenger: the offered gods, in any order.
    p = new_game(3, "challenger")
    assert next_steps(p, "gods ")[-1] == "gods prometheus"
    assert is_complete(p, "gods prometheus,pan,apollo") == "gods apollo,pan,prometheus"
    assert check_input(p, "gods pan,pan") is not None


def test_god_choices_complete_in_the_draft():
    p = new_game(2, "draft", drawn=("apollo", "pan", "atlas", "minotaur"))
    assert next_steps(p, "") == ["god apollo", "god atlas", "god minotaur", "god pan"]
    assert next_steps(p, "god m") == ["god minotaur"]


def test_marks_highlight_workers_then_targets_and_name_the_chosen():
    assert marks_for(START, "").targets == {6, 18}
    m = marks_for(START, "b2>c3")
    assert m.chosen == {6, 12}
    assert m.targets == {6, 7, 11, 13, 17}


def test_no_completion_without_a_position():
    assert list(ActionCompleter(lambda: None).get_completions(Document(""), CompleteEvent())) == []


@pytest.mark.parametrize(
    ("text", "index", "words"),
    [
        ("a1", 0, "your workers: b2, d4"),
        ("b2>c9", 4, "rank"),
        ("b2>c4", 4, "cannot move to 'c4'"),
        ("b2>c3^e5", 6, "no build on 'e5'"),
        ("b2>c3^d3^c4", 8, "already a whole action"),
        ("zz", 0, "file"),
    ],
)
def test_validator_points_at_the_first_bad_character(text, index, words):
    problem = check_input(START, text)
    assert problem is not None
    assert problem.index == index
    assert words in problem.message


@pytest.mark.parametrize("text", ["", "b", "b2", "B2>", "b2>c3^b2", "d4>e5^e4"])
def test_validator_accepts_legal_prefixes(text):
    assert check_input(START, text) is None


def test_validator_accepts_placements_in_any_order():
    p = new_game(2)
    assert check_input(p, "place d4,b2") is None
    assert find_action(p, "place d4,b2") == "place b2,d4"
    bad = check_input(p, "place b2,b2")
    assert bad is not None
    assert "once" in bad.message


def test_validator_raises_validation_error_at_the_character():
    v = ActionValidator(lambda: START)
    with pytest.raises(ValidationError) as e:
        v.validate(Document("b2>c4"))
    assert e.value.cursor_position == 4
    v.validate(Document("b2>c3"))


def test_atlas_dome_step_is_spelled_out():
    p = parse_position("00000/00B00A0/00000/00A00B0/00000 1 atlas,- -")
    got = completions(p, "b2>c3^d3")
    assert [(c.text, c.display_text) for c in got] == [("b2>c3^d3D", "D (dome)")]


def test_bare_squares_place_step_by_step_as_the_place_word_does():
    p = new_game(2)
    # Typed without the word, a placement is a fine prefix at every character ...
    for i in range(1, len("b2,d4") + 1):
        assert check_input(p, "b2,d4"[:i]) is None, "b2,d4"[:i]
        assert check_input(p, "B2,D4"[:i]) is None
    # ... completes to the canonical text, highlights as it does, and plays.
    assert next_steps(p, "b2") == next_steps(p, "place b2")
    assert [c.text for c in completions(p, "b2,")][:2] == ["place b2,c2", "place b2,d2"]
    assert all(c.start_position == -3 for c in completions(p, "b2,"))
    assert marks_for(p, "b2") == marks_for(p, "place b2")
    assert is_complete(p, "b2,d4") == "place b2,d4"
    assert find_action(p, "d4,b2") == "place b2,d4"
    # Squares off the board are still refused at the bad character.
    bad = check_input(p, "b2,f4")
    assert bad is not None
    assert bad.index == 3


def test_bare_squares_are_not_placements_once_play_has_started():
    # In play the same text is a worker's square (START: workers on b2 and d4).
    assert next_steps(START, "b2")[0].startswith("b2>")
    assert check_input(START, "b2,") is not None


HERMES = parse_position("00000/00B00A0/00000/00A00B0/00000 1 hermes,- -")
"""The opening with Hermes for seat 1: every turn on level 0 is a power turn (``H`` form)."""


def test_hermes_player_can_type_a_one_step_turn_the_plain_way():
    assert all(str(a).startswith("H") for a in legal_actions(HERMES))
    # The workers are offered first, then the power turns' first squares.
    assert next_steps(HERMES, "")[:3] == ["b2", "d4", "Ha1"]
    assert "b2>c3" in next_steps(HERMES, "b2")
    for i in range(1, len("b2>c3^d3") + 1):
        assert check_input(HERMES, "b2>c3^d3"[:i]) is None
    assert find_action(HERMES, "b2>c3^d3") == "Hc3,d4^d3"
    assert is_complete(HERMES, "B2>C3^D3") == "Hc3,d4^d3"


def test_hermes_plain_turn_must_build_next_to_the_worker_that_moved():
    # Hc1,d4^e5 is legal (d4 builds), but b2 moved to c1 cannot build on e5.
    assert "Hc1,d4^e5" in [str(a) for a in legal_actions(HERMES)]
    problem = check_input(HERMES, "b2>c1^e5")
    assert problem is not None
    assert problem.index == 6
    assert "no build on 'e5'" in problem.message
    assert find_action(HERMES, "b2>c1^e5") is None
