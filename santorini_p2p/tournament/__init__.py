"""Club tournaments from signed replays: the event file, pairings, results and standings.

A layer beside ``study/``: it reads replays through ``replay/`` and ``wire/`` and plays no
game itself. ``club`` runs an event, ``event`` is its signed file (protocol/EVENT.md),
``pairing`` the Swiss and round-robin rules, ``games`` what a replay says about one game, and
``standings`` the table with its tie-breaks.
"""

from __future__ import annotations

from santorini_p2p.tournament.club import (
    Event,
    ResultRefused,
    Verification,
    create_event,
    load_event,
    verify_event,
)
from santorini_p2p.tournament.event import EventError, EventHeader, Player
from santorini_p2p.tournament.games import GameError, GameFacts, read_game
from santorini_p2p.tournament.pairing import PairingError, Round

__all__ = [
    "Event",
    "EventError",
    "EventHeader",
    "GameError",
    "GameFacts",
    "PairingError",
    "Player",
    "ResultRefused",
    "Round",
    "Verification",
    "create_event",
    "load_event",
    "read_game",
    "verify_event",
]
