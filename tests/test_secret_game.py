"""Whole secret-god games between bots (protocol/SECRET.md 7): every peer's checker takes the
same records; reveals, objections, waivers, forfeits and the end audit as the document says."""

from __future__ import annotations

import hashlib
import random
from dataclasses import dataclass, field, replace

import pytest

from santorini_p2p.engine import (
    Phase,
    Position,
    Turn,
    apply_unchecked,
    is_legal,
    legal_actions,
    legal_turns,
)
from santorini_p2p.engine.secrecy import SECRET_POOL, Play, objection_error, restricts_opponents
from santorini_p2p.wire.secret import (
    DealKey,
    card_of,
    from_bytes,
    open_card,
    shuffle,
    shuffle_order,
    strip,
)
from santorini_p2p.wire.secretgame import (
    DEFAULT_POOL,
    MAX_DECK,
    Ack,
    Forfeit,
    Move,
    Object,
    Open,
    SecretGame,
    SecretRecord,
    SecretRecordError,
    Shuffle,
    Strip,
    card_bytes,
    decode_record,
    encode_record,
)


def _seed(label: str) -> bytes:
    return hashlib.blake2b(label.encode(), digest_size=32).digest()


@dataclass
class Bot:
    """A seat's program: its secret key, its own god once dealt, and its choices."""

    seat: int
    tag: str
    key: DealKey = field(init=False)
    god: str = ""
    rng: random.Random = field(init=False)
    withhold: bool = False

    def __post_init__(self) -> None:
        self.key = DealKey.from_seed(_seed(f"{self.tag} key {self.seat}"))
        self.rng = random.Random(f"{self.tag} {self.seat}")

    def opening(self) -> Open:
        return Open(self.seat, self.god, self.key.e.to_bytes(32, "big"))

    def turn(self, game: SecretGame) -> tuple[Turn, bool]:
        """A turn, and whether it needs the power (so it must carry the opening)."""
        gods = list(game.gods)
        gods[self.seat] = self.god
        view = replace(game.position, gods=tuple(gods))
        turns = legal_turns(view)
        turn = self.rng.choice(turns)
        plain = replace(view, gods=tuple("" if s == self.seat else g for s, g in enumerate(gods)))
        same = is_legal(plain, turn) and _board(apply_unchecked(plain, turn)) == _board(
            apply_unchecked(view, turn)
        )
        return turn, not same and not game.gods[self.seat]


def _board(p: Position) -> tuple[int, ...]:
    return (p.ge1, p.ge2, p.ge3, p.domes, *p.workers, p.winner, p.eliminated)


def _deal(bots: list[Bot], pool: tuple[str, ...]) -> list[SecretRecord]:
    records: list[SecretRecord] = []
    deck = tuple(card_of(g) for g in pool)
    for b in bots:
        deck = shuffle(deck, b.key, shuffle_order(_seed(f"{b.tag} order {b.seat}"), len(pool)))
        records.append(Shuffle(b.seat, card_bytes(deck)))
    hand = deck[: len(bots)]
    for b in bots:
        hand = strip(hand, b.key, b.seat)
        records.append(Strip(b.seat, card_bytes(hand)))
    return records


class Table:
    """Peers that each check every record with their own ``SecretGame``."""

    def __init__(self, bots: list[Bot], pool: tuple[str, ...]) -> None:
        self.bots = bots
        self.games = [SecretGame(pool, len(bots))]
        """One checker stands for every peer's (each runs the same code on the same bytes);
        the tests give the whole log to a fresh reader as well."""
        self.log: list[bytes] = []
        self.objections = 0
        self.opened_at: dict[int, int] = {}

    @property
    def game(self) -> SecretGame:
        return self.games[0]

    def send(self, r: SecretRecord) -> None:
        data = encode_record(r)
        assert decode_record(data) == r
        for g in self.games:
            g.feed(decode_record(data))
        self.log.append(data)
        if isinstance(r, Open | Object):
            self.opened_at[r.seat] = len(self.log) - 1

    def play(self, pool: tuple[str, ...], limit: int = 400) -> None:
        for r in _deal(self.bots, pool):
            self.send(r)
        for b in self.bots:
            b.god = open_card(self.game.card(b.seat), b.key, pool)
        for _ in range(limit):
            g = self.game
            if g.result is not None:
                return
            owed = g.owed()
            if owed:
                for s in owed:
                    if self.bots[s].withhold:
                        by = next(x for x in range(len(self.bots)) if x != s)
                        self.send(Forfeit(by, s, "no opening within the clock"))
                        break
                    self.send(self.bots[s].opening())
                continue
            p = g.position
            mover = self.bots[p.to_move]
            if p.phase is not Phase.PLAY:
                self.send(Move(mover.seat, str(mover.rng.choice(legal_actions(p)))))
                continue
            turn, needs = mover.turn(g)
            if needs:
                self.send(mover.opening())
            self.send(Move(mover.seat, str(turn)))
            self._answer(len(self.log) - 1)
        raise AssertionError("the game did not end")

    def _answer(self, index: int) -> None:
        g = self.game
        if g.pending is None:
            return
        _, turn, known, mover = g.pending
        n = len(self.bots)
        for b in [self.bots[(mover + i) % n] for i in range(1, n)]:
            if g.pending is None:
                return
            if g.acked >> b.seat & 1:
                continue
            if not g.gods[b.seat] and restricts_opponents(b.god):
                gods = list(g.gods)
                gods[b.seat] = b.god
                assert g.start is not None
                if (
                    objection_error(g.start, g.plays, tuple(gods), b.seat, Play(turn, known))
                    is None
                ):
                    self.objections += 1
                    self.send(Object(b.seat, index, b.god, b.key.e.to_bytes(32, "big")))
                    return
            self.send(Ack(b.seat, index))


