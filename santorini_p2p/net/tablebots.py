"""The computer players of secret-god tables and Party: what each seat sends, and when.

``SecretBot`` holds a seat's secret (its deal key) and chooses its records at a secret-gods
table (SECRET.md 6 to 8): its deal steps, its turns in the view it holds, its opening and its
objections; ``PartyBot`` does the same for Party (its hash chain, turns and acks). Both draw
everything from their seed, so a test or a demonstration is repeatable, and both can be told
to misbehave (withhold, forge) as a test needs. ``net.secrettable`` runs them between peers;
the console's line players extend them.
"""

from __future__ import annotations

import hashlib
import random
from dataclasses import dataclass, field, replace

from santorini_p2p.ai import choose_action
from santorini_p2p.engine import (
    Action,
    Phase,
    Position,
    Turn,
    apply_unchecked,
    is_legal,
    legal_actions,
    legal_turns,
)
from santorini_p2p.engine.secrecy import Play, objection_error, restricts_opponents
from santorini_p2p.wire.partygame import CHAIN_LENGTH, Anchor, Link, PartyGame, PartyRecord
from santorini_p2p.wire.secret import DealKey, card_of, open_card, shuffle, shuffle_order, strip
from santorini_p2p.wire.secretgame import (
    Ack,
    Move,
    Object,
    Open,
    SecretGame,
    SecretRecord,
    Shuffle,
    Strip,
    card_bytes,
)
from santorini_p2p.wire.stream import chain

__all__ = ["PartyBot", "SecretBot", "board_of", "plays_alike"]


def board_of(p: Position) -> tuple[int, ...]:
    """What a turn changes on the board: levels, domes, workers, the winner and who left."""
    return (p.ge1, p.ge2, p.ge3, p.domes, *p.workers, p.winner, p.eliminated)


def plays_alike(view: Position, plain: Position, turn: Turn) -> bool:
    """Whether ``turn`` is legal in ``plain`` and leaves the same board there as in ``view``.

    Such a turn keeps a hidden god hidden (``plain``: ``view`` without it).
    """
    return is_legal(plain, turn) and board_of(apply_unchecked(plain, turn)) == board_of(
        apply_unchecked(view, turn)
    )


def _choose(p: Position, level: str, rng: random.Random) -> Action:
    """The computer's action at ``level`` (a placement: every level places as the AI does)."""
    if level == "random":
        return rng.choice(legal_actions(p))
    return choose_action(p, level, rng=rng, nodes=_NODES)


_NODES = 20_000
"""A level's node budget at the table: the choice depends on the position and the seed alone
(so the turn chosen again after its opening is the same), and a peer answers within a second
or two while it relays the others' records."""


