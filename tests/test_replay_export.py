"""Replay exports: text round trip and tamper detection, JSON schema, the HTML page, SVG, CLI."""

from __future__ import annotations

import contextlib
import json
import re
import xml.etree.ElementTree as ET
from functools import cache
from pathlib import Path

import jsonschema  # type: ignore[import-untyped]
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from santorini_p2p.cli import main
from santorini_p2p.engine import OPENING
from santorini_p2p.replay.export_html import export_html
from santorini_p2p.replay.export_json import to_document
from santorini_p2p.replay.export_text import (
    BEGIN_LINE,
    END_LINE,
    TextReplay,
    TextReplayError,
    check_text,
    export_text,
    load_timeline,
    read_text,
)
from santorini_p2p.replay.svg import board_svg
from santorini_p2p.replay.timeline import read_timeline
from santorini_p2p.replay.verify import verify_bytes, verify_text
from santorini_p2p.wire.identity import Identity
from santorini_p2p.wire.log import Validator, encode_frames
from santorini_p2p.wire.script import play_script
from tests.replays import IDS, MODES, frame_offsets, game

SCHEMA = Path(__file__).resolve().parent.parent / "protocol" / "schemas"
Which = tuple[int, str, int, bool]
GAMES: list[Which] = [
    (2, "none", 0, False),
    (2, "draft", 1, True),
    (3, "draft", 1, False),
    (4, "challenger", 2, False),
    (2, "random", 3, True),
    (3, "none", 4, True),
]
games = st.sampled_from(GAMES)
bounded = settings(max_examples=15)


def replay(which: Which) -> bytes:
    return encode_frames(game(*which))


@cache
def text_of(which: Which) -> str:
    return export_text(read_timeline(replay(which)))


def bad_replay() -> tuple[bytes, int]:
    """A replay whose record 15 is signed badly (one flipped byte), and that record's number."""
    env = game(2, "none", 0)
    start, _ = frame_offsets(env)[15]
    blob = bytearray(encode_frames(env))
    blob[start + 20] ^= 1
    return bytes(blob), 15


# -- text: round trip ---------------------------------------------------------------------------


@bounded
@given(games)
def test_text_export_imports_back_byte_identical_and_verifies_alone(which):
    data = replay(which)
    text = text_of(which).encode()
    assert read_text(text).data == data
    alone = verify_text(text, "g.santorini.txt")
    assert alone.ok, alone.line()
    assert alone.line() == verify_bytes(data, "g.santorini.txt").line()


def test_text_export_lists_tags_and_numbered_actions_with_clocks():
    text = text_of((2, "draft", 1, True))
    lines = text.splitlines()
    assert lines[0] == '[Event "santorini-p2p game"]'
    assert '[TimeControl "60+300"]' in lines
    assert '[Seat1Key "' in text
    assert '[Verification "ok"]' in lines
    first = next(x for x in lines if x.startswith("1. "))
    assert re.fullmatch(r"1\. seat 1: god \w+ \{0:01\.500, bank 5:00\.000\}", first)
    assert lines.count(BEGIN_LINE) == 1


def test_crlf_trailing_spaces_and_a_byte_order_mark_do_not_matter():
    text = text_of((2, "none", 0, False))
    mangled = "\ufeff\n\n" + "\r\n".join(x + "  " for x in text.split("\n"))
    assert verify_text(mangled.encode()).ok


def test_a_replay_file_is_not_taken_for_text():
    assert verify_bytes(replay(GAMES[0])).ok


# -- text: tampering ----------------------------------------------------------------------------


def _armour_span(lines: list[str]) -> tuple[int, int]:
    begin = lines.index(BEGIN_LINE)
    end = lines.index("-----END SANTORINI REPLAY-----")
    return begin + 1, end  # armour lines are lines[begin + 1 : end] (0-based)


def _read_or_error(text: bytes) -> TextReplay | TextReplayError:
    try:
        return read_text(text)
    except TextReplayError as e:
        return e


