"""Copies of finished games beside the store: ``--save FILE`` written whole, or written later.

A finished game's journal is copied to the player's ``--save`` file (a temporary file, fsynced,
renamed), a rematch's game ``N`` to ``FILE-N`` the moment it is complete, and a copy that a
crash or a full disk kept from being written is written by the same command run again
(protocol/SESSION.md 9, 10).
"""

from __future__ import annotations

import contextlib
import os
from pathlib import Path
from typing import TYPE_CHECKING

from santorini_p2p.errors import SantoriniError
from santorini_p2p.net.rematch import rematch_save_path
from santorini_p2p.net.session import (
    SessionError,
    mark_saved,
    unsaved_games,
)
from santorini_p2p.net.views import Note, NoteKind

if TYPE_CHECKING:
    from santorini_p2p.net.networkgame import NetworkGame

__all__ = ["recover_unsaved", "save_replay", "save_when_complete"]


def save_replay(journal: Path, dest: Path) -> None:
    """Copy a finished game's journal to ``dest`` whole or not at all (fsynced, then renamed).

    Raises:
        SessionError: it cannot be written (naming the file and the cause).
    """
    tmp = dest.with_name(f".{dest.name}.{os.getpid()}.tmp")
    try:
        data = journal.read_bytes()
        with open(tmp, "wb") as f:
            f.write(data)
            f.flush()
            os.fsync(f.fileno())
        os.replace(tmp, dest)
    except OSError as e:
        with contextlib.suppress(OSError):
            tmp.unlink()
        raise SessionError(
            f"cannot write the replay to {dest}: {e.strerror or e}; the game is kept in "
            f"{journal}, and running the same command again with --save writes it"
        ) from None


def save_when_complete(game: NetworkGame, dest: Path) -> None:
    """Copy ``game``'s replay to ``dest`` the moment it is complete (a rematch's ``FILE-N``).

    A copy that cannot be written is said in the game's messages; the game stays in ``games/``.
    """

    def save() -> None:
        s = game.session
        if s.saved or not s.is_complete:
            return
        try:
            save_replay(s.journal_path, dest)
            s.mark_saved()
        except SantoriniError as e:
            s.saved = True  # said once
            s.notes.append(Note(str(e), NoteKind.ERROR))

    game.session.set_save(str(dest.resolve()))
    game.listen(save)


def recover_unsaved(
    home: Path, *, role: str | None, address: str | None = None, save: Path | None = None
) -> list[str]:
    """Write the missing ``--save`` copy of each finished game of this role (and address).

    A peer killed after its game was over (the journal holds it all) may not have copied it;
    the same command run again writes it, to ``save`` or else where the note says, and the
    lines returned say so.

    Raises:
        SessionError: a copy cannot be written.
    """
    said = []
    for journal, note in unsaved_games(home):
        if role is not None and note.get("role") != role:
            continue
        if address is not None and note.get("address") != address:
            continue
        series = note.get("series", 1)
        number = series if isinstance(series, int) else 1
        dest = rematch_save_path(save, number) if save is not None else Path(str(note["save"]))
        save_replay(journal, dest)
        mark_saved(journal)
        said.append(
            f"the game {journal.stem} was over, but its replay had not been saved: "
            f"written to {dest} from the journal"
        )
        if save is not None:
            break  # one file: the newest game
    return said