@dataclass
class SecretBot:
    """A computer player's secret and choices: random legal play, honest openings and objections.

    Everything it draws comes from ``seed`` (its key, its shuffle, its turns), so a test or a
    demonstration is repeatable; a player's program draws its key from a secure source.

    ``withhold`` keeps its god hidden (plain turns where it can, no objection) and never sends
    its opening at the end; ``forge`` first tries to open another god of the pool (a peer
    must refuse it) before playing honestly.
    """

    seat: int
    seed: bytes
    withhold: bool = False
    forge: bool = False
    level: str = "random"
    """The computer's level (``ai.LEVELS``): what it plays in the view it holds (its own god
    known, the hidden ones played as no god)."""
    key: DealKey = field(init=False)
    rng: random.Random = field(init=False)
    god: str = ""
    forged: bool = False

    def __post_init__(self) -> None:
        self.key = DealKey.from_seed(hashlib.blake2b(b"key" + self.seed, digest_size=32).digest())
        self.rng = random.Random(self.seed)

    def known_gods(self, g: SecretGame) -> tuple[str, ...]:
        """The gods as this seat knows them: its own, and the others' opened so far ("")."""
        gods = list(g.gods)
        gods[self.seat] = self.god
        return tuple(gods)

    def view(self, g: SecretGame) -> Position:
        """The position as this seat holds it: its own god known, the hidden ones as none."""
        return replace(g.position, gods=self.known_gods(g))

    def without_god(self, view: Position) -> Position:
        """``view`` with this seat's god taken away: how its turns look while it is hidden."""
        return replace(
            view, gods=tuple("" if s == self.seat else x for s, x in enumerate(view.gods))
        )

    def key_bytes(self) -> bytes:
        """The opening's key: ``e`` as 32 bytes."""
        return self.key.e.to_bytes(32, "big")

    def deal_step(self, g: SecretGame) -> SecretRecord:
        """This seat's shuffle or strip, from the records so far."""
        if len(g.decks) < g.players:
            deck = g.decks[-1] if g.decks else tuple(card_of(x) for x in g.pool)
            order_seed = hashlib.blake2b(b"order" + self.seed, digest_size=32).digest()
            order = shuffle_order(order_seed, len(g.pool))
            return Shuffle(self.seat, card_bytes(shuffle(deck, self.key, order)))
        hand = g.hands[-1] if g.hands else g.decks[-1][: g.players]
        return Strip(self.seat, card_bytes(strip(hand, self.key, self.seat)))

    def next_record(self, g: SecretGame, index: int) -> SecretRecord | None:
        """What this seat sends now, if anything (``index``: the next record's number)."""
        if g.result is not None:
            return None
        if not g.dealt:
            due = len(g.decks) if len(g.decks) < g.players else len(g.hands)
            return self.deal_step(g) if due == self.seat else None
        if not self.god:
            self.god = open_card(g.card(self.seat), self.key, g.pool)
        owed = g.owed()
        if g.pending is not None:
            if owed != (self.seat,):
                return None
            return self._answer(g)
        if owed:
            if self.seat in owed and not self.withhold:
                return Open(self.seat, self.god, self.key_bytes())
            return None
        p = g.position
        if p.to_move != self.seat or g.opening == self.seat:
            return self._move(g) if p.to_move == self.seat else None
        if self.forge and not self.forged:
            self.forged = True
            other = next(x for x in g.pool if x != self.god)
            return Open(self.seat, other, self.key_bytes())
        if p.phase is not Phase.PLAY:
            return Move(self.seat, str(_choose(p, self.level, self.rng)))
        turn, needs = self._turn(g)
        if needs:
            return Open(self.seat, self.god, self.key_bytes())
        return Move(self.seat, str(turn))

    def _move(self, g: SecretGame) -> SecretRecord:
        turn, _ = self._turn(g)
        return Move(self.seat, str(turn))

    def _turn(self, g: SecretGame) -> tuple[Turn, bool]:
        """A random turn, and whether it needs the power while the god is hidden.

        A turn that needs it is chosen again, the same, once the opening is in.
        """
        view = self.view(g)
        turns = legal_turns(view)
        plain = self.without_god(view)

        def same(turn: Turn) -> bool:
            return plays_alike(view, plain, turn)

        if self.withhold and not g.gods[self.seat]:
            turns = [t for t in turns if same(t)] or turns
        state = self.rng.getstate()
        if self.withhold or self.level == "random":
            turn = self.rng.choice(turns)
        else:
            chosen = _choose(view, self.level, self.rng)
            assert isinstance(chosen, Turn)
            turn = chosen
        needs = not g.gods[self.seat] and not same(turn)
        if needs:
            self.rng.setstate(state)
        return turn, needs

    def _answer(self, g: SecretGame) -> SecretRecord:
        assert g.pending is not None
        assert g.start is not None
        index, turn, known, _ = g.pending
        if not g.gods[self.seat] and restricts_opponents(self.god) and not self.withhold:
            play = Play(turn, known)
            if objection_error(g.start, g.plays, self.known_gods(g), self.seat, play) is None:
                return Object(self.seat, index, self.god, self.key_bytes())
        return Ack(self.seat, index)


@dataclass
class PartyBot:
    """A computer player of Party: its hash chain, random legal play, prompt acks.

    ``withhold`` never reveals its link for the deal (its peers record the abandonment).
    """

    seat: int
    seed: bytes
    withhold: bool = False
    level: str = "random"
    """The computer's level (``ai.LEVELS``) in Party; Agora's shared workers are played at
    random (the search does not model them)."""
    rng: random.Random = field(init=False)
    god: str = ""

    def __post_init__(self) -> None:
        self.rng = random.Random(self.seed)

    def _chain(self, g: PartyGame) -> tuple[bytes, ...]:
        secret = hashlib.blake2b(b"chain" + self.seed, digest_size=32).digest()
        return chain(secret, g.game_id, self.seat, CHAIN_LENGTH)

    def next_record(self, g: PartyGame, index: int) -> PartyRecord | None:
        """What this seat sends now, if anything."""
        del index
        if g.result is not None:
            return None
        if len(g.anchors) < g.players:
            return Anchor(self.seat, self._chain(g)[-1]) if len(g.anchors) == self.seat else None
        if len(g.links) < g.players:
            if len(g.links) != self.seat or self.withhold:
                return None
            return Link(self.seat, 1, self._chain(g)[CHAIN_LENGTH - 1])
        assert g.position is not None
        self.god = g.position.gods[self.seat]
        if g.pending is not None:
            return Ack(self.seat, g.pending[0]) if g.owed() == (self.seat,) else None
        p = g.position
        if p.to_move != self.seat:
            return None
        level = "random" if g.agora else self.level
        if p.phase is Phase.PLAY and level == "random":
            return Move(self.seat, str(self.rng.choice(legal_turns(p))))
        return Move(self.seat, str(_choose(p, level, self.rng)))