@bounded
@given(games, st.data())
def test_any_change_to_the_armour_is_caught_with_its_line(which, data):
    lines = text_of(which).split("\n")
    first, end = _armour_span(lines)
    k = data.draw(st.integers(first, end - 1), label="line")
    j = data.draw(st.integers(0, len(lines[k]) - 1), label="column")
    alphabet = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/=-! é"
    new = data.draw(st.sampled_from([c for c in alphabet if c != lines[k][j]]), label="char")
    lines[k] = lines[k][:j] + new + lines[k][j + 1 :]
    text = "\n".join(lines).encode()
    number = k + 1
    verdict = verify_text(text)
    assert not verdict.ok
    tr = _read_or_error(text)
    if isinstance(tr, TextReplayError):
        assert tr.line in (number, end)  # end: padding bits, reported at the last armour line
        return
    if verdict.record is None:  # the magic or version: the file's first bytes
        assert number == tr.begin + 1
        return
    lo, hi = tr.lines_of(verdict.record)
    assert lo <= number <= hi
    assert f"line{'s' if lo < hi else ''} {lo}" in verdict.error


@settings(max_examples=10)
@given(games, st.data())
def test_editing_a_readable_move_is_caught_at_its_line(which, data):
    t = read_timeline(replay(which))
    lines = export_text(t).split("\n")
    moves = [i for i, x in enumerate(lines) if re.match(r"\d+\. seat", x)]
    i = data.draw(st.sampled_from(moves), label="line")
    step = t.steps[moves.index(i)]
    other = data.draw(
        st.sampled_from(["a1>a2^a3", "place a1,a2", "god pan", "resigns", "e5>d4^e5"]), label="text"
    )
    edit = data.draw(st.sampled_from(["text", "seat", "clock", "drop", "swap"]), label="edit")
    if edit == "text":
        new = lines[i].replace(f": {step.text}", f": {other}", 1)
        if new == lines[i]:
            new = lines[i] + "x"
        lines[i] = new
    elif edit == "seat":
        lines[i] = re.sub(r"seat (\d)", lambda m: f"seat {int(m[1]) % 4 + 1}", lines[i], count=1)
    elif edit == "clock":
        has = "{" in lines[i]
        lines[i] = lines[i].replace("{0:", "{1:", 1) if has else lines[i] + " {0:01.000}"
    elif edit == "drop":
        del lines[i]
    else:
        if i + 1 < len(lines) and lines[i + 1] and lines[i + 1] != lines[i]:
            lines[i], lines[i + 1] = lines[i + 1], lines[i]
        else:
            lines[i] += " "  # trailing space only: not a change
            assert verify_text("\n".join(lines).encode()).ok
            return
    text = "\n".join(lines).encode()
    with pytest.raises(TextReplayError) as caught:
        check_text(text)
    assert caught.value.line == i + 1
    if edit != "drop":
        assert caught.value.record_index == step.record
    verdict = verify_text(text, "g")
    assert not verdict.ok
    assert f"line {i + 1}:" in verdict.error


@pytest.mark.parametrize(
    ("old", "new"),
    [
        ('[Seat1 "', '[Seat1 "x'),
        ('[Winner "', '[Winner "9'),
        ('[Final "', '[Final "0'),
        ("[Event ", "[Evnt "),
    ],
)
def test_editing_a_tag_is_caught_at_its_line(old, new):
    lines = text_of((2, "draft", 1, True)).split("\n")
    i = next(k for k, x in enumerate(lines) if x.startswith(old))
    lines[i] = lines[i].replace(old, new, 1)
    with pytest.raises(TextReplayError) as caught:
        check_text("\n".join(lines).encode())
    assert caught.value.line == i + 1