def _contains_god(data: bytes, pool: tuple[str, ...]) -> list[str]:
    found = [g for g in pool if g.encode() in data]
    for g in pool:
        if card_of(g).to_bytes(256, "big") in data:
            found.append(f"{g}'s card")
    return found


def _pool(tag: str) -> tuple[str, ...]:
    if tag in "ac":
        return DEFAULT_POOL
    chosen = set(random.Random(tag).sample(SECRET_POOL, MAX_DECK))
    return tuple(g for g in SECRET_POOL if g in chosen)


@pytest.mark.parametrize(("players", "tag"), [(2, "a"), (2, "b"), (3, "c"), (3, "d")])
def test_a_secret_game_ends_audited_and_no_god_is_in_the_clear_before_its_opening(
    players: int, tag: str
) -> None:
    bots = [Bot(s, tag) for s in range(players)]
    pool = _pool(tag)
    table = Table(bots, pool)
    table.play(pool)
    results = {g.result for g in table.games}
    assert len(results) == 1
    winner, reason = table.game.result or (None, "")
    assert "audited" in reason, reason
    assert winner == table.game.position.winner
    assert sorted(table.game.gods) == sorted(b.god for b in bots)
    for b in bots:
        before = b"".join(table.log[: table.opened_at[b.seat]])
        assert b.god not in _contains_god(before, pool)
        assert f"{b.god}'s card" not in _contains_god(before, pool)
    # A reader given the log alone reaches the same verdict.
    reader = SecretGame(pool, players)
    for data in table.log:
        reader.feed(decode_record(data))
    assert reader.result == table.game.result


def _scripted(pool: tuple[str, ...], want: dict[int, str]) -> tuple[Table, list[Bot]]:
    """A dealt table whose seats hold the gods ``want`` asks for (tries deal seeds in turn)."""
    for n in range(64):
        bots = [Bot(s, f"scripted {n}") for s in range(2)]
        table = Table(bots, pool)
        for r in _deal(bots, pool):
            table.send(r)
        for b in bots:
            b.god = open_card(table.game.card(b.seat), b.key, pool)
        if all(bots[s].god == g for s, g in want.items()):
            return table, bots
    raise AssertionError("no deal gave the gods asked for")


def _key(b: Bot) -> bytes:
    return b.key.e.to_bytes(32, "big")


def _moves(table: Table, *texts: str) -> None:
    """Each text is played by the seat to move and acknowledged by the other."""
    for text in texts:
        seat = table.game.position.to_move
        table.send(Move(seat, text))
        if table.game.pending is not None:
            table.send(Ack(1 - seat, len(table.log) - 1))


def test_a_hidden_athena_objects_to_a_move_up_and_the_mover_plays_again() -> None:
    table, (athena, _) = _scripted(("athena", "atlas"), {0: "athena"})
    _moves(table, "c3,a1", "d4,e5", "c3>c2^c3", "d4>d3^d4")  # c3 and d4 at level 1
    _moves(table, "c2>c3^b2")  # Athena, hidden, moves up (a plain turn): no opening
    assert table.game.gods == ["", ""]
    table.send(Move(1, "d3>d4^d3"))  # seat 2 moves up
    up = len(table.log) - 1
    table.send(Object(0, up, "athena", _key(athena)))
    assert table.game.gods == ["athena", ""]
    assert table.game.position.to_move == 1
    with pytest.raises(SecretRecordError, match="illegal turn: 'd3>d4"):
        table.game.feed(Move(1, "d3>d4^d3"))
    _moves(table, "d3>e3^d3")
    assert table.game.position.to_move == 0


def test_an_unclaimed_restriction_is_waived_and_the_waiver_is_the_signed_ack() -> None:
    table, (athena, _) = _scripted(("athena", "atlas"), {0: "athena"})
    _moves(table, "c3,a1", "d4,e5", "c3>c2^c3", "d4>d3^d4", "c2>c3^b2")
    _moves(table, "d3>d4^d3")  # Athena's owner acks: the restriction is waived
    table.send(athena.opening())
    _moves(table, "c3>c2^c3")  # the re-check under Athena accepts the waived move
    assert table.game.result is None
    assert table.game.plays[-2].known == 0


