"""Secret gods carried by the session (protocol/SECRET.md 12): the deal, hidden play,
objections, openings, the audit and forfeits as records of the main log, with its clocks,
resume and replay files, over the in-memory link of ``tests.net.harness``."""

from __future__ import annotations

import pytest

from santorini_p2p.engine import Phase
from santorini_p2p.engine.secrecy import restricts_opponents
from santorini_p2p.net.secretseat import OWED_MS
from santorini_p2p.net.session import GRACE_MS, Session
from santorini_p2p.net.trust import KnownPeers
from santorini_p2p.replay.timeline import read_timeline
from santorini_p2p.replay.verify import verify_bytes
from santorini_p2p.wire.log import read_log
from santorini_p2p.wire.messages import (
    Act,
    Forfeit,
    Header,
    Object,
    Open,
    Result,
    Shuffle,
    Strip,
)
from santorini_p2p.wire.secretgame import DEFAULT_POOL
from tests.net.harness import Net

SECRET = ("chat", "secret")


def _net(tmp_path, players: int, seed: int, pool: tuple[str, ...] = DEFAULT_POOL) -> Net:
    return Net.create(tmp_path, players, "random", pool=pool, options=SECRET, seed=seed)


def _identical_and_verified(net: Net) -> bytes:
    data = net.journals()
    assert all(d == data[0] for d in data), net.summary()
    assert read_log(data[0]).is_complete
    report = verify_bytes(data[0])
    assert report.ok, report
    return data[0]


def _opened_by(records, seat: int) -> int:
    """The number of the record that opened ``seat``'s god (an opening or an objection)."""
    return next(r.index for r in records if isinstance(r.message, Open | Object) and r.seat == seat)


@pytest.mark.parametrize(("players", "seed"), [(2, 3), (3, 3), (4, 5)])
def test_secret_games_finish_with_identical_verifying_replays(tmp_path, players, seed):
    net = _net(tmp_path, players, seed)
    net.run()
    assert not any(s.stopped for s in net.sessions), net.summary()
    _identical_and_verified(net)
    host = net.sessions[0]
    v = host.validator
    assert v is not None
    header = v.record(0).message
    assert isinstance(header, Header)
    assert header.protocol == 3
    assert "secret" in header.options
    kinds = [type(r.message) for r in v.records]
    # The draw, then every seat's shuffle and strip in seat order.
    deal = kinds[1 + 2 * players : 1 + 4 * players]
    assert deal == [Shuffle] * players + [Strip] * players
    g = v.secret
    assert g is not None
    assert g.result is not None
    assert v.result is not None
    assert v.result[1] in ("win", "fault")
    # Every god is open at the end, and each is the one its owner was dealt.
    assert all(g.gods)
    assert len(set(g.gods)) == players
    for s in net.sessions:
        seat = v.seat_of(s.identity.public_key)
        assert seat is not None
        assert g.gods[seat] == s.own_god
    assert kinds[-players:] == [Result] * players


@pytest.mark.parametrize(("players", "seed"), [(2, 3), (3, 3)])
def test_no_god_is_in_the_log_in_the_clear_before_it_is_opened(tmp_path, players, seed):
    net = _net(tmp_path, players, seed)
    net.run()
    data = _identical_and_verified(net)
    v = read_log(data)
    g = v.secret
    assert g is not None
    records = v.records
    names = [god.encode() for god in DEFAULT_POOL]
    first = min(_opened_by(records, s) for s in range(players))
    # Before the first opening, no record but the header (which lists the pool) names a god.
    for r in records[1:first]:
        assert not any(name in r.raw for name in names), (r.index, type(r.message).__name__)
    # And no seat's god is in any record before the one that opens it.
    for seat, god in enumerate(g.gods):
        opened = _opened_by(records, seat)
        assert opened >= first
        assert all(god.encode() not in r.raw for r in records[1:opened])


def test_an_objection_voids_the_act_and_its_mover_plays_again(tmp_path):
    net = _net(tmp_path, 2, 3)
    net.run()
    data = _identical_and_verified(net)
    v = read_log(data)
    records = v.records
    objections = [r for r in records if isinstance(r.message, Object)]
    assert objections, "this seed's game has a hidden god objecting"
    for o in objections:
        assert isinstance(o.message, Object)
        assert restricts_opponents(o.message.god)
        voided = records[o.message.objected]
        assert isinstance(voided.message, Act)
        assert o.index == voided.index + 1  # in place of the ack
        again = next(r for r in records[o.index + 1 :] if isinstance(r.message, Act))
        assert again.seat == voided.seat
    # The export shows it, and counts the void turn out.
    t = read_timeline(data)
    shown = [s.text for s in t.steps if s.kind == "object"]
    assert shown == [
        f"objects and reveals {o.message.god}: record {o.message.objected} is void"
        for o in objections
        if isinstance(o.message, Object)
    ]


