#!/usr/bin/env python3
"""Regenerate the engine's vectors: perft counts, state hashes, notation cases, playthroughs.

Writes protocol/vectors/perft.txt, state-hash.json, notation.json and playthroughs/*.txt from
the installed package. The tests only read these files; a regenerated file is reviewed like
code (a changed count or hash is a change to the rules or the format).
"""

from __future__ import annotations

import argparse
import json
import random
from pathlib import Path

from santorini_p2p.engine import (
    OPENING,
    Phase,
    apply_action,
    format_action,
    format_position,
    legal_actions,
    new_game,
    parse_position,
    parse_turn,
    perft,
    state_bytes,
    state_hash,
)
from santorini_p2p.engine.position import Position, Turn
from santorini_p2p.errors import NotationError

VECTORS = Path(__file__).resolve().parent.parent / "vectors"

# (id, position, deepest depth to record); counts come from the engine, except the opening's,
# which RULES.md section 7 gives and the test suite checks independently.


def _walk(start: str, plies: int, seed: int) -> str:
    """A position reached by ``plies`` seeded random turns from ``start`` (for vectors)."""
    rng = random.Random(seed)
    p = parse_position(start)
    for _ in range(plies):
        actions = legal_actions(p)
        nxt = [a for a in actions if isinstance(a, Turn) and not a.is_win]
        if not nxt:
            break
        candidate = apply_action(p, rng.choice(nxt))
        if candidate.phase is not Phase.PLAY:
            break
        p = candidate
    return format_position(p)


_GODS_START = "00000/00B00A0/00000/00A00B0/00000 1 {} -"

# (id, position, deepest depth to record); counts come from the engine, except the opening's,
# which RULES.md section 7 gives and the test suite checks independently.
PERFT_POSITIONS = [
    ("opening", OPENING, 4),
    ("base-midgame", _walk(OPENING, 12, 1), 3),
    ("base-late", _walk(OPENING, 30, 2), 3),
    ("apollo-minotaur", _walk(_GODS_START.format("apollo,minotaur"), 10, 3), 3),
    ("artemis-athena", _walk(_GODS_START.format("artemis,athena"), 10, 4), 2),
    ("athena-pan", _walk(_GODS_START.format("athena,pan"), 15, 5), 3),
    ("atlas-demeter", _walk(_GODS_START.format("atlas,demeter"), 10, 6), 2),
    ("hephaestus-prometheus", _walk(_GODS_START.format("hephaestus,prometheus"), 10, 7), 2),
    ("hermes-pan", _walk(_GODS_START.format("hermes,pan"), 10, 8), 2),
    ("three-players", _walk("0C0000C/00B00A0/00000/00A00B0/00000 1 -,-,- -", 9, 9), 3),
    ("four-players", _walk(_GODS_START.format("apollo,artemis,atlas,demeter"), 8, 10), 2),
    # The advanced gods of RULES.md section 8 (appended: the entries above never change).
    ("aphrodite-charon", _walk(_GODS_START.format("aphrodite,charon"), 10, 21), 2),
    ("ares-hestia", _walk(_GODS_START.format("ares,hestia"), 10, 22), 2),
    ("bia-chronus", _walk("0A0000A/00000/00000B/00000/00000B 1 bia,chronus -", 8, 23), 2),
    ("eros-hera", _walk("00000/0B000B0/00000/00000/0A000A0 1 eros,hera -", 8, 24), 2),
    ("hypnus-limus", _walk(_GODS_START.format("hypnus,limus"), 10, 25), 2),
    ("medusa-persephone", _walk(_GODS_START.format("medusa,persephone"), 10, 26), 2),
    ("poseidon-zeus", _walk(_GODS_START.format("poseidon,zeus"), 6, 27), 2),
    ("triton-apollo", _walk(_GODS_START.format("triton,apollo"), 10, 28), 2),
    # The gods of RULES.md section 9 (appended: the entries above never change).
    ("harpies-castor", _walk(_GODS_START.format("harpies,castor"), 8, 41), 2),
    ("hades-iris", _walk(_GODS_START.format("hades,iris"), 8, 42), 2),
    ("urania-scylla", _walk(_GODS_START.format("urania,scylla"), 8, 43), 2),
    ("asteria-terpsichore", _walk(_GODS_START.format("asteria,terpsichore"), 6, 44), 2),
    ("graeae-hydra", _walk("0A0000A/00000/00A000/00000/0B0000B 1 graeae,hydra -", 8, 45), 2),
    ("proteus-maenads", _walk("0A0000A/00000/00A000/00000/0B0000B 1 proteus,maenads -", 8, 46), 2),
    ("nemesis-pegasus", _walk(_GODS_START.format("nemesis,pegasus"), 8, 47), 2),
    # The gods with memory and heroes of RULES.md section 10 (appended likewise).
    ("nike-morpheus", _walk(_GODS_START.format("nike,morpheus"), 10, 31), 2),
    ("aeolus-eris", _walk(_GODS_START.format("aeolus,eris"), 10, 32), 2),
    ("siren-hippolyta", _walk(_GODS_START.format("siren[w],hippolyta[d2]"), 10, 33), 2),
    ("gaea-chronus", _walk(_GODS_START.format("gaea,chronus"), 12, 34), 2),
    ("jason-adonis", _walk(_GODS_START.format("jason,adonis"), 10, 35), 2),
    ("atalanta-odysseus", _walk(_GODS_START.format("atalanta,odysseus"), 10, 36), 2),
    ("medea-theseus", _walk(_GODS_START.format("medea,theseus"), 10, 37), 2),
]

