"""Replays with Gaea's asks and answers (log protocol 3, SPEC.md 8.4): verify, view, export.

Reads the protocol vectors of the repository (``protocol/vectors``), which ship with it.
"""

from __future__ import annotations

import json
from pathlib import Path

import jsonschema  # type: ignore[import-untyped]

from santorini_p2p.cli import main
from santorini_p2p.replay.export_json import to_document
from santorini_p2p.replay.export_text import export_text, read_text
from santorini_p2p.replay.timeline import read_timeline

PROTOCOL = Path(__file__).resolve().parent.parent / "protocol"
GAME = PROTOCOL / "vectors" / "replays" / "2p-gaea-asks.sntr"


def _case(name: str) -> bytes:
    doc = json.loads((PROTOCOL / "vectors" / "replays.json").read_text())
    return bytes.fromhex(next(t for t in doc["tests"] if t["id"] == name)["input"])


def test_replay_verify_accepts_gaeas_signed_answers(capsys):
    assert main(["replay", "verify", str(GAME)]) == 0
    assert "gods gaea, hestia" in capsys.readouterr().out


def test_replay_verify_refuses_an_answer_signed_by_the_mover_and_names_the_seat(tmp_path, capsys):
    forged = tmp_path / "forged.sntr"
    forged.write_bytes(_case("ask-answer-wrong-seat"))
    assert main(["replay", "verify", str(forged)]) != 0
    out = capsys.readouterr()
    said = out.out + out.err
    assert "record 20" in said
    assert "only that seat may answer" in said


def test_the_timeline_and_every_export_carry_the_asks_and_answers():
    data = GAME.read_bytes()
    t = read_timeline(data)
    assert t.ok
    said = [s.text for s in t.steps if s.kind in ("ask", "answer")]
    assert "answers: a worker on a4" in said
    assert any(s.startswith("asks after ") for s in said)
    doc = to_document(t)
    schema = json.loads((PROTOCOL / "schemas" / "replay-export.schema.json").read_text())
    jsonschema.validate(doc, schema)
    kinds = [r["type"] for r in doc["records"]]
    assert kinds.count("ask") == kinds.count("answer") == 3
    # The text export imports back to the same bytes.
    assert read_text(export_text(t).encode()).data == data
