"""RULES.md 10 against 6-9: a god with memory or a hero meets an earlier god, a test per case."""

from __future__ import annotations

from tests.test_memory_gods import pos, results


def field(position: str) -> str:
    """The gods field of a position string."""
    return position.split(" ")[2]


# --- Eris's mark (RULES.md 10.5: the last worker the opponent itself moved) -------------------


def test_eris_marks_castors_second_mover_and_both_orders_are_two_turns():
    r = results(pos("b2,d4", "a5,e5", "castor,eris"))
    assert field(r["Mb2>a1,d4>c3"]) == "castor,eris[c3]"
    assert field(r["Md4>c3,b2>a1"]) == "castor,eris[a1]"


def test_castor_without_eris_writes_a_move_all_once_lower_square_first():
    r = results(pos("b2,d4", "a5,e5", "castor,apollo"))
    assert "Mb2>a1,d4>c3" in r
    assert "Md4>c3,b2>a1" not in r


def test_eris_mark_stays_after_castors_build_all():
    r = results(pos("b2,d4", "a5,e5", "castor,eris[b2]"))
    assert field(r["Ba1,c3"]) == "castor,eris[b2]"


def test_eris_marks_terpsichores_second_mover():
    r = results(pos("b2,d4", "a5,e5", "terpsichore,eris"))
    assert field(r["Tb2>a1,d4>c3^a2^b2"]) == "terpsichore,eris[c3]"
    assert field(r["Td4>c3,b2>a1^a2^b2"]) == "terpsichore,eris[a1]"


def test_eris_mark_ignores_proteus_force_of_his_own_worker():
    r = results(pos("b2,d4,e1", "a5,e5", "proteus,eris"))
    assert field(r["b2>a1<d4^a2"]) == "proteus,eris[a1]"


def test_eris_mark_is_the_worker_scylla_moved_not_the_one_she_dragged():
    r = results(pos("b2,c4", "a5,b5", "scylla,eris[b2]"))
    assert field(r["c4>b3~b5^a2"]) == "scylla,eris[b3]"


def test_eris_mark_is_gone_when_hydra_removes_the_worker_she_moved():
    r = results(pos("b2,d4", "a5,e5", "hydra,eris[b2]"))
    assert field(r["b2>c3^b2!c3"]) == "hydra,eris"
    assert field(r["b2>c3^b2!d4"]) == "hydra,eris[c3]"


# --- A named worker follows its own move in a move-all (RULES.md 10.4) -----------------------


def test_adonis_pair_follows_castors_worker_not_the_nearest_square():
    # b2 goes to c3 and c4 to b3: the named b2 worker ends on c3, away from Adonis's a4.
    r = results(pos("b2,c4", "a4,e5", "castor,adonis[a4.b2]"))
    assert "Mb2>c3,c4>b3" not in r
    assert "Mb2>b3,c4>c3" in r


def test_adonis_pair_follows_the_worker_proteus_forces_into_the_square_left():
    # His named d4 worker can end next to Adonis's a3 only by being forced into b2.
    r = results(pos("b2,d4,a5", "a3,e1", "proteus,adonis[a3.d4]"))
    assert "b2>a1<d4^a2" in r
    assert "a5>a4<d4^b3" not in r
    assert all(t.startswith("b2>") and "<d4" in t for t in r)


# --- Nike's flag (RULES.md 10.5: only her own move steps count, never forces) ----------------


def test_nike_step_on_one_level_then_slid_down_by_harpies_sets_no_flag():
    # b2 (level 1) steps to c2 (level 1) and slides on to e2 (level 0): the step did not go down.
    p = pos("b2,a5", "e5,e4", "nike,harpies", levels="b2=1,c2=1,a1=2")
    r = results(p)
    assert r["b2>e2^d1"].endswith(" -")
    assert r["b2>a2^a1"].endswith(" k")


# --- The female follows her worker through every force, and is gone with it (RULES.md 10.4) ---


def test_selene_female_follows_her_step_and_the_harpies_slide_after_it():
    r = results(pos("c3,e5", "a1,e1", "selene[c3],harpies"))
    assert field(r["c3>a3^a2"]) == "selene[a3],harpies"


def test_hippolyta_female_follows_the_harpies_slide_and_steps_straight():
    r = results(pos("c3,e5", "a1,e1", "hippolyta[c3],harpies"))
    assert field(r["c3>a3^a2"]) == "hippolyta[a3],harpies"


def test_scylla_drags_the_female_and_the_state_follows_her():
    r = results(pos("b2,e5", "c2,e1", "scylla,selene[c2]"))
    assert field(r["b2>a1~c2^a2"]) == "scylla,selene[b2]"


