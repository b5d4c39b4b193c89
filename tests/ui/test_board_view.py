"""The console board and side panel, by exact strings (STYLE.md section 9, UI)."""

from __future__ import annotations

from santorini_p2p.engine import OPENING, parse_action, parse_position
from santorini_p2p.net.game import ConnectionState, SeatInfo
from santorini_p2p.net.session import SeatClock
from santorini_p2p.ui.board_view import (
    BOARD_HEIGHT,
    BOARD_WIDTH,
    Marks,
    format_clock,
    fragments_text,
    render_board,
    render_panel,
    render_text,
)

BUSY = "00000X/00B00A0/0302X0/0A002B0/00000 2 apollo,pan -"


def test_board_shows_levels_domes_workers_and_marks_as_plain_text():
    p = parse_position(BUSY)
    text = fragments_text(render_board(p, Marks(frozenset({12, 13}), frozenset({6}))))
    assert text == (
        "     a     b     c     d     e     \n"
        "  +-----+-----+-----+-----+-----+  \n"
        "5 |     |     |     |     |   X | 5\n"
        "  +-----+-----+-----+-----+-----+  \n"
        "4 |     |   B |     |   A |     | 4\n"
        "  +-----+-----+-----+-----+-----+  \n"
        "3 |     | 3   |[   ]|[2 X]|     | 3\n"
        "  +-----+-----+-----+-----+-----+  \n"
        "2 |   A |(   )|     | 2 B |     | 2\n"
        "  +-----+-----+-----+-----+-----+  \n"
        "1 |     |     |     |     |     | 1\n"
        "  +-----+-----+-----+-----+-----+  \n"
        "     a     b     c     d     e     "
    )
    lines = text.split("\n")
    assert len(lines) == BOARD_HEIGHT
    assert {len(line) for line in lines} == {BOARD_WIDTH}


def test_board_styles_shade_levels_and_colour_workers_by_side():
    p = parse_position(BUSY)
    frags = render_board(p)
    assert any("class:level3" in style for style, text, *_ in frags if text == " 3")
    assert any("class:dome" in style for style, text, *_ in frags if text == "X")
    assert any("worker.b" in style for style, text, *_ in frags if text == "B")
    assert any("worker.a" in style for style, text, *_ in frags if text == "A")


def test_board_click_factory_attaches_the_square_to_each_cell():
    seen = []
    frags = render_board(parse_position(OPENING), on_click=lambda s: lambda e, s=s: seen.append(s))
    handlers = [f[2] for f in frags if len(f) == 3]
    for h in handlers:
        h(None)
    assert sorted(set(seen)) == list(range(25))
    assert seen[0] == 20  # a5 is drawn first


def test_targets_win_over_chosen_so_a_build_on_the_start_square_shows():
    p = parse_position(OPENING)
    text = fragments_text(render_board(p, Marks(frozenset({6}), frozenset({6, 12}))))
    assert "2 |     |[  A]|" in text
    assert "3 |     |     |(   )|" in text


def test_panel_lists_seats_gods_clocks_and_turns():
    p = parse_position(BUSY)
    seats = [
        SeatInfo(0, "Alice", True, True, clock=SeatClock(42_001, 300_000, False)),
        SeatInfo(
            1,
            "Computer",
            True,
            False,
            fingerprint="ab12-cd34",
            clock=SeatClock(1_500, 61_000, True),
        ),
    ]
    actions = [parse_action("place b2,d4"), parse_action("place b4,d2"), parse_action("b2>c3^d4")]
    text = fragments_text(render_panel(p, seats, actions, 44, 7))
    assert text == (
        "  A seat 1 Alice                        5:00\n"
        "    apollo: Your worker may move into an ~\n"
        "> B seat 2 Computer ab12-cd34     0:02 +1:01\n"
        "    pan: You also win if your worker moves ~\n"
        "Turns\n"
        "  1. place b2,d4    2. place d2,b4\n"
        "  3. b2>c3^d4"
    )


def test_panel_keeps_the_latest_turns_and_shows_connections():
    p = parse_position(OPENING)
    seats = [
        SeatInfo(0, "bob", False, True, connection=ConnectionState.DISCONNECTED),
        SeatInfo(1, "me", True, True),
    ]
    actions = [parse_action(t) for t in ("b2>a1^a2", "d2>e1^e2", "a1>b2^a1", "e1>d2^e1")] * 3
    text = fragments_text(render_panel(p, seats, actions, 40, 6))
    assert text.split("\n")[0].rstrip() == "> A seat 1 bob (disconnected)"
    assert text.split("\n")[-1] == " 11. a1>b2^a1   12. e1>d2^e1"
    assert len(text.split("\n")) == 6


