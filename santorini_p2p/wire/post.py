"""Correspondence blocks: a game's signed records as a few lines of text (protocol/POST.md).

A **block** is what one side of a correspondence game sends the other through any channel (a
chat, a mail, a forum post). Its bytes are a canonical msgpack array signed by the sender:
an **invitation** (kind 0: a new game's settings, before any record exists) or a **records**
block (kind 1: the records of the game's log from ``start`` that the other side may lack,
and ``have``, how many records the sender holds, which acknowledges the other side's).

The **armour** carries those bytes as text that survives being pasted anywhere: a line for
people, then base64 between ``-----BEGIN SANTORINI POST-----`` and
``-----END SANTORINI POST-----``. A reader ignores whitespace anywhere, the ``>`` of quoting
and line breaks (re-wrapped lines), and checks the payload's length and CRC-32 before the
signature, so that a cut or damaged block is told from a forged one.

Public API:

- ``Invitation``, ``RecordsBlock`` (``Block`` is either); ``seal_block(identity, block)``
  returns the signed bytes; ``open_block(data) -> Block`` checks them;
- ``armour(data, title) -> str`` and ``unarmour(text) -> bytes``;
- ``BlockError``: what is wrong with a block, in words a player can act on.
"""

from __future__ import annotations

import base64
import binascii
import re
import zlib
from dataclasses import dataclass
from typing import Final, TypeAlias

from santorini_p2p.errors import SantoriniError, WireError
from santorini_p2p.wire.codec import Value, decode, encode
from santorini_p2p.wire.identity import PUBLIC_KEY_BYTES, SIGNATURE_BYTES, Identity, verify

__all__ = [
    "BEGIN_LINE",
    "BLOCK_DOMAIN",
    "BLOCK_VERSION",
    "END_LINE",
    "MAX_BLOCK_BYTES",
    "MAX_TEXT_BYTES",
    "Block",
    "BlockError",
    "Invitation",
    "RecordsBlock",
    "armour",
    "open_block",
    "seal_block",
    "unarmour",
]

BLOCK_VERSION: Final = 1
BLOCK_DOMAIN: Final = b"santorini-p2p/1 post\x00"
"""Prefix of the signed bytes of a block (a record's is ``.../1 record``)."""
BEGIN_LINE: Final = "-----BEGIN SANTORINI POST-----"
END_LINE: Final = "-----END SANTORINI POST-----"
PAYLOAD_MAGIC: Final = b"SNTP"
MAX_BLOCK_BYTES: Final = 1 << 20
"""The largest block (a whole game's records fit many times over)."""
MAX_TEXT_BYTES: Final = 4 << 20
"""The most text a reader looks through for one block."""
_LINE: Final = 64
_B64: Final = re.compile(r"[A-Za-z0-9+/=]*")
_SQUEEZE: Final = re.compile(r"[\s>]+")

KIND_INVITATION: Final = 0
KIND_RECORDS: Final = 1


class BlockError(SantoriniError):
    """A block that cannot be read or does not verify; the message says what is wrong."""


@dataclass(frozen=True, slots=True)
class Invitation:
    """A new game offered by ``sender``: its settings, before any record exists.

    ``gods`` is the god rule and ``pool`` the god pool (empty: the ten simple gods);
    ``days`` the days a move the players agree on (0: no clock; shown, never enforced);
    ``to`` the one key that may accept, or empty for the first to answer.
    """

    game_id: bytes
    sender: bytes
    name: str
    gods: str
    pool: tuple[str, ...]
    days: int
    created_ms: int
    to: bytes = b""


@dataclass(frozen=True, slots=True)
class RecordsBlock:
    """Records ``start``.. of a game's log, and ``have``: how many records the sender holds.

    ``sent_ms`` is the sender's wall clock when it wrote the block (information only).
    """

    game_id: bytes
    sender: bytes
    have: int
    start: int
    records: tuple[bytes, ...]
    sent_ms: int


Block: TypeAlias = Invitation | RecordsBlock


def _fields(block: Block) -> tuple[Value, ...]:
    if isinstance(block, Invitation):
        return (
            BLOCK_VERSION,
            KIND_INVITATION,
            block.game_id,
            block.sender,
            block.name,
            block.gods,
            block.pool,
            block.days,
            block.created_ms,
            block.to,
        )
    return (
        BLOCK_VERSION,
        KIND_RECORDS,
        block.game_id,
        block.sender,
        block.have,
        block.start,
        block.records,
        block.sent_ms,
    )


def seal_block(identity: Identity, block: Block) -> bytes:
    """Sign ``block`` with ``identity`` (its sender); return the block's bytes."""
    assert block.sender == identity.public_key, "a block is signed by its sender"
    fields = _fields(block)
    signature = identity.sign(BLOCK_DOMAIN + encode(fields))
    return encode((*fields, signature))


def _int(v: Value, what: str, high: int = 2**63 - 1) -> int:
    if type(v) is not int or not 0 <= v <= high:
        raise BlockError(f"the block's {what} is not a whole number 0..{high}")
    return v


def _bin(v: Value, what: str, sizes: tuple[int, ...]) -> bytes:
    if type(v) is not bytes or len(v) not in sizes:
        raise BlockError(f"the block's {what} is not {' or '.join(map(str, sizes))} bytes")
    return v


def _str(v: Value, what: str) -> str:
    if type(v) is not str or not 0 < len(v) <= 64:
        raise BlockError(f"the block's {what} is not text of 1 to 64 characters")
    return v


