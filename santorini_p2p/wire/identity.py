"""Player identities: Ed25519 keys, signing, verification, fingerprints (protocol/SPEC.md 4).

The only module that imports ``cryptography`` and ``nacl``. An identity is a key pair and a
display name; the public key (32 bytes) is what the log records, and the fingerprint is how
people compare keys by eye.

Signing and verifying go through libsodium (PyNaCl): on one core it verifies an Ed25519
signature in about two thirds of the time OpenSSL (``cryptography``) takes, and reading a
replay is mostly verifying signatures. libsodium accepts a subset of what OpenSSL accepts (it
also refuses small-order keys and points), so a signature libsodium refuses is asked of OpenSSL
as well: every verdict is OpenSSL's, as it always was (protocol/SPEC.md 4).

Public API:

- ``Identity.from_seed(seed, name)`` / ``Identity.generate(name)``: in-memory identities (tests
  and vectors use fixed 32-byte seeds; Ed25519 signing is deterministic);
- ``identity.sign(data) -> bytes`` (64 bytes), ``identity.public_key``, ``identity.fingerprint``;
- ``verify(public_key, signature, data) -> bool``: never raises on bad input;
- ``fingerprint(public_key) -> str``: ``xxxx-xxxx-xxxx-xxxx``, the first 8 bytes of
  BLAKE2b-256 of the key, in lower-case hex;
- ``check_name(name) -> str``: the display-name rule (1-64 UTF-8 bytes, printable);
- ``home_dir()``, ``load_identity(home=None)``, ``load_or_create_identity(home=None, name=None)``,
  ``save_name(name, home=None)``: the key file ``identity.key`` under ``$SANTORINI_HOME``, or
  else the user's data directory, created on first use with mode 0600.
"""

from __future__ import annotations

import contextlib
import getpass
import hashlib
import os
import sys
from collections.abc import Iterable
from dataclasses import dataclass, field
from functools import lru_cache
from pathlib import Path
from typing import Final

from cryptography.exceptions import InvalidSignature
from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PublicKey
from nacl.bindings import crypto_sign, crypto_sign_open, crypto_sign_seed_keypair
from nacl.exceptions import BadSignatureError

from santorini_p2p.errors import IdentityError
from santorini_p2p.wire.storage import cannot_write
from santorini_p2p.wire.text import line_fault

__all__ = [
    "KEY_FILE",
    "MAX_NAME_BYTES",
    "PUBLIC_KEY_BYTES",
    "SIGNATURE_BYTES",
    "Identity",
    "check_name",
    "fingerprint",
    "home_dir",
    "load_identity",
    "load_or_create_identity",
    "save_name",
    "verify",
]

PUBLIC_KEY_BYTES: Final = 32
SIGNATURE_BYTES: Final = 64
MAX_NAME_BYTES: Final = 64
"""The longest display name, in UTF-8 bytes (protocol/SPEC.md section 9)."""
KEY_FILE: Final = "identity.key"
_MAGIC: Final = "santorini-p2p identity 1"


def fingerprint(public_key: bytes) -> str:
    """Return the fingerprint people compare: 16 hex digits of BLAKE2b-256 of the key."""
    digest = hashlib.blake2b(public_key, digest_size=32).hexdigest()[:16]
    return "-".join(digest[i : i + 4] for i in range(0, 16, 4))


def check_name(name: str) -> str:
    """Return ``name`` if it is a valid display name.

    A display name is 1 to 64 bytes of UTF-8, with no control, format or separator characters
    other than the plain space, and no space at either end.

    Raises:
        ValueError: the name breaks one of these rules; the message says which.
    """
    if not isinstance(name, str):
        raise ValueError(f"name: expected text, got {type(name).__name__}")
    fault = line_fault(name, max_bytes=MAX_NAME_BYTES)
    if fault.startswith("no spaces"):
        raise ValueError(f"name: {fault}: {name!r}")
    if fault.startswith("character"):
        raise ValueError(f"name: {fault} in {name!r}")
    if fault:
        raise ValueError(f"name: {fault}")
    return name


@lru_cache(maxsize=256)
def _public(public_key: bytes) -> Ed25519PublicKey:
    return Ed25519PublicKey.from_public_bytes(public_key)


