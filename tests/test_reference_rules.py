"""Differential test: the engine's legal turns equal a plain reference generator's, on random
positions with random gods, flags and 2-4 players."""

from __future__ import annotations

import json
from dataclasses import replace
from pathlib import Path

from hypothesis import given, settings
from hypothesis import strategies as st

from santorini_p2p.engine import (
    GOD_NAMES,
    Turn,
    format_position,
    is_legal,
    legal_turns,
    parse_position,
    parse_turn,
)
from santorini_p2p.engine.squares import NEIGHBOURS, bits
from santorini_p2p.errors import NotationError
from tests.reference_rules import reference_turns


@st.composite
def positions(draw):
    """A random play-phase position string: levels, domes, two workers a side, gods, flag."""
    players = draw(st.sampled_from([2, 2, 2, 3, 4]))
    sides = 2 if players == 4 else players
    squares = draw(st.permutations(range(25)))
    workers = {sq: side for side in range(sides) for sq in squares[2 * side : 2 * side + 2]}
    cells = []
    for s in range(25):
        level = draw(st.integers(0, 3))
        if s in workers:
            cells.append(f"{level}{'ABC'[workers[s]]}")
        elif draw(st.integers(0, 9)) == 0:
            cells.append(f"{level}X")
        else:
            cells.append(str(level))
    ranks = ["".join(cells[r * 5 : r * 5 + 5]) for r in range(4, -1, -1)]
    gods = draw(st.permutations(GOD_NAMES))[:players]
    gods = [g if draw(st.integers(0, 4)) else "-" for g in gods]
    flag = "a" if "athena" in gods and draw(st.booleans()) else "-"
    seat = draw(st.integers(1, players))
    return f"{'/'.join(ranks)} {seat} {','.join(gods)} {flag}"


@settings(max_examples=400)
@given(positions())
def test_engine_agrees_with_the_reference_generator(text):
    p = parse_position(text)
    engine = [str(t) for t in legal_turns(p)]
    assert len(engine) == len(set(engine)), "duplicate turn texts"
    assert set(engine) == reference_turns(format_position(p)), text


def test_reference_generator_agrees_with_the_public_sample():
    sample = Path(__file__).parent / "data" / "sample-moves.jsonl"
    for line in sample.read_text().splitlines():
        case = json.loads(line)
        assert reference_turns(case["position"]) == set(case["turns"]), case["id"]


@settings(max_examples=150)
@given(positions(), st.data())
def test_is_legal_agrees_with_the_full_list(text, data):
    p = parse_position(text)
    full = set(legal_turns(p))
    for t in full:
        assert is_legal(p, t), str(t)
    # Near misses: legal turns with one square changed, and turns of other positions.
    names = [chr(97 + f) + str(r) for f in range(5) for r in range(1, 6)]
    for t in data.draw(
        st.lists(st.sampled_from(sorted(full, key=str)), max_size=5) if full else st.just([])
    ):
        text_t = str(t)
        i = data.draw(st.integers(0, len(text_t) - 2))
        if text_t[i] in "abcde" and text_t[i + 1] in "12345":
            other = text_t[:i] + data.draw(st.sampled_from(names)) + text_t[i + 2 :]
            try:
                cand = parse_turn(other)
            except NotationError:
                continue
            assert is_legal(p, cand) == (cand in full), other


@settings(max_examples=60)
@given(positions(), st.data())
def test_every_hermes_power_turn_text_is_checked_like_the_full_list(text, data):
    # Hermes' power turns are checked directly, not by listing: try every H-form text.
    p = parse_position(text)
    gods = ["" if g == "hermes" else g for g in p.gods]
    gods[p.to_move] = "hermes"
    state = _athena_state(p.power_state, gods)
    p = parse_position(format_position(replace(p, gods=tuple(gods), power_state=state)))
    full = {t for t in legal_turns(p) if t.both}
    names = [chr(97 + f) + str(r) for f in range(5) for r in range(1, 6)]
    pairs = [(a, b) for i, a in enumerate(names) for b in names[i + 1 :]]
    for a, b in data.draw(st.lists(st.sampled_from(pairs), min_size=20, max_size=40)):
        for build in names:
            cand = parse_turn(f"H{a},{b}^{build}")
            assert is_legal(p, cand) == (cand in full), str(cand)
    for t in full:
        assert is_legal(p, t), str(t)