STATE_POSITIONS = [
    ("opening", OPENING),
    ("gods-athena-flag", "00000/00B10A0/01200/00A00B0/00100 2 athena,pan a"),
    ("athena-to-move-flag-ignored", "00000/00B10A0/01200/00A00B0/00100 1 athena,pan a"),
    ("athena-to-move-no-flag", "00000/00B10A0/01200/00A00B0/00100 1 athena,pan -"),
    ("domes-and-levels", _walk(OPENING, 40, 11)),
    ("three-players-eliminated", "00000/000C00/00000/000A00/0C00A00 1 -,-,- x2"),
    ("four-players", "00000/00B00A0/00000/00A00B0/00000 3 apollo,artemis,atlas,demeter -"),
    ("challenger-offer", "00000/00000/00000/00000/00000 2 ?,? c[apollo.pan]"),
    ("draft", "00000/00000/00000/00000/00000 1 ?,?,? d[apollo.atlas.hermes.minotaur.pan]"),
    ("naming", "00000/00000/00000/00000/00000 1 pan,apollo n"),
    ("snake-placement", "00000/00000/000A00/00000/00000 2 -,- s"),
    ("won", "00000/00000B/002A00/003A00/00B000 2 -,- w1"),
]

ADVANCED_POSITIONS = [
    ("advanced-god-ids", "00000/00B00A0/00000/00A00B0/00000 1 aphrodite,zeus -"),
    ("low-domes-keep-their-level", "0X1X2X3X0/00B00A0/00000/00A00B0/00000 2 chronus,atlas -"),
    ("a-worker-removed", "00000/00B000/01000/00A00A0/00000 2 bia,pan -"),
    ("four-advanced-gods", "00000/00B00A0/00000/00A00B0/00000 4 ares,hera,zeus,triton -"),
]
"""Position strings with the advanced gods (RULES.md section 8), after every older vector."""

POOL_POSITIONS = [
    ("offer-from-a-pool", "00000/00000/00000/00000/00000 1 ?,? c[]o[chronus.medusa.zeus]"),
    (
        "offer-from-advanced-3p",
        "00000/00000/00000/00000/00000 1 ?,?,? "
        "c[]o[aphrodite.ares.bia.charon.chronus.eros.hera.hestia.limus.medusa.persephone"
        ".poseidon.triton.zeus]s",
    ),
    ("offered-from-a-pool", "00000/00000/00000/00000/00000 2 ?,? c[chronus.zeus]"),
]
"""The challenger offering from a god pool other than the simple ten (flag ``o``), appended."""

GROUP1_POSITIONS = [
    ("group1-god-ids", "00000/00B00A0/00000/00A00B0/00000 1 hades,hydra -"),
    ("three-workers", "0A0000A/00000/00A000/00000/0B00B00B 1 graeae,proteus -"),
    ("four-hydra-workers", "0A0000A/00000/0A0A000/00000/0B0000B 2 hydra,castor -"),
    ("graeae-placing-third", "00000/00000/00000/00000/0A000A0 1 graeae,apollo -"),
]
"""Position strings with the gods of RULES.md section 9 and their worker counts, appended."""

