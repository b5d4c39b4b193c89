#!/usr/bin/env python3
"""Regenerate the vectors of secret gods in the log (protocol/SECRET.md 12, SPEC.md 7).

Writes protocol/vectors/secret-session.json and protocol/vectors/replays/2p-secret.sntr,
3p-secret.sntr, 3p-secret-leave.sntr, 3p-party.sntr and 4p-agora.sntr from the installed
package:

- ``records``: a body of each record type 11 to 15 and its canonical bytes;
- ``decode``: bodies a reader refuses at decoding, with the field named;
- ``games``: whole games with secret gods, played by seeded computer players through the
  log's validator (the deal, hidden play, openings, objections, the audit): the replay file,
  each seat's god, the records that open them, and the result; and a Party and an Agora game
  (the turns after which the cards passed; the winner alone); and a 3-player secret game in
  which one seat resigns and another runs out of time, withholding its opening at the end
  (SECRET.md 8.1: the last one left wins, audited). Fixed keys (seeds ``01`` x 32,
  ``02`` x 32, ...), game id, nonces and date: the same file every time.

``--check`` compares instead of writing.
"""

from __future__ import annotations

import argparse
import json
import random
import sys
from dataclasses import replace
from pathlib import Path
from typing import Any

from santorini_p2p.engine import Phase, Turn, legal_actions
from santorini_p2p.engine.party import AGORA_GODS, PARTY_POOL
from santorini_p2p.engine.secrecy import Play, objection_error, restricts_opponents
from santorini_p2p.errors import DecodeError
from santorini_p2p.wire.codec import encode
from santorini_p2p.wire.draw import commitment
from santorini_p2p.wire.envelope import seal
from santorini_p2p.wire.framing import encode_frames
from santorini_p2p.wire.identity import Identity
from santorini_p2p.wire.log import Validator, make_header
from santorini_p2p.wire.messages import (
    Commit,
    Forfeit,
    Object,
    Open,
    Resign,
    Reveal,
    Shuffle,
    Strip,
    Timeout,
    decode_body,
    encode_body,
)
from santorini_p2p.wire.secretgame import DEFAULT_POOL
from santorini_p2p.wire.secretplay import needs_power, seat_secret

PROTOCOL = Path(__file__).resolve().parent.parent
OUT = PROTOCOL / "vectors" / "secret-session.json"
REPLAYS = PROTOCOL / "vectors" / "replays"
PREV = bytes([7]) * 32
CARD = bytes([2]) * 255 + bytes([9])


def _hex(b: bytes) -> str:
    return b.hex()


def _records() -> list[dict[str, Any]]:
    cases = [
        ("shuffle", Shuffle(9, PREV, (CARD, CARD)), "a shuffle of a two-god deck"),
        ("strip", Strip(11, PREV, (CARD, CARD)), "a strip of a two-seat hand"),
        ("open", Open(13, PREV, "athena", bytes([0x80]) + bytes(31)), "an opening"),
        (
            "object",
            Object(20, PREV, 19, "hera", bytes([0xC0]) + bytes(31)),
            "an objection to act 19, in place of its ack",
        ),
        ("forfeit", Forfeit(40, PREV, 1, "no record in 120 s"), "seat 2 withheld a record"),
    ]
    out = []
    for name, msg, comment in cases:
        data = encode_body(msg)
        assert decode_body(data) == msg
        out.append({"id": name, "comment": comment, "type": msg.TYPE, "bytes": _hex(data)})
    return out


def _decode() -> list[dict[str, Any]]:
    cases = [
        ("shuffle-short-card", (11, 0, PREV, (bytes(255),)), "a card of 255 bytes"),
        ("shuffle-empty", (11, 0, PREV, ()), "no card"),
        ("strip-too-many", (12, 0, PREV, (CARD,) * 15), "15 cards"),
        ("open-short-key", (13, 0, PREV, "athena", bytes(31)), "a key of 31 bytes"),
        ("object-negative", (14, 0, PREV, -1, "hera", bytes(32)), "a negative act number"),
        ("forfeit-seat-4", (15, 0, PREV, 4, "late"), "seat 5"),
        # 16 and 17 are the ask and answer of SPEC.md 8.4.
        ("type-18", (18, 0, PREV), "no record type 18"),
    ]
    out = []
    for name, value, comment in cases:
        data = encode(value)
        try:
            decode_body(data)
        except DecodeError as e:
            out.append({"id": name, "comment": comment, "bytes": _hex(data), "error": str(e)})
            continue
        raise AssertionError(f"{name} decoded")
    return out


