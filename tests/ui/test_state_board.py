"""A seat's power state is seen on the board itself, not only in the panel (RULES.md 10.1).

The female worker, Eris's mark and Adonis's pair are written under their squares, in the rule
line (``-fem-``, ``-eris``, ``-pair``), so the board reads the same without colour and at the
smallest screen; the wind, the coins and a hero's used mark stay in the panel's ``now:`` line.
"""

from __future__ import annotations

import re
import sys

import pytest

from santorini_p2p.engine import parse_position
from santorini_p2p.net.views import SeatInfo
from santorini_p2p.ui.board_view import fragments_text, render_board, render_panel, state_marks
from tests.terminal import Terminal, clean_env

SANTORINI = [sys.executable, "-m", "santorini_p2p"]
BOARD = "0B0000B/00000/000A00/00000/0A0000"


def _rule_under(text: str, rank: int) -> str:
    """The rule line drawn under the board row of ``rank`` (1-5), the panel beside it cut off."""
    rows = text.splitlines()
    at = next(i for i, r in enumerate(rows) if r.startswith(f"{rank} |"))
    return rows[at + 1][:33]


def test_the_female_worker_and_eris_mark_are_written_under_their_squares():
    p = parse_position(f"{BOARD} 1 eris[a5],hippolyta[e5] -")
    text = fragments_text(render_board(p))
    assert _rule_under(text, 5) == "  +-eris+-----+-----+-----+-fem-+"
    assert _rule_under(text, 3) == "  +-----+-----+-----+-----+-----+"


def test_adonis_pair_is_written_under_both_workers_and_two_words_share_a_square():
    p = parse_position(f"{BOARD} 1 apollo,adonis[e5.c3] -")
    text = fragments_text(render_board(p))
    assert _rule_under(text, 5) == "  +-----+-----+-----+-----+-pair+"
    assert _rule_under(text, 3) == "  +-----+-----+-pair+-----+-----+"
    both = parse_position(f"{BOARD} 1 eris[a5],hippolyta[a5] -")
    assert _rule_under(fragments_text(render_board(both)), 5).startswith("  +-e/f-+")


def test_the_words_are_styled_in_the_colour_of_the_seat_whose_state_it_is():
    p = parse_position(f"{BOARD} 1 eris[a5],hippolyta[e5] -")
    styles = {text: style for style, text, *_ in render_board(p)}
    assert styles["eris"] == "class:board.mark class:worker.a.name"
    assert styles["fem"] == "class:board.mark class:worker.b.name"
    assert state_marks(p) == {20: [("eris", 0)], 24: [("fem", 1)]}


def test_no_state_no_word_and_a_gone_female_or_a_used_pair_writes_none():
    for gods in ("apollo,pan", "eris,hippolyta[-]", "apollo,adonis[x]", "morpheus[3],aeolus[n]"):
        p = parse_position(f"{BOARD} 1 {gods} -")
        assert state_marks(p) == {}
        assert all(
            set(line.strip()) <= set("+-")
            for line in fragments_text(render_board(p)).splitlines()
            if "+" in line
        )


@pytest.mark.parametrize(
    ("gods", "seen"),
    [
        ("aeolus[ne],apollo", "now: wind \u2197 towards ~"),
        ("morpheus[2],apollo", "now: 2 coins on his ~"),
        ("theseus[x],apollo", "now: power used"),
        ("atalanta,apollo", "now: power not used ~"),
        ("apollo,adonis[e5.c3]", "now: e5 and c3 must ~"),
    ],
)
def test_the_panel_of_the_smallest_screen_keeps_the_wind_arrow_coins_and_used_mark(gods, seen):
    p = parse_position(f"{BOARD} 1 {gods} -")
    seats = [SeatInfo(0, "Ann", True, True), SeatInfo(1, "Bob", True, True)]
    text = fragments_text(render_panel(p, seats, [], 25, 17))
    assert seen in [line.strip() for line in text.splitlines()]


def _dealt(screen: str) -> int | None:
    """The seat (1 or 2) the deal gave Hippolyta, as the screen says (either god's line)."""
    m = re.search(r"\(seat (\d), [AB]\) has (hippolyta|eris)\.", screen)
    if m is None:
        return None
    seat = int(m.group(1))
    return seat if m.group(2) == "hippolyta" else 3 - seat


def _asks(screen: str, letter: str) -> bool:
    """Whether the input line is side ``letter``'s prompt (``A>``, trailing space removed)."""
    return any(r == f"{letter}>" or r.startswith(f"{letter}> ") for r in screen.splitlines())


def _play(term: Terminal, text: str) -> None:
    """Type ``text`` and Enter once the input line shows it whole."""
    term.send(text)
    term.wait_for(lambda s: any(r.endswith("> " + text) for r in s.splitlines()))
    term.send("\r")


@pytest.mark.parametrize(("columns", "lines"), [(80, 24), (60, 18)])
def test_the_console_shows_the_female_worker_and_eris_mark_on_the_board(tmp_path, columns, lines):
    env = clean_env(tmp_path, NO_COLOR="1")
    argv = [
        *SANTORINI,
        "play",
        "--gods",
        "random",
        "--gods-from",
        "hippolyta,eris",
        "--untimed",
        "--no-mouse",
    ]
    with Terminal(argv, env=env, cwd=tmp_path, columns=columns, lines=lines) as term:
        screen = term.wait_for(lambda s: _dealt(s) is not None and _asks(s, "A"))
        hippolyta = _dealt(screen)
        # Hippolyta's female on d4, Eris in the corners; Hippolyta's male b2 moves to c3.
        female, eris = "place b2,d4*", "place a5,e1"
        if hippolyta == 1:
            _play(term, female)
            term.wait_for(lambda s: _asks(s, "B"))
            _play(term, eris)
        else:
            _play(term, eris)
            term.wait_for(lambda s: _asks(s, "B"))
            _play(term, female)
            term.wait_for(lambda s: _asks(s, "A") and "-fem-+" in s)
            _play(term, "a5>b4^a5")
        term.wait_for(lambda s, me="AB"[hippolyta - 1]: _asks(s, me) and "-fem-+" in s)
        _play(term, "b2>c3^c2")
        screen = term.wait_for(
            lambda s: (
                _rule_under(s, 4) == "  +-----+-----+-----+-fem-+-----+"
                and _rule_under(s, 3) == "  +-----+-----+-eris+-----+-----+"
                and "-fem-+" not in _rule_under(s, 2)
            )
        )
        assert all(len(r) <= columns for r in screen.splitlines())