INVALID_GROUP1_POSITIONS = [
    ("graeae-four-workers", "0A0000A/00000/0A0A000/00000/0B0000B 1 graeae,apollo -"),
    ("proteus-opponent-three", "0A0000A/00000/00B000/00000/0B0000B 1 proteus,apollo -"),
]
"""More workers than a side's god allows (SPEC.md 1.4), appended."""

GROUP1_TURNS = [
    ("iris-jump", "B2>D4^E5", "b2>d4^e5"),
    ("urania-wrap", "a1>e5^d4", "a1>e5^d4"),
    ("asteria-dome", "b2>c1^d1*e5", "b2>c1^d1*e5"),
    ("scylla-drag", "b2>c3~a1^d4", "b2>c3~a1^d4"),
    ("castor-move-all", "mB2>c3,D4>e4", "Mb2>c3,d4>e4"),
    ("castor-move-all-one", "Mb2>c3", "Mb2>c3"),
    ("castor-build-all", "bb3,d5", "Bb3,d5"),
    ("castor-build-all-twice", "Bc3,c3", "Bc3,c3"),
    ("nemesis-exchange", "b2>c3^d4=e1,a5", "b2>c3^d4=a5,e1"),
    ("terpsichore", "Tb2>c3,d4>e4^c4^e5", "Tb2>c3,d4>e4^c4^e5"),
    ("proteus-force", "b2>c3<A1^d4", "b2>c3<a1^d4"),
    ("hydra-gain", "b2>c3^d4+c2", "b2>c3^d4+c2"),
    ("hydra-remove", "b2>c3^d4!e1", "b2>c3^d4!e1"),
]
"""Turn texts of RULES.md section 9 (syntax only) and their canonical forms, appended."""

INVALID_GROUP1_TURNS = [
    ("exchange-one-square", "b2>c3^d4=a5"),
    ("exchange-same-square", "b2>c3^d4=a5,a5"),
    ("move-all-same-worker", "Mb2>c3,b2>c4"),
    ("build-all-three", "Bb3,c3,d3"),
    ("two-domes", "b2>c1^d1*e5*a5"),
]
"""Section 9 turn texts a reader rejects, appended."""

INVALID_POOL_POSITIONS = [
    (
        "offer-pool-without-challenger",
        "00000/00000/00000/00000/00000 1 ?,? d[apollo.pan]o[zeus.ares]",
    ),
    ("offer-pool-after-the-offer", "00000/00000/00000/00000/00000 2 ?,? c[apollo.pan]o[zeus.ares]"),
    ("offer-pool-too-small", "00000/00000/00000/00000/00000 1 ?,?,? c[]o[zeus.ares]"),
    ("offer-pool-hypnus-3p", "00000/00000/00000/00000/00000 1 ?,?,? c[]o[ares.hypnus.zeus]"),
    ("offer-pool-unknown-god", "00000/00000/00000/00000/00000 1 ?,? c[]o[odin.zeus]"),
    (
        "offer-pool-the-simple-ten",
        "00000/00000/00000/00000/00000 1 ?,? "
        "c[]o[apollo.artemis.athena.atlas.demeter.hephaestus.hermes.minotaur.pan.prometheus]",
    ),
]
"""Offer pools a reader rejects (SPEC.md 1.4, flag ``o``), appended after every older case."""

TURNS = [
    ("charon-ferry", "B2~C3>C3^D4", "b2~c3>c3^d4"),
    ("ares-removal", "b2>c3^d4-a1", "b2>c3^d4-a1"),
    ("triton-steps", "a2>a1>b1>c2^d3", "a2>a1>b1>c2^d3"),
    ("zeus-under-itself", "b2>c3^c3", "b2>c3^c3"),
    ("hestia-two-builds", "b2>c3^d3^d4", "b2>c3^d3^d4"),
    ("poseidon-extra-builds", "b2>c3^d4^b4^a5^a5", "b2>c3^d4^b4^a5^a5"),
    ("build-first-ends-the-game", "b2^c2", "b2^c2"),
    ("atlas-low-dome", "b2>c3^d4d", "b2>c3^d4D"),
    ("hermes-squares-in-any-order", "hc2,a1^b2", "Ha1,c2^b2"),
]
"""Turn texts of RULES.md sections 7 and 8 and their canonical form."""