def test_text_without_armour_or_with_text_after_it_fails_with_a_line():
    text = text_of(GAMES[0])
    assert not verify_text(text.replace(BEGIN_LINE, "BEGIN").encode()).ok
    with pytest.raises(TextReplayError) as caught:
        read_text((text + "PS: good game\n").encode())
    assert caught.value.line == len(text.split("\n"))


# -- a file that fails verification -------------------------------------------------------------


def test_a_bad_file_is_exported_up_to_its_first_bad_record_and_says_so():
    data, bad = bad_replay()
    t = read_timeline(data)
    assert not t.ok
    assert t.bad_record == bad
    assert len(t.records) == bad
    assert all(s.record < bad for s in t.steps)
    text = export_text(t)
    assert f'[Verification "fails at record {bad}: ' in text
    verdict = verify_text(text.encode())
    assert not verdict.ok
    assert verdict.record == bad
    faked = text.replace('[Verification "fails', '[Verification "ok"] [x "', 1)
    assert not verify_text(faked.encode()).ok
    page = export_html(t)
    assert "FAILS VERIFICATION" in page
    assert f"record {bad}" in page
    verification = to_document(t)["verification"]
    assert isinstance(verification, dict)
    assert verification["record"] == bad
    assert verification["ok"] is False


# -- JSON --------------------------------------------------------------------------------------


@pytest.fixture(scope="module")
def export_schema():
    schema = json.loads((SCHEMA / "replay-export.schema.json").read_text())
    jsonschema.Draft202012Validator.check_schema(schema)
    return jsonschema.Draft202012Validator(schema)


@pytest.mark.parametrize("which", GAMES, ids=[f"{p}p-{g}-{s}" for p, g, s, _ in GAMES])
def test_json_export_matches_its_schema_and_the_log(which, export_schema):
    t = read_timeline(replay(which))
    doc = json.loads(json.dumps(to_document(t)))
    export_schema.validate(doc)
    assert len(doc["records"]) == len(t.records)
    acts = [r for r in doc["records"] if r["type"] == "act"]
    assert acts
    assert all(r["state_hash"] == r["body"]["state_hash"] for r in acts)
    last_act = [s for s in t.steps if s.kind == "act"][-1]
    assert acts[-1]["position"] == last_act.position_text


def test_json_export_of_a_bad_file_matches_the_schema(export_schema):
    export_schema.validate(json.loads(json.dumps(to_document(read_timeline(bad_replay()[0])))))


# -- HTML --------------------------------------------------------------------------------------

EXTERNAL = re.compile(r"""(?:src|href|action)\s*=\s*["']?(?!#)|url\(|@import|<link|<iframe""", re.I)


@pytest.mark.parametrize("which", GAMES, ids=[f"{p}p-{g}-{s}" for p, g, s, _ in GAMES])
def test_html_page_is_self_contained_and_small(which):
    t = read_timeline(replay(which))
    page = export_html(t)
    assert len(page.encode()) < 100_000
    assert "Content-Security-Policy" in page
    assert "default-src 'none'" in page
    assert re.findall(r"https?://[^\s\"'<]+", page) == ["http://www.w3.org/2000/svg"]
    assert EXTERNAL.findall(page.replace('href="#', "")) == []
    for p in t.players:
        assert p.fingerprint in page
        if p.power:
            assert p.power in page
    assert page.count('<use id="sq-') == 25
    assert 'id="slider"' in page
    assert page.count("data-i=") == len(t.steps)
    assert t.result_text in page


def test_html_escapes_player_names():
    ids = [Identity.from_seed(b"\x05" * 32, '<b>"bob" & co</b>'), IDS[1]]
    env = play_script(ids, ["place a1,a2", "place e5,e4"], finish=True)
    page = export_html(read_timeline(encode_frames(env)))
    assert "<b>" not in page.replace('<b>"', "")  # only the page's own <b> tags
    assert "&lt;b&gt;&quot;bob&quot; &amp; co&lt;/b&gt;" in page
    assert '\\u003cb\\u003e\\"bob\\" \\u0026 co\\u003c/b\\u003e' in page


