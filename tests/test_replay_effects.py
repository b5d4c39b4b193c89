"""What the advanced gods' turns did, in every export; old replays export as they always did."""

from __future__ import annotations

import hashlib
import json
import re
from pathlib import Path

import jsonschema  # type: ignore[import-untyped]
import pytest

from santorini_p2p.engine import (
    EffectKind,
    Phase,
    describe_effect,
    parse_turn,
    side_letter,
    standing_effects,
    turn_effects,
)
from santorini_p2p.engine.squares import SQUARE_NAMES
from santorini_p2p.replay.export_json import export_json, format_document, to_document
from santorini_p2p.replay.export_text import COMMENT, export_text
from santorini_p2p.replay.svg import (
    BOUND_COLOUR,
    BUILD_COLOUR,
    FORCED_COLOUR,
    FROZEN_COLOUR,
    NO_BUILD_COLOUR,
    step_overlay,
    step_svg,
)
from santorini_p2p.replay.timeline import (
    Timeline,
    has_advanced_god,
    read_timeline,
    step_before,
    step_effects,
)
from santorini_p2p.replay.verify import verify_text
from tests.replays import god_game

ROOT = Path(__file__).resolve().parent.parent
VECTORS = ROOT / "protocol" / "vectors" / "replays"
OLD = json.loads((Path(__file__).parent / "data" / "old-exports.json").read_text())["exports"]

# Pairs whose seeded random games show every kind of turn effect and turn form.
PAIRS = [
    (("charon", "bia"), 1),  # ferries (forced) and a removal
    (("medusa", "ares"), 1),  # removals at the end of a turn, blocks removed
    (("triton", "poseidon"), 0),  # several steps along the perimeter, several builds
    (("zeus", "chronus"), 0),  # a build under the worker, the tower count
]


@pytest.fixture(params=PAIRS, ids=["-".join(g) for g, _ in PAIRS])
def pair(request: pytest.FixtureRequest) -> tuple[tuple[str, ...], Timeline]:
    gods, seed = request.param
    t = read_timeline(god_game(gods, seed))
    assert t.ok, t.verification
    return gods, t


def _effect_lines(t: Timeline) -> dict[int, list[str]]:
    """Each step's effects in words, from the engine alone (the exports must agree)."""
    out: dict[int, list[str]] = {}
    for s in t.steps:
        before = step_before(t, s.number)
        if s.kind == "act" and before is not None and before.phase.name == "PLAY":
            effects = turn_effects(before, parse_turn(s.text), s.position)
            if effects:
                out[s.number] = [describe_effect(before, e) for e in effects]
    return out


# -- the games themselves ------------------------------------------------------------------------


def test_the_test_games_show_the_effects_they_are_chosen_for():
    kinds = set()
    for gods, seed in PAIRS:
        t = read_timeline(god_game(gods, seed))
        assert t.ok
        assert sorted(p.god for p in t.players) == sorted(gods)
        kinds |= {e.kind for es in step_effects(t) for e in es}
    assert {EffectKind.FORCED, EffectKind.REMOVED, EffectKind.UNBUILT} <= kinds


# -- text ---------------------------------------------------------------------------------------


def test_text_export_follows_each_turn_with_its_effects_as_comments(pair):
    _, t = pair
    lines = export_text(t).splitlines()
    want = _effect_lines(t)
    got: dict[int, list[str]] = {}
    number = 0
    for line in lines:
        m = re.match(r"(\d+)\. seat", line)
        if m:
            number = int(m[1])
        elif line.startswith(COMMENT):
            got.setdefault(number, []).append(line.removeprefix(COMMENT + " "))
    assert got == want


def test_a_text_with_comments_verifies_and_without_them_too(pair):
    _gods, t = pair
    text = export_text(t)
    bare = "\n".join(x for x in text.split("\n") if not x.startswith(COMMENT))
    if any(step_effects(t)):
        assert bare != text
    assert verify_text(text.encode()).ok
    assert verify_text(bare.encode()).ok
    forged = text.replace("forced from", "swapped from").replace("removed", "kept")
    assert verify_text(forged.encode()).ok  # comments are the exporter's words, not the log's


def test_a_simple_gods_game_with_a_push_has_no_comment():
    t = read_timeline((VECTORS / "3p-draft.sntr").read_bytes())
    assert not has_advanced_god(t)
    assert any(step_effects(t))  # Minotaur pushes
    assert COMMENT + " " not in export_text(t)


# -- JSON ---------------------------------------------------------------------------------------


@pytest.fixture(scope="module")
def export_schema():
    schema = json.loads((ROOT / "protocol" / "schemas" / "replay-export.schema.json").read_text())
    return jsonschema.Draft202012Validator(schema)


