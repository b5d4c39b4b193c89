"""Pairing rules of a club event (EVENT.md 4): Swiss without repeats, byes, first-player balance."""

from __future__ import annotations

import random

import pytest

from santorini_p2p.tournament.pairing import (
    History,
    PairingError,
    Played,
    round_robin_length,
    round_robin_round,
    swiss_round,
)


def _play_swiss(players, rounds, rng):
    """Pair ``rounds`` Swiss rounds with random results; return each round and its history."""
    done = []
    out = []
    for _ in range(rounds):
        h = History.of(players, done)
        rnd = swiss_round(h)
        boards = [Played(a, b, rng.choice([(2, 0), (0, 2), (1, 1)])) for a, b in rnd.games]
        done.append((boards, rnd.bye))
        out.append(rnd)
    return out, History.of(players, done)


@pytest.mark.parametrize("players", [2, 3, 4, 5, 7, 8, 9, 12, 16])
def test_swiss_never_repeats_a_pairing_and_seats_everyone_once_a_round(players):
    rng = random.Random(players)
    rounds = min(players - 1 if players % 2 == 0 else players, 5)
    seen = set()
    byes = []
    rounds_played, _ = _play_swiss(players, rounds, rng)
    for rnd in rounds_played:
        seated = [p for g in rnd.games for p in g]
        if rnd.bye is not None:
            seated.append(rnd.bye)
            byes.append(rnd.bye)
        assert sorted(seated) == list(range(players))
        assert (rnd.bye is None) == (players % 2 == 0)
        for a, b in rnd.games:
            pair = (min(a, b), max(a, b))
            assert pair not in seen
            seen.add(pair)
    # No one has a second bye while another player has had none.
    assert len(byes) == len(set(byes)) or len(set(byes)) == players


def test_swiss_first_round_pairs_neighbours_in_seed_order():
    rnd = swiss_round(History.of(8, []))
    assert sorted(tuple(sorted(g)) for g in rnd.games) == [(0, 1), (2, 3), (4, 5), (6, 7)]
    assert rnd.bye is None


def test_swiss_pairs_leaders_together_after_round_one():
    r1 = [Played(0, 1, (2, 0)), Played(2, 3, (2, 0)), Played(4, 5, (0, 2)), Played(6, 7, (0, 2))]
    rnd = swiss_round(History.of(8, [(r1, None)]))
    # Winners 0, 2, 5, 7 meet each other; losers 1, 3, 4, 6 too.
    winners = {0, 2, 5, 7}
    for a, b in rnd.games:
        assert (a in winners) == (b in winners)


def test_swiss_bye_goes_to_the_lowest_ranked_player_without_one():
    rnd1 = swiss_round(History.of(5, []))
    assert rnd1.bye == 4
    r1 = [Played(a, b, (2, 0)) for a, b in rnd1.games]
    rnd2 = swiss_round(History.of(5, [(r1, 4)]))
    assert rnd2.bye != 4


@pytest.mark.parametrize("seed", range(40))
def test_swiss_never_has_a_player_first_three_times_in_a_row_or_two_ahead(seed):
    rng = random.Random(seed)
    # Rounds well below players - 1 leave the pairing room to keep the limits.
    players = rng.choice([8, 10, 12])
    rounds, _ = _play_swiss(players, 4, rng)
    roles = {p: "" for p in range(players)}
    for rnd in rounds:
        for a, b in rnd.games:
            roles[a] += "F"
            roles[b] += "S"
    for p, seq in roles.items():
        assert "FFF" not in seq, (p, seq)
        assert "SSS" not in seq, (p, seq)
        assert abs(seq.count("F") - seq.count("S")) <= 2, (p, seq)


@pytest.mark.parametrize("seed", range(10))
def test_swiss_pairs_past_the_balance_limits_rather_than_repeat_or_fail(seed):
    # Six players, five rounds: late rounds have few pairings left that no one has played,
    # and the limits on first moves give way to them (these cases all pair to the end).
    _, h = _play_swiss(6, 5, random.Random(seed))
    assert len(h.met) == 15


def test_swiss_with_no_pairing_left_raises_pairing_error():
    r = [(Played(0, 1, (2, 0)),), (Played(0, 1, (2, 0)),)]
    with pytest.raises(PairingError, match="repeats a game"):
        swiss_round(History.of(2, [(r[0], None)]))


@pytest.mark.parametrize("players", [3, 4, 5, 6, 7, 8, 10])
def test_round_robin_meets_every_pair_once_with_balanced_first_moves(players):
    cycle = round_robin_length(players)
    met = set()
    firsts = [0] * players
    seconds = [0] * players
    byes = [0] * players
    for n in range(1, cycle + 1):
        rnd = round_robin_round(players, n)
        for a, b in rnd.games:
            pair = (min(a, b), max(a, b))
            assert pair not in met
            met.add(pair)
            firsts[a] += 1
            seconds[b] += 1
        if rnd.bye is not None:
            byes[rnd.bye] += 1
    assert len(met) == players * (players - 1) // 2
    assert all(abs(f - s) <= 1 for f, s in zip(firsts, seconds, strict=True))
    assert byes == ([1] * players if players % 2 else [0] * players)


def test_double_round_robin_swaps_the_first_player():
    one = round_robin_round(6, 2)
    two = round_robin_round(6, 2 + round_robin_length(6))
    assert {(b, a) for a, b in one.games} == set(two.games)
