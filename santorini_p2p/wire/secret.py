"""The secret deal: each seat learns its own god alone (protocol/SECRET.md sections 2 to 4).

A commutative-encryption ("mental poker") deal over the god pool: every card is an element of
the subgroup of quadratic residues modulo the RFC 3526 2048-bit safe prime ``P = 2Q + 1``, and
every seat's key is an exponent ``e`` (inverse ``d = e^-1 mod Q``). Raising to ``e`` commutes
between seats, so each seat in turn encrypts and shuffles the whole pool, then each seat in turn
takes its layer off every dealt card but its own. What is left of seat ``i``'s card is
``card(god)^e_i``: only seat ``i`` can open it, and its opening (the god and ``e_i``) proves
the god, since no other god's card raised to any exponent the seat can find gives it.

Public API:

- ``card_of(god) -> int``: a god's card, an element of the subgroup (SECRET.md 2);
- ``to_bytes(x)`` / ``from_bytes(b, what)``: the 256-byte big-endian form, checked on reading;
- ``legendre(x)``: whether ``x`` is in the subgroup (1), fast;
- ``DealKey.from_seed(seed32)``: a seat's key from 32 secret bytes;
- ``shuffle_order(seed32, n)``: the seat's secret permutation, from the same kind of seed;
- ``shuffle(deck, key, order)`` / ``strip(hand, key, seat)``: the two kinds of deal step;
- ``open_card(card, key, pool)``: the god on a seat's own card;
- ``reveal_error(card, god, e, pool)``: why an opening is wrong, or None;
- ``audit_deal(pool, players, shuffles, strips, keys)``: the whole transcript checked at the
  end; a ``DealFault`` names the first seat whose step was wrong and why.
"""

from __future__ import annotations

import hashlib
from collections import Counter
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Final

from santorini_p2p.wire.draw import DrawStream

__all__ = [
    "CARD_DOMAIN",
    "ELEMENT_BYTES",
    "KEY_BITS",
    "ORDER",
    "PRIME",
    "DealFault",
    "DealKey",
    "audit_deal",
    "card_of",
    "from_bytes",
    "legendre",
    "open_card",
    "reveal_error",
    "shuffle",
    "shuffle_order",
    "strip",
    "to_bytes",
]

PRIME: Final = int(
    "FFFFFFFFFFFFFFFFC90FDAA22168C234C4C6628B80DC1CD129024E088A67CC74020BBEA63B139B22514A0879"
    "8E3404DDEF9519B3CD3A431B302B0A6DF25F14374FE1356D6D51C245E485B576625E7EC6F44C42E9A637ED6B"
    "0BFF5CB6F406B7EDEE386BFB5A899FA5AE9F24117C4B1FE649286651ECE45B3DC2007CB8A163BF0598DA4836"
    "1C55D39A69163FA8FD24CF5F83655D23DCA3AD961C62F356208552BB9ED529077096966D670C354E4ABC9804"
    "F1746C08CA18217C32905E462E36CE3BE39E772C180E86039B2783A2EC07A28FB5C55DF06F4C52C9DE2BCBF6"
    "955817183995497CEA956AE515D2261898FA051015728E5A8AACAA68FFFFFFFFFFFFFFFF",
    16,
)
"""The 2048-bit MODP prime of RFC 3526 (group 14), a safe prime: ``(PRIME - 1) / 2`` is prime."""

ORDER: Final = (PRIME - 1) // 2
"""Q, the prime order of the subgroup of quadratic residues, where every card lives."""

ELEMENT_BYTES: Final = 256
"""Every card travels as exactly 256 bytes, big-endian."""

KEY_BITS: Final = 256
"""A key's exponent ``e`` has exactly this many bits (its top bit set)."""

CARD_DOMAIN: Final = b"santorini-p2p/1 card\x00"


