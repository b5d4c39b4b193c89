"""The exports of a Party game write each passing of the cards as the rule's doing, naming its
trigger (the header's ``pass=K``), not the player whose ack happened to come last
(protocol/SECRET.md 10, 12); a text export written before, naming that player, still verifies."""

from __future__ import annotations

import re
from pathlib import Path

from santorini_p2p.replay.export_html import export_html
from santorini_p2p.replay.export_text import export_text
from santorini_p2p.replay.timeline import read_timeline
from santorini_p2p.replay.verify import verify_text

PARTY = (
    Path(__file__).resolve().parent.parent / "protocol" / "vectors" / "replays" / "3p-party.sntr"
)


def test_the_text_export_names_the_rule_that_passes_the_cards() -> None:
    t = read_timeline(PARTY.read_bytes())
    text = export_text(t)
    passes = [s for s in t.steps if s.kind == "pass"]
    assert passes
    lines = [line for line in text.splitlines() if "cards pass" in line]
    assert lines == [f"- {s.text} (pass=2)" for s in passes]
    assert all("seat" not in line for line in lines)
    assert lines[0] == "- the cards pass after turn 2 (pass=2)"
    assert verify_text(text.encode()).ok
    # Format 1 numbers the line, and names the rule just the same.
    one = [line for line in export_text(t, 1).splitlines() if "cards pass" in line]
    assert one == [f"{s.number}. {s.text} (pass=2)" for s in passes]


def test_the_html_export_names_the_rule_too() -> None:
    t = read_timeline(PARTY.read_bytes())
    page = export_html(t)
    items = re.findall(r'<li><button data-i="\d+">([^<]*cards pass[^<]*)', page)
    assert items
    assert items[0] == "\u2013 the cards pass after turn 2 (pass=2)"


def test_a_text_export_that_credited_a_player_with_the_pass_still_verifies() -> None:
    t = read_timeline(PARTY.read_bytes())
    text = export_text(t)
    seats = {s.text: s.seat for s in t.steps if s.kind == "pass"}

    def before(m: re.Match[str]) -> str:
        return f"- seat {seats[m.group(1)] + 1}: {m.group(1)}"

    old = re.sub(r"- (the cards pass after turn \d+) \(pass=2\)", before, text)
    assert old != text
    assert "- seat " in old
    assert verify_text(old.encode()).ok
    # A pass line that says another turn is refused, naming the line.
    wrong = old.replace("the cards pass after turn 2", "the cards pass after turn 3", 1)
    verdict = verify_text(wrong.encode())
    assert not verdict.ok
    assert "the cards pass after turn 3" in verdict.line()
