"""A correspondence game's input and output: the text blocks pasted in, the files kept on disk.

A block comes as text through any channel (POST.md 2): ``read_block_text`` finds, unarmours
and opens it, or says why it cannot. A game's files live under ``$SANTORINI_HOME/post/``
(``post_dir``) and are each written whole, then renamed (``write_whole``), so a crash leaves
the old file or the new one, never half of one. ``PostError`` is what every correspondence
command refuses with.
"""

from __future__ import annotations

import contextlib
import os
from pathlib import Path
from typing import Final

from santorini_p2p.errors import SantoriniError
from santorini_p2p.wire.post import Block, BlockError, open_block, unarmour
from santorini_p2p.wire.storage import cannot_write

__all__ = ["POST_DIR", "PostError", "post_dir", "read_block_text", "write_whole"]

POST_DIR: Final = "post"
"""The directory of correspondence games under a home."""


class PostError(SantoriniError):
    """A block refused, or a correspondence command that cannot be done; says why."""


def post_dir(home: Path) -> Path:
    """The directory of this home's correspondence games."""
    return home / POST_DIR


def write_whole(path: Path, data: bytes) -> None:
    """Write ``data`` to ``path`` whole: to a file beside it, synced, then renamed over it.

    Raises:
        StorageError: the file cannot be written: which, and why (a full disk says so).
    """
    tmp = path.with_name(path.name + ".tmp")
    try:
        path.parent.mkdir(parents=True, exist_ok=True, mode=0o700)
        fd = os.open(tmp, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o600)
        with os.fdopen(fd, "wb") as f:
            f.write(data)
            f.flush()
            os.fsync(f.fileno())
        os.replace(tmp, path)
    except OSError as e:
        with contextlib.suppress(OSError):
            tmp.unlink()
        raise cannot_write("the correspondence game", path, e) from None


def read_block_text(text: str) -> tuple[Block, bytes]:
    """Unarmour and open a text block; return it and its bytes.

    Raises:
        PostError: no block, a cut or damaged one, or a bad signature (the reason).
    """
    try:
        data = unarmour(text)
        return open_block(data), data
    except BlockError as e:
        raise PostError(str(e)) from None