MEMORY_POSITIONS = [
    ("morpheus-coins", "0B0000A/00000/000B00/00000/0A3X000 1 morpheus[2],apollo -"),
    ("wind-and-female", "0B0000B/00000/000A00/00000/0A0000 1 aeolus[ne],hippolyta[a5] -"),
    ("adonis-pair-pending", "0B0000B/00000/000A00/00000/0A0000 1 apollo,adonis[e5.c3] -"),
    ("nike-flag", "0B0000A/00000/00000/01B100/0A0000 1 apollo,nike k"),
    ("song-and-mark", "0B0000B/00000/000A00/00000/0A0000 1 siren[n],eris[c3] -"),
    ("gaea-card-and-hero-used", "0B0000B/00000/000A00/00000/0A0000 1 gaea[0],theseus[x] -"),
    ("female-gone", "0B0000B/00000/000A00/00000/0A0000 1 selene[-],jason -"),
    ("jason-third-worker", "0B0000B/00000/000A00/00000/0A0A000 1 jason[x],eris -"),
    ("siren-owes-her-song", "00000/00000/000A00/00000/0A0000 1 siren,apollo -"),
]
"""Positions with the gods of RULES.md section 10 and their states (SPEC.md 1.3.1)."""

INVALID_MEMORY_POSITIONS = [
    ("state-on-a-god-without-one", "0B0000B/00000/000A00/00000/0A0000 1 apollo[x],eris -"),
    ("coins-written-zero", "0B0000B/00000/000A00/00000/0A0000 1 morpheus[0],eris -"),
    ("coins-leading-zero", "0B0000B/00000/000A00/00000/0A0000 1 morpheus[02],eris -"),
    ("empty-bracket", "0B0000B/00000/000A00/00000/0A0000 1 morpheus[],eris -"),
    ("gaea-setup-value-written", "0B0000B/00000/000A00/00000/0A0000 1 gaea[2],eris -"),
    ("wind-not-a-direction", "0B0000B/00000/000A00/00000/0A0000 1 aeolus[up],eris -"),
    ("hero-state-not-x", "0B0000B/00000/000A00/00000/0A0000 1 achilles[y],eris -"),
    ("female-on-another-sides-worker", "0B0000B/00000/000A00/00000/0A0000 1 selene[b2],eris -"),
    ("mark-on-own-worker", "0B0000B/00000/000A00/00000/0A0000 1 apollo,eris[a5] -"),
    ("female-not-written", "0B0000B/00000/000A00/00000/0A0000 1 selene,eris -"),
    ("nike-flag-without-nike", "0B0000B/00000/000A00/00000/0A0000 1 apollo,eris k"),
    ("three-workers-of-unused-jason", "0B0000B/00000/000A00/00000/0A0A000 1 jason,eris -"),
]
"""Position strings a reader must reject for their section 10 states (SPEC.md 1.3.1)."""

MEMORY_TURNS = [
    ("morpheus-builds", "B2>C3^D4^D4^E4", "b2>c3^d4^d4^e4"),
    ("selene-low-dome", "b2>c3^e4d", "b2>c3^e4D"),
    ("aeolus-sets-the-wind", "b2>c3^d4@NE", "b2>c3^d4@ne"),
    ("aeolus-takes-it-back", "b2>c3^d4@-", "b2>c3^d4@-"),
    ("siren-song", "sd4,d3^b2", "Sd4,d3^b2"),
    ("gaea-worker-after-the-dome", "b2>c3^d4+c5", "b2>c3^d4+c5"),
    ("achilles-build-move-build", "b2^c2>b3^c2", "b2^c2>b3^c2"),
    ("adonis-names-a-pair", "b2>c3^d4&c3.e5", "b2>c3^d4&c3.e5"),
    ("atalanta-steps", "b2>c3>d4>e5^d5", "b2>c3>d4>e5^d5"),
    ("heracles-domes", "b2>c3^a1x^b4x", "b2>c3^a1X^b4X"),
    ("jason-places", "ja1>b2^c3", "Ja1>b2^c3"),
    ("medea-drops", "b2>c3^d4%c4", "b2>c3^d4%c4"),
    ("odysseus-corners", "oc4a5,d4e1:b2>c3^d4", "Oc4a5,d4e1:b2>c3^d4"),
    ("polyphemus-domes", "b2>c3^d4#a1#e5", "b2>c3^d4#a1#e5"),
    ("theseus-removes", "b2>c3^d4xe4", "b2>c3^d4xe4"),
]
"""The turn texts of RULES.md 10.3 and their canonical forms."""

