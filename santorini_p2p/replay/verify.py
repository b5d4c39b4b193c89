"""Verify replay files: every check of the log, one verdict per file (``santorini replay verify``).

Public API:

- ``Verdict``: the outcome for one file (players, gods, result, turns, or the first bad
  record and why), with ``line()`` for the one-line report and ``to_json()``;
- ``verify_bytes(data, name) -> Verdict`` and ``verify_file(path) -> Verdict``: never raise
  for bad input; the verdict says what is wrong;
- ``verify_text(data, name) -> Verdict``: a text export (SPEC.md 14), its armoured log and
  then its readable part against the log;
- ``verify_files(paths, jobs) -> Iterator[Verdict]``: in the order given, with ``jobs``
  worker processes (1: in this process).
"""

from __future__ import annotations

import os
from collections.abc import Iterator, Sequence
from concurrent.futures import ProcessPoolExecutor
from dataclasses import dataclass
from pathlib import Path
from typing import Final

from santorini_p2p.errors import ReplayError
from santorini_p2p.replay.export_text import TextReplayError, compare_text, is_text, read_text
from santorini_p2p.replay.secret import is_secret_replay, secret_verdict
from santorini_p2p.replay.timeline import describe_result, plays_alone, read_timeline
from santorini_p2p.wire.identity import fingerprint
from santorini_p2p.wire.log import MAX_RECORDS, Validator, read_log

__all__ = [
    "MAX_FILE_BYTES",
    "Verdict",
    "verify_bytes",
    "verify_file",
    "verify_files",
    "verify_text",
]

MAX_FILE_BYTES: Final = 5 + MAX_RECORDS * (4 + 4096)
"""The largest replay file a reader need accept (SPEC.md section 9)."""


@dataclass(frozen=True, slots=True)
class Verdict:
    """What verification found for one file.

    ``players`` are display names with fingerprints in final seat order; ``gods`` the god of
    each seat (``-`` for none); ``result`` a sentence; ``record`` the first bad record's
    number and ``error`` why, when ``ok`` is false; ``kind`` the error class name.
    """

    path: str
    ok: bool
    players: tuple[str, ...] = ()
    fingerprints: tuple[str, ...] = ()
    gods: tuple[str, ...] = ()
    result: str = ""
    turns: int = 0
    records: int = 0
    error: str = ""
    record: int | None = None
    kind: str = ""

    def line(self) -> str:
        """Return the one-line report: players, gods, result, turns, ``ok``; or the failure."""
        if not self.ok:
            where = f"record {self.record}: " if self.record is not None else ""
            return f"{self.path}: {where}{self.error}"
        players = " vs ".join(self.players)
        gods = "gods " + ", ".join(self.gods) if any(g != "-" for g in self.gods) else "no gods"
        turns = f"{self.turns} turn" + ("" if self.turns == 1 else "s")
        return f"{self.path}: {players}; {gods}; {self.result}; {turns}; ok"

    def to_json(self) -> dict[str, object]:
        """Return the verdict as a JSON-ready dict (the ``--json`` output)."""
        out: dict[str, object] = {"file": self.path, "ok": self.ok}
        if self.ok:
            out.update(
                players=[
                    {"name": n, "fingerprint": f}
                    for n, f in zip(self.players, self.fingerprints, strict=True)
                ],
                gods=list(self.gods),
                result=self.result,
                turns=self.turns,
                records=self.records,
            )
        else:
            out.update(record=self.record, error=self.error, kind=self.kind)
        return out


def _result_text(v: Validator) -> str:
    res = v.result
    assert res is not None
    winner, reason = res
    names = v.names
    if reason in ("draw", "abort"):
        return "drawn by agreement" if reason == "draw" else "aborted by agreement"
    if winner < 0:
        return "ended with no winner"
    return describe_result(res, list(names), plays_alone(v.header))


def verify_bytes(data: bytes, name: str = "<bytes>") -> Verdict:
    """Verify the replay file (or text export, SPEC.md 14) ``data``; ``name`` names it."""
    if is_text(data):
        return verify_text(data, name)
    if is_secret_replay(data):
        ok, prints, gods, text, turns, records = secret_verdict(data)
        if not ok:
            return Verdict(name, False, error=text, kind="SecretRecordError")
        return Verdict(name, True, prints, prints, gods, text, turns, records)
    try:
        v = read_log(data, complete=True)
    except ReplayError as e:
        cause = e.__cause__
        kind = type(cause).__name__ if cause is not None else "ReplayError"
        return Verdict(name, False, error=e.reason, record=e.record_index, kind=kind)
    p = v.position
    assert p is not None
    gods = tuple(g or "-" for g in p.gods)
    prints = tuple(fingerprint(k) for k in v.seats)
    return Verdict(
        name,
        True,
        players=v.names,
        fingerprints=prints,
        gods=gods,
        result=_result_text(v),
        turns=v.turns,
        records=v.next_seq,
    )


def verify_text(data: bytes, name: str = "<text>") -> Verdict:
    """Verify a text export: the armoured log, then the readable part against it.

    The verdict reads as ``verify_bytes`` gives it for the replay file inside, and a bad
    record also names the armour lines that hold it.
    """
    try:
        tr = read_text(data)
    except TextReplayError as e:
        return Verdict(name, False, error=e.reason, kind="TextReplayError")
    t = read_timeline(tr.data)
    if not t.ok:
        # No record number: the file's magic or version, in the first armour line.
        first, last = (tr.begin + 1,) * 2 if t.bad_record is None else tr.lines_of(t.bad_record)
        extra = f" (line {first})" if first == last else f" (lines {first}-{last})"
        return Verdict(name, False, error=t.error + extra, record=t.bad_record, kind=t.error_kind)
    try:
        compare_text(tr, t)
    except TextReplayError as e:
        return Verdict(name, False, error=e.reason, record=e.record_index, kind="TextReplayError")
    return Verdict(
        name,
        True,
        players=tuple(p.name for p in t.players),
        fingerprints=tuple(p.fingerprint for p in t.players),
        gods=tuple(p.god or "-" for p in t.players),
        result=t.result_text,
        turns=t.turns,
        records=len(t.records),
    )


def verify_file(path: str | os.PathLike[str]) -> Verdict:
    """Verify the replay file at ``path``; unreadable or oversized files fail with a reason."""
    name = os.fspath(path)
    try:
        size = os.path.getsize(name)
        if size > MAX_FILE_BYTES:
            return Verdict(
                name,
                False,
                error=f"{size} bytes is over the limit of {MAX_FILE_BYTES} for a replay file",
                kind="TooLargeError",
            )
        data = Path(name).read_bytes()
    except OSError as e:
        return Verdict(name, False, error=f"cannot read: {e.strerror or e}", kind="OSError")
    return verify_bytes(data, name)


def verify_files(paths: Sequence[str], jobs: int = 1) -> Iterator[Verdict]:
    """Yield a verdict for each path, in order, using ``jobs`` processes (1: this one)."""
    jobs = max(1, min(jobs, len(paths)))
    if jobs == 1:
        for path in paths:
            yield verify_file(path)
        return
    chunk = max(1, min(16, len(paths) // (jobs * 4)))
    with ProcessPoolExecutor(max_workers=jobs) as pool:
        yield from pool.map(verify_file, paths, chunksize=chunk)
