"""The canonical msgpack codec: the only module that imports msgpack (protocol/SPEC.md 5).

What is signed or hashed must be the same bytes on every machine, so the codec speaks a small,
strict subset of msgpack:

- values are ``None``, ``bool``, ``int`` (-2**63 .. 2**64-1), ``str`` (UTF-8), ``bytes`` and
  tuples of values; no floats, no maps, no extension types;
- each value has exactly one encoding: the smallest integer form, ``str`` as the str family,
  ``bytes`` as the bin family, arrays positional.

Public API:

- ``encode(value) -> bytes``: the canonical encoding; raises ``TypeError`` on a value outside
  the subset (a bug of the caller, not bad input);
- ``decode(data, max_size=...) -> Value``: strict, bounded decoding of untrusted bytes. It
  checks the size before msgpack sizes any buffer, then rejects anything that is not in the
  subset, and finally re-encodes and rejects input whose bytes differ. It raises only
  ``WireError`` subclasses: ``TooLargeError``, ``DecodeError``, ``NonCanonicalError``;
- ``decode_read(data, read, max_size)``: the same, with a reader that may take the value
  first when it has checked every part's exact type (acts and acks, read on every turn).
"""

from __future__ import annotations

import threading
from collections.abc import Callable
from typing import Final, TypeAlias, TypeVar, cast

import msgpack

from santorini_p2p.errors import DecodeError, NonCanonicalError, TooLargeError

__all__ = ["MAX_DEPTH", "MAX_RECORD_BYTES", "Value", "decode", "decode_read", "encode"]

R = TypeVar("R")

Value: TypeAlias = "bool | int | str | bytes | tuple[Value, ...] | None"
"""A value the codec can carry: msgpack's nil, bool, int, str, bin and array."""

MAX_RECORD_BYTES: Final = 4096
"""The largest envelope or body, in bytes (protocol/SPEC.md section 9)."""
MAX_DEPTH: Final = 4
"""The deepest nesting of arrays the protocol uses (a header's seat list is depth 3)."""

_NOT_CANONICAL: Final = "not the canonical encoding (smallest forms, str/bin types)"
_SCALARS: Final = frozenset({type(None), bool, int, str, bytes})
"""The exact types of the subset's scalars."""
_INT_MIN: Final = -(2**63)
_INT_MAX: Final = 2**64 - 1


def _check(value: object, depth: int) -> None:
    """Raise ``TypeError`` unless ``value`` is in the canonical subset."""
    # Exact types first (every value of every record and frame): isinstance chains cost more.
    kind = type(value)
    if kind is bytes or kind is str or kind is bool or value is None:
        return
    if kind is int:
        if not _INT_MIN <= value <= _INT_MAX:  # type: ignore[operator]  # kind is int
            raise TypeError(f"integer out of msgpack range: {value}")
        return
    if kind is tuple:
        if depth >= MAX_DEPTH:
            raise TypeError(f"arrays nested deeper than {MAX_DEPTH}")
        # An array of exact scalars (every record and frame) is checked at once; the range
        # of its integers is left to the packer, whose OverflowError ``encode`` turns into
        # the TypeError it promises.
        if set(map(type, value)) <= _SCALARS:  # type: ignore[call-overload]  # kind is tuple
            return
        for item in value:  # type: ignore[attr-defined]  # kind is tuple
            _check(item, depth + 1)
        return
    # Subclasses (an IntEnum field) and lists take the general rules.
    if isinstance(value, bool | str | bytes):
        return
    if isinstance(value, int):
        if not _INT_MIN <= value <= _INT_MAX:
            raise TypeError(f"integer out of msgpack range: {value}")
        return
    if isinstance(value, tuple | list):
        if depth >= MAX_DEPTH:
            raise TypeError(f"arrays nested deeper than {MAX_DEPTH}")
        for item in value:
            _check(item, depth + 1)
        return
    raise TypeError(f"cannot encode {type(value).__name__} canonically")


def encode(value: Value) -> bytes:
    """Return the one canonical msgpack encoding of ``value``.

    Raises:
        TypeError: ``value`` holds a float, dict, set or other type outside the subset.
    """
    _check(value, 0)
    try:
        return _pack(value)
    except OverflowError:
        raise TypeError(f"an integer out of msgpack range in {value!r}") from None


_LOCAL = threading.local()


