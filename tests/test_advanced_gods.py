"""One test per ruling of RULES.md section 8 (the fifteen advanced gods): the general rulings,
each god's rulings, the interactions with the simple gods, and the setup rules of Bia and Eros.
"""

from __future__ import annotations

import pytest

from santorini_p2p.engine import (
    ADVANCED,
    Phase,
    apply,
    apply_action,
    apply_unchecked,
    find_turn,
    legal_actions,
    legal_turns,
    new_game,
    outcome,
    parse_action,
    parse_position,
    parse_square,
    square_name,
)
from santorini_p2p.errors import IllegalTurnError
from tests.positions import make as _make
from tests.positions import texts

FOUR_TOWERS = "a5=3X b5=3X d5=3X e5=3X"
"""Four complete towers (domes on level 3) along rank 5: one more ends the game for Chronus."""


def make(cells="", seat=1, gods="-,-", flags="-"):
    """``tests.positions.make``, checked to be in play (not a placement still due)."""
    p = _make(cells, seat=seat, gods=gods, flags=flags)
    assert p.phase is Phase.PLAY, f"{p} is not in play"
    return p


def play(p, text):
    return apply(p, find_turn(p, text))


def sq(name):
    return parse_square(name)


def of(p, worker):
    """The legal turn texts of the worker on square ``worker``."""
    return {t for t in texts(p) if t.startswith(worker)}


def final(turn):
    """The square where the turn's worker ends its last move."""
    return square_name(turn.path[-1])


def moves_up(p, turn):
    """Whether the turn's worker steps up at some point of its path (levels of ``p``)."""
    at = turn.worker
    for s in turn.path:
        if p.level(s) > p.level(at):
            return True
        at = s
    return False


def workers(p, side):
    """The squares of ``side``'s workers, by name."""
    return {square_name(s) for s in range(25) if p.worker_side(s) == side}


# --- General rulings ---------------------------------------------------------------------------


def test_s8_forced_is_not_moved_charon_ferry_onto_level_3_does_not_win():
    # Charon on c3 ferries the worker on d4 (level 2) across to b2 (level 3).
    p = make("c3=A d4=2B b2=3 a5=A e1=B", gods="charon,-")
    after = play(p, "c3~d4>c4^c3")
    assert after.worker_side(sq("b2")) == 1
    assert after.level(sq("b2")) == 3
    assert not outcome(after).over


def test_s8_forced_is_not_moved_charon_ferry_down_two_levels_is_no_pan_win():
    p = make("c3=2A d4=2B b2=0 a5=A e1=B", gods="charon,pan")
    after = play(p, "c3~d4>c4^c3")
    assert after.worker_side(sq("b2")) == 1
    assert not outcome(after).over


def test_s8_forced_is_not_moved_charon_ferry_up_is_not_athena_moving_up():
    # Athena's worker ferried from d4 (level 0) up to b2 (level 1) sets no flag.
    p = make("c3=A d4=B b2=1 a5=A e1=B", gods="charon,athena")
    after = play(p, "c3~d4>c2^c3")
    assert after.worker_side(sq("b2")) == 1
    assert after.level(sq("b2")) == 1
    assert after.state_of(1) == ""
    assert str(after).endswith(" -")


def test_s8_forced_is_not_moved_zeus_lift_onto_level_3_does_not_win():
    p = make("c3=2A c4=2 a1=A e5=B e1=B", gods="zeus,-")
    after = play(p, "c3>c4^c4")
    assert after.worker_side(sq("c4")) == 0
    assert after.level(sq("c4")) == 3
    assert not outcome(after).over


def test_s8_forced_is_not_moved_zeus_lift_is_no_move_up_for_athenas_flag():
    # Athena's flag blocks moving up, not Zeus's lift: the lift is not a move.
    p = make("c3=A a1=A e5=B e1=B c4=1", gods="zeus,athena", flags="a")
    t = texts(p)
    assert not any(x.startswith("c3>c4") for x in t)
    assert "c3>d4^d4" in t
    after = play(p, "c3>d4^d4")
    assert after.level(sq("d4")) == 1
    assert after.worker_side(sq("d4")) == 0


def test_s8_complete_turns_only_a_step_with_no_possible_build_is_not_a_turn():
    # Charon on b1 can ferry Limus's worker from c1 to a1 and step into c1, but every square
    # next to c1 is then domed or next to a Limus worker: no build, so no turn.
    walls = "a2=0X b2=0X c2=0X d2=0X"
    p = make(walls + " d1=0X b1=A c1=B e5=A e3=B", gods="charon,limus")
    assert of(p, "b1") == set()
    # Without the dome on d1 the same ferry and step have a build: the turn exists.
    q = make(walls + " b1=A c1=B e5=A e3=B", gods="charon,limus")
    assert "b1~c1>c1^d1" in texts(q)


def test_s8_removed_workers_leave_the_game_and_the_remover_completes_its_turn():
    p = make("a1=A c3=B e5=A e1=B", gods="bia,-")
    after = play(p, "a1>b2^a1")
    assert workers(after, 1) == {"e1"}
    assert after.level(sq("a1")) == 1
    assert after.to_move == 1
    assert not outcome(after).over
    # The game goes on with one worker on that side.
    assert of(after, "e1")


def test_s8_a_side_with_no_workers_loses_when_its_turn_starts():
    # Medusa petrifies the last opponent worker: that side then has no turn.
    p = make("c3=1A c4=1 a1=A d4=B", gods="medusa,-")
    after = play(p, "c3>c4^c5")
    assert workers(after, 1) == set()
    assert outcome(after).over
    assert outcome(after).winner == 0


def test_s8_complete_tower_is_a_dome_on_level_3_not_an_atlas_low_dome():
    # Four complete towers and a low dome stand: that is four, not five.
    p = make(FOUR_TOWERS + " a3=1X c3=B a1=B d1=A e1=A d4=3", seat=2, gods="chronus,atlas")
    low = play(p, "c3>c4^c5D")
    assert not outcome(low).over
    assert play(p, "c3>c4^d4").winner == 0


@pytest.mark.parametrize("target", [square_name(s) for s in range(25)])
def test_s8_perimeter_is_the_16_edge_squares_and_the_9_others_the_middle(target):
    # Against Hera a move up onto level 3 wins in the middle only.
    t = sq(target)
    f, r = t % 5, t // 5
    frm = square_name((r + (1 if r < 4 else -1)) * 5 + f)
    others = [n for n in ("a1", "e1", "a5", "e5", "c1", "c5", "a3") if n not in (target, frm)]
    p = make(f"{frm}=2A {target}=3 {others[0]}=A {others[1]}=B {others[2]}=B", gods="-,hera")
    middle = 0 < f < 4 and 0 < r < 4
    assert (f"{frm}>{target}" in texts(p)) == middle
    assert any(x.startswith(f"{frm}>{target}^") for x in texts(p)) != middle


