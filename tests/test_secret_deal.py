"""The secret deal (protocol/SECRET.md 2-4): each seat opens its own god alone, and the audit
finds the seat whose step was wrong."""

from __future__ import annotations

import hashlib
import random

import pytest

from santorini_p2p.wire.secret import (
    ORDER,
    PRIME,
    DealFault,
    DealKey,
    audit_deal,
    card_of,
    from_bytes,
    legendre,
    open_card,
    reveal_error,
    shuffle,
    shuffle_order,
    strip,
    to_bytes,
)

POOL = ("apollo", "artemis", "athena", "atlas", "demeter", "hephaestus", "hermes", "minotaur")


def _seed(label: str) -> bytes:
    return hashlib.blake2b(label.encode(), digest_size=32).digest()


def _deal(players: int, pool: tuple[str, ...] = POOL) -> tuple[list[DealKey], list, list]:
    keys = [DealKey.from_seed(_seed(f"key {j}")) for j in range(players)]
    deck = tuple(card_of(g) for g in pool)
    shuffles = []
    for j in range(players):
        deck = shuffle(deck, keys[j], shuffle_order(_seed(f"order {j}"), len(pool)))
        shuffles.append(deck)
    hand = deck[:players]
    strips = []
    for j in range(players):
        hand = strip(hand, keys[j], j)
        strips.append(hand)
    return keys, shuffles, strips


def test_cards_are_distinct_residues() -> None:
    cards = [card_of(g) for g in POOL]
    assert len(set(cards)) == len(cards)
    for c in cards:
        assert pow(c, ORDER, PRIME) == 1
        assert from_bytes(to_bytes(c), "card") == c


@pytest.mark.parametrize("players", [2, 3, 4])
def test_each_seat_opens_a_different_god_and_the_audit_agrees(players: int) -> None:
    keys, shuffles, strips = _deal(players)
    hand = strips[-1]
    gods = [open_card(hand[j], keys[j], POOL) for j in range(players)]
    assert len(set(gods)) == players
    assert set(gods) <= set(POOL)
    assert audit_deal(POOL, players, shuffles, strips, [k.e for k in keys]) == tuple(gods)
    for j in range(players):
        assert reveal_error(hand[j], gods[j], keys[j].e, POOL) is None


def test_no_card_is_a_god_in_the_clear() -> None:
    _, shuffles, strips = _deal(3)
    plain = {card_of(g) for g in POOL}
    for step in [*shuffles, *strips]:
        assert not plain & set(step)


def test_another_seat_key_opens_nothing() -> None:
    keys, _, strips = _deal(2)
    with pytest.raises(ValueError, match="no god"):
        open_card(strips[-1][0], keys[1], POOL)


def test_a_wrong_or_forged_reveal_is_refused_with_a_reason() -> None:
    keys, _, strips = _deal(2)
    card = strips[-1][0]
    god = open_card(card, keys[0], POOL)
    other = next(g for g in POOL if g != god)
    assert "does not give the seat's card" in (reveal_error(card, other, keys[0].e, POOL) or "")
    assert "does not give" in (reveal_error(card, god, keys[1].e, POOL) or "")
    assert "not a god of this game's pool" in (reveal_error(card, "zeus", keys[0].e, POOL) or "")
    assert "256-bit" in (reveal_error(card, god, 12345, POOL) or "")


def test_the_audit_names_a_seat_that_planted_a_card() -> None:
    keys, shuffles, strips = _deal(3)
    bad = list(shuffles[1])
    bad[0] = bad[1]
    with pytest.raises(DealFault) as info:
        audit_deal(POOL, 3, [shuffles[0], bad, shuffles[2]], strips, [k.e for k in keys])
    assert info.value.seat == 1
    assert info.value.step == "shuffle"


def test_the_audit_names_a_seat_that_stripped_wrongly() -> None:
    keys, shuffles, strips = _deal(2)
    bad = (strips[0][0], strips[0][0])
    with pytest.raises(DealFault) as info:
        audit_deal(POOL, 2, shuffles, [bad, strips[1]], [k.e for k in keys])
    assert (info.value.seat, info.value.step) == (0, "strip")


def test_an_opened_key_that_is_not_the_one_used_fails_the_audit() -> None:
    keys, shuffles, strips = _deal(2)
    other = DealKey.from_seed(_seed("other"))
    with pytest.raises(DealFault) as info:
        audit_deal(POOL, 2, shuffles, strips, [keys[0].e, other.e])
    assert (info.value.seat, info.value.step) == (1, "shuffle")


def test_bad_card_bytes_are_refused_by_name() -> None:
    with pytest.raises(ValueError, match="card 3: expected 256 bytes"):
        from_bytes(b"\x01" * 255, "card 3")
    with pytest.raises(ValueError, match="not an element"):
        from_bytes(to_bytes(PRIME), "card")
    non_residue = next(x for x in range(2, 100) if pow(x, ORDER, PRIME) != 1)
    with pytest.raises(ValueError, match="quadratic residue"):
        from_bytes(to_bytes(non_residue), "card")


def test_shuffle_order_is_a_permutation_from_the_seed() -> None:
    a = shuffle_order(_seed("x"), 18)
    assert sorted(a) == list(range(18))
    assert a == shuffle_order(_seed("x"), 18)
    assert a != shuffle_order(_seed("y"), 18)


def test_the_legendre_symbol_is_euler_s_criterion() -> None:
    rng = random.Random(5)
    for x in [*range(1, 60), *(rng.randrange(1, PRIME) for _ in range(40))]:
        euler = pow(x, ORDER, PRIME)
        assert legendre(x) == (1 if euler == 1 else -1)
    assert legendre(0) == 0
