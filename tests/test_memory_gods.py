"""RULES.md section 10: the gods with memory and the heroes, a test per ruling."""

from __future__ import annotations

import json
import random

import pytest

from santorini_p2p.cli import main
from santorini_p2p.engine import (
    Phase,
    apply,
    apply_action,
    apply_unchecked,
    find_turn,
    format_position,
    legal_actions,
    legal_turns,
    new_game,
    parse_position,
    state_hash,
)
from santorini_p2p.engine.gods import HEROES, MEMORY
from santorini_p2p.engine.gods.bans import ban_reason as pairing_error
from santorini_p2p.engine.notation import parse_action, parse_turn
from santorini_p2p.engine.position import DIRECTIONS, OP_CORNER
from santorini_p2p.engine.setup import resolve_pool
from santorini_p2p.engine.squares import SQUARE_NAMES
from santorini_p2p.errors import IllegalTurnError, InvalidPositionError


def board(a: str, b: str, levels: str = "", domes: str = "") -> str:
    """The board field with seat 1's workers on ``a`` and seat 2's on ``b`` (squares joined by
    ``,``), ``levels`` as ``c3=2,d4=3`` and domes on ``domes``."""
    lv = dict.fromkeys(range(25), 0)
    for item in filter(None, levels.split(",")):
        sq, _, h = item.partition("=")
        lv[SQUARE_NAMES.index(sq)] = int(h)
    marks = dict.fromkeys(range(25), "")
    for letter, squares in (("A", a), ("B", b)):
        for sq in filter(None, squares.split(",")):
            marks[SQUARE_NAMES.index(sq)] = letter
    for sq in filter(None, domes.split(",")):
        marks[SQUARE_NAMES.index(sq)] = "X"
    rows = [
        "".join(f"{lv[r * 5 + f]}{marks[r * 5 + f]}" for f in range(5)) for r in range(4, -1, -1)
    ]
    return "/".join(rows)


def pos(a: str, b: str, gods: str, seat: int = 1, flags: str = "-", **kw: str) -> str:
    """A position string from :func:`board`'s arguments."""
    return f"{board(a, b, **kw)} {seat} {gods} {flags}"


def field(position: str) -> str:
    """The gods field of a position string."""
    return position.split(" ")[2]


def results(pos: str) -> dict[str, str]:
    """Each legal turn's text and the position string it leads to."""
    p = parse_position(pos)
    return {str(t): format_position(apply_unchecked(p, t)) for t in legal_turns(p)}


def after(pos: str, text: str) -> str:
    p = parse_position(pos)
    return format_position(apply(p, find_turn(p, text)))


def has(pos: str, text: str) -> bool:
    return text in results(pos)


# --- 10.1 the position string -----------------------------------------------------------------


@pytest.mark.parametrize(
    "pos",
    [
        "0B0000A/00000/000B00/00000/0A3X000 1 morpheus[2],apollo -",
        "0B0000B/00000/000A00/00000/0A0000 1 aeolus[ne],hippolyta[a5] -",
        "0B0000B/00000/000A00/00000/0A0000 1 apollo,adonis[e5.c3] -",
        "0B0000A/00000/00000/01B100/0A0000 1 apollo,nike k",
        "0B0000B/00000/000A00/00000/0A0000 1 siren[n],eris[c3] -",
        "0B0000B/00000/000A00/00000/0A0000 1 gaea[0],theseus[x] -",
        "0B0000B/00000/000A00/00000/0A0000 1 selene[-],jason -",
    ],
)
def test_s10_1_a_state_is_read_and_written_as_one_string(pos):
    assert format_position(parse_position(pos)) == pos
    assert format_position(parse_position(pos.upper().replace("X", "X"))) == pos


@pytest.mark.parametrize(
    ("pos", "why"),
    [
        ("0B0000B/00000/000A00/00000/0A0000 1 apollo[x],eris -", "keeps no state"),
        ("0B0000B/00000/000A00/00000/0A0000 1 morpheus[0],eris -", "no leading zeros"),
        ("0B0000B/00000/000A00/00000/0A0000 1 morpheus[02],eris -", "no leading zeros"),
        ("0B0000B/00000/000A00/00000/0A0000 1 morpheus[],eris -", "empty"),
        ("0B0000B/00000/000A00/00000/0A0000 1 gaea[2],eris -", "written bare"),
        ("0B0000B/00000/000A00/00000/0A0000 1 aeolus[up],eris -", "direction"),
        ("0B0000B/00000/000A00/00000/0A0000 1 achilles[y],eris -", "'x'"),
        ("0B0000B/00000/000A00/00000/0A0000 1 selene[b2],eris -", "not its own worker"),
        ("0B0000B/00000/000A00/00000/0A0000 1 selene[c3,eris -", "closing"),
        ("0B0000B/00000/000A00/00000/0A0000 1 apollo,eris[a5] -", "another side's worker"),
        ("0B0000B/00000/000A00/00000/0A0000 1 selene,eris -", "once workers stand"),
        ("0B0000B/00000/000A00/00000/0A0000 1 apollo,eris k", "needs nike"),
        ("0B0000B/00000/000A00/00000/0A0A000 1 jason,eris -", "at most 2"),
        ("0B0000B/00000/00A0A00/00000/0A0A000 1 gaea[1],eris -", "at most 3"),
    ],
)
def test_s10_1_the_reader_rejects_each_malformed_state(pos, why):
    with pytest.raises(InvalidPositionError, match=why):
        parse_position(pos)