BOTH_TURNS = [
    ("gaea-then-hydra", "B2>C3^D4+C5+C2", "b2>c3^d4+c5+c2"),
    ("gaea-after-asteria-dome", "b2>a2^a3*a3+a4", "b2>a2^a3*a3+a4"),
    ("gaea-after-a-dome-then-asteria", "b2>c3^d4+c5*e5+e4", "b2>c3^d4+c5*e5+e4"),
    ("gaea-after-polyphemus-dome", "b2>c3^d4#a1+b1#e5", "b2>c3^d4#a1+b1#e5"),
    ("gaea-after-castor-build-all", "bb3+c2,d5", "Bb3+c2,d5"),
    ("gaea-after-terpsichore-build", "tb2>c3,d4>e4^c4+b3^e5", "Tb2>c3,d4>e4^c4+b3^e5"),
    ("gaea-after-siren-build", "sd4,d3^b2+c1", "Sd4,d3^b2+c1"),
    ("gaea-after-hermes-build", "ha1,c2^b2+b1", "Ha1,c2^b2+b1"),
]
"""Turn texts with the marks of sections 9 and 10 together (SPEC.md 2.1.2)."""

INVALID_MEMORY_TURNS = [
    ("song-without-a-build", "Sd4,d3"),
    ("corners-without-the-turn", "Oc4a5"),
    ("wind-not-a-direction", "b2>c3^d4@up"),
    ("pair-without-a-dot", "b2>c3^d4&c3e5"),
]
"""Turn texts of section 10's grammar that a reader must reject."""

INVALID_TURNS = [
    ("ferry-without-a-move", "b2~c3^d4"),
    ("removal-before-a-build", "b2>c3-a1"),
    ("too-many-builds", "b2>c3" + "^d4" * 41),
    ("dome-mark-on-a-second-build", "b2>c3^d4^e4D"),
    ("removal-then-more", "b2>c3^d4-a1^b1"),
]

INVALID_POSITIONS = [
    ("short-rank", "00000/00B00A0/00000/00A00B0/0000 1 -,- -"),
    ("seat-out-of-range", "00000/00B00A0/00000/00A00B0/00000 5 -,- -"),
    ("unknown-god", "00000/00B00A0/00000/00A00B0/00000 1 odin,- -"),
    ("unknown-flag", "00000/00B00A0/00000/00A00B0/00000 1 -,- q"),
    ("athena-flag-without-athena", "00000/00B00A0/00000/00A00B0/00000 1 -,- a"),
    ("letter-c-with-two-players", "00000/00B00A0/00000/00A00C0/00000 1 -,- -"),
    ("three-workers", "0A0000/00B00A0/00000/00A00B0/00000 1 -,- -"),
    ("worker-on-dome", "0XA0000/00B00A0/00000/00A00B0/00000 1 -,- -"),
    ("duplicate-god", "00000/00B00A0/00000/00A00B0/00000 1 pan,pan -"),
    ("eliminated-to-move", "00000/000C00/00000/000A00/0C00A00 2 -,-,- x2"),
    ("elimination-with-two-players", "00000/00B00A0/00000/00A00B0/00000 1 -,- x2"),
    ("placement-wrong-seat", "00000/00000/000A00/00000/00000 2 -,- -"),
    ("workers-before-gods", "00000/00B00A0/00000/00A00B0/00000 1 ?,? c[]"),
    ("five-fields", "00000/00B00A0/00000/00A00B0/00000 1 -,- - -"),
]

PLAYTHROUGHS = [
    ("base-2p", 2, "none", (), 11),
    ("gods-2p-draft", 2, "draft", ("apollo", "artemis", "hermes", "prometheus"), 12),
    ("gods-2p-random", 2, "random", ("minotaur", "athena"), 13),
    ("gods-3p-random", 3, "random", ("demeter", "pan", "atlas"), 14),
    ("gods-4p-random", 4, "random", ("hephaestus", "athena", "hermes", "apollo"), 15),
    ("advanced-2p-random", 2, "random", ("medusa", "charon"), 16),
    ("advanced-2p-bia", 2, "random", ("hera", "bia"), 17),
]

POOL_PLAYTHROUGHS = [
    ("pool-2p-challenger", 2, ("chronus", "hera", "hypnus", "medusa"), 18),
]
"""Challenger games offering from a god pool: (id, players, the pool, seed)."""


