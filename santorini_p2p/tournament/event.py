"""The event file: a club event's signed, hash-chained record (protocol/EVENT.md 2-3).

An event file is ``SNTE``, a version byte, then length-prefixed envelopes, each
``[1, signer, body, signature]`` in canonical msgpack as a game's records are (SPEC.md 5-6),
signed under their own domain (``EVENT_DOMAIN``), so that no event record is ever a valid game
record or the other way round. Every body starts ``[type, seq, prev]``; ``prev`` is the
BLAKE2b-256 of the envelope before (zeros for record 0). Only the director, whose key signed
record 0, signs the later ones.

Public API:

- ``Player``, ``EventHeader`` (record 0), ``PairingRecord`` (a round), ``ResultRecord`` (one
  board's result), ``EventRecord`` (their union);
- ``encode_record(r)`` / ``decode_record(body)``; ``seal_record(identity, r) -> bytes``;
- ``EventLog``: the file read and checked record by record (``read_event(data)``), or grown
  by the director (``append``); ``encode_event(envelopes)`` writes the file's bytes;
- ``EventError``: what is wrong with an event file, naming the record.
"""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass, field
from typing import Final, TypeAlias

from santorini_p2p.engine.hashing import blake2b_256
from santorini_p2p.errors import SantoriniError, WireError
from santorini_p2p.wire.codec import Value, decode, encode
from santorini_p2p.wire.identity import (
    PUBLIC_KEY_BYTES,
    SIGNATURE_BYTES,
    Identity,
    check_name,
    fingerprint,
    verify,
)

__all__ = [
    "EVENT_DOMAIN",
    "EVENT_MAGIC",
    "EVENT_VERSION",
    "FORMATS",
    "MAX_EVENT_RECORD",
    "MAX_PLAYERS",
    "REASONS",
    "EventError",
    "EventHeader",
    "EventLog",
    "EventRecord",
    "PairingRecord",
    "Player",
    "ResultRecord",
    "decode_record",
    "encode_event",
    "encode_record",
    "read_event",
    "seal_record",
]

EVENT_MAGIC: Final = b"SNTE"
EVENT_VERSION: Final = 1
EVENT_DOMAIN: Final = b"santorini-p2p/1 event\x00"
"""Prefix of the signed bytes of an event record (a game record's is ``.../1 record``)."""
MAX_EVENT_RECORD: Final = 16384
"""The largest envelope of an event file, in bytes (a header of 64 long names fits)."""
MAX_RECORDS: Final = 4096
MAX_PLAYERS: Final = 64
MAX_EVENT_NAME: Final = 100
FORMATS: Final = ("swiss", "roundrobin")
GOD_RULES: Final = ("none", "challenger", "draft", "random")
REASONS: Final = ("win", "resign", "time", "draw", "none")
"""How a board ended, as its replay says: a win on the board, a resignation, a loss on time,
a draw by agreement, or over with no winner."""
_ZERO: Final = bytes(32)
_FINGERPRINT_LEN: Final = 19

TYPE_HEADER: Final = 0
TYPE_PAIRING: Final = 1
TYPE_RESULT: Final = 2


class EventError(SantoriniError):
    """An event file or record that does not verify; ``record`` is its number when known."""

    def __init__(self, reason: str, record: int | None = None) -> None:
        """Keep the reason and the record number; the message names both."""
        self.reason = reason
        self.record = record
        super().__init__(reason if record is None else f"record {record}: {reason}")


@dataclass(frozen=True, slots=True)
class Player:
    """A player of the event: display name and key fingerprint (``xxxx-xxxx-xxxx-xxxx``)."""

    name: str
    fingerprint: str


@dataclass(frozen=True, slots=True)
class EventHeader:
    """Record 0: the event's name, players (seed order), format, rounds and game settings.

    ``gods`` is the god rule of every game and ``pool`` its god pool (empty: the ten simple
    gods); ``move_ms`` and ``bank_ms`` the time control (0, 0: untimed). ``created_ms`` is
    wall-clock time, for information.
    """

    seq: int
    prev: bytes
    name: str
    created_ms: int
    players: tuple[Player, ...]
    format: str
    rounds: int
    gods: str
    pool: tuple[str, ...]
    move_ms: int
    bank_ms: int

    @property
    def time_text(self) -> str:
        """The time control as the command line writes it (``60+300``, or ``none``)."""
        if not (self.move_ms or self.bank_ms):
            return "none"
        return f"{self.move_ms // 1000}+{self.bank_ms // 1000}"