def _play_until_host_moves(net: Net) -> None:
    """Step until the deal is done, play has begun and the host is to move."""
    for _ in range(5_000):
        host = net.sessions[0]
        v = host.validator
        if (
            v is not None
            and v.secret is not None
            and v.secret.dealt
            and v.position is not None
            and v.position.phase is Phase.PLAY
            and host.awaiting is not None
        ):
            return
        net.step()
    raise AssertionError(net.summary())


def test_a_seat_that_owes_an_ack_and_sends_none_forfeits_in_the_log(tmp_path):
    net = _net(tmp_path, 2, 7)
    _play_until_host_moves(net)
    net.down.add(1)
    net.step()  # the host moves; the joiner never hears it, and owes its ack
    host = net.sessions[0]
    v = host.validator
    assert v is not None
    late = v.seat_of(net.sessions[1].identity.public_key)
    assert v.pending_acks == (late,)
    net.tick_all(OWED_MS)  # not yet: the grace for the network is not over
    assert not any(isinstance(r.message, Forfeit) for r in v.records)
    net.tick_all(GRACE_MS + 100)
    [forfeit] = [r.message for r in v.records if isinstance(r.message, Forfeit)]
    assert forfeit.late == late
    assert v.result == (1 - late, "forfeit")
    # The joiner comes back, takes the forfeit, and both sign the same result.
    net.down.clear()
    net.run()
    assert not any(s.stopped for s in net.sessions), net.summary()
    data = _identical_and_verified(net)
    assert read_timeline(data).result == (1 - late, "forfeit")


def test_a_joiner_resumed_mid_game_finds_its_god_again_and_finishes(tmp_path):
    net = _net(tmp_path, 2, 11)
    _play_until_host_moves(net)
    for _ in range(30):
        net.step()
    crashed = net.sessions[1]
    god = crashed.own_god
    assert god
    path = crashed.journal_path
    crashed.close()
    net.down.add(1)
    for _ in range(20):
        net.step()
    net.sessions[1] = resumed = Session.resume(
        crashed.identity, path, home=crashed.home, now=net.clock, known=KnownPeers(crashed.home)
    )
    assert resumed.own_god == god  # drawn again from its own key: nothing else on disk
    old_id = net.peer_id
    net.peer_id = lambda i: b"\x01again" if i == 1 else old_id(i)  # type: ignore[method-assign]
    net.down.clear()
    net.run()
    assert not any(s.stopped for s in net.sessions), net.summary()
    _identical_and_verified(net)


def test_the_view_shows_ones_own_god_and_blanks_the_hidden_ones(tmp_path):
    net = _net(tmp_path, 3, 3)
    _play_until_host_moves(net)
    for s in net.sessions:
        v = s.validator
        assert v is not None
        g = v.secret
        assert g is not None
        seat = v.seat_of(s.identity.public_key)
        assert seat is not None
        p = s.position
        assert p is not None
        assert p.gods[seat] == s.own_god
        for other in s.hidden_seats():
            assert p.gods[other] == ""
        # The log's own position shows only the gods opened so far.
        assert v.position is not None
        assert v.position.gods == tuple(g.gods)


def test_the_side_panel_shows_a_question_mark_for_each_hidden_god(tmp_path):
    from santorini_p2p.net.views import SeatInfo
    from santorini_p2p.ui.board_view import render_panel

    net = _net(tmp_path, 3, 3)
    _play_until_host_moves(net)
    s = net.sessions[1]
    p = s.position
    assert p is not None
    hidden = s.hidden_seats()
    assert hidden
    seats = [
        SeatInfo(i, name, local=i not in hidden, human=True, hidden=i in hidden)
        for i, name in enumerate(s.seat_names())
    ]
    text = "".join(part for _, part in render_panel(p, seats, [], 60, 40))
    assert text.count("? (god dealt secretly, not revealed yet)") == len(hidden)
    assert f"{s.own_god}:" in text


def test_a_rematch_of_a_secret_game_is_secret_and_the_next_slot_starts(tmp_path):
    from santorini_p2p.net.rematch import header_check, next_start, rematch_settings

    net = _net(tmp_path, 2, 3)
    net.run()
    old = list(net.sessions)
    v0 = old[0].validator
    assert v0 is not None
    h = v0.header
    assert h is not None
    start = next_start(h, old[0].records)
    settings = rematch_settings(h, start)
    home0 = tmp_path / "p0"
    new = [
        Session.host(
            old[0].identity,
            settings,
            home=home0,
            now=net.clock,
            known=KnownPeers(home0),
            seats=tuple((s.public_key, s.name) for s in h.seats),
        )
    ]
    home1 = tmp_path / "p1"
    j = Session.join(old[1].identity, home=home1, now=net.clock, known=KnownPeers(home1))
    j.check_header = header_check(h, start)
    new.append(j)
    net.sessions = new
    net.run()
    assert not any(s.stopped for s in new), net.summary()
    data = _identical_and_verified(net)
    v = read_log(data)
    assert v.header is not None
    assert "secret" in v.header.options
    assert f"start={start}" in v.header.options
    assert v.seats[0] == h.seats[start].public_key
    assert v.secret is not None
    assert v.secret.result is not None


