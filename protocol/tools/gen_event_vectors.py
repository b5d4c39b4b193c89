#!/usr/bin/env python3
"""Regenerate the event file vectors (protocol/EVENT.md 8).

Writes protocol/vectors/event.json: event files (hex) built with fixed keys and times, each
with the verdict a reader must reach and, for a bad one, the record it must name. The valid
two-player event's result comes from ``vectors/replays/2p-none.sntr``, so that the event
re-verifies from the replay vectors alone. The tests only read the file; ``--check`` compares
instead of writing.
"""

from __future__ import annotations

import argparse
import json
import sys
from dataclasses import replace
from pathlib import Path
from typing import Any

from santorini_p2p.engine.hashing import blake2b_256
from santorini_p2p.tournament.club import fold
from santorini_p2p.tournament.event import (
    EventError,
    EventHeader,
    PairingRecord,
    Player,
    ResultRecord,
    encode_event,
    read_event,
    seal_record,
)
from santorini_p2p.tournament.games import read_game
from santorini_p2p.wire.identity import Identity

VECTORS = Path(__file__).resolve().parent.parent / "vectors"
DIRECTOR = Identity.from_seed(bytes([0x0D]) * 32, "director")
PLAYERS = [Identity.from_seed(bytes([i]) * 32, n) for i, n in enumerate(("alice", "bob"), 1)]
MORE = [Identity.from_seed(bytes([i]) * 32, n) for i, n in ((3, "carol"), (4, "dan"))]
T0 = 1_790_000_000_000
ZERO = bytes(32)


def _header(players: list[Identity], fmt: str, rounds: int) -> EventHeader:
    return EventHeader(
        0,
        ZERO,
        "Vector club",
        T0 - 3_600_000,
        tuple(Player(p.name, p.fingerprint) for p in players),
        fmt,
        rounds,
        "none",
        (),
        0,
        0,
    )


def _raw(records: list[Any], sealers: dict[int, Identity] | None = None) -> list[bytes]:
    """Envelopes of ``records`` (seq and prev as given), each signed as ``sealers`` says."""
    out: list[bytes] = []
    for i, r in enumerate(records):
        if r.seq < 0:
            r = replace(r, seq=i)
        if r.prev == b"auto":
            r = replace(r, prev=blake2b_256(out[-1]) if out else ZERO)
        out.append(seal_record((sealers or {}).get(i, DIRECTOR), r))
    return out


def _auto(r: Any) -> Any:
    return replace(r, seq=-1, prev=b"auto")


def _expect(case: dict[str, Any], data: bytes, *, folded: bool) -> None:
    """Check that a reader reaches the case's verdict (the generator's own consistency)."""
    try:
        log = read_event(data)
        if folded:
            fold(log)
    except EventError as e:
        got: tuple[str, Any] = (e.reason, e.record)
    else:
        got = ("", None)
    want = case.get("error", "")
    ok = (want in got[0] and got[1] == case.get("record")) if want else not got[0]
    if not ok:
        raise AssertionError(f"{case['id']}: {got}")


