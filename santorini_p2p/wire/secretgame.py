"""The records of a game with secret gods, and the checker every peer and reader runs on them.

protocol/SECRET.md section 6 defines the records (tags 11 to 15) and section 7 the order they
come in; this module is its reference: ``SecretGame`` takes the records one by one, refuses a
record that breaks the rules with a ``SecretRecordError`` naming the record and why, and at the
end audits the deal and the game under every god (``wire.secret``, ``engine.secrecy``).

Records (each names its signer's seat, 0-based here, 1-based in text):

- ``Shuffle(seat, cards)``: a seat's shuffle step of the deal (seats 1, 2, ... in turn);
- ``Strip(seat, cards)``: a seat's strip step (seats 1, 2, ... in turn, after every shuffle);
- ``Move(seat, action)``: an action (placement or turn) in the public view;
- ``Open(seat, god, key)``: a seat's opening: before the move that needs its power, or at the
  end of the game;
- ``Ack(seat, of)``: a seat accepts move ``of``; a hidden seat's ack waives its god's
  restriction for that move;
- ``Object(seat, of, god, key)``: in place of an ack: the seat opens its god and says move
  ``of`` breaks it; the move is void and its mover plays again;
- ``Forfeit(seat, late, reason)``: seat ``seat`` records that seat ``late`` withheld a record
  it owed beyond the clock (SECRET.md 8): ``late`` loses.

``encode_record``/``decode_record`` give and read their canonical bytes (``wire.codec``).
"""

from __future__ import annotations

import copy
from collections.abc import Sequence
from dataclasses import dataclass, field, replace
from typing import ClassVar, Final, TypeAlias

from santorini_p2p.engine import (
    Phase,
    Position,
    Turn,
    apply_action,
    apply_unchecked,
    find_turn,
    new_game,
    parse_action,
)
from santorini_p2p.engine.position import NO_WINNER
from santorini_p2p.engine.rules import resign
from santorini_p2p.engine.secrecy import SECRET_POOL, Leave, Play, audit, objection_error
from santorini_p2p.errors import DecodeError, SantoriniError
from santorini_p2p.wire.codec import Value, decode, encode
from santorini_p2p.wire.secret import (
    KEY_BITS,
    DealFault,
    audit_deal,
    card_of,
    from_bytes,
    reveal_error,
    to_bytes,
)

__all__ = [
    "DEFAULT_POOL",
    "MAX_DECK",
    "NOT_WITH_SECRET",
    "TAGS",
    "Ack",
    "Forfeit",
    "Move",
    "Object",
    "Open",
    "SecretGame",
    "SecretRecord",
    "SecretRecordError",
    "Shuffle",
    "Strip",
    "decode_record",
    "encode_record",
]

KEY_BYTES: Final = KEY_BITS // 8

MAX_DECK: Final = 14
"""The most gods a secret deal shuffles: 14 cards of 256 bytes keep a shuffle record within
the 4096 bytes every record is held to (SPEC.md 9)."""

DEFAULT_POOL: Final = (
    "apollo",
    "artemis",
    "athena",
    "atlas",
    "demeter",
    "hephaestus",
    "hermes",
    "minotaur",
    "pan",
    "prometheus",
    "aphrodite",
    "hera",
    "limus",
    "persephone",
)
"""The pool of ``--secret-gods`` unless the host names another: the ten simple gods and the
four other gods of the secret pool that forbid opponents turns (so objections happen)."""


NOT_WITH_SECRET: Final[dict[str, str]] = {
    "party": (
        "a card dealt secretly opens only with the key of the player it was dealt to, so it "
        "cannot pass on hidden, and every player who held a card would know it (SECRET.md 12.1)"
    ),
    "agora": (
        "this version does not audit a hidden game under Agora's rules (a win alone, shared "
        "workers) (SECRET.md 12.1)"
    ),
}
"""Why each card mode is refused with secret gods, as the header's and the console's errors
say it."""


