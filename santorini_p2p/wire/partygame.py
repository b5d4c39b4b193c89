"""The records of a Party game and the checker every peer and reader runs (SECRET.md 10, 14).

Party deals the gods at random from a draw that every seat committed to before the game
(``wire.stream``): each seat signs the anchor of its hash chain, then reveals its first link;
the seed of draw 1 deals the gods (SPEC.md 11's ``random`` deal over the Party pool). A seat
that does not reveal abandons the game (a ``Forfeit`` signed by another). Then play goes as
in every game, each turn acknowledged by the other seats in order, and after every ``pass``
turns the cards pass on (``engine.party.pass_cards``).

Records, besides ``Move``, ``Ack`` and ``Forfeit`` of ``wire.secretgame``:

- ``Anchor(seat, anchor)`` (tag 16): the seat's hash-chain anchor, in seat order first;
- ``Link(seat, draw, link)`` (tag 17): the seat's link for draw ``draw``, in seat order.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import ClassVar, Final, TypeAlias

from santorini_p2p.engine import Phase, Position, apply_action, find_turn, new_game, parse_action
from santorini_p2p.engine.party import (
    PARTY_POOL,
    agora_error,
    agora_play,
    pass_cards,
    passes_after,
)
from santorini_p2p.engine.rules import apply_unchecked
from santorini_p2p.errors import DecodeError, SantoriniError
from santorini_p2p.wire.codec import decode, encode
from santorini_p2p.wire.draw import draw_setup
from santorini_p2p.wire.secretgame import (
    Ack,
    Forfeit,
    Move,
    SecretRecord,
    SecretRecordError,
    decode_record,
    encode_record,
)
from santorini_p2p.wire.stream import draw_seed, link_error

__all__ = [
    "CHAIN_LENGTH",
    "Anchor",
    "Link",
    "PartyGame",
    "PartyRecord",
    "decode_party_record",
    "encode_party_record",
]

CHAIN_LENGTH: Final = 4
"""The draws a Party game's chains allow: one is used, for the deal; the rest stay unopened."""


@dataclass(frozen=True)
class Anchor:
    """Seat ``seat``'s hash-chain anchor (``link[CHAIN_LENGTH]``), signed before any draw."""

    TAG: ClassVar[int] = 16
    seat: int
    anchor: bytes


@dataclass(frozen=True)
class Link:
    """Seat ``seat``'s link for draw ``draw``: ``link[CHAIN_LENGTH - draw]``."""

    TAG: ClassVar[int] = 17
    seat: int
    draw: int
    link: bytes


PartyRecord: TypeAlias = Anchor | Link | SecretRecord


def encode_party_record(r: PartyRecord) -> bytes:
    """The canonical msgpack array ``[tag, seat, field...]`` of a record."""
    if isinstance(r, Anchor):
        return encode((r.TAG, r.seat, r.anchor))
    if isinstance(r, Link):
        return encode((r.TAG, r.seat, r.draw, r.link))
    return encode_record(r)


def decode_party_record(data: bytes) -> PartyRecord:
    """Read a record's bytes (tags 16 and 17 here, the others as ``decode_record``).

    Raises:
        DecodeError: not a record (names the field).
    """
    v = decode(data)
    if isinstance(v, tuple) and v and v[0] in (Anchor.TAG, Link.TAG):
        seat = v[1] if len(v) > 1 else None
        if not isinstance(seat, int) or isinstance(seat, bool) or not 0 <= seat < 4:
            raise DecodeError("party record: seat must be 0 to 3")
        if v[0] == Anchor.TAG and len(v) == 3 and isinstance(v[2], bytes):
            return Anchor(seat, v[2])
        if (
            v[0] == Link.TAG
            and len(v) == 4
            and isinstance(v[2], int)
            and not isinstance(v[2], bool)
            and isinstance(v[3], bytes)
        ):
            return Link(seat, v[2], v[3])
        raise DecodeError(f"party record {v[0]}: wrong fields")
    return decode_record(data)


class PartyError(SecretRecordError):
    """A Party record a peer refuses."""


