"""The JSON export: the header and every record decoded, with the position after each one.

The document follows ``protocol/schemas/replay-export.schema.json``: bytes are lower-case
hex, seats and slots are 1-based (a record's signer is the header's seat list entry of its
slot), and every record that changes the game (the last reveal, each action, resignation,
timeout or accepted offer) carries the position string and state hash after it. In a game where
an advanced god plays, an action whose power moved, removed or put out other workers or removed
blocks lists them in ``effects``; the key is left out otherwise, so every game of the simple
gods exports as it did before the field existed (as the text export's comments, 14.2).
"""

from __future__ import annotations

import json
from typing import Final

from santorini_p2p.engine import (
    SQUARE_NAMES,
    Effect,
    Position,
    describe_effect,
    format_position,
    side_letter,
    state_hash,
)
from santorini_p2p.replay.timeline import Timeline, has_advanced_god, step_before, step_effects
from santorini_p2p.wire.identity import fingerprint
from santorini_p2p.wire.log import Record
from santorini_p2p.wire.messages import (
    Accept,
    Ack,
    Act,
    Answer,
    Ask,
    Chat,
    Commit,
    Forfeit,
    Header,
    Object,
    Offer,
    Open,
    Resign,
    Result,
    Reveal,
    Shuffle,
    Strip,
    Timeout,
)

__all__ = [
    "EXPORT_SCHEMA",
    "EXPORT_VERSION",
    "effect_entry",
    "export_json",
    "format_document",
    "to_document",
]

EXPORT_SCHEMA: Final = "replay-export.schema.json"
EXPORT_VERSION: Final = 1
"""Version of the JSON export document (bumped with its schema)."""


def _body(record: Record) -> dict[str, object]:
    msg = record.message
    match msg:
        case Header():
            return {
                "game_id": msg.game_id.hex(),
                "protocol": msg.protocol,
                "created_ms": msg.created_ms,
                "seats": [
                    {
                        "public_key": s.public_key.hex(),
                        "fingerprint": fingerprint(s.public_key),
                        "name": s.name,
                    }
                    for s in msg.seats
                ],
                "gods": msg.gods,
                "move_ms": msg.move_ms,
                "bank_ms": msg.bank_ms,
                "options": list(msg.options),
                # protocol 2 only: the gods the game draws from (SPEC.md 7)
                **({"pool": list(msg.pool)} if msg.pool else {}),
            }
        case Commit():
            return {"commitment": msg.commitment.hex()}
        case Reveal():
            return {"nonce": msg.nonce.hex()}
        case Act():
            return {
                "action": msg.action,
                "clock_ms": msg.clock_ms,
                "state_hash": msg.state_hash.hex(),
            }
        case Ack():
            return {"acked": msg.acked, "state_hash": msg.state_hash.hex()}
        case Resign():
            return {"state_hash": msg.state_hash.hex()}
        case Timeout():
            return {"seat": msg.seat + 1, "state_hash": msg.state_hash.hex()}
        case Offer():
            return {"kind": msg.kind}
        case Accept():
            return {"kind": msg.kind, "offer": msg.offer}
        case Chat():
            return {"text": msg.text}
        case Ask():
            return {"asked": msg.asked}
        case Answer():
            return {"answer": msg.answer}
        case Result():
            return {
                "winner": msg.winner + 1 if msg.winner >= 0 else None,
                "reason": msg.reason,
                "state_hash": msg.state_hash.hex(),
            }
        case Shuffle() | Strip():
            return {"cards": [c.hex() for c in msg.cards]}
        case Open():
            return {"god": msg.god, "key": msg.key.hex()}
        case Object():
            return {"objected": msg.objected, "god": msg.god, "key": msg.key.hex()}
        case Forfeit():
            return {"late": msg.late + 1, "reason": msg.reason}
        case _:
            raise AssertionError(f"unknown record {msg!r}")


def effect_entry(before: Position, e: Effect) -> dict[str, object]:
    """Return one effect as the export writes it: kind, side letter, squares by name, words."""
    return {
        "kind": e.kind.value,
        "side": side_letter(e.side) if e.side >= 0 else None,
        "squares": [SQUARE_NAMES[s] for s in e.squares],
        "text": describe_effect(before, e),
    }


def _effects_by_record(t: Timeline) -> dict[int, list[dict[str, object]]]:
    out: dict[int, list[dict[str, object]]] = {}
    if not has_advanced_god(t):
        return out
    for s, effects in zip(t.steps, step_effects(t), strict=True):
        before = step_before(t, s.number)
        if effects and before is not None:
            out[s.record] = [effect_entry(before, e) for e in effects]
    return out


def to_document(t: Timeline) -> dict[str, object]:
    """Return the JSON export of ``t`` as a JSON-ready dict."""
    records = []
    effects = _effects_by_record(t)
    before = None
    for record, after in zip(t.records, t.positions, strict=True):
        entry: dict[str, object] = {
            "index": record.index,
            "type": type(record.message).__name__.lower(),
            "slot": record.slot + 1,
            "seat": record.seat + 1 if record.seat is not None else None,
            "hash": record.hash.hex(),
            "prev": record.message.prev.hex(),
            "bytes": len(record.raw),
            "body": _body(record),
        }
        if after is not None and (after != before or isinstance(record.message, Act)):
            entry["position"] = format_position(after)
            entry["state_hash"] = state_hash(after).hex()
        if record.index in effects:
            entry["effects"] = effects[record.index]
        before = after
        records.append(entry)
    winner: int | None = None
    result: dict[str, object] | None = None
    if t.result is not None:
        winner = t.result[0] + 1 if t.result[0] >= 0 else None
        result = {"winner": winner, "reason": t.result[1], "text": t.result_text}
    return {
        "schema": EXPORT_SCHEMA,
        "version": EXPORT_VERSION,
        "verification": {
            "ok": t.ok,
            "text": t.verification,
            "record": t.bad_record,
            "error": t.error or None,
            "kind": t.error_kind or None,
        },
        "players": [
            {
                "seat": p.seat + 1,
                "name": p.name,
                "public_key": p.public_key.hex(),
                "fingerprint": p.fingerprint,
                "god": p.god if p.god not in ("", "?") else None,
                "power": p.power or None,
            }
            for p in t.players
        ],
        "start": format_position(t.start) if t.start is not None else None,
        "records": records,
        "result": result,
        "turns": t.turns,
    }


def export_json(t: Timeline, *, compact: bool = False) -> str:
    """Return the JSON export of ``t`` as text (UTF-8, names unescaped).

    By default each top-level field, player and record takes one line (readable, and a diff
    shows the record that differs); ``compact`` gives a single line.
    """
    return format_document(to_document(t), compact=compact)


def format_document(doc: dict[str, object], *, compact: bool = False) -> str:
    """Return ``doc`` (``to_document``'s) as the export's text; see ``export_json``."""
    if compact:
        return json.dumps(doc, ensure_ascii=False, separators=(",", ":")) + "\n"
    fields = []
    for key, value in doc.items():
        name = json.dumps(key)
        if isinstance(value, list) and value:
            items = ",\n".join("  " + json.dumps(v, ensure_ascii=False) for v in value)
            fields.append(f" {name}: [\n{items}\n ]")
        else:
            fields.append(f" {name}: {json.dumps(value, ensure_ascii=False)}")
    return "{\n" + ",\n".join(fields) + "\n}\n"