# -- SVG ---------------------------------------------------------------------------------------


def test_svg_board_is_well_formed_with_every_square():
    tree = ET.fromstring(board_svg(read_timeline(replay(GAMES[0])).steps[-1].position, {0, 6}))
    ns = "{http://www.w3.org/2000/svg}"
    uses = tree.findall(f"{ns}use")
    assert len(uses) == 25
    ids = {g.get("id") for g in tree.iter(f"{ns}g")}
    assert {u.get("href", "")[1:] for u in uses} <= ids
    assert len([r for r in tree.findall(f"{ns}rect") if r.get("stroke") == "#7dd3fc"]) == 2


def test_show_svg_draws_the_opening(capsys):
    assert main(["show", OPENING, "--svg"]) == 0
    out = capsys.readouterr().out
    tree = ET.fromstring(out)
    hrefs = [u.get("href") for u in tree.iter("{http://www.w3.org/2000/svg}use")]
    assert sorted(h or "" for h in hrefs if h != "#c0") == ["#c0A", "#c0A", "#c0B", "#c0B"]


# -- command line ------------------------------------------------------------------------------


def test_cli_export_import_verify_round_trip(tmp_path, capsys):
    src = tmp_path / "game.replay"
    src.write_bytes(replay(GAMES[1]))
    txt = tmp_path / "game.santorini.txt"
    assert main(["replay", "export", str(src), "-o", str(txt)]) == 0
    assert main(["replay", "verify", str(txt)]) == 0
    assert main(["replay", "import", str(txt), "-o", str(tmp_path / "back.replay")]) == 0
    assert (tmp_path / "back.replay").read_bytes() == src.read_bytes()
    for fmt in ("html", "json", "svg"):
        out = tmp_path / f"game.{fmt}"
        assert main(["replay", "export", str(txt), "--format", fmt, "-o", str(out)]) == 0
        assert out.stat().st_size > 1000
    assert main(["replay", "info", str(src)]) == 0
    out = capsys.readouterr().out
    assert "verification  ok" in out
    assert IDS[0].fingerprint in out


def test_cli_export_takes_the_format_from_the_output_name(tmp_path):
    src = tmp_path / "game.replay"
    src.write_bytes(replay(GAMES[1]))
    starts = {"game.html": "<!DOCTYPE html>", "game.JSON": "{", "game.svg": "<svg", "g.txt": "["}
    for name, start in starts.items():
        assert main(["replay", "export", str(src), "-o", str(tmp_path / name)]) == 0
        assert (tmp_path / name).read_text().lstrip().startswith(start), name
    # --format, when given, wins over the name.
    out = tmp_path / "board.html"
    assert main(["replay", "export", str(src), "--format", "svg", "-o", str(out)]) == 0
    assert out.read_text().startswith("<svg")


def test_cli_reports_an_edited_text_with_its_line(tmp_path, capsys):
    text = text_of(GAMES[0])
    lines = text.split("\n")
    i = next(k for k, x in enumerate(lines) if x.startswith("5. "))
    lines[i] = re.sub(r": \S+", ": a1>a2^a3", lines[i], count=1)
    path = tmp_path / "edited.santorini.txt"
    path.write_text("\n".join(lines))
    assert main(["replay", "verify", str(path)]) == 1
    assert f"line {i + 1}: the text says" in capsys.readouterr().err
    assert main(["replay", "import", str(path), "-o", str(tmp_path / "x.replay")]) == 1
    assert not (tmp_path / "x.replay").exists()


