"""The error of a file that could not be written, worded the same wherever it happens."""

from __future__ import annotations

import errno

from santorini_p2p.errors import StorageError

__all__ = ["cannot_write"]


def cannot_write(what: str, path: object, e: OSError) -> StorageError:
    """The error for ``e``, raised writing ``what`` at ``path``: the file and the cause.

    A full disk (or quota) also says what to do: free some space and run the command again.
    """
    cause = e.strerror or str(e)
    hint = (
        "; free some space and run the same command again"
        if e.errno in (errno.ENOSPC, errno.EDQUOT)
        else ""
    )
    return StorageError(f"cannot write {what} {path}: {cause}{hint}")