# --- Aphrodite -------------------------------------------------------------------------------


def test_s8_aphrodite_bound_workers_are_those_next_to_hers_at_the_start_of_the_turn():
    # Charon's c3 starts next to her d4: it is bound. It ferries her worker to b2 and must
    # then end next to b2 (or e1); d4 and d3, next to d4's old square only, are out.
    p = make("c3=A d4=B a5=A e1=B", gods="charon,aphrodite")
    t = texts(p)
    assert "c3~d4>c2^c3" in t
    assert not any(x.startswith("c3~d4>d4^") for x in t)
    assert not any(x.startswith("c3~d4>d3^") for x in t)
    # a5 started away from her workers: it is free.
    assert "a5>a4^a5" in t


def test_s8_aphrodite_only_the_final_square_is_checked_where_her_workers_stand_then():
    # Apollo swaps with her worker: she now stands on c3, next to Apollo's final d4.
    swap = make("c3=A d4=B a1=A e1=B", gods="apollo,aphrodite")
    t = texts(swap)
    assert any(x.startswith("c3>d4^") for x in t)
    assert not any(x.startswith("c3>b2^") for x in t)
    # Minotaur pushes her worker from c3 to d4: b2's move to c3 ends next to it.
    push = make("b2=A c3=B a5=A e1=B", gods="minotaur,aphrodite")
    assert any(x.startswith("b2>c3^") for x in texts(push))
    assert not any(x.startswith("b2>a1^") for x in texts(push))


def test_s8_aphrodite_artemis_intermediate_steps_are_free():
    # c3 is bound by d4; the only way to c5 (next to d4) is through b4, which is not.
    p = make("c3=A d4=B c4=0X d5=0X a1=A e1=B", gods="artemis,aphrodite")
    t = texts(p)
    assert "c3>b4>c5^b5" in t
    assert not any(x.startswith("c3>b4^") for x in t)
    assert not any(x.startswith("c3>b4>a5^") for x in t)


def test_s8_aphrodite_triton_intermediate_steps_are_free():
    # Triton's b1 is bound by c2; with c1 domed it reaches d1 (next to c2) only round the
    # whole perimeter, through squares far from her workers.
    p = make("b1=A c2=B c1=0X b3=A c3=B", gods="triton,aphrodite")
    turns = [t for t in legal_turns(p) if square_name(t.worker) == "b1"]
    assert any(final(t) == "d1" and len(t.path) > 3 for t in turns)
    assert not any(final(t) in ("a3", "e3", "c5") for t in turns)


def test_s8_aphrodite_hermes_intermediate_steps_are_free():
    p = make("c3=A d4=B c4=0X d5=0X a1=A e1=B", gods="hermes,aphrodite")
    t = texts(p)
    assert "Ha1,c5^b5" in t
    assert not any(x.startswith("Ha1,a5^") for x in t)
    assert not any(x.startswith("Ha1,b4^") for x in t)  # b4 is not next to her workers


def test_s8_aphrodite_a_bound_worker_cannot_win_away_from_her():
    p = make("c3=2A d2=B d3=3 b4=3 a5=A e5=B", gods="-,aphrodite")
    t = texts(p)
    assert "c3>d3" in t
    assert "c3>b4" not in t
    assert not any(x.startswith("c3>b4") for x in t)


def test_s8_aphrodite_a_bound_worker_that_does_not_move_is_free():
    p = make("c3=A d4=B a1=A e5=B", gods="hermes,aphrodite")
    t = texts(p)
    # Hermes' power turn: c3 stays put (zero steps), a1 walks to a2, c3 builds.
    assert "Ha2,c3^b4" in t
    # A plain turn of the other worker.
    q = make("c3=A d4=B a1=A e5=B", gods="-,aphrodite")
    assert "a1>a2^a1" in texts(q)


def test_s8_aphrodite_a_worker_of_hers_that_bias_move_removes_still_counts():
    # Bia's b2 is bound by a1; b2>c3 kills her d4 and ends next to d4 only.
    p = make("b2=A a1=B d4=B e1=A", gods="bia,aphrodite")
    t = texts(p)
    assert "b2>c3^b2" in t
    assert not any(x.startswith("b2>c2^") for x in t)
    after = play(p, "b2>c3^b2")
    assert workers(after, 1) == {"a1"}


# --- Ares ------------------------------------------------------------------------------------


def test_s8_ares_removal_is_optional_and_one_block():
    p = make("c3=A a1=A b1=2 e5=B e1=B", gods="ares,-")
    t = texts(p)
    assert "c3>c4^c3" in t
    assert "c3>c4^c3-b1" in t
    assert play(p, "c3>c4^c3-b1").level(sq("b1")) == 1


def test_s8_ares_the_square_has_1_to_3_blocks_no_dome_no_worker():
    p = make("c3=A a1=A b1=3 a2=0 b2=1X e5=B e1=B", gods="ares,-")
    q = make("c3=A a1=A b1=3 a2=2B b2=1X e5=B", gods="ares,-")
    for pos in (p, q):
        removals = {x.rsplit("-", 1)[1] for x in of(pos, "c3>c4^c3") if "-" in x}
        assert removals == {"b1"}
    assert play(p, "c3>c4^c3-b1").level(sq("b1")) == 2


def test_s8_ares_the_block_just_built_may_be_removed():
    p = make("c3=A a1=A e5=B e1=B", gods="ares,-")
    # a2 and b2 are both next to b3 and a1: the two turns reach one position, written once
    # with the lower square (SPEC.md 2.1).
    assert "c3>b3^a2-a2" in texts(p)
    assert "c3>b3^b2-b2" not in texts(p)
    after = play(p, "c3>b3^a2-a2")
    assert after.level(sq("a2")) == 0
    assert after.level(sq("b2")) == 0


def test_s8_ares_removes_next_to_the_worker_that_did_not_move():
    p = make("c3=A a1=A d5=1 b1=1 e5=B e1=B", gods="ares,-")
    t = of(p, "c3>c4^c3")
    assert "c3>c4^c3-b1" in t
    assert "c3>c4^c3-d5" not in t  # next to the moved worker only


def test_s8_ares_no_power_with_one_worker_left():
    p = make("c3=A d2=1 a1=B e5=B", gods="ares,medusa")
    assert texts(p)
    assert not any("-" in x for x in texts(p))
    # With his second worker on e1 (next to d2) a removal is there.
    q = make("c3=A e1=A d2=1 a1=B e5=B", gods="ares,medusa")
    assert "c3>c4^c3-d2" in texts(q)