def write_perft() -> None:
    """Write perft.txt in python-chess's id/epd/perft line format."""
    lines = ["# perft counts; 'perft D N': N complete-turn sequences of length D", ""]
    for ident, pos, depth in PERFT_POSITIONS:
        p = parse_position(pos)
        lines += [f"id {ident}", f"epd {pos}"]
        for d in range(1, depth + 1):
            lines.append(f"perft {d} {perft(p, d)}")
        lines.append("")
    (VECTORS / "perft.txt").write_text("\n".join(lines))


def write_state_hash() -> None:
    """Write state-hash.json: positions with their state bytes and hashes."""
    cases = []
    for i, (ident, pos) in enumerate(STATE_POSITIONS, 1):
        p = parse_position(pos)
        cases.append(
            {
                "tcId": i,
                "id": ident,
                "comment": f"state bytes and hash of {ident}",
                "flags": [],
                "position": pos,
                "state_bytes": state_bytes(p).hex(),
                "state_hash": state_hash(p).hex(),
                "result": "valid",
            }
        )
    for i, (ident, pos) in enumerate(ADVANCED_POSITIONS, len(cases) + 1):
        p = parse_position(pos)
        cases.append(
            {
                "tcId": i,
                "id": ident,
                "comment": f"state bytes and hash of {ident} (advanced god ids 11-25)",
                "flags": ["advanced"],
                "position": pos,
                "state_bytes": state_bytes(p).hex(),
                "state_hash": state_hash(p).hex(),
                "result": "valid",
            }
        )
    for i, (ident, pos) in enumerate(POOL_POSITIONS, len(cases) + 1):
        p = parse_position(pos)
        cases.append(
            {
                "tcId": i,
                "id": ident,
                "comment": f"state bytes and hash of {ident} (the offer set: flags bit 3)",
                "flags": ["pool"],
                "position": pos,
                "state_bytes": state_bytes(p).hex(),
                "state_hash": state_hash(p).hex(),
                "result": "valid",
            }
        )
    for i, (ident, pos) in enumerate(GROUP1_POSITIONS, len(cases) + 1):
        p = parse_position(pos)
        cases.append(
            {
                "tcId": i,
                "id": ident,
                "comment": f"state bytes and hash of {ident} (section 9 gods, ids 26-39)",
                "flags": ["group1"],
                "position": pos,
                "state_bytes": state_bytes(p).hex(),
                "state_hash": state_hash(p).hex(),
                "result": "valid",
            }
        )
    for i, (ident, pos) in enumerate(MEMORY_POSITIONS, len(cases) + 1):
        p = parse_position(pos)
        cases.append(
            {
                "tcId": i,
                "id": ident,
                "comment": f"state bytes and hash of {ident} (the power states after the squares)",
                "flags": ["memory"],
                "position": pos,
                "state_bytes": state_bytes(p).hex(),
                "state_hash": state_hash(p).hex(),
                "result": "valid",
            }
        )
    doc = {"schema": "state-hash.schema.json", "version": 1, "tests": cases}
    (VECTORS / "state-hash.json").write_text(json.dumps(doc, indent=2) + "\n")


