"""A seat that resigns or runs out of time in a secret-gods game (protocol/SECRET.md 8.1), as
the checker every peer and reader runs decides it: with 3 players it leaves and the others play
on, with 4 its side loses, and the audit at the end replays its leaving where it stands."""

from __future__ import annotations

import pytest

from santorini_p2p.engine import Phase, legal_actions
from santorini_p2p.engine.secrecy import Leave, audit
from santorini_p2p.wire.secret import open_card
from santorini_p2p.wire.secretgame import (
    DEFAULT_POOL,
    Forfeit,
    Move,
    SecretRecordError,
)
from tests.test_secret_game import Bot, Table, _deal


def _table(players: int, tag: str) -> Table:
    t = Table([Bot(s, tag) for s in range(players)], DEFAULT_POOL)
    for r in _deal(t.bots, DEFAULT_POOL):
        t.send(r)
    for b in t.bots:
        b.god = open_card(t.game.card(b.seat), b.key, DEFAULT_POOL)
    return t


def _step(t: Table) -> None:
    """One record's worth of play: an owed opening, or the mover's action and its answers."""
    g = t.game
    owed = g.owed()
    if owed:
        s = owed[0]
        if t.bots[s].withhold:
            by = next(x for x in range(len(t.bots)) if x not in owed)
            t.send(Forfeit(by, s, "no opening within the clock"))
        else:
            t.send(t.bots[s].opening())
        return
    p = g.position
    mover = t.bots[p.to_move]
    if p.phase is not Phase.PLAY:
        t.send(Move(mover.seat, str(mover.rng.choice(legal_actions(p)))))
        return
    turn, needs = mover.turn(g)
    if needs:
        t.send(mover.opening())
    t.send(Move(mover.seat, str(turn)))
    t._answer(len(t.log) - 1)


def _play_turns(t: Table, turns: int) -> None:
    while len(t.game.plays) < turns or t.game.pending is not None:
        assert t.game.position.phase is not Phase.OVER
        _step(t)


def _finish(t: Table) -> None:
    for _ in range(400):
        if t.game.result is not None:
            return
        _step(t)
    raise AssertionError("the game did not end")


def test_three_players_the_seat_that_resigns_leaves_and_the_last_one_left_wins() -> None:
    t = _table(3, "leave3")
    _play_turns(t, 2)
    g = t.game
    quitter = (g.position.to_move + 1) % 3  # not the seat to move: the move stays where it is
    to_move = g.position.to_move
    g.concede(quitter, "resign", f"seat {quitter + 1} resigns")
    assert g.result is None  # play goes on
    assert g.position.eliminated == 1 << quitter
    assert g.position.workers[quitter] == 0  # its workers left the board
    assert g.position.to_move == to_move
    assert g.leaves == [Leave(2, quitter)]
    with pytest.raises(SecretRecordError, match=f"seat {quitter + 1} has left the game"):
        g.concede(quitter, "resign", "again")
    # The second seat to leave ends the public game: the last one left wins it, and the gods
    # still hidden (the first leaver's among them) are owed for the audit.
    _play_turns(t, 3)
    if g.position.phase is Phase.PLAY:
        second = next(s for s in range(3) if s not in (quitter, g.position.to_move))
        g.concede(second, "time", f"seat {second + 1} ran out of time")
        last = g.position.to_move
        assert g.position.phase is Phase.OVER
        assert g.position.winner == last
        assert g.owed() == tuple(s for s in range(3) if not g.gods[s])
        _finish(t)
        assert g.result is not None
        assert g.result[0] == last
        assert g.ending == "time"  # the leaving that ended the game
    else:
        _finish(t)
    assert all(g.gods)  # every god opened for the audit, the leaver's too
    # The audit replays the leaving where it stands: the position it reaches is the game's.
    assert g.start is not None
    check = audit(g.start, g.plays, tuple(g.gods), g.leaves)
    assert check.position.eliminated & 1 << quitter
    assert check.position.winner == g.position.winner


