"""RULES.md section 3: god selection (challenger, draft, random) and worker placement."""

from __future__ import annotations

import pytest

from santorini_p2p.engine import (
    ChooseGods,
    NameStart,
    Phase,
    PickGod,
    Place,
    apply_action,
    format_position,
    legal_actions,
    new_game,
    parse_action,
    parse_position,
    state_hash,
)
from santorini_p2p.engine.gods import ADVANCED, GODS, SIMPLE
from santorini_p2p.engine.setup import pool_name, resolve_pool
from santorini_p2p.errors import IllegalTurnError


def act(p, *texts):
    for t in texts:
        p = apply_action(p, parse_action(t))
    return p


def test_s3_challenger_offers_one_god_per_player_others_pick_challenger_keeps_last():
    p = new_game(3, "challenger")
    assert p.phase is Phase.GODS
    assert p.to_move == 0
    assert format_position(p) == "00000/00000/00000/00000/00000 1 ?,?,? c[]"
    assert len(legal_actions(p)) == 120  # C(10, 3) offers
    p = act(p, "gods pan,apollo,atlas")
    assert p.to_move == 1
    assert p.pool == ("apollo", "atlas", "pan")
    p = act(p, "god atlas")
    assert p.to_move == 2
    with pytest.raises(IllegalTurnError):
        act(p, "god atlas")  # already taken
    p = act(p, "god pan")
    assert p.gods == ("apollo", "atlas", "pan")
    assert p.naming
    assert format_position(p).endswith(" 1 apollo,atlas,pan n")


def test_s3_challenger_names_the_start_player_and_seats_renumber():
    p = act(new_game(3, "challenger"), "gods pan,apollo,atlas", "god atlas", "god pan")
    assert [str(a) for a in legal_actions(p)] == ["start 1", "start 2", "start 3"]
    q = act(p, "start 2")
    # The player who picked atlas (provisional seat 2) is now seat 1, then pan, then apollo.
    assert q.gods == ("atlas", "pan", "apollo")
    assert q.phase is Phase.PLACE
    assert q.to_move == 0


def test_s3_draft_start_player_takes_first_then_each_in_turn_order():
    p = new_game(2, "draft", drawn=("pan", "atlas", "hermes", "apollo"))
    assert format_position(p).endswith(" 1 ?,? d[apollo.atlas.hermes.pan]")
    assert [str(a) for a in legal_actions(p)] == [
        "god apollo",
        "god atlas",
        "god hermes",
        "god pan",
    ]
    p = act(p, "god hermes", "god pan")
    assert p.gods == ("hermes", "pan")
    assert p.phase is Phase.PLACE
    assert p.pool == ()


def test_s3_draft_draws_n_plus_2_gods_with_3_or_4_players():
    with pytest.raises(ValueError, match="needs 5"):
        new_game(3, "draft", drawn=("pan", "atlas", "hermes", "apollo"))
    p = new_game(4, "draft", drawn=("pan", "atlas", "hermes", "apollo", "athena", "demeter"))
    p = act(p, "god pan", "god atlas", "god hermes", "god apollo")
    assert p.gods == ("pan", "atlas", "hermes", "apollo")
    assert p.phase is Phase.PLACE


def test_s3_random_deal_comes_from_the_caller():
    p = new_game(2, "random", drawn=("minotaur", "athena"))
    assert p.gods == ("minotaur", "athena")
    assert p.phase is Phase.PLACE
    with pytest.raises(ValueError, match="different"):
        new_game(2, "random", drawn=("pan", "pan"))


def test_s3_gods_are_optional_with_any_number_of_players():
    for n in (2, 3, 4):
        assert new_game(n).phase is Phase.PLACE


def test_s3_placement_start_player_places_both_then_each_side_in_order():
    p = new_game(3)
    assert all(isinstance(a, Place) and len(a.squares) == 2 for a in legal_actions(p))
    assert len(legal_actions(p)) == 300
    p = act(p, "place c3,b2")
    assert p.to_move == 1
    assert str(p).startswith("00000/00000/000A00/00A000/00000 2")
    p = act(p, "place a1,e5")
    assert p.to_move == 2
    p = act(p, "place e1,a5")
    assert p.phase is Phase.PLAY
    assert p.to_move == 0


def test_s3_placement_four_players_seat_1_places_team_a_seat_2_team_b():
    p = act(new_game(4), "place b2,d4", "place b4,d2")
    assert p.phase is Phase.PLAY
    assert p.to_move == 0
    assert str(p) == "00000/00B00A0/00000/00A00B0/00000 1 -,-,-,- -"


def test_s3_snake_placement_one_then_two_then_the_last():
    p = new_game(2, snake=True)
    assert all(len(a.squares) == 1 for a in legal_actions(p))
    p = act(p, "place c3")
    assert p.to_move == 1
    assert all(len(a.squares) == 2 for a in legal_actions(p))
    p = act(p, "place b2,d4")
    assert p.to_move == 0
    assert all(len(a.squares) == 1 for a in legal_actions(p))
    p = act(p, "place e5")
    assert p.phase is Phase.PLAY
    assert p.to_move == 0
    assert str(p).endswith(" 1 -,- s")