@dataclass(frozen=True, slots=True)
class PairingRecord:
    """A round's pairing: boards as (first, second) player indices, and the bye or None.

    ``paired_ms`` is the director's wall-clock time when it was made: a game created well
    before it is not a game of this round (EVENT.md 5).
    """

    seq: int
    prev: bytes
    round: int
    paired_ms: int
    games: tuple[tuple[int, int], ...]
    bye: int | None


@dataclass(frozen=True, slots=True)
class ResultRecord:
    """One board's result, read from a replay: ``winner`` a player index, or None for a draw.

    ``first`` is the player who made the game's first action: the board's first player, or
    the other one when the game was played the other way round (it stands, as played).
    ``replay`` is the SHA-256 of the replay file's exact bytes and ``game_id`` its header's
    game id, so that anyone holding the replays finds and re-checks each one.
    """

    seq: int
    prev: bytes
    round: int
    board: int
    first: int
    winner: int | None
    reason: str
    game_id: bytes
    replay: bytes
    recorded_ms: int


EventRecord: TypeAlias = EventHeader | PairingRecord | ResultRecord


def encode_record(r: EventRecord) -> bytes:
    """Return the canonical body bytes of an event record (EVENT.md 3)."""
    value: Value
    match r:
        case EventHeader():
            value = (
                TYPE_HEADER,
                r.seq,
                r.prev,
                EVENT_VERSION,
                r.name,
                r.created_ms,
                tuple((p.name, p.fingerprint) for p in r.players),
                r.format,
                r.rounds,
                r.gods,
                r.pool,
                r.move_ms,
                r.bank_ms,
            )
        case PairingRecord():
            value = (
                TYPE_PAIRING,
                r.seq,
                r.prev,
                r.round,
                r.paired_ms,
                tuple(r.games),
                -1 if r.bye is None else r.bye,
            )
        case ResultRecord():
            value = (
                TYPE_RESULT,
                r.seq,
                r.prev,
                r.round,
                r.board,
                r.first,
                -1 if r.winner is None else r.winner,
                r.reason,
                r.game_id,
                r.replay,
                r.recorded_ms,
            )
    return encode(value)


def _int(v: Value, what: str, low: int, high: int) -> int:
    if type(v) is not int or not low <= v <= high:
        raise ValueError(f"{what}: expected an integer {low}..{high}, got {v!r}")
    return v


def _text(v: Value, what: str, longest: int) -> str:
    if type(v) is not str or not 0 < len(v) <= longest:
        raise ValueError(f"{what}: expected text of 1..{longest} characters, got {v!r}")
    return v


def _bytes(v: Value, what: str, size: int) -> bytes:
    if type(v) is not bytes or len(v) != size:
        raise ValueError(f"{what}: expected {size} bytes")
    return v


def _tuple(v: Value, what: str, size: int | None = None) -> tuple[Value, ...]:
    if type(v) is not tuple or (size is not None and len(v) != size):
        raise ValueError(f"{what}: expected an array" + (f" of {size}" if size else ""))
    return v


_BIG: Final = 2**63 - 1


