"""Shared randomness: the counter stream, rejection sampling and the setup draw (SPEC.md 11)."""

from __future__ import annotations

import hashlib

import pytest
from hypothesis import given
from hypothesis import strategies as st

from santorini_p2p.engine import GOD_NAMES
from santorini_p2p.wire.draw import DrawStream, commitment, draw_seed, draw_setup


def test_stream_is_blake2b_of_seed_and_counter():
    seed = bytes(range(32))
    stream = DrawStream(seed)
    got = bytes(stream.byte() for _ in range(64))
    want = b"".join(
        hashlib.blake2b(seed + c.to_bytes(8, "big"), digest_size=32).digest() for c in range(2)
    )
    assert got == want


def test_below_rejects_bytes_past_the_last_full_range():
    # 0xff is rejected for n = 3 (255 >= 256 - 256 % 3 = 255); the next byte decides.
    class Fixed(DrawStream):
        def __init__(self, data):
            super().__init__(b"")
            self.data = list(data)

        def byte(self):
            return self.data.pop(0)

    assert Fixed([255, 7]).below(3) == 1
    assert Fixed([254]).below(3) == 254 % 3
    with pytest.raises(ValueError, match=r"1\.\.256"):
        Fixed([0]).below(0)


@given(st.binary(min_size=32, max_size=32), st.integers(1, 256))
def test_below_stays_in_range(seed, n):
    stream = DrawStream(seed)
    assert all(0 <= stream.below(n) < n for _ in range(20))


@given(st.binary(min_size=32, max_size=32), st.sampled_from([2, 3, 4]))
def test_draws_are_distinct_gods_of_the_right_count(seed, players):
    start, drawn = draw_setup(seed, players, "draft")
    assert 0 <= start < players
    assert len(drawn) == (4 if players == 2 else players + 2)
    assert len(set(drawn)) == len(drawn)
    assert set(drawn) <= set(GOD_NAMES)
    assert draw_setup(seed, players, "random")[1] == drawn[:players]
    assert draw_setup(seed, players, "none") == (start, ())


def test_commitment_binds_the_key_and_the_game():
    nonce = b"\x01" * 32
    a = commitment(bytes(16), b"\xaa" * 32, nonce)
    assert a != commitment(bytes(16), b"\xbb" * 32, nonce)
    assert a != commitment(b"\x01" * 16, b"\xaa" * 32, nonce)


def test_seed_depends_on_every_nonce_and_their_order():
    a, b = b"\x01" * 32, b"\x02" * 32
    seeds = {draw_seed(bytes(16), n) for n in [(a, b), (b, a), (a, a), (b, b)]}
    assert len(seeds) == 4