def play(
    players: int,
    seed: int,
    options: tuple[str, ...] = ("chat", "secret"),
    pool: tuple[str, ...] = DEFAULT_POOL,
    leaves: tuple[tuple[int, str], ...] = (),
) -> bytes:
    """A whole game of a mode between seeded computer players: its replay file.

    ``leaves``: ``(turns, kind)`` in order: once ``turns`` turns are played, the seat after the
    mover resigns (``resign``), or the next seat claims the mover's time (``time``); a seat out
    of time withholds its opening at the end and is forfeited (SECRET.md 8.1).
    """
    ids = [Identity.from_seed(bytes([i + 1]) * 32, f"p{i + 1}") for i in range(players)]
    game_id = bytes([seed]) * 16
    nonces = [bytes([seed, i]) * 16 for i in range(players)]
    h = make_header(
        game_id,
        [(i.public_key, i.name) for i in ids],
        gods="random",
        options=options,
        pool=pool,
        created_ms=1_700_000_000_000,
    )
    v = Validator()
    log = [seal(ids[0], h)]
    v.feed(log[0])

    def write(raw: bytes) -> None:
        v.feed(raw)
        log.append(raw)

    for i, me in enumerate(ids):
        c = commitment(game_id, me.public_key, nonces[i])
        write(seal(me, Commit(v.next_seq, v.last_hash, c)))
    for i, me in enumerate(ids):
        write(seal(me, Reveal(v.next_seq, v.last_hash, nonces[i])))
    rng = random.Random(seed)
    by_key = {i.public_key: i for i in ids}
    secrets = {i.public_key: seat_secret(i, game_id) for i in ids}
    script = list(leaves)
    gone: set[int] = set()
    while not v.is_complete:
        g = v.secret
        if v.is_over:
            me = by_key[v.expected_signers()[0]]
            write(v.make_result(me))
            continue
        if g is None:  # Party, Agora: every seat's part is plain
            if v.pending_acks:
                write(v.make_ack(by_key[v.seats[v.pending_acks[0]]]))
                continue
            p = v.position
            assert p is not None
            write(v.make_act(by_key[v.seats[p.to_move]], rng.choice(legal_actions(p)), 0))
            continue
        if v.pending_acks:
            me = by_key[v.seats[v.pending_acks[0]]]
            sec = secrets[me.public_key]
            seat = v.pending_acks[0]
            if not g.dealt:
                write(v.make_deal_step(me, sec.key, sec.order_seed))
                continue
            god = sec.god(g, seat)
            if g.pending is None:
                if seat in gone:  # out of time and gone: the first seat in the game forfeits it
                    out = g.left | g.position.eliminated
                    by = next(s for s in range(players) if not out >> s & 1)
                    write(v.make_forfeit(by_key[v.seats[by]], seat, "no record in 120 s"))
                    continue
                write(v.make_open(me, god, sec.key_bytes))
                continue
            if not g.gods[seat] and restricts_opponents(god) and g.start is not None:
                _, turn, known, _ = g.pending
                gods = list(g.gods)
                gods[seat] = god
                if objection_error(g.start, g.plays, tuple(gods), seat, Play(turn, known)) is None:
                    write(v.make_object(me, god, sec.key_bytes))
                    continue
            write(v.make_ack(me))
            continue
        p = v.position
        assert p is not None
        if script and v.turns >= script[0][0] and p.phase is Phase.PLAY:
            kind = script.pop(0)[1]
            out = g.left | p.eliminated
            after = next(
                (p.to_move + k) % players
                for k in range(1, players)
                if not out >> (p.to_move + k) % players & 1
            )
            if kind == "resign":
                write(v.make_resign(by_key[v.seats[after]]))
            else:
                gone.add(p.to_move)
                write(v.make_timeout(by_key[v.seats[after]]))
            continue
        me = by_key[v.seats[p.to_move]]
        sec = secrets[me.public_key]
        god = sec.god(g, p.to_move)
        view = replace(p, gods=tuple(god if s == p.to_move else x for s, x in enumerate(p.gods)))
        action = rng.choice(legal_actions(view))
        hidden = isinstance(action, Turn) and p.phase is Phase.PLAY
        if hidden and isinstance(action, Turn) and needs_power(g, p.to_move, god, action):
            write(v.make_open(me, god, sec.key_bytes))
        write(v.make_act(me, action, 0))
    return encode_frames(log)