def write_notation() -> None:
    """Write notation.json: valid position strings (canonical forms) and invalid ones."""
    cases = []
    tc = 0
    for ident, pos in STATE_POSITIONS:
        tc += 1
        cases.append(
            {
                "tcId": tc,
                "id": f"position-{ident}",
                "comment": "a valid position string; the canonical form is itself",
                "flags": [],
                "kind": "position",
                "input": pos.lower() if ident == "opening" else pos,
                "canonical": format_position(parse_position(pos)),
                "result": "valid",
            }
        )
    for ident, pos in INVALID_POSITIONS:
        tc += 1
        try:
            parse_position(pos)
        except NotationError as e:
            cases.append(
                {
                    "tcId": tc,
                    "id": f"position-{ident}",
                    "comment": f"rejected: {e.reason}",
                    "flags": [],
                    "kind": "position",
                    "input": pos,
                    "result": "invalid",
                    "error": "InvalidPositionError",
                    "column": e.column,
                }
            )
        else:
            raise SystemExit(f"{ident}: expected {pos!r} to be rejected")
    for ident, pos in ADVANCED_POSITIONS:
        tc += 1
        cases.append(
            {
                "tcId": tc,
                "id": f"position-{ident}",
                "comment": "a valid position string with advanced gods; canonical as given",
                "flags": ["advanced"],
                "kind": "position",
                "input": pos,
                "canonical": format_position(parse_position(pos)),
                "result": "valid",
            }
        )
    for ident, text, canonical in TURNS:
        tc += 1
        got = str(parse_turn(text))
        if got != canonical:
            raise SystemExit(f"{ident}: {text!r} reads as {got!r}, not {canonical!r}")
        cases.append(
            {
                "tcId": tc,
                "id": f"turn-{ident}",
                "comment": "turn text (syntax only) and its canonical form",
                "flags": ["advanced"],
                "kind": "turn",
                "input": text,
                "canonical": canonical,
                "result": "valid",
            }
        )
    for ident, text in INVALID_TURNS:
        tc += 1
        try:
            parse_turn(text)
        except NotationError as e:
            cases.append(
                {
                    "tcId": tc,
                    "id": f"turn-{ident}",
                    "comment": f"rejected: {e.reason}",
                    "flags": ["advanced"],
                    "kind": "turn",
                    "input": text,
                    "result": "invalid",
                    "error": "InvalidTurnError",
                    "column": e.column,
                }
            )
        else:
            raise SystemExit(f"{ident}: expected {text!r} to be rejected")
    for ident, pos in POOL_POSITIONS:
        tc += 1
        cases.append(
            {
                "tcId": tc,
                "id": f"position-{ident}",
                "comment": "a valid position string with a god pool; canonical as given",
                "flags": ["pool"],
                "kind": "position",
                "input": pos,
                "canonical": format_position(parse_position(pos)),
                "result": "valid",
            }
        )
    for ident, pos in INVALID_POOL_POSITIONS:
        tc += 1
        try:
            parse_position(pos)
        except NotationError as e:
            cases.append(
                {
                    "tcId": tc,
                    "id": f"position-{ident}",
                    "comment": f"rejected: {e.reason}",
                    "flags": ["pool"],
                    "kind": "position",
                    "input": pos,
                    "result": "invalid",
                    "error": "InvalidPositionError",
                    "column": e.column,
                }
            )
        else:
            raise SystemExit(f"{ident}: expected {pos!r} to be rejected")
    for ident, pos in GROUP1_POSITIONS:
        tc += 1
        cases.append(
            {
                "tcId": tc,
                "id": f"position-{ident}",
                "comment": "a valid position string with section 9 gods; canonical as given",
                "flags": ["group1"],
                "kind": "position",
                "input": pos,
                "canonical": format_position(parse_position(pos)),
                "result": "valid",
            }
        )
    for ident, pos in INVALID_GROUP1_POSITIONS:
        tc += 1
        try:
            parse_position(pos)
        except NotationError as e:
            cases.append(
                {
                    "tcId": tc,
                    "id": f"position-{ident}",
                    "comment": f"rejected: {e.reason}",
                    "flags": ["group1"],
                    "kind": "position",
                    "input": pos,
                    "result": "invalid",
                    "error": "InvalidPositionError",
                    "column": e.column,
                }
            )
        else:
            raise SystemExit(f"{ident}: expected {pos!r} to be rejected")
    for ident, text, canonical in GROUP1_TURNS:
        tc += 1
        got = str(parse_turn(text))
        if got != canonical:
            raise SystemExit(f"{ident}: {text!r} reads as {got!r}, not {canonical!r}")
        cases.append(
            {
                "tcId": tc,
                "id": f"turn-{ident}",
                "comment": "section 9 turn text (syntax only) and its canonical form",
                "flags": ["group1"],
                "kind": "turn",
                "input": text,
                "canonical": canonical,
                "result": "valid",
            }
        )
    for ident, text in INVALID_GROUP1_TURNS:
        tc += 1
        try:
            parse_turn(text)
        except NotationError as e:
            cases.append(
                {
                    "tcId": tc,
                    "id": f"turn-{ident}",
                    "comment": f"rejected: {e.reason}",
                    "flags": ["group1"],
                    "kind": "turn",
                    "input": text,
                    "result": "invalid",
                    "error": "InvalidTurnError",
                    "column": e.column,
                }
            )
        else:
            raise SystemExit(f"{ident}: expected {text!r} to be rejected")
    for ident, pos in MEMORY_POSITIONS:
        tc += 1
        cases.append(
            {
                "tcId": tc,
                "id": f"position-{ident}",
                "comment": "a valid position string with section 10 states; canonical as given",
                "flags": ["memory"],
                "kind": "position",
                "input": pos,
                "canonical": format_position(parse_position(pos)),
                "result": "valid",
            }
        )
    for ident, pos in INVALID_MEMORY_POSITIONS:
        tc += 1
        try:
            parse_position(pos)
        except NotationError as e:
            cases.append(
                {
                    "tcId": tc,
                    "id": f"position-{ident}",
                    "comment": f"rejected: {e.reason}",
                    "flags": ["memory"],
                    "kind": "position",
                    "input": pos,
                    "result": "invalid",
                    "error": "InvalidPositionError",
                    "column": e.column,
                }
            )
        else:
            raise SystemExit(f"{ident}: expected {pos!r} to be rejected")
    for ident, text, canonical in MEMORY_TURNS:
        tc += 1
        got = str(parse_turn(text))
        if got != canonical:
            raise SystemExit(f"{ident}: {text!r} reads as {got!r}, not {canonical!r}")
        cases.append(
            {
                "tcId": tc,
                "id": f"turn-{ident}",
                "comment": "turn text of RULES.md 10.3 (syntax only) and its canonical form",
                "flags": ["memory"],
                "kind": "turn",
                "input": text,
                "canonical": canonical,
                "result": "valid",
            }
        )
    for ident, text in INVALID_MEMORY_TURNS:
        tc += 1
        try:
            parse_turn(text)
        except NotationError as e:
            cases.append(
                {
                    "tcId": tc,
                    "id": f"turn-{ident}",
                    "comment": f"rejected: {e.reason}",
                    "flags": ["memory"],
                    "kind": "turn",
                    "input": text,
                    "result": "invalid",
                    "error": "InvalidTurnError",
                    "column": e.column,
                }
            )
        else:
            raise SystemExit(f"{ident}: expected {text!r} to be rejected")
    for ident, text, canonical in BOTH_TURNS:
        tc += 1
        got = str(parse_turn(text))
        if got != canonical:
            raise SystemExit(f"{ident}: {text!r} reads as {got!r}, not {canonical!r}")
        cases.append(
            {
                "tcId": tc,
                "id": f"turn-{ident}",
                "comment": "turn text with marks of RULES.md 9 and 10.3 (SPEC.md 2.1.2)",
                "flags": ["group1", "memory"],
                "kind": "turn",
                "input": text,
                "canonical": canonical,
                "result": "valid",
            }
        )
    doc = {"schema": "notation.schema.json", "version": 1, "tests": cases}
    (VECTORS / "notation.json").write_text(json.dumps(doc, indent=2) + "\n")