class SecretRecordError(SantoriniError, ValueError):
    """A record a peer refuses: ``index`` is its place among the game's records."""

    def __init__(self, index: int, reason: str) -> None:
        super().__init__(f"record {index}: {reason}")
        self.index = index
        self.reason = reason


@dataclass(frozen=True)
class Shuffle:
    """Seat ``seat``'s deck: the deck before it, each card raised to its key, shuffled."""

    TAG: ClassVar[int] = 11
    seat: int
    cards: tuple[bytes, ...]


@dataclass(frozen=True)
class Strip:
    """Seat ``seat``'s hand: every dealt card but its own with its layer taken off."""

    TAG: ClassVar[int] = 12
    seat: int
    cards: tuple[bytes, ...]


@dataclass(frozen=True)
class Move:
    """An action in the public view: a placement or a turn, as RULES.md section 7 writes it."""

    TAG: ClassVar[int] = 3
    seat: int
    action: str


@dataclass(frozen=True)
class Open:
    """Seat ``seat`` opens its god: the name and its 32-byte key exponent."""

    TAG: ClassVar[int] = 13
    seat: int
    god: str
    key: bytes


@dataclass(frozen=True)
class Ack:
    """Seat ``seat`` accepts move ``of`` (a hidden seat waives its restriction for it)."""

    TAG: ClassVar[int] = 4
    seat: int
    of: int


@dataclass(frozen=True)
class Object:
    """Seat ``seat`` opens ``god`` and says move ``of`` breaks it: the move is void."""

    TAG: ClassVar[int] = 14
    seat: int
    of: int
    god: str
    key: bytes


@dataclass(frozen=True)
class Forfeit:
    """Seat ``seat`` records that seat ``late`` withheld what it owed past the clock: it loses."""

    TAG: ClassVar[int] = 15
    seat: int
    late: int
    reason: str


SecretRecord: TypeAlias = Shuffle | Strip | Move | Open | Ack | Object | Forfeit
TAGS: Final[dict[int, type]] = {
    c.TAG: c for c in (Shuffle, Strip, Move, Open, Ack, Object, Forfeit)
}


def encode_record(r: SecretRecord) -> bytes:
    """The canonical msgpack array ``[tag, seat, field...]`` of a record."""
    body: tuple[Value, ...]
    if isinstance(r, Shuffle | Strip):
        body = (r.TAG, r.seat, r.cards)
    elif isinstance(r, Move):
        body = (r.TAG, r.seat, r.action)
    elif isinstance(r, Open):
        body = (r.TAG, r.seat, r.god, r.key)
    elif isinstance(r, Ack):
        body = (r.TAG, r.seat, r.of)
    elif isinstance(r, Object):
        body = (r.TAG, r.seat, r.of, r.god, r.key)
    else:
        body = (r.TAG, r.seat, r.late, r.reason)
    return encode(body)


def decode_record(data: bytes) -> SecretRecord:
    """Read a record's bytes, checking its shape and the type of every field.

    Raises:
        DecodeError: not a record of SECRET.md 6 (names the field).
    """
    v = decode(data)
    if not isinstance(v, tuple) or len(v) < 2 or not isinstance(v[0], int):
        raise DecodeError("secret record: expected an array [tag, seat, ...]")
    tag, seat, rest = v[0], v[1], v[2:]
    kind = TAGS.get(tag)
    if kind is None:
        raise DecodeError(f"secret record: unknown tag {tag}")
    if not isinstance(seat, int) or isinstance(seat, bool) or not 0 <= seat < 4:
        raise DecodeError("secret record: seat must be 0 to 3")
    shapes: dict[type, tuple[type, ...]] = {
        Shuffle: (tuple,),
        Strip: (tuple,),
        Move: (str,),
        Open: (str, bytes),
        Ack: (int,),
        Object: (int, str, bytes),
        Forfeit: (int, str),
    }
    shape = shapes[kind]
    if len(rest) != len(shape) or any(
        not isinstance(x, t) or isinstance(x, bool) for x, t in zip(rest, shape, strict=True)
    ):
        names = ", ".join(t.__name__ for t in shape)
        raise DecodeError(f"secret record {kind.__name__}: expected fields ({names})")
    if kind is Shuffle or kind is Strip:
        cards = rest[0]
        assert isinstance(cards, tuple)
        owned = tuple(c for c in cards if isinstance(c, bytes))
        if len(owned) != len(cards):
            raise DecodeError(f"secret record {kind.__name__}: cards must be byte strings")
        return Shuffle(seat, owned) if kind is Shuffle else Strip(seat, owned)
    a, *more = rest
    if kind is Move:
        return Move(seat, str(a))
    if kind is Ack:
        return Ack(seat, int(a))  # type: ignore[arg-type]
    if kind is Open:
        return Open(seat, str(a), bytes(more[0]))  # type: ignore[arg-type]
    if kind is Object:
        return Object(seat, int(a), str(more[0]), bytes(more[1]))  # type: ignore[arg-type]
    return Forfeit(seat, int(a), str(more[0]))  # type: ignore[arg-type]