def test_s10_1_three_workers_of_jason_need_his_used_mark():
    assert parse_position("0B0000B/00000/000A00/00000/0A0A000 1 jason[x],eris -")


def test_s10_1_a_state_changes_the_state_hash_and_no_state_hashes_as_before():
    base = parse_position("0B0000B/00000/000A00/00000/0A0000 1 morpheus,apollo -")
    coins = parse_position("0B0000B/00000/000A00/00000/0A0000 1 morpheus[1],apollo -")
    assert state_hash(base) != state_hash(coins)
    assert len(state_hash(base)) == 32


# --- 10.4 the state travels with its worker ----------------------------------------------------


def test_s10_4_the_female_follows_her_worker_through_an_apollo_swap():
    p = pos("b2,a1", "c3,e5", "apollo,selene[c3]")
    assert field(after(p, "b2>c3^d4")) == "apollo,selene[b2]"


def test_s10_4_a_removed_female_is_written_dash():
    # Bia moves a1>a2 towards a3, where Selene's female stands: she leaves the board.
    p = pos("a1,e1", "a3,e5", "bia,selene[a3]")
    assert field(after(p, "a1>a2^b2")) == "bia,selene[-]"


def test_s10_4_a_pending_adonis_pair_with_a_removed_worker_is_void():
    p = pos("a1,e1", "a3,e5", "bia,adonis[a3.e1]")
    assert field(after(p, "a1>a2^b2")) == "bia,adonis[x]"


# --- Nike ------------------------------------------------------------------------------------


def test_nike_moving_down_sets_k_and_no_opponent_moves_up_next_turn():
    p = pos("b2,a1", "d1,e1", "nike,apollo", levels="b2=1,c2=1,e2=1")
    down = after(p, "b2>a2^a3")
    assert down.endswith(" k")
    assert not any(t.startswith("e1>e2") for t in results(down))
    assert not after(p, "b2>c2^d2").endswith(" k")


def test_nike_flag_needs_her_own_move_not_a_force():
    # Apollo swaps with Nike's worker on level 1: she is forced down, which sets nothing.
    p = pos("b2,e5", "a1,e1", "nike,apollo", seat=2, levels="b2=1")
    assert after(p, "a1>b2^c3").endswith(" -")


# --- Morpheus --------------------------------------------------------------------------------


def test_morpheus_spends_up_to_his_coins_plus_one_and_keeps_the_rest():
    p = pos("b2,a1", "d1,e1", "morpheus[1],apollo")
    r = results(p)
    assert field(r["b2>c3"]) == "morpheus[2],apollo"
    assert field(r["b2>c3^d3^d3"]) == "morpheus,apollo"
    assert not any(t.count("^") > 2 for t in r)


def test_morpheus_builds_the_same_square_up_to_a_dome():
    p = pos("b2,a1", "d1,e1", "morpheus[3],apollo")
    out = after(p, "b2>c3^d3^d3^d3^d3")
    assert out.split(" ")[0].split("/")[2] == "000A3X0"


def test_morpheus_with_zero_builds_is_a_complete_turn_not_a_win():
    p = parse_position(pos("b2,a1", "d1,e1", "morpheus,apollo"))
    t = find_turn(p, "b2>c3")
    assert not t.is_win
    assert apply(p, t).winner < 0


# --- Selene ----------------------------------------------------------------------------------


def test_selene_female_domes_at_any_level_even_when_the_male_moved():
    p = pos("a1,e1", "b5,e5", "selene[e1],apollo", levels="c3=1")
    r = results(p)
    assert "a1>b2^d2D" in r  # next to the female on e1
    assert "a1>b2^c3D" not in r  # not next to her
    assert "e1>d2^c3D" in r  # she moved: her dome next to her


def test_selene_low_dome_is_refused_next_to_limus():
    p = pos("a1,e1", "d3,a5", "selene[e1],limus")
    r = results(p)
    assert "a1>b2^d2D" not in r
    assert "a1>b2^d1D" in r


def test_selene_with_her_female_gone_builds_normally():
    p = pos("a1,e1", "b5,e5", "selene[-],apollo")
    assert not any(t.endswith("D") for t in results(p))


# --- Hippolyta -------------------------------------------------------------------------------


def test_hippolyta_every_worker_but_her_female_moves_diagonally_both_sides():
    p = pos("b2,a1", "b5,e5", "hippolyta[b2],apollo")
    r = results(p)
    assert any(t.startswith("b2>b3") for t in r)  # the female moves straight
    assert not any(t.startswith(("a1>a2", "a1>b1")) for t in r)
    opp = results(pos("b2,a1", "b5,e5", "hippolyta[b2],apollo", seat=2))
    assert opp
    for t in opp:
        frm, to = t[0:2], t[3:5]
        assert frm[0] != to[0], t
        assert frm[1] != to[1], t


def test_hippolyta_does_not_stop_forces():
    # Minotaur steps diagonally b2>c3 and pushes her male on to d4: a force is free.
    p = pos("b2,a5", "c3,e1", "minotaur,hippolyta[e1]")
    assert results(p)["b2>c3^b2"].split(" ")[0] == board("c3,a5", "d4,e1", levels="b2=1")