def test_s8_ares_removal_is_not_a_build_limus_does_not_restrict_it():
    # b1 is next to Limus's c1: no build there, but Ares may remove its block.
    p = make("e5=A a1=A b1=1 c1=B e2=B", gods="ares,limus")
    t = texts(p)
    assert "e5>e4^e5-b1" in t
    assert not any(x.startswith("a1>a2^b1") for x in t)


# --- Bia -------------------------------------------------------------------------------------


def test_s8_bia_her_own_moves_only():
    # The opponent moving towards her worker removes nothing.
    p = make("b2=B d4=A a5=A e1=B", seat=2, gods="bia,-")
    after = play(p, "b2>c3^b2")
    assert workers(after, 0) == {"d4", "a5"}
    # Nor does her worker forced by Apollo towards the opponent's line.
    q = make("c3=B d4=A b2=B a5=A", seat=2, gods="bia,apollo")
    after = play(q, "c3>d4^e5")
    assert workers(after, 1) == {"b2", "d4"}
    assert workers(after, 0) == {"c3", "a5"}


@pytest.mark.parametrize(
    ("to", "victim"),
    [
        ("c4", "c5"),
        ("d4", "e5"),
        ("d3", "e3"),
        ("d2", "e1"),
        ("c2", "c1"),
        ("b2", "a1"),
        ("b3", "a3"),
        ("b4", "a5"),
    ],
)
def test_s8_bia_kills_in_any_direction(to, victim):
    p = make(f"c3=A {victim}=B a2=A e4=B", gods="bia,-")
    after = play(p, f"c3>{to}^c3")
    assert workers(after, 1) == {"e4"}


@pytest.mark.parametrize("level", [0, 1, 2, 3])
def test_s8_bia_the_victims_level_does_not_matter(level):
    p = make(f"b2=A d4={level}B a1=A e1=B", gods="bia,-")
    after = play(p, "b2>c3^b2")
    assert workers(after, 1) == {"e1"}


def test_s8_bia_still_builds_after_a_kill_with_the_remaining_opponent_workers():
    # The victim's square is free to build on.
    p = make("b2=A d4=B a1=A e1=B", gods="bia,-")
    assert "b2>c3^d4" in texts(p)
    # Killing Limus's d4 lifts its ban; Limus's a5 still bans b4.
    q = make("b2=A d4=B a1=A a5=B", gods="bia,limus")
    t = texts(q)
    assert "b2>c3^c4" in t
    assert "b2>c3^d3" in t
    assert "b2>c3^b4" not in t


def test_s8_bia_killing_the_last_worker_completes_the_turn_then_the_opponent_has_none():
    p = make("b2=A d4=B a1=A", gods="bia,-")
    t = texts(p)
    assert "b2>c3" not in t  # no win at once: she builds
    assert "b2>c3^b2" in t
    after = play(p, "b2>c3^b2")
    assert after.level(sq("b2")) == 1
    assert outcome(after).winner == 0


@pytest.mark.parametrize(
    "drawn",
    [
        ("bia", "pan"),
        ("pan", "bia"),
    ],
)
def test_s8_bia_setup_places_first_on_the_perimeter(drawn):
    p = new_game(2, "random", drawn=drawn)
    bia = drawn.index("bia")
    # Bia's seat is the one to act, and the position says so.
    assert p.to_move == bia
    assert parse_position(str(p)) == p
    with pytest.raises(IllegalTurnError, match="perimeter"):
        apply_action(p, parse_action("place a1,c3"))
    p = apply_action(p, parse_action("place a1,b1"))
    assert p.to_move == 1 - bia
    p = apply_action(p, parse_action("place c3,d4"))  # the other side places anywhere
    assert workers(p, bia) == {"a1", "b1"}
    assert workers(p, 1 - bia) == {"c3", "d4"}
    assert p.to_move == 0
    assert texts(p)


def test_s8_bia_setup_places_first_after_a_draft_too():
    p = new_game(2, "draft", drawn=("pan", "bia", "apollo", "atlas"))
    p = apply_action(p, parse_action("god pan"))
    p = apply_action(p, parse_action("god bia"))
    assert p.gods == ("pan", "bia")
    assert workers(apply_action(p, parse_action("place a1,b1")), 1) == {"a1", "b1"}
    assert p.to_move == 1


# --- Charon ----------------------------------------------------------------------------------


def test_s8_charon_the_ferrying_worker_moves_and_may_enter_the_square_left():
    p = make("b2=A c3=B e5=A e1=B", gods="charon,-")
    after = play(p, "b2~c3>c3^d4")
    assert after.worker_side(sq("a1")) == 1
    assert after.worker_side(sq("c3")) == 0
    assert after.worker_side(sq("b2")) == -1
    assert after.level(sq("d4")) == 1
    # Every ferry is followed by a move of the ferrying worker itself.
    for t in legal_turns(p):
        if t.before >= 0:
            assert square_name(t.worker) == "b2"
            assert t.path


@pytest.mark.parametrize(
    ("cells", "legal"),
    [
        ("b2=A c3=B a1=0 e5=A e1=B", True),
        ("b2=A c3=B a1=2 e5=A e1=B", True),  # any level
        ("b2=A c3=B a1=3 e5=A e1=B", True),
        ("b2=A c3=B a1=0X e5=A e1=B", False),  # a dome
        ("b2=A c3=B a1=2X e5=A e1=B", False),
        ("b2=A c3=B a1=A e1=B", False),  # a worker
        ("b2=A c3=B a1=B e5=A", False),
        ("a1=A b2=B e5=A e1=B", False),  # off the board (a1 is a corner)
        ("a2=A b2=B e5=A e1=B", False),  # off the board (a2 is on the a-file)
    ],
)
def test_s8_charon_target_square_on_the_board_no_worker_no_dome_any_level(cells, legal):
    p = make(cells, gods="charon,-")
    ferries = {x for x in texts(p) if "~" in x}
    assert bool(ferries) == legal
    if legal:
        assert {x.split(">")[0] for x in ferries} == {"b2~c3"}
        after = play(p, sorted(ferries)[0])
        assert after.worker_side(sq("a1")) == 1
        assert after.level(sq("a1")) == p.level(sq("a1"))


def test_s8_charon_the_ferried_worker_never_wins():
    # Ferried from level 2 up onto level 3: no win, the game goes on.
    p = make("c3=1A b2=2B d4=3 a5=A e1=B", gods="charon,-")
    after = play(p, "c3~b2>b2^c3")
    assert after.worker_side(sq("d4")) == 1
    assert not outcome(after).over
    assert texts(after)