@dataclass
class SecretGame:
    """Checks a secret-god game record by record (SECRET.md 7); every peer runs one.

    ``pool`` is the header's god pool (at least one god a seat); ``players`` 2 to 4.
    After the last record, ``result`` says who won and why.
    """

    pool: tuple[str, ...]
    players: int
    decks: list[tuple[int, ...]] = field(default_factory=list)
    hands: list[tuple[int, ...]] = field(default_factory=list)
    gods: list[str] = field(default_factory=list)
    keys: list[int] = field(default_factory=list)
    position: Position = field(init=False)
    start: Position | None = None
    plays: list[Play] = field(default_factory=list)
    leaves: list[Leave] = field(default_factory=list)
    """The seats that left during play (3 or 4 players), where they left (SECRET.md 8.1)."""
    left: int = 0
    """The seats (bit mask) that resigned or lost on time during play."""
    closed: str = ""
    """``resign`` or ``time`` when a seat's leaving ended the public game, else empty."""
    index: int = 0
    pending: tuple[int, Turn, int, int] | None = None
    """The move awaiting acks: its record index, turn, the seats open when played, mover."""
    acked: int = 0
    opening: int = -1
    forfeited: int = 0
    result: tuple[int, str] | None = None
    """``(winner seat or -1, reason)`` once the game is decided after the audit."""
    ending: str = ""
    """How the game was decided, once it is: ``win``, ``forfeit`` (a record withheld),
    ``fault`` (the audit found a seat against its own god, or a wrong deal step), or the
    session's ``resign`` and ``time`` (``concede``)."""

    def __post_init__(self) -> None:
        if not 2 <= self.players <= 4:
            raise ValueError(f"players: expected 2 to 4, got {self.players}")
        if len(set(self.pool)) != len(self.pool) or len(self.pool) < self.players:
            raise ValueError(f"pool: {self.players} players need as many different gods")
        if len(self.pool) > MAX_DECK:
            raise ValueError(f"pool: a secret deal shuffles at most {MAX_DECK} gods")
        left = [g for g in self.pool if g not in SECRET_POOL]
        if left:
            raise ValueError(f"pool: {', '.join(left)} cannot be dealt secretly (SECRET.md 5)")
        self.gods = [""] * self.players
        self.keys = [0] * self.players
        self.position = new_game(self.players, "none")

    def clone(self) -> SecretGame:
        """A copy that can take records without changing this one (a log's fold)."""
        c = copy.copy(self)
        c.decks, c.hands = list(self.decks), list(self.hands)
        c.gods, c.keys, c.plays = list(self.gods), list(self.keys), list(self.plays)
        c.leaves = list(self.leaves)
        return c

    def concede(self, seat: int, kind: str, reason: str) -> None:
        """Seat ``seat`` leaves the game (``kind``: ``resign`` or ``time``): it loses.

        With 2 players, or before the first turn of play, the game is decided at once as the
        engine decides a resignation (RULES.md 5: the other side wins; with 3 players in setup
        no one). In play with 3 or 4 players the seat leaves as at a real table (SECRET.md
        8.1): with 3 its workers leave and the others play on, the last one left winning; with
        4 its side loses. The public game may then be over, and the gods still hidden are
        opened and audited as at any end (the leaver's among them).

        Raises:
            SecretRecordError: the game is decided, the seat has left, or (3 or 4 players) a
                move awaits its acks.
        """
        if self.result is not None:
            raise self._fail("the game is over")
        p = self.position
        if p.eliminated >> seat & 1 or self.left >> seat & 1:
            raise self._fail(f"seat {seat + 1} has left the game")
        if self.players == 2 or self.start is None or p.phase is not Phase.PLAY:
            won = resign(p, seat).winner if p.phase is not Phase.OVER else -1
            self.result = (-1 if won in (-1, NO_WINNER) else won, reason)
            if self.result[0] < 0 and self.players > 2:
                self.result = (-1, f"{reason}; no one else wins")
            self.ending = kind
            return
        if self.pending is not None:
            raise self._fail(f"seat {seat + 1} must answer the move awaiting acks first")
        self.position = resign(p, seat)
        self.leaves.append(Leave(len(self.plays), seat))
        self.left |= 1 << seat
        if self.opening == seat:
            self.opening = -1
        if self.position.phase is Phase.OVER:
            self.closed = kind
            self._maybe_finish()

    # -- the deal -------------------------------------------------------------------------

    @property
    def dealt(self) -> bool:
        """Whether every shuffle and strip step is in."""
        return len(self.hands) == self.players

    def card(self, seat: int) -> int:
        """What is left of ``seat``'s card after the deal (only its owner can open it)."""
        return self.hands[-1][seat]

    @property
    def known(self) -> int:
        """The seats (bit mask) whose gods are open."""
        return sum(1 << s for s, g in enumerate(self.gods) if g)

    def feed(self, r: SecretRecord) -> None:
        """Take the next record, or raise ``SecretRecordError`` saying why it is refused."""
        try:
            self._feed(r)
        except SecretRecordError:
            raise
        except ValueError as exc:
            raise SecretRecordError(self.index, str(exc)) from None
        self.index += 1

    def _fail(self, reason: str) -> SecretRecordError:
        return SecretRecordError(self.index, reason)

    def _feed(self, r: SecretRecord) -> None:
        if self.result is not None:
            raise self._fail("the game is over")
        if not 0 <= r.seat < self.players:
            raise self._fail(f"seat {r.seat + 1} is not in this game")
        if isinstance(r, Forfeit):
            self._forfeit(r)
        elif not self.dealt:
            self._deal(r)
        elif isinstance(r, Open):
            self._open(r)
        elif isinstance(r, Move):
            self._move(r)
        elif isinstance(r, Ack):
            self._ack(r)
        elif isinstance(r, Object):
            self._object(r)
        else:
            raise self._fail(f"a {type(r).__name__} after the deal")

    def _deal(self, r: SecretRecord) -> None:
        step = len(self.decks) + len(self.hands)
        if len(self.decks) < self.players:
            if not isinstance(r, Shuffle):
                raise self._fail(f"expected seat {len(self.decks) + 1}'s shuffle")
            if r.seat != len(self.decks):
                raise self._fail(
                    f"expected seat {len(self.decks) + 1}'s shuffle, not seat {r.seat + 1}'s"
                )
            if len(r.cards) != len(self.pool):
                raise self._fail(f"a shuffle holds {len(self.pool)} cards, got {len(r.cards)}")
            self.decks.append(tuple(from_bytes(c, f"card {i + 1}") for i, c in enumerate(r.cards)))
            return
        if not isinstance(r, Strip):
            raise self._fail(f"expected seat {len(self.hands) + 1}'s strip (deal step {step + 1})")
        if r.seat != len(self.hands):
            raise self._fail(
                f"expected seat {len(self.hands) + 1}'s strip, not seat {r.seat + 1}'s"
            )
        if len(r.cards) != self.players:
            raise self._fail(f"a strip holds {self.players} cards, got {len(r.cards)}")
        cards = tuple(from_bytes(c, f"card {i + 1}") for i, c in enumerate(r.cards))
        before = self.hands[-1] if self.hands else self.decks[-1][: self.players]
        if cards[r.seat] != before[r.seat]:
            raise self._fail(f"seat {r.seat + 1} must leave its own card as it was")
        self.hands.append(cards)

    # -- play -----------------------------------------------------------------------------

    def _check_opening(self, seat: int, god: str, key: bytes) -> None:
        if self.gods[seat]:
            raise self._fail(f"seat {seat + 1}'s god is already open ({self.gods[seat]})")
        if len(key) != KEY_BYTES:
            raise self._fail(f"the key must be {KEY_BYTES} bytes, got {len(key)}")
        why = reveal_error(self.card(seat), god, int.from_bytes(key, "big"), self.pool)
        if why:
            raise self._fail(f"seat {seat + 1}'s opening is refused: {why}")
        if god in self.gods:
            raise self._fail(f"{god} is already another seat's god")

    def _set_god(self, seat: int, god: str, key: bytes) -> None:
        self.gods[seat] = god
        self.keys[seat] = int.from_bytes(key, "big")

    def _open(self, r: Open) -> None:
        if self.pending is not None:
            raise self._fail("an opening while a move awaits its acks")
        self._check_opening(r.seat, r.god, r.key)
        self._set_god(r.seat, r.god, r.key)
        if self.position.phase is Phase.OVER:
            self._maybe_finish()
            return
        if r.seat != self.position.to_move:
            due = self.position.to_move + 1
            raise self._fail(f"seat {r.seat + 1} opens before a move; seat {due} is to move")
        self.opening = r.seat
        self._recheck()

    def _recheck(self) -> None:
        """Re-check the whole game so far under every open god (SECRET.md 7.2)."""
        if self.start is None:
            return
        check = audit(self.start, self.plays, tuple(self.gods), self.leaves)
        if check.fault is not None:
            self._decide_fault(check.fault.seat, check.fault.index, check.fault.reason)
            return
        self.position = check.position

    def _view(self, p: Position) -> Position:
        return replace(p, gods=tuple(self.gods))

    def _move(self, r: Move) -> None:
        if self.pending is not None:
            raise self._fail("a move while the last awaits its acks")
        p = self.position
        if r.seat != p.to_move:
            raise self._fail(f"seat {r.seat + 1} moved, but seat {p.to_move + 1} is to move")
        if self.opening not in (-1, r.seat):
            raise self._fail("an opening must come just before its seat's move")
        if p.phase is Phase.PLAY:
            turn = find_turn(self._view(p), r.action)
            self.pending = (self.index, turn, self.known, r.seat)
            self.acked = 1 << r.seat | self.position.eliminated
            self.position = apply_unchecked(self._view(p), turn)
        else:
            self.position = apply_action(p, parse_action(r.action))
            if self.position.phase is Phase.PLAY:
                self.start = self.position
        self.opening = -1
        if self.pending is None:
            return
        self._maybe_acked()

    def _maybe_acked(self) -> None:
        assert self.pending is not None
        every = (1 << self.players) - 1
        if self.acked != every:
            return
        _, turn, known, _ = self.pending
        self.plays.append(Play(turn, known))
        self.pending = None
        if self.position.phase is Phase.OVER:
            self._maybe_finish()

    def _ack(self, r: Ack) -> None:
        if self.pending is None or r.of != self.pending[0]:
            raise self._fail(f"an ack of record {r.of}, which awaits none")
        self._check_turn_to_ack(r.seat, r.of)
        self.acked |= 1 << r.seat
        self._maybe_acked()

    def _next_ack(self) -> int:
        """The seat whose ack (or objection) is due: seat order, starting after the mover."""
        assert self.pending is not None
        mover = self.pending[3]
        for i in range(1, self.players):
            s = (mover + i) % self.players
            if not self.acked >> s & 1:
                return s
        return -1

    def _check_turn_to_ack(self, seat: int, of: int) -> None:
        if self.acked >> seat & 1:
            raise self._fail(f"seat {seat + 1} owes no ack of record {of}")
        due = self._next_ack()
        if seat != due:
            raise self._fail(f"seat {due + 1}'s ack of record {of} is due first")

    def _object(self, r: Object) -> None:
        if self.pending is None or r.of != self.pending[0]:
            raise self._fail(f"an objection to record {r.of}, which awaits no ack")
        self._check_turn_to_ack(r.seat, r.of)
        self._check_opening(r.seat, r.god, r.key)
        assert self.start is not None
        gods = list(self.gods)
        gods[r.seat] = r.god
        _, turn, known, _ = self.pending
        why = objection_error(
            self.start, self.plays, tuple(gods), r.seat, Play(turn, known), self.leaves
        )
        if why:
            raise self._fail(f"seat {r.seat + 1}'s objection is refused: {why}")
        self._set_god(r.seat, r.god, r.key)
        self.pending = None
        self.position = audit(self.start, self.plays, tuple(self.gods), self.leaves).position

    # -- the end --------------------------------------------------------------------------

    def owed(self) -> tuple[int, ...]:
        """The seats that owe a record now: a deal step, an ack, or their opening at the end."""
        if self.result is not None:
            return ()
        if not self.dealt:  # the seat whose deal step is due
            return (len(self.decks) if len(self.decks) < self.players else len(self.hands),)
        if self.pending is not None:
            return (self._next_ack(),)
        if self.position.phase is Phase.OVER:
            return tuple(
                s for s, g in enumerate(self.gods) if not g and not self.forfeited >> s & 1
            )
        return ()

    def _forfeit(self, r: Forfeit) -> None:
        if r.seat == r.late:
            raise self._fail("a seat cannot record its own forfeit")
        if not 0 <= r.late < self.players or r.late not in self.owed():
            raise self._fail(f"seat {r.late + 1} owes no record now")
        self.forfeited |= 1 << r.late
        partner = (r.late + 2) % 4 if self.players == 4 else r.late
        if (self.left >> r.late | self.left >> partner) & 1:
            # A seat that left (or, of four, whose partner's leaving lost their side) owes its
            # opening for the audit of its own turns alone: the others' result stands without
            # it (SECRET.md 8.1), so withholding it cannot undo the loss.
            self._maybe_finish()
            return
        self.ending = "forfeit"
        if self.players == 2:
            self.result = (1 - r.late, f"seat {r.late + 1} forfeits: {r.reason}")
            return
        self.result = (-1, f"seat {r.late + 1} forfeits: {r.reason}; no one else wins")

    def _decide_fault(self, seat: int, index: int, reason: str) -> None:
        winner = 1 - seat if self.players == 2 else -1
        self.result = (winner, f"seat {seat + 1} loses from turn {index + 1}: {reason}")
        self.ending = "fault"

    def _maybe_finish(self) -> None:
        if self.owed() or self.result is not None:
            return
        try:
            audit_deal(self.pool, self.players, self.decks, self.hands, self.keys, self.forfeited)
        except DealFault as fault:
            winner = 1 - fault.seat if self.players == 2 else -1
            self.result = (winner, f"the deal's audit: {fault}")
            self.ending = "fault"
            return
        assert self.start is not None
        check = audit(self.start, self.plays, tuple(self.gods), self.leaves)
        if check.fault is not None:
            self._decide_fault(check.fault.seat, check.fault.index, check.fault.reason)
            return
        w = check.position.winner
        audited = "every god open" if not self.forfeited else "every god open but the withheld"
        self.result = (w, f"seat {w + 1} wins; {audited}, the deal and the game audited")
        self.ending = self.closed or "win"


def deal_cards(pool: Sequence[str]) -> tuple[int, ...]:
    """The deck before the first shuffle: the pool's cards in pool order."""
    return tuple(card_of(g) for g in pool)


def card_bytes(cards: Sequence[int]) -> tuple[bytes, ...]:
    """Cards as records carry them."""
    return tuple(to_bytes(c) for c in cards)