def test_cli_import_of_a_replay_file_or_of_other_text_says_what_it_needs(tmp_path, capsys):
    src = tmp_path / "game.sntr"
    src.write_bytes(replay(GAMES[0]))
    out = tmp_path / "back.sntr"
    assert main(["replay", "import", str(src), "-o", str(out)]) == 1
    assert f"{src}: this is a replay file already" in capsys.readouterr().err
    notes = tmp_path / "notes.txt"
    notes.write_text("just some notes\n")
    assert main(["replay", "import", str(notes), "-o", str(out)]) == 1
    assert f"santorini: error: {notes}: line " in capsys.readouterr().err
    assert not out.exists()


def test_cli_exports_a_bad_file_partially_and_exits_1(tmp_path, capsys):
    src = tmp_path / "bad.replay"
    src.write_bytes(bad_replay()[0])
    out = tmp_path / "bad.html"
    assert main(["replay", "export", str(src), "--format", "html", "-o", str(out)]) == 1
    assert "FAILS VERIFICATION" in out.read_text()
    assert "fails at record 15" in capsys.readouterr().err
    assert main(["replay", "info", str(src)]) == 1


@pytest.mark.parametrize("fmt", ["text", "html", "json", "svg"])
def test_cli_exports_nothing_from_a_file_that_is_no_replay_at_all(tmp_path, capsys, fmt):
    src = tmp_path / "notes.txt"
    src.write_text("just some notes\n")
    out = tmp_path / f"out.{fmt}"
    assert main(["replay", "export", str(src), "--format", fmt, "-o", str(out)]) == 1
    assert "not a replay file" in capsys.readouterr().err
    assert not out.exists()


def test_cli_rejects_a_ply_outside_the_game(tmp_path, capsys):
    src = tmp_path / "game.replay"
    src.write_bytes(replay(GAMES[0]))
    assert main(["replay", "export", str(src), "--format", "svg", "--ply", "9999"]) == 2
    assert "ply: expected 0 to" in capsys.readouterr().err
    assert main(["replay", "export", str(src), "--format", "svg", "--ply", "0"]) == 0


def test_load_timeline_reads_text_and_binary_alike():
    data = replay(GAMES[3])
    a, b = load_timeline(data), load_timeline(export_text(read_timeline(data)).encode())
    assert a.data == b.data
    assert [s.position for s in a.steps] == [s.position for s in b.steps]


# -- games that end by agreement or on time ------------------------------------------------------


def ended_by(how: str) -> bytes:
    """A 2-player game of six actions that ends by a draw, an abort or a timeout."""
    env = play_script(IDS[:2], ["place a1,a2", "place e5,e4", "a2>b3^b4"], finish=False)
    v = Validator()
    for raw in env:
        v.feed(raw)
    by_key = {i.public_key: i for i in IDS}
    seats = [by_key[k] for k in v.seats]
    assert v.position is not None
    mover = v.position.to_move
    if how == "timeout":
        v.feed(v.make_timeout(seats[1 - mover]))
    else:
        v.feed(v.make_offer(seats[mover], how))
        v.feed(v.make_accept(seats[1 - mover]))
    for seat in range(2):
        v.feed(v.make_result(seats[seat]))
    return encode_frames(r.raw for r in v.records)


@pytest.mark.parametrize(
    ("how", "lines", "result"),
    [
        ("draw", ["seat 2: offers a draw", "seat 1: accepts the draw"], "drawn by agreement"),
        ("abort", ["seat 2: offers to abort", "seat 1: accepts the abort"], "aborted by agreement"),
        ("timeout", ["seat 1: claims seat 2 ran out of time"], "won on time"),
    ],
)
def test_offers_acceptances_and_timeouts_are_exported(how, lines, result, export_schema):
    data = ended_by(how)
    t = read_timeline(data)
    assert t.ok, t.verification
    text = export_text(t)
    for line in lines:
        assert line in text
    assert result in t.result_text
    assert read_text(text.encode()).data == data
    assert verify_text(text.encode()).ok
    export_schema.validate(json.loads(json.dumps(to_document(t))))
    page = export_html(t)
    assert len(page) < 100_000
    assert lines[-1] in page


