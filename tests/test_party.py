"""Party's passing and Agora's gods (protocol/SECRET.md 10 and 11)."""

from __future__ import annotations

import random
from dataclasses import replace

import pytest

from santorini_p2p.engine import (
    Phase,
    apply_unchecked,
    find_turn,
    legal_actions,
    legal_turns,
    new_game,
    parse_position,
)
from santorini_p2p.engine.party import (
    AGORA_GODS,
    PARTY_POOL,
    agora_error,
    agora_play,
    default_pass,
    pass_cards,
    passes_after,
)
from santorini_p2p.engine.setup import apply_action


def test_cards_pass_to_the_next_player_and_every_state_is_cleared() -> None:
    p = parse_position("00000/0000B1/00000/00A100/0A0000B 1 athena,atlas -")
    p = apply_unchecked(p, find_turn(p, "b2>c2^b2"))  # Athena moves up: her state is set
    assert p.state_of(0) == "a"
    after = pass_cards(p)
    assert after.gods == ("atlas", "athena")
    assert after.state_of(0) == ""
    assert after.state_of(1) == ""
    assert (after.workers, after.ge1, after.to_move) == (p.workers, p.ge1, p.to_move)
    # The new Athena did not move up on her last turn: seat 1 may move up now.
    assert any(
        t.path and after.level(t.path[-1]) > after.level(t.worker) for t in legal_turns(after)
    )


def test_a_player_out_of_the_game_neither_gives_nor_gets_a_card() -> None:
    p = replace(new_game(3, "random", drawn=("apollo", "atlas", "pan")), eliminated=0b010)
    assert pass_cards(p).gods == ("pan", "atlas", "apollo")
    assert pass_cards(replace(p, eliminated=0)).gods == ("pan", "apollo", "atlas")


def test_passing_after_the_header_count_of_turns() -> None:
    assert default_pass(3) == 6
    assert [t for t in range(13) if passes_after(t, 6)] == [6, 12]
    with pytest.raises(ValueError, match="pass: expected 1 to 99"):
        passes_after(1, 0)


@pytest.mark.parametrize("players", [2, 3])
def test_party_games_finish_and_the_cards_go_round(players: int) -> None:
    rng = random.Random(players)
    drawn = tuple(rng.sample(PARTY_POOL, players))
    p = new_game(players, "random", drawn=drawn)
    while p.phase is Phase.PLACE:
        p = apply_action(p, rng.choice(legal_actions(p)))
    every, turns, passes = default_pass(players), 0, 0
    while p.phase is Phase.PLAY:
        p = apply_unchecked(p, rng.choice(legal_turns(p)))
        turns += 1
        if passes_after(turns, every) and p.phase is Phase.PLAY:
            before = p.gods
            p = pass_cards(p)
            passes += 1
            assert sorted(p.gods) == sorted(before)
    assert p.phase is Phase.OVER
    assert passes >= 1
    assert turns <= 200


def test_agora_offers_its_gods_and_refuses_the_rest_with_a_reason() -> None:
    assert agora_error(("apollo", "atlas", "pan", "hera")) is None
    assert "played by 4 players, not 2" in (agora_error(("apollo", "atlas")) or "")
    assert "graeae is not offered in Agora" in (
        agora_error(("apollo", "atlas", "pan", "graeae")) or ""
    )
    assert "medusa" not in AGORA_GODS


def test_a_player_with_no_turn_for_the_card_received_loses() -> None:
    # Seat 2's workers are walled in by domes and seat 1's workers: only Apollo's swap moves.
    p = parse_position("0B0X00X0B/0A0X00X0A/00000/00000/00000 2 atlas,apollo -")
    assert legal_turns(p)
    after = pass_cards(p)
    assert after.gods == ("apollo", "atlas")
    assert after.phase is Phase.OVER
    assert after.winner == 0


def test_in_agora_a_player_who_cannot_play_leaves_and_the_partner_plays_on() -> None:
    # Team A (seats 1 and 3) is walled in but for Apollo's swap with e4: seat 3 (apollo) can
    # move, seat 1 (atlas) cannot. Seat 4 plays with its c1 worker; seat 1 is next and leaves.
    p = parse_position("0A0X00X0A/0X0X00X0B/00000/00000/000B00 4 atlas,pan,apollo,zeus -")
    turn = next(t for t in legal_turns(p) if t.worker == 2 and t.builds)
    after = agora_play(p, turn)
    assert after.eliminated == 0b0001
    assert after.winner == -1
    assert after.to_move == 1  # seat 2 (seat 1 is out)
    assert after.workers == apply_unchecked(p, turn).workers  # the shared workers stay


def test_in_agora_a_win_by_moving_is_the_mover_s_alone() -> None:
    p = parse_position("00000/00000/00000/002B30/0A00B00A 2 apollo,pan,atlas,hermes -")
    after = agora_play(p, find_turn(p, "c2>d2"))
    assert after.winner == 1
    assert after.eliminated == 0
