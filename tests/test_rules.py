"""One test per ruling of RULES.md sections 1, 2, 4 and 5 (the base game)."""

from __future__ import annotations

import pytest

from santorini_p2p.engine import (
    OPENING,
    apply,
    find_turn,
    legal_turns,
    lose_on_time,
    outcome,
    parse_position,
    parse_square,
    parse_turn,
    resign,
    square_name,
)
from santorini_p2p.errors import IllegalTurnError
from tests.positions import make, texts


def play(p, text):
    return apply(p, find_turn(p, text))


# --- 1. Board, pieces, squares ------------------------------------------------------------


def test_s1_square_indices_follow_rank_and_file():
    assert [parse_square(n) for n in ("a1", "e1", "a2", "c3", "e5")] == [0, 4, 5, 12, 24]
    assert [square_name(i) for i in (0, 4, 5, 12, 24)] == ["a1", "e1", "a2", "c3", "e5"]


def test_s1_square_input_is_case_insensitive_output_lower_case():
    assert parse_square("C3") == 12
    assert str(parse_turn("B2>C3^D4")) == "b2>c3^d4"


def test_s1_dome_can_sit_on_any_level_and_closes_the_square():
    p = make("a1=A b1=0X a2=1X b2=2X e5=A c5=B e3=B")
    assert [p.has_dome(parse_square(s)) for s in ("b1", "a2", "b2")] == [True, True, True]
    assert not any(t.startswith("a1") for t in texts(p))  # boxed in by low domes


def test_s1_pieces_are_unlimited():
    # 20 domes and many level-3 squares on the board: builds are still offered.
    cells = " ".join(
        f"{square_name(s)}=3X" for s in range(25) if s not in (0, 1, 5, 6, 23, 24, 18, 19)
    )
    p = make(cells + " a1=1A b2=B e5=B e4=2A b1=3 a2=2 d4=1")
    assert "a1>a2^b1" in texts(p)  # a dome on b1, the 17th dome on the board
    after = play(p, "a1>a2^b1")
    assert after.has_dome(parse_square("b1"))


def test_s1_occupied_means_a_worker_or_a_dome():
    p = make("c3=A c4=B d3=0X b3=A e1=B")
    t = texts(p)
    assert not any(x.startswith("c3>c4") or x.startswith("c3>d3") for x in t)
    assert not any(x.startswith("c3>") and x.endswith(("^c4", "^d3", "^b3")) for x in t)


# --- 2. A turn -------------------------------------------------------------------------------


def test_s2_move_at_most_one_level_up():
    p = make("c3=A c4=1 d4=2 e1=A a5=B a1=B")
    t = texts(p)
    assert any(x.startswith("c3>c4^") for x in t)
    assert not any(x.startswith("c3>d4") for x in t)


def test_s2_move_down_any_number_of_levels():
    p = make("c3=3A c4=0 e1=A a5=B a1=B")
    assert any(x.startswith("c3>c4^") for x in texts(p))


def test_s2_build_neighbours_the_moved_worker_including_the_square_it_left():
    p = make("c3=A e1=A a5=B a1=B")
    t = texts(p)
    assert "c3>c4^c3" in t
    assert not any(x.startswith("c3>c4^") and x.endswith("^c2") for x in t)


def test_s2_build_a_dome_on_level_3():
    p = make("c3=A d4=3 e1=A a5=B a1=B")
    after = play(p, "c3>c4^d4")
    assert after.has_dome(parse_square("d4"))
    assert after.level(parse_square("d4")) == 3
    assert "c3>c4^d4D" not in texts(p)


def test_s2_moving_up_onto_level_3_wins_at_once_with_no_build():
    p = make("c3=2A d4=3 e1=A a5=B a1=B")
    assert "c3>d4" in texts(p)
    assert not any(x.startswith("c3>d4^") for x in texts(p))
    after = play(p, "c3>d4")
    result = outcome(after)
    assert result.over
    assert result.winner == 0
    assert result.losers == (1,)
    assert legal_turns(after) == []


def test_s2_moving_from_level_3_to_level_3_is_not_moving_up():
    p = make("c3=3A d4=3 e1=A a5=B a1=B")
    assert "c3>d4" not in texts(p)
    assert any(x.startswith("c3>d4^") for x in texts(p))


def test_s2_a_player_with_no_complete_turn_loses():
    p = make("a1=A b1=2 a2=2 b2=2 e5=A d5=2 e4=2 d4=2 c3=B c4=B", seat=1)
    assert legal_turns(p) == []
    result = outcome(p)
    assert result.over
    assert result.winner == 1


def test_s2_a_turn_that_leaves_the_opponent_without_a_turn_wins():
    # B's only way out is up onto b1; A builds b1 to level 2 and B is stuck.
    p = make("a1=B b1=1 a2=2 b2=2X e5=B d5=2 e4=2 d4=2X c2=A c3=A")
    assert not outcome(p).over
    after = play(p, "c2>c1^b1")
    assert outcome(after).winner == 0
    assert str(after).endswith(" 2 -,- w1")


