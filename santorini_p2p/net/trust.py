"""Trust on first use: the peers' keys remembered by display name under ``$SANTORINI_HOME``.

The first time a display name is seen its public key is written to ``known_peers``; from then
on a different key under that name is refused with :class:`ChangedKeyError`, whose message
names both fingerprints. The file is one line per peer, ``<public key hex> <display name>``,
sorted by name, written atomically.
"""

from __future__ import annotations

import contextlib
import logging
import os
from pathlib import Path
from typing import Final

from santorini_p2p.errors import PeerError
from santorini_p2p.wire.identity import MAX_NAME_BYTES, check_name, fingerprint, home_dir
from santorini_p2p.wire.storage import cannot_write
from santorini_p2p.wire.text import line_fault

__all__ = ["KNOWN_PEERS_FILE", "ChangedKeyError", "KnownPeers"]

LOG = logging.getLogger(__name__)

KNOWN_PEERS_FILE: Final = "known_peers"


class ChangedKeyError(PeerError):
    """A display name seen before now comes with another key: possibly an impostor."""

    def __init__(self, name: str, known: bytes, offered: bytes) -> None:
        self.name = name
        self.known = known
        self.offered = offered
        super().__init__(
            f"WARNING: THE KEY OF {name!r} HAS CHANGED. Remembered fingerprint "
            f"{fingerprint(known)}, offered fingerprint {fingerprint(offered)}. Someone may be "
            f"impersonating {name!r}; the game is refused. If the player really has a new key, "
            f"remove the line for {name!r} from known_peers and try again.",
            peer=fingerprint(offered),
        )

    def refusal(self, by: str) -> str:
        """The reason to send the refused peer, who reads it on their own machine.

        ``by`` is the display name of the player whose ``known_peers`` holds the old key: the
        refused player cannot edit that file, so the text says who can, and what else to do.
        """
        return (
            f"{by} remembers another key for the name {self.name!r} (fingerprint "
            f"{fingerprint(self.known)}; this player's is {fingerprint(self.offered)}). "
            f"Play under another name (--name), or, if this key really replaced the old one, "
            f"{by} can remove the line for {self.name!r} from their known_peers"
        )


class KnownPeers:
    """The remembered keys, loaded from and saved to ``home/known_peers``."""

    def __init__(self, home: Path | None = None) -> None:
        self.path = (home or home_dir()) / KNOWN_PEERS_FILE
        self._keys: dict[str, bytes] = {}
        try:
            text = self.path.read_text(encoding="utf-8")
        except FileNotFoundError:
            return
        for number, line in enumerate(text.splitlines(), 1):
            key_hex, _, name = line.partition(" ")
            try:
                key = bytes.fromhex(key_hex)
            except ValueError:
                key = b""
            if len(key) != 32 or line_fault(name, max_bytes=MAX_NAME_BYTES):
                LOG.warning("%s:%d: ignored a malformed line", self.path, number)
                continue
            self._keys[name] = key

    def get(self, name: str) -> bytes | None:
        """Return the key remembered for ``name``, or None."""
        return self._keys.get(name)

    def names(self) -> list[str]:
        """The names remembered, sorted as people read them (case-insensitively)."""
        return sorted(self._keys, key=str.casefold)

    def check(self, name: str, key: bytes, *, remember: bool = True) -> bool:
        """Accept ``key`` for ``name``; return True if it was new (then remembered if told).

        With ``remember`` false a new key is accepted but not written. A peer checks a key
        when it is offered and remembers it only once a game with that player starts (the
        header written or received): a stranger who joins a lobby and leaves, or a host that
        never starts its game, leaves ``known_peers`` as it was.

        Raises:
            ChangedKeyError: ``name`` is remembered with another key.
            ValueError: ``name`` is not a display name (``check_name``) or ``key`` not 32
                bytes: nothing is remembered, so that no text from a peer shapes the file.
        """
        check_name(name)
        if len(key) != 32:
            raise ValueError(f"known_peers: a key is 32 bytes, got {len(key)}")
        known = self._keys.get(name)
        if known is not None:
            if known != key:
                raise ChangedKeyError(name, known, key)
            return False
        if not remember:
            return True
        self._keys[name] = key
        self._save()
        LOG.info("remembered %s as %s (first use)", name, fingerprint(key))
        return True

    def _save(self) -> None:
        """Write the file whole or not at all.

        Raises:
            StorageError: it cannot be written (a full disk, no permission).
        """
        tmp = self.path.with_name(self.path.name + ".tmp")
        body = "".join(f"{k.hex()} {n}\n" for n, k in sorted(self._keys.items()))
        try:
            self.path.parent.mkdir(parents=True, exist_ok=True, mode=0o700)
            with open(tmp, "w", encoding="utf-8") as f:
                f.write(body)
                f.flush()
                os.fsync(f.fileno())
            os.replace(tmp, self.path)
        except OSError as e:
            with contextlib.suppress(OSError):
                tmp.unlink()
            raise cannot_write("the known keys file", self.path, e) from None
