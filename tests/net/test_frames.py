"""Frames: round trips, and untrusted bytes raise only WireError."""

from __future__ import annotations

import contextlib

import pytest
from hypothesis import given
from hypothesis import strategies as st

from santorini_p2p.errors import SignatureError, WireError
from santorini_p2p.net.frames import (
    Challenge,
    Hello,
    Proof,
    Proven,
    RecordFrame,
    Refuse,
    Status,
    Stop,
    Welcome,
    Who,
    decode_frame,
    encode_frame,
    sign_hello,
    sign_refuse,
    sign_stop,
)
from tests.net.harness import identity

FRAMES = [
    sign_hello(identity(0), 1, b"", 0),
    sign_hello(identity(1), 1, bytes(16), 42),
    Welcome(1, bytes(16), 3, "draft", 60_000, 300_000, ("snake",), identity(0).public_key, "a"),
    Refuse("the game is full"),
    RecordFrame(7, b"\x94\x01"),
    Status(12),
    sign_refuse(identity(0), "this seat is now played from another connection", bytes(32)),
    sign_stop(identity(1), "desync", 9, bytes(32), b"", bytes(32)),
    Who(),
    Challenge(bytes(range(32)), identity(0).public_key),
    Proof(bytes(32), bytes(64)),
    Proven(bytes(64)),
]


@pytest.mark.parametrize("frame", FRAMES, ids=lambda f: type(f).__name__)
def test_frames_round_trip(frame):
    assert decode_frame(encode_frame(frame)) == frame


def test_hello_with_a_bad_signature_is_refused():
    h = sign_hello(identity(0), 1, b"", 0)
    forged = Hello(h.protocol, identity(1).public_key, h.name, h.game_id, h.have, h.signature)
    with pytest.raises(SignatureError):
        decode_frame(encode_frame(forged))


@given(st.binary(max_size=300))
def test_arbitrary_bytes_raise_only_wire_errors(data):
    with contextlib.suppress(WireError):
        decode_frame(data)


@given(st.sampled_from(FRAMES), st.integers(0, 200), st.integers(0, 255))
def test_flipped_bytes_raise_only_wire_errors(frame, at, value):
    raw = bytearray(encode_frame(frame))
    raw[at % len(raw)] = value
    with contextlib.suppress(WireError):
        decode_frame(bytes(raw))


def test_a_refusal_from_an_older_version_is_the_reason_alone():
    """Any version reads ``[3, reason]``: the refusal of another protocol is sent that way."""
    assert encode_frame(Refuse("protocol 1 is not 2")) == b"\x92\x03\xb3protocol 1 is not 2"


def test_a_stop_is_signed_for_one_connection_only():
    stop = sign_stop(identity(1), "go away", 3, b"", b"", b"n" * 32)
    assert stop.is_signed_by(identity(1).public_key, b"n" * 32)
    assert not stop.is_signed_by(identity(1).public_key, b"m" * 32)
    assert not stop.is_signed_by(identity(0).public_key, b"n" * 32)
    unsigned = Stop("go away", 3, b"", b"")
    assert not unsigned.is_signed_by(identity(1).public_key, b"n" * 32)