# --- Aeolus ----------------------------------------------------------------------------------


def test_aeolus_sets_the_wind_at_the_end_of_his_turn_or_leaves_it():
    p = pos("b2,a1", "b5,e5", "aeolus,apollo")
    r = results(p)
    assert field(r["b2>c3^d4@ne"]) == "aeolus[ne],apollo"
    assert field(r["b2>c3^d4"]) == "aeolus,apollo"
    assert "b2>c3^d4@-" not in r


def test_aeolus_wind_never_turns_straight_to_another_direction():
    p = pos("b2,a1", "b5,e5", "aeolus[n],apollo")
    r = results(p)
    assert not any(t.endswith("@ne") for t in r)
    assert field(r["b2>c3^d4@-"]) == "aeolus,apollo"


def test_aeolus_no_worker_moves_into_the_wind_his_own_included():
    # The wind blows towards n: no step towards s, sw or se... only straight s is into it.
    p = pos("b2,a5", "b5,e5", "aeolus[n],apollo")
    r = results(p)
    assert not any(t.startswith("b2>b1") for t in r)
    assert any(t.startswith("b2>a1") for t in r)
    opp = results(pos("b2,a5", "b5,e5", "aeolus[n],apollo", seat=2))
    assert not any(t.startswith(("b5>b4", "e5>e4")) for t in opp)


def test_aeolus_a_winning_move_changes_no_wind():
    p = pos("b2,a1", "b5,e5", "aeolus,apollo", levels="b2=2,c3=3")
    r = results(p)
    assert "b2>c3" in r
    assert not any(t.startswith("b2>c3@") for t in r)


# --- Siren -----------------------------------------------------------------------------------


def test_siren_forces_one_or_more_opponent_workers_then_builds():
    p = pos("a1,e1", "c3,d2", "siren[n],apollo")
    r = results(p)
    assert "Sc3^a2" in r
    assert r["Sc3^a2"].split(" ")[0] == board("a1,e1", "c4,d2", levels="a2=1")
    assert "Sc3,d2^a2" in r
    assert "Sd2,c3^a2" not in r  # the same outcome: one text
    assert r["Sc3,d2^a2"].split(" ")[0] == board("a1,e1", "c4,d3", levels="a2=1")


def test_siren_forces_onto_level_3_never_win_and_the_song_is_not_a_move():
    p = pos("a1,e1", "c3,e5", "siren[n],athena", flags="a", levels="c3=2,c4=3")
    r = results(p)
    assert "Sc3^a2" in r
    assert "w" not in r["Sc3^a2"].split(" ")[3]


# --- Eris ------------------------------------------------------------------------------------


def test_eris_moves_and_builds_with_an_opponent_worker_but_not_the_marked_one():
    p = pos("b2,a1", "b4,e4", "eris[e4],apollo")
    r = results(p)
    assert any(t.startswith("b4>") for t in r)
    assert not any(t.startswith("e4>") for t in r)


def test_eris_moving_an_opponent_worker_up_to_level_3_wins_for_nobody():
    p = pos("b2,a1", "b4,e4", "eris[e4],apollo", levels="b4=2,c4=3")
    r = results(p)
    assert "b4>c4" not in r
    assert "b4>c4^c5" in r
    assert "w" not in r["b4>c4^c5"].split(" ")[3]


def test_eris_marks_the_worker_its_owner_moved_last():
    p = pos("b2,a1", "b4,e4", "eris,apollo", seat=2)
    assert field(after(p, "b4>b3^b4")) == "eris[b3],apollo"


# --- Gaea ------------------------------------------------------------------------------------


def test_gaea_puts_a_worker_next_to_a_dome_built_by_the_opponent():
    p = pos("b2,a1", "b4,e4", "gaea,apollo", seat=2, levels="c3=3")
    r = results(p)
    assert "b4>b3^c3" in r
    placed = [t for t in r if t.startswith("b4>b3^c3+")]
    assert placed
    assert all(field(r[t]) == "gaea[1],apollo" for t in placed)
    assert all(r[t].split(" ")[0].count("A") == 3 for t in placed)


def test_gaea_places_only_on_ground_level_unoccupied_squares():
    p = pos("b2,a1", "b4,e4", "gaea,apollo", seat=2, levels="c3=3,d3=1,d2=2")
    r = results(p)
    assert any(t.startswith("b4>b3^c3+") for t in r)
    assert not any("+d3" in t or "+d2" in t or "+b2" in t for t in r)


# --- heroes ----------------------------------------------------------------------------------


def test_achilles_builds_before_and_after_moving_and_may_move_up_and_win():
    p = pos("b2,a5", "d1,e1", "achilles,apollo", levels="b2=2,c3=2")
    r = results(p)
    assert "b2^c3>c3" in r  # c3 built up to level 3, then climbed: a win
    assert r["b2^c3>c3"].endswith("w1")


def test_achilles_is_used_once():
    p = pos("b2,a5", "d1,e1", "achilles[x],apollo")
    assert not any("^" in t.split(">")[0] for t in results(p))


def test_adonis_pair_must_end_the_opponent_turn_adjacent_if_possible():
    p = "0B0000B/00000/000A00/00000/0A0000 1 apollo,adonis[e5.c3] -"
    r = results(p)
    assert r
    for text, out in r.items():
        assert text.startswith("c3>d4"), text
        assert field(out) == "apollo,adonis[x]"