def test_s2_apply_rejects_an_illegal_turn():
    p = parse_position(OPENING)
    with pytest.raises(IllegalTurnError, match="b2>b4"):
        apply(p, parse_turn("b2>b4^b3"))
    with pytest.raises(IllegalTurnError):
        find_turn(p, "b2>c3")  # a move with no build is not a turn


# --- 4. Three and four players -------------------------------------------------------------

THREE = "c3=A a1=A e1=B e2=B a5=C e5=C"


def test_s4_three_players_take_turns_in_seat_order():
    p = make(THREE, gods="-,-,-")
    p2 = play(p, "c3>c4^c3")
    assert p2.to_move == 1
    p3 = play(p2, "e1>d1^c1")
    assert p3.to_move == 2
    p4 = play(p3, "a5>a4^a3")
    assert p4.to_move == 0


def test_s4_three_players_a_player_without_a_turn_loses_and_their_workers_leave():
    # Seat 2 (B) is walled in on e1/e2 once A builds d1 up to 2.
    p = make("e1=B e2=B d1=1 d2=2 d3=2 e3=2 c2=A a5=A a4=C b5=C", gods="-,-,-")
    after = play(p, "c2>c1^d1")
    assert after.workers[1] == 0
    assert after.eliminated == 0b010
    assert after.to_move == 2
    assert str(after).split()[3] == "x2"
    assert outcome(after).over is False
    # The other two play on.
    assert legal_turns(after)


def test_s4_three_players_a_win_by_anyone_ends_the_game():
    p = make("c3=2A d4=3 a1=A e1=B e2=B a5=C e5=C", gods="-,-,-")
    after = play(p, "c3>d4")
    result = outcome(after)
    assert result.over
    assert result.winner == 0
    assert result.losers == (1, 2)


def test_s4_three_players_last_side_standing_wins():
    p = make("e1=B e2=B d1=1 d2=2 d3=2 e3=2 c2=A a5=A a4=C b5=C", gods="-,-,-", flags="-")
    after = play(p, "c2>c1^d1")
    q = resign(after, 2)
    assert outcome(q).winner == 0


FOUR = "c3=A a1=A e1=B e5=B"


def test_s4_four_players_teams_alternate_and_share_two_workers():
    p = make(FOUR, gods="-,-,-,-")
    assert {x[:2] for x in texts(p)} == {"a1", "c3"}  # seat 1 moves team A's workers
    p2 = play(p, "c3>c4^c3")
    assert p2.to_move == 1
    assert {x[:2] for x in texts(p2)} == {"e1", "e5"}
    p3 = play(p2, "e1>d1^c1")
    assert p3.to_move == 2
    assert {x[:2] for x in texts(p3)} == {"a1", "c4"}


def test_s4_four_players_each_player_uses_their_own_god():
    p = make(FOUR, gods="artemis,-,-,-")
    assert any(x.count(">") == 2 for x in texts(p))
    p3 = make(FOUR, seat=3, gods="artemis,-,-,-")
    assert not any(x.count(">") == 2 for x in texts(p3))


def test_s4_four_players_a_win_is_the_team_win():
    p = make("c3=2A d4=3 a1=A e1=B e5=B", seat=3, gods="-,-,-,-")
    result = outcome(play(p, "c3>d4"))
    assert result.winner == 2
    assert result.losers == (1, 3)


def test_s4_four_players_opponent_means_the_other_team():
    p = make("c3=A c4=A d4=B a1=B", gods="apollo,-,-,-")
    t = texts(p)
    assert any(x.startswith("c3>d4^") for x in t)  # swap with team B
    assert not any(x.startswith("c3>c4") for x in t)  # never with the teammate


def test_s4_four_players_position_letters_are_teams():
    with pytest.raises(ValueError, match="worker letter"):
        make("c3=A a1=A e1=B e5=C", gods="-,-,-,-")


# --- 5. Time and resignation ---------------------------------------------------------------


def test_s5_resignation_with_two_players_loses():
    p = parse_position(OPENING)
    assert outcome(resign(p, 0)).winner == 1
    assert outcome(resign(p, 1)).winner == 0


def test_s5_resignation_with_three_players_workers_leave_and_play_goes_on():
    p = make(THREE, gods="-,-,-")
    q = resign(p, 1)
    assert q.workers[1] == 0
    assert q.eliminated == 0b010
    assert not outcome(q).over
    assert q.to_move == 0
    r = resign(p, 0)  # the seat to move resigns: the next seat moves
    assert r.to_move == 1


def test_s5_resignation_with_four_players_loses_for_the_team():
    p = make(FOUR, gods="-,-,-,-")
    result = outcome(resign(p, 2))
    assert result.over
    assert result.losers == (0, 2)


def test_s5_a_player_whose_time_runs_out_loses():
    p = parse_position(OPENING)
    assert outcome(lose_on_time(p, 1)).winner == 0
    with pytest.raises(IllegalTurnError):
        resign(lose_on_time(p, 1), 0)  # the game is over