GAMES = ((2, 3, "2p-secret.sntr"), (3, 4, "3p-secret.sntr"))
MODES = (
    (3, 5, "3p-party.sntr", ("party", "pass=2"), PARTY_POOL),
    (4, 5, "4p-agora.sntr", ("agora",), AGORA_GODS),
)


LEAVES = ((3, 4, "3p-secret-leave.sntr", ((1, "resign"), (3, "time"))),)


def _games() -> tuple[list[dict[str, Any]], dict[str, bytes]]:
    from santorini_p2p.replay.timeline import read_timeline
    from santorini_p2p.wire.log import read_log

    out, files = [], {}
    for players, seed, name in GAMES:
        data = play(players, seed)
        v = read_log(data)
        g = v.secret
        assert g is not None
        assert v.result is not None
        files[name] = data
        opened = {
            r.seat: r.index
            for r in reversed(v.records)
            if isinstance(r.message, Open | Object) and r.seat is not None
        }
        out.append(
            {
                "id": name.removesuffix(".sntr"),
                "file": f"replays/{name}",
                "players": players,
                "seed": seed,
                "records": v.next_seq,
                "gods": list(g.gods),
                "opened_at": [opened[s] for s in range(players)],
                "objections": sum(isinstance(r.message, Object) for r in v.records),
                "winner": v.result[0] + 1 if v.result[0] >= 0 else None,
                "reason": v.result[1],
            }
        )
    for players, seed, name, options, pool in MODES:
        data = play(players, seed, options, pool)
        v = read_log(data)
        assert v.result is not None
        assert v.position is not None
        files[name] = data
        t = read_timeline(data)
        out.append(
            {
                "id": name.removesuffix(".sntr"),
                "file": f"replays/{name}",
                "players": players,
                "seed": seed,
                "records": v.next_seq,
                "options": list(options),
                "gods": list(v.position.gods),
                "passes": [int(s.text.rsplit(" ", 1)[1]) for s in t.steps if s.kind == "pass"],
                "winner": v.result[0] + 1 if v.result[0] >= 0 else None,
                "reason": v.result[1],
                "result_text": t.result_text,
            }
        )
    for players, seed, name, leaves in LEAVES:
        data = play(players, seed, leaves=leaves)
        v = read_log(data)
        g = v.secret
        assert g is not None
        assert v.result is not None
        files[name] = data
        t = read_timeline(data)
        out.append(
            {
                "id": name.removesuffix(".sntr"),
                "file": f"replays/{name}",
                "players": players,
                "seed": seed,
                "records": v.next_seq,
                "gods": list(g.gods),
                "leaves": [
                    {
                        "record": r.index,
                        "kind": k,
                        "seat": (m.seat if isinstance(m, Timeout) else r.seat) + 1,
                    }
                    for r in v.records
                    for m in [r.message]
                    for k in [type(m).__name__.lower().replace("timeout", "time")]
                    if isinstance(m, Resign | Timeout)
                ],
                "withheld": [
                    r.message.late + 1 for r in v.records if isinstance(r.message, Forfeit)
                ],
                "winner": v.result[0] + 1 if v.result[0] >= 0 else None,
                "reason": v.result[1],
                "result_text": t.result_text,
            }
        )
    return out, files


def build() -> tuple[str, dict[str, bytes]]:
    """The JSON document and the replay files."""
    games, files = _games()
    doc = {
        "schema": "secret-session.schema.json",
        "version": 1,
        "records": _records(),
        "decode": _decode(),
        "games": games,
    }
    return json.dumps(doc, indent=2) + "\n", files


def main() -> int:
    """Write (or with ``--check`` compare) the vectors; return the exit status."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--check", action="store_true", help="compare instead of writing")
    args = parser.parse_args()
    text, files = build()
    if args.check:
        same = OUT.read_text("utf-8") == text and all(
            (REPLAYS / n).read_bytes() == d for n, d in files.items()
        )
        print("vectors match" if same else "vectors differ", file=sys.stderr)
        return 0 if same else 1
    OUT.write_text(text, "utf-8")
    for n, d in files.items():
        (REPLAYS / n).write_bytes(d)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