@settings(max_examples=20)
@given(positions(), st.sampled_from(range(25)))
def test_every_one_step_turn_is_checked_like_the_full_list(text, stranger):
    # One-step turns to a free square are decided directly, not by listing: try every such
    # turn of the workers to move (and of one other square) with every build form, with each
    # god in turn for the seat to move.
    base = parse_position(text)
    for god in GOD_NAMES:
        gods = ["" if g == god else g for g in base.gods]
        gods[base.to_move] = god
        state = _athena_state(base.power_state, gods)
        p = parse_position(format_position(replace(base, gods=tuple(gods), power_state=state)))
        full = set(legal_turns(p))
        side = p.side_of(p.to_move)
        for w in [*bits(p.workers[side]), stranger]:
            for t in [*bits(NEIGHBOURS[w]), stranger]:
                near = [*bits(NEIGHBOURS[t]), w, stranger]
                cands = [Turn(w, (t,)), Turn(w, (t,), (), -1, True)]
                for b in near:
                    cands += [Turn(w, (t,), (b,)), Turn(w, (t,), (b,), -1, True)]
                    cands += [Turn(w, (t,), (b, b2)) for b2 in near]
                    cands.append(Turn(w, (t,), (b, b), -1, True))
                cands += [Turn(w, (t,), (near[0],), pb) for pb in near]
                for cand in cands:
                    assert is_legal(p, cand) == (cand in full), f"{cand} in {p}"


@settings(max_examples=20)
@given(positions(), st.sampled_from(range(25)))
def test_every_two_step_and_build_first_turn_is_checked_like_the_full_list(text, stranger):
    # Artemis' two steps and Prometheus' build first are decided directly too: try every such
    # turn of the workers to move, with every god for the seat to move (only those two may).
    base = parse_position(text)
    for god, restricted in [(g, r) for g in GOD_NAMES for r in (False, True) if g != "athena"]:
        gods = ["" if g in (god, "athena") and restricted else g for g in base.gods]
        gods = ["" if g == god else g for g in gods]
        gods[base.to_move] = god
        state = _athena_state(base.power_state, gods)
        if restricted:
            # An opponent's Athena moved up last turn: no step of this turn may go up.
            gods[(base.to_move + 1) % len(gods)] = "athena"
            state = _athena_state(("a",), gods)
        p = parse_position(format_position(replace(base, gods=tuple(gods), power_state=state)))
        full = set(legal_turns(p))
        side = p.side_of(p.to_move)
        for w in bits(p.workers[side]):
            for t in [*bits(NEIGHBOURS[w]), stranger]:
                cands = []
                for t2 in [*bits(NEIGHBOURS[t]), w, stranger]:
                    cands.append(Turn(w, (t, t2)))
                    cands += [Turn(w, (t, t2), (b,)) for b in [*bits(NEIGHBOURS[t2]), t]]
                for pb in [*bits(NEIGHBOURS[w]), t, stranger]:
                    cands.append(Turn(w, (t,), (), pb))
                    cands += [Turn(w, (t,), (b,), pb) for b in [*bits(NEIGHBOURS[t]), pb, w]]
                for cand in cands:
                    assert is_legal(p, cand) == (cand in full), f"{cand} in {p}"


def _athena_state(state, gods):
    """Athena's flag ``a`` kept (on her seat) only if she is still among ``gods``."""
    if "a" not in "".join(state) or "athena" not in gods:
        return ()
    return tuple("a" if g == "athena" else "" for g in gods)
