"""RULES.md section 7 and protocol/SPEC.md sections 1-2: turn text and position strings."""

from __future__ import annotations

import pytest

from santorini_p2p.engine import OPENING, format_position, parse_position, parse_turn
from santorini_p2p.errors import InvalidPositionError, InvalidTurnError
from tests.positions import make, texts

# Every case of the RULES.md section 7 table, each in a position where it is legal.
TABLE = [
    ("b2>c3^d4", "b2=A a1=A e5=B e1=B", "-,-"),
    ("b2>c3", "b2=2A c3=3 a1=A e5=B e1=B", "-,-"),
    ("b2>c3^d4", "b2=A c3=B a1=A e5=B", "apollo,-"),
    ("b2>c3^c4", "b2=A c3=B a1=A e5=B", "minotaur,-"),  # d4 holds the pushed worker
    ("b2>c3^d4D", "b2=A a1=A e5=B e1=B", "atlas,-"),
    ("b2>c3>d4^e5", "b2=A a1=A e4=B e1=B", "artemis,-"),
    ("b2>c3", "b2=2A c3=3 a1=A e5=B e1=B", "artemis,-"),
    ("b2>c3>d4", "b2=1A c3=2 d4=3 a1=A e5=B e1=B", "artemis,-"),
    ("b2>c3^b3^d4", "b2=A a1=A e5=B e1=B", "demeter,-"),
    ("b2>c3^d4^d4", "b2=A a1=A e5=B e1=B", "hephaestus,-"),
    ("b2^c2>b3^c2", "b2=A a1=A e5=B e1=B", "prometheus,-"),
    ("Ha1,c2^b2", "b2=A a1=A e5=B e1=B", "hermes,-"),
]


@pytest.mark.parametrize(("text", "cells", "gods"), TABLE)
def test_s7_turn_text_table(text, cells, gods):
    assert text in texts(make(cells, gods=gods))
    assert str(parse_turn(text)) == text


def test_s7_turn_text_round_trips_for_every_legal_turn_with_every_god():
    for gods in (
        "-,-",
        "apollo,-",
        "artemis,-",
        "atlas,-",
        "demeter,-",
        "hephaestus,-",
        "hermes,-",
        "minotaur,-",
        "pan,-",
        "prometheus,-",
    ):
        p = make("b2=1A c3=2 d4=3 c2=B a1=A e5=B", gods=gods)
        for t in texts(p):
            assert str(parse_turn(t)) == t
            assert str(parse_turn(t.upper())) == t


def test_s7_each_legal_turn_has_exactly_one_text():
    p = make("b2=1A c3=2 d4=3 c2=B a1=A e5=B", gods="demeter,-")
    from santorini_p2p.engine import legal_turns

    turns = legal_turns(p)
    assert len({str(t) for t in turns}) == len(turns) == len(set(turns))


def test_s7_opening_position_string():
    p = parse_position(OPENING)
    assert format_position(p) == OPENING
    assert p.players == 2
    assert p.to_move == 0
    assert p.gods == ("", "")


def test_s7_position_input_is_case_insensitive():
    p = parse_position("00000/00b00a0/00000/00a00b0/00000 1 APOLLO,- -")
    assert format_position(p) == "00000/00B00A0/00000/00A00B0/00000 1 apollo,- -"


@pytest.mark.parametrize(
    ("text", "column", "message"),
    [
        ("b2>c3^", 7, "expected a square"),
        ("b2>c6^d4", 5, "rank 1-5"),
        ("f2>c3^d4", 1, "file a-e"),
        ("b2c3^d4", 3, "'>'"),
        ("b2>c3" + "^d4" * 41, 126, "at most 40 builds"),
        ("a1" + ">a2>a1" * 13, 2 + 3 * 25 + 1, "no more moves"),
        ("b2>c3^d4Dx", 10, "end of turn"),
        ("Ha1c2^b2", 4, "','"),
        ("", 1, "a turn"),
        ("b2^c2^c3", 6, "'>'"),
    ],
)
def test_s7_turn_errors_name_the_column_and_what_was_expected(text, column, message):
    with pytest.raises(InvalidTurnError) as info:
        parse_turn(text)
    assert info.value.column == column
    assert message in str(info.value)


@pytest.mark.parametrize(
    ("text", "column", "message"),
    [
        ("00000/00B00A0/00000/00A00B0/0000 1 -,- -", 33, "level digit"),
        ("00000/00B00A0/00000/00A00B0/00000 5 -,- -", 35, "seat"),
        ("00000/00B00A0/00000/00A00B0/00000 1 odin,- -", 37, "unknown god 'odin'"),
        ("00000/00B00A0/00000/00A00B0/00000 1 -,- q", 41, "unknown flag"),
        ("00000/00B00A0/00000/00A00B0/00000 1 -,- a", 41, "athena"),
        ("00000/00B00A0/00000/00A00C0/00000 1 -,- -", 26, "worker letter"),
        ("0A0A000/00B00A0/00000/00A00B0/00000 1 -,- -", 1, "4 workers"),
        ("0AX0000/00B00A0/00000/00A00B0/00000 1 -,- -", 3, "level digit"),
        ("00000/00B00A0/00000/00A00B0/00000 1 pan,pan -", 37, "once"),
        ("00000/00B00A0/00000/00A00B0/00000  1 -,- -", 0, "4 fields"),
        ("00000/00B00A0/00000/00A00B0/00000 1 -,- x2", 41, "3-player"),
    ],
)
def test_position_errors_name_the_field_column_and_problem(text, column, message):
    with pytest.raises(InvalidPositionError) as info:
        parse_position(text)
    assert info.value.column == column
    assert message in str(info.value)


def test_position_rejects_a_worker_on_a_dome_and_two_on_one_square():
    with pytest.raises(InvalidPositionError):
        parse_position("0XA0000/00B00A0/00000/00A00B0/00000 1 -,- -")
    with pytest.raises(InvalidPositionError):
        parse_position("0AB0000/00B00A0/00000/00A00B0/00000 1 -,- -")


def test_position_flags_round_trip():
    for text in (
        "00000/000C00/00000/000A00/0C00A00 1 -,-,- x2",
        "00000/00000B/002A00/003A00/00B000 2 -,- w1",
        "00000/00000/00000/00000/00000 1 ?,?,? d[apollo.atlas.hermes.minotaur.pan]",
        "00000/00B00A0/00000/00A00B0/00000 2 athena,- a",
        "00000/00000/00000/00000/00000 1 -,- s",
    ):
        assert format_position(parse_position(text)) == text


def test_no_god_writes_a_flag_letter_the_position_string_uses_for_itself():
    from santorini_p2p.engine.gods import GODS

    # SPEC.md 1.4: c, d, n, o, s, w and x are the setup and game flags.
    assert not [g.name for g in GODS if g.flag and g.flag in "cdnoswx"]