def test_a_forfeit_claimed_before_its_time_stops_the_game_with_a_report(tmp_path):
    net = _net(tmp_path, 2, 7)
    _play_until_host_moves(net)
    net.down.add(1)
    net.step()  # the host moves; the joiner has not heard it yet
    host = net.sessions[0]
    v = host.validator
    assert v is not None
    late = v.pending_acks[0]
    host._write(v.make_forfeit(host.identity, late, "no record in 120 s"))  # at once: forged
    net.down.clear()
    for _ in range(300):
        if net.sessions[1].stopped:
            break
        net.step()
    said = net.sessions[1].stopped
    assert said is not None
    assert said.startswith("premature forfeit claim at record ")
    assert "has owed it 0 ms of 120000 ms" in said


def test_a_spectator_of_a_secret_game_holds_the_players_replay(tmp_path):
    net = _net(tmp_path, 2, 3)
    w = net.watch("carol")
    net.run()
    for _ in range(1_000):
        if w.is_complete or w.stopped:
            break
        net.step()
    assert w.stopped is None, w.stopped
    assert w.is_complete
    data = _identical_and_verified(net)
    assert w.replay_bytes() == data


@pytest.mark.parametrize(("players", "every"), [(2, 4), (3, 2)])
def test_party_games_in_the_session_pass_the_cards_as_the_header_says(tmp_path, players, every):
    from santorini_p2p.engine.party import PARTY_POOL, pass_cards

    net = Net.create(
        tmp_path, players, "random", pool=PARTY_POOL, options=("party", f"pass={every}"), seed=5
    )
    net.run()
    assert not any(s.stopped for s in net.sessions), net.summary()
    data = _identical_and_verified(net)
    t = read_timeline(data)
    passes = [s for s in t.steps if s.kind == "pass"]
    assert passes
    turns = [int(s.text.rsplit(" ", 1)[1]) for s in passes]
    assert turns == list(range(every, every * len(turns) + 1, every))
    # Each pass is the position before it with every card moved on and the states cleared.
    for s in passes:
        before = t.steps[s.number - 2].position
        assert s.position == pass_cards(before)
    said = [n.text for n in net.sessions[0].notes if n.text.startswith("The cards pass on")]
    assert len(said) == len(passes)


def test_an_agora_game_in_the_session_is_won_alone(tmp_path):
    from santorini_p2p.engine.party import AGORA_GODS

    net = Net.create(tmp_path, 4, "random", pool=AGORA_GODS, options=("agora",), seed=5)
    net.run()
    assert not any(s.stopped for s in net.sessions), net.summary()
    data = _identical_and_verified(net)
    v = read_log(data)
    assert v.result is not None
    winner, reason = v.result
    assert reason == "win"
    t = read_timeline(data)
    assert t.result_text == f"{v.names[winner]} won alone"
    assert "won as a team" not in t.result_text
    notes = [n.text for n in net.sessions[0].notes]
    assert any(n.startswith(f"{v.names[winner]} won alone.") for n in notes), notes


def test_party_and_agora_headers_are_checked():
    from santorini_p2p.engine.party import PARTY_POOL
    from santorini_p2p.errors import ReplayError
    from santorini_p2p.wire.envelope import seal
    from santorini_p2p.wire.log import Validator, make_header
    from tests.net.harness import identity

    keys = [(identity(i).public_key, f"p{i}") for i in range(4)]
    cases = [
        (("party",), PARTY_POOL, 3, "party needs one option pass=K"),
        (("party", "pass=0"), PARTY_POOL, 3, "party needs one option pass=K"),
        (("pass=3",), PARTY_POOL, 3, "pass=K needs the option party"),
        (("agora",), PARTY_POOL, 3, "agora is 4 players"),
        (("agora", "party", "pass=3"), PARTY_POOL, 3, "different games"),
        (("party", "pass=3", "takeback"), PARTY_POOL, 3, "no takeback"),
        (("party", "pass=3"), ("apollo", "artemis", "bia"), 3, "bia is not offered in Party"),
        (
            ("party", "pass=3", "secret"),
            PARTY_POOL[:5],
            3,
            "party with secret gods is refused: a card dealt secretly opens only with the key "
            "of the player it was dealt to",
        ),
        (
            ("agora", "secret"),
            PARTY_POOL[:4],
            4,
            "agora with secret gods is refused: this version does not audit a hidden game",
        ),
    ]
    for options, pool, players, said in cases:
        h = make_header(bytes(16), keys[:players], gods="random", options=options, pool=pool)
        assert h.protocol == 3
        v = Validator()
        with pytest.raises(ReplayError, match=said):
            v.feed(seal(identity(0), h))