@dataclass
class PartyGame:
    """Checks a Party game record by record; ``result`` once it is over."""

    players: int
    game_id: bytes
    every: int
    pool: tuple[str, ...] = PARTY_POOL
    anchors: list[bytes] = field(default_factory=list)
    links: list[bytes] = field(default_factory=list)
    position: Position | None = None
    gods: tuple[str, ...] = ()
    index: int = 0
    turns: int = 0
    passes: list[int] = field(default_factory=list)
    pending: tuple[int, int] | None = None
    """The turn awaiting acks: its record index and its mover."""
    acked: int = 0
    result: tuple[int, str] | None = None
    agora: bool = False
    """Agora (SECRET.md 11): four players, no passing, each wins alone."""

    def __post_init__(self) -> None:
        if self.agora:
            if self.players != 4 or self.every:
                raise ValueError("Agora: 4 players and no passing")
            return
        passes_after(0, self.every)  # checks the header's value
        if not 2 <= self.players <= 4:
            raise ValueError(f"players: expected 2 to 4, got {self.players}")

    def feed(self, r: PartyRecord) -> None:
        """Take the next record, or raise ``SecretRecordError`` saying why it is refused."""
        try:
            self._feed(r)
        except SantoriniError as exc:
            if isinstance(exc, SecretRecordError):
                raise
            raise PartyError(self.index, str(exc)) from None
        except ValueError as exc:
            raise PartyError(self.index, str(exc)) from None
        self.index += 1

    def _fail(self, reason: str) -> PartyError:
        return PartyError(self.index, reason)

    def owed(self) -> tuple[int, ...]:
        """The seat that owes a record now (a link or an ack), if any."""
        if self.result is not None:
            return ()
        if len(self.anchors) == self.players and len(self.links) < self.players:
            return (len(self.links),)
        if self.pending is not None:
            return (self._next_ack(),)
        return ()

    def _next_ack(self) -> int:
        assert self.pending is not None
        mover = self.pending[1]
        for i in range(1, self.players):
            s = (mover + i) % self.players
            if not self.acked >> s & 1:
                return s
        return -1

    def _feed(self, r: PartyRecord) -> None:
        if self.result is not None:
            raise self._fail("the game is over")
        if not 0 <= r.seat < self.players:
            raise self._fail(f"seat {r.seat + 1} is not in this game")
        if isinstance(r, Forfeit):
            if r.seat == r.late or r.late not in self.owed():
                raise self._fail(f"seat {r.late + 1} owes no record now")
            winner = 1 - r.late if self.players == 2 else -1
            self.result = (winner, f"seat {r.late + 1} abandons: {r.reason}")
            return
        if len(self.anchors) < self.players:
            if not isinstance(r, Anchor) or r.seat != len(self.anchors):
                raise self._fail(f"expected seat {len(self.anchors) + 1}'s anchor")
            if len(r.anchor) != 32:
                raise self._fail("an anchor is 32 bytes")
            self.anchors.append(r.anchor)
            return
        if len(self.links) < self.players:
            if not isinstance(r, Link) or r.seat != len(self.links) or r.draw != 1:
                raise self._fail(f"expected seat {len(self.links) + 1}'s link for draw 1")
            why = link_error(r.link, self.anchors[r.seat], self.game_id, r.seat)
            if why:
                raise self._fail(why)
            self.links.append(r.link)
            if len(self.links) == self.players:
                seed = draw_seed(self.game_id, 1, self.links)
                _, self.gods = draw_setup(seed, self.players, "random", self.pool)
                if self.agora and agora_error(self.gods):
                    raise self._fail(agora_error(self.gods) or "")
                self.position = new_game(self.players, "random", drawn=self.gods)
            return
        assert self.position is not None
        if isinstance(r, Ack):
            if self.pending is None or r.of != self.pending[0]:
                raise self._fail(f"an ack of record {r.of}, which awaits none")
            if r.seat != self._next_ack():
                raise self._fail(f"seat {self._next_ack() + 1}'s ack is due first")
            self.acked |= 1 << r.seat
            if self._next_ack() < 0:
                self.pending = None
                self._turn_done()
            return
        if not isinstance(r, Move):
            raise self._fail(f"a {type(r).__name__} during play")
        p = self.position
        if self.pending is not None:
            raise self._fail("a move while the last awaits its acks")
        if r.seat != p.to_move:
            raise self._fail(f"seat {r.seat + 1} moved, but seat {p.to_move + 1} is to move")
        if p.phase is Phase.PLAY:
            turn = find_turn(p, r.action)
            self.position = agora_play(p, turn) if self.agora else apply_unchecked(p, turn)
            self.pending = (self.index, r.seat)
            self.acked = 1 << r.seat | self.position.eliminated
            if self._next_ack() < 0:
                self.pending = None
                self._turn_done()
        else:
            self.position = apply_action(p, parse_action(r.action))

    def _turn_done(self) -> None:
        assert self.position is not None
        self.turns += 1
        p = self.position
        if not self.agora and p.phase is Phase.PLAY and passes_after(self.turns, self.every):
            self.position = pass_cards(p)
            self.passes.append(self.turns)
        if self.position.phase is Phase.OVER:
            w = self.position.winner
            n = len(self.passes)
            who = f"seat {w + 1} wins" if w >= 0 else "no one wins"
            if self.agora:
                out = ", ".join(str(s + 1) for s in range(4) if self.position.eliminated >> s & 1)
                self.result = (w, f"{who} alone (Agora); out of the game: {out or 'none'}")
            else:
                self.result = (w, f"{who}; the cards passed {n} times")
