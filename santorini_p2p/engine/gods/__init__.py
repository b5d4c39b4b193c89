"""Every god: one module each, and the registry whose order fixes each god's id.

``GODS`` is an explicit tuple (no registration on import): the ten simple gods of RULES.md
section 6, then the fifteen advanced gods of section 8 in that section's order. A god's id in
the state hash is its 1-based place here, so the tuple only ever grows at its end.

A new god is one module here: a subclass of ``power.Power`` with its name, card text, player
counts and the hooks its card names (each hook's default is the plain rule), one line at the
end of ``ADVANCED`` (or a new tuple after it), and its tests; the kernel does not change.
"""

from __future__ import annotations

from typing import Final

from santorini_p2p.engine.gods.achilles import Achilles
from santorini_p2p.engine.gods.adonis import Adonis
from santorini_p2p.engine.gods.aeolus import Aeolus
from santorini_p2p.engine.gods.aphrodite import Aphrodite
from santorini_p2p.engine.gods.apollo import Apollo
from santorini_p2p.engine.gods.ares import Ares
from santorini_p2p.engine.gods.artemis import Artemis
from santorini_p2p.engine.gods.atalanta import Atalanta
from santorini_p2p.engine.gods.athena import Athena
from santorini_p2p.engine.gods.atlas import Atlas
from santorini_p2p.engine.gods.bellerophon import Bellerophon
from santorini_p2p.engine.gods.bia import Bia
from santorini_p2p.engine.gods.charon import Charon
from santorini_p2p.engine.gods.chronus import Chronus
from santorini_p2p.engine.gods.demeter import Demeter
from santorini_p2p.engine.gods.eris import Eris
from santorini_p2p.engine.gods.eros import Eros
from santorini_p2p.engine.gods.gaea import Gaea
from santorini_p2p.engine.gods.hephaestus import Hephaestus
from santorini_p2p.engine.gods.hera import Hera
from santorini_p2p.engine.gods.heracles import Heracles
from santorini_p2p.engine.gods.hermes import Hermes
from santorini_p2p.engine.gods.hestia import Hestia
from santorini_p2p.engine.gods.hippolyta import Hippolyta
from santorini_p2p.engine.gods.hypnus import Hypnus
from santorini_p2p.engine.gods.jason import Jason
from santorini_p2p.engine.gods.limus import Limus
from santorini_p2p.engine.gods.medea import Medea
from santorini_p2p.engine.gods.medusa import Medusa
from santorini_p2p.engine.gods.minotaur import Minotaur
from santorini_p2p.engine.gods.morpheus import Morpheus
from santorini_p2p.engine.gods.nike import Nike
from santorini_p2p.engine.gods.odysseus import Odysseus
from santorini_p2p.engine.gods.pan import Pan
from santorini_p2p.engine.gods.persephone import Persephone
from santorini_p2p.engine.gods.polyphemus import Polyphemus
from santorini_p2p.engine.gods.poseidon import Poseidon
from santorini_p2p.engine.gods.prometheus import Prometheus
from santorini_p2p.engine.gods.selene import Selene
from santorini_p2p.engine.gods.siren import Siren
from santorini_p2p.engine.gods.theseus import Theseus
from santorini_p2p.engine.gods.triton import Triton
from santorini_p2p.engine.gods.zeus import Zeus
from santorini_p2p.engine.position import PLACES
from santorini_p2p.engine.power import Power

__all__ = [
    "ADVANCED",
    "ALL_GOD_NAMES",
    "GODS",
    "GOD_NAMES",
    "HEROES",
    "MEMORY",
    "MORTAL",
    "SIMPLE",
    "God",
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

MEMORY: Final[tuple[Power, ...]] = (
    Nike(),
    Morpheus(),
    Selene(),
    Hippolyta(),
    Aeolus(),
    Siren(),
    Eris(),
    Gaea(),
)
"""The gods with memory of RULES.md section 10, in that section's order."""

HEROES: Final[tuple[Power, ...]] = (
    Achilles(),
    Adonis(),
    Atalanta(),
    Bellerophon(),
    Heracles(),
    Jason(),
    Medea(),
    Odysseus(),
    Polyphemus(),
    Theseus(),
)
"""The ten heroes of RULES.md section 10 (2 players), in that section's order."""

GODS: Final[tuple[Power, ...]] = SIMPLE + ADVANCED + MEMORY + HEROES
"""Every god, in the fixed order that gives its id (1-based) in the state hash."""

PLACES.update({g.name: g.placed for g in GODS if g.placed != 2})

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
