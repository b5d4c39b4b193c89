"""What a seat is asked in another seat's turn comes from that turn's own list, not every turn.

``choice_options`` and ``turns_after`` (engine/choices.py, protocol/SPEC.md 8.4) answer the
peers, the replay checker and the computer while Gaea may put a worker next to each dome: they
must give what the list of every legal turn gives, without making that list (half a million
turns where Polyphemus domes twice).
"""

from __future__ import annotations

import random
from collections.abc import Callable, Sequence

import pytest

from santorini_p2p.engine import (
    ALL_GOD_NAMES,
    Position,
    Turn,
    ban_reason,
    find_turn,
    format_position,
    legal_turns,
    new_game,
    parse_position,
    rules,
)
from santorini_p2p.engine import choices as asked_choices
from santorini_p2p.engine.choices import Choice, choice_options, choices, turns_after
from santorini_p2p.engine.gods import power_of
from tests.positions import random_play

_Listed = list[tuple[Turn, tuple[Choice, ...]]]


def _options_from(listed: _Listed, answered: Sequence[Choice], asked: str) -> tuple[int, list[str]]:
    """``choice_options`` read off the list of every legal turn with its choices."""
    k = len(answered)
    seat, found = -1, set()
    for _, cs in listed:
        if len(cs) > k and cs[:k] == tuple(answered) and cs[k].asked == asked:
            seat = cs[k].seat
            found.add(cs[k].answer)
    return seat, sorted(found, key=lambda a: (a != "-", a))


def _game(rng: random.Random, god: str) -> Position:
    """A new game of Gaea, ``god`` and (one game in four, where both allow it) a third god."""
    for _ in range(100):
        players = 3 if rng.random() < 0.25 and 3 in power_of(god).players else 2
        third = [g for g in ALL_GOD_NAMES if g not in (god, "gaea")]
        drawn = ["gaea", god, *rng.sample(third, players - 2)]
        try:
            return new_game(players, "random", drawn=tuple(rng.sample(drawn, players)))
        except ValueError:
            continue
    raise AssertionError(f"no game of gaea and {god}")


def _asked_more_than(n: int) -> Callable[[], bool]:
    """A listing's ``stop`` that ends it at its ``n + 1``-th question."""
    asked = iter(range(n))
    return lambda: next(asked, -1) < 0


def _checked(p: Position, rng: random.Random) -> int:
    """Compare every ask of a few turns with choices against the whole list; return asks."""
    listed = [(t, choices(p, t)) for t in legal_turns(p)]
    asked = 0
    with_choices = [(t, cs) for t, cs in listed if cs]
    for turn, cs in rng.sample(with_choices, min(4, len(with_choices))):
        for k, c in enumerate(cs):
            where = f"{turn} in {format_position(p)}, choice {k}"
            got = choice_options(p, cs[:k], c.asked)
            assert got == _options_from(listed, cs[:k], c.asked), where
            assert c.answer in got[1], where
            # A text no turn is written from: nobody is asked there.
            off = c.asked[:-1] + ("1" if c.asked[-1] != "1" else "2")
            assert choice_options(p, cs[:k], off) == _options_from(listed, cs[:k], off), where
            after = turns_after(p, cs[: k + 1])
            assert after == [t for t, d in listed if d[: k + 1] == cs[: k + 1]], where
            assert turn in after, where
            asked += 1
    return asked


@pytest.mark.parametrize(
    "god", ["polyphemus", "demeter", "heracles", "hydra", "hephaestus", "random"]
)
def test_each_ask_and_what_goes_on_from_it_is_what_the_whole_list_gives(god: str) -> None:
    """Random games of Gaea against gods that dome (a random other god too), 2 and 3 players."""
    rng = random.Random(f"asked {god}")
    asks = 0
    for _ in range(3):
        others = [g for g in ALL_GOD_NAMES if g != "gaea" and not ban_reason(("gaea", g))]
        other = rng.choice(others) if god == "random" else god
        p = _game(rng, other)
        # Positions of up to about 12,000 turns: the whole list is the reference here.
        for _, q, listing in random_play(p, rng, 40, lambda: _asked_more_than(3)):
            if listing.complete and asked_choices.deciders(q):
                asks += _checked(q, rng)
    assert asks >= 10


def test_an_ask_in_a_turn_of_two_domes_lists_that_turn_alone(monkeypatch) -> None:
    """Polyphemus's two domes before Gaea, 262,945 turns in all: each ask without them."""
    p = parse_position("0B00A01/10B00A0/00000/00000/00000 1 polyphemus,gaea -")
    turn = find_turn(p, "d4>c3^d4#a3#a4")
    cs = choices(p, turn)
    assert [(c.seat, c.asked) for c in cs] == [(1, "d4>c3^d4#a3"), (1, "d4>c3^d4#a3#a4")]

    def every_turn(*args: object) -> object:
        raise AssertionError("every turn of the position was listed")

    monkeypatch.setattr(rules, "_generate", every_turn)
    asked_choices._all.cache_clear()
    for k, c in enumerate(cs):
        seat, options = choice_options(p, cs[:k], c.asked)
        assert seat == 1
        assert options[0] == "-"
        assert c.answer in options
        assert len(options) > 1
        for option in options:
            made = (*cs[:k], Choice(1, c.asked, option))
            after = turns_after(p, made)
            assert after, option
            if option != "-":
                assert all(str(t).startswith(c.asked + option) for t in after)
        assert turn in turns_after(p, cs[: k + 1])
