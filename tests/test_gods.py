"""One test per ruling of RULES.md section 6 (the ten simple gods) and section 2's
"forced is not moved"."""

from __future__ import annotations

import pytest

from santorini_p2p.engine import (
    GOD_NAMES,
    Turn,
    apply,
    find_turn,
    hermes_form,
    legal_form,
    legal_turns,
    outcome,
    parse_square,
    parse_turn,
    plain_form,
)
from tests.positions import make, texts


def play(p, text):
    return apply(p, find_turn(p, text))


def sq(name):
    return parse_square(name)


# --- General rulings -------------------------------------------------------------------------


@pytest.mark.parametrize("god", [g for g in GOD_NAMES if g != "hermes"])
def test_s6_may_is_optional_a_god_player_can_always_play_a_plain_turn(god):
    plain = texts(make("c3=A a1=A e5=B e1=B"))
    with_god = texts(make("c3=A a1=A e5=B e1=B", gods=f"{god},-"))
    assert plain <= with_god


def test_s6_hermes_plain_turns_that_change_level_stay_plain():
    p = make("c3=A c4=1 a1=A e5=B e1=B", gods="hermes,-")
    assert "c3>c4^c3" in texts(p)
    assert "c3>d3^c3" not in texts(p)  # same level: that is the power turn
    assert "Ha1,d3^c3" in texts(p)


def test_s6_domes_are_not_blocks():
    # Hephaestus' extra block never makes a dome: a level-2 square takes no second build.
    p = make("c3=A d4=2 a1=A e5=B e1=B", gods="hephaestus,-")
    assert "c3>c4^d4^d4" not in texts(p)


# --- 2. Forced is not moved ---------------------------------------------------------------


def test_s2_forced_is_not_moved_apollo_swap_onto_level_3_does_not_win():
    # Apollo on level 3 swaps with B on level 2: B is forced up onto level 3 and does not win.
    p = make("c3=3A d4=2B a1=A e5=B", gods="apollo,-")
    after = play(p, "c3>d4^e4")
    assert after.level(sq("c3")) == 3
    assert after.worker_side(sq("c3")) == 1
    assert not outcome(after).over


def test_s2_forced_is_not_moved_minotaur_push_onto_level_3_does_not_win():
    p = make("b2=1A c3=2B d4=3 a1=A e1=B", gods="minotaur,-")
    after = play(p, "b2>c3^b2")
    assert after.worker_side(sq("d4")) == 1
    assert after.level(sq("d4")) == 3
    assert not outcome(after).over


def test_s2_forced_is_not_moved_for_athena():
    # Apollo forces Athena's worker up: that is not Athena moving up.
    p = make("c3=A d4=1B a1=A e5=B", seat=2, gods="athena,apollo")
    after = play(p, "d4>c3^c4")
    assert after.worker_side(sq("d4")) == 0
    assert after.level(sq("d4")) == 1
    assert after.power_state == ()


def test_s2_forced_is_not_moved_for_pan():
    # Minotaur pushes Pan's worker down from 2 to 0: Pan does not win.
    p = make("b2=1B c3=2A d4=0 a1=A e5=B", seat=2, gods="pan,minotaur")
    after = play(p, "b2>c3^b2")
    assert after.worker_side(sq("d4")) == 0
    assert not outcome(after).over


# --- Apollo --------------------------------------------------------------------------------


def test_apollo_swap_obeys_normal_move_rules():
    p = make("c3=A d4=2B c4=1B a1=A", gods="apollo,-")
    t = texts(p)
    assert any(x.startswith("c3>c4^") for x in t)
    assert not any(x.startswith("c3>d4") for x in t)  # two up


def test_apollo_forced_worker_may_end_on_level_3_without_winning():
    p = make("c3=3A d4=2B a1=A e5=B", gods="apollo,-")
    assert any(x.startswith("c3>d4^") for x in texts(p))


def test_apollo_cannot_build_on_the_forced_workers_square():
    p = make("c3=A d4=B a1=A e5=B", gods="apollo,-")
    t = texts(p)
    assert any(x.startswith("c3>d4^") for x in t)
    assert "c3>d4^c3" not in t