def decode_record(body: bytes) -> EventRecord:
    """Decode and type-check an event record body.

    Raises:
        EventError: not canonical msgpack, or a field of the wrong type or range (the
            message names it); the caller sets the record number.
    """
    try:
        v = decode(body, MAX_EVENT_RECORD)
    except WireError as e:
        raise EventError(f"body: {e}") from e
    try:
        fields = _tuple(v, "body")
        if len(fields) < 3:
            raise ValueError("body: expected [type, seq, prev, ...]")
        kind = _int(fields[0], "type", 0, 255)
        seq = _int(fields[1], "seq", 0, MAX_RECORDS - 1)
        prev = _bytes(fields[2], "prev", 32)
        if kind == TYPE_HEADER:
            _tuple(v, "header", 13)
            version = _int(fields[3], "version", 0, 255)
            if version != EVENT_VERSION:
                raise ValueError(f"event version {version}; this program reads {EVENT_VERSION}")
            players = []
            for p in _tuple(fields[6], "players"):
                name, fp = _tuple(p, "player", 2)
                players.append(Player(check_name(_text(name, "player name", 64)), _fp(fp)))
            return EventHeader(
                seq,
                prev,
                _text(fields[4], "name", MAX_EVENT_NAME),
                _int(fields[5], "created_ms", 0, _BIG),
                tuple(players),
                _text(fields[7], "format", 20),
                _int(fields[8], "rounds", 1, 255),
                _text(fields[9], "gods", 20),
                tuple(_text(g, "pool", 20) for g in _tuple(fields[10], "pool")),
                _int(fields[11], "move_ms", 0, _BIG),
                _int(fields[12], "bank_ms", 0, _BIG),
            )
        if kind == TYPE_PAIRING:
            _tuple(v, "pairing", 7)
            games = tuple(
                (_int(g[0], "first", 0, MAX_PLAYERS - 1), _int(g[1], "second", 0, MAX_PLAYERS - 1))
                for g in (_tuple(x, "game", 2) for x in _tuple(fields[5], "games"))
            )
            bye = _int(fields[6], "bye", -1, MAX_PLAYERS - 1)
            return PairingRecord(
                seq,
                prev,
                _int(fields[3], "round", 1, 255),
                _int(fields[4], "paired_ms", 0, _BIG),
                games,
                None if bye < 0 else bye,
            )
        if kind == TYPE_RESULT:
            _tuple(v, "result", 11)
            winner = _int(fields[6], "winner", -1, MAX_PLAYERS - 1)
            return ResultRecord(
                seq,
                prev,
                _int(fields[3], "round", 1, 255),
                _int(fields[4], "board", 1, MAX_PLAYERS),
                _int(fields[5], "first", 0, MAX_PLAYERS - 1),
                None if winner < 0 else winner,
                _text(fields[7], "reason", 20),
                _bytes(fields[8], "game_id", 16),
                _bytes(fields[9], "replay", 32),
                _int(fields[10], "recorded_ms", 0, _BIG),
            )
        raise ValueError(f"unknown record type {kind}")
    except ValueError as e:
        raise EventError(str(e)) from None


def _fp(v: Value) -> str:
    text = _text(v, "fingerprint", _FINGERPRINT_LEN)
    if not _is_fingerprint(text):
        raise ValueError(
            f"fingerprint: expected xxxx-xxxx-xxxx-xxxx (lower-case hex), got {text!r}"
        )
    return text


def _is_fingerprint(text: str) -> bool:
    parts = text.split("-")
    return (
        len(text) == _FINGERPRINT_LEN
        and len(parts) == 4
        and all(len(p) == 4 and all(c in "0123456789abcdef" for c in p) for p in parts)
    )


def seal_record(identity: Identity, r: EventRecord) -> bytes:
    """Sign an event record with ``identity``; return the envelope bytes."""
    body = encode_record(r)
    return encode((1, identity.public_key, body, identity.sign(EVENT_DOMAIN + body)))


def _open(raw: bytes) -> tuple[bytes, bytes, bytes]:
    """Return ``(signer, body, signature)`` of an event envelope (not yet verified)."""
    try:
        v = decode(raw, MAX_EVENT_RECORD)
    except WireError as e:
        raise EventError(f"envelope: {e}") from e
    if type(v) is not tuple or len(v) != 4:
        raise EventError("envelope: expected [version, signer, body, signature]")
    version, signer, body, sig = v
    if version != 1:
        raise EventError(f"envelope version {version!r}; this program reads 1")
    if type(signer) is not bytes or len(signer) != PUBLIC_KEY_BYTES:
        raise EventError("envelope: the signer is not a 32-byte key")
    if type(body) is not bytes or type(sig) is not bytes or len(sig) != SIGNATURE_BYTES:
        raise EventError("envelope: the body or the signature is not bytes of the right size")
    return signer, body, sig


def encode_event(envelopes: list[bytes]) -> bytes:
    """Return an event file: ``SNTE``, version 1, then each envelope with a length prefix."""
    parts = [EVENT_MAGIC, bytes([EVENT_VERSION])]
    for raw in envelopes:
        parts += [len(raw).to_bytes(4, "big"), raw]
    return b"".join(parts)


