"""The engine's vectors in protocol/vectors: perft, state hash, notation, playthroughs, and the
public sample of complete turn lists (tests/data/sample-moves.jsonl)."""

from __future__ import annotations

import json
import random
from pathlib import Path

import jsonschema
import pytest

from santorini_p2p.engine import (
    OPENING,
    apply_action,
    divide,
    format_position,
    legal_actions,
    legal_turns,
    parse_action,
    parse_position,
    parse_turn,
    perft,
    state_bytes,
    state_hash,
)
from santorini_p2p.engine.perft import _perft
from santorini_p2p.engine.position import Position
from santorini_p2p.engine.rules import apply_unchecked, generate_turns
from santorini_p2p.engine.squares import levels
from santorini_p2p.errors import InvalidPositionError, InvalidTurnError

ROOT = Path(__file__).resolve().parent.parent
VECTORS = ROOT / "protocol" / "vectors"
SCHEMAS = ROOT / "protocol" / "schemas"
NODE_CAP = 500_000  # larger counts run in benchmarks/engine.py


def _perft_entries():
    entries, current = [], None
    for line in (VECTORS / "perft.txt").read_text().splitlines():
        if line.startswith("id "):
            current = line[3:]
        elif line.startswith("epd "):
            epd = line[4:]
        elif line.startswith("perft "):
            _, d, n = line.split()
            entries.append((current, epd, int(d), int(n)))
    return entries


PERFT = _perft_entries()


def test_perft_vectors_are_present():
    assert len(PERFT) >= 20
    assert {e[0] for e in PERFT} >= {"opening", "three-players", "four-players", "hermes-pan"}


def test_s7_perft_of_the_opening_matches_rules_md():
    p = parse_position(OPENING)
    assert [perft(p, d) for d in (1, 2, 3)] == [80, 6176, 426384]
    # Depth 4 (29,096,316) is in protocol/vectors/perft.txt and benchmarks/engine.py.
    assert ("opening", OPENING, 4, 29096316) in PERFT


@pytest.mark.parametrize(
    ("ident", "epd", "depth", "nodes"),
    [e for e in PERFT if e[3] <= NODE_CAP],
    ids=[f"{e[0]}-{e[2]}" for e in PERFT if e[3] <= NODE_CAP],
)
def test_perft_vector(ident, epd, depth, nodes):
    p = parse_position(epd)
    got = perft(p, depth)
    if got != nodes:
        lines = [f"{t} {n}" for t, n in divide(p, depth)]
        pytest.fail(f"{ident}: perft {depth} = {got}, expected {nodes}\n" + "\n".join(lines))


def _generic_perft(p, depth):
    turns = generate_turns(p)
    if depth == 1:
        return len(turns)
    total = 0
    for t in turns:
        if not t.is_win:
            child = apply_unchecked(p, t)
            if child.winner < 0:
                total += _generic_perft(child, depth - 1)
    return total


@pytest.mark.parametrize("ident", ["opening", "base-midgame", "base-late"])
def test_base_game_fast_counter_agrees_with_the_general_generator(ident):
    epd = next(e[1] for e in PERFT if e[0] == ident)
    p = parse_position(epd)
    assert _perft(p, 2) == _generic_perft(p, 2)


def test_divide_sums_to_perft():
    p = parse_position(OPENING)
    parts = divide(p, 2)
    assert [str(t) for t, _ in parts] == [str(t) for t in legal_turns(p)]
    assert sum(n for _, n in parts) == 6176


def _load(name):
    doc = json.loads((VECTORS / name).read_text())
    schema = json.loads((SCHEMAS / doc["schema"]).read_text())
    jsonschema.validate(doc, schema)
    assert doc["tests"], f"{name} has no cases"
    return doc["tests"]


def test_state_hash_vectors():
    cases = _load("state-hash.json")
    assert len(cases) >= 10
    for case in cases:
        p = parse_position(case["position"])
        assert state_bytes(p).hex() == case["state_bytes"], case["id"]
        assert state_hash(p).hex() == case["state_hash"], case["id"]


def test_state_hash_of_the_opening_worked_by_hand_in_spec():
    # protocol/SPEC.md section 3 lists these bytes field by field.
    expected = bytes.fromhex(
        "534e54530102000000ff0000000000000000000008001000000000000000100008000000000000"
    )
    assert state_bytes(parse_position(OPENING)) == expected


