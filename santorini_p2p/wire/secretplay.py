"""Secret gods in the main log: the log's records read by the secret game's checker.

A game whose header lists the option ``secret`` (protocol 3, SECRET.md 12) deals its gods by
the records ``shuffle`` and ``strip`` after the draw, and plays with the records ``open``,
``object`` and ``forfeit`` beside the log's act and ack. ``wire.validator`` folds them through
``wire.secretgame.SecretGame``; this module is the bridge: each log record as the checker's
record, the public position a decided game ends in, a seat's own secret (its deal key, drawn
from its signing key so that a resumed game needs nothing more on disk), its deal steps, and
whether a turn needs its hidden power.

Public API: ``to_secret_record``, ``decided_position``, ``secret_owed``, ``deal_cards_for``,
``SeatSecret`` (``seat_secret(identity, game_id)``) and ``needs_power``.
"""

from __future__ import annotations

import hashlib
from dataclasses import dataclass, replace
from typing import Final

from santorini_p2p.engine import Position, Turn, apply_unchecked, is_legal
from santorini_p2p.engine.position import NO_WINNER
from santorini_p2p.wire import secretgame as sg
from santorini_p2p.wire.identity import Identity
from santorini_p2p.wire.messages import Ack, Act, Forfeit, Message, Object, Open, Shuffle, Strip
from santorini_p2p.wire.secret import DealKey, card_of, open_card, shuffle, shuffle_order, strip

__all__ = [
    "DEAL_TYPES",
    "SECRET_PLAY_TYPES",
    "SEED_DOMAIN",
    "SeatSecret",
    "deal_cards_for",
    "decided_position",
    "needs_power",
    "seat_secret",
    "secret_owed",
    "to_secret_record",
]

DEAL_TYPES: Final = (Shuffle, Strip)
SECRET_PLAY_TYPES: Final = (Open, Object, Forfeit)
SEED_DOMAIN: Final = b"santorini-p2p/1 secret deal seed\x00"
"""What a seat signs with its own key, over the game id, to draw its deal secret.

Ed25519 signatures are deterministic, and this one is never sent: only the key's holder can
make it, the same one each time, so a resumed game finds its key again from the identity
alone (and no record's signature can be it: a record is signed under another prefix)."""


def to_secret_record(msg: Message, seat: int, g: sg.SecretGame) -> sg.SecretRecord:
    """The checker's record for log record ``msg`` signed by ``seat``.

    An ack or objection names the act by its number in the log; the checker numbers its own
    records, so it is given the act awaiting acknowledgement (the log has checked the number).

    Raises:
        TypeError: ``msg`` is not a record of a secret game's play.
    """
    waiting = g.pending[0] if g.pending is not None else -1
    match msg:
        case Shuffle():
            return sg.Shuffle(seat, msg.cards)
        case Strip():
            return sg.Strip(seat, msg.cards)
        case Act():
            return sg.Move(seat, msg.action)
        case Ack():
            return sg.Ack(seat, waiting)
        case Open():
            return sg.Open(seat, msg.god, msg.key)
        case Object():
            return sg.Object(seat, waiting, msg.god, msg.key)
        case Forfeit():
            return sg.Forfeit(seat, msg.late, msg.reason)
    raise TypeError(f"a {type(msg).__name__.lower()} record is not a secret game's")


def decided_position(g: sg.SecretGame) -> Position:
    """The position the log shows: the public one until the game is decided.

    Once it is decided: every open god, and the result's winner (``NO_WINNER``: no one won).
    """
    p = g.position
    if g.result is None:
        return p
    won = g.result[0]
    return replace(p, gods=tuple(g.gods), winner=won if won >= 0 else NO_WINNER)


def secret_owed(g: sg.SecretGame) -> tuple[int, ...]:
    """The seats that owe a record other than a move now: an ack or objection, an opening."""
    return g.owed()


@dataclass(frozen=True)
class SeatSecret:
    """A seat's own secret in one game: its deal key and the seed of its shuffle's order."""

    key: DealKey
    order_seed: bytes

    @property
    def key_bytes(self) -> bytes:
        """The key as an opening carries it: ``e``, 32 bytes big-endian."""
        return self.key.e.to_bytes(32, "big")

    def god(self, g: sg.SecretGame, seat: int) -> str:
        """The god on ``seat``'s card, once the deal is complete ("" before).

        Raises:
            ValueError: the card opens to no god of the pool (a deal step was wrong).
        """
        if not g.dealt:
            return ""
        return open_card(g.card(seat), self.key, g.pool)


def seat_secret(identity: Identity, game_id: bytes) -> SeatSecret:
    """``identity``'s secret for the game ``game_id`` (see ``SEED_DOMAIN``)."""
    root = identity.sign(SEED_DOMAIN + game_id)
    key_seed = hashlib.blake2b(b"key\x00" + root, digest_size=32).digest()
    order_seed = hashlib.blake2b(b"order\x00" + root, digest_size=32).digest()
    return SeatSecret(DealKey.from_seed(key_seed), order_seed)


def deal_cards_for(
    g: sg.SecretGame, seat: int, secret: SeatSecret
) -> tuple[bool, tuple[bytes, ...]]:
    """``seat``'s next deal step: ``(is_shuffle, cards)`` (SECRET.md 3)."""
    if len(g.decks) < g.players:
        deck = g.decks[-1] if g.decks else tuple(card_of(x) for x in g.pool)
        order = shuffle_order(secret.order_seed, len(g.pool))
        return True, sg.card_bytes(shuffle(deck, secret.key, order))
    hand = g.hands[-1] if g.hands else g.decks[-1][: g.players]
    return False, sg.card_bytes(strip(hand, secret.key, seat))


def _board(p: Position) -> tuple[int, ...]:
    return (p.ge1, p.ge2, p.ge3, p.domes, *p.workers, p.winner, p.eliminated)


def needs_power(g: sg.SecretGame, seat: int, god: str, turn: Turn) -> bool:
    """Whether ``turn``, legal for ``seat`` with ``god``, needs the god opened first.

    It does when the god is hidden and the turn is not legal in the public position, or its
    result there is not the same (SECRET.md 7.2).
    """
    if g.gods[seat]:
        return False
    plain = replace(g.position, gods=tuple(g.gods))
    gods = list(g.gods)
    gods[seat] = god
    view = replace(g.position, gods=tuple(gods))
    if not is_legal(plain, turn):
        return True
    return _board(apply_unchecked(plain, turn)) != _board(apply_unchecked(view, turn))
