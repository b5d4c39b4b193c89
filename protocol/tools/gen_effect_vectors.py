#!/usr/bin/env python3
"""Regenerate the effect vectors (protocol/SPEC.md 14.2 and 14.5): what a turn did, in words.

Writes protocol/vectors/effects.json: positions before a turn, the turn, and the comment lines
a text export writer MUST write after it (in a game of an advanced god), with the JSON
export's ``effects`` entries. The cases are the first turn of each kind found in seeded random
games of the gods named, plus turns with no effect. The tests only read the file; ``--check``
compares instead of writing.
"""

from __future__ import annotations

import argparse
import json
import random
import sys
from pathlib import Path
from typing import Any

from santorini_p2p.engine import (
    EffectKind,
    Phase,
    Position,
    Turn,
    apply_action,
    format_position,
    legal_actions,
    new_game,
    turn_effects,
)
from santorini_p2p.engine.gods.maenads import sandwiched
from santorini_p2p.replay.export_json import effect_entry

VECTORS = Path(__file__).resolve().parent.parent / "vectors"

# (id, comment, players, gods dealt in seat order, what the turn must show)
WANTED: list[tuple[str, str, int, tuple[str, ...], str]] = [
    ("apollo-swap", "Apollo swaps with the worker it moves onto", 2, ("apollo", "pan"), "forced"),
    ("minotaur-push", "Minotaur pushes a worker straight back", 2, ("minotaur", "pan"), "forced"),
    (
        "charon-ferry",
        "Charon ferries a worker across itself before moving",
        2,
        ("charon", "pan"),
        "forced",
    ),
    (
        "bia-removal",
        "Bia removes the worker beyond the one it moved past",
        2,
        ("bia", "pan"),
        "removed",
    ),
    (
        "medusa-removal",
        "Medusa's workers remove lower neighbours at the end of the turn",
        2,
        ("medusa", "pan"),
        "removed",
    ),
    ("medusa-two", "Medusa removes two workers in one turn", 2, ("medusa", "pan"), "removed*2"),
    (
        "ares-unbuild",
        "Ares removes a block next to its unmoved worker",
        2,
        ("ares", "pan"),
        "unbuilt",
    ),
    (
        "out-3p",
        "a turn that leaves a side of 3 players with no move puts it out",
        3,
        ("pan", "atlas", "demeter"),
        "out",
    ),
    (
        "team-4p",
        "with 4 players the letter is the team's",
        4,
        ("minotaur", "pan", "atlas", "demeter"),
        "forced",
    ),
    (
        "triton-none",
        "Triton's long walk moves no other worker: no comment",
        2,
        ("triton", "pan"),
        "long",
    ),
    ("plain-none", "a turn of the plain rules: no comment", 2, ("zeus", "pan"), "none"),
    (
        "maenads-out-3p",
        "with 3 players Maenads puts out the player whose worker is between two of hers",
        3,
        ("maenads", "pan", "atlas"),
        "sandwich",
    ),
    (
        "harpies-slid",
        "against Harpies the mover's worker slides on after its step; the line names the step",
        2,
        ("apollo", "harpies"),
        "slid",
    ),
    (
        "hydra-gained",
        "Hydra gains a worker at the end of her turn",
        2,
        ("hydra", "apollo"),
        "gained",
    ),
    (
        "gaea-joined",
        "Gaea's worker joins next to the dome another side built",
        2,
        ("apollo", "gaea"),
        "joined",
    ),
]


def _matches(want: str, p: Position, turn: Turn, kinds: list[EffectKind]) -> bool:
    if want == "none":
        return not kinds
    if want == "long":
        return not kinds and len(turn.path) > 2
    if want == "removed*2":
        return kinds.count(EffectKind.REMOVED) >= 2
    if want == "sandwich":
        if EffectKind.OUT not in kinds or p.gods[p.to_move] != "maenads":
            return False
        after = apply_action(p, turn)
        me = p.to_move
        return any(
            after.eliminated >> s & 1 and sandwiched(after.workers[me], p.workers[s])
            for s in range(3)
            if s != me
        )
    return EffectKind(want) in kinds and p.to_move in (0, 1, 2, 3)


def _find(players: int, gods: tuple[str, ...], want: str) -> tuple[Position, Turn]:
    for seed in range(2000):
        rng = random.Random(seed)
        p = new_game(players, "random", drawn=gods)
        for _ in range(200):
            if p.phase is Phase.OVER:
                break
            action = rng.choice(legal_actions(p))
            if isinstance(action, Turn) and p.phase is Phase.PLAY:
                kinds = [e.kind for e in turn_effects(p, action)]
                if _matches(want, p, action, kinds):
                    return p, action
            p = apply_action(p, action)
    raise SystemExit(f"no turn found for {gods} {want}")


def build() -> str:
    """Return the text of protocol/vectors/effects.json."""
    tests: list[dict[str, Any]] = []
    for ident, comment, players, gods, want in WANTED:
        p, turn = _find(players, gods, want)
        entries = [effect_entry(p, e) for e in turn_effects(p, turn)]
        tests.append(
            {
                "tcId": len(tests) + 1,
                "id": ident,
                "comment": comment,
                "position": format_position(p),
                "turn": str(turn),
                "comments": [f"; {e['text']}" for e in entries],
                "effects": entries,
            }
        )
    doc = {
        "schema": "effects.schema.json",
        "version": 1,
        "notes": {
            "comments": "the comment lines a text export writer MUST write after this turn in a "
            "game where an advanced god plays (SPEC.md 14.2), in order; none in a game of the "
            "simple gods",
            "effects": "the act record's effects list in the JSON export (SPEC.md 14.5); the "
            "key is absent when the list is empty",
        },
        "tests": tests,
    }
    return json.dumps(doc, indent=1, ensure_ascii=False) + "\n"


def main() -> int:
    """Write (or with --check, compare) protocol/vectors/effects.json."""
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--check", action="store_true", help="compare instead of writing")
    args = parser.parse_args()
    path = VECTORS / "effects.json"
    text = build()
    if args.check:
        if not path.exists() or path.read_text(encoding="utf-8") != text:
            print(f"stale: {path}", file=sys.stderr)
            return 1
        return 0
    path.write_text(text, encoding="utf-8")
    print(f"wrote {path}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