def test_a_seat_that_plays_its_hidden_god_wrongly_is_found_by_the_audit_and_loses():
    """A cheating program: its seat plays the public view and never opens before a turn, so a
    hidden Pan that steps down two levels (a win for Pan) and builds on is a fault."""
    import random

    from santorini_p2p.engine import legal_actions
    from santorini_p2p.wire.draw import commitment
    from santorini_p2p.wire.envelope import seal
    from santorini_p2p.wire.framing import encode_frames
    from santorini_p2p.wire.identity import Identity
    from santorini_p2p.wire.log import Validator, make_header
    from santorini_p2p.wire.messages import Commit, Reveal
    from santorini_p2p.wire.secretplay import seat_secret

    seed = 12
    ids = [Identity.from_seed(bytes([i + 1]) * 32, f"p{i + 1}") for i in range(2)]
    gid = bytes([seed, 0]) * 8
    keys = [(i.public_key, i.name) for i in ids]
    h = make_header(gid, keys, gods="random", options=("secret",), pool=("apollo", "pan"))
    v = Validator()
    log = [seal(ids[0], h)]

    def write(raw: bytes) -> None:
        v.feed(raw)
        log.append(raw)

    v.feed(log[0])
    nonces = [bytes([seed, i]) * 16 for i in range(2)]
    for i, me in enumerate(ids):
        c = commitment(gid, me.public_key, nonces[i])
        write(seal(me, Commit(v.next_seq, v.last_hash, c)))
    for i, me in enumerate(ids):
        write(seal(me, Reveal(v.next_seq, v.last_hash, nonces[i])))
    rng = random.Random(seed)
    by = {i.public_key: i for i in ids}
    sec = {i.public_key: seat_secret(i, gid) for i in ids}
    while not v.is_complete:
        g = v.secret
        assert g is not None
        if v.is_over:
            write(v.make_result(by[v.expected_signers()[0]]))
        elif v.pending_acks:
            seat = v.pending_acks[0]
            me = by[v.seats[seat]]
            s = sec[me.public_key]
            if not g.dealt:
                write(v.make_deal_step(me, s.key, s.order_seed))
            elif g.pending is None:
                write(v.make_open(me, s.god(g, seat), s.key_bytes))
            else:
                write(v.make_ack(me))
        else:
            p = v.position
            assert p is not None
            write(v.make_act(by[v.seats[p.to_move]], rng.choice(legal_actions(p)), 0))
    g = v.secret
    assert g is not None
    cheat = g.gods.index("pan")
    assert v.result == (1 - cheat, "fault")
    assert g.result is not None
    assert g.result[1].startswith(f"seat {cheat + 1} loses from turn ")
    assert g.result[1].endswith("is not legal for pan here")
    # Every peer's reader finds the same: the replay verifies, with the fault as its result.
    data = encode_frames(log)
    assert verify_bytes(data).ok
    assert read_timeline(data).result_text == f"{v.names[1 - cheat]} won (the audit found a fault)"


def test_a_seat_that_withholds_its_opening_at_the_end_forfeits_in_the_log(tmp_path):
    net = _net(tmp_path, 2, 11)
    cheat = net.sessions[1]
    honest = cheat._secret_record

    def withhold(v):  # a program that never opens its god at the end
        g = v.secret
        if g is not None and g.dealt and g.pending is None and v.position.phase is Phase.OVER:
            return None
        return honest(v)

    cheat._secret_record = withhold  # type: ignore[method-assign]
    for _ in range(20_000):
        v = net.sessions[0].validator
        if v is not None and v.secret is not None and v.position.phase is Phase.OVER:
            break
        net.step()
    host = net.sessions[0]
    v = host.validator
    assert v is not None
    g = v.secret
    assert g is not None
    for _ in range(50):
        net.step()  # every honest opening is in; the withheld one is owed
    late = v.seat_of(cheat.identity.public_key)
    assert not g.gods[late]  # this seed's withholder kept its god hidden all game
    assert v.pending_acks == (late,)
    net.tick_all(OWED_MS + GRACE_MS + 100)
    [forfeit] = [r.message for r in v.records if isinstance(r.message, Forfeit)]
    assert forfeit.late == late
    assert v.result == (1 - late, "forfeit")
    net.run()
    data = _identical_and_verified(net)
    assert read_timeline(data).result == (1 - late, "forfeit")