def test_s8_charon_ferry_is_optional():
    plain = texts(make("b2=A c3=B e5=A e1=B"))
    with_charon = texts(make("b2=A c3=B e5=A e1=B", gods="charon,-"))
    assert plain < with_charon


# --- Chronus ---------------------------------------------------------------------------------


def test_s8_chronus_wins_when_the_opponents_build_completes_the_fifth_tower():
    p = make(FOUR_TOWERS + " c3=B a1=B d1=A e1=A d4=3", seat=2, gods="chronus,-")
    after = play(p, "c3>c4^d4")
    assert outcome(after).over
    assert outcome(after).winner == 0


def test_s8_chronus_wins_when_his_own_build_completes_the_fifth_tower():
    p = make(FOUR_TOWERS + " c3=A a1=A d1=B e1=B d4=3", gods="chronus,-")
    after = play(p, "c3>c4^d4")
    assert outcome(after).winner == 0


def test_s8_chronus_the_rest_of_the_turn_does_not_happen_no_second_build():
    p = make(FOUR_TOWERS + " c3=B a1=B d1=A e1=A d4=3", seat=2, gods="chronus,demeter")
    t = texts(p)
    assert "c3>c4^d4" in t
    assert "c3>c4^d4^c5" not in t  # the tower came first: the turn stopped
    after = play(p, "c3>c4^d4")
    assert after.winner == 0
    assert after.level(sq("c5")) == 0
    # Poseidon's extra builds stop at the one that completes the fifth tower (on b1).
    q = make(FOUR_TOWERS + " c3=B a1=B b1=3 d1=A e3=A", seat=2, gods="chronus,poseidon")
    extra = [x.split("^")[2:] for x in of(q, "c3>c4^c3^")]
    assert ["b1"] in extra
    assert ["a2", "b1"] in extra
    assert not any("b1" in e[:-1] for e in extra)
    assert play(q, "c3>c4^c3^b1").winner == 0


def test_s8_chronus_the_rest_of_the_turn_does_not_happen_no_removal():
    p = make(FOUR_TOWERS + " c3=B a1=B b1=1 d1=A e1=A d4=3", seat=2, gods="chronus,ares")
    t = texts(p)
    assert "c3>c4^c3-b1" in t
    assert "c3>c4^d4" in t
    assert "c3>c4^d4-b1" not in t
    assert play(p, "c3>c4^d4").level(sq("b1")) == 1


def test_s8_chronus_the_rest_of_the_turn_does_not_happen_no_petrification():
    # Medusa's c4 on level 1 next to Chronus's b4 on level 0.
    p = make(FOUR_TOWERS + " c3=1B c4=1 a1=B b4=A e1=A d4=3", seat=2, gods="chronus,medusa")
    after = play(p, "c3>c4^d4")
    assert after.winner == 0
    assert after.worker_side(sq("b4")) == 0
    other = play(p, "c3>c4^c3")  # no tower: the petrification happens
    assert other.worker_side(sq("b4")) == -1


def test_s8_chronus_atlas_low_domes_do_not_count():
    p = make(FOUR_TOWERS + " c3=B a1=B d1=A e1=A", seat=2, gods="chronus,atlas")
    after = play(p, "c3>c4^d4D")
    assert after.has_dome(sq("d4"))
    assert not outcome(after).over
    # The count stays at four after more low domes and any build.
    after2 = play(after, "d1>d2^c1")
    assert not outcome(after2).over


def test_s8_chronus_hera_does_not_stop_it():
    # Chronus moves into the perimeter (a4) and completes the fifth tower on b3.
    p = make(FOUR_TOWERS + " b4=A a1=A c1=B e1=B b3=3", gods="chronus,hera")
    after = play(p, "b4>a4^b3")
    assert outcome(after).winner == 0


# --- Eros ------------------------------------------------------------------------------------


@pytest.mark.parametrize("start", [0, 1, 2])
def test_s8_eros_wins_moving_onto_level_1_next_to_his_other_worker_on_level_1(start):
    p = make(f"c3={start}A c4=1 d5=1A a1=B e1=B", gods="eros,-")
    assert "c3>c4" in texts(p)
    assert outcome(play(p, "c3>c4")).winner == 0


@pytest.mark.parametrize(
    "cells",
    [
        "c3=1A c4=2 d5=1A",  # ends on level 2
        "c3=1A c4=1 d5=0A",  # the other on level 0
        "c3=1A c4=1 d5=2A",  # the other on level 2
        "c3=1A c4=1 e5=1A",  # not adjacent
    ],
)
def test_s8_eros_only_on_level_1_with_the_other_adjacent_on_level_1(cells):
    p = make(cells + " a1=B e1=B", gods="eros,-")
    assert "c3>c4" not in texts(p)
    assert any(x.startswith("c3>c4^") for x in texts(p))


def test_s8_eros_needs_both_workers():
    # One Eros worker left; the opponent's worker on level 1 is not his other worker.
    p = make("c3=A c4=1 d5=1B", gods="eros,medusa")
    assert "c3>c4" not in texts(p)
    assert any(x.startswith("c3>c4^") for x in texts(p))


def test_s8_eros_his_own_move_only():
    # Apollo forces Eros's c4 onto c3 (level 1), next to Eros's b2 on level 1: no win.
    p = make("c3=1B c4=A b2=1A e1=B", seat=2, gods="eros,apollo")
    after = play(p, "c3>c4^d4")
    assert after.worker_side(sq("c3")) == 0
    assert not outcome(after).over


@pytest.mark.parametrize(
    ("squares", "ok"),
    [
        ("c1,c5", True),
        ("a2,e4", True),
        ("a1,e5", True),
        ("a1,b1", False),
        ("a3,c5", False),
        ("b3,d3", False),
        ("a1,c3", False),
    ],
)
def test_s8_eros_setup_his_workers_start_on_opposite_edges(squares, ok):
    p = new_game(2, "random", drawn=("eros", "pan"))
    action = parse_action(f"place {squares}")
    if ok:
        after = apply_action(p, action)
        assert workers(after, 0) == set(squares.split(","))
    else:
        with pytest.raises(IllegalTurnError, match="edge"):
            apply_action(p, action)