def test_four_players_a_resignation_loses_for_the_side_once_every_god_is_audited() -> None:
    t = _table(4, "leave4")
    _play_turns(t, 3)
    g = t.game
    quitter = g.position.to_move
    g.concede(quitter, "resign", f"seat {quitter + 1} resigns")
    assert g.position.phase is Phase.OVER
    assert g.position.side_of(g.position.winner) != g.position.side_of(quitter)
    assert g.result is None  # not final before the gods still hidden are opened and audited
    assert g.owed() == tuple(s for s in range(4) if not g.gods[s])
    _finish(t)
    assert g.result is not None
    assert all(g.gods)
    assert g.ending == "resign"
    assert g.result[0] % 2 != quitter % 2


def test_a_seat_that_left_and_withholds_its_opening_forfeits_and_the_result_stands() -> None:
    t = _table(3, "withhold")
    _play_turns(t, 1)
    g = t.game
    quitter = g.position.to_move
    hidden = not g.gods[quitter]
    g.concede(quitter, "time", f"seat {quitter + 1} ran out of time")
    assert hidden  # this table's leaver kept its god hidden
    t.bots[quitter].withhold = True
    _finish(t)
    assert g.result is not None
    assert g.forfeited == 1 << quitter
    assert not g.gods[quitter]
    assert all(god for s, god in enumerate(g.gods) if s != quitter)
    assert g.ending == "win"
    assert g.result[0] not in (-1, quitter)
    assert "every god open but the withheld" in g.result[1]


def test_a_seat_still_in_the_game_that_withholds_its_opening_forfeits_as_before() -> None:
    t = _table(3, "withhold")
    _play_turns(t, 1)
    g = t.game
    quitter = g.position.to_move
    g.concede(quitter, "time", f"seat {quitter + 1} ran out of time")
    for s in range(3):
        t.bots[s].withhold = s != quitter
    while g.result is None and g.position.phase is not Phase.OVER:
        _step(t)
    assert any(not g.gods[s] for s in range(3) if s != quitter)  # one still plays hidden
    _finish(t)
    assert g.result is not None
    assert g.ending == "forfeit"
    assert g.result[0] == -1


def test_a_resignation_waits_for_the_acks_of_the_move_before_it() -> None:
    t = _table(3, "pending")
    _play_turns(t, 1)
    g = t.game
    mover = g.position.to_move
    turn, needs = t.bots[mover].turn(g)
    if needs:
        t.send(t.bots[mover].opening())
    t.send(Move(mover, str(turn)))
    assert g.pending is not None
    with pytest.raises(SecretRecordError, match="must answer the move awaiting acks first"):
        g.concede((mover + 1) % 3, "resign", "too soon")


@pytest.mark.parametrize(("players", "winner"), [(2, 1), (3, -1), (4, 1)])
def test_a_resignation_before_play_decides_at_once(players: int, winner: int) -> None:
    t = _table(players, "setup")
    g = t.game
    assert g.position.phase is Phase.PLACE
    g.concede(0, "resign", "seat 1 resigns")
    assert g.result is not None
    assert g.result[0] == winner
    assert g.ending == "resign"


def test_four_players_the_leavers_partner_cannot_undo_the_loss_by_withholding() -> None:
    t = _table(4, "p4b")
    _play_turns(t, 3)
    g = t.game
    quitter = g.position.to_move
    g.concede(quitter, "resign", f"seat {quitter + 1} resigns")
    partner = (quitter + 2) % 4
    assert not g.gods[partner]  # this table's partner kept its god hidden
    t.bots[partner].withhold = True
    _finish(t)
    assert g.result is not None
    assert g.forfeited == 1 << partner
    assert g.ending == "resign"
    assert g.result[0] % 2 != quitter % 2  # the other side's win stands
