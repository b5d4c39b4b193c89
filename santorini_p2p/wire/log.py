"""The signed, hash-chained game log: the one reader, writer and validator (SPEC.md 4-9).

It is made of four modules, along its seams, and this one re-exports them all so that callers
import from here: ``wire.envelope`` (one record's envelope), ``wire.validator`` (the log's
rules, ``Validator``), ``wire.framing`` (replay files) and ``wire.journal`` (the journal on
disk, with its locking and fsync).

A log is a sequence of envelopes ``[version, signer, body, signature]`` (``seal`` builds one);
record 0 is the header, and every later record carries the chain hash of the record before.
A replay file, and a journal on disk, is a magic prefix then the length-prefixed envelopes
(a journal of a game in progress is followed by zeros written ahead, SPEC.md section 9).

Public API:

- ``seal(identity, message) -> bytes``: sign a body and return the envelope bytes;
  ``open_envelope(raw) -> Envelope`` decodes one without checking the signature;
  ``chain_hash(raw) -> bytes`` is BLAKE2b-256 of the exact envelope bytes;
  ``verify_envelope(raw) -> (Envelope, Message)`` runs every check that needs no log.
- ``Validator``: the incremental fold. ``feed(raw) -> Record`` checks one envelope (size,
  decoding, version, signature over the exact bytes, chain, the signer's right to the record,
  legality in the engine, the state hash) and applies it; on any failure it raises
  ``ReplayError`` whose ``record_index`` is the record's number and whose ``__cause__`` is the
  specific error (a ``WireError`` subclass, ``IllegalTurnError`` or ``DesyncError``), and the
  validator is left as it was. State: ``header``, ``position`` (``None`` until every slot has
  revealed), ``seats`` (public keys in seat order), ``names``, ``clocks`` (bank ms per seat),
  ``pending_acks``, ``records``, ``next_seq``, ``last_hash``, ``turns``, ``is_over``,
  ``is_complete``, ``result``. ``expected_signers()`` says who may sign the next record.
  ``make_*`` methods build the next record for an identity (not fed: feed it, journal it,
  send it).
- ``make_header(game_id, seats, ...) -> Header``: record 0 of a new game (the host seals it).
- ``validate(envelopes) -> Validator``: fold a whole log.
- ``encode_frames(envelopes) -> bytes`` / ``iter_frames(data)``: the replay file format;
  ``read_log(data, complete=True) -> Validator``: read and check a replay file or journal,
  reporting the first bad record by number (framing errors included, in order).
- ``Journal``: the live log on disk; ``Journal.create(path, header_envelope)``,
  ``Journal.open(path)`` (reads and verifies what is there, for resume), ``append(raw, own=)``
  (validates and writes; fsyncs a peer's own record but an ack or result), ``validator``,
  ``close()`` (cuts off the zeros written ahead, as does completing the log).
"""

from __future__ import annotations

from santorini_p2p.wire.envelope import (
    ENVELOPE_VERSION,
    SIGNING_DOMAIN,
    ZERO_HASH,
    Envelope,
    chain_hash,
    open_envelope,
    seal,
    signing_input,
    verify_envelope,
)
from santorini_p2p.wire.framing import (
    FILE_MAGIC,
    FILE_VERSION,
    encode_frames,
    iter_frames,
    read_log,
)
from santorini_p2p.wire.journal import JOURNAL_RESERVE, Journal, scan_journal
from santorini_p2p.wire.validator import (
    MAX_RECORDS,
    Record,
    TakebackOffer,
    Validator,
    make_header,
    validate,
)

__all__ = [
    "ENVELOPE_VERSION",
    "FILE_MAGIC",
    "FILE_VERSION",
    "JOURNAL_RESERVE",
    "MAX_RECORDS",
    "SIGNING_DOMAIN",
    "ZERO_HASH",
    "Envelope",
    "Journal",
    "Record",
    "TakebackOffer",
    "Validator",
    "chain_hash",
    "encode_frames",
    "iter_frames",
    "make_header",
    "open_envelope",
    "read_log",
    "scan_journal",
    "seal",
    "signing_input",
    "validate",
    "verify_envelope",
]