# -- more replays, and arbitrary input ----------------------------------------------------------

more = st.tuples(st.sampled_from(MODES), st.integers(0, 4), st.booleans()).map(
    lambda x: (*x[0], x[1], x[2])
)


@settings(max_examples=6)
@given(more)
def test_export_then_import_is_the_identity_on_seeded_replays(which):
    data = replay(which)
    text = export_text(read_timeline(data)).encode()
    assert read_text(text).data == data
    assert check_text(text)[1].ok


@settings(max_examples=60)
@given(st.binary(max_size=300) | st.text(max_size=300).map(str.encode))
def test_arbitrary_text_raises_only_text_replay_errors(blob):
    head = f'[Event "x"]\n\n{BEGIN_LINE}\n'.encode()
    for data in (blob, head + blob, head + blob + b"\n-----END SANTORINI REPLAY-----\n"):
        with contextlib.suppress(TextReplayError):
            check_text(data)
        assert verify_text(data).ok is False


def test_svg_colours_are_the_consoles():
    from santorini_p2p.replay.svg import LEVEL_COLOURS, MARK_COLOUR, WORKER_COLOURS
    from santorini_p2p.ui.app import STYLE

    rules = dict(STYLE.style_rules)

    def background(name: str) -> str:
        return re.search(r"bg:(#[0-9a-f]{6})", rules[name])[1]  # type: ignore[index]

    assert [background(f"level{i}") for i in range(4)] == list(LEVEL_COLOURS)
    assert {k: background(f"worker.{k.lower()}") for k in "ABC"} == WORKER_COLOURS
    assert background("chosen") == MARK_COLOUR
    assert background("dome") == "#000000"


def test_a_page_over_budget_leaves_the_signed_record_out(monkeypatch):
    import santorini_p2p.replay.export_html as module

    t = read_timeline(replay(GAMES[0]))
    assert BEGIN_LINE in export_html(t)
    monkeypatch.setattr(module, "PAGE_BUDGET", 20_000)
    page = export_html(t)
    assert BEGIN_LINE not in page
    assert "left out to keep this page under 20 KB" in page


@pytest.mark.parametrize("which", GAMES, ids=[f"{p}p-{g}-{s}" for p, g, s, _ in GAMES])
def test_a_text_verdict_reads_as_the_replay_files(which):
    data = replay(which)
    text = text_of(which).encode()
    assert verify_text(text, "f").to_json() == verify_bytes(data, "f").to_json()
    cut = encode_frames(game(*which)[:-1])
    bad = export_text(read_timeline(cut)).encode()
    want, got = verify_bytes(cut, "f"), verify_text(bad, "f")
    assert (got.ok, got.record, got.kind) == (want.ok, want.record, want.kind)
    assert got.error.startswith(want.error)


def test_the_console_viewer_opens_a_text_export():
    from santorini_p2p.ui.replay_view import load_replay

    data = replay(GAMES[2])
    from_text = load_replay(text_of(GAMES[2]).encode(), "g.santorini.txt")
    from_file = load_replay(data, "g.santorini.txt")
    assert from_text.ok
    assert from_text.bad is None
    assert [s.position for s in from_text.steps] == [s.position for s in from_file.steps]
    assert from_text.status == from_file.status


def test_a_text_export_whose_begin_line_was_deleted_is_named_as_such_with_its_line(tmp_path):
    from santorini_p2p.replay.verify import verify_file

    text = export_text(read_timeline(replay(GAMES[0])))
    lines = text.splitlines()
    end = lines.index(END_LINE) + 1
    damaged = tmp_path / "game.santorini.txt"
    damaged.write_text("\n".join(x for x in lines if x != BEGIN_LINE) + "\n")
    verdict = verify_file(str(damaged))
    assert not verdict.ok
    assert "not a replay file" not in str(verdict)
    assert f"line {end - 1}" in str(verdict)
    assert "BEGIN" in str(verdict)