class DealFault(ValueError):
    """A deal transcript that does not check: ``seat`` (0-based) signed the wrong step."""

    def __init__(self, seat: int, step: str, reason: str) -> None:
        super().__init__(f"seat {seat + 1}'s {step}: {reason}")
        self.seat = seat
        self.step = step
        self.reason = reason


def card_of(god: str) -> int:
    """Return the card of ``god``: the square modulo PRIME of a 2560-bit BLAKE2b expansion.

    ``h = BLAKE2b-512(CARD_DOMAIN || name || 0x00) || ... || BLAKE2b-512(... || 0x04)`` read
    big-endian, reduced modulo PRIME and squared; squaring puts every card in the subgroup, so
    no card's quadratic character tells anything (SECRET.md 2).
    """
    raw = b"".join(
        hashlib.blake2b(CARD_DOMAIN + god.encode() + bytes([i]), digest_size=64).digest()
        for i in range(5)
    )
    x = int.from_bytes(raw, "big") % PRIME
    return x * x % PRIME


def to_bytes(x: int) -> bytes:
    """Return ``x`` as the 256 big-endian bytes that records carry."""
    return x.to_bytes(ELEMENT_BYTES, "big")


def from_bytes(b: bytes, what: str) -> int:
    """Read a card from ``b``, checking it is one; ``what`` names it in the error.

    Raises:
        ValueError: not 256 bytes, not in ``2 .. PRIME - 1``, or not in the subgroup.
    """
    if len(b) != ELEMENT_BYTES:
        raise ValueError(f"{what}: expected {ELEMENT_BYTES} bytes, got {len(b)}")
    x = int.from_bytes(b, "big")
    if not 1 < x < PRIME:
        raise ValueError(f"{what}: not an element of the group")
    if legendre(x) != 1:
        raise ValueError(f"{what}: not a quadratic residue (every card is one)")
    return x


def legendre(x: int) -> int:
    """The Legendre symbol of ``x`` modulo PRIME: 1 for a residue, -1 for none, 0 for 0.

    The same as Euler's criterion ``x^ORDER mod PRIME``, by quadratic reciprocity (the Jacobi
    symbol's algorithm), several hundred times faster.
    """
    a, n, r = x % PRIME, PRIME, 1
    while a:
        t = (a & -a).bit_length() - 1
        a >>= t
        if t & 1 and n & 7 in (3, 5):
            r = -r
        if a & 3 == 3 and n & 3 == 3:
            r = -r
        a, n = n % a, a
    return r if n == 1 else 0


@dataclass(frozen=True)
class DealKey:
    """A seat's deal key: ``e`` encrypts, ``d`` (its inverse modulo ORDER) takes the layer off."""

    e: int
    d: int

    @classmethod
    def from_exponent(cls, e: int) -> DealKey:
        """The key whose exponent is ``e``.

        Raises:
            ValueError: ``e`` does not have exactly KEY_BITS bits.
        """
        if e.bit_length() != KEY_BITS:
            raise ValueError(f"key: expected a {KEY_BITS}-bit exponent, got {e.bit_length()} bits")
        return cls(e, pow(e, -1, ORDER))

    @classmethod
    def from_seed(cls, seed: bytes) -> DealKey:
        """The key from 32 secret bytes: their big-endian value with the top bit set."""
        if len(seed) != 32:
            raise ValueError(f"key seed: expected 32 bytes, got {len(seed)}")
        return cls.from_exponent(int.from_bytes(seed, "big") | 1 << (KEY_BITS - 1))


def shuffle_order(seed: bytes, n: int) -> tuple[int, ...]:
    """A secret permutation of ``0 .. n-1`` (Fisher-Yates over ``DrawStream(seed)``)."""
    stream = DrawStream(seed)
    order = list(range(n))
    for i in range(n - 1, 0, -1):
        j = stream.below(i + 1)
        order[i], order[j] = order[j], order[i]
    return tuple(order)


