"""Long runs of games that survive a stop: shared by ``study.train`` and ``study.tune``.

``play_games`` plays a stage's games in order over processes (``map_jobs``), appends each
finished one to a ``Checkpoint`` file and says how far it is, at what rate and how long is left;
a resumed stage plays only the games not in the file. ``locked`` holds a run's directory for one
process.

A checkpoint is JSON lines: the first names what its games depend on (the stage, generation,
seeds, settings and what plays), each next one is one game in order,
``{"game": i, "seed": s, "seconds": t, <field>: <result>}`` (``t``: the stage's seconds so far,
over all sessions). A file with another first line is refused, naming the differing fields; a
last line cut short by a stop is dropped and its game played again.
"""

from __future__ import annotations

import io
import json
import math
import os
import time
from collections.abc import Callable, Generator, Iterator, Sequence
from concurrent.futures import ProcessPoolExecutor
from contextlib import contextmanager
from pathlib import Path
from typing import Any, TypeVar, cast

__all__ = [
    "Checkpoint",
    "decode_score",
    "duration",
    "locked",
    "map_jobs",
    "play_games",
]

#: How long to wait for a Dask scheduler to answer before naming it unreachable.
SCHEDULER_TIMEOUT_S = 30.0

_J = TypeVar("_J")
_R = TypeVar("_R")


def map_jobs(
    fn: Callable[[_J], _R],
    jobs: Sequence[_J],
    workers: int,
    scheduler: str | None,
) -> Generator[_R, None, None]:
    """Run ``fn`` over ``jobs``: in this process, over local processes, or on a Dask cluster."""
    if not jobs:
        return  # nothing to start: no processes, no cluster
    if scheduler is not None:
        try:
            from dask.distributed import Client
        except ImportError:
            raise ValueError(
                "scheduler: Dask is not installed (pip install 'santorini-p2p[train]')"
            ) from None
        try:
            # Dask's own annotations are partial: its client is used untyped.
            client = cast(Any, Client)(scheduler, timeout=SCHEDULER_TIMEOUT_S)
        except OSError as e:
            raise ValueError(f"scheduler: cannot reach {scheduler} ({e})") from None
        with client:
            # In the jobs' order, as with local processes: the samples (and so the
            # trained net) do not depend on which machine finished first.
            for future in client.map(fn, jobs, pure=False):
                yield future.result()
        return
    if workers <= 1:
        for job in jobs:
            yield fn(job)
        return
    with ProcessPoolExecutor(workers) as pool:
        yield from pool.map(fn, jobs, chunksize=1)


def duration(seconds: float) -> str:
    """``1h08m``, ``4m12s`` or ``12s``."""
    s = max(0, round(seconds))
    if s >= 3600:
        return f"{s // 3600}h{s % 3600 // 60:02d}m"
    if s >= 60:
        return f"{s // 60}m{s % 60:02d}s"
    return f"{s}s"


class Checkpoint:
    """A stage's finished games, one JSON line each after a header line naming the stage.

    The header holds every number the games depend on: a file with another header is
    refused, never mixed in. A last line cut short (a stop in mid-write) is dropped.
    """

    def __init__(self, path: Path, header: dict[str, object]) -> None:
        self.path = path
        self.header: dict[str, object] = json.loads(json.dumps(header))
        self.torn = False
        """Whether ``open`` dropped a last line cut short."""
        self._file: io.BufferedWriter | None = None

    def open(self) -> list[dict[str, Any]]:
        """The games already in the file (made, with its header, when missing or empty).

        Raises:
            ValueError: a file of other settings, or a damaged line (naming the file and line).
        """
        data = self.path.read_bytes() if self.path.exists() else b""
        lines = data.split(b"\n")
        tail = lines.pop()
        self.torn = bool(tail) and bool(lines)
        records: list[dict[str, Any]] = []
        if not lines:
            # Nothing or a header cut short: no game is lost in starting afresh.
            self.path.write_bytes(json.dumps(self.header).encode() + b"\n")
        else:
            try:
                header = json.loads(lines[0])
            except ValueError:
                header = None
            if header != self.header:
                raise ValueError(self._refusal(header))
            for n, line in enumerate(lines[1:], 2):
                try:
                    record = json.loads(line)
                except ValueError as e:
                    raise ValueError(f"{self.path}:{n}: not a game's record ({e})") from None
                if not isinstance(record, dict) or record.get("game") != n - 2:
                    raise ValueError(f"{self.path}:{n}: not the record of game {n - 2}")
                records.append(record)
            if tail:
                with self.path.open("r+b") as f:
                    f.truncate(len(data) - len(tail))
        self._file = self.path.open("ab")
        return records

    def _refusal(self, header: object) -> str:
        if not isinstance(header, dict):
            return f"{self.path}:1: not a run's checkpoint of games; move it away to go on"
        keys = [k for k in self.header if header.get(k) != self.header[k]]
        keys += [k for k in header if k not in self.header]
        differ = ", ".join(
            f"{k} {json.dumps(header.get(k))} (this run: {json.dumps(self.header.get(k))})"
            for k in keys
        )
        return (
            f"{self.path}: games played with other settings ({differ}); they are not mixed "
            "into this run: resume with those settings, or remove the file to play them again"
        )

    def add(self, record: dict[str, object]) -> None:
        """Append one game's record and push it to the disk."""
        assert self._file is not None
        self._file.write(json.dumps(record).encode() + b"\n")
        self._file.flush()
        os.fsync(self._file.fileno())

    def close(self) -> None:
        """Close the file (it stays on the disk)."""
        if self._file is not None:
            self._file.close()
            self._file = None