def test_siren_song_forces_the_female_and_the_state_follows_her():
    r = results(pos("b2,d4", "c3,e5", "siren[w],selene[c3]"))
    assert field(r["Sc3,e5^a1"]) == "siren[w],selene[b3]"


def test_bia_kills_the_female_and_the_state_is_dash():
    r = results(pos("a1,e5", "c3,e1", "bia,selene[c3]"))
    assert field(r["a1>b2^a1"]) == "bia,selene[-]"


def test_medusa_petrifies_the_female_and_the_state_is_dash():
    r = results(pos("a1,e5", "b2,c4", "medusa,selene[b2]", levels="a2=1"))
    assert field(r["a1>a2^a1"]) == "medusa,selene[-]"


# --- Eris moves an opponent worker as a plain worker, under the limits on her turn -----------


def test_eris_moving_a_pan_worker_down_two_levels_wins_for_nobody():
    r = results(pos("a1,e1", "c3,e5", "eris,pan", levels="c3=3,c2=1"))
    assert r["c3>c2^b1"].split(" ")[3] == "-"


def test_eris_moving_a_harpies_worker_does_not_slide_but_her_own_worker_does():
    r = results(pos("a1,e1", "c3,e5", "eris,harpies"))
    assert "c3>b2^a2" in r
    assert "a1>a5^a4" in r
    assert "a1>a2^a3" not in r


def test_eris_cannot_move_a_hades_worker_down():
    r = results(pos("a1,e1", "c3,e5", "eris,hades", levels="c3=1"))
    assert not any(t.startswith("c3>") for t in r)


# --- Domes of section 10 against Chronus and Limus, and Gaea after Asteria's dome ------------


FOUR_TOWERS = {"levels": "c3=3,a1=3,a2=3,a3=3,a4=3", "domes": "a1,a2,a3,a4"}


def test_morpheus_build_completing_the_fifth_tower_ends_the_game_for_chronus():
    r = results(pos("b2,e5", "a5,e1", "morpheus[1],chronus", **FOUR_TOWERS))
    assert r["b2>c2^b1^c3"].split(" ")[3] == "w2"
    assert "b2>c2^c3^d1" not in r


def test_selene_dome_on_level_3_completes_chronus_fifth_tower_a_low_one_does_not():
    r = results(pos("b2,e5", "a5,e1", "selene[b2],chronus", **FOUR_TOWERS))
    assert r["b2>c2^c3"].split(" ")[3] == "w2"
    assert r["b2>c2^b1D"].split(" ")[3] == "-"


def test_morpheus_builds_are_each_refused_next_to_limus():
    r = results(pos("b2,e5", "a5,c4", "morpheus[1],limus"))
    assert not any(t.startswith("b2>c2") and ("^b3" in t or "^c3" in t) for t in r)
    assert "b2>c2^b1^d1" in r


def test_gaea_places_next_to_asterias_dome():
    r = results(pos("b2,e5", "a5,e1", "asteria,gaea", levels="b2=1"))
    assert field(r["b2>c3^c2*d4+c4"]) == "asteria,gaea[1]"
    assert field(r["b2>c3^c2*d4"]) == "asteria,gaea"


# --- Harpies's slide after each step of a hero's move (RULES.md 9: every step is a move) ------


def test_atalanta_slides_after_each_step_against_harpies():
    r = results(pos("a1,c5", "a5,e5", "atalanta,harpies"))
    # a1 > a2 slides on to a4 (a5 is taken); a4 > b3 slides on to d1.
    assert "a1>a4>d1^c1" in r
    assert "a1>a2>a3^a2" not in r
    assert field(r["a1>a4>d1^c1"]) == "atalanta[x],harpies"


def test_atalanta_step_that_wins_ends_the_turn_before_any_slide():
    r = results(pos("a1,c5", "a5,e5", "atalanta,harpies", levels="a1=1,a2=2,a3=3,b3=3,b2=3"))
    assert r["a1>a2>b3"].split(" ")[3] == "w1"


def test_bellerophon_climb_slides_on_against_harpies_and_uses_him():
    # a1 (0) climbs to b1 (2), then slides over c1 (2) down to e1.
    r = results(pos("a1,c5", "a5,e5", "bellerophon,harpies", levels="b1=2,c1=2"))
    assert "a1>b1^a1" not in r
    assert field(r["a1>e1^d1"]) == "bellerophon[x],harpies"
    assert field(r["a1>a4^a3"]) == "bellerophon,harpies"