def perimeter_pairs(edges):
    """Pairs of squares (ascending) with one on each of two opposite edges, or both on the
    perimeter when ``edges`` is None."""
    edge = {s for s in range(25) if s % 5 in (0, 4) or s // 5 in (0, 4)}
    north, south = set(range(20, 25)), set(range(5))
    west, east = set(range(0, 25, 5)), set(range(4, 25, 5))
    out = set()
    for a in range(25):
        for b in range(a + 1, 25):
            if edges is None:
                ok = a in edge and b in edge
            else:
                ok = any(
                    (a in one and b in other) or (a in other and b in one)
                    for one, other in ((north, south), (west, east))
                )
            if ok:
                out.add((a, b))
    return out


def test_s8_eros_setup_legal_placements_are_exactly_the_opposite_edge_pairs():
    p = new_game(2, "random", drawn=("eros", "pan"))
    placed = {a.squares for a in legal_actions(p)}
    assert placed == perimeter_pairs(edges=True)


def test_s8_bia_setup_legal_placements_are_exactly_the_perimeter_pairs():
    p = new_game(2, "random", drawn=("bia", "pan"))
    placed = {a.squares for a in legal_actions(p)}
    assert placed == perimeter_pairs(edges=None)
    assert len(placed) == 120  # 16 edge squares, two at a time


def test_s8_eros_setup_opposite_edges_also_with_snake_placement():
    p = new_game(2, "random", snake=True, drawn=("eros", "pan"))
    with pytest.raises(IllegalTurnError, match="edge"):
        apply_action(p, parse_action("place c3"))
    p = apply_action(p, parse_action("place a1"))  # the south (and west) edge
    p = apply_action(p, parse_action("place c3,d4"))
    with pytest.raises(IllegalTurnError, match="edge"):
        apply_action(p, parse_action("place b1"))  # the south edge again
    p = apply_action(p, parse_action("place b5"))  # the north edge
    assert workers(p, 0) == {"a1", "b5"}


# --- Hera ------------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("cells", "gods", "win"),
    [
        ("b2=2A a1=3", "-,hera", "b2>a1"),  # onto level 3
        ("b2=2A a1=0", "pan,hera", "b2>a1"),  # Pan's drop
        ("b2=A a2=1 a3=1A", "eros,hera", "b2>a2"),  # Eros's adjacency
        ("c3=1A b2=2 a1=3", "artemis,hera", "c3>b2>a1"),  # Artemis's second step
        ("c2=1A b1=2 a1=3", "triton,hera", "c2>b1>a1"),  # Triton's second step
    ],
)
def test_s8_hera_no_win_by_any_move_into_the_perimeter(cells, gods, win):
    p = make(cells + " e5=B e4=B" + ("" if cells.count("A") == 2 else " d5=A"), gods=gods)
    t = texts(p)
    assert win not in t
    assert any(x.startswith(win + "^") or x.startswith(win + ">") for x in t)
    mover = gods.split(",")[0]
    # The same move without Hera wins.
    assert win in texts(make(str_cells(p), gods=f"{mover},-"))


def str_cells(p):
    """The cells of ``p`` in ``make``'s notation."""
    out = []
    for s in range(25):
        side = p.worker_side(s)
        mark = "X" if p.has_dome(s) else ("" if side < 0 else "AB"[side])
        out.append(f"{square_name(s)}={p.level(s)}{mark}")
    return " ".join(out)


def test_s8_hera_the_move_stays_legal_as_a_plain_move_then_builds():
    p = make("b2=2A a1=3 e5=B e4=B d5=A", gods="-,hera")
    after = play(p, "b2>a1^b1")
    assert after.worker_side(sq("a1")) == 0
    assert after.level(sq("b1")) == 1
    assert not outcome(after).over


def test_s8_hera_artemis_and_triton_may_step_on():
    artemis = make("b2=2A a1=3 a2=3 e5=B e4=B d5=A", gods="artemis,hera")
    assert any(x.startswith("b2>a1>a2^") for x in texts(artemis))
    triton = make("a3=2A a2=3 e5=B e4=B d5=A", gods="triton,hera")
    assert any(x.startswith("a3>a2>a1^") for x in texts(triton))


def test_s8_hera_a_winning_move_into_the_middle_still_wins():
    p = make("c3=2A b2=3 e5=B e4=B d5=A", gods="-,hera")
    assert "c3>b2" in texts(p)
    assert outcome(play(p, "c3>b2")).winner == 0
    pan = make("c3=3A b2=0 e5=B e4=B d5=A", gods="pan,hera")
    assert outcome(play(pan, "c3>b2")).winner == 0


def test_s8_hera_not_chronuss_win():
    # Hera's own build completes the fifth tower: Chronus wins in Hera's turn.
    p = make(FOUR_TOWERS + " c3=B a1=B d1=A e1=A d4=3", seat=2, gods="chronus,hera")
    assert play(p, "c3>c4^d4").winner == 0


# --- Hestia ----------------------------------------------------------------------------------


def test_s8_hestia_second_build_is_optional():
    plain = texts(make("b2=A e5=A a5=B e1=B"))
    assert plain <= texts(make("b2=A e5=A a5=B e1=B", gods="hestia,-"))


def test_s8_hestia_second_build_not_on_the_perimeter():
    p = make("b2=A e5=A a5=B e1=B", gods="hestia,-")
    seconds = {x.split("^")[2] for x in of(p, "b2>b3^a2^")}
    assert seconds == {"b2", "c2", "c3", "b4", "c4"}
    assert "b2>b3^c3^a2" not in texts(p)
    assert "b2>b3^a2^c3" in texts(p)


def test_s8_hestia_two_middle_builds_are_written_in_ascending_order():
    p = make("b2=A e5=A a5=B e1=B", gods="hestia,-")
    t = texts(p)
    assert "b2>b3^c3^c4" in t
    assert "b2>b3^c4^c3" not in t
    assert str(find_turn(p, "b2>b3^c4^c3")) == "b2>b3^c3^c4"


def test_s8_hestia_second_build_may_go_on_the_same_square():
    p = make("b2=A e5=A a5=B e1=B", gods="hestia,-")
    assert play(p, "b2>b3^c3^c3").level(sq("c3")) == 2
    q = make("b2=A c3=2 e5=A a5=B e1=B", gods="hestia,-")
    after = play(q, "b2>b3^c3^c3")
    assert after.level(sq("c3")) == 3
    assert after.has_dome(sq("c3"))


# --- Hypnus ----------------------------------------------------------------------------------


def test_s8_hypnus_the_one_highest_worker_cannot_move():
    p = make("c3=1A a1=A e5=B e1=B", gods="-,hypnus")
    assert of(p, "c3") == set()
    assert of(p, "a1")


def test_s8_hypnus_levels_at_the_start_of_the_opponents_turn():
    # Zeus lifts c4 to level 1 on his turn: on his next turn that worker is the higher one.
    p = make("c3=A a1=A e5=B e1=B", gods="zeus,hypnus")
    assert of(p, "c3")
    p = play(play(p, "c3>c4^c4"), "e1>e2^e1")
    assert p.level(sq("c4")) == 1
    assert of(p, "c4") == set()
    assert of(p, "a1")


