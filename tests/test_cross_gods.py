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