def test_apollo_swap_that_leaves_no_build_is_not_legal():
    p = make("a1=A b1=B a2=0X b2=0X c1=0X c2=0X e5=A e4=B", gods="apollo,-")
    assert not any(x.startswith("a1") for x in texts(p))


def test_apollo_never_swaps_with_its_own_workers():
    p = make("c3=A c4=A e5=B e1=B", gods="apollo,-")
    assert not any(x.startswith("c3>c4") for x in texts(p))


def test_apollo_winning_by_swapping_up_onto_level_3_wins():
    p = make("c3=2A d4=3B a1=A e5=B", gods="apollo,-")
    assert "c3>d4" in texts(p)
    assert outcome(play(p, "c3>d4")).winner == 0


# --- Artemis -------------------------------------------------------------------------------


def test_artemis_moves_twice_but_not_back_to_the_start():
    p = make("c3=A a1=A e5=B e1=B", gods="artemis,-")
    t = texts(p)
    assert "c3>c4>c5^c4" in t
    assert not any(x.startswith("c3>c4>c3") for x in t)


def test_artemis_both_steps_obey_athena():
    p = make("c3=A c4=0 c5=1 a1=A e5=B e1=B", gods="artemis,athena", flags="a")
    t = texts(p)
    assert any(x.startswith("c3>c4^") for x in t)
    assert not any(x.startswith("c3>c4>c5") for x in t)
    p2 = make("c3=A c4=0 c5=1 a1=A e5=B e1=B", gods="artemis,athena")
    assert any(x.startswith("c3>c4>c5^") for x in texts(p2))


def test_artemis_win_on_the_first_step_ends_the_turn():
    p = make("c3=2A c4=3 a1=A e5=B e1=B", gods="artemis,-")
    t = texts(p)
    assert "c3>c4" in t
    assert not any(x.startswith("c3>c4>") for x in t)


def test_artemis_win_on_the_second_step_also_wins():
    p = make("c3=1A c4=2 c5=3 a1=A e5=B e1=B", gods="artemis,-")
    assert "c3>c4>c5" in texts(p)
    assert outcome(play(p, "c3>c4>c5")).winner == 0


def test_artemis_builds_next_to_the_final_square():
    p = make("c3=A a1=A e5=B e1=B", gods="artemis,-")
    t = texts(p)
    assert "c3>c4>c5^b5" in t
    assert "c3>c4>c5^c3" not in t  # c3 does not neighbour c5


# --- Athena --------------------------------------------------------------------------------


def test_athena_moving_up_sets_the_flag_and_blocks_the_opponent():
    p = make("c3=A c4=1 a1=A e5=B d5=1 e1=B", gods="athena,-")
    after = play(p, "c3>c4^c3")
    assert "a" in after.power_state
    assert str(after).endswith(" a")
    assert not any(x.startswith("e5>d5") for x in texts(after))


def test_athena_not_moving_up_clears_the_flag():
    p = make("c3=A b3=1 a1=A e5=B d5=1 e1=B", gods="athena,-", flags="a")
    after = play(p, "c3>c2^c3")
    assert "a" not in after.power_state
    assert any(x.startswith("e5>d5^") for x in texts(after))


def test_athena_only_her_own_moves_count():
    # The opponent moving up does not set Athena's flag.
    p = make("c3=B c4=1 a1=B e5=A e1=A", gods="athena,-", seat=2)
    after = play(p, "c3>c4^c3")
    assert "a" not in after.power_state


def test_athena_lasts_until_her_next_turn_with_three_players():
    p = make("c3=A c4=1 a1=A e5=B d5=1 e1=B a5=C b5=1 a3=C", gods="athena,-,-")
    p2 = play(p, "c3>c4^c3")
    assert not any(x.startswith("e5>d5") for x in texts(p2))
    p3 = play(p2, "e1>d1^c1")
    assert "a" in p3.power_state
    assert not any(x.startswith("a5>b5") for x in texts(p3))


def test_athena_with_four_players_her_teammate_is_free():
    p = make("c3=A a1=A c4=1 b1=1 e5=B e1=B d5=1", gods="athena,-,-,-")
    p2 = play(p, "c3>c4^c3")
    assert "a" in p2.power_state
    assert not any(x.startswith("e5>d5") for x in texts(p2))  # seat 2, the other team
    p3 = play(p2, "e1>e2^e1")
    assert any(x.startswith("a1>b1^") for x in texts(p3))  # seat 3, her teammate, moves up
    p4 = play(p3, "a1>a2^a1")
    assert p4.to_move == 3
    assert "a" in p4.power_state
    assert not any(x.startswith("e5>d5") for x in texts(p4))  # seat 4, the other team