def test_an_objection_that_the_turn_breaks_nothing_is_refused_with_a_reason() -> None:
    table, (athena, _) = _scripted(("athena", "atlas"), {0: "athena"})
    _moves(table, "c3,a1", "d4,e5", "c3>c2^c3", "d4>d3^d4", "c2>c3^b2")
    table.send(Move(1, "d3>e3^d3"))
    with pytest.raises(SecretRecordError, match="breaks no rule of athena"):
        table.game.feed(Object(0, len(table.log) - 1, "athena", _key(athena)))


def test_a_forged_or_wrong_opening_is_refused_with_a_reason() -> None:
    table, (athena, other) = _scripted(("athena", "atlas"), {0: "athena"})
    _moves(table, "c3,a1", "d4,e5")
    with pytest.raises(SecretRecordError, match="atlas with this key does not give"):
        table.game.feed(Open(0, "atlas", _key(athena)))
    with pytest.raises(SecretRecordError, match="athena with this key does not give"):
        table.game.feed(Open(0, "athena", _key(other)))
    with pytest.raises(SecretRecordError, match="'zeus' is not a god of this game's pool"):
        table.game.feed(Open(0, "zeus", _key(athena)))
    with pytest.raises(SecretRecordError, match="the key must be 32 bytes"):
        table.game.feed(Open(0, "athena", b"\x01"))


def test_a_hidden_pan_that_won_unopened_and_built_on_is_found_and_loses() -> None:
    table, (pan, _) = _scripted(("pan", "atlas"), {0: "pan"})
    _moves(table, "c3,a1", "e5,e1")
    _moves(table, "c3>c2^b2", "e5>d5^e5", "c2>c3^c2", "e1>d1^e1", "c3>c2^b2", "d5>d4^e5")
    _moves(table, "c2>b2^c2", "d1>d2^e1")  # Pan stands on level 2
    _moves(table, "b2>a3^a4")  # down two levels: Pan's win, played as a plain turn and built on
    assert table.game.result is None
    _moves(table, "d4>d5^e5")
    table.send(pan.opening())
    winner, reason = table.game.result or (None, "")
    assert winner == 1
    assert "seat 1 loses from turn 9: b2>a3^a4 is not legal for pan" in reason


def test_a_seat_that_withholds_its_opening_at_the_end_forfeits_in_the_log() -> None:
    bots = [Bot(s, "g") for s in range(2)]
    pool = _pool("g")
    bots[1].withhold = True  # in game "g" seat 2 (Hera) is still hidden at the end
    table = Table(bots, pool)
    table.play(pool)
    winner, reason = table.game.result or (None, "")
    forfeits = [decode_record(d) for d in table.log if isinstance(decode_record(d), Forfeit)]
    assert forfeits == [Forfeit(0, 1, "no opening within the clock")]
    assert winner == 0
    assert "seat 2 forfeits" in reason


def test_acks_come_in_seat_order_after_the_mover() -> None:
    bots = [Bot(s, "order") for s in range(3)]
    table = Table(bots, DEFAULT_POOL)
    for r in _deal(bots, DEFAULT_POOL):
        table.send(r)
    for text in ("c3,a1", "d4,e5", "b4,e1"):
        table.send(Move(table.game.position.to_move, text))
    table.send(Move(0, "c3>c2^c3"))
    with pytest.raises(SecretRecordError, match="seat 2's ack of record 9 is due first"):
        table.game.feed(Ack(2, 9))
    table.send(Ack(1, 9))
    table.send(Ack(2, 9))
    assert table.game.position.to_move == 1


def test_a_forfeit_of_a_seat_that_owes_nothing_is_refused() -> None:
    table, _ = _scripted(("athena", "atlas"), {})
    with pytest.raises(SecretRecordError, match="seat 2 owes no record now"):
        table.game.feed(Forfeit(0, 1, "slow"))


def test_a_planted_card_is_found_by_the_deal_audit_and_its_seat_loses() -> None:
    pool = DEFAULT_POOL
    bots = [Bot(s, "plant") for s in range(2)]
    records = _deal(bots, pool)
    shuffled = records[1]
    assert isinstance(shuffled, Shuffle)
    planted = Shuffle(1, (shuffled.cards[1], *shuffled.cards[1:]))
    game = SecretGame(pool, 2)
    for r in [records[0], planted]:
        game.feed(r)
    assert from_bytes(planted.cards[0], "card") == from_bytes(planted.cards[1], "card")
    deck = tuple(from_bytes(c, "card") for c in planted.cards)
    hand = deck[:2]
    for b in bots:
        hand = strip(hand, b.key, b.seat)
        game.feed(Strip(b.seat, card_bytes(hand)))
    game.result = None
    game.gods = ["x", "y"]
    game.keys = [b.key.e for b in bots]
    game.start = game.position
    game.position = replace(game.position, winner=0)
    game._maybe_finish()
    winner, reason = game.result or (None, "")
    assert winner == 0
    assert "seat 2's shuffle" in reason