def test_s8_hypnus_a_tie_freezes_nobody():
    p = make("c3=1A a1=1A e5=B e1=B", gods="-,hypnus")
    assert of(p, "c3")
    assert of(p, "a1")


def test_s8_hypnus_frozen_worker_no_prometheus_build_first_no_charon_ferry():
    pro = make("c3=1A a1=A e5=B e1=B", gods="prometheus,hypnus")
    assert of(pro, "c3") == set()
    assert any(x.startswith("a1^") for x in texts(pro))
    cha = make("c3=1A d4=B a1=A e1=B", gods="charon,hypnus")
    assert of(cha, "c3") == set()


def test_s8_hypnus_frozen_worker_may_build_in_a_hermes_power_turn():
    p = make("c3=1A a1=A e5=B e1=B", gods="hermes,hypnus")
    t = texts(p)
    assert "Ha2,c3^d4" in t  # a1 steps to a2, frozen c3 builds
    assert "Ha1,c3^d4" in t  # zero steps
    assert all("c3" in x[1:6] for x in t if x.startswith("H"))


# --- Limus -----------------------------------------------------------------------------------


def test_s8_limus_no_build_next_to_his_workers_unless_the_dome_completes_a_tower():
    p = make("c3=A d4=B d3=3 a1=A e1=B", gods="-,limus")
    t = of(p, "c3>c2")
    assert "c3>c2^d3" in t  # the dome on level 3
    assert "c3>c2^c3" not in t
    assert "c3>c2^b2" in t


def test_s8_limus_bans_demeters_extra_build():
    p = make("c3=A d4=B a1=A e1=B", gods="demeter,limus")
    t = texts(p)
    assert "c3>c2^b1^b2" in t
    assert "c3>c2^b2^c3" not in t


def test_s8_limus_bans_prometheus_build_first():
    p = make("c3=A d4=B a1=A e1=B", gods="prometheus,limus")
    t = texts(p)
    assert any(x.startswith("c3^b3>") for x in t)
    assert not any(x.startswith("c3^d3>") for x in t)


def test_s8_limus_bans_zeus_under_itself():
    p = make("c3=A d4=B a1=A e1=B", gods="zeus,limus")
    t = texts(p)
    assert "c3>b2^b2" in t
    assert "c3>d3^d3" not in t


def test_s8_limus_bans_hermes_build():
    p = make("c3=A d4=B a1=A e1=B", gods="hermes,limus")
    hs = [x for x in texts(p) if x.startswith("H")]
    assert hs
    near = {"c3", "c4", "c5", "d3", "d5", "e3", "e4", "e5"}
    assert not any(x.split("^")[1] in near for x in hs)
    assert "Ha1,c3^b2" in hs


def test_s8_limus_bans_medusas_petrification():
    # Limus's c2 (level 0) is lower than Medusa's c3 and next to Limus's d2: it stays.
    p = make("c3=1A a5=A c2=B d2=1B", gods="medusa,limus")
    after = play(p, "a5>a4^a5")
    assert workers(after, 1) == {"c2", "d2"}
    assert after.level(sq("c2")) == 0


def test_s8_limus_bans_atlas_low_dome_2016_text():
    p = make("c3=A d4=B a1=A e1=B", gods="atlas,limus")
    t = of(p, "c3>c2")
    assert "c3>c2^b2D" in t
    assert "c3>c2^d3D" not in t
    assert "c3>c2^c3D" not in t


def test_s8_limus_workers_count_where_they_stand_at_the_moment_of_the_build():
    # Minotaur pushes Limus's c3 to d4: b3 (next to c3, not to d4) may take a build.
    p = make("b2=A c3=B a5=A e1=B", gods="minotaur,limus")
    t = of(p, "b2>c3")
    assert "b2>c3^b3" in t
    assert "b2>c3^d3" not in t


def test_s8_limus_a_square_is_not_next_to_itself():
    # Medusa petrifies a lone Limus worker: its own square is not next to it.
    p = make("c3=1A a5=A c2=B e5=1B", gods="medusa,limus")
    after = play(p, "a5>a4^a5")
    assert workers(after, 1) == {"e5"}
    assert after.level(sq("c2")) == 1


# --- Medusa ----------------------------------------------------------------------------------


def test_s8_medusa_petrifies_every_lower_neighbour_at_once_with_either_worker():
    # b2 (unmoved) petrifies a1; c4 moves to d4 and petrifies e5.
    p = make("b2=1A a1=B c4=1A d4=1 e5=B", gods="medusa,-")
    after = play(p, "c4>d4^c4")
    assert workers(after, 1) == set()
    assert after.level(sq("a1")) == 1
    assert after.level(sq("e5")) == 1
    assert outcome(after).winner == 0


def test_s8_medusa_is_mandatory_after_every_turn():
    p = make("b2=1A a1=B d4=A e5=B", gods="medusa,-")
    for t in legal_turns(p):
        if square_name(t.worker) != "d4":
            continue  # b2 itself moving away from a1
        after = apply(p, t)
        assert after.worker_side(sq("a1")) == -1, str(t)


def test_s8_medusa_strictly_lower():
    p = make("b2=1A a1=1B c3=2B d5=A", gods="medusa,-")
    after = play(p, "d5>e5^d5")
    assert workers(after, 1) == {"a1", "c3"}


def test_s8_medusa_the_block_goes_on_the_victims_level():
    p = make("b2=3A a1=2B d5=A e1=B", gods="medusa,-")
    after = play(p, "d5>e5^d5")
    assert after.level(sq("a1")) == 3
    assert not after.has_dome(sq("a1"))
    assert workers(after, 1) == {"e1"}


def test_s8_medusa_petrification_is_a_build_limus_forbids_it():
    # Limus's c2 is lower than Medusa's b2 but next to Limus's d2 (as high as b2): it stays.
    p = make("b2=1A c2=B d2=1B e5=A", gods="medusa,limus")
    after = play(p, "e5>e4^e5")
    assert after.worker_side(sq("c2")) == 1
    assert after.level(sq("c2")) == 0
    # The same victim with the other Limus worker away is petrified.
    q = make("b2=1A c2=B e1=1B e5=A", gods="medusa,limus")
    assert play(q, "e5>e4^e5").worker_side(sq("c2")) == -1


def test_s8_medusa_a_winning_move_ends_the_turn_first():
    p = make("c3=2A d4=3 e5=2B a1=A e1=B", gods="medusa,-")
    after = play(p, "c3>d4")
    assert after.winner == 0
    assert after.worker_side(sq("e5")) == 1
    assert after.level(sq("e5")) == 2


# --- Persephone ------------------------------------------------------------------------------


