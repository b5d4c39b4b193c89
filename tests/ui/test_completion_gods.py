"""Completing the advanced gods' turns step by step: every legal turn, and nothing else."""

from __future__ import annotations

import random
from itertools import permutations

import pytest
from prompt_toolkit.completion import CompleteEvent
from prompt_toolkit.document import Document

from santorini_p2p.engine import (
    ADVANCED,
    Phase,
    apply,
    apply_action,
    legal_actions,
    legal_form,
    legal_turns,
    new_game,
    parse_action,
)
from santorini_p2p.ui.completer import (
    ActionCompleter,
    is_complete,
    marks_for,
    next_steps,
    squares_in,
    step_kind,
    step_kinds,
    step_starts,
)
from santorini_p2p.ui.validator import check_input
from tests.positions import make

ADVANCED_NAMES = [g.name for g in ADVANCED]
OTHER_FORMS = ["hermes", "prometheus", "demeter", "atlas", "artemis"]
PARTNERS = ["apollo", "minotaur", "pan", "athena", "hermes", "artemis"]
TURN_CAP = 500
READ_CHECKS = 15
ORDER_SAMPLE = 8


def positions(god: str, seed: int, count: int):
    """Positions from random games where ``god`` (seat 1) is to move, of bounded size."""
    rng = random.Random(f"{god}-{seed}")
    found = []
    tries = 0
    while len(found) < count and tries < 60:
        tries += 1
        other = rng.choice([g for g in PARTNERS if g != god])
        p = new_game(2, "random", drawn=(god, other))
        while p.phase is Phase.PLACE:
            p = apply_action(p, rng.choice(legal_actions(p)))
        for _ in range(rng.randrange(0, 14)):
            if p.phase is not Phase.PLAY:
                break
            p = apply(p, rng.choice(legal_turns(p)))
        if p.phase is not Phase.PLAY or p.to_move != 0:
            continue
        if len(legal_turns(p)) <= TURN_CAP:
            found.append(p)
    return found


def walk(p):
    """Follow every offered step from the empty input; return the canonical texts reached."""
    reached = {}
    other_spellings = []
    frontier = [""]
    seen = set()
    while frontier:
        typed = frontier.pop()
        steps = next_steps(p, typed)
        # what the board highlights is exactly where the offered steps go
        targets = {squares_in(s[len(typed) :])[-1] for s in steps if squares_in(s[len(typed) :])}
        assert marks_for(p, typed).targets == targets, typed
        for step in steps:
            assert step.lower().startswith(typed.lower())
            assert len(step_starts(step)) == len(step_starts(typed)) + (1 if typed else 0), step
            assert step not in seen, step
            seen.add(step)
            assert check_input(p, step) is None, step
            canonical = is_complete(p, step)
            if canonical is not None:
                # the engine reads what was completed as that very turn (another spelling is
                # checked against the engine's reading, a bounded sample of them)
                if step != canonical and len(other_spellings) < READ_CHECKS:
                    other_spellings.append(step)
                    assert str(legal_form(p, parse_action(step))) == canonical, step
                reached.setdefault(canonical, step)
            else:
                assert next_steps(p, step), f"{step} leads nowhere"
            frontier.append(step)
    return reached


@pytest.mark.parametrize("god", ADVANCED_NAMES + OTHER_FORMS)
def test_completing_step_by_step_reaches_exactly_the_legal_turns(god):
    checked = 0
    # Poseidon has thousands of turns a position: two of its positions are enough.
    for p in positions(god, 1, 2 if god == "poseidon" else 3):
        reached = walk(p)
        assert set(reached) == {str(t) for t in legal_turns(p)}, god
        checked += 1
    assert checked >= 2


@pytest.mark.parametrize("god", ["poseidon", "hestia"])
def test_builds_go_in_any_order_the_engine_reads(god):
    """Every order of a turn's builds that the engine reads as that turn completes to it."""
    orders = 0
    for p in positions(god, 2, 3):
        legal = {str(t) for t in legal_turns(p)}
        several = [t for t in legal_turns(p) if len(t.builds) >= 2]
        for t in random.Random(str(p)).sample(several, min(len(several), ORDER_SAMPLE)):
            for builds in set(permutations(t.builds)):
                other = str(t._replace(builds=builds))
                if other in legal:
                    continue
                read = legal_form(p, parse_action(other))
                if read is None or str(read) != str(t):
                    assert is_complete(p, other) is None, other
                    continue
                assert is_complete(p, other) == str(t), other
                # and it is offered one step at a time
                starts = step_starts(other)
                for before, after in zip(starts, [*starts[1:], len(other)], strict=True):
                    assert other[:after] in next_steps(p, other[:before]), other
                orders += 1
    assert orders > 0


def test_hints_name_each_kind_of_step():
    charon = make("c3=A d3=B a1=A e5=B", gods="charon,-")
    assert step_kind("c3~d3") == "ferry"
    assert "~ ferry" in step_kinds(charon, "c3")
    assert "> move" in step_kinds(charon, "c3")
    assert step_kind("b2>c3^d4-e5") == "remove a block"
    assert step_kind("b2>c3^c3") == "build under itself"
    assert step_kind("b2^c2") == "build first"
    assert step_kind("b2>c3^d4^d3") == "build again"
    assert step_kind("b2>a1>a2") == "move"
    assert step_kind("Ha1") == "both workers"
    assert step_kind("b2>c3^d4D") == "dome"
    menu = {
        c.text: c.display_meta_text
        for c in ActionCompleter(lambda: charon).get_completions(Document("c3"), CompleteEvent())
    }
    assert menu["c3~d3"] == "ferry"
    assert menu["c3>c2"] == "move"


def test_a_bad_ferry_or_removal_is_named_with_what_can_come_there():
    charon = make("c3=A d3=B a1=A e5=B", gods="charon,-")
    problem = check_input(charon, "c3~e5")
    assert problem is not None
    assert problem.message == "no worker to ferry on 'e5'; it can ferry: d3"
    ares = make("a1=A d5=1 e5=A c3=B c1=B", gods="ares,-")
    problem = check_input(ares, "a1>a2^a3-e4")
    assert problem is not None
    assert problem.index == 9
    assert problem.message == "no block to remove on 'e4'; it can remove one on: d5"


def test_a_challenger_offering_from_all_25_gods_may_name_them_in_any_order():
    from santorini_p2p.engine import ADVANCED, SIMPLE

    twenty_five = tuple(g.name for g in SIMPLE + ADVANCED)
    p = new_game(4, "challenger", offer=twenty_five)
    offers = [a for a in legal_actions(p)]
    assert len(offers) == 12650
    first = next_steps(p, "gods ")
    assert [s.removeprefix("gods ") for s in first] == list(twenty_five)
    assert next_steps(p, "gods zeus,a")[:2] == ["gods zeus,apollo", "gods zeus,artemis"]
    assert "gods zeus,zeus" not in next_steps(p, "gods zeus,")
    assert is_complete(p, "gods zeus,pan,apollo,ares") == "gods apollo,pan,ares,zeus"
    assert str(legal_form(p, parse_action("gods zeus,pan,apollo,ares"))) == (
        "gods apollo,pan,ares,zeus"
    )
    assert check_input(p, "gods zeus,pan,zeus") is not None
    assert is_complete(p, "gods zeus,pan,apollo") is None