def _openssl_accepts(public_key: bytes, signature: bytes, data: bytes) -> bool:
    """OpenSSL's verdict on a signature libsodium refused (its stricter cases: small order)."""
    try:
        _public(public_key).verify(signature, data)
    except (InvalidSignature, ValueError):
        return False
    return True


def verify(public_key: bytes, signature: bytes, data: bytes) -> bool:
    """Return whether ``signature`` is ``public_key``'s Ed25519 signature of ``data``.

    Malformed keys or signatures give ``False``, never an exception.
    """
    if len(public_key) != PUBLIC_KEY_BYTES or len(signature) != SIGNATURE_BYTES:
        return False
    public_key, signature = bytes(public_key), bytes(signature)
    try:
        crypto_sign_open(signature + data, public_key)
    except BadSignatureError:
        return _openssl_accepts(public_key, signature, data)
    return True


def count_verified(items: Iterable[tuple[bytes, bytes, bytes]]) -> int:
    """Return how many of ``(public_key, signature, data)`` verify, counting until one does not.

    The same check as ``verify`` for each, in one tight loop: reading a log checks thousands of
    signatures, so nothing but the check is done per signature.
    """
    count = 0
    for public_key, signature, data in items:
        if len(public_key) != PUBLIC_KEY_BYTES or len(signature) != SIGNATURE_BYTES:
            break
        public_key, signature = bytes(public_key), bytes(signature)  # no copy of bytes
        try:
            crypto_sign_open(signature + data, public_key)
        except BadSignatureError:
            if not _openssl_accepts(public_key, signature, data):
                break
        count += 1
    return count


@dataclass(frozen=True, slots=True)
class Identity:
    """An Ed25519 key pair with a display name: one player's identity."""

    seed: bytes = field(repr=False)
    name: str
    public_key: bytes = field(init=False)
    _key: bytes = field(init=False, repr=False, compare=False)
    """libsodium's 64-byte secret key: the seed, then the public key."""

    def __post_init__(self) -> None:
        if len(self.seed) != 32:
            raise ValueError(f"seed: expected 32 bytes, got {len(self.seed)}")
        check_name(self.name)
        public, secret = crypto_sign_seed_keypair(bytes(self.seed))
        object.__setattr__(self, "_key", secret)
        object.__setattr__(self, "public_key", public)

    @classmethod
    def from_seed(cls, seed: bytes, name: str) -> Identity:
        """Return the identity whose private key is the 32-byte ``seed`` (vectors, tests)."""
        return cls(seed, name)

    @classmethod
    def generate(cls, name: str) -> Identity:
        """Return a fresh identity with a key from the operating system's random source."""
        return cls(os.urandom(32), name)

    @property
    def fingerprint(self) -> str:
        """The fingerprint of the public key."""
        return fingerprint(self.public_key)

    def sign(self, data: bytes) -> bytes:
        """Return the 64-byte Ed25519 signature of ``data`` (deterministic, RFC 8032)."""
        return crypto_sign(bytes(data), self._key)[:SIGNATURE_BYTES]


def home_dir() -> Path:
    """Return the directory that holds the key file: ``$SANTORINI_HOME`` or the data dir."""
    env = os.environ.get("SANTORINI_HOME")
    if env:
        return Path(env)
    if sys.platform == "win32":
        base = Path(os.environ.get("APPDATA") or Path.home() / "AppData" / "Roaming")
    elif sys.platform == "darwin":
        base = Path.home() / "Library" / "Application Support"
    else:
        base = Path(os.environ.get("XDG_DATA_HOME") or Path.home() / ".local" / "share")
    return base / "santorini-p2p"


def _default_name() -> str:
    try:
        user = getpass.getuser()
    except (OSError, KeyError):
        user = ""
    try:
        return check_name(user[:32])
    except ValueError:
        return "player"


def _render(seed: bytes, name: str) -> str:
    return f"{_MAGIC}\nseed {seed.hex()}\nname {name}\n"