def _pack(value: object) -> bytes:
    # use_bin_type keeps bytes (bin) and str (str8 allowed) apart; msgpack-python already
    # chooses the smallest integer and length forms, which is our canonical form. One Packer
    # per thread: reusing it is about three times cheaper than packb, which builds one a call.
    packer = getattr(_LOCAL, "packer", None)
    if packer is None:
        packer = _LOCAL.packer = msgpack.Packer(use_bin_type=True, autoreset=True)
    return packer.pack(value)  # type: ignore[no-any-return]  # msgpack is untyped


def _reject_foreign(value: object, depth: int) -> None:
    """Raise ``DecodeError`` naming the type unless ``value`` is in the subset."""
    kind = type(value)
    if kind in _SCALARS:
        return
    if kind is tuple:
        # Exact type: msgpack's ExtType is a namedtuple and must not pass as an array.
        if depth >= MAX_DEPTH:
            raise DecodeError(f"arrays nested deeper than {MAX_DEPTH}")
        assert isinstance(value, tuple)
        if set(map(type, value)) <= _SCALARS:  # an array of scalars, at once
            return
        for item in value:
            if type(item) not in _SCALARS:
                _reject_foreign(item, depth + 1)
        return
    if kind is float:
        raise DecodeError("floats are not allowed")
    if kind is dict:
        raise DecodeError("maps are not allowed (arrays are positional)")
    raise DecodeError(f"extension types are not allowed (got {kind.__name__})")


def decode(data: bytes, max_size: int = MAX_RECORD_BYTES) -> Value:
    """Decode one canonical msgpack value from untrusted ``data``.

    Raises:
        TooLargeError: ``data`` is longer than ``max_size``.
        DecodeError: not one well-formed msgpack value of the subset (floats, maps and
            extension types are rejected; so are trailing bytes).
        NonCanonicalError: well-formed, but not the one canonical encoding.
    """
    return cast(Value, decode_read(data, _no_reader, max_size))


def _no_reader(value: object) -> None:
    """A reader for ``decode_read`` that takes nothing: every value gets ``decode``'s checks."""


def decode_read(data: bytes, read: Callable[[object], R | None], max_size: int) -> R | Value:
    """``decode``, with ``read`` given the decoded value first; return what it returns.

    ``read`` returns something only if it has checked the exact type of every part of the
    value (so that nothing outside the subset can be in it); the walk over the value that
    ``decode`` makes for that is then skipped. Otherwise it returns None and the value is
    checked and returned as by ``decode``. The canonical check is made either way, and the
    same errors are raised as by ``decode``.
    """
    raw, data = _unpack(data, max_size)
    got = read(raw)
    if got is None:
        _reject_foreign(raw, 0)
    if _pack(raw) != data:
        raise NonCanonicalError(_NOT_CANONICAL)
    return cast(Value, raw) if got is None else got  # as decode


def _unpack(data: bytes, max_size: int) -> tuple[object, bytes]:
    """Size-check and unpack ``data``; return the value (anything msgpack makes) and bytes."""
    if type(data) is not bytes:
        if not isinstance(data, bytes | bytearray | memoryview):
            raise DecodeError(f"expected bytes, got {type(data).__name__}")
        data = bytes(data)
    if len(data) > max_size:
        raise TooLargeError(f"{len(data)} bytes is over the limit of {max_size}")
    if not data:
        raise DecodeError("empty input")
    try:
        raw = msgpack.unpackb(
            data,
            raw=False,
            use_list=False,
            strict_map_key=True,
            max_str_len=max_size,
            max_bin_len=max_size,
            max_array_len=max_size,
            max_map_len=max_size,
            max_ext_len=max_size,
        )
    except msgpack.ExtraData:
        raise DecodeError("trailing bytes after the value") from None
    except UnicodeDecodeError as e:
        raise DecodeError(f"a string is not valid UTF-8 at byte {e.start}") from None
    except ValueError as e:
        if "incomplete" in str(e).lower():
            raise DecodeError("truncated msgpack value") from None
        raise DecodeError(f"malformed msgpack: {e or type(e).__name__}") from None
    except Exception as e:
        # msgpack's docstring: "Other exceptions can be raised during unpacking".
        raise DecodeError(f"malformed msgpack: {type(e).__name__}: {e}") from None
    return raw, data