def open_block(data: bytes) -> Block:
    """Decode a block's bytes, check its signature, and return it.

    Raises:
        BlockError: not a block, a version this program does not read, or a signature
            that does not match (the block was changed after it was signed).
    """
    try:
        v = decode(data, MAX_BLOCK_BYTES)
    except WireError as e:
        raise BlockError(f"not a block: {e}") from None
    if type(v) is not tuple or len(v) < 4:
        raise BlockError("not a block: expected [version, kind, game, sender, ...]")
    if v[0] != BLOCK_VERSION:
        raise BlockError(f"block version {v[0]!r}: this program reads version {BLOCK_VERSION}")
    kind = v[1]
    size = 11 if kind == KIND_INVITATION else 9 if kind == KIND_RECORDS else -1
    if len(v) != size:
        raise BlockError(f"unknown block kind {kind!r} (or a wrong number of fields)")
    fields, signature = v[:-1], _bin(v[-1], "signature", (SIGNATURE_BYTES,))
    game_id = _bin(v[2], "game id", (16,))
    sender = _bin(v[3], "sender key", (PUBLIC_KEY_BYTES,))
    if not verify(sender, signature, BLOCK_DOMAIN + encode(fields)):
        raise BlockError(
            "bad signature: the block was changed after its sender signed it (or the text "
            "was damaged in a way its checksum did not catch)"
        )
    if kind == KIND_INVITATION:
        pool = v[6]
        if type(pool) is not tuple or any(type(g) is not str for g in pool):
            raise BlockError("the invitation's god pool is not a list of names")
        return Invitation(
            game_id,
            sender,
            _str(v[4], "name"),
            _str(v[5], "god rule"),
            tuple(str(g) for g in pool),
            _int(v[7], "days a move", 365),
            _int(v[8], "time"),
            _bin(v[9], "invited key", (0, PUBLIC_KEY_BYTES)),
        )
    records = v[6]
    if type(records) is not tuple or any(type(r) is not bytes for r in records):
        raise BlockError("the block's records are not a list of records")
    return RecordsBlock(
        game_id,
        sender,
        _int(v[4], "record count", 1 << 16),
        _int(v[5], "first record", 1 << 16),
        tuple(bytes(r) for r in records),  # type: ignore[arg-type]  # checked just above
        _int(v[7], "time"),
    )


def armour(data: bytes, title: str) -> str:
    """The block ``data`` as text: ``title`` (one line for people), then the armoured payload.

    The payload is ``SNTP``, a version byte, the block's length (4 bytes), the block and its
    CRC-32 (4 bytes), in base64 lines of 64 characters.
    """
    payload = (
        PAYLOAD_MAGIC
        + bytes([BLOCK_VERSION])
        + len(data).to_bytes(4, "big")
        + data
        + zlib.crc32(data).to_bytes(4, "big")
    )
    text = base64.b64encode(payload).decode("ascii")
    lines = [text[i : i + _LINE] for i in range(0, len(text), _LINE)]
    return "\n".join([title, BEGIN_LINE, *lines, END_LINE]) + "\n"


def _squeeze(text: str) -> str:
    return _SQUEEZE.sub("", text)


def unarmour(text: str) -> bytes:
    """Return the block's bytes from text that holds one armoured block.

    Whitespace, line breaks and the ``>`` of quoting are ignored wherever they are, so a
    block survives re-wrapping, quoting and extra spaces. Text before the first BEGIN line
    and after its END line is ignored.

    Raises:
        BlockError: no block, a cut one, a character that is not base64, or a payload whose
            length or CRC-32 does not match (damaged or truncated on the way).
    """
    if len(text) > MAX_TEXT_BYTES:
        raise BlockError(f"{len(text)} characters is more than a block can be")
    flat = _squeeze(text)
    begin, end = _squeeze(BEGIN_LINE), _squeeze(END_LINE)
    at = flat.find(begin)
    if at < 0:
        raise BlockError(f"no block: the text has no {BEGIN_LINE} line")
    body_at = at + len(begin)
    stop = flat.find(end, body_at)
    if stop < 0:
        raise BlockError(f"truncated block: no {END_LINE} line after its beginning")
    body = flat[body_at:stop]
    bad = _B64.fullmatch(body)
    if bad is None:
        wrong = next(c for c in body if not _B64.fullmatch(c))
        raise BlockError(f"damaged block: the character {wrong!r} is not part of a block")
    try:
        payload = base64.b64decode(body, validate=True)
    except (binascii.Error, ValueError):
        raise BlockError(
            f"truncated or damaged block: {len(body)} base64 characters do not decode "
            "(a line is missing or changed)"
        ) from None
    head = len(PAYLOAD_MAGIC) + 5
    if payload[:4] != PAYLOAD_MAGIC:
        raise BlockError("damaged block: it does not start with SNTP (changed, or not a block)")
    if len(payload) < head + 4:
        raise BlockError("truncated block: too short to hold a block")
    if payload[4] != BLOCK_VERSION:
        raise BlockError(f"block format {payload[4]}: this program reads {BLOCK_VERSION}")
    size = int.from_bytes(payload[5:9], "big")
    if len(payload) != head + size + 4:
        raise BlockError(
            f"truncated or damaged block: it says {size} bytes and holds "
            f"{max(0, len(payload) - head - 4)} (a line is missing or was added)"
        )
    data = payload[head : head + size]
    if zlib.crc32(data).to_bytes(4, "big") != payload[-4:]:
        raise BlockError("damaged block: its checksum does not match (a character changed)")
    return data
