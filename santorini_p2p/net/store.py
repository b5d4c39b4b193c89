"""Where a network game's files live: journals, notes, stop reports, under ``SANTORINI_HOME``.

The session is a state machine and touches no file itself; it asks a :class:`GameStore`. A
store keeps, in ``<home>/games``:

- ``<game id>.sntr``, the journal (``wire.log.Journal``: created whole or not at all, locked
  while open);
- ``<game id>.json``, the note: role, address, commit-reveal nonce, whether the game was
  stopped, where its replay is to be saved and whether it was (protocol/SESSION.md 8-9);
- ``<game id>-stop.sntr`` and ``.txt``, the report of a stopped game (SESSION.md 6).

Every file is written whole or not at all (a temporary file, fsynced, then renamed), and a
write that fails raises ``StorageError`` naming the file and the cause. The scans for
unfinished games and for finished games whose copy was not saved are here too.
"""

from __future__ import annotations

import contextlib
import json
import logging
import os
from pathlib import Path

from santorini_p2p.errors import ReplayError, SantoriniError
from santorini_p2p.wire.log import Journal, encode_frames, scan_journal
from santorini_p2p.wire.storage import cannot_write

__all__ = [
    "GameStore",
    "NoteError",
    "game_dir",
    "mark_saved",
    "read_note",
    "unfinished_games",
    "unsaved_games",
]

LOG = logging.getLogger(__name__)

Note = dict[str, object]
"""A game's note, as JSON."""


class NoteError(SantoriniError):
    """A game's note file is missing or is not a note."""


def game_dir(home: Path) -> Path:
    """Return the directory that holds journals, their notes and reports under ``home``."""
    return home / "games"


class GameStore:
    """The files of the games of one ``SANTORINI_HOME``."""

    def __init__(self, home: Path) -> None:
        self.home = home
        self.dir = game_dir(home)

    def journal_path(self, game_id: bytes) -> Path:
        """Where the journal of ``game_id`` is (or will be)."""
        return self.dir / f"{game_id.hex()}.sntr"

    def create_journal(self, game_id: bytes, header: bytes, *, fresh: bool = False) -> Journal:
        """Create the journal of ``game_id`` with its header (``fresh``: over an old one).

        Raises:
            StorageError: it cannot be written.
            FileExistsError: it exists (and ``fresh`` is false).
        """
        path = self.journal_path(game_id)
        try:
            self.dir.mkdir(parents=True, exist_ok=True, mode=0o700)
            if fresh:
                path.unlink(missing_ok=True)
        except OSError as e:
            raise cannot_write("the journal", path, e) from None
        return Journal.create(path, header)

    def open_journal(self, path: Path) -> Journal:
        """Open (lock and verify) the journal at ``path`` to play on.

        Raises:
            ReplayError: it does not verify.
            JournalInUseError: another process has it open.
        """
        return Journal.open(path)

    def rewrite_journal(self, journal: Journal, keep: list[bytes]) -> Journal:
        """Replace ``journal`` (closed here) by its first records ``keep``; return it reopened.

        Raises:
            StorageError: it cannot be written.
        """
        path = journal.path
        journal.close()
        tmp = path.with_name(path.name + ".tmp")
        try:
            with open(tmp, "wb") as f:
                f.write(encode_frames(keep))
                f.flush()
                os.fsync(f.fileno())
            os.replace(tmp, path)
        except OSError as e:
            raise cannot_write("the journal", path, e) from None
        return Journal.open(path)

    def write_note(self, game_id: bytes, note: Note) -> None:
        """Write the note of ``game_id``.

        Raises:
            StorageError: it cannot be written.
        """
        _write_json(self.dir / f"{game_id.hex()}.json", note)

    def drop_note(self, game_id: bytes) -> None:
        """Remove the note of a game that never started (no journal), if any."""
        if not self.journal_path(game_id).exists():
            with contextlib.suppress(OSError):
                (self.dir / f"{game_id.hex()}.json").unlink(missing_ok=True)

    def write_report(self, game_id: bytes, raws: list[bytes], lines: list[str]) -> Path | None:
        """Write ``<game>-stop.sntr`` (``raws``) and ``<game>-stop.txt`` (``lines``).

        Returns the text report's path, or None when it could not be written (logged: a
        stop goes on without its report).
        """
        base = self.dir / f"{game_id.hex()}-stop"
        try:
            self.dir.mkdir(parents=True, exist_ok=True, mode=0o700)
            _write_private(base.with_suffix(".sntr"), encode_frames(raws))
            _write_private(base.with_suffix(".txt"), ("\n".join(lines) + "\n").encode("utf-8"))
        except OSError as e:
            LOG.error("%s", cannot_write("the stop report", base, e))
            return None
        return base.with_suffix(".txt")