def test_s8_persephone_judged_over_complete_turns_up_if_possible_otherwise_all():
    cells = "c3=A c4=1 a1=A e5=B e1=B"
    p = make(cells, gods="-,persephone")
    plain = make(cells)
    ups = {str(t) for t in legal_turns(plain) if moves_up(plain, t)}
    assert ups
    assert texts(p) == ups
    flat = "c3=A a1=A e5=B e1=B"
    assert texts(make(flat, gods="-,persephone")) == texts(make(flat))


def test_s8_persephone_an_up_move_with_no_build_does_not_count():
    # c3 can move up to c4 only to find no build (every square next to c4 is next to
    # a Limus worker): there is no complete turn moving up, so all turns stay legal.
    # Four players: team B plays Limus (seat 2) and Persephone (seat 4).
    walls = "b3=0X b4=0X b5=0X c5=0X d5=0X d3=0X"
    p = make(walls + " c3=A c4=1 d4=B a1=A e1=B", gods="-,limus,-,persephone")
    assert texts(p)
    assert not any(x.startswith("c3>c4") for x in texts(p))
    q = make(walls + " c3=A c4=1 d4=B a1=A e1=B", gods="-,limus,-,-")
    assert texts(p) == texts(q)


@pytest.mark.parametrize(
    ("cells", "gods", "prefix"),
    [
        ("c3=A c4=1B a1=A e5=B", "apollo,persephone", "c3>c4"),  # a swap
        ("b2=A c3=1B a1=A e5=B", "minotaur,persephone", "b2>c3"),  # a push move
        ("c3=A c5=1 a1=A e5=B e1=B", "artemis,persephone", "c3>"),  # a second step
        ("b2=A c3=1B e5=A e1=B", "charon,persephone", "b2~c3>c3"),  # after a ferry
        ("c3=2A d4=3 a1=A e5=B e1=B", "-,persephone", "c3>d4"),  # a winning move
    ],
)
def test_s8_persephone_every_up_step_counts(cells, gods, prefix):
    p = make(cells, gods=gods)
    turns = legal_turns(p)
    assert turns
    assert all(str(t).startswith(prefix) for t in turns)
    mover = gods.split(",")[0]
    assert len(turns) < len(legal_turns(make(cells, gods=f"{mover},-")))
    if mover == "artemis":
        assert all(final(t) == "c5" or "c5" in str(t).split("^")[0] for t in turns)


def test_s8_persephone_a_triton_step_up_counts():
    p = make("a3=A a5=1 c3=A c1=B e1=B", gods="triton,persephone")
    turns = legal_turns(p)
    assert turns
    assert all(sq("a5") in t.path for t in turns)


def test_s8_persephone_being_forced_up_does_not_count():
    # Minotaur's push forces Persephone's c3 up onto d4: no up move for the mover, so
    # every turn stays legal.
    cells = "b2=A c3=B d4=1 a1=A e5=B"
    assert texts(make(cells, gods="minotaur,persephone")) == texts(make(cells, gods="minotaur,-"))


def test_s8_persephone_zeus_lift_does_not_count():
    flat = "c3=A a1=A e5=B e1=B"
    assert texts(make(flat, gods="zeus,persephone")) == texts(make(flat, gods="zeus,-"))
    up = make("c3=A d4=1 a1=A e5=B e1=B", gods="zeus,persephone")
    t = texts(up)
    assert "c3>c4^c4" not in t
    assert "c3>d4^d4" in t


def test_s8_persephone_hermes_power_turn_does_not_count():
    up = make("c3=A d4=1 a1=A e5=B e1=B", gods="hermes,persephone")
    t = texts(up)
    assert t
    assert not any(x.startswith("H") for x in t)
    assert "c3>d4^c3" in t
    flat = make("c3=A a1=A e5=B e1=B", gods="hermes,persephone")
    assert any(x.startswith("H") for x in texts(flat))


# --- Poseidon --------------------------------------------------------------------------------


def test_s8_poseidon_up_to_three_extra_builds_by_the_unmoved_worker():
    p = make("c3=A a1=A a2=3 e5=B b1=B", gods="poseidon,-")
    t = texts(p)
    assert "c3>c4^c3" in t
    assert "c3>c4^c3^b2" in t
    assert "c3>c4^c3^b2^b2^b2" in t  # the same square again
    assert "c3>c4^c3^a2" in t  # the dome on level 3 is an ordinary build
    assert not any(x.count("^") > 4 for x in t)
    extras = {s for x in of(p, "c3>c4^c3^") for s in x.split("^")[2:]}
    assert extras == {"a2", "b2"}  # next to a1, unoccupied
    after = play(p, "c3>c4^c3^b2^b2^b2")
    assert after.level(sq("b2")) == 3


def test_s8_poseidon_extra_builds_are_written_in_ascending_order():
    p = make("c3=A a1=A e5=B e1=B", gods="poseidon,-")
    assert "c3>c4^c3^b1^a2^b2" in texts(p)  # square index order: b1 = 1, a2 = 5, b2 = 6
    assert "c3>c4^c3^b2^a2" not in texts(p)
    assert str(find_turn(p, "c3>c4^c3^b2^a2")) == "c3>c4^c3^a2^b2"


def test_s8_poseidon_only_if_the_unmoved_worker_stands_on_level_0():
    p = make("c3=A a1=1A e5=B e1=B", gods="poseidon,-")
    assert of(p, "c3")
    assert not any(x.count("^") > 1 for x in of(p, "c3"))
    assert any(x.count("^") > 1 for x in of(make("c3=A a1=A e5=B e1=B", gods="poseidon,-"), "c3"))


def test_s8_poseidon_needs_two_workers():
    p = make("c3=A a1=B e5=B", gods="poseidon,medusa")
    assert texts(p)
    assert not any(x.count("^") > 1 for x in texts(p))


# --- Triton ----------------------------------------------------------------------------------


def test_s8_triton_moves_again_after_each_perimeter_square_then_builds():
    # a2 (0) cannot reach b1 (2) in one step: a2>a1>b1>c2 is the shortest way to c2.
    p = make("a2=A a1=1 b1=2 e5=A c5=B e1=B", gods="triton,-")
    t = texts(p)
    assert "a2>a1>b1>c2^d3" in t
    after = play(p, "a2>a1>b1>c2^d3")
    assert after.worker_side(sq("c2")) == 0
    assert after.level(sq("d3")) == 1
    # A step into the middle ends the moving.
    assert not any(x.startswith("a2>b2>") for x in t)
    assert "a2>b2^c2" in t
    assert not any(x.startswith("a2>b3>") for x in t)


def test_s8_triton_revisits_allowed():
    # Through a1 and back to its own square a2, then the build.
    p = make("a2=A e5=A c5=B e1=B", gods="triton,-")
    assert any(x.startswith("a2>a1>a2^") for x in texts(p))