def test_athena_blocks_apollo_swap_up():
    p = make("c3=A d4=1B a1=A e5=B", gods="apollo,athena", flags="a")
    assert not any(x.startswith("c3>d4") for x in texts(p))


def test_athena_blocks_minotaur_push_up():
    p = make("b2=A c3=1B a1=A e5=B", gods="minotaur,athena", flags="a")
    assert not any(x.startswith("b2>c3") for x in texts(p))


# --- Atlas ---------------------------------------------------------------------------------


def test_atlas_builds_a_dome_on_level_0_1_or_2():
    p = make("c3=A d4=1 b4=2 a1=A e5=B e1=B", gods="atlas,-")
    t = texts(p)
    assert {"c3>c4^c5D", "c3>c4^d4D", "c3>c4^b4D"} <= t
    after = play(p, "c3>c4^d4D")
    assert after.has_dome(sq("d4"))
    assert after.level(sq("d4")) == 1


def test_atlas_dome_on_level_3_is_the_normal_build_without_d():
    p = make("c3=A d4=3 a1=A e5=B e1=B", gods="atlas,-")
    t = texts(p)
    assert "c3>c4^d4" in t
    assert "c3>c4^d4D" not in t


# --- Demeter -------------------------------------------------------------------------------


def test_demeter_second_build_on_another_square_optional():
    p = make("c3=A a1=A e5=B e1=B", gods="demeter,-")
    t = texts(p)
    assert "c3>c4^c3" in t
    assert "c3>c4^c3^c5" in t
    assert "c3>c4^c5^c5" not in t


def test_demeter_second_build_may_be_a_dome():
    p = make("c3=A d4=3 a1=A e5=B e1=B", gods="demeter,-")
    after = play(p, "c3>c4^c5^d4")
    assert after.has_dome(sq("d4"))
    assert after.level(sq("c5")) == 1


def test_demeter_builds_are_written_in_ascending_order_and_order_does_not_matter():
    p = make("c3=A a1=A e5=B e1=B", gods="demeter,-")
    assert find_turn(p, "c3>c4^d4^b3") == find_turn(p, "c3>c4^b3^d4")
    assert str(find_turn(p, "c3>c4^d4^b3")) == "c3>c4^b3^d4"


# --- Hephaestus ----------------------------------------------------------------------------


def test_hephaestus_second_block_on_the_same_square():
    p = make("c3=A d4=1 a1=A e5=B e1=B", gods="hephaestus,-")
    t = texts(p)
    assert {"c3>c4^c5^c5", "c3>c4^d4^d4"} <= t
    assert play(p, "c3>c4^d4^d4").level(sq("d4")) == 3


def test_hephaestus_only_when_the_first_build_went_onto_level_0_or_1():
    p = make("c3=A d4=2 b4=3 a1=A e5=B e1=B", gods="hephaestus,-")
    t = texts(p)
    assert "c3>c4^d4^d4" not in t
    assert "c3>c4^b4^b4" not in t
    assert "c3>c4^c5^b5" not in t  # the extra block goes on the same square only


# --- Hermes --------------------------------------------------------------------------------


def test_hermes_zero_moves_then_a_build_is_legal():
    p = make("c3=A a1=A e5=B e1=B", gods="hermes,-")
    assert "Ha1,c3^c4" in texts(p)
    after = play(p, "Ha1,c3^b2")
    assert after.level(sq("b2")) == 1
    assert after.worker_side(sq("a1")) == 0


def test_hermes_moves_both_workers_any_number_of_same_level_steps():
    p = make("c3=A a1=A e5=B e1=B", gods="hermes,-")
    assert "He4,a5^d4" in texts(p)  # both cross the board; squares in index order


