"""The journal: the live log on disk, created whole, locked, fsynced, resumed (SESSION.md 8).

Re-exported by ``wire.log``.
"""

from __future__ import annotations

import errno
import os
from contextlib import suppress
from dataclasses import dataclass, field
from pathlib import Path
from typing import Final, Self

from santorini_p2p.errors import (
    DecodeError,
    JournalInUseError,
    ReplayError,
    StorageError,
    WireError,
)
from santorini_p2p.wire.framing import FILE_HEAD, iter_frames, torn_at_end
from santorini_p2p.wire.messages import (
    Ack,
    Result,
)
from santorini_p2p.wire.storage import cannot_write
from santorini_p2p.wire.validator import Record, Validator

__all__ = [
    "JOURNAL_RESERVE",
    "Journal",
    "scan_journal",
]


def scan_journal(data: bytes) -> tuple[Validator, int]:
    """Verify a journal's bytes as a resume reads them; return the log and its length.

    What a crash can leave after the last whole record is not part of the log: a frame cut
    short, the zeros written ahead, a last record whose end read back as zeros.

    Raises:
        ReplayError: not a journal (no magic), or a record is bad.
    """
    v = Validator()
    good = len(FILE_HEAD)
    try:
        for raw in iter_frames(data, padded=True):
            try:
                v.feed(raw)
            except ReplayError:
                if not torn_at_end(data, good, raw):
                    raise
                break
            good += 4 + len(raw)
    except WireError as e:
        if not (isinstance(e, DecodeError) and e.reason.startswith("truncated")):
            raise ReplayError(e.reason, e.record) from e
    return v, good


def _sync_directory(directory: Path) -> None:
    """Make a new file's directory entry durable too (POSIX; elsewhere a no-op)."""
    if os.name != "posix":
        return
    try:
        fd = os.open(directory, os.O_RDONLY)
    except OSError:
        return
    try:
        os.fsync(fd)
    except OSError:
        pass
    finally:
        os.close(fd)


# -- the journal ------------------------------------------------------------------------------


JOURNAL_RESERVE: Final = 1 << 16
"""Bytes of zeros a journal keeps written ahead of its last record (64 KiB, a whole game of
two players or most of one of four). Writing a record over them leaves the file's size and
blocks as they were, so the flush before a record is sent (``fdatasync``) writes the record
and no file-system metadata: a quarter less time, and a shorter tail (benchmarks/net.py)."""


def _lock(fd: int, path: Path) -> None:
    """Hold an exclusive lock on the open journal ``fd`` until it is closed (or the process ends).

    Two processes writing one journal would sign two different records with the same number,
    so a second one is refused. ``flock`` where the system has it; elsewhere, and on a file
    system that keeps no locks (some network mounts), no lock is taken.

    Raises:
        JournalInUseError: another process holds the journal open.
    """
    try:
        import fcntl
    except ImportError:  # pragma: no cover - Windows
        return
    try:
        fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
    except BlockingIOError:
        os.close(fd)
        raise JournalInUseError(
            f"{path}: this game is open in another santorini process; play it there, "
            "or end that process first"
        ) from None
    except OSError:  # ENOLCK and the like: play on without the lock
        return


def _sync_data(fd: int) -> None:
    """Flush ``fd``'s data, and the metadata needed to read it back, to stable storage."""
    sync = getattr(os, "fdatasync", None)  # not on macOS or Windows: fsync there
    (sync or os.fsync)(fd)


