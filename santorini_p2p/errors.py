"""The project's exception hierarchy; imports nothing so every layer can use it."""

from __future__ import annotations

__all__ = [
    "AddressError",
    "AmbiguousTurnError",
    "ChainError",
    "DecodeError",
    "DesyncError",
    "IdentityError",
    "IllegalTurnError",
    "InvalidPositionError",
    "InvalidTurnError",
    "JournalInUseError",
    "NonCanonicalError",
    "NotationError",
    "PeerError",
    "PeerTimeout",
    "RecordError",
    "ReplayError",
    "SantoriniError",
    "SignatureError",
    "StorageError",
    "TooLargeError",
    "VersionError",
    "WireError",
]


def _cut(text: str, limit: int = 80) -> str:
    """Return ``text`` cut to ``limit`` characters, marking the cut."""
    return text if len(text) <= limit else text[: limit - 3] + "..."


class SantoriniError(Exception):
    """Base class of every error this package raises on purpose."""


class NotationError(SantoriniError, ValueError):
    """Text that is not valid notation; ``column`` is 1-based, or 0 when unknown."""

    def __init__(self, message: str, text: str = "", column: int = 0) -> None:
        self.text = text
        self.column = column
        where = f" at column {column}" if column else ""
        shown = f" in {_cut(text)!r}" if text else ""
        super().__init__(f"{message}{where}{shown}")
        self.reason = message


class InvalidTurnError(NotationError):
    """Turn text that does not parse."""


class InvalidPositionError(NotationError):
    """A position string that does not parse, or describes an impossible position."""


class IllegalTurnError(SantoriniError, ValueError):
    """A well-formed turn that the rules do not allow in the given position."""


class AmbiguousTurnError(SantoriniError, ValueError):
    """Turn text that matches more than one legal turn."""


class WireError(SantoriniError):
    """Bytes from a file or the network that are not a valid record; ``record`` is its index."""

    def __init__(self, message: str, record: int | None = None) -> None:
        self.record = record
        self.reason = message
        where = f"record {record}: " if record is not None else ""
        super().__init__(f"{where}{message}")


class DecodeError(WireError):
    """Bytes that are not well-formed msgpack of the expected shape."""


class NonCanonicalError(WireError):
    """Well-formed msgpack that is not in the one canonical encoding."""


class TooLargeError(WireError):
    """Input over a documented size limit."""


class SignatureError(WireError):
    """A signature that does not verify, or a record signed by the wrong key."""


class ChainError(WireError):
    """A record whose previous-hash does not match the record before it."""


class VersionError(WireError):
    """A protocol or file version this program does not speak."""


class RecordError(WireError):
    """A well-formed, correctly signed record that the log does not allow where it stands."""


class IdentityError(SantoriniError):
    """A key file that cannot be created, read or trusted (bad format, open permissions)."""


class DesyncError(SantoriniError):
    """Two peers disagree about the state hash after a turn."""

    def __init__(self, turn_number: int, expected: bytes, actual: bytes) -> None:
        self.turn_number = turn_number
        self.expected = expected
        self.actual = actual
        super().__init__(
            f"desync after turn {turn_number}: expected state hash {expected.hex()}, "
            f"got {actual.hex()}"
        )


class ReplayError(SantoriniError):
    """A replay file that fails verification; ``record_index`` names the first bad record."""

    def __init__(self, message: str, record_index: int | None = None) -> None:
        self.record_index = record_index
        self.reason = message
        where = f"record {record_index}: " if record_index is not None else ""
        super().__init__(f"{where}{message}")


class JournalInUseError(SantoriniError):
    """A game's journal is open in another process (two writers would sign two records as one)."""


class PeerError(SantoriniError):
    """A peer misbehaved or went away; ``peer`` is its fingerprint when known."""

    def __init__(self, message: str, peer: str = "") -> None:
        self.peer = peer
        super().__init__(f"peer {peer}: {message}" if peer else message)


class PeerTimeout(PeerError, TimeoutError):
    """A peer did not answer in time."""


class AddressError(SantoriniError, OSError):
    """An address this peer cannot listen on or reach: a port in use, a name not resolving."""


class StorageError(SantoriniError):
    """A file this program keeps could not be written: a full disk, no permission, a bad disk.

    The message names the file and the cause; what was written before is left whole.
    """