def _frames(data: bytes) -> Iterator[bytes]:
    if data[:4] != EVENT_MAGIC:
        raise EventError("not an event file (no SNTE magic)")
    if len(data) < 5 or data[4] != EVENT_VERSION:
        raise EventError(f"unsupported event file version (this program reads {EVENT_VERSION})")
    at, index = 5, 0
    while at < len(data):
        if index >= MAX_RECORDS:
            raise EventError(f"an event file holds at most {MAX_RECORDS} records", index)
        if len(data) - at < 4:
            raise EventError("truncated file: a length prefix is cut short", index)
        size = int.from_bytes(data[at : at + 4], "big")
        at += 4
        if not 0 < size <= MAX_EVENT_RECORD:
            raise EventError(f"record length {size} is not 1..{MAX_EVENT_RECORD}", index)
        if len(data) - at < size:
            raise EventError(f"truncated file: the record needs {size} bytes", index)
        yield data[at : at + size]
        at += size
        index += 1


@dataclass(slots=True)
class EventLog:
    """An event file's records, each checked: signature, chain, sequence and the header's rules.

    What the records mean for the event (that a pairing is the one its rules give, that a
    result's replay matches its board) is checked by ``tournament.club``, which can re-derive
    it; this class checks what the file alone proves.
    """

    envelopes: list[bytes] = field(default_factory=list)
    records: list[EventRecord] = field(default_factory=list)
    director: bytes = b""

    @property
    def header(self) -> EventHeader:
        """Record 0."""
        h = self.records[0]
        assert isinstance(h, EventHeader)
        return h

    @property
    def last_hash(self) -> bytes:
        """The chain hash the next record carries as ``prev``."""
        return blake2b_256(self.envelopes[-1]) if self.envelopes else _ZERO

    def feed(self, raw: bytes) -> EventRecord:
        """Check one envelope against the log so far and append it.

        Raises:
            EventError: naming the record; the log is left as it was.
        """
        index = len(self.records)
        try:
            signer, body, sig = _open(raw)
            if not verify(signer, sig, EVENT_DOMAIN + body):
                raise EventError("bad signature")
            if index and signer != self.director:
                director = fingerprint(self.director)
                raise EventError(f"signed by {fingerprint(signer)}, not the director {director}")
            r = decode_record(body)
            if r.seq != index:
                raise EventError(f"seq {r.seq}, expected {index}")
            if r.prev != self.last_hash:
                raise EventError("prev is not the chain hash of the record before")
            if (index == 0) != isinstance(r, EventHeader):
                raise EventError("record 0, and only record 0, is the event header")
            if isinstance(r, EventHeader):
                _check_header(r)
        except EventError as e:
            raise EventError(e.reason, index) from e.__cause__
        if index == 0:
            self.director = signer
        self.envelopes.append(raw)
        self.records.append(r)
        return r

    def append(self, identity: Identity, r: EventRecord) -> bytes:
        """Seal ``r`` as the director, check it as a reader would, and append it."""
        raw = seal_record(identity, r)
        self.feed(raw)
        return raw

    def to_bytes(self) -> bytes:
        """The event file's bytes."""
        return encode_event(self.envelopes)


def _check_header(h: EventHeader) -> None:
    if h.format not in FORMATS:
        raise EventError(f"format {h.format!r}: expected one of {', '.join(FORMATS)}")
    if h.gods not in GOD_RULES:
        raise EventError(f"gods {h.gods!r}: expected one of {', '.join(GOD_RULES)}")
    if not 2 <= len(h.players) <= MAX_PLAYERS:
        raise EventError(f"{len(h.players)} players: an event has 2..{MAX_PLAYERS}")
    prints = [p.fingerprint for p in h.players]
    names = [p.name.casefold() for p in h.players]
    if len(set(prints)) != len(prints) or len(set(names)) != len(names):
        raise EventError("two players share a name or a fingerprint")
    if h.move_ms == 0 and h.bank_ms > 0:
        raise EventError("a bank without a time per move")


def read_event(data: bytes) -> EventLog:
    """Read and check an event file (every record's signature, chain and shape).

    Raises:
        EventError: the first record that fails, by number, and why.
    """
    log = EventLog()
    for raw in _frames(data):
        log.feed(raw)
    if not log.records:
        raise EventError("the file holds no event header", 0)
    return log
