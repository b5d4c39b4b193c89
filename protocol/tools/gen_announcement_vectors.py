#!/usr/bin/env python3
"""Regenerate the LAN announcement vectors (protocol/SPEC.md 10).

Writes protocol/vectors/announcement.json: DNS-SD TXT properties as a host announces them,
with the offer a browser reads from them, or the verdict that it ignores them. The tests only
read the file; ``--check`` compares instead of writing.
"""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path
from typing import Any

from santorini_p2p.net.discovery import Offer, board_round, fit_board

VECTORS = Path(__file__).resolve().parent.parent / "vectors"
NAME = "alice 0a1b2c3d"
ADDRESS, PORT = "192.168.1.20", 40517


def _plain() -> dict[str, str]:
    return {
        "v": "4",
        "host": "alice",
        "fp": "0a1b-2c3d-4e5f-6071",
        "players": "2",
        "gods": "draft",
        "time": "60+300",
        "pool": "simple",
        "watch": "4",
        "state": "open",
    }


def _fields(o: Offer) -> dict[str, Any]:
    return {
        "host": o.host_name,
        "fingerprint": o.fingerprint,
        "players": o.players,
        "gods": o.gods,
        "time": o.time,
        "version": o.version,
        "pool": o.pool,
        "spectators": o.spectators,
        "playing": o.playing,
        "spectator_chat": o.spectator_chat,
        "board": o.board,
    }


def _case(
    tc: int, ident: str, comment: str, flags: list[str], props: dict[str, str]
) -> dict[str, Any]:
    offer = Offer.from_properties(
        NAME, ADDRESS, PORT, {k.encode(): v.encode() for k, v in props.items()}
    )
    case: dict[str, Any] = {
        "tcId": tc,
        "id": ident,
        "comment": comment,
        "flags": flags,
        "name": NAME,
        "properties": props,
        "result": "valid" if offer is not None else "ignored",
    }
    if offer is not None:
        case["offer"] = _fields(offer)
        if offer.board:
            case["found_by"] = [offer.board, board_round(offer.board)]
    return case


def build() -> dict[str, Any]:
    """The whole vector file."""
    board = {**_plain(), "board": "Friday club: round 2 board 3: alice-bob"}
    tests = [
        _case(1, "offer", "an ordinary offer: no board property", ["valid"], _plain()),
        _case(
            2,
            "tournament-board",
            "a club tournament's board (host --tournament): `board` names the event, round, "
            "board and pairing; join --tournament finds it by that name and the host's key",
            ["valid", "board"],
            board,
        ),
        _case(
            3,
            "board-in-play",
            "the same board once play has begun (a host that takes spectators): still named",
            ["valid", "board"],
            {**board, "state": "playing"},
        ),
        _case(
            4,
            "board-control-character",
            "a board name that is not a printable line: the whole announcement is ignored",
            ["ignored", "board"],
            {**board, "board": "round 1 board 1: a\x1b[2J-b"},
        ),
        _case(
            5,
            "board-cut",
            "a board name longer than a TXT string holds, announced cut to 249 bytes of UTF-8 "
            "at a character's edge; the joiner cuts the name it looks for alike",
            ["valid", "board"],
            {**board, "board": fit_board("Ωmega club " * 20 + ": round 1 board 1: ann-ben")},
        ),
    ]
    return {
        "schema": "announcement.schema.json",
        "version": 4,
        "notes": {
            "valid": "an announcement a browser lists, as the offer it reads",
            "ignored": "an announcement a browser lists for no one",
            "board": "a club tournament's board name (the `board` property)",
        },
        "tests": tests,
    }


def main() -> int:
    """Write the vectors (or, with ``--check``, compare them with the file)."""
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--check", action="store_true", help="compare instead of writing")
    args = parser.parse_args()
    text = json.dumps(build(), indent=2, ensure_ascii=True) + "\n"
    path = VECTORS / "announcement.json"
    if args.check:
        if path.read_text(encoding="utf-8") != text:
            print(f"{path} differs from what the program writes", file=sys.stderr)
            return 1
        return 0
    path.write_text(text, encoding="utf-8")
    return 0


if __name__ == "__main__":
    sys.exit(main())