def test_s3_cannot_place_on_an_occupied_square():
    p = act(new_game(2), "place b2,d4")
    with pytest.raises(IllegalTurnError):
        act(p, "place b2,c3")


def test_s3_the_start_player_takes_the_first_turn():
    p = act(new_game(2), "place b2,d4", "place b4,d2")
    assert str(p) == "00000/00B00A0/00000/00A00B0/00000 1 -,- -"
    assert len(legal_actions(p)) == 80


def test_s3_setup_positions_round_trip_through_the_position_string():
    p = new_game(3, "challenger")
    seen = [p]
    for text in ("gods pan,apollo,atlas", "god atlas", "god pan", "start 3", "place a1,b1"):
        p = act(p, text)
        seen.append(p)
    for q in seen:
        assert parse_position(format_position(q)) == q


def test_s3_setup_actions_are_typed_values():
    assert parse_action("GODS Pan,Apollo") == ChooseGods(("apollo", "pan"))
    assert parse_action("god apollo") == PickGod("apollo")
    assert parse_action("start 2") == NameStart(1)
    assert parse_action("d4,b2") == Place((6, 18))


# God pools (protocol/SPEC.md 1.4, flag o): what the challenger offers from, and the pools a
# game may be created with.


def test_challenger_offers_only_from_the_pool_and_the_offer_set_survives_a_round_trip():
    p = new_game(2, "challenger", offer=("zeus", "chronus", "medusa"))
    text = format_position(p)
    assert text == "00000/00000/00000/00000/00000 1 ?,? c[]o[chronus.medusa.zeus]"
    assert parse_position(text) == p
    assert [str(a) for a in legal_actions(p)] == [
        "gods chronus,medusa",
        "gods chronus,zeus",
        "gods medusa,zeus",
    ]
    with pytest.raises(IllegalTurnError):
        act(p, "gods apollo,pan")
    p = act(p, "gods chronus,zeus")
    assert format_position(p) == "00000/00000/00000/00000/00000 2 ?,? c[chronus.zeus]"


def test_the_simple_ten_as_an_offer_set_is_the_old_challenger_position():
    simple = tuple(g.name for g in SIMPLE)
    assert new_game(2, "challenger", offer=simple) == new_game(2, "challenger")
    assert state_hash(new_game(2, "challenger", offer=simple)) == state_hash(
        parse_position("00000/00000/00000/00000/00000 1 ?,? c[]")
    )


def test_an_offer_set_changes_the_state_hash():
    assert state_hash(new_game(2, "challenger", offer=("chronus", "zeus"))) != state_hash(
        new_game(2, "challenger")
    )


@pytest.mark.parametrize(
    ("spec", "players", "mode", "want"),
    [
        ("simple", 2, "draft", tuple(g.name for g in SIMPLE)),
        ("advanced", 2, "random", tuple(g.name for g in ADVANCED)),
        ("ADVANCED", 3, "random", tuple(g.name for g in ADVANCED if g.name != "hypnus")),
        ("all", 3, "draft", tuple(g.name for g in GODS if 3 in g.players)),
        ("Medusa, chronus", 2, "random", ("chronus", "medusa")),
        ("hypnus,zeus", 4, "challenger", None),
    ],
)
def test_resolve_pool_names_sets_and_lists_in_god_order(spec, players, mode, want):
    if want is None:
        with pytest.raises(ValueError, match="needs at least 4"):
            resolve_pool(spec, players, mode)
    else:
        assert resolve_pool(spec, players, mode) == want


@pytest.mark.parametrize(
    ("pool", "players", "want"),
    [
        (("pan", "apollo", "zeus"), 3, "apollo,pan,zeus"),
        (("apollo", "pan", "zeus", "atlas"), 4, "apollo,atlas,pan,zeus"),
        ((), 3, "simple"),
        (tuple(g.name for g in GODS if 3 in g.players), 3, "all"),
    ],
)
def test_a_pool_for_three_or_four_players_is_named_though_the_heroes_are_for_two(
    pool, players, want
):
    assert pool_name(pool, players) == want


@pytest.mark.parametrize(
    ("spec", "players", "mode", "error"),
    [
        ("chronos,zeus", 2, "random", "unknown god 'chronos' \\(did you mean chronus"),
        ("odin,zeus", 2, "random", "unknown god 'odin'; "),
        ("hypnus,zeus,ares", 3, "random", "hypnus is played with 2 or 4 players, not 3"),
        ("zeus,ares,zeus", 2, "random", "zeus is named twice"),
        (
            "zeus,ares,bia",
            2,
            "draft",
            "3 gods in the pool, but draft with 2 players needs at least",
        ),
        ("zeus,ares,bia", 4, "random", "needs at least 4"),
        ("zeus,,ares", 2, "random", "god names joined by ','"),
    ],
)
def test_resolve_pool_refuses_bad_pools_naming_the_fault(spec, players, mode, error):
    with pytest.raises(ValueError, match=error):
        resolve_pool(spec, players, mode)