def test_json_export_lists_each_turns_effects_by_kind_side_and_square(pair, export_schema):
    _, t = pair
    doc = json.loads(export_json(t))
    export_schema.validate(doc)
    by_record = {r["index"]: r for r in doc["records"]}
    effects = step_effects(t)
    for s, es in zip(t.steps, effects, strict=True):
        entry = by_record[s.record]
        if not es:
            assert "effects" not in entry
            continue
        assert [e["kind"] for e in entry["effects"]] == [e.kind.value for e in es]
        for e, got in zip(es, entry["effects"], strict=True):
            assert got["squares"] == [SQUARE_NAMES[q] for q in e.squares]
            assert got["side"] == (side_letter(e.side) if e.side >= 0 else None)
    assert [e["text"] for r in doc["records"] for e in r.get("effects", [])] == [
        x for lines in _effect_lines(t).values() for x in lines
    ]


def test_a_removed_worker_is_gone_from_the_next_position_in_the_json(pair):
    _, t = pair
    doc = to_document(t)
    for r in doc["records"]:
        for e in r.get("effects", []):  # type: ignore[attr-defined]
            board = r["position"].split(" ")[0]  # type: ignore[index]
            if e["kind"] in ("removed", "forced"):
                square = e["squares"][-1]
                col, row = "abcde".index(square[0]), int(square[1])
                rank = board.split("/")[5 - row]
                cells = re.findall(r"\d[XABC]?", rank)
                here = cells[col][1:]
                assert (here == e["side"]) == (e["kind"] == "forced"), (r["index"], e)


# -- SVG ----------------------------------------------------------------------------------------


def _steps_with(t: Timeline, kind: EffectKind) -> list[int]:
    return [i + 1 for i, es in enumerate(step_effects(t)) if any(e.kind is kind for e in es)]


def test_svg_draws_a_forced_worker_as_a_dashed_arrow_and_a_removal_as_a_cross(pair):
    _, t = pair
    for number in _steps_with(t, EffectKind.FORCED):
        svg = step_svg(t, number)
        assert svg is not None
        assert 'stroke-dasharray="14 9"' in svg
        assert f'fill="{FORCED_COLOUR}" stroke="#000"' in svg  # the arrow's head
    for number, words in _effect_lines(t).items():
        svg = step_svg(t, number)
        assert svg is not None
        titles = re.findall(r"<title>([^<]*)</title>", svg)[1:]  # after the board's own
        assert titles == words
    for number in _steps_with(t, EffectKind.REMOVED):
        svg = step_svg(t, number)
        assert svg is not None
        assert svg.count('stroke-dasharray="8 6"') >= 1
        assert "<path d=" in svg.split("</defs>")[-1]
    for number in _steps_with(t, EffectKind.UNBUILT):
        svg = step_svg(t, number)
        assert svg is not None
        assert "\u22121</text>" in svg


def test_svg_draws_several_steps_several_builds_and_a_build_under_the_worker():
    gods, seed = PAIRS[2]
    t = read_timeline(god_game(gods, seed))
    seen = {"path": False, "builds": False}
    for s in t.steps:
        if s.kind != "act" or step_before(t, s.number) is None:
            continue
        overlay = step_overlay(t, s.number)
        try:
            turn = parse_turn(s.text)
        except ValueError:
            continue
        if len(turn.path) > 1:
            seen["path"] = True
            assert overlay.count("<polyline") == 2  # the path, on its dark casing
            assert '<polygon points="' in overlay  # its head
        if len(turn.builds) > 2:
            seen["builds"] = True
            assert overlay.count(">+") == len(set(turn.build_squares))
    assert seen == {"path": True, "builds": True}
    gods, seed = PAIRS[3]
    t = read_timeline(god_game(gods, seed))
    under = [
        s.number
        for s in t.steps
        if s.kind == "act"
        and s.text[:1] in "abcde"
        and (turn := parse_turn(s.text)).path
        and turn.path[-1] in turn.build_squares
    ]
    assert under, "the Zeus game builds under a worker"
    assert all(">+1</text>" in step_overlay(t, n) for n in under)


def test_a_turn_of_the_plain_rules_has_no_overlay():
    t = read_timeline((VECTORS / "2p-none.sntr").read_bytes())
    assert all(step_overlay(t, s.number) == "" for s in t.steps)


# -- old replays --------------------------------------------------------------------------------


def _sha(text: str) -> str:
    return hashlib.sha256(text.encode()).hexdigest()


@pytest.mark.parametrize("name", sorted(OLD))
def test_every_stored_replay_exports_as_it_did_before_effects(name):
    t = read_timeline((VECTORS / f"{name}.sntr").read_bytes())
    assert t.ok
    old = OLD[name]
    assert _sha(export_text(t, 1)) == old["santorini.txt"]  # format 1, as it was written
    doc = to_document(t)
    assert _sha(format_document(doc)) == old["json"]
    svg = step_svg(t, len(t.steps))
    assert svg is not None
    assert _sha(svg + "\n") == old["svg"]
    # Apollo's swap and Minotaur's pushes are effects, but a game of the simple gods lists
    # none in its JSON, as before.
    assert any(step_effects(t)) == (name in ("3p-draft", "4p-random"))
    assert not any("effects" in r for r in doc["records"])  # type: ignore[attr-defined]