def test_s8_triton_moving_up_onto_level_3_wins_at_once_on_the_perimeter_too():
    p = make("a2=2A a1=3 e5=A c5=B e1=B", gods="triton,-")
    t = texts(p)
    assert "a2>a1" in t
    assert not any(x.startswith("a2>a1>") or x.startswith("a2>a1^") for x in t)
    assert outcome(play(p, "a2>a1")).winner == 0


def test_s8_triton_against_hera_may_go_on_instead():
    p = make("a3=2A a2=3 e5=A c5=B e1=B", gods="triton,hera")
    t = texts(p)
    assert "a3>a2" not in t
    assert "a3>a2^a3" in t
    assert any(x.startswith("a3>a2>a1^") for x in t)


# --- Zeus ------------------------------------------------------------------------------------


def test_s8_zeus_builds_under_itself_instead_of_the_normal_build():
    p = make("c3=A a1=A e5=B e1=B", gods="zeus,-")
    t = texts(p)
    assert "c3>c4^c4" in t
    assert not any(x.startswith("c3>c4^c4^") for x in t)
    after = play(p, "c3>c4^c4")
    assert after.level(sq("c4")) == 1
    assert after.worker_side(sq("c4")) == 0


def test_s8_zeus_a_block_only_from_level_0_1_or_2():
    for level, legal in ((0, True), (1, True), (2, True), (3, False)):
        p = make(f"c3={level}A c4={level} a1=A e5=B e1=B", gods="zeus,-")
        assert ("c3>c4^c4" in texts(p)) == legal, level


def test_s8_zeus_rises_one_level_and_never_wins_by_it():
    p = make("c3=1A c4=2 a1=A e5=B e1=B", gods="zeus,-")
    after = play(p, "c3>c4^c4")
    assert after.level(sq("c4")) == 3
    assert not outcome(after).over
    # Later, stepping from there to level 3 is no win either.
    later = make("c4=3A d4=3 a1=A e5=B e1=B", gods="zeus,-")
    assert "c4>d4" not in texts(later)
    assert any(x.startswith("c4>d4^") for x in texts(later))


def test_s8_zeus_limus_forbids_it_next_to_a_limus_worker():
    p = make("c3=A e5=B a1=A e1=B", gods="zeus,limus")
    t = texts(p)
    assert "c3>d4^d4" not in t  # d4 is next to Limus's e5
    assert "c3>c4^c4" in t


# --- Interactions with the simple gods -----------------------------------------------------


@pytest.mark.parametrize(
    ("cells", "god", "up"),
    [
        ("a3=A a1=1 e5=A c5=B", "triton", "a3>a2>a1"),  # a Triton step
        ("b2=A c3=1B e5=A", "charon", "b2~c3>c3"),  # a move after a ferry
        ("b2=A c2=1 e5=A e1=B", "bia", "b2>c2"),
        ("b2=A c2=1 d3=1A e1=B", "eros", "b2>c2"),
    ],
)
def test_s8_athenas_flag_blocks_every_up_step_of_these_movers(cells, god, up):
    extra = " a5=B" if cells.count("B") < 2 else ""
    free = make(cells + extra, gods=f"{god},athena")
    assert any(x.startswith(up) for x in texts(free))
    flagged = make(cells + extra, gods=f"{god},athena", flags="a")
    assert texts(flagged)
    assert not any(x.startswith(up) for x in texts(flagged))


def test_s8_apollo_swap_moves_limuss_worker_before_the_check():
    # After the swap Limus stands on c3: e5 (next to d4, not to c3) takes a build.
    p = make("c3=A d4=B a1=A a5=B", gods="apollo,limus")
    t = of(p, "c3>d4")
    assert "c3>d4^e5" in t
    assert "c3>d4^c4" not in t


def test_s8_charon_ferry_moves_limuss_worker_before_the_check():
    # Limus ferried from c3 to a1: d4 (next to c3 only) takes a build; b2's neighbour a2
    # (next to a1 now) does not.
    p = make("b2=A c3=B e5=A e1=B", gods="charon,limus")
    t = texts(p)
    assert "b2~c3>c3^d4" in t
    assert "b2~c3>b3^c4" in t
    assert not any(x.startswith("b2~c3>b3^a2") for x in t)


def test_s8_minotaur_push_moves_aphrodites_worker_before_the_check():
    # Her c3 is pushed to d4; Minotaur's b2, bound, ends on c3 next to d4.
    p = make("b2=A c3=B a5=A e1=B", gods="minotaur,aphrodite")
    assert "b2>c3^b2" in texts(p)
    after = play(p, "b2>c3^b2")
    assert after.worker_side(sq("d4")) == 1


def test_s8_demeter_build_can_complete_the_fifth_tower_and_ends_the_game():
    p = make(FOUR_TOWERS + " c3=B a1=B d1=A e1=A d4=3", seat=2, gods="chronus,demeter")
    after = play(p, "c3>c4^c5^d4")
    assert after.level(sq("c5")) == 1
    assert after.winner == 0


def test_s8_hephaestus_build_can_complete_the_fifth_tower_and_ends_the_game():
    p = make(FOUR_TOWERS + " c3=B a1=B d1=A e1=A d4=3", seat=2, gods="chronus,hephaestus")
    assert play(p, "c3>c4^d4").winner == 0


def test_s8_prometheus_build_first_can_complete_the_fifth_tower_and_ends_the_game():
    p = make(FOUR_TOWERS + " c3=B a1=B d1=A e1=A d4=3", seat=2, gods="chronus,prometheus")
    t = texts(p)
    assert "c3^d4" in t
    assert not any(x.startswith("c3^d4>") for x in t)
    after = play(p, "c3^d4")
    assert after.winner == 0
    assert after.worker_side(sq("c3")) == 1


# --- Turn text: different texts reach different positions ----------------------------------

TEXT_POSITIONS = (
    "c3=A a1=A e5=B e1=B",
    "b2=1A d1=1A c3=2 b1=1 a2=2 c2=1 d4=B e5=1B c4=3 e3=0X d5=1 e4=2",
    "c3=A d4=B b2=1 c2=1 a1=A e1=1B a2=3 d3=2 b4=0X",
)


@pytest.mark.parametrize(
    "god",
    [str(g) for g in ADVANCED],
)
def test_s8_turn_text_different_texts_reach_different_positions(god):
    for cells in TEXT_POSITIONS:
        p = make(cells, gods=f"{god},-")
        reached = {}
        for t in legal_turns(p):
            after = apply_unchecked(p, t)  # t is legal: skip the check
            key = (str(after), after.winner)
            assert key not in reached, f"{reached[key]} and {t} both reach {after} from {p}"
            reached[key] = str(t)
