"""Peer-to-peer play over ZeroMQ: transport, lockstep session, discovery (protocol/SESSION.md).

``session`` is the sans-I/O lockstep state machine over the signed log, ``frames`` the frames it
exchanges and ``store`` the files it keeps (journals, notes, stop reports); ``transport`` moves its
frames over ZeroMQ; ``game`` runs the two on the event loop with an optional computer player
and sets up hosting, joining and resuming; ``discovery`` (imported on demand, it loads
``zeroconf``) advertises and lists games on the LAN.
"""

from __future__ import annotations

from santorini_p2p.net.clock import STANDARD, TimeControl, parse_time_control
from santorini_p2p.net.game import (
    GameOutcome,
    NetworkGame,
    PlayOptions,
    host_game,
    join_game,
    resume_game,
)
from santorini_p2p.net.session import GameSettings, Session, SessionError, unfinished_games
from santorini_p2p.net.trust import ChangedKeyError, KnownPeers

__all__ = [
    "STANDARD",
    "ChangedKeyError",
    "GameOutcome",
    "GameSettings",
    "KnownPeers",
    "NetworkGame",
    "PlayOptions",
    "Session",
    "SessionError",
    "TimeControl",
    "host_game",
    "join_game",
    "parse_time_control",
    "resume_game",
    "unfinished_games",
]
