"""Positions are frozen values: the constructor sets each field as given, defaults included."""

from __future__ import annotations

import copy
import dataclasses

import pytest

from santorini_p2p.engine import Position
from santorini_p2p.engine.notation import format_position, parse_position
from santorini_p2p.engine.position import Selection

VALUES = {
    "ge1": 3,
    "ge2": 2,
    "ge3": 1,
    "domes": 1 << 24,
    "workers": (1 << 7 | 1 << 9, 1 << 12 | 1 << 17),
    "to_move": 1,
    "gods": ("apollo", "pan"),
    "power_state": ("a", ""),
    "eliminated": 0,
    "winner": -1,
    "selection": Selection.DRAFT,
    "pool": ("apollo", "artemis", "pan"),
    "naming": True,
    "snake": True,
    "lost": 2,
    "offer": ("atlas",),
    "owed": 1,
}


def test_every_field_is_set_from_its_own_argument() -> None:
    names = [f.name for f in dataclasses.fields(Position)]
    assert sorted(names) == sorted(VALUES)
    by_keyword = Position(**VALUES)  # type: ignore[arg-type]
    by_position = Position(*(VALUES[n] for n in names))  # type: ignore[arg-type]
    for n in names:
        assert getattr(by_keyword, n) == VALUES[n], n
        assert getattr(by_position, n) == VALUES[n], n
    assert by_keyword == by_position
    assert hash(by_keyword) == hash(by_position)


def test_defaults_are_the_declared_ones() -> None:
    p = Position()
    for f in dataclasses.fields(Position):
        assert getattr(p, f.name) == f.default, f.name
    assert Position(ge1=5) == dataclasses.replace(Position(), ge1=5)
    with pytest.raises(TypeError):
        Position(nonsense=1)  # type: ignore[call-arg]


def test_a_position_stays_frozen_and_round_trips() -> None:
    p = parse_position("00000/00B00A0/00000/00A00B0/00000 1 -,- -")
    with pytest.raises(dataclasses.FrozenInstanceError):
        p.ge1 = 1  # type: ignore[misc]
    q = copy.deepcopy(p)
    assert q == p
    assert format_position(q) == format_position(p)
    assert dataclasses.replace(p, to_move=1) != p


def test_with_mover_is_replace_with_another_seat_to_move_every_field_kept():
    # Every field away from its default, each with its own value: a field missed or two
    # swapped would show.
    values: dict[str, object] = {}
    for i, f in enumerate(dataclasses.fields(Position), 1):
        default = getattr(Position(), f.name)
        if isinstance(default, bool):
            values[f.name] = not default
        elif isinstance(default, Selection):
            values[f.name] = next(s for s in Selection if s is not default)
        elif isinstance(default, int):
            values[f.name] = 1000 + i
        else:
            values[f.name] = (f"field{i}", f"x{i}")
    p = Position(**values)  # type: ignore[arg-type]
    for seat in (0, 1, 3):
        assert p.with_mover(seat) == dataclasses.replace(p, to_move=seat)