@pytest.mark.parametrize(
    ("gods", "kind", "mark", "per"),
    [
        (("hypnus", "aphrodite"), EffectKind.FROZEN, f'rx="3" fill="{FROZEN_COLOUR}"', 1),
        (("hypnus", "aphrodite"), EffectKind.BOUND, f'stroke="{BOUND_COLOUR}" rx="8"', 2),
        (
            ("limus", "persephone"),
            EffectKind.NO_BUILD,
            f'fill="#fff" stroke="{NO_BUILD_COLOUR}"',
            1,
        ),
    ],
)
def test_svg_marks_what_the_powers_impose_square_by_square(gods, kind, mark, per):
    """A padlock on a frozen worker, a chain link (two rings) on a bound one, a no-entry sign."""
    t = read_timeline(god_game(gods, 0))
    seen = 0
    for s in t.steps:
        if s.position.phase is not Phase.PLAY:
            continue
        count = sum(len(e.squares) for e in standing_effects(s.position) if e.kind is kind)
        svg = step_svg(t, s.number)
        assert svg is not None
        assert svg.count(mark) == count * per, s.number
        seen += count
    assert seen > 0


# -- the command line ---------------------------------------------------------------------------


def test_replay_export_on_the_command_line_says_and_draws_a_ferry(tmp_path, capsys):
    from santorini_p2p.cli import main

    gods, seed = PAIRS[0]
    data = god_game(gods, seed)
    src = tmp_path / "game.sntr"
    src.write_bytes(data)
    t = read_timeline(data)
    ferry = _steps_with(t, EffectKind.FORCED)[0]
    words = _effect_lines(t)[ferry][0]
    assert main(["replay", "export", str(src), "-o", str(tmp_path / "g.santorini.txt")]) == 0
    assert main(["replay", "verify", str(tmp_path / "g.santorini.txt")]) == 0
    svg = tmp_path / "ferry.svg"
    assert main(["replay", "export", str(src), "--ply", str(ferry), "-o", str(svg)]) == 0
    assert main(["replay", "export", str(src), "-o", str(tmp_path / "g.json")]) == 0
    text = (tmp_path / "g.santorini.txt").read_text()
    assert f"\n{COMMENT} {words}\n" in text
    assert 'stroke-dasharray="14 9"' in svg.read_text()
    doc = json.loads((tmp_path / "g.json").read_text())
    assert words in [e["text"] for r in doc["records"] for e in r.get("effects", [])]


def test_the_pages_legend_explains_the_marks_this_game_draws_and_no_other():
    from santorini_p2p.replay.export_html import export_html

    gods, seed = PAIRS[0]
    page = export_html(read_timeline(god_game(gods, seed)))
    assert "a worker forced" in page
    assert "a worker removed" in page
    assert "a frozen worker" not in page
    page = export_html(read_timeline(god_game(("hypnus", "aphrodite"), 0)))
    assert "a frozen worker" in page
    assert "a bound worker" in page
    assert "a worker forced" not in page
    plain = export_html(read_timeline((VECTORS / "2p-none.sntr").read_bytes()))
    assert "a worker forced" not in plain
    assert "a frozen worker" not in plain


def test_medusas_builds_on_the_removed_workers_squares_are_tagged():
    gods, seed = PAIRS[1]
    t = read_timeline(god_game(gods, seed))
    tagged = 0
    for number in _steps_with(t, EffectKind.REMOVED):
        before, after = step_before(t, number), t.steps[number - 1].position
        assert before is not None
        built = [
            e.squares[0]
            for e in step_effects(t)[number - 1]
            if e.kind is EffectKind.REMOVED
            and after.level(e.squares[0]) + after.has_dome(e.squares[0])
            > before.level(e.squares[0]) + before.has_dome(e.squares[0])
        ]
        assert len(parse_turn(t.steps[number - 1].text).builds) == 1  # no tags of its own
        assert step_overlay(t, number).count(f'fill="{BUILD_COLOUR}"') == len(built)
        tagged += len(built)
    assert tagged > 0


def test_no_simple_gods_turn_has_a_power_build():
    """Every build of the simple gods is in the turn's text: only an advanced power adds one."""
    from santorini_p2p.replay.svg import turn_overlay

    for name in OLD:
        t = read_timeline((VECTORS / f"{name}.sntr").read_bytes())
        for s, effects in zip(t.steps, step_effects(t), strict=True):
            before = step_before(t, s.number)
            if s.kind != "act" or before is None or before.phase is not Phase.PLAY:
                continue
            turn = parse_turn(s.text)
            assert step_overlay(t, s.number) == turn_overlay(before, turn, effects)