def load_identity(home: Path | None = None) -> Identity:
    """Return the identity stored under ``home`` (default ``home_dir()``).

    Raises:
        IdentityError: the key file is missing, malformed, or readable by other users.
    """
    path = (home or home_dir()) / KEY_FILE
    try:
        st = path.stat()
        text = path.read_text(encoding="utf-8")
    except FileNotFoundError:
        raise IdentityError(f"{path}: no identity yet") from None
    except (OSError, UnicodeDecodeError) as e:
        raise IdentityError(f"{path}: cannot read the key file: {e}") from None
    if os.name == "posix" and st.st_mode & 0o077:
        raise IdentityError(
            f"{path}: the key file is readable by others (mode {st.st_mode & 0o777:o}); "
            "run chmod 600 on it"
        )
    lines = text.split("\n")
    if len(lines) < 3 or lines[0] != _MAGIC:
        raise IdentityError(f"{path}:1: not a santorini-p2p key file")
    if not lines[1].startswith("seed "):
        raise IdentityError(f"{path}:2: expected 'seed <64 hex digits>'")
    try:
        seed = bytes.fromhex(lines[1][5:])
    except ValueError:
        raise IdentityError(f"{path}:2: the seed is not hex") from None
    if len(seed) != 32:
        raise IdentityError(f"{path}:2: the seed must be 32 bytes, got {len(seed)}")
    if not lines[2].startswith("name "):
        raise IdentityError(f"{path}:3: expected 'name <display name>'")
    try:
        return Identity(seed, lines[2][5:])
    except ValueError as e:
        raise IdentityError(f"{path}:3: {e}") from None


def _write_key(path: Path, seed: bytes, name: str, *, create: bool) -> None:
    """Write the key file whole or not at all.

    Raises:
        StorageError: it cannot be written (a full disk, no permission).
    """
    tmp = path.with_name(f"{path.name}.{os.getpid()}.tmp")
    try:
        _write_key_file(path, tmp, seed, name, create=create)
    except OSError as e:
        with contextlib.suppress(OSError):
            tmp.unlink()
        raise cannot_write("the key file", path, e) from None


def _write_key_file(path: Path, tmp: Path, seed: bytes, name: str, *, create: bool) -> None:
    path.parent.mkdir(parents=True, exist_ok=True, mode=0o700)
    flags = os.O_WRONLY | os.O_CREAT | os.O_TRUNC | getattr(os, "O_BINARY", 0)
    fd = os.open(tmp, flags, 0o600)
    try:
        os.write(fd, _render(seed, name).encode("utf-8"))
        os.fsync(fd)
    finally:
        os.close(fd)
    os.chmod(tmp, 0o600)
    if create:
        # Two processes starting at once must not end with two identities.
        try:
            os.link(tmp, path)
        except FileExistsError:
            os.unlink(tmp)
            return
        except OSError:
            os.replace(tmp, path)
            return
        os.unlink(tmp)
    else:
        os.replace(tmp, path)


def load_or_create_identity(home: Path | None = None, name: str | None = None) -> Identity:
    """Return the stored identity, creating a key file (mode 0600) on first use.

    ``name`` is the display name for a new identity. By default it is the login name and the
    start of the new key's fingerprint (``alice-3f2a``): several players on one machine, or
    on a LAN of shared logins, get different names, and a game refuses a name taken twice.

    Raises:
        IdentityError: an existing key file is bad, or the file cannot be written.
    """
    where = home or home_dir()
    path = where / KEY_FILE
    if where.exists() and not where.is_dir():
        raise IdentityError(f"{where}: not a directory (set SANTORINI_HOME to a directory)")
    if not path.exists():
        try:
            if name:
                fresh = Identity.generate(check_name(name))
            else:
                key = Identity.generate(_default_name())
                fresh = Identity.from_seed(key.seed, f"{key.name}-{key.fingerprint[:4]}")
            _write_key(path, fresh.seed, fresh.name, create=True)
        except ValueError as e:
            raise IdentityError(str(e)) from None
        except OSError as e:
            raise IdentityError(f"{path}: cannot create the key file: {e}") from None
    return load_identity(where)


def save_name(name: str, home: Path | None = None) -> Identity:
    """Change the display name of the stored identity (the key stays); return it.

    Raises:
        IdentityError: the name is not valid, or the key file is bad or cannot be written.
    """
    where = home or home_dir()
    current = load_or_create_identity(where)
    try:
        check_name(name)
    except ValueError as e:
        raise IdentityError(str(e)) from None
    try:
        _write_key(where / KEY_FILE, current.seed, name, create=False)
    except OSError as e:
        raise IdentityError(f"{where / KEY_FILE}: cannot write the key file: {e}") from None
    return load_identity(where)
