"""The canonical codec: one encoding per value, strict and bounded decoding (SPEC.md 5)."""

from __future__ import annotations

import pytest
from hypothesis import example, given
from hypothesis import strategies as st

from santorini_p2p.errors import DecodeError, NonCanonicalError, TooLargeError, WireError
from santorini_p2p.wire.codec import MAX_RECORD_BYTES, decode, encode

# Hand-worked encodings (msgpack-test-suite style: canonical form first).
CANONICAL = [
    (None, "c0"),
    (False, "c2"),
    (True, "c3"),
    (0, "00"),
    (127, "7f"),
    (128, "cc80"),
    (255, "ccff"),
    (256, "cd0100"),
    (65536, "ce00010000"),
    (2**32, "cf0000000100000000"),
    (-1, "ff"),
    (-32, "e0"),
    (-33, "d0df"),
    (-129, "d1ff7f"),
    ("", "a0"),
    ("a", "a161"),
    ("x" * 32, "d920" + "78" * 32),
    (b"", "c400"),
    (b"\x01\x02", "c4020102"),
    ((), "90"),
    ((1, (b"\xff",), "é"), "9301" + "91c401ff" + "a2c3a9"),
]

NON_CANONICAL = [
    ("cc01", "uint8 for a positive fixint"),
    ("cd00ff", "uint16 for a value that fits uint8"),
    ("d000", "int8 for 0"),
    ("d9016a", "str8 for a 1-byte string"),
    ("c50001ff", "bin16 for a 1-byte binary"),
    ("dc000101", "array16 for a 1-element array"),
]

MALFORMED = [
    ("", "empty"),
    ("c1", "the never-used byte"),
    ("ca3f800000", "float32"),
    ("cb3ff0000000000000", "float64"),
    ("81a16101", "a map"),
    ("d4010a", "fixext1"),
    ("d6ff00000001", "a timestamp extension"),
    ("0101", "trailing bytes"),
    ("92", "truncated array"),
    ("a3ab", "truncated string"),
    ("a2c328", "invalid UTF-8"),
    ("dd" + "ffffffff", "an array claiming 4 billion elements"),
    ("c6" + "ffffffff", "a bin claiming 4 GiB"),
    ("91919191919101", "arrays nested too deep"),
]


@pytest.mark.parametrize(("value", "hexed"), CANONICAL)
def test_encode_is_the_hand_worked_canonical_form(value, hexed):
    assert encode(value).hex() == hexed
    assert decode(bytes.fromhex(hexed)) == value


@pytest.mark.parametrize(("hexed", "why"), NON_CANONICAL)
def test_non_canonical_encodings_are_rejected(hexed, why):
    with pytest.raises(NonCanonicalError):
        decode(bytes.fromhex(hexed))


@pytest.mark.parametrize(("hexed", "why"), MALFORMED)
def test_malformed_input_raises_decode_error(hexed, why):
    with pytest.raises(DecodeError):
        decode(bytes.fromhex(hexed))


def test_size_is_checked_before_decoding():
    with pytest.raises(TooLargeError, match="over the limit"):
        decode(b"\xc0" * (MAX_RECORD_BYTES + 1))
    with pytest.raises(TooLargeError):
        decode(encode(b"x" * 100), max_size=50)


@pytest.mark.parametrize(
    "value",
    [
        *(1.5, {"a": 1}, {1, 2}, 2**64, -(2**63) - 1, object()),
        # Inside arrays too, where scalars are checked a whole array at once.
        *((3, 2**64), (True, -(2**63) - 1), (1, (2, 2**64)), (b"", 1.5), (1, {"a": 1})),
        *((None, object()), [1, 2.0], (1, (2, [3, 1.5]))),
    ],
)
def test_encode_refuses_values_outside_the_subset(value):
    with pytest.raises(TypeError):
        encode(value)


def test_encode_accepts_lists_as_arrays_and_decodes_tuples():
    assert decode(encode([1, [2]])) == (1, (2,))


values = st.recursive(
    st.none()
    | st.booleans()
    | st.integers(min_value=-(2**63), max_value=2**64 - 1)
    | st.text(max_size=20)
    | st.binary(max_size=20),
    lambda inner: st.lists(inner, max_size=4).map(tuple),
    max_leaves=12,
).filter(lambda v: _depth(v) <= 4)


def _depth(v):
    return 1 + max((_depth(x) for x in v), default=0) if isinstance(v, tuple) else 0


@given(values)
def test_decode_of_encode_is_identity(value):
    data = encode(value)
    assert decode(data) == value
    assert encode(decode(data)) == data


@given(st.binary(max_size=64))
@example(b"\xdd\xff\xff\xff\xff")
@example(b"\xc7\x01\x05a")
@example(b"\x91" * 200 + b"\x01")
def test_arbitrary_bytes_raise_only_wire_errors(data):
    try:
        value = decode(data)
    except WireError:
        return
    assert encode(value) == data
