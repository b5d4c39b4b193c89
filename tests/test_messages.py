"""Record bodies: every type round-trips, and malformed bodies raise only wire errors."""

from __future__ import annotations

import contextlib

import pytest
from hypothesis import given
from hypothesis import strategies as st

from santorini_p2p.errors import (
    DecodeError,
    NonCanonicalError,
    ReplayError,
    VersionError,
    WireError,
)
from santorini_p2p.wire.codec import encode
from santorini_p2p.wire.log import Validator, open_envelope, read_log, verify_envelope
from santorini_p2p.wire.messages import (
    Accept,
    Ack,
    Act,
    Chat,
    Commit,
    Header,
    Offer,
    Resign,
    Result,
    Reveal,
    Seat,
    Timeout,
    _act_or_ack,
    _act_or_ack_bytes,
    _from_fields,
    decode_body,
    encode_body,
)
from tests.replays import replay_file

h32 = st.binary(min_size=32, max_size=32)
seq = st.integers(0, 2**63 - 1)
small = st.integers(0, 2**40)
text = st.text(max_size=16)

messages = st.one_of(
    # Protocol 1 has no pool; protocol 2 ends with one (SPEC.md 7).
    *(
        st.builds(
            Header,
            seq,
            h32,
            st.binary(min_size=16, max_size=16),
            st.just(version),
            small,
            st.lists(st.builds(Seat, h32, text), min_size=1, max_size=4).map(tuple),
            text,
            small,
            small,
            st.lists(text, max_size=3).map(tuple),
            # Protocol 2 always has the field, an empty pool included (a game without gods).
            st.lists(text, max_size=(version - 1) * 5).map(tuple),
        )
        for version in (1, 2)
    ),
    st.builds(Commit, seq, h32, h32),
    st.builds(Reveal, seq, h32, h32),
    st.builds(Act, seq, h32, st.text(max_size=64), small, h32),
    st.builds(Ack, seq, h32, small, h32),
    st.builds(Chat, seq, h32, st.text(max_size=200)),
    st.builds(Resign, seq, h32, h32),
    st.builds(Timeout, seq, h32, st.integers(0, 3), h32),
    st.builds(Offer, seq, h32, text),
    st.builds(Accept, seq, h32, text, small),
    st.builds(Result, seq, h32, st.integers(-1, 3), text, h32),
)


@given(messages)
def test_every_message_round_trips(message):
    data = encode_body(message)
    assert decode_body(data) == message
    assert encode_body(decode_body(data)) == data


@pytest.mark.parametrize(
    ("value", "match"),
    [
        ((), "expected an array"),
        ((18, 0, bytes(32)), "unknown record type 18"),
        ((11, 0, bytes(32)), "shuffle: expected 4 fields, got 3"),
        ((11, 0, bytes(32), (bytes(255),)), "shuffle field 3: expected 1 to 14 cards"),
        ((13, 0, bytes(32), "athena", bytes(31)), "open field 4: expected 32 bytes"),
        ((14, 0, bytes(32), -1, "athena", bytes(32)), "object field 3"),
        ((15, 0, bytes(32), 4, "late"), "forfeit field 3"),
        ((16, 0, bytes(32)), "ask: expected 4 fields, got 3"),
        ((17, 0, bytes(32), "x" * 17), "at most 16 characters"),
        ((10, 0, bytes(32)), "chat: expected 4 fields, got 3"),
        ((10, 0, bytes(32), "x" * 201), "at most 200 characters"),
        ((True, 0, bytes(32)), "unknown record type"),
        ((7, 0, bytes(32)), "expected 4 fields, got 3"),
        ((7, -1, bytes(32), "draw"), "offer field 1"),
        ((7, 0, bytes(31), "draw"), "offer field 2: expected 32 bytes"),
        ((7, 0, bytes(32), b"draw"), "offer field 3: expected text"),
        ((6, 0, bytes(32), 4, bytes(32)), "timeout field 3"),
        ((9, 0, bytes(32), -2, "win", bytes(32)), "result field 3"),
        ((3, 0, bytes(32), "x" * 65, 0, bytes(32)), "act field 3"),
        ((0, 0, bytes(32), bytes(16), 1, 0, ((bytes(32),),), "none", 0, 0, ()), "seats"),
        ((0, 0, bytes(32), bytes(16), 1, 0, (), "none", 0, 0, ()), "1 to 4 seats"),
    ],
)
def test_malformed_bodies_name_the_field(value, match):
    with pytest.raises(DecodeError, match=match):
        decode_body(encode(value))


@given(st.binary(max_size=300))
def test_arbitrary_bytes_to_every_reader_raise_only_our_errors(data):
    for reader in (decode_body, open_envelope, verify_envelope):
        with contextlib.suppress(WireError):
            reader(data)
    with contextlib.suppress(ReplayError):
        Validator().feed(data)
    with contextlib.suppress(ReplayError):
        read_log(b"SNTR\x01" + len(data).to_bytes(4, "big") + data)


@given(st.data())
def test_mangled_replays_raise_only_replay_errors(data):
    blob = bytearray(replay_file(2, "none", 0))
    for _ in range(data.draw(st.integers(1, 4))):
        at = data.draw(st.integers(0, len(blob) - 1))
        blob[at] = data.draw(st.integers(0, 255))
    with contextlib.suppress(ReplayError):
        read_log(bytes(blob))