def test_hermes_power_turn_never_changes_level():
    # Row 1 is level 0, everything else level 1 except the B workers' corner squares.
    cells = " ".join(f"{chr(97 + f)}{r}=1" for f in range(5) for r in range(2, 6))
    p = make(cells + " b1=A c1=A a5=1B e5=1B", gods="hermes,-")
    h = {x for x in texts(p) if x.startswith("H")}
    finals = {x[1:6] for x in h}
    assert finals == {
        f"{a},{b}"
        for i, a in enumerate(["a1", "b1", "c1", "d1", "e1"])
        for b in ["a1", "b1", "c1", "d1", "e1"][i + 1 :]
    }


def test_hermes_any_interleaving_of_the_two_workers():
    # A one-square-wide corridor c1-b1-a1 of level 0: the worker on c1 must go to a1 before
    # the one on d1 can reach b1.
    cells = " ".join(f"{chr(97 + f)}{r}=2" for f in range(5) for r in range(2, 6))
    p = make(cells + " c1=A d1=A a5=2B e5=2B e1=1", gods="hermes,-")
    assert "Ha1,b1^a2" in texts(p)


def test_hermes_workers_on_different_levels_each_keep_their_level():
    p = make("c3=1A c4=1 c5=1 a1=A b1=0 e5=B e1=B", gods="hermes,-")
    h = {x for x in texts(p) if x.startswith("H")}
    assert "Ha1,c5^b5" in h  # a1 stays put, c3 walks along level 1 to c5
    assert not any(x[1:6] == "a1,c2" for x in h)  # c2 is level 0


def test_hermes_normal_turn_still_available_and_moving_up_onto_level_3_wins():
    p = make("c3=2A d4=3 a1=A e5=B e1=B", gods="hermes,-")
    assert "c3>d4" in texts(p)
    assert outcome(play(p, "c3>d4")).winner == 0


def test_hermes_power_turn_is_written_in_h_form_even_for_one_step():
    p = make("c3=A a1=A e5=B e1=B", gods="hermes,-")
    t = texts(p)
    assert "Ha1,c4^c3" in t
    assert "c3>c4^c3" not in t


def test_hermes_plain_spelling_of_a_one_step_turn_stands_for_its_h_form():
    p = make("c3=A a1=A e5=B e1=B", gods="hermes,-")
    plain = parse_turn("c3>c4^c3")
    assert str(hermes_form(p, plain)) == "Ha1,c4^c3"
    assert str(legal_form(p, plain)) == "Ha1,c4^c3"
    assert str(plain_form(p, find_turn(p, "Ha1,c4^c3"))) == "c3>c4^c3"


def test_hermes_plain_spelling_must_be_a_turn_the_worker_could_play():
    p = make("c3=A b2=A e5=B e1=B d4=1", gods="hermes,-")
    # The build is next to the other worker only: legal as a power turn, not as typed.
    assert "Hb2,c4^a1" in texts(p)
    assert hermes_form(p, parse_turn("c3>c4^a1")) is None
    assert legal_form(p, parse_turn("c3>c4^a1")) is None
    # Two squares away, onto the other worker, another player's worker.
    assert hermes_form(p, parse_turn("c3>c5^c4")) is None
    assert hermes_form(p, parse_turn("c3>b2^b3")) is None
    assert hermes_form(p, parse_turn("e5>e4^e3")) is None
    # A level up: a plain turn in its own right.
    assert hermes_form(p, parse_turn("c3>d4^d5")) is None
    assert legal_form(p, parse_turn("c3>d4^d5")) == parse_turn("c3>d4^d5")
    # Power turns in which both workers moved, or neither, have no plain spelling.
    assert plain_form(p, find_turn(p, "Ha2,c4^c3")) is None
    assert plain_form(p, find_turn(p, "Hb2,c3^c4")) is None


def test_hermes_plain_spellings_match_the_power_turns_one_for_one():
    p = make("c3=A b2=A d4=B e1=B c4=1 b3=2 a1=X", gods="hermes,-")
    power = {t for t in legal_turns(p) if t.both}
    mine = [parse_square("c3"), parse_square("b2")]
    spelled = {}
    for w in mine:
        for t in range(25):
            for b in range(25):
                plain = Turn(w, (t,), (b,))
                h = legal_form(p, plain)
                if h is not None and h != plain:
                    spelled[plain] = h
    assert spelled, "some one-step turns are power turns"
    assert all(plain_form(p, h) == t for t, h in spelled.items())
    assert {h for h in power if plain_form(p, h) is not None} == set(spelled.values())