@dataclass(slots=True)
class Journal:
    """The live log on disk: each appended record is checked and written at once.

    A peer's own record (``own=True``) is fsynced before ``append`` returns: it must be on disk
    before it is sent, so that a crash can never make the peer sign a different record with
    the same number. Acknowledgements and results are the exception: each is a function of the
    records before it, and Ed25519 signatures are deterministic, so signing one again after a
    crash gives the same bytes (SESSION.md section 8). They, and records received from another
    peer, only need to reach the operating system (that survives the process being killed; a
    record lost to a power cut is signed again or sent again on resume); the next fsynced
    record, or ``close``, makes them durable too.

    While the game is open the file ends in up to ``JOURNAL_RESERVE`` zero bytes after the
    last record (``iter_frames(..., padded=True)`` reads it); the journal is cut to its last
    record as soon as the log is complete, and when it is closed.

    An open journal is locked: opening it again (``open``), from another process
    too, raises :class:`JournalInUseError` until this one is closed or its process ends.
    """

    path: Path
    validator: Validator
    _fd: int = field(repr=False)
    _end: int = field(repr=False)
    """Where the next frame goes: the length of the log's bytes."""
    _reserved: int = field(default=0, repr=False)
    """The file's length: ``_end`` and the zeros after it."""
    _unsynced: bool = field(default=False, repr=False)
    _broken: bool = field(default=False, repr=False)

    @classmethod
    def create(cls, path: Path | str, header: bytes) -> Self:
        """Create a new journal at ``path`` (which must not exist) starting with ``header``.

        A kill at any instant leaves either no journal at ``path`` or one that holds the
        header: the magic, the header and the zeros ahead are written to a temporary file
        beside it and fsynced, and only then is that file linked into place (``path`` is
        never replaced) and the directory fsynced. A temporary file a kill left behind is
        named ``.<name>.<pid>.new``; nothing reads it.

        Raises:
            ReplayError: the header record is bad.
            FileExistsError: ``path`` exists.
            OSError: the file cannot be written (a full disk, no permission).
        """
        v = Validator()
        v.feed(header)
        path = Path(path)
        if path.exists():
            raise FileExistsError(errno.EEXIST, "the journal exists", str(path))
        tmp = path.with_name(f".{path.name}.{os.getpid()}.new")
        try:
            fd = os.open(
                tmp, os.O_WRONLY | os.O_CREAT | os.O_TRUNC | getattr(os, "O_BINARY", 0), 0o600
            )
        except OSError as e:
            raise cannot_write("the journal", path, e) from None
        _lock(fd, tmp)  # a name of this process's own: only a lock-less file system fails
        try:
            j = cls(path, v, fd, 0)
            j._write(FILE_HEAD + len(header).to_bytes(4, "big") + header)
            try:
                os.link(tmp, path)
            except FileExistsError:
                raise
            except OSError:  # a file system without hard links: checked above, then renamed
                os.replace(tmp, path)
        except BaseException as e:
            os.close(fd)
            with suppress(OSError):
                tmp.unlink(missing_ok=True)
            if isinstance(e, OSError) and not isinstance(e, FileExistsError):
                raise cannot_write("the journal", path, e) from None
            raise
        tmp.unlink(missing_ok=True)
        _sync_directory(path.parent)
        return j

    @classmethod
    def open(cls, path: Path | str) -> Self:
        """Open an existing journal to resume: read it, verify every record, append after.

        What a crash can leave after the last whole record is dropped: a frame cut short, or
        (after a power cut) a last record whose end never reached the disk, read as zeros.

        Raises:
            ReplayError: a record is bad (the game cannot resume from this journal).
            JournalInUseError: another process has the journal open.
        """
        fd = os.open(path, os.O_WRONLY | getattr(os, "O_BINARY", 0))
        _lock(fd, Path(path))
        try:
            return cls._read(Path(path), fd)
        except BaseException:
            os.close(fd)
            raise

    @classmethod
    def _read(cls, path: Path, fd: int) -> Self:
        """Verify the journal at ``path`` (locked, open as ``fd``) and cut what a crash left."""
        v, good = scan_journal(path.read_bytes())
        os.ftruncate(fd, good)
        return cls(path, v, fd, good, good)

    @staticmethod
    def in_use(path: Path) -> bool:
        """Whether another process holds the journal at ``path`` open (and locked)."""
        try:
            fd = os.open(path, os.O_RDONLY | getattr(os, "O_BINARY", 0))
        except OSError:
            return False
        try:
            _lock(fd, path)
        except JournalInUseError:
            return True  # _lock has closed fd
        os.close(fd)
        return False

    def _write(self, data: bytes, *, sync: bool = True) -> None:
        end = self._end + len(data)
        if end > self._reserved:
            # Zeros ahead, written (not only allocated: an allocated block that is written to
            # for the first time costs a metadata update at the flush again).
            self._put(self._reserved, bytes(end + JOURNAL_RESERVE - self._reserved))
            self._reserved = end + JOURNAL_RESERVE
        self._put(self._end, data)
        self._end = end
        if sync:
            _sync_data(self._fd)
        self._unsynced = not sync

    def _put(self, at: int, data: bytes) -> None:
        os.lseek(self._fd, at, os.SEEK_SET)  # os.pwrite is not on every system
        view = memoryview(data)
        while view:
            done = os.write(self._fd, view)
            view = view[done:]

    def _cut(self) -> None:
        """Drop the zeros after the last record: the file is a replay file again."""
        os.ftruncate(self._fd, self._end)
        self._reserved = self._end

    def append(self, raw: bytes, *, own: bool = False) -> Record:
        """Check ``raw`` as the next record, then write it; return the record.

        ``own``: this process has just signed ``raw`` (``Validator.feed``'s ``verified``);
        unless it is an acknowledgement or a result, it is fsynced before this returns.
        The record that completes the log also cuts the zeros off the end of the file, and
        the whole file is fsynced then: a finished game is durable before it is announced.

        Raises:
            ReplayError: the record is bad; nothing is written.
            StorageError: the record could not be written (a full disk): the file keeps
                every record before it, whole, and this journal takes no more.
        """
        if self._broken:
            raise StorageError(f"the journal {self.path} could not be written before")
        rec = self.validator.feed(raw, verified=own)
        sync = own and not isinstance(rec.message, Ack | Result)
        try:
            self._write(len(raw).to_bytes(4, "big") + raw, sync=sync)
            if self.validator.is_complete:
                # The result is on disk before anyone is told the game is over.
                self._cut()
                os.fsync(self._fd)
                self._unsynced = False
        except OSError as e:
            # The validator holds a record the file may not: this journal takes no more,
            # and ``close`` cuts the file to its last whole record.
            self._broken = True
            raise cannot_write("the journal", self.path, e) from None
        return rec

    def close(self) -> None:
        """Cut the zeros off, fsync what is not yet synced and close the file (it stays)."""
        if self._fd >= 0:
            try:
                if self._reserved > self._end or self._broken:
                    self._cut()
                    self._unsynced = True  # the new length, at least
                if self._unsynced:
                    os.fsync(self._fd)
            except OSError as e:
                raise cannot_write("the journal", self.path, e) from None
            finally:
                os.close(self._fd)
                self._fd = -1

    def __enter__(self) -> Self:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()