def test_clock_format_rounds_up_so_zero_means_gone():
    assert format_clock(0) == "0:00"
    assert format_clock(1) == "0:01"
    assert format_clock(60_000) == "1:00"
    assert format_clock(299_001) == "5:00"
    assert format_clock(-5) == "0:00"


def test_show_output_stays_plain_text():
    assert render_text(parse_position(OPENING)) == (
        "5  .  .  .  .  . \n"
        "4  .  0B .  0A . \n"
        "3  .  .  .  .  . \n"
        "2  .  0A .  0B . \n"
        "1  .  .  .  .  . \n"
        "   a  b  c  d  e \n"
        "\n"
        "seat 1 (A) no god, seat 2 (B) no god; seat 1 to move"
    )


def test_panel_marks_a_seat_that_left_a_three_player_game():
    p = parse_position("00000/00B00A0/00000/00A00B0/00000 1 -,-,- x3")
    seats = [SeatInfo(s, n, True, True) for s, n in enumerate(("Ann", "Ben", "Cy"))]
    lines = fragments_text(render_panel(p, seats, [], 40, 8)).split("\n")
    assert lines[4].rstrip() == "  C seat 3 Cy (out)"


def test_panel_lists_the_gods_still_to_choose_from():
    from santorini_p2p.engine import new_game

    p = new_game(2, "draft", drawn=("apollo", "pan", "atlas", "minotaur"))
    seats = [SeatInfo(0, "Ann", True, True), SeatInfo(1, "Ben", True, True)]
    lines = fragments_text(render_panel(p, seats, [], 50, 8)).split("\n")
    assert lines[1] == "    god not chosen yet"
    assert lines[4] == "  to choose from: apollo, atlas, minotaur, pan"


def test_panel_lists_the_pool_the_challenger_offers_from():
    from santorini_p2p.engine import new_game

    seats = [SeatInfo(0, "Ann", True, True), SeatInfo(1, "Ben", True, True)]
    p = new_game(2, "challenger", offer=("zeus", "chronus", "medusa"))
    lines = fragments_text(render_panel(p, seats, [], 50, 8)).split("\n")
    assert lines[4] == "  to choose from: chronus, medusa, zeus"
    # Offering from the simple gods, as always: no list (the ten are the default).
    lines = fragments_text(render_panel(new_game(2, "challenger"), seats, [], 50, 8)).split("\n")
    assert "to choose from" not in "\n".join(lines)


def test_the_last_move_is_marked_from_to_and_build_and_reads_without_colour():
    from santorini_p2p.engine import apply_action, parse_action
    from santorini_p2p.ui.board_view import last_move_marks

    before = parse_position(OPENING)
    after = apply_action(before, parse_action("b2>c3^c2"))
    marks = Marks(last=last_move_marks(before, after))
    assert dict(marks.last) == {6: ".", 7: "+", 12: "*"}
    rows = fragments_text(render_board(after, marks)).split("\n")
    assert rows[6] == "3 |     |     |  *A |     |     | 3"  # c3: the worker arrived
    assert rows[8] == "2 |     |  .  | 1+  |   B |     | 2"  # b2 left; c2 built to level 1
    styled = [style for style, t, *_ in render_board(after, marks) if t in ".*+"]
    assert len(styled) == 3
    assert all("class:last" in style for style in styled)


def test_a_god_power_moving_another_worker_is_marked_too():
    from santorini_p2p.engine import apply_action, legal_actions
    from santorini_p2p.ui.board_view import last_move_marks

    # Apollo swaps: the opponent's worker lands where Apollo's came from.
    p = parse_position("00000/0000B0/000B00/00A000A/00000 1 apollo,atlas -")
    swap = next(a for a in legal_actions(p) if str(a).startswith("b2>c3"))
    after = apply_action(p, swap)
    marks = dict(last_move_marks(p, after))
    assert marks[12] == "*"  # c3: Apollo arrived
    assert marks[6] == "*"  # b2: the swapped worker arrived