def test_the_act_and_ack_shortcut_reads_like_the_field_by_field_path():
    # Acts and acks are read without the field helpers: every value with one field replaced
    # by a near miss (or cut short, or one too long) must either read the same both ways or
    # go the general way, which names the bad field.
    misses = [True, None, 0, -1, 2**63 - 1, 2**63, bytes(31), bytes(32), bytes(33), "", "x" * 64]
    misses += ["x" * 65, "é", b"c3>d4", 3, 4]
    act = (3, 5, bytes(32), "c3>d4^e5", 1200, bytes(32))
    ack = (4, 6, bytes(32), 5, bytes(32))
    values = [act, ack, act[:5], ack[:4], (*act, 0), (*ack, 0)]
    for good in (act, ack):
        values += [(*good[:i], miss, *good[i + 1 :]) for i in range(len(good)) for miss in misses]
    taken = 0
    for value in values:
        fast = _act_or_ack(value)
        try:
            general = _from_fields(value)
        except (DecodeError, VersionError):  # a header's unknown version is named as such
            assert fast is None, value
            continue
        assert fast == general, value
        taken += 1
    assert taken > 20  # the shortcut is taken for every well-formed one


def _general(data: bytes) -> object:
    """A body read by the codec's full canonical decoder, then field by field; or its error."""
    from santorini_p2p.wire.codec import decode
    from santorini_p2p.wire.messages import from_value

    try:
        return from_value(decode(data))
    except WireError as e:
        return type(e)


_LONG_SEVENS = [b"\xcc\x07", b"\xcd\x00\x07", b"\xce\x00\x00\x00\x07", b"\xcf" + bytes(7) + b"\x07"]
"""The number 7 in each msgpack form longer than its smallest (a positive fixint)."""


def test_acts_and_acks_read_from_their_bytes_read_as_the_general_decoder_does():
    # The byte reader takes only exact canonical acts and acks: every integer at each edge of
    # its smallest form, actions of every string form and length, and every body one byte
    # changed, cut or grown from these, either read the same both ways or go the general way.
    edges = [0, 127, 128, 255, 256, 65_535, 65_536, 2**32 - 1, 2**32, 2**63 - 1]
    actions = ["", "c3>d4^e5", "x" * 31, "x" * 32, "é" * 16, "é" * 32, "x" * 64, "€" * 64]
    bodies = []
    for n in edges:
        bodies.append(encode_body(Ack(n, bytes(range(32)), n, bytes(32))))
        bodies.append(encode_body(Act(n, bytes(32), "place b4,c4", n, bytes(range(32)))))
    bodies += [encode_body(Act(7, bytes(32), a, 10, bytes(32))) for a in actions]
    bodies += [encode((3, 1, bytes(32), "x" * 65, 1, bytes(32)))]
    bodies += [encode((4, 2**63, bytes(32), 1, bytes(32))), encode((4, 1, bytes(31), 1, bytes(32)))]
    read = 0
    for body in bodies:
        variants = [body, body[:-1], body + b"\x00"]
        for i in range(len(body)):
            for c in {0x00, 0x7F, 0x80, 0xA0, 0xBF, 0xC4, 0xCC, 0xD9, 0xDA, body[i] ^ 1}:
                variants.append(body[:i] + bytes([c]) + body[i + 1 :])
            variants.append(body[:i])
        for data in variants:
            fast = _act_or_ack_bytes(data)
            if fast is not None:
                assert _general(data) == fast, data.hex()
                read += 1
    # Every canonical act and ack in range is read by its bytes.
    for body in bodies[: 2 * len(edges) + len(actions)]:
        assert _act_or_ack_bytes(body) == decode_body(body) == _general(body), body.hex()
    # Longer forms than the smallest: a short action as str8, small numbers as uint8 to
    # uint64, a hash as bin16. The general decoder refuses them as not canonical.
    act = encode_body(Act(7, bytes(32), "c3", 10, bytes(32)))
    ack = encode_body(Ack(7, bytes(32), 6, bytes(32)))
    longer = [
        act.replace(b"\xa2c3", b"\xd9\x02c3"),
        act.replace(b"\x96\x03\x07", b"\x96\x03\xcc\x07"),
    ]
    longer += [ack.replace(b"\x95\x04\x07", b"\x95\x04" + head) for head in _LONG_SEVENS]
    longer += [ack[:-34] + b"\xc5\x00\x20" + ack[-32:]]
    for data in longer:
        assert _act_or_ack_bytes(data) is None, data.hex()
        assert _general(data) is NonCanonicalError, data.hex()
    assert _act_or_ack_bytes(bodies[-3]) is None  # an action of 65 characters
    assert _act_or_ack_bytes(bodies[-2]) is None  # a number above 2**63 - 1
    assert read > 100


def test_foreign_values_in_acts_and_acks_are_refused_as_by_the_codec():
    # decode_body lets the act and ack reader take a value before the codec's walk for
    # floats, maps and extension types; such a value must still be refused, with the codec's
    # own error. Built with msgpack itself, since our encoder cannot write them.
    import msgpack

    from santorini_p2p.wire.codec import decode

    act = (3, 5, bytes(32), "c3>d4^e5", 1200, bytes(32))
    ack = (4, 6, bytes(32), 5, bytes(32))
    foreign = [3.0, 5.0, 1.5, {}, {"a": 1}, msgpack.ExtType(1, b"x"), (1.0,)]
    for good in (act, ack):
        for i in range(len(good)):
            for value in foreign:
                data = msgpack.packb((*good[:i], value, *good[i + 1 :]), use_bin_type=True)
                with pytest.raises(DecodeError) as want:
                    decode(data)
                with pytest.raises(DecodeError) as got:
                    decode_body(data)
                assert str(got.value) == str(want.value), (i, value)


def test_a_header_of_an_unknown_version_is_refused_by_its_number():
    h = Header(0, bytes(32), bytes(16), 4, 0, (Seat(bytes(32), "a"),), "none", 0, 0, ())
    with pytest.raises(VersionError, match="unsupported protocol version 4"):
        decode_body(encode_body(h))
