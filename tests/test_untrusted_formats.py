"""Untrusted bytes and text of the event file and the correspondence block raise only their
narrow errors (STYLE.md 6), whatever they hold."""

from __future__ import annotations

import contextlib

from hypothesis import given
from hypothesis import strategies as st

from santorini_p2p.tournament.event import EventError, decode_record, read_event
from santorini_p2p.wire.identity import Identity
from santorini_p2p.wire.post import (
    BlockError,
    RecordsBlock,
    armour,
    open_block,
    seal_block,
    unarmour,
)

ME = Identity.from_seed(bytes([3]) * 32, "carol")
BLOCK = seal_block(ME, RecordsBlock(bytes(16), ME.public_key, 2, 0, (b"x" * 40, b"y"), 5))


@given(st.binary(max_size=300))
def test_event_files_of_any_bytes_raise_only_event_error(data):
    for raw in (data, b"SNTE\x01" + data):
        with contextlib.suppress(EventError):
            read_event(raw)
    with contextlib.suppress(EventError):
        decode_record(data)


@given(st.binary(max_size=400))
def test_blocks_of_any_bytes_raise_only_block_error(data):
    with contextlib.suppress(BlockError):
        open_block(data)


@given(st.text(max_size=400))
def test_any_text_raises_only_block_error(text):
    with contextlib.suppress(BlockError):
        unarmour(text)


@given(st.integers(min_value=0, max_value=len(BLOCK) - 1), st.integers(1, 255))
def test_a_block_with_any_byte_changed_is_refused(at, flip):
    changed = bytearray(BLOCK)
    changed[at] ^= flip
    text = armour(bytes(changed), "t")
    try:
        open_block(unarmour(text))
    except BlockError:
        return
    raise AssertionError(f"byte {at} changed and the block still opened")