def shuffle(deck: Sequence[int], key: DealKey, order: Sequence[int]) -> tuple[int, ...]:
    """One seat's shuffle step: card ``i`` of the result is ``deck[order[i]] ^ e``."""
    if sorted(order) != list(range(len(deck))):
        raise ValueError(f"order: not a permutation of {len(deck)} cards")
    return tuple(pow(deck[j], key.e, PRIME) for j in order)


def strip(hand: Sequence[int], key: DealKey, seat: int) -> tuple[int, ...]:
    """One seat's strip step: every dealt card but ``hand[seat]`` loses the seat's layer."""
    return tuple(c if i == seat else pow(c, key.d, PRIME) for i, c in enumerate(hand))


def open_card(card: int, key: DealKey, pool: Sequence[str]) -> str:
    """Return the god on a seat's own card (what is left after every other seat's strip).

    Raises:
        ValueError: the card is no god of ``pool`` (some seat's step was wrong).
    """
    m = pow(card, key.d, PRIME)
    for god in pool:
        if card_of(god) == m:
            return god
    raise ValueError("card: it opens to no god of the pool (a deal step was wrong)")


def reveal_error(card: int, god: str, e: int, pool: Sequence[str]) -> str | None:
    """Why the opening ``(god, e)`` of ``card`` is refused, or None when it proves ``god``."""
    if god not in pool:
        return f"{god!r} is not a god of this game's pool"
    if e.bit_length() != KEY_BITS:
        return f"the key is not a {KEY_BITS}-bit exponent"
    if pow(card_of(god), e, PRIME) != card:
        return f"{god} with this key does not give the seat's card"
    return None


def audit_deal(
    pool: Sequence[str],
    players: int,
    shuffles: Sequence[Sequence[int]],
    strips: Sequence[Sequence[int]],
    keys: Sequence[int],
    withheld: int = 0,
) -> tuple[str, ...]:
    """Check a whole deal under every seat's opened exponent; return the gods in seat order.

    ``shuffles[j]`` is seat ``j``'s deck (the pool's cards in pool order before seat 0), and
    ``strips[j]`` its hand (the first ``players`` cards of the last deck before seat 0).
    ``withheld`` (bit mask): seats that never opened (a seat that left the game, SECRET.md
    8.1); their own steps go unchecked and their god is ``""``, every other step is checked
    (each step needs only its own seat's key and the cards before it).

    Raises:
        DealFault: the first step, in log order, that the keys show to be wrong.
    """
    if len(shuffles) != players or len(strips) != players or len(keys) != players:
        raise ValueError(f"deal: expected {players} shuffles, strips and keys")
    deal_keys: list[DealKey | None] = []
    for j, e in enumerate(keys):
        if withheld >> j & 1:
            deal_keys.append(None)
            continue
        try:
            deal_keys.append(DealKey.from_exponent(e))
        except ValueError as exc:
            raise DealFault(j, "opening", str(exc)) from None
    deck: tuple[int, ...] = tuple(card_of(g) for g in pool)
    for j, out in enumerate(shuffles):
        if len(out) != len(pool):
            raise DealFault(j, "shuffle", f"expected {len(pool)} cards, got {len(out)}")
        key = deal_keys[j]
        if key is not None and Counter(out) != Counter(pow(c, key.e, PRIME) for c in deck):
            raise DealFault(j, "shuffle", "its cards are not the deck before it, encrypted")
        deck = tuple(out)
    hand = deck[:players]
    for j, out in enumerate(strips):
        key = deal_keys[j]
        if key is not None and tuple(out) != strip(hand, key, j):
            raise DealFault(j, "strip", "its cards are not the hand before it, each layer off")
        hand = tuple(out)
    gods = []
    for j in range(players):
        key = deal_keys[j]
        if key is None:
            gods.append("")
            continue
        try:
            gods.append(open_card(hand[j], key, pool))
        except ValueError:
            raise DealFault(j, "opening", "its own card opens to no god of the pool") from None
    return tuple(gods)