def write_playthroughs() -> None:
    """Write golden games: per action the position, the legal count, the action, the hash."""
    out = VECTORS / "playthroughs"
    out.mkdir(exist_ok=True)
    games: list[tuple[str, str, Position, int]] = []
    for ident, players, mode, drawn, seed in PLAYTHROUGHS:
        call = f"new_game({players}, {mode!r}, drawn={drawn!r})"
        games.append((ident, call, new_game(players, mode, drawn=drawn), seed))  # type: ignore[arg-type]
    for ident, players, offer, seed in POOL_PLAYTHROUGHS:
        call = f"new_game({players}, 'challenger', offer={offer!r})"
        games.append((ident, call, new_game(players, "challenger", offer=offer), seed))
    for ident, call, p, seed in games:
        rng = random.Random(seed)
        lines = [
            f"# playthrough {ident}: {call}, "
            f"actions drawn with random.Random({seed}).choice over legal_actions",
            "",
        ]
        ply = 0
        while p.phase is not Phase.OVER:
            actions = legal_actions(p)
            if not actions:
                break
            action = rng.choice(actions)
            lines.append(f"position {format_position(p)}")
            lines.append(f"hash {state_hash(p).hex()}")
            lines.append(f"legal {len(actions)}")
            lines.append(f"action {format_action(action)}")
            lines.append("")
            p = apply_action(p, action)
            ply += 1
        lines.append(f"final {format_position(p)}")
        lines.append(f"hash {state_hash(p).hex()}")
        lines.append("")
        (out / f"{ident}.txt").write_text("\n".join(lines))


def main() -> int:
    """Regenerate every engine vector file."""
    parser = argparse.ArgumentParser(description=__doc__)
    parser.parse_args()
    VECTORS.mkdir(parents=True, exist_ok=True)
    write_perft()
    write_state_hash()
    write_notation()
    write_playthroughs()
    print(f"wrote engine vectors under {VECTORS}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