def build() -> dict[str, Any]:
    """Build every case."""
    replay = (VECTORS / "replays" / "2p-none.sntr").read_bytes()
    game = read_game(replay)
    two = _header(PLAYERS, "roundrobin", 1)
    pairing = PairingRecord(0, ZERO, 1, T0, ((0, 1),), None)
    bob_won = 1 if game.winner == PLAYERS[1].fingerprint else 0
    first = 0 if game.first == PLAYERS[0].fingerprint else 1
    result = ResultRecord(
        0, ZERO, 1, 1, first, bob_won, game.reason, game.game_id, game.sha256, T0 + 600_000
    )
    good = [_auto(two), _auto(pairing), _auto(result)]
    four = _header(PLAYERS + MORE, "swiss", 3)
    swiss_pairing = PairingRecord(0, ZERO, 1, T0, ((0, 1), (2, 3)), None)
    three = _header([*PLAYERS, MORE[0]], "roundrobin", 3)
    rr3 = PairingRecord(0, ZERO, 1, T0, ((1, 2),), 0)

    def case(
        cid: str, comment: str, flags: list[str], envelopes: list[bytes], **extra: Any
    ) -> dict[str, Any]:
        return {"id": cid, "comment": comment, "flags": flags, "file": envelopes, **extra}

    bad_sig = _raw(good)
    bad_sig[1] = bad_sig[1][:-1] + bytes([bad_sig[1][-1] ^ 1])
    alice = PLAYERS[0]
    cases = [
        case(
            "event-2p-result",
            "a two-player round robin of one round: its pairing and the result read from "
            "replays/2p-none.sntr, which re-verifies it",
            ["valid", "replay"],
            _raw(good),
            replays="replays",
        ),
        case(
            "event-4p-swiss-round-1",
            "a Swiss event of four players: round 1 pairs neighbours in seed order, the "
            "higher seed first in an odd round",
            ["valid"],
            _raw([_auto(four), _auto(swiss_pairing)]),
        ),
        case(
            "event-3p-roundrobin-bye",
            "a round robin of three players: the circle method's first round, alice's bye",
            ["valid"],
            _raw([_auto(three), _auto(rr3)]),
        ),
        case(
            "bad-signature",
            "record 1's signature with one bit flipped",
            ["signature"],
            bad_sig,
            error="bad signature",
            record=1,
        ),
        case(
            "not-director",
            "record 1 signed by a player, not by the director who signed record 0",
            ["signature"],
            _raw(good, {1: alice}),
            error="not the director",
            record=1,
        ),
        case(
            "wrong-prev",
            "record 1's prev is zeros, not the chain hash of record 0",
            ["chain"],
            _raw([_auto(two), replace(pairing, seq=1, prev=ZERO)]),
            error="prev is not the chain hash",
            record=1,
        ),
        case(
            "seq-skipped",
            "record 1 says seq 2",
            ["chain"],
            _raw([_auto(two), replace(pairing, seq=2, prev=b"auto")]),
            error="seq 2, expected 1",
            record=1,
        ),
        case(
            "header-again",
            "a second event header as record 1",
            ["order"],
            _raw([_auto(two), _auto(two)]),
            error="only record 0, is the event header",
            record=1,
        ),
        case(
            "unknown-format",
            "a header whose format is neither swiss nor roundrobin",
            ["header"],
            _raw([_auto(replace(two, format="knockout"))]),
            error="format 'knockout'",
            record=0,
        ),
        case(
            "pairing-not-the-rules",
            "round 1 paired with bob first, where the round robin puts alice first",
            ["rules"],
            _raw([_auto(two), _auto(replace(pairing, games=((1, 0),)))]),
            error="not the one the event's rules give",
            record=1,
        ),
        case(
            "swiss-repeat-order",
            "a Swiss round 1 pairing seeds 1-3 and 2-4 in place of 1-2 and 3-4",
            ["rules"],
            _raw([_auto(four), _auto(replace(swiss_pairing, games=((0, 2), (1, 3))))]),
            error="not the one the event's rules give",
            record=1,
        ),
        case(
            "result-unpaired-board",
            "a result for round 1 board 2, which the pairing does not have",
            ["rules"],
            _raw([_auto(two), _auto(pairing), _auto(replace(result, board=2))]),
            error="which is not paired",
            record=2,
        ),
        case(
            "result-first-not-on-board",
            "a result whose first player is not one of the board's two",
            ["rules"],
            _raw([_auto(two), _auto(pairing), _auto(replace(result, first=5))]),
            error="the first player is not on it",
            record=2,
        ),
        case(
            "result-twice",
            "a second result for the same board",
            ["rules"],
            _raw([*good, _auto(replace(result, replay=bytes(32)))]),
            error="a second result",
            record=3,
        ),
        case(
            "pairing-before-results",
            "round 2 paired while round 1 has no result",
            ["rules"],
            _raw([_auto(replace(two, rounds=2)), _auto(pairing), _auto(replace(pairing, round=2))]),
            error="round 1 is not finished",
            record=2,
        ),
    ]
    out = []
    for i, c in enumerate(cases, 1):
        data = encode_event(c.pop("file"))
        c = {"tcId": i, **c, "data": data.hex()}
        c["result"] = "valid" if "valid" in c["flags"] else "invalid"
        _expect(c, data, folded=True)
        out.append(c)
    framing = encode_event(_raw(good))
    out.append(
        {
            "tcId": len(out) + 1,
            "id": "truncated",
            "comment": "the valid two-player event with its last 10 bytes cut off",
            "flags": ["framing"],
            "data": framing[:-10].hex(),
            "result": "invalid",
            "error": "truncated file",
            "record": 2,
        }
    )
    out.append(
        {
            "tcId": len(out) + 1,
            "id": "bad-magic",
            "comment": "a replay file's magic in place of SNTE",
            "flags": ["framing"],
            "data": (b"SNTR" + framing[4:]).hex(),
            "result": "invalid",
            "error": "no SNTE magic",
            "record": None,
        }
    )
    for c in out[-2:]:
        _expect(c, bytes.fromhex(c["data"]), folded=False)
    return {
        "schema": "event.schema.json",
        "version": 1,
        "notes": {
            "valid": "an event file a reader accepts",
            "replay": "a result whose replay is in protocol/vectors/ (the case's replays)",
            "signature": "the signature, or a signer other than the director",
            "chain": "the previous-record hash or the record number",
            "order": "a record where the file does not allow it",
            "header": "an event header a reader must refuse",
            "rules": "a pairing or result that the event's rules do not give",
            "framing": "the file's magic, lengths or end",
        },
        "keys": {
            "director": DIRECTOR.seed.hex(),
            "players": {p.name: p.seed.hex() for p in PLAYERS + MORE},
        },
        "tests": out,
    }


def main() -> int:
    """Write (or with --check, compare) protocol/vectors/event.json."""
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--check", action="store_true", help="compare instead of writing")
    args = parser.parse_args()
    text = json.dumps(build(), indent=2) + "\n"
    path = VECTORS / "event.json"
    if args.check:
        if path.read_text(encoding="utf-8") != text:
            print(f"{path} differs from what the package writes", file=sys.stderr)
            return 1
        print("event vectors: unchanged")
        return 0
    path.write_text(text, encoding="utf-8")
    print(f"wrote {path}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
