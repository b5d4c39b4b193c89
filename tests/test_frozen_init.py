"""The quicker __init__ of frozen values: the same fields, defaults and refusals as before."""

from __future__ import annotations

import dataclasses
import inspect

import pytest

from santorini_p2p.engine.frozen import quick_init
from santorini_p2p.wire import messages


def test_values_are_set_by_position_and_keyword_with_defaults() -> None:
    cls = quick_init(
        dataclasses.make_dataclass("P", [("a", int), ("b", str, "x")], frozen=True, slots=True)
    )
    assert cls(1).b == "x"
    assert cls(1, "y") == cls(a=1, b="y")
    assert cls(b="z", a=2).a == 2
    with pytest.raises(TypeError):
        cls()
    with pytest.raises(TypeError):
        cls(1, "y", 3)
    with pytest.raises(dataclasses.FrozenInstanceError):
        cls(1).a = 2


def test_classes_it_cannot_build_are_refused() -> None:
    @dataclasses.dataclass(frozen=True, slots=True)
    class Later:
        a: int

        def __post_init__(self) -> None:
            pass

    @dataclasses.dataclass(slots=True)
    class Open:
        a: int

    @dataclasses.dataclass(frozen=True, slots=True)
    class Listed:
        a: list[int] = dataclasses.field(default_factory=list)

    for cls in (Later, Open, Listed, int):
        with pytest.raises(TypeError):
            quick_init(cls)


MESSAGE_TYPES = [
    c
    for c in vars(messages).values()
    if isinstance(c, type) and dataclasses.is_dataclass(c) and c.__module__ == messages.__name__
]


@pytest.mark.parametrize("cls", MESSAGE_TYPES, ids=lambda c: c.__name__)
def test_every_record_type_keeps_its_signature_and_sets_each_field(cls: type) -> None:
    fields = dataclasses.fields(cls)
    params = list(inspect.signature(cls).parameters.values())
    assert [p.name for p in params] == [f.name for f in fields]
    for p, f in zip(params, fields, strict=True):
        want = inspect.Parameter.empty if f.default is dataclasses.MISSING else f.default
        assert p.default == want, f.name
    values = [object() for _ in fields]  # a distinct marker for each field
    v = cls(*values)
    for f, x in zip(fields, values, strict=True):
        assert getattr(v, f.name) is x, f.name
    assert v == cls(**{f.name: x for f, x in zip(fields, values, strict=True)})
    with pytest.raises(dataclasses.FrozenInstanceError):
        setattr(v, fields[0].name, 1)