def test_adonis_names_a_pair_at_the_end_of_his_turn():
    p = "0B0000B/00000/000A00/00000/0A0000 2 apollo,adonis -"
    assert field(after(p, "a5>b5^c5&b5.c3")) == "apollo,adonis[b5.c3]"


def test_atalanta_moves_any_number_of_extra_times_and_may_return():
    p = pos("b2,a5", "d1,e1", "atalanta,apollo")
    r = results(p)
    assert "b2>c3>d4>e5^d5" in r
    assert "b2>a1>b2^a1" in r
    assert field(r["b2>c3>d4>e5^d5"]) == "atalanta[x],apollo"
    assert field(r["b2>c3^d4"]) == "atalanta,apollo"


def test_bellerophon_climbs_two_levels_once_and_wins_from_1_to_3():
    p = pos("b2,a5", "d1,e1", "bellerophon,apollo", levels="b2=1,c3=3,c2=2")
    r = results(p)
    assert r["b2>c3"].endswith("w1")
    used = pos("b2,a5", "d1,e1", "bellerophon[x],apollo", levels="b2=1,c3=3,c2=2")
    assert "b2>c3" not in results(used)


def test_bellerophon_climbs_from_0_to_2_and_builds():
    p = pos("b2,a5", "d1,e1", "bellerophon,apollo", levels="c3=2")
    r = results(p)
    assert field(r["b2>c3^d4"]) == "bellerophon[x],apollo"


def test_bellerophon_is_stopped_by_athena():
    p = pos("b2,a5", "d1,e1", "bellerophon,athena", flags="a", levels="b2=1,c3=3,c2=2")
    assert not any(t.startswith("b2>c3") for t in results(p))


def test_heracles_builds_any_number_of_domes_instead_even_zero():
    p = pos("b2,a5", "d1,e1", "heracles,apollo")
    r = results(p)
    assert field(r["b2>c3"]) == "heracles[x],apollo"
    assert "b2>c3^b2X^d4X" in r
    assert r["b2>c3^b2X^d4X"].split(" ")[0] == board("c3,a5", "d1,e1", domes="b2,d4")


def test_jason_places_his_extra_worker_on_the_perimeter_then_moves_it():
    p = pos("b2,e5", "c3,e1", "apollo,jason", seat=2)
    r = results(p)
    ja = [t for t in r if t.startswith("J")]
    assert ja
    assert all(t[1] in "ae" or t[2] in "15" for t in ja)
    assert field(r[ja[0]]) == "apollo,jason[x]"
    assert r[ja[0]].split(" ")[0].count("B") == 3
    assert not any(t.startswith("Jc3") for t in r)


def test_medea_drops_a_neighbouring_worker_to_level_0_not_one_on_level_0():
    p = pos("b2,a5", "c2,e1", "medea,apollo", levels="c2=2")
    r = results(p)
    assert "b2>b3^a3%c2" in r
    assert not any(t.endswith("%e1") for t in r)
    assert r["b2>b3^a3%c2"].split(" ")[0] == board("b3,a5", "c2,e1", levels="a3=1")
    assert field(r["b2>b3^a3%c2"]) == "medea[x],apollo"


def test_odysseus_forces_neighbouring_opponents_into_free_corners_first():
    p = pos("b2,e5", "c3,d1", "odysseus,apollo")
    r = results(p)
    forced = [t for t in r if t.startswith("Oc3a1,")]
    forced = [t for t in r if t.startswith("Oc3")]
    assert forced
    assert all(field(r[t]) == "odysseus[x],apollo" for t in forced)
    assert not any(t.startswith("Od1") for t in r)  # not next to his workers


def test_polyphemus_builds_up_to_two_domes_anywhere_after_his_build():
    p = pos("b2,e4", "d1,e1", "polyphemus,apollo")
    r = results(p)
    assert "b2>c3^d4#a5#e5" in r
    assert r["b2>c3^d4#a5#e5"].split(" ")[0].startswith("0X0000X")


def test_theseus_removes_an_opponent_worker_two_levels_above_his_own():
    p = pos("b2,a5", "c3,e1", "theseus,apollo", levels="c3=2")
    r = results(p)
    rem = [t for t in r if t.endswith("xc3")]
    assert rem
    assert r[rem[0]].split(" ")[0].count("B") == 1


# --- setup, pairings, pools, notation ----------------------------------------------------------


def test_s10_2_selene_names_her_female_at_placement():
    p = new_game(2, "random", drawn=("selene", "apollo"))
    acts = [a for a in legal_actions(p) if str(a).endswith("*")]
    assert acts
    q = apply_action(p, parse_action("place b2,d4*"))
    assert format_position(q).split(" ")[2] == "selene[d4],apollo"


def test_s10_2_siren_sings_after_her_placement():
    p = new_game(2, "random", drawn=("siren", "apollo"))
    p = apply_action(p, parse_action("place b2,d4"))
    assert p.phase is Phase.PLACE
    assert {str(a) for a in legal_actions(p)} == {f"song {d}" for d in DIRECTIONS}
    p = apply_action(p, parse_action("song w"))
    assert format_position(p).split(" ")[2] == "siren[w],apollo"