def read_note(journal_path: Path) -> Note:
    """Read the note beside ``journal_path``.

    Raises:
        NoteError: it is missing, unreadable or not a note.
    """
    path = journal_path.with_suffix(".json")
    try:
        note = json.loads(path.read_text(encoding="utf-8"))
    except (OSError, ValueError) as e:
        raise NoteError(f"{path}: cannot read the game's note file: {e}") from None
    if not isinstance(note, dict) or "nonce" not in note:
        raise NoteError(f"{path}: not a game note file")
    return note


def unfinished_games(
    home: Path, *, stopped: bool = False, notes: list[str] | None = None
) -> list[tuple[Path, Note]]:
    """Return ``(journal path, note)`` of every unfinished game under ``home``, newest first.

    A finished game is listed too while its note says it is not settled (a peer may lack its
    last records). Games stopped by a refused record or a desync are left out unless
    ``stopped`` is true. A
    journal that cannot be read (a crash of an earlier version while creating it, a damaged
    disk) is set aside, renamed ``<name>.unreadable`` with its note, so that it blocks no
    command; a line saying so is appended to ``notes``. A journal another process has open is
    left alone.
    """
    out: list[tuple[float, Path, Note]] = []
    d = game_dir(home)
    if not d.is_dir():
        return []
    for j in d.glob("*.sntr"):
        if j.stem.endswith("-stop"):
            continue
        try:
            note = read_note(j)
        except NoteError:
            continue
        if note.get("stopped") and not stopped:
            continue
        try:
            done = scan_journal(j.read_bytes())[0].is_complete
        except ReplayError as e:
            _set_aside(j, e, notes)
            continue
        except OSError:
            continue
        # A finished game some peer may still lack records of (this one was stopped before it
        # knew every peer held them all) is resumed too, to give them what they lack.
        if not done or note.get("settled") is False:
            out.append((j.stat().st_mtime, j, note))
    out.sort(key=lambda t: t[0], reverse=True)
    return [(j, n) for _, j, n in out]


def unsaved_games(home: Path) -> list[tuple[Path, Note]]:
    """Return ``(journal, note)`` of every finished game whose ``--save`` copy was not written.

    The result is in the journal (complete, fsynced before the game over was shown); the
    copy may be missing when the process was killed at the end. Newest first.
    """
    out: list[tuple[float, Path, Note]] = []
    d = game_dir(home)
    for j in d.glob("*.sntr") if d.is_dir() else []:
        if j.stem.endswith("-stop"):
            continue
        try:
            note = read_note(j)
        except NoteError:
            continue
        if not note.get("save") or note.get("saved"):
            continue
        try:
            done = scan_journal(j.read_bytes())[0].is_complete
        except (ReplayError, OSError):
            continue
        if done:
            out.append((j.stat().st_mtime, j, note))
    out.sort(key=lambda t: t[0], reverse=True)
    return [(j, n) for _, j, n in out]


def mark_saved(journal: Path) -> None:
    """Record in a finished game's note that its replay was copied.

    Raises:
        NoteError: the note cannot be read.
        StorageError: it cannot be written.
    """
    note = read_note(journal)
    note["saved"] = True
    _write_json(journal.with_suffix(".json"), note)


def _write_json(path: Path, value: Note) -> None:
    """Write ``value`` to ``path`` whole or not at all (temporary file, fsync, rename).

    Raises:
        StorageError: it cannot be written (a full disk, no permission).
    """
    body = json.dumps(value, indent=1, sort_keys=True).encode()
    tmp = path.with_name(path.name + ".tmp")
    try:
        path.parent.mkdir(parents=True, exist_ok=True, mode=0o700)
        fd = os.open(tmp, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o600)
        try:
            view = memoryview(body)
            while view:
                view = view[os.write(fd, view) :]
            os.fsync(fd)
        finally:
            os.close(fd)
        os.replace(tmp, path)
    except OSError as e:
        with contextlib.suppress(OSError):
            tmp.unlink()
        raise cannot_write("the game's note", path, e) from None


def _set_aside(journal: Path, e: ReplayError, notes: list[str] | None) -> None:
    """Rename an unreadable journal and its note out of the way, and say so."""
    if Journal.in_use(journal):
        return
    aside = journal.with_name(journal.name + ".unreadable")
    try:
        journal.replace(aside)
        note = journal.with_suffix(".json")
        if note.exists():
            note.replace(note.with_name(note.name + ".unreadable"))
    except OSError as err:
        LOG.error("cannot set aside %s: %s", journal, err)
        return
    text = (
        f"{journal}: cannot be read ({e}); set aside as {aside.name}, so that it blocks "
        "nothing (delete it when it is of no use)"
    )
    LOG.warning("%s", text)
    if notes is not None:
        notes.append(text)


def _write_private(path: Path, data: bytes) -> None:
    """Write ``data`` to ``path``, readable by this user only (0600, as every file here)."""
    fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o600)
    try:
        os.write(fd, data)
    finally:
        os.close(fd)
    os.chmod(path, 0o600)
