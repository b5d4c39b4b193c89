"""Every god: one module each, and the registry whose order fixes each god's id.

``GODS`` is an explicit tuple (no registration on import): the ten simple gods of RULES.md
section 6, the fifteen advanced gods of section 8 in that section's order, then the fourteen
of section 9 (``GROUP1``) in that section's order. The banned pairs are data in ``bans``. A
god's id in the state hash is its 1-based place here, so the tuple only ever grows at its end.

A new god is one module here: a subclass of ``power.Power`` with its name, card text, player
counts and the hooks its card names (each hook's default is the plain rule), one line at the
end of ``ADVANCED`` (or a new tuple after it), and its tests; the kernel does not change.
"""

from __future__ import annotations

from typing import Final

from santorini_p2p.engine.gods.aphrodite import Aphrodite
from santorini_p2p.engine.gods.apollo import Apollo
from santorini_p2p.engine.gods.ares import Ares
from santorini_p2p.engine.gods.artemis import Artemis
from santorini_p2p.engine.gods.asteria import Asteria
from santorini_p2p.engine.gods.athena import Athena
from santorini_p2p.engine.gods.atlas import Atlas
from santorini_p2p.engine.gods.bans import BANNED, ban_reason
from santorini_p2p.engine.gods.bia import Bia
from santorini_p2p.engine.gods.castor import Castor
from santorini_p2p.engine.gods.charon import Charon
from santorini_p2p.engine.gods.chronus import Chronus
from santorini_p2p.engine.gods.demeter import Demeter
from santorini_p2p.engine.gods.eros import Eros
from santorini_p2p.engine.gods.graeae import Graeae
from santorini_p2p.engine.gods.hades import Hades
from santorini_p2p.engine.gods.harpies import Harpies
from santorini_p2p.engine.gods.hephaestus import Hephaestus
from santorini_p2p.engine.gods.hera import Hera
from santorini_p2p.engine.gods.hermes import Hermes
from santorini_p2p.engine.gods.hestia import Hestia
from santorini_p2p.engine.gods.hydra import Hydra
from santorini_p2p.engine.gods.hypnus import Hypnus
from santorini_p2p.engine.gods.iris import Iris
from santorini_p2p.engine.gods.limus import Limus
from santorini_p2p.engine.gods.maenads import Maenads
from santorini_p2p.engine.gods.medusa import Medusa
from santorini_p2p.engine.gods.minotaur import Minotaur
from santorini_p2p.engine.gods.nemesis import Nemesis
from santorini_p2p.engine.gods.pan import Pan
from santorini_p2p.engine.gods.pegasus import Pegasus
from santorini_p2p.engine.gods.persephone import Persephone
from santorini_p2p.engine.gods.poseidon import Poseidon
from santorini_p2p.engine.gods.prometheus import Prometheus
from santorini_p2p.engine.gods.proteus import Proteus
from santorini_p2p.engine.gods.scylla import Scylla
from santorini_p2p.engine.gods.terpsichore import Terpsichore
from santorini_p2p.engine.gods.triton import Triton
from santorini_p2p.engine.gods.urania import Urania
from santorini_p2p.engine.gods.zeus import Zeus
from santorini_p2p.engine.power import Power

__all__ = [
    "ADVANCED",
    "ALL_GOD_NAMES",
    "BANNED",
    "GODS",
    "GOD_NAMES",
    "GOLDEN_FLEECE",
    "GROUP1",
    "MORTAL",
    "PROMO",
    "SIMPLE",
    "God",
    "ban_reason",
    "find_god",
    "god_id",
    "power_of",
]

God = Power
"""A god card is its power: ``name``, ``text`` (the card) and the hooks."""

SIMPLE: Final[tuple[Power, ...]] = (
    Apollo(),
    Artemis(),
    Athena(),
    Atlas(),
    Demeter(),
    Hephaestus(),
    Hermes(),
    Minotaur(),
    Pan(),
    Prometheus(),
)
"""The ten simple gods of RULES.md section 6, in id order."""

ADVANCED: Final[tuple[Power, ...]] = (
    Aphrodite(),
    Ares(),
    Bia(),
    Charon(),
    Chronus(),
    Eros(),
    Hera(),
    Hestia(),
    Hypnus(),
    Limus(),
    Medusa(),
    Persephone(),
    Poseidon(),
    Triton(),
    Zeus(),
)
"""The fifteen advanced gods of RULES.md section 8, in that section's order."""

GROUP1: Final[tuple[Power, ...]] = (
    Hades(),
    Pegasus(),
    Iris(),
    Urania(),
    Harpies(),
    Asteria(),
    Scylla(),
    Castor(),
    Maenads(),
    Nemesis(),
    Terpsichore(),
    Graeae(),
    Proteus(),
    Hydra(),
)
"""The fourteen gods of RULES.md section 9 (Golden Fleece and promo cards), in that order."""

GOLDEN_FLEECE: Final = ("hades", "harpies", "nemesis", "terpsichore", "urania", "graeae")
"""The gods of ``GROUP1`` printed in the Golden Fleece expansion."""
PROMO: Final = tuple(g.name for g in GROUP1 if g.name not in GOLDEN_FLEECE)
"""The gods of ``GROUP1`` printed as promotional cards."""

GODS: Final[tuple[Power, ...]] = SIMPLE + ADVANCED + GROUP1
"""Every god, in the fixed order that gives its id (1-based) in the state hash."""

GOD_NAMES: Final = tuple(g.name for g in SIMPLE)
"""The names of the ten simple gods: the gods a game draws from unless told otherwise."""
ALL_GOD_NAMES: Final = tuple(g.name for g in GODS)
"""Every god's name, in id order."""
MORTAL: Final = Power()
"""The power of a seat with no god: the plain rules."""

_BY_NAME: Final = {g.name: g for g in GODS}


def find_god(name: str) -> Power:
    """Return the god called ``name`` (any case).

    Raises:
        ValueError: no god has that name.
    """
    try:
        return _BY_NAME[name.lower()]
    except KeyError:
        raise ValueError(
            f"unknown god {name!r}; expected one of {', '.join(ALL_GOD_NAMES)}"
        ) from None


def power_of(name: str) -> Power:
    """Return the power of a seat whose god entry is ``name`` ("" or "?": no power yet)."""
    return _BY_NAME.get(name, MORTAL)


def god_id(name: str) -> int:
    """Return the 1-based id of the god called ``name`` (0 for no god)."""
    return ALL_GOD_NAMES.index(name) + 1 if name else 0