def test_s10_4_banned_and_unruled_pairs_are_refused_with_a_reason():
    assert "banned" in (pairing_error(("gaea", "atlas")) or "")
    assert "not yet ruled" in (pairing_error(("hermes", "eris")) or "")
    assert pairing_error(("gaea", "apollo")) is None
    with pytest.raises(ValueError, match="banned"):
        new_game(2, "random", drawn=("gaea", "atlas"))
    with pytest.raises(ValueError, match="banned"):
        resolve_pool("gaea,atlas", 2, "random")


def test_s10_4_heroes_play_two_players_only():
    assert all(h.players == frozenset({2}) for h in HEROES)
    assert len(resolve_pool("heroes", 2, "random")) == 10
    with pytest.raises(ValueError, match="the heroes are played with 2 players, not 3"):
        resolve_pool("heroes", 3, "random")


@pytest.mark.parametrize(
    "text",
    [
        "b2>c3^d4^d4^e4",
        "b2>c3^e4D",
        "b2>c3^d4@ne",
        "b2>c3^d4@-",
        "Sd4,d3^b2",
        "b2>c3^d4+c5",
        "b2^c2>b3^c2",
        "b2>c3^d4&c3.e5",
        "b2>c3>d4>e5^d5",
        "b2>c3^a1X^b4X",
        "Ja1>b2^c3",
        "b2>c3^d4%c4",
        "Oc4a5,d4e1:b2>c3^d4",
        "b2>c3^d4#a1#e5",
        "b2>c3^d4xe4",
    ],
)
def test_s10_3_each_turn_form_parses_and_formats_back(text):
    assert str(parse_turn(text)) == text
    assert str(parse_turn(text.upper())) == text


GODS_10 = [g.name for g in MEMORY + HEROES]


@pytest.mark.parametrize("god", GODS_10)
def test_s10_3_every_legal_turn_has_one_text_that_finds_it_again(god):
    rng = random.Random(god)
    other = rng.choice(["apollo", "athena", "minotaur", "demeter", "limus", "chronus", "bia"])
    if pairing_error((god, other)):
        other = "apollo"
    seen = 0
    for seed in range(2):
        rng = random.Random(seed)
        p = new_game(2, "random", drawn=(god, other) if seed else (other, god))
        while p.phase is not Phase.OVER and seen < 400:
            acts = legal_actions(p)
            if p.phase is Phase.PLAY:
                texts = [str(t) for t in acts]
                assert len(set(texts)) == len(texts), format_position(p)
                for t in rng.sample(acts, min(6, len(acts))):
                    assert find_turn(p, str(t)) == t
                    seen += 1
            p = apply_action(p, rng.choice(acts))
            assert format_position(parse_position(format_position(p))) == format_position(p)
    assert seen > 20


def test_s10_3_a_turn_not_legal_is_refused():
    p = pos("b2,a5", "d1,e1", "heracles[x],apollo")
    with pytest.raises(IllegalTurnError):
        find_turn(parse_position(p), "b2>c3")


def test_gaea_places_after_a_dome_built_before_moving_out_of_the_movers_way():
    p = pos("b2,a1", "d1,e1", "prometheus,gaea", levels="c2=3,c3=1")
    r = results(p)
    assert "b2^c2+b3>a2^a3" in r
    assert field(r["b2^c2+b3>a2^a3"]) == "prometheus,gaea[1]"
    assert not any(t.startswith("b2^c2+b3>b3") for t in r)
    assert not any(t.startswith("b2^c2+b2") for t in r)


def test_gaea_places_after_a_hermes_power_turn_dome():
    p = pos("b2,d2", "a5,e5", "hermes,gaea", levels="c2=3")
    r = results(p)
    placed = [t for t in r if t.startswith("H") and "^c2+" in t]
    assert placed
    assert find_turn(parse_position(p), placed[0]) == parse_turn(placed[0])


def test_gaea_worker_is_placed_at_once_so_medusa_petrifies_it_at_the_end_of_her_turn():
    p = pos("b2,d4", "a5,a1", "medusa,gaea", levels="c3=3,d4=1")
    out = results(p)["b2>b3^c3+d3"]
    assert out.split(" ")[0] == board("b3,d4", "a5,a1", levels="c3=3,d4=1,d3=1", domes="c3")
    assert field(out) == "medusa,gaea[1]"


def test_jason_placements_that_end_alike_are_written_once():
    p = pos("b2,e5", "c3,e1", "apollo,jason", seat=2)
    ends = {}
    for text, out in results(p).items():
        if text.startswith("J"):
            assert out not in ends, (text, ends.get(out))
            ends[out] = text


def test_atalanta_round_trips_that_move_nobody_are_written_for_the_lower_worker():
    p = pos("a1,b1", "d5,e5", "atalanta,apollo")
    r = results(p)
    assert "a1>a2>a1^b2" in r
    assert "b1>c1>b1^b2" not in r


def test_siren_forces_each_opponent_worker_at_most_once():
    # Forced c3>c4, that worker may not be forced again to c5.
    p = pos("a1,e1", "c3,e5", "siren[n],apollo")
    assert not any(t.startswith("Sc3,c4") for t in results(p))


def test_heracles_low_domes_are_refused_next_to_limus_but_a_tower_dome_is_not():
    p = pos("b2,a5", "d4,e1", "heracles,limus", levels="c4=3")
    r = results(p)
    assert "b2>c3^c4X" in r  # level 3 next to Limus on d4: completes a tower
    assert "b2>c3^d3X" not in r  # level 0 next to Limus
    assert "b2>c3^b3X" in r