def test_state_bytes_write_every_square_as_the_spec_says():
    # SPEC.md 3: one byte a square, square 0 first: level, dome << 2, (side + 1) << 3.
    rng = random.Random(7)
    full = (1 << 25) - 1
    for players in (2, 3):
        for _ in range(300):
            g1 = rng.getrandbits(25)
            g2 = g1 & rng.getrandbits(25)
            g3 = g2 & rng.getrandbits(25)
            domes = rng.getrandbits(25)
            free = full & ~domes
            workers = []
            for _ in range(players):
                w = rng.getrandbits(25) & free
                free &= ~w
                workers.append(w)
            p = Position(g1, g2, g3, domes, tuple(workers), gods=("",) * players)
            cells = state_bytes(p)[-25:]
            for s in range(25):
                side = next((i + 1 for i, w in enumerate(workers) if w >> s & 1), 0)
                want = p.level(s) | (domes >> s & 1) << 2 | side << 3
                assert cells[s] == want, (s, p)


def test_levels_read_every_square():
    rng = random.Random(8)
    for _ in range(500):
        g1 = rng.getrandbits(25)
        g2 = g1 & rng.getrandbits(25)
        g3 = g2 & rng.getrandbits(25)
        want = [(g1 >> s & 1) + (g2 >> s & 1) + (g3 >> s & 1) for s in range(25)]
        assert levels(g1, g2, g3) == want


def test_state_hash_ignores_athenas_flag_when_she_is_to_move():
    cases = {c["id"]: c for c in _load("state-hash.json")}
    assert (
        cases["athena-to-move-flag-ignored"]["state_hash"]
        == cases["athena-to-move-no-flag"]["state_hash"]
    )
    assert (
        cases["gods-athena-flag"]["state_hash"]
        != cases["athena-to-move-flag-ignored"]["state_hash"]
    )


def test_notation_vectors():
    cases = _load("notation.json")
    assert any(c["result"] == "invalid" for c in cases)
    assert any(c["kind"] == "turn" for c in cases)
    for case in cases:
        if case["kind"] == "turn":
            if case["result"] == "valid":
                assert str(parse_turn(case["input"])) == case["canonical"], case["id"]
            else:
                with pytest.raises(InvalidTurnError) as info:
                    parse_turn(case["input"])
                assert info.value.column == case["column"], case["id"]
        elif case["result"] == "valid":
            assert format_position(parse_position(case["input"])) == case["canonical"]
        else:
            with pytest.raises(InvalidPositionError) as info:
                parse_position(case["input"])
            assert info.value.column == case["column"], case["id"]


PLAYTHROUGHS = sorted((VECTORS / "playthroughs").glob("*.txt"))


def test_playthroughs_are_present():
    assert len(PLAYTHROUGHS) >= 5


@pytest.mark.parametrize("path", PLAYTHROUGHS, ids=[p.stem for p in PLAYTHROUGHS])
def test_playthrough(path):
    lines = [ln for ln in path.read_text().splitlines() if ln and not ln.startswith("#")]
    first = lines[0].split(" ", 1)[1]
    p = parse_position(first)
    steps = 0
    for line in lines:
        key, value = line.split(" ", 1)
        if key in ("position", "final"):
            assert format_position(p) == value, f"{path.name} step {steps}"
        elif key == "hash":
            assert state_hash(p).hex() == value, f"{path.name} step {steps}"
        elif key == "legal":
            assert len(legal_actions(p)) == int(value), f"{path.name} step {steps}"
        elif key == "action":
            p = apply_action(p, parse_action(value))
            steps += 1
    assert steps > 5


SAMPLE = [
    json.loads(line)
    for line in (Path(__file__).parent / "data" / "sample-moves.jsonl").read_text().splitlines()
]


@pytest.mark.parametrize("case", SAMPLE, ids=[c["id"] for c in SAMPLE])
def test_sample_complete_turn_lists(case):
    texts = [str(t) for t in legal_turns(parse_position(case["position"]))]
    assert texts == case["turns"]
    assert len(texts) == case["count"]
