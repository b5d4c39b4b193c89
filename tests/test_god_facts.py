"""God facts the screen and the computer read live on the gods themselves, not in name lists."""

from __future__ import annotations

import re
from dataclasses import replace
from pathlib import Path

import pytest

from santorini_p2p.ai.opening import GOD_RANKING
from santorini_p2p.engine import GODS, find_god, new_game
from santorini_p2p.engine.gods import ALL_GOD_NAMES, SIMPLE
from santorini_p2p.ui.app import help_text

PACKAGE = Path(__file__).resolve().parent.parent / "santorini_p2p"


@pytest.mark.parametrize("path", ["ui/app.py", "ai/mate.py", "ai/opening.py"])
def test_the_screen_and_the_computer_name_no_god(path):
    text = (PACKAGE / path).read_text(encoding="utf-8")
    words = set(re.findall(r"[a-z]+", text.lower()))
    assert words.isdisjoint(ALL_GOD_NAMES), sorted(words & set(ALL_GOD_NAMES))


def test_the_ranking_is_each_gods_rank_the_simple_gods_first():
    assert (
        tuple(
            g.name
            for g in sorted((g for g in GODS if g.rank is not None), key=lambda g: g.rank or 0)
        )
        == GOD_RANKING
    )
    assert len({g.rank for g in GODS if g.rank is not None}) == len(GOD_RANKING)  # no ties
    assert set(GOD_RANKING[: len(SIMPLE)]) == {g.name for g in SIMPLE}
    assert GOD_RANKING[:3] == ("artemis", "minotaur", "pan")  # the strong movers first


def test_a_god_with_its_own_way_of_typing_a_turn_shows_it_in_the_help():
    p = new_game(2)
    shown = [g for g in GODS if g.example]
    assert {"hermes", "charon", "triton", "atlas"} <= {g.name for g in shown}
    for god in shown:
        game = replace(p, pool=(god.name,))
        text = help_text(game, width=74)
        first = god.example.split("\n")[0]
        assert f"type: {first.split(' ')[0]}" in text, (god.name, text)


def test_the_mate_search_reads_how_high_a_worker_wins_from_the_god():
    assert find_god("artemis").win_from == 1
    assert all(g.win_from == 2 for g in SIMPLE if g.name != "artemis")
    assert [g.name for g in SIMPLE if g.moves_both] == ["hermes"]
    assert sorted(g.name for g in SIMPLE if g.forces) == ["apollo", "minotaur"]