def test_polyphemus_low_domes_are_refused_next_to_limus_and_a_fifth_tower_ends_the_game():
    p = pos("b2,e4", "a1,a5", "polyphemus,limus")
    r = results(p)
    assert not any(t.endswith(("#a2", "#b1", "#b4")) for t in r)
    towers = "a3=3,b3=3,c5=3,d5=3,e2=3"
    q = pos("b2,e4", "a1,a5", "polyphemus,chronus", levels=towers, domes="a3,b3,c5,d5")
    out = results(q)["b2>c2^d2#e2"]
    assert out.endswith("w2")


def test_bellerophon_must_climb_against_persephone_only_if_a_one_level_climb_exists():
    only_two = pos("b2,a5", "d1,e1", "bellerophon,persephone", levels="c3=2")
    r = results(only_two)
    assert "b2>c3^d4" in r
    assert "b2>a1^b1" in r  # no one-level climb: every turn stays legal
    both = pos("b2,a5", "d1,e1", "bellerophon,persephone", levels="c3=2,a1=1")
    r2 = results(both)
    assert "b2>c3^d4" in r2  # a climb of two levels satisfies her too
    assert "b2>b3^b4" not in r2


def test_adonis_pair_keeps_winning_turns_that_end_adjacent_only():
    # Apollo can win on c4 (next to Adonis's e5? no): the pair is c3 and e5.
    p = pos("c3,a1", "e5,a5", "apollo,adonis[e5.c3]", levels="c3=2,c4=3,d4=1")
    r = results(p)
    assert "c3>c4" not in r  # a win away from e5 is not legal while d4 is possible
    assert any(t.startswith("c3>d4") for t in r)


def test_odysseus_forces_only_to_free_corners_and_each_worker_once():
    p = pos("b2,e5", "a2,b3", "odysseus,apollo", domes="a5")
    r = results(p)
    forces = [v for t in r for v in parse_turn(t).ops(OP_CORNER)]
    assert forces
    corners = {SQUARE_NAMES[v & 31] for v in forces}
    assert corners == {"a1", "e1"}  # a5 holds a dome, e5 his own worker
    moved = [SQUARE_NAMES[v >> 5] for v in forces]
    assert set(moved) == {"a2", "b3"}
    assert "Oa2a1,b3e1:b2>c2^d2" in r
    assert not any(t.startswith("Oa2a1,a2") for t in r)


# --- against the gods of RULES.md section 9 ------------------------------------------------------


def test_s10_nike_a_slide_is_forced_so_only_her_step_down_sets_her_flag():
    # b1 is level with a1: the step is level, the slide on to e1 goes down (forced).
    start = "0A0000B/00000/000B00/00000/1A1000 1 nike,harpies -"
    assert after(start, "a1>e1^d1").endswith(" -")
    # a2 is lower: the step itself goes down, then the slide carries her on to a4.
    assert after(start, "a1>a4^b4").endswith(" k")


def test_s10_bellerophon_slides_on_after_his_climb_of_two_levels():
    start = "0B0000B/00000/00000/0A0000/0A2230 1 bellerophon,harpies -"
    turns = results(start)
    assert "a1>c1^b1" in turns  # 0 to 2 on b1, then on to c1 (level 2, not higher)
    assert not any(t.startswith("a1>b1") for t in turns)
    assert field(turns["a1>c1^b1"]) == "bellerophon[x],harpies"


def test_s10_atalanta_every_step_slides_and_is_written_where_it_came_to_rest():
    start = "0B0000B/00000/00000/0A0000/0A0000 1 atalanta,harpies -"
    turns = results(start)
    assert "a1>d4>a4^a3" in turns  # a1 slides to d4 (stopped by e5), then west to a4
    assert not any(t.startswith(("a1>b1", "a1>b2")) for t in turns)
    assert field(turns["a1>d4>a4^a3"]) == "atalanta[x],harpies"


def test_s10_eris_marks_the_second_worker_castor_moved():
    start = "0B0000B/00000/00000/00000/0A00A00 1 castor,eris -"
    assert field(after(start, "Ma1>a2,c1>c2")) == "castor,eris[c2]"
    # b1 moves first to free its square for a1: a1's worker, now on b1, moved last.
    start = "0B0000B/00000/00000/00000/0A0A000 1 castor,eris -"
    assert field(after(start, "Mb1>c1,a1>b1")) == "castor,eris[b1]"


def test_s10_gaea_a_worker_next_to_an_asteria_dome_reads_back():
    start = "0B0000B/00000/00000/01A000/0A0000 1 asteria,gaea -"
    turns = results(start)
    assert "b2>a2^a3*a3+a4" in turns
    p = parse_position(start)
    turn = find_turn(p, "b2>a2^a3*a3+a4")
    assert str(turn) == "b2>a2^a3*a3+a4"
    assert field(format_position(apply(p, turn))) == "asteria,gaea[1]"


def test_s10_gaea_and_hydra_each_plus_reads_as_the_position_says():
    # Hydra (seat 1) builds the dome on d4 (level 3); Gaea may put a worker next to it, then
    # Hydra, whose workers stand apart, gains one.
    start = pos("c3,a5", "e1,e5", "hydra,gaea", levels="d4=3,c3=1")
    turns = results(start)
    both = [t for t in turns if t.startswith("c3>") and t.count("+") == 2 and "^d4+" in t]
    assert both
    for text in both + [t for t in turns if "+" in t][:40]:
        p = parse_position(start)
        assert str(find_turn(p, text)) == text


