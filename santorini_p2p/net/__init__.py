"""Peer-to-peer play over ZeroMQ: transport, lockstep session, discovery (protocol/SESSION.md).

``session`` is the sans-I/O lockstep state machine over the signed log, made of one part per
sub-protocol (``handshake``, ``logsync``, ``timing`` over ``moveclock``, ``choosing``,
``secretseat``, ``watched``, ``requests`` bounded by ``bounds``, ``reporting``, all over
``sessionbase``); ``frames`` are the frames it exchanges as bytes (their types and signatures
in ``frametypes``) and ``store`` the files it keeps (journals, notes, stop reports);
``transport`` moves its frames over ZeroMQ; ``networkgame`` runs the two on the event loop
with an optional computer player (``bots``); ``game`` sets up hosting, joining, resuming and
rematches (the vote and the next session in ``rematch``), ``saving`` the ``--save`` copies;
``views`` holds the values a screen reads; ``gallery``, ``spectator`` and ``watch`` are the
spectators' side, and ``onlookers`` what is told outside the log (a takeback refused, who
watches); ``discovery`` (imported on demand, it loads ``zeroconf``) advertises and lists games
on the LAN, and ``address`` finds the machine's LAN address a host gives out. Correspondence
games (POST.md) are ``post`` (a game's record and this home's games), ``postio`` (blocks and
files), ``postview`` (what the player reads) and ``postbot`` (the computer's side). Text from
outside is checked by ``wire.text``.
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
