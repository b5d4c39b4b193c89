"""The console shows the state of RULES.md 10 and completes the new turn forms."""

from __future__ import annotations

from prompt_toolkit.completion import CompleteEvent
from prompt_toolkit.document import Document

from santorini_p2p.engine import parse_position
from santorini_p2p.ui.board_view import render_text, state_lines
from santorini_p2p.ui.completer import (
    ActionCompleter,
    is_complete,
    next_steps,
    step_kind,
    step_kinds,
)


def test_the_state_of_each_seat_is_shown_in_its_gods_words():
    p = parse_position("0B0000B/00000/000A00/00000/0A0000 1 aeolus[ne],hippolyta[a5] -")
    assert state_lines(p) == [
        "seat 1 aeolus: wind \u2197 towards ne: no step towards sw",
        "seat 2 hippolyta: female worker on a5",
    ]
    assert "female worker on a5" in render_text(p)


def test_coins_a_mark_a_pair_and_a_used_hero_are_shown():
    p = parse_position("0B0000B/00000/000A00/00000/0A0000 1 morpheus[2],adonis[e5.c3] -")
    lines = state_lines(p)
    assert lines[0] == "seat 1 morpheus: 2 coins on his card (3 to spend on his turn)"
    assert "e5 and c3 must end" in lines[1]
    q = parse_position("0B0000B/00000/000A00/00000/0A0000 1 eris[a5],theseus[x] -")
    assert state_lines(q) == [
        "seat 1 eris: may not move the worker on a5",
        "seat 2 theseus: power used",
    ]


def test_the_completion_offers_the_wind_after_aeolus_builds():
    p = parse_position("00000/00000/00000/0A0000/0A000B0B 1 aeolus,apollo -")
    assert "a2>b3^c4@ne" in next_steps(p, "a2>b3^c4")
    assert step_kinds(p, "a2>b3^c4") == ["@ wind", "Enter plays"]


def test_the_completion_offers_more_builds_to_morpheus_and_reads_zero_builds():
    p = parse_position("00000/00000/00000/0A0000/0A000B0B 1 morpheus[2],apollo -")
    assert "a2>b3^c4^c4" in next_steps(p, "a2>b3^c4")
    assert is_complete(p, "a2>b3") == "a2>b3"


def test_the_completion_offers_the_song_and_the_corners():
    siren = parse_position("00000/00000/000B00/0000B0/0A000A0 1 siren[n],apollo -")
    assert next_steps(siren, "S") == ["Sc3", "Sd2"]
    assert is_complete(siren, "sc3^a2") == "Sc3^a2"
    odysseus = parse_position("00000/00000/0002B0/0A000A0/0B0000 1 odysseus,apollo -")
    assert "Od3e5" in next_steps(odysseus, "")
    assert step_kinds(odysseus, "")[0] == "O force to a corner"


def test_a_plus_says_whose_worker_it_puts_on_the_board():
    # b2 is on level 3: building there makes a dome, and Gaea may put a worker next to it.
    board = "0B0000B/00000/000A00/03000/0A0000 1"
    for gods in ("gaea,apollo", "apollo,gaea"):
        p = parse_position(f"{board} {gods} -")
        assert "a1>a2^b2+a1" in next_steps(p, "a1>a2^b2")
        assert step_kinds(p, "a1>a2^b2") == ["+ Gaea's worker next to the dome", "Enter plays"]
    hydra = parse_position(f"{board} hydra,apollo -")
    assert step_kinds(hydra, "a1>a2^b2") == ["+ gain a worker"]
    # Against Gaea, a + after Hydra's dome may be either power's: both are said.
    both = parse_position(f"{board} hydra,gaea -")
    assert step_kinds(both, "a1>a2^b2") == ["+ gain a worker or Gaea's worker next to the dome"]


def test_the_completion_menu_names_each_step_in_its_gods_words():
    p = parse_position("0B0000B/00000/000A00/03000/0A0000 1 apollo,gaea -")
    menu = {
        c.text: c.display_meta_text
        for c in ActionCompleter(lambda: p).get_completions(Document("a1>a2^b2"), CompleteEvent())
    }
    assert menu["a1>a2^b2+c2"] == "Gaea's worker next to the dome"
    selene = parse_position("0B0000B/00000/000A00/02000/0A0000 1 selene[a1],apollo -")
    assert step_kinds(selene, "a1>a2^b2") == [
        "D the female worker's dome, any level",
        "Enter plays",
    ]
    assert step_kind("a1>a2^b2D") == "dome"