def test_no_plain_spelling_for_other_gods():
    p = make("c3=A a1=A e5=B e1=B", gods="-,hermes")
    assert hermes_form(p, parse_turn("c3>c4^c3")) is None
    assert legal_form(p, parse_turn("c3>c4^c3")) == parse_turn("c3>c4^c3")


# --- Minotaur ------------------------------------------------------------------------------


def test_minotaur_pushes_straight_on_to_an_unoccupied_square_at_any_level():
    p = make("b2=A c3=B d4=2 a1=A e5=B", gods="minotaur,-")
    after = play(p, "b2>c3^b2")
    assert after.worker_side(sq("d4")) == 1
    assert after.worker_side(sq("c3")) == 0


def test_minotaur_push_square_must_be_on_the_board_with_no_worker_and_no_dome():
    off = make("d4=A e5=B a1=A a5=B", gods="minotaur,-")
    assert not any(x.startswith("d4>e5") for x in texts(off))
    worker = make("b2=A c3=B d4=B a1=A", gods="minotaur,-")
    assert not any(x.startswith("b2>c3") for x in texts(worker))
    dome = make("b2=A c3=B d4=1X a1=A e5=B", gods="minotaur,-")
    assert not any(x.startswith("b2>c3") for x in texts(dome))


def test_minotaur_own_move_obeys_normal_rules_and_wins_moving_up_onto_level_3():
    up2 = make("b2=A c3=2B a1=A e5=B", gods="minotaur,-")
    assert not any(x.startswith("b2>c3") for x in texts(up2))
    win = make("b2=2A c3=3B a1=A e5=B", gods="minotaur,-")
    assert "b2>c3" in texts(win)
    assert outcome(play(win, "b2>c3")).winner == 0


def test_minotaur_no_build_on_the_pushed_workers_new_square():
    p = make("b2=A c3=B a1=A e5=B", gods="minotaur,-")
    t = texts(p)
    assert any(x.startswith("b2>c3^") for x in t)
    assert "b2>c3^d4" not in t


# --- Pan -----------------------------------------------------------------------------------


@pytest.mark.parametrize(("start", "end"), [(3, 1), (3, 0), (2, 0)])
def test_pan_wins_moving_down_two_or_more_levels(start, end):
    p = make(f"c3={start}A c4={end} a1=A e5=B e1=B", gods="pan,-")
    assert "c3>c4" in texts(p)
    assert not any(x.startswith("c3>c4^") for x in texts(p))
    assert outcome(play(p, "c3>c4")).winner == 0


def test_pan_moving_down_one_level_is_not_a_win():
    p = make("c3=2A c4=1 a1=A e5=B e1=B", gods="pan,-")
    assert "c3>c4" not in texts(p)


# --- Prometheus ----------------------------------------------------------------------------


def test_prometheus_builds_before_and_after_moving():
    p = make("c3=A a1=A e5=B e1=B", gods="prometheus,-")
    t = texts(p)
    assert "c3^c2>b3^c2" in t  # the second build may go on the same square
    after = play(p, "c3^c2>b3^c2")
    assert after.level(sq("c2")) == 2


def test_prometheus_may_not_move_up_after_building_first():
    p = make("c3=A c4=1 a1=A e5=B e1=B", gods="prometheus,-")
    t = texts(p)
    assert any(x.startswith("c3>c4^") for x in t)  # without a first build it may
    assert not any(x.startswith("c3^") and ">c4" in x for x in t)
    assert not any(x.startswith("c3^d4>d4") for x in t)  # d4 is now level 1: up


def test_prometheus_may_step_onto_what_it_built_if_that_is_not_up():
    p = make("c3=1A d4=0 a1=A e5=B e1=B", gods="prometheus,-")
    assert "c3^d4>d4^c3" in texts(p)


def test_prometheus_first_build_that_leaves_no_move_then_build_is_not_legal():
    # c3 on level 0 with one free neighbour c4: building there first leaves no move.
    cells = "b2=0X c2=0X d2=0X b3=0X d3=0X b4=0X d4=0X"
    p = make(cells + " c3=A a1=A e5=B e1=B", gods="prometheus,-")
    t = texts(p)
    assert any(x.startswith("c3>c4^") for x in t)
    assert not any(x.startswith("c3^c4") for x in t)
