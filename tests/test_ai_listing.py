"""A listing of the root's turns stopped early (the clock ran out): still a legal answer, no proof.

Polyphemus's domes answered by Gaea's workers give hundreds of thousands of turns; the
computer lists them only for part of its time and chooses among those listed. The stops and
listings here are fakes (no timing): what is checked is the answer's legality and that no
forced result is claimed from a list that is not whole.
"""

import random

import pytest

import santorini_p2p.ai.search as search
from santorini_p2p.ai import LEVELS, analyse, choose_action
from santorini_p2p.engine import (
    Listing,
    Turn,
    generate_turns,
    list_turns,
    parse_position,
)
from santorini_p2p.engine.legality import turn_is_legal
from santorini_p2p.engine.rules import STOP_EVERY
from tests.positions import make

# 16,042 turns: Polyphemus's domes, each answered or not by Gaea's workers.
DOMES = make(
    "a5=0B e5=0B c3=0A a1=0A a4=0X b4=0X c4=0X d4=0X e4=0X e1=0X e2=0X b1=0X d2=0X",
    gods="polyphemus,gaea",
    seat=1,
)
# Seat 1 loses in one turn whatever it plays (tests/test_ai_mate.py proves it by brute force).
LOST_IN_ONE = parse_position("12X2A2X2/1X0X1X2A2/221X2B0X/2B1X113/1313X0 1 -,- -")


def _stop_after(asks: int):
    """A stop that answers True from its ``asks``-th question on; counts the questions."""
    asked = [0]

    def stop() -> bool:
        asked[0] += 1
        return asked[0] >= asks

    return stop, asked


def test_a_listing_never_stopped_is_the_whole_list_in_its_order():
    stop, asked = _stop_after(10**9)
    listing = list_turns(DOMES, stop)
    assert listing == Listing(generate_turns(DOMES), True, True)
    assert 0 < asked[0] <= len(listing.turns) // STOP_EVERY + 3


def test_a_stopped_listing_holds_only_turns_of_the_whole_list():
    whole = generate_turns(DOMES)
    stop, asked = _stop_after(2)
    listing = list_turns(DOMES, stop)
    assert not listing.complete
    # No power that narrows the turns is in play: each turn listed is legal as it stands.
    assert listing.checked
    assert asked[0] == 2
    assert 0 < len(listing.turns) < len(whole)
    assert len(set(listing.turns)) == len(listing.turns)
    assert set(listing.turns) <= set(whole)


def test_a_stopped_listing_with_a_narrowing_power_asks_for_a_check():
    p = make("a5=0B e5=0B c3=0A a1=0A", gods="polyphemus,adonis", seat=1)
    stop, _ = _stop_after(1)
    listing = list_turns(p, stop)
    assert not listing.complete
    assert not listing.checked


@pytest.mark.parametrize("level", [lv for lv in LEVELS if lv != "random"])
def test_every_level_answers_a_legal_turn_from_a_stopped_listing(monkeypatch, level):
    seen: list[Listing] = []
    real = search.list_turns

    def listing(p, stop):
        # The clock is read as the engine asks: the fake clock passes the listing's share of
        # the budget after two questions.
        found = real(p, stop)
        seen.append(found)
        return found

    now = [0.0]

    def clock() -> float:
        now[0] += 0.05
        return now[0]

    monkeypatch.setattr(search, "list_turns", listing)
    t = choose_action(DOMES, level, rng=random.Random(2), think=0.3, clock=clock)
    assert seen
    assert not seen[0].complete
    assert turn_is_legal(DOMES, t)


def _illegal_win(p) -> Turn:
    """A turn that looks like a win by moving (no build) but is not legal in ``p``."""
    t = generate_turns(p)[0]
    bad = Turn(t.worker, t.path)
    assert bad.is_win
    assert not turn_is_legal(p, bad)
    return bad


@pytest.mark.parametrize("level", [lv for lv in LEVELS if lv != "random"])
@pytest.mark.parametrize("others", [0, 3])
def test_a_turn_that_a_narrowing_power_rules_out_is_never_played(monkeypatch, level, others):
    # A stopped listing whose turns a narrowing power did not judge: its best-looking turn (a
    # "win") is not legal; the answer is the next legal one, or any legal turn.
    bad = _illegal_win(DOMES)
    rest = generate_turns(DOMES)[:others]
    monkeypatch.setattr(search, "list_turns", lambda p, stop: Listing([bad, *rest], False, False))
    t = choose_action(DOMES, level, rng=random.Random(0), think=0.2)
    assert turn_is_legal(DOMES, t)
    a = analyse(DOMES, level, think=0.2)
    assert turn_is_legal(DOMES, a.best)


def test_a_whole_listing_proves_the_loss():
    a = analyse(LOST_IN_ONE, "hard", think=0.5)
    assert a.mate is not None
    assert a.mate < 0
    assert a.forced == -1


def test_a_stopped_listing_claims_no_proof(monkeypatch):
    whole = generate_turns(LOST_IN_ONE)
    assert len(whole) > 2
    monkeypatch.setattr(search, "list_turns", lambda p, stop: Listing(whole[:2], False, True))
    for level in ("easy", "medium", "hard"):
        a = analyse(LOST_IN_ONE, level, think=0.5)
        assert a.best in whole[:2]
        assert a.mate is None, level
        assert a.forced is None, level