# --- Steps restricted by Hades and Nike, whatever the mover's power -----------------------------


def test_hades_forbids_each_of_atalantas_steps_down():
    r = results(pos("a1,c5", "a5,e5", "atalanta,hades", levels="a1=1,a2=1,b2=2"))
    assert "a1>a2>b2^c3" in r
    assert not any(t.startswith("a1>") and (">a3" in t or ">b1" in t) for t in r)


def test_nike_flag_forbids_an_iris_jump_up():
    assert "a1>c1^b2" in results(pos("a1,e1", "b1,c5", "iris,nike", levels="c1=1"))
    flagged = results(pos("a1,e1", "b1,c5", "iris,nike", flags="k", levels="c1=1"))
    assert not any(t.startswith("a1>c1") for t in flagged)


def test_siren_song_is_no_move_so_persephone_removes_it_when_a_climb_exists():
    assert any(t.startswith("S") for t in results(pos("b2,d4", "c3,e5", "siren[w],persephone")))
    climb = results(pos("b2,d4", "c3,e5", "siren[w],persephone", levels="c2=1"))
    assert climb
    assert not any(t.startswith("S") for t in climb)


# --- A step's direction is the one it is played in (RULES.md 10.4) ------------------------------


def moved_to(position: str, frm: str) -> set[str]:
    """Where the worker on ``frm`` may end its move, over every legal turn."""
    return {t.split("^")[0].split(">")[1] for t in results(position) if t.startswith(frm + ">")}


def test_hippolyta_lets_urania_wrap_only_diagonally():
    assert moved_to(pos("a1,c3", "a5,c5", "urania,apollo"), "a1") >= {"a2", "b1", "e1", "e2", "e5"}
    assert moved_to(pos("a1,c3", "a5,c5", "urania,hippolyta[c5]"), "a1") == {"b2", "b5", "e2", "e5"}


def test_aeolus_wind_forbids_a_wrapped_urania_step_against_it():
    # Wind towards e: no step towards w, and a1 > e1 round the edge is westward.
    assert "e1" not in moved_to(pos("a1,c3", "a5,c5", "urania,aeolus[e]"), "a1")
    assert "a2" in moved_to(pos("a1,c3", "a5,c5", "urania,aeolus[e]"), "a1")


def test_aeolus_wind_forbids_an_iris_jump_against_it():
    assert moved_to(pos("c1,e5", "b1,a5", "iris,aeolus[e]"), "c1") == {"b2", "c2", "d1", "d2"}


def test_hippolyta_lets_iris_jump_only_diagonally():
    assert moved_to(pos("c1,e5", "b1,b2", "iris,hippolyta[b1]"), "c1") == {"a3", "d2"}


# --- A build that completes Chronus's fifth tower is the last, whatever its square ------------

TOWERS_B3_C3 = {"levels": "c3=3,a1=3,a2=3,a3=3,a4=3,b3=3", "domes": "a1,a2,a3,a4"}


def test_morpheus_may_build_a_higher_square_before_the_tower_that_ends_the_game():
    r = results(pos("b2,e5", "a5,e1", "morpheus[1],chronus", **TOWERS_B3_C3))
    # d3 (a block) then the dome on c3: both stand when Chronus wins.
    assert r["b2>c2^d3^c3"].split(" ")[0] == "0B0000A/3X0000/3X33X10/3X00A00/3X0000B"
    assert r["b2>c2^d3^c3"].split(" ")[3] == "w2"
    assert r["b2>c2^c3"].split(" ")[3] == "w2"


def test_heracles_may_dome_a_higher_square_before_the_tower_that_ends_the_game():
    r = results(pos("b2,e5", "a5,e1", "heracles,chronus", **TOWERS_B3_C3))
    assert r["b2>c2^d3X^c3X"].split(" ")[0] == "0B0000A/3X0000/3X33X0X0/3X00A00/3X0000B"
    assert "b2>c2^c3X^d3X" not in r


def test_polyphemus_dome_that_ends_the_game_is_written_last_and_nothing_follows_it():
    r = results(pos("b2,e5", "a5,e1", "polyphemus,chronus", **TOWERS_B3_C3))
    assert r["b2>c2^b1#d3#c3"].split(" ")[0] == "0B0000A/3X0000/3X33X0X0/3X00A00/3X1000B"
    assert r["b2>c2^b1#d3#c3"].split(" ")[3] == "w2"
    assert "b2>c2^b1#c3#d3" not in r
    assert "b2>c2^b1#b3#c3" not in r
    assert len(set(r.values())) == len(r)