def test_s10_4_eris_mark_moves_to_the_worker_its_owner_moved_last():
    # The mark is on Minotaur's b2; Minotaur moves a1, which is marked now.
    p = pos("b2,a1", "d4,e5", "minotaur,eris[b2]")
    assert field(after(p, "a1>a2^a3")) == "minotaur,eris[a2]"


def test_s10_4_the_female_follows_a_worker_charon_ferries():
    # Charon on d3 ferries her female from c3 across his worker to e3, then steps into c3.
    p = pos("d3,e1", "c3,a5", "charon,selene[c3]")
    out = after(p, "d3~c3>c3^c4")
    assert field(out) == "charon,selene[e3]"
    assert out.split(" ")[0] == board("c3,e1", "e3,a5", levels="c4=1")


def test_s10_4_a_pending_pair_binds_the_turn_that_would_ferry_its_worker_away():
    # Charon could ferry Adonis's c3 away, but a turn that ends with c3 next to e1 exists.
    p = pos("d3,e1", "c3,a5", "charon,adonis[c3.e1]")
    r = results(p)
    assert "d3~c3>c3^c4" not in r
    assert any(t.startswith("e1>d2") for t in r)


def test_s10_4_the_female_follows_through_a_minotaur_push():
    p = pos("b2,a1", "c3,e5", "minotaur,hippolyta[c3]")
    assert field(after(p, "b2>c3^b2")) == "minotaur,hippolyta[d4]"


def test_s10_notation_against_section_9_every_legal_turn_has_one_text_that_reads_back():
    from santorini_p2p.engine.gods import GROUP1

    rng = random.Random(10)
    pairs = [
        (a.name, b.name)
        for a in MEMORY + HEROES
        for b in GROUP1
        if pairing_error((a.name, b.name)) is None and 2 in a.players and 2 in b.players
    ]
    checked = 0
    for a, b in rng.sample(pairs, 12):
        p = new_game(2, "random", drawn=(a, b) if rng.random() < 0.5 else (b, a))
        for ply in range(24):
            if p.phase is Phase.OVER:
                break
            if p.phase is Phase.PLAY and ply % 3 == 0:
                turns = legal_turns(p)
                texts = [str(t) for t in turns]
                assert len(set(texts)) == len(texts), format_position(p)
                for i in rng.sample(range(len(turns)), min(8, len(turns))):
                    assert find_turn(p, texts[i]) == turns[i], (format_position(p), texts[i])
                    checked += 1
            p = apply_action(p, rng.choice(legal_actions(p)))
    assert checked > 200


def test_s10_forced_is_not_moved_proteus_s_force_sets_no_eris_mark():
    start = "0B0000B/00000/00000/00000/0A0A0A00 1 proteus,eris -"
    # a1 moves to a2, then the worker on b1 is forced into a1: the mark is on a2.
    assert field(after(start, "a1>a2<b1^a3")) == "proteus,eris[a2]"


def test_s10_gaea_places_at_once_so_hydra_gains_where_her_worker_left_room():
    # Hydra moves b2>c2 and domes d3; d2 is the one lowest free square next to c2. Gaea may
    # take d2 first (next to the new dome, at once): Hydra then gains on a level-1 square.
    start = pos("b2,e5", "a5,a4", "hydra,gaea", levels="d3=3,b1=1,c1=1,d1=1,b3=1,c3=1,b2=1")
    turns = results(start)
    assert "b2>c2^d3+d2" in turns  # Hydra gains d2 (Gaea lets it be)
    assert "b2>c2^d3+d2+b1" in turns  # Gaea takes d2, Hydra gains b1
    assert "b2>c2^d3+d2+d2" not in turns
    after_both = turns["b2>c2^d3+d2+b1"]
    assert field(after_both) == "hydra,gaea[1]"
    p = parse_position(after_both)
    assert p.worker_side(SQUARE_NAMES.index("d2")) == 1
    assert p.worker_side(SQUARE_NAMES.index("b1")) == 0


def test_s10_gaea_taking_one_of_hydras_lowest_squares_lists_each_turn_once(capsys):
    # c2, b4, c4 and d2 are all free at ground level next to c3: when Gaea takes the square
    # Hydra chose, Hydra's gain goes to another of them, which another choice already gave.
    start = "0B0000A/0B0000/01130/01A000/01110 1 hydra,gaea -"
    turns = legal_turns(parse_position(start))
    texts = [str(t) for t in turns]
    assert len(texts) == len(set(texts)) == 293
    assert texts.count("b2>c3^d3+c2+b4") == 1
    assert main(["moves", "--json", start]) == 0
    listed = json.loads(capsys.readouterr().out)["turns"]
    assert [t["turn"] for t in listed] == texts


def test_s10_eris_no_mark_once_the_worker_moved_last_left_the_board():
    start = "0B0000B/00000/00000/00000/0A0A000 1 hydra,eris[b1] -"
    # Hydra's workers end next to each other: she removes one, here the one she moved.
    assert field(after(start, "a1>a2^a3!a2")) == "hydra,eris"
    assert field(after(start, "a1>a2^a3!b1")) == "hydra,eris[a2]"