def play_games(
    stage: str,
    generation: int | None,
    fn: Callable[[_J], _R],
    jobs: Sequence[_J],
    seeds: Sequence[int],
    *,
    workers: int,
    scheduler: str | None = None,
    checkpoint: Path | None = None,
    settings: dict[str, object] | None = None,
    field: str,
    decode: Callable[[Any], _R],
    log: Callable[[str], None] | None = None,
    progress: Callable[[int, int], None] | None = None,
) -> tuple[list[_R], float]:
    """Play ``jobs`` (the games of ``stage`` of ``generation``) in order; results and seconds.

    With ``checkpoint``, each finished game is kept in that file, headed by the stage, the
    generation and ``settings`` (what the games depend on), and the games already there are
    not played again. The seconds are the stage's over every session that the file kept.
    """
    what = stage if generation is None else f"generation {generation}: {stage}"
    header = {"stage": stage, "generation": generation, **(settings or {})}
    kept = None if checkpoint is None else Checkpoint(checkpoint, header)
    total = len(jobs)
    results: list[_R] = []
    before = 0.0
    if kept is not None:
        for n, record in enumerate(kept.open(), 2):
            try:
                if record["seed"] != seeds[len(results)]:
                    raise ValueError(f"seed {record['seed']}, expected {seeds[len(results)]}")
                results.append(decode(record[field]))
                before = float(record["seconds"])
            except (KeyError, IndexError, TypeError, ValueError) as e:
                kept.close()
                raise ValueError(f"{kept.path}:{n}: not a game's record ({e})") from None
        if kept.torn and log is not None:
            log(
                f"{kept.path}: dropped its last line, cut short;"
                f" game {len(results)} is played again"
            )
    done = len(results)
    if log is not None:
        log(f"{what}, {total} games ({done} done, {total - done} to play)")
    step = max(1, math.ceil(total / 20))
    started = time.monotonic()
    rest = map_jobs(fn, jobs[done:], workers, scheduler)
    try:
        for i, result in enumerate(rest, done):
            results.append(result)
            now = time.monotonic() - started
            if kept is not None:
                kept.add(
                    {"game": i, "seed": seeds[i], "seconds": round(before + now, 1), field: result}
                )
            played = i + 1 - done
            if log is not None and (played % step == 0 or i + 1 == total):
                line = f"{what}: {i + 1} of {total} games played"
                if now > 0:
                    rate = played / now * 60
                    line += f", {rate:.1f} a minute"
                    if i + 1 < total:
                        line += f", about {duration((total - i - 1) / rate * 60)} left"
                log(line)
            if progress is not None:
                progress(i + 1, total)
    finally:
        # At once, not when collected: the games not started are dropped, then the file closed.
        rest.close()
        if kept is not None:
            kept.close()
    return results, before + time.monotonic() - started


def decode_score(value: Any) -> float:
    """A game's score as a checkpoint keeps it: 1, 0.5 or 0 (for the side it is counted for).

    Raises:
        ValueError: anything else.
    """
    if value not in (0, 0.5, 1):
        raise ValueError(f"not a game's score: {value!r}")
    return float(value)


@contextmanager
def locked(directory: Path) -> Iterator[None]:
    """Hold the run's directory alone while in the block.

    Two processes on one run would append to the same checkpoints. ``flock`` where the system
    has it; elsewhere, and on a file system that keeps no locks, no lock is taken.

    Raises:
        ValueError: another process holds it.
    """
    try:
        import fcntl
    except ImportError:  # pragma: no cover - Windows
        yield
        return
    fd = os.open(directory, os.O_RDONLY)
    try:
        try:
            fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except BlockingIOError:
            raise ValueError(
                f"{directory}: this run is being run by another process; "
                "let it go on there, or end that process first"
            ) from None
        except OSError:  # ENOLCK and the like: go on without the lock
            pass
        yield
    finally:
        os.close(fd)
