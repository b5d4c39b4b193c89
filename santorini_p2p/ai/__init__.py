"""The computer opponent: levels, a search over the engine's fast path, and analysis.

``choose_action`` answers in every phase (god choice, god pick, start seat, placement, turn);
``analyse`` explains a position (best action, evaluation, depth, principal variation);
``takes_offer`` answers an offer of a draw by the evaluation. All three
are pure and thread-safe: every call owns its state, and a ``threading.Event`` stops it.
"""

from __future__ import annotations

from santorini_p2p.ai.offers import TAKE_BELOW, takes_offer
from santorini_p2p.ai.search import (
    CLOCK_MARGIN_MS,
    LEVELS,
    Analysis,
    Level,
    analyse,
    choose_action,
    find_level,
)

__all__ = [
    "CLOCK_MARGIN_MS",
    "LEVELS",
    "TAKE_BELOW",
    "Analysis",
    "Level",
    "analyse",
    "choose_action",
    "find_level",
    "takes_offer",
]