# --- Gaea: Polyphemus's domes, Hydra's empty gain, the dome number of a '+' -----------------


_CROWDED = "b1,c1,d1,b3,d2,d3,b4,c4,d4,b5,c5,d5,e2,e3,e4"
"""Domes that leave Polyphemus few squares for his own (so the test enumerates few turns)."""


def test_s10_gaea_places_next_to_a_polyphemus_dome():
    # RULES.md 10.5: any dome counts, Polyphemus's `#` domes too, in either player's turn.
    start = pos("c3,e1", "a5,e5", "polyphemus,gaea", levels="c3=3", domes=_CROWDED)
    turns = results(start)
    assert "c3>c2^c3#a1+a2" in turns
    out = turns["c3>c2^c3#a1+a2"]
    assert field(out) == "polyphemus[x],gaea[1]"
    assert parse_position(out).worker_side(SQUARE_NAMES.index("a2")) == 1
    # After each of his two domes, written after the dome it answers.
    assert "c3>c2^c3#a1+a2#a4+a3" in turns
    assert field(turns["c3>c2^c3#a1+a2#a4+a3"]) == "polyphemus[x],gaea[0]"
    # Her worker next to the build's dome stands where his dome cannot go.
    assert not any(t.startswith("c3>c2^c3+b2#") and "#b2" in t for t in turns)
    for text in ("c3>c2^c3#a1+a2", "c3>c2^c3+b2#a1", "c3>c2^c3+b2#a1#a2+a3"):
        p = parse_position(start)
        assert str(find_turn(p, text)) == text


def test_s10_hydra_gaining_nothing_after_gaea_took_the_last_square_is_written_plus_minus():
    # Hydra moves b2>c2 and domes b2; b1 is the one free square next to c2, and it is next to
    # the new dome too. Gaea letting it be (Hydra gains b1) and Gaea taking it (Hydra gains
    # nothing) are two turns: the second is written with `+-` last (SPEC.md 2.1.2).
    start = pos("b2,e5", "a5,a4", "hydra,gaea", levels="b2=3", domes="c1,d1,d2,b3,c3,d3")
    p = parse_position(start)
    texts = [str(t) for t in legal_turns(p)]
    assert len(set(texts)) == len(set(legal_turns(p)))  # one text per turn
    turns = results(start)
    hydra_gains = turns["b2>c2^b2+b1"]
    assert field(hydra_gains) == "hydra,gaea"
    assert parse_position(hydra_gains).worker_side(SQUARE_NAMES.index("b1")) == 0
    gaea_took = turns["b2>c2^b2+b1+-"]
    assert field(gaea_took) == "hydra,gaea[1]"
    q = parse_position(gaea_took)
    assert q.worker_side(SQUARE_NAMES.index("b1")) == 1
    assert q.workers[0].bit_count() == 2
    for text in ("b2>c2^b2+b1", "b2>c2^b2+b1+-"):
        assert str(find_turn(p, text)) == text
    with pytest.raises(IllegalTurnError):
        find_turn(p, "b2>c2^b2+a1+-")  # Hydra had b1 free: she gains it, `+-` is false


def test_s10_gaea_places_after_a_dome_built_past_morpheus_eighth_build():
    # Morpheus spends 9 coins; the dome on b2 is his ninth build (number 8). The `+` after it
    # is read back after that build (a cap at build 7 once moved it to the wrong place).
    start = pos("a1,e1", "e5,e4", "morpheus[8],gaea", domes="a3,b3,d1,d2,d3")
    p = parse_position(start)
    text = "a1>a2^a1^a1^a1^a1^b1^b2^b2^b2^b2+c2"
    assert str(parse_turn(text)) == text
    turn = find_turn(p, text)
    assert str(turn) == text
    out = format_position(apply(p, turn))
    assert field(out) == "morpheus,gaea[1]"
    assert parse_position(out).worker_side(SQUARE_NAMES.index("c2")) == 1


def test_s10_gaea_choices_in_another_seats_turn_are_listed_where_the_text_writes_them():
    from santorini_p2p.engine.choices import Choice, choice_options, choices, turns_after

    start = pos("c3,e1", "a5,e5", "polyphemus,gaea", levels="c3=3", domes=_CROWDED)
    p = parse_position(start)
    turn = find_turn(p, "c3>c2^c3+b2#a1#a2+a3")
    assert choices(p, turn) == (
        Choice(1, "c3>c2^c3", "+b2"),
        Choice(1, "c3>c2^c3+b2#a1", "-"),
        Choice(1, "c3>c2^c3+b2#a1#a2", "+a3"),
    )
    seat, options = choice_options(p, (), "c3>c2^c3")
    assert seat == 1
    assert options[0] == "-"
    assert "+b2" in options
    assert "+a1" not in options  # not next to the dome on c3
    after_b2 = turns_after(p, (Choice(1, "c3>c2^c3", "+b2"),))
    assert after_b2
    assert all(str(t).startswith("c3>c2^c3+b2") for t in after_b2)
    # Gaea's own turn: the `+` is hers, asked of nobody.
    own = parse_position(pos("b4,e4", "a1,e1", "gaea,apollo", levels="c3=3"))
    assert choices(own, find_turn(own, "b4>b3^c3+c2")) == ()
