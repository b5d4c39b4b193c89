"""Replay files: the magic, then length-prefixed envelopes; reading one whole (SPEC.md 9).

``encode_frames`` and ``iter_frames`` are the framing; ``read_log`` reads and checks a whole
file (or a journal), reporting the first bad record by number. Re-exported by ``wire.log``.
"""

from __future__ import annotations

import gc
from collections.abc import Iterable, Iterator
from contextlib import contextmanager
from typing import Final

from santorini_p2p.errors import (
    DecodeError,
    RecordError,
    ReplayError,
    TooLargeError,
    VersionError,
    WireError,
)
from santorini_p2p.wire.codec import MAX_RECORD_BYTES
from santorini_p2p.wire.envelope import SIGNING_DOMAIN, chain_hash, split_envelope
from santorini_p2p.wire.identity import (
    count_verified,
)
from santorini_p2p.wire.messages import (
    decode_body,
)
from santorini_p2p.wire.validator import MAX_RECORDS, OpenedRecord, Validator

__all__ = [
    "FILE_HEAD",
    "FILE_MAGIC",
    "FILE_VERSION",
    "encode_frames",
    "iter_frames",
    "read_log",
    "torn_at_end",
]

FILE_MAGIC: Final = b"SNTR"
FILE_VERSION: Final = 1
FILE_HEAD: Final = FILE_MAGIC + bytes([FILE_VERSION])


def encode_frames(envelopes: Iterable[bytes]) -> bytes:
    """Return a replay file: ``SNTR``, version byte 1, then each envelope with a length prefix."""
    parts = [FILE_HEAD]
    for raw in envelopes:
        parts.append(len(raw).to_bytes(4, "big"))
        parts.append(raw)
    return b"".join(parts)


def _check_magic(data: bytes) -> None:
    if len(data) < len(FILE_HEAD) or data[:4] != FILE_MAGIC:
        raise DecodeError("not a replay file (no SNTR magic)")
    if data[4] != FILE_VERSION:
        raise VersionError(
            f"unsupported replay file version {data[4]} (this program reads {FILE_VERSION})"
        )


def iter_frames(data: bytes, *, padded: bool = False) -> Iterator[bytes]:
    """Yield the envelopes of a replay file in order; errors come when their record is reached.

    ``padded``: ``data`` is a journal on disk, which may end in zero bytes (the space a
    journal keeps written ahead, SPEC.md section 9): they end the log. Without it they are an
    error, since a replay file (a finished journal) has none.

    Raises:
        WireError: not a replay file or an unsupported version (``record`` None), an
            oversized record (``TooLargeError``), or a truncated one (``DecodeError``); the
            error's ``record`` is the number of the record that could not be read.
    """
    _check_magic(data)
    at = len(FILE_HEAD)
    index = 0
    end = len(data)
    while at < end:
        if index >= MAX_RECORDS:
            raise TooLargeError(f"a log may hold at most {MAX_RECORDS} records", index)
        if end - at < 4:
            raise DecodeError(f"truncated file: {end - at} bytes of a length prefix", index)
        size = int.from_bytes(data[at : at + 4], "big")
        at += 4
        if size > MAX_RECORD_BYTES:
            raise TooLargeError(
                f"record length {size} is over the limit of {MAX_RECORD_BYTES}", index
            )
        if size == 0:
            if _zeros_from(data, at - 4):
                if padded:
                    return
                raise DecodeError(
                    "zero bytes after the last record: the journal of a game in progress or "
                    "cut short (a finished journal ends at its last record)",
                    index,
                )
            raise DecodeError("empty record", index)
        if end - at < size:
            raise DecodeError(
                f"truncated file: the record needs {size} bytes, {end - at} left", index
            )
        yield data[at : at + size]
        at += size
        index += 1


def _zeros_from(data: bytes, at: int) -> bool:
    """Whether every byte of ``data`` from ``at`` on is zero."""
    return data.count(0, at) == len(data) - at


def torn_at_end(data: bytes, at: int, raw: bytes) -> bool:
    """Whether the bad frame ``raw`` at ``at`` is the last, its end lost to a power cut.

    A journal's zeros are written ahead of its records, so a record whose last pages never
    reached the disk reads as that record's start, then zeros to the end of the file.
    """
    end = at + 4 + len(raw)
    return raw.endswith(b"\0") and _zeros_from(data, end)


def _open_all(frames: list[bytes]) -> list[OpenedRecord]:
    """Open, decode and signature-check the leading records of ``frames`` that pass.

    Stops at the first record that fails any of these checks (``feed`` then reports it).
    """
    opened: list[OpenedRecord] = []
    signed: list[tuple[bytes, bytes, bytes]] = []
    for raw in frames:
        try:
            signer, body, signature = split_envelope(raw)
            msg = decode_body(body)
        except WireError:
            break
        opened.append((raw, signer, msg, chain_hash(raw)))
        signed.append((signer, signature, SIGNING_DOMAIN + body))
    good = count_verified(signed)
    return opened if good == len(opened) else opened[:good]


def read_log(data: bytes, *, complete: bool = True) -> Validator:
    """Read and check a whole replay file (or, with ``complete=False``, a journal on disk).

    Raises:
        ReplayError: the first bad record by number (``record_index`` None when the file is
            not a replay file at all); with ``complete``, a log that ends before every seat
            signed the result fails at the index one past its last record.
    """
    with _collector_paused():
        return _read_log(data, complete)


@contextmanager
def _collector_paused() -> Iterator[None]:
    """Pause Python's cyclic garbage collector for a bulk read, then restore it.

    A log is read into many small objects that all stay alive and form no cycles; the
    collector would scan them again and again as they pile up, which costs about a third
    of the checks other than signatures (benchmarks/replay.py).
    """
    enabled = gc.isenabled()
    gc.disable()
    try:
        yield
    finally:
        if enabled:
            gc.enable()


def _read_log(data: bytes, complete: bool) -> Validator:
    frames: list[bytes] = []
    unreadable: WireError | None = None
    try:
        frames.extend(iter_frames(data, padded=not complete))
    except WireError as e:
        unreadable = e
    # In stages, each a tight loop: open and decode every envelope, check every signature,
    # then fold. Interleaved, each check costs more (benchmarks/replay.py). Stages stop at the
    # first record they cannot pass, which is then fed whole so that the first bad record is
    # reported with its own error, in the order feed checks.
    opened = _open_all(frames)
    v = Validator()
    try:
        v._feed_opened(opened)
        for raw in frames[len(opened) :]:
            v.feed(raw)
    except WireError as e:
        raise ReplayError(e.reason, e.record) from e
    if unreadable is not None:
        raise ReplayError(unreadable.reason, unreadable.record) from unreadable
    if complete and not v.is_complete:
        n = v.next_seq
        reason = "truncated: the log ends before every seat signed the result"
        err = RecordError(reason, n)
        raise ReplayError(reason, n) from err
    return v
