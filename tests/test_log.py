"""The signed log: validator checks, lockstep order, seat rotation, clocks, journal."""

from __future__ import annotations

import os

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from santorini_p2p.engine import (
    Phase,
    format_position,
    legal_actions,
    parse_action,
    state_hash,
)
from santorini_p2p.engine.gods import GOD_NAMES
from santorini_p2p.errors import (
    ChainError,
    DecodeError,
    DesyncError,
    IllegalTurnError,
    JournalInUseError,
    RecordError,
    ReplayError,
    SignatureError,
    VersionError,
    WireError,
)
from santorini_p2p.wire import journal as journal_module
from santorini_p2p.wire.codec import decode, encode
from santorini_p2p.wire.draw import commitment
from santorini_p2p.wire.envelope import _open_general, signing_input
from santorini_p2p.wire.identity import Identity
from santorini_p2p.wire.log import (
    JOURNAL_RESERVE,
    Journal,
    Validator,
    chain_hash,
    encode_frames,
    iter_frames,
    make_header,
    open_envelope,
    read_log,
    seal,
    validate,
)
from santorini_p2p.wire.messages import Ack, Act, Header, Result, Reveal, decode_body, encode_body
from santorini_p2p.wire.script import play_script, script_nonce
from tests.replays import IDS, MODES, STRANGER, game

ALICE, BOB, CAROL = IDS[:3]


def started(players=2, gods="none", **header) -> tuple[Validator, list[bytes]]:
    """A validator past the commit-reveal draw, and the envelopes so far."""
    env = play_script(IDS[:players], [], gods=gods, finish=False, **header)
    return validate(env), env


def by_seat(v: Validator, seat: int) -> Identity:
    return next(i for i in IDS if i.public_key == v.seats[seat])


def expect(
    v: Validator,
    raw: bytes,
    error: type[Exception],
    match: str | None = None,
    *,
    verified: bool = False,
):
    before = v.next_seq
    with pytest.raises(ReplayError, match=match) as info:
        v.feed(raw, verified=verified)
    assert isinstance(info.value.__cause__, error), repr(info.value.__cause__)
    assert info.value.record_index == before
    assert v.next_seq == before, "a failed feed leaves the validator unchanged"
    return info.value


@pytest.mark.parametrize(("players", "gods"), MODES)
def test_every_mode_produces_a_complete_valid_replay(players, gods):
    env = game(players, gods)
    v = read_log(encode_frames(env))
    assert v.is_complete
    assert v.position is not None
    assert v.position.phase is Phase.OVER
    assert sorted(v.seats) == sorted(i.public_key for i in IDS[:players])
    assert v.next_seq == len(env)


def test_envelope_layout_and_chain():
    env = game()
    first = open_envelope(env[0])
    assert first.version == 1
    assert first.signer == ALICE.public_key
    header = decode_body(first.body)
    assert isinstance(header, Header)
    assert header.prev == bytes(32)
    second = decode_body(open_envelope(env[1]).body)
    assert second.prev == chain_hash(env[0])
    assert second.seq == 1


def test_seal_is_deterministic_and_canonical():
    h = make_header(bytes(16), [(ALICE.public_key, "alice"), (BOB.public_key, "bob")])
    assert seal(ALICE, h) == seal(ALICE, h)
    assert encode(decode_body(open_envelope(seal(ALICE, h)).body).seq) == b"\x00"


def test_draw_fixes_the_start_player_and_the_draft_pool():
    v, _ = started(2, "draft")
    assert v.position is not None
    assert len(v.drawn) == 4
    assert set(v.position.pool) == set(v.drawn)
    assert v.position.phase is Phase.GODS


def test_random_deal_gives_each_seat_a_god():
    v, _ = started(3, "random")
    assert v.position is not None
    assert v.position.gods == v.drawn
    assert v.position.phase is Phase.PLACE


def test_challenger_start_rotates_the_seats():
    v, _ = started(3, "challenger")
    challenger = v.seats[0]
    v.feed(v.make_act(by_seat(v, 0), "gods apollo,pan,atlas"))
    for seat in v.pending_acks:
        v.feed(v.make_ack(by_seat(v, seat)))
    for _ in range(2):
        p = v.position
        assert p is not None
        v.feed(v.make_act(by_seat(v, p.to_move), f"god {p.pool[0]}"))
        for seat in v.pending_acks:
            v.feed(v.make_ack(by_seat(v, seat)))
    before = v.seats
    v.feed(v.make_act(by_seat(v, 0), "start 3"))
    assert v.seats == (before[2], before[0], before[1])
    assert v.seats[1] == challenger
    assert v.pending_acks == (2, 0)
    assert v.expected_signers() == (v.seats[2],)


def test_action_by_the_wrong_seat_is_a_signature_error():
    v, _ = started()
    other = by_seat(v, 1)
    expect(v, v.make_act(other, "place b2,d4"), SignatureError, "seat 1 is to move")


def test_an_action_is_signed_alike_from_its_text_or_its_value():
    v, _ = started()
    mover = by_seat(v, 0)
    raw = v.make_act(mover, "place b2,d4", 1500)
    assert v.make_act(mover, parse_action("place b2,d4"), 1500) == raw
    n = v.next_seq
    v.feed(raw)
    v.feed(v.make_ack(by_seat(v, 1)))
    with pytest.raises(IllegalTurnError):
        v.make_act(by_seat(v, 1), parse_action("place b2,c3"))
    assert [r.raw for r in v.records_since(n)] == [r.raw for r in v.records[n:]]
    assert v.records_since(v.next_seq) == []


def test_own_records_fed_back_read_as_a_fresh_reader_reads_them():
    # A record made here and fed back as verified is not decoded again: same records anyway.
    v, env = started()
    for _ in range(40):
        p = v.position
        if p is None or v.is_over:
            break
        env.append(v.make_act(by_seat(v, p.to_move), legal_actions(p)[0], 700))
        v.feed(env[-1], verified=True)
        for seat in v.pending_acks:
            env.append(v.make_ack(by_seat(v, seat)))
            v.feed(env[-1], verified=True)
    fresh = read_log(encode_frames(env), complete=False)
    assert [r.message for r in v.records] == [r.message for r in fresh.records]
    assert [r.hash for r in v.records] == [r.hash for r in fresh.records]
    assert v.state_hash == fresh.state_hash


def test_illegal_turn_is_reported_with_the_position():
    v, _ = started()
    mover = by_seat(v, 0)
    v.feed(v.make_act(mover, "place b2,d4"))
    v.feed(v.make_ack(by_seat(v, 1)))
    p = v.position
    bad = seal(by_seat(v, 1), Act(v.next_seq, v.last_hash, "place b2,c3", 0, state_hash(p)))
    e = expect(v, bad, IllegalTurnError, "illegal action 'place b2,c3'")
    assert format_position(p) in str(e)


def test_state_hash_mismatch_is_a_desync():
    v, _ = started()
    raw = seal(by_seat(v, 0), Act(v.next_seq, v.last_hash, "place b2,d4", 0, bytes(32)))
    expect(v, raw, DesyncError, "state hash mismatch: the record says 0000")


def test_non_canonical_action_text_is_refused():
    v, _ = started()
    raw = seal(by_seat(v, 0), Act(v.next_seq, v.last_hash, "place d4,b2", 0, bytes(32)))
    expect(v, raw, RecordError)


def test_next_action_before_the_ack_is_refused():
    v, _ = started()
    v.feed(v.make_act(by_seat(v, 0), "place b2,d4"))
    p = v.position
    raw = seal(by_seat(v, 1), Act(v.next_seq, v.last_hash, "place a1,e5", 0, bytes(32)))
    expect(v, raw, RecordError, "acknowledged")
    assert p is v.position


def test_ack_with_the_wrong_hash_or_record():
    v, _ = started()
    v.feed(v.make_act(by_seat(v, 0), "place b2,d4"))
    acker = by_seat(v, 1)
    expect(v, seal(acker, Ack(v.next_seq, v.last_hash, v.next_seq - 1, bytes(32))), DesyncError)
    expect(v, seal(acker, Ack(v.next_seq, v.last_hash, 2, v.state_hash)), RecordError)
    expect(v, v.make_ack(by_seat(v, 0)), SignatureError, "acknowledgement is due")


def test_stranger_and_broken_chain_and_wrong_seq():
    v, _ = started()
    expect(v, v.make_act(STRANGER, "place b2,d4"), SignatureError, "holds no seat")
    mover = by_seat(v, 0)
    p = v.position
    q_hash = state_hash(p)  # not used: the chain check comes first
    expect(v, seal(mover, Act(v.next_seq, bytes(32), "place b2,d4", 0, q_hash)), ChainError)
    expect(v, seal(mover, Act(v.next_seq + 1, v.last_hash, "place b2,d4", 0, q_hash)), ChainError)


def test_a_record_verified_skips_only_the_signature_check():
    # A peer's own fresh record is not verified again; every other check still applies.
    v, _ = started()
    mover = by_seat(v, 0)
    bad_chain = seal(mover, Act(v.next_seq, bytes(32), "place b2,d4", 0, bytes(32)))
    expect(v, bad_chain, ChainError, verified=True)
    expect(v, v.make_act(by_seat(v, 1), "place b2,d4"), SignatureError, verified=True)
    raw = v.make_act(mover, "place b2,d4")
    wrong_hash = seal(mover, Act(v.next_seq, v.last_hash, "place b2,d4", 0, bytes(32)))
    expect(v, wrong_hash, DesyncError, verified=True)
    assert v.feed(raw, verified=True).raw == raw


def test_reveal_must_match_the_commitment():
    env = play_script(IDS[:2], [], finish=False)
    v = validate(env[:3])
    wrong = seal(ALICE, Reveal(3, v.last_hash, bytes(32)))
    expect(v, wrong, RecordError, "commitment")
    assert (
        commitment(bytes(16), ALICE.public_key, script_nonce(bytes(16), 0))
        == decode_body(open_envelope(env[1]).body).commitment
    )


def test_header_rules():
    v = Validator()
    h = make_header(bytes(16), [(ALICE.public_key, "alice"), (ALICE.public_key, "again")])
    expect(v, seal(ALICE, h), RecordError, "two seats")
    h = make_header(bytes(16), [(ALICE.public_key, "alice"), (BOB.public_key, "bob")])
    expect(v, seal(BOB, h), SignatureError, "first seat")
    h = make_header(bytes(16), [(ALICE.public_key, "alice"), (BOB.public_key, "b\tb")])
    expect(v, seal(ALICE, h), RecordError, "seat 2")
    h = make_header(bytes(16), [(ALICE.public_key, "a"), (BOB.public_key, "b")], options=["x"])
    expect(v, seal(ALICE, h), RecordError, "option")
    from dataclasses import replace

    h = make_header(bytes(16), [(ALICE.public_key, "a"), (BOB.public_key, "b")])
    expect(v, seal(ALICE, replace(h, protocol=4)), VersionError, "protocol version 4")
    expect(v, seal(ALICE, replace(h, protocol=3)), VersionError, "any other game .* protocol 2")
    secret = replace(h, options=("secret",))
    expect(v, seal(ALICE, secret), RecordError, "'secret' needs protocol 3")
    # A header of version 2 without its last field, the pool, is not of its version's shape.
    short = decode(encode_body(h))
    short = encode((*short[:4], 2, *short[5:]))
    raw = encode((1, ALICE.public_key, short, ALICE.sign(signing_input(short))))
    expect(v, raw, VersionError, "protocol 2 has 12 fields")
    # Protocol 2 lists its pool even when empty; without gods it is written only for an option.
    expect(v, seal(ALICE, replace(h, protocol=2)), RecordError, "is protocol 1")
    expect(v, seal(ALICE, replace(h, options=("takeback",))), RecordError, "needs protocol 2")
    expect(v, seal(ALICE, replace(h, gods="odd")), RecordError, "god selection")
    expect(v, seal(ALICE, replace(h, bank_ms=1000)), RecordError, "bank needs a time per move")


def test_clocks_drain_and_running_out_is_refused():
    v, _ = started(2, "none", move_ms=1_000, bank_ms=5_000)
    assert v.clocks == (5_000, 5_000)
    v.feed(v.make_act(by_seat(v, 0), "place b2,d4", clock_ms=3_500))
    assert v.clocks == (2_500, 5_000)
    v.feed(v.make_ack(by_seat(v, 1)))
    v.feed(v.make_act(by_seat(v, 1), "place a1,e5", clock_ms=900))
    assert v.clocks == (2_500, 5_000)
    v.feed(v.make_ack(by_seat(v, 0)))
    expect(v, v.make_act(by_seat(v, 0), "b2>c3^c4", clock_ms=3_501 + 1_000), RecordError, "ran out")


def test_timeout_claim_ends_the_game():
    v, _ = started(2, "none", move_ms=1_000, bank_ms=5_000)
    loser = v.seats[0]
    v.feed(v.make_timeout(by_seat(v, 1)))
    assert v.is_over
    assert v.result is not None
    assert v.result[1] == "time"
    assert v.seats[v.result[0]] != loser
    for seat in range(2):
        v.feed(v.make_result(by_seat(v, seat)))
    assert v.is_complete


def test_draw_by_agreement_in_three_players():
    v, _ = started(3)
    v.feed(v.make_offer(by_seat(v, 1), "draw"))
    v.feed(v.make_accept(by_seat(v, 0)))
    assert not v.is_over
    expect(v, v.make_accept(by_seat(v, 1)), SignatureError)
    v.feed(v.make_accept(by_seat(v, 2)))
    assert v.result == (-1, "draw")
    for seat in range(3):
        v.feed(v.make_result(by_seat(v, seat)))
    assert v.is_complete
    expect(v, v.make_offer(by_seat(v, 0), "abort"), RecordError, "only result|complete")


def test_an_action_withdraws_the_offer():
    v, _ = started()
    v.feed(v.make_offer(by_seat(v, 1), "abort"))
    offer_seq = v.next_seq - 1
    v.feed(v.make_act(by_seat(v, 0), "place b2,d4"))
    v.feed(v.make_ack(by_seat(v, 1)))
    from santorini_p2p.wire.messages import Accept

    expect(v, seal(by_seat(v, 0), Accept(v.next_seq, v.last_hash, "abort", offer_seq)), RecordError)


def test_resignation_in_three_players_removes_the_seat():
    v, _ = started(3)
    for squares in ("place a1,a2", "place c1,c2", "place e1,e2"):
        p = v.position
        v.feed(v.make_act(by_seat(v, p.to_move), squares))
        for seat in v.pending_acks:
            v.feed(v.make_ack(by_seat(v, seat)))
    v.feed(v.make_resign(by_seat(v, 1)))
    assert not v.is_over
    assert v.position.eliminated == 0b010
    v.feed(v.make_act(by_seat(v, 0), "a1>b2^b3"))
    assert v.pending_acks == (2,)
    v.feed(v.make_ack(by_seat(v, 2)))
    # A later end of the game is not a resignation: the reason is the record that ended it.
    v.feed(v.make_timeout(by_seat(v, 0)))
    assert v.result == (0, "time")


def test_result_rules():
    v, _ = started()
    expect(v, seal(ALICE, Result(v.next_seq, v.last_hash, 0, "win", v.state_hash)), RecordError)
    v.feed(v.make_resign(by_seat(v, 0)))
    expect(v, v.make_result(by_seat(v, 1)), SignatureError, "signs the result next")
    wrong = seal(by_seat(v, 0), Result(v.next_seq, v.last_hash, 0, "resign", v.state_hash))
    expect(v, wrong, RecordError, "the log gives 2")
    v.feed(v.make_result(by_seat(v, 0)))
    expect(v, v.make_offer(by_seat(v, 1), "draw"), RecordError, "only result")
    v.feed(v.make_result(by_seat(v, 1)))
    assert v.is_complete
    assert v.expected_signers() == ()


def test_incomplete_log_is_reported_one_past_the_end():
    env = game()
    with pytest.raises(ReplayError, match="truncated") as info:
        read_log(encode_frames(env[:-1]))
    assert info.value.record_index == len(env) - 1
    assert read_log(encode_frames(env[:-1]), complete=False).next_seq == len(env) - 1


def test_not_a_replay_file_and_bad_version():
    with pytest.raises(ReplayError, match="not a replay file") as info:
        read_log(b"hello world")
    assert info.value.record_index is None
    with pytest.raises(ReplayError, match="version 9") as info:
        read_log(b"SNTR\x09")
    assert isinstance(info.value.__cause__, VersionError)


def test_journal_appends_fsyncs_and_resumes(tmp_path):
    env = game()
    path = tmp_path / "game.journal"
    with Journal.create(path, env[0]) as j:
        for raw in env[1:20]:
            j.append(raw, own=True)
        with pytest.raises(ReplayError):
            j.append(env[25])
    assert path.read_bytes() == encode_frames(env[:20])
    # A crash in the middle of a write leaves a partial frame: resume trims it.
    with path.open("ab") as f:
        f.write(len(env[20]).to_bytes(4, "big") + env[20][:10])
    with Journal.open(path) as j:
        assert j.validator.next_seq == 20
        for raw in env[20:]:
            j.append(raw)
        assert j.validator.is_complete
    assert read_log(path.read_bytes()).is_complete


def on_disk(path) -> bytes:
    """The log in the journal at ``path``: its records, without the zeros written ahead."""
    return encode_frames(list(iter_frames(path.read_bytes(), padded=True)))


def _count_fsyncs(monkeypatch, path) -> list[int]:
    """From now on, note the length of the log in ``path`` at every fsync or fdatasync."""
    synced: list[int] = []
    for name in ("fsync", "fdatasync"):
        real = getattr(os, name, None)
        if real is None:
            continue

        def counting(fd: int, real=real) -> None:
            synced.append(len(on_disk(path)))
            real(fd)

        monkeypatch.setattr(os, name, counting)
    return synced


def test_journal_fsyncs_own_records_and_defers_received_ones(tmp_path, monkeypatch):
    # An own record must be on disk before it is sent; a received one only has to be written.
    env = game()
    path = tmp_path / "game.journal"
    with Journal.create(path, env[0]) as j:
        synced = _count_fsyncs(monkeypatch, path)
        j.append(env[1])
        j.append(env[2])
        # Written at once (a killed process loses nothing), not yet fsynced.
        assert on_disk(path) == encode_frames(env[:3])
        assert synced == []
        j.append(env[3], own=True)
        # One fsync covers the deferred records and the synced one.
        assert synced == [len(encode_frames(env[:4]))]
        j.append(env[4])
    # Closing fsyncs what was left unsynced.
    assert synced == [len(encode_frames(env[:4])), len(encode_frames(env[:5]))]
    with Journal.open(path) as j:
        assert j.validator.next_seq == 5


def test_journal_does_not_fsync_own_acknowledgements_and_results(tmp_path, monkeypatch):
    # An ack or a result is a function of the records before it (signing it again gives the
    # same bytes), so it is only written; the next fsynced record or close makes it durable.
    env = game()
    kinds = [type(decode_body(open_envelope(raw).body)) for raw in env]
    acked = kinds.index(Ack)
    path = tmp_path / "game.journal"
    with Journal.create(path, env[0]) as j:
        for raw in env[1:acked]:
            j.append(raw)
        synced = _count_fsyncs(monkeypatch, path)
        j.append(env[acked], own=True)
        assert on_disk(path) == encode_frames(env[: acked + 1])
        assert synced == []
        act = acked + kinds[acked:].index(Act)
        for raw in env[acked + 1 : act]:
            j.append(raw)
        j.append(env[act], own=True)
        assert synced == [len(encode_frames(env[: act + 1]))]
        for raw in env[act + 1 : -1]:
            j.append(raw)
        synced.clear()
        assert kinds[-1] is Result
        # The result that completes the log is the exception: the finished game is on disk
        # before anyone is told it is over.
        j.append(env[-1], own=True)
        assert synced == [len(encode_frames(env))]
    assert synced == [len(encode_frames(env))]


def test_journal_refuses_a_tampered_file(tmp_path):
    data = bytearray(encode_frames(game()))
    data[300] ^= 1
    path = tmp_path / "bad.journal"
    path.write_bytes(bytes(data))
    with pytest.raises(ReplayError):
        Journal.open(path)
    with pytest.raises(FileExistsError):
        Journal.create(path, game()[0])


def test_journal_writes_zeros_ahead_and_ends_as_a_replay_file(tmp_path):
    # Records are written over zeros written ahead, so a flush never has to grow the file;
    # the complete log is cut back to a replay file, byte for byte.
    env = game()
    path = tmp_path / "game.journal"
    with Journal.create(path, env[0]) as j:
        size = path.stat().st_size
        assert size >= len(encode_frames(env[:1])) + JOURNAL_RESERVE
        for raw in env[1:10]:
            j.append(raw, own=True)
        assert path.stat().st_size == size
        data = path.read_bytes()
        assert data.startswith(encode_frames(env[:10]))
        assert not data[len(encode_frames(env[:10])) :].strip(b"\0")
        # A journal reader reads it; a replay file reader says what it is.
        assert read_log(data, complete=False).next_seq == 10
        with pytest.raises(ReplayError, match="zero bytes after the last record") as info:
            read_log(data)
        assert info.value.record_index == 10
        for raw in env[10:]:
            j.append(raw)
        assert j.validator.is_complete
        assert path.read_bytes() == encode_frames(env)
    assert read_log(path.read_bytes()).is_complete


def test_journal_grows_its_zeros_as_the_log_grows(tmp_path, monkeypatch):
    monkeypatch.setattr(journal_module, "JOURNAL_RESERVE", 600)
    env = game()
    path = tmp_path / "game.journal"
    with Journal.create(path, env[0]) as j:
        for raw in env[1:-1]:
            j.append(raw, own=True)
            written = len(encode_frames(env[: j.validator.next_seq]))
            assert written < path.stat().st_size <= written + 600
        assert on_disk(path) == encode_frames(env[:-1])
    # Closed before the end: cut to its records, and it resumes from there.
    assert path.read_bytes() == encode_frames(env[:-1])
    with Journal.open(path) as j:
        j.append(env[-1])
    assert path.read_bytes() == encode_frames(env)


def _journal_of(tmp_path, records):
    """A game's envelopes, and a journal at ``game.journal`` left open after ``records``."""
    env = game()
    path = tmp_path / "game.journal"
    j = Journal.create(path, env[0])
    for raw in env[1:records]:
        j.append(raw)
    return env, path, j


def test_journal_left_by_a_killed_process_resumes(tmp_path):
    # A killed process never closes its journal: the zeros stay, and resume reads past them.
    env, path, j = _journal_of(tmp_path, 15)
    os.close(j._fd)  # the process dies: no close
    assert len(path.read_bytes()) > len(encode_frames(env[:15]))
    with Journal.open(path) as j:
        assert j.validator.next_seq == 15
        for raw in env[15:]:
            j.append(raw)
    assert path.read_bytes() == encode_frames(env)


@pytest.mark.skipif(os.name != "posix", reason="journals are locked with flock")
def test_a_journal_has_one_writer_at_a_time(tmp_path):
    env, path, j = _journal_of(tmp_path, 10)
    before = path.read_bytes()
    with pytest.raises(JournalInUseError, match="open in another santorini process"):
        Journal.open(path)
    assert path.read_bytes() == before  # the refused one cut nothing
    j.append(env[10])
    j.close()
    with Journal.open(path) as again:
        assert again.validator.next_seq == 11
        with pytest.raises(JournalInUseError):
            Journal.open(path)
    os.close(Journal.open(path)._fd)  # a killed process's lock goes with it
    with Journal.open(path) as last:
        assert last.validator.next_seq == 11


@pytest.mark.skipif(os.name != "posix", reason="journals are locked with flock")
def test_a_journal_on_a_file_system_without_locks_still_works(tmp_path, monkeypatch):
    import errno
    import fcntl

    def no_locks(fd, op):
        raise OSError(errno.ENOLCK, "No locks available")

    monkeypatch.setattr(fcntl, "flock", no_locks)
    env, path, j = _journal_of(tmp_path, 10)
    j.close()
    with Journal.open(path) as again:
        for raw in env[10:]:
            again.append(raw)
    assert path.read_bytes() == encode_frames(env)


def test_journal_drops_a_last_record_torn_by_a_power_cut(tmp_path):
    # The end of the last record never reached the disk: zeros stand where it ended.
    env = game()
    kept = encode_frames(env[:15])
    torn = len(env[15]).to_bytes(4, "big") + env[15][:-40] + bytes(40)
    path = tmp_path / "game.journal"
    path.write_bytes(kept + torn + bytes(1000))
    with Journal.open(path) as j:
        assert j.validator.next_seq == 15
    assert path.read_bytes() == kept
    # A last record that is wrong in any other way is not a torn write: resume refuses it.
    bad = bytearray(env[15])
    bad[-1] = 1 if bad[-1] != 1 else 2  # a bad signature that does not end in zero
    path.write_bytes(kept + len(bad).to_bytes(4, "big") + bytes(bad) + bytes(1000))
    with pytest.raises(ReplayError) as info:
        Journal.open(path)
    assert info.value.record_index == 15


def test_a_rules_win_after_a_resignation_has_reason_win():
    v, _ = started(3)
    for squares in ("place a1,a2", "place c3,c4", "place e1,e2"):
        v.feed(v.make_act(by_seat(v, v.position.to_move), squares))
        for seat in v.pending_acks:
            v.feed(v.make_ack(by_seat(v, seat)))
    v.feed(v.make_resign(by_seat(v, 1)))
    climb = ["a1>b1^a1", "b1>a1^b1"] * 2 + ["a1>b1^a1", "b1>a1"]
    mirror = ["e1>d1^e1", "d1>e1^d1"] * 3
    for mine, theirs in zip(climb, mirror, strict=True):
        v.feed(v.make_act(by_seat(v, 0), mine))
        for seat in v.pending_acks:
            v.feed(v.make_ack(by_seat(v, seat)))
        if v.is_over:
            break
        v.feed(v.make_act(by_seat(v, 2), theirs))
        for seat in v.pending_acks:
            v.feed(v.make_ack(by_seat(v, seat)))
    assert v.result == (0, "win")


def test_read_log_reports_the_first_bad_record_whatever_kind_of_fault_comes_later():
    # read_log checks the signatures in a first pass and the rest in a second: a bad
    # signature must still be reported at its own record, and an earlier fault first.
    env = list(game())
    bad_sig = bytearray(env[12])
    bad_sig[-1] ^= 1
    signed_wrong = [*env[:12], bytes(bad_sig), *env[13:]]
    with pytest.raises(ReplayError) as info:
        read_log(encode_frames(signed_wrong))
    assert info.value.record_index == 12
    assert isinstance(info.value.__cause__, SignatureError)
    # An earlier record out of place (a duplicate of record 3) is reported before it.
    both = [*signed_wrong[:5], signed_wrong[3], *signed_wrong[6:]]
    with pytest.raises(ReplayError) as info:
        read_log(encode_frames(both))
    assert info.value.record_index == 5
    assert isinstance(info.value.__cause__, ChainError)


def one_by_one(data: bytes) -> tuple[int | None, str, type]:
    """The first error of a file fed record by record (read_log's stages must agree)."""
    try:
        v = Validator()
        for raw in iter_frames(data):
            v.feed(raw)
        if not v.is_complete:
            return v.next_seq, "truncated", RecordError
    except ReplayError as e:
        return e.record_index, e.reason, type(e.__cause__)
    except WireError as e:
        return e.record, e.reason, type(e)
    return None, "", type(None)


@settings(max_examples=60)
@given(st.sampled_from(MODES), st.data())
def test_read_log_reports_what_feeding_record_by_record_reports(mode, data):
    # read_log opens, checks signatures and folds in separate stages: whatever the damage
    # (a changed byte, a swap, a cut), it must name the same record with the same error.
    env = list(game(*mode))
    damage = data.draw(st.sampled_from(["flip", "swap", "cut", "sign"]))
    if damage == "swap":
        i = data.draw(st.integers(0, len(env) - 2))
        env[i], env[i + 1] = env[i + 1], env[i]
        blob = encode_frames(env)
    elif damage == "sign":
        i = data.draw(st.integers(1, len(env) - 1))
        env[i] = seal(STRANGER, decode_body(open_envelope(env[i]).body))
        blob = encode_frames(env)
    else:
        blob = encode_frames(env)
        at = data.draw(st.integers(0, len(blob) - 1))
        if damage == "cut":
            blob = blob[:at]
        else:
            changed = bytearray(blob)
            changed[at] ^= data.draw(st.integers(1, 255))
            blob = bytes(changed)
    want = one_by_one(blob)
    try:
        read_log(blob)
        got: tuple[int | None, str, type] = (None, "", type(None))
    except ReplayError as e:
        got = (e.record_index, e.reason, type(e.__cause__))
    if want[1] == "truncated":
        assert got[0] == want[0]
        assert got[1].startswith("truncated")
    else:
        assert got == want


@settings(max_examples=200)
@given(st.sampled_from(MODES), st.data())
def test_the_envelope_shortcut_reads_like_the_general_decoder(mode, data):
    # A canonical envelope is read by its fixed layout; anything else by the decoder. Both
    # must accept exactly the same bytes with the same fields, and fail with the same error.
    env = list(game(*mode))
    e = open_envelope(data.draw(st.sampled_from(env)))
    # Rebuild it with one part in another msgpack form (a longer one, or another type), then
    # perhaps damage a few bytes.
    odd = data.draw(st.sampled_from(["none", "array", "version", "signer", "body", "signature"]))

    def part(name: str, b: bytes) -> bytes:
        forms = [bytes([0xC4, len(b)]) if len(b) < 256 else b"\xc5" + len(b).to_bytes(2, "big")]
        if name == odd:
            forms = [
                b"\xc5" + len(b).to_bytes(2, "big"),
                b"\xc6" + len(b).to_bytes(4, "big"),
                bytes([0xD9, len(b)]) if len(b) < 256 else b"\xda" + len(b).to_bytes(2, "big"),
            ]
        return data.draw(st.sampled_from(forms)) + b

    array = data.draw(
        st.sampled_from([b"\xdc\x00\x04", b"\x93", b"\x95"] if odd == "array" else [b"\x94"])
    )
    version = data.draw(
        st.sampled_from([b"\xcc\x01", b"\x02", b"\xc0"] if odd == "version" else [b"\x01"])
    )
    raw = bytearray(
        array
        + version
        + part("signer", e.signer)
        + part("body", e.body)
        + part("signature", e.signature)
    )
    heads = [0, 1, 2, 3, 36, 37, 38, len(raw) - 66, len(raw) - 65]  # where the parts begin
    for _ in range(data.draw(st.integers(0, 3))):
        at = data.draw(st.one_of(st.sampled_from(heads), st.integers(0, len(raw) - 1)))
        raw[at] = data.draw(st.sampled_from([raw[at] ^ 1, 0xC4, 0xC5, 0xC6, 0x01, 0x40, 0xFF]))
    if data.draw(st.booleans()):
        raw = raw[: data.draw(st.integers(0, len(raw)))]
    results = []
    for read in (open_envelope, _open_general):
        try:
            results.append(read(bytes(raw)))
        except WireError as e:
            results.append((type(e), e.reason))
    assert results[0] == results[1]


def test_read_log_leaves_the_garbage_collector_as_it_found_it():
    import gc

    good = encode_frames(game())
    bad = good[:-3]
    try:
        for enabled in (True, False):
            (gc.enable if enabled else gc.disable)()
            read_log(good)
            assert gc.isenabled() is enabled
            with pytest.raises(ReplayError):
                read_log(bad)
            assert gc.isenabled() is enabled
    finally:
        gc.enable()


# God pools (SPEC.md 7 and 11): the header of protocol 2 names the gods a game draws from.


def pooled(players, gods, pool, seed=7):
    ids = [
        ALICE,
        BOB,
        Identity.from_seed(bytes([3]) * 32, "carol"),
        Identity.from_seed(bytes([4]) * 32, "dave"),
    ]
    seats = [(i.public_key, f"p{n}") for n, i in enumerate(ids[:players])]
    return ids[:players], make_header(bytes([seed]) * 16, seats, gods=gods, pool=pool)


def test_a_simple_pool_writes_protocol_1_and_another_pool_protocol_2():
    _, h = pooled(2, "random", tuple(GOD_NAMES))
    assert h.protocol == 1
    assert h.pool == ()
    assert len(decode_value_fields(h)) == 11
    _, h = pooled(2, "random", ("medusa", "chronus"))
    assert h.protocol == 2
    assert h.pool == ("chronus", "medusa")
    assert len(decode_value_fields(h)) == 12
    assert decode_body(encode_body(h)) == h


def decode_value_fields(h):
    from santorini_p2p.wire.codec import decode

    return decode(encode_body(h), 4096)


@pytest.mark.parametrize("mode", ["random", "draft", "challenger"])
def test_the_draw_and_the_challenger_take_their_gods_from_the_pool(mode):
    pool = ("aphrodite", "chronus", "medusa", "zeus")
    ids, h = pooled(2, mode, pool)
    v = Validator()
    v.feed(seal(ids[0], h))
    for i in ids:
        v.feed(v.make_commit(i, bytes([ids.index(i) + 9]) * 32))
    for i in ids:
        v.feed(v.make_reveal(i, bytes([ids.index(i) + 9]) * 32))
    p = v.position
    if mode == "random":
        assert set(p.gods) <= set(pool)
        assert set(v.drawn) == set(p.gods)
    elif mode == "draft":
        assert p.pool == pool
    else:
        assert p.offer == pool
        assert {g for a in legal_actions(p) for g in a.gods} == set(pool)


@pytest.mark.parametrize(
    ("players", "gods", "pool", "error"),
    [
        (2, "random", ("chronus", "odin"), "'odin', a god this program does not know"),
        (2, "random", ("zeus", "chronus"), "god order"),
        (3, "random", ("ares", "hypnus", "zeus"), "hypnus is not played with 3 players"),
        (2, "draft", ("ares", "bia", "zeus"), "needs 4 gods, the pool has 3"),
        (2, "none", ("ares", "bia"), "needs a god selection"),
        (2, "random", tuple(GOD_NAMES), "written as protocol 1"),
    ],
)
def test_a_bad_pool_is_refused_at_the_header(players, gods, pool, error):
    from dataclasses import replace

    ids, h = pooled(players, gods, ())
    h = replace(h, protocol=2, pool=pool)
    expect(Validator(), seal(ids[0], h), RecordError, error)


def _placed(players=2, **header):
    """A validator with every worker placed and the first turn of play due."""
    v, _ = started(players, "none", options=("takeback",), **header)
    squares = ["place b2,d4", "place a1,e5", "place c1,c5", "place a5,e1"]
    for k in range(players):
        v.feed(v.make_act(by_seat(v, k), squares[k]))
        for j in range(1, players):
            v.feed(v.make_ack(by_seat(v, (k + j) % players)))
    return v


def _turn(v: Validator, seat: int, text: str, clock_ms: int = 0) -> None:
    v.feed(v.make_act(by_seat(v, seat), text, clock_ms=clock_ms))
    n = v.position.players
    for j in range(1, n):
        v.feed(v.make_ack(by_seat(v, (seat + j) % n)))


def test_takeback_header_is_protocol_2_and_lists_the_pool():
    seats = [(ALICE.public_key, "a"), (BOB.public_key, "b")]
    h = make_header(bytes(16), seats, options=["takeback"])
    assert (h.protocol, h.pool) == (2, ())
    h = make_header(
        bytes(16),
        [(ALICE.public_key, "a"), (BOB.public_key, "b")],
        gods="random",
        options=["takeback"],
    )
    assert (h.protocol, h.pool) == (2, GOD_NAMES)
    v = Validator()
    v.feed(seal(ALICE, h))
    # Without the option, the same simple game is protocol 1, as before.
    h = make_header(bytes(16), [(ALICE.public_key, "a"), (BOB.public_key, "b")], gods="random")
    assert (h.protocol, h.pool) == (1, ())


def test_accepted_takeback_restores_the_position_and_keeps_the_banks():
    v = _placed(move_ms=1_000, bank_ms=5_000)
    before, banks = v.state_hash, v.clocks
    _turn(v, 0, "b2>c3^c4", clock_ms=2_500)
    assert v.clocks[0] == banks[0] - 1_500
    drained = v.clocks
    assert v.can_ask_takeback(v.seats[0])
    assert not v.can_ask_takeback(v.seats[1])
    v.feed(v.make_offer(by_seat(v, 0), "takeback"))
    offer = v.takeback_offer
    assert offer is not None
    assert (offer.seat, offer.turn, offer.waiting) == (0, "b2>c3^c4", (1,))
    v.feed(v.make_accept(by_seat(v, 1)))
    assert v.state_hash == before
    assert v.position.to_move == 0
    assert v.clocks == drained, "the time spent is not refunded"
    assert v.takeback_offer is None
    assert v.turns == 0
    # The turn is gone once: nothing is left to take back until the next turn.
    expect(v, v.make_offer(by_seat(v, 0), "takeback"), RecordError, "no turn to take back")
    _turn(v, 0, "b2>b3^b4")
    assert v.turns == 1


def test_takeback_after_the_opponent_moved_is_refused():
    v = _placed()
    _turn(v, 0, "b2>c3^c4")
    _turn(v, 1, "a1>b1^b2")
    expect(v, v.make_offer(by_seat(v, 0), "takeback"), SignatureError, "only its mover")


def test_takeback_before_the_ack_or_of_a_placement_is_refused():
    v, _ = started(2, "none", options=("takeback",))
    v.feed(v.make_act(by_seat(v, 0), "place b2,d4"))
    expect(v, v.make_offer(by_seat(v, 0), "takeback"), RecordError, "before every seat")
    v.feed(v.make_ack(by_seat(v, 1)))
    expect(v, v.make_offer(by_seat(v, 0), "takeback"), RecordError, "no turn to take back")


def test_takeback_needs_the_header_option():
    v, _ = started(2, "none")
    for k, text in enumerate(["place b2,d4", "place a1,e5", "b2>c3^c4"]):
        v.feed(v.make_act(by_seat(v, k % 2), text))
        v.feed(v.make_ack(by_seat(v, 1 - k % 2)))
    expect(v, v.make_offer(by_seat(v, 0), "takeback"), RecordError, "does not allow takebacks")


def test_forged_takeback_acceptance_is_a_record_error():
    v = _placed()
    _turn(v, 0, "b2>c3^c4")
    v.feed(v.make_offer(by_seat(v, 0), "takeback"))
    # The asking seat cannot accept its own offer, and a stranger holds no seat.
    expect(v, v.make_accept(by_seat(v, 0)), SignatureError, "cannot accept")
    expect(v, v.make_accept(STRANGER), SignatureError, "holds no seat")


def test_refused_takeback_lapses_with_the_next_act():
    v = _placed()
    _turn(v, 0, "b2>c3^c4")
    v.feed(v.make_offer(by_seat(v, 0), "takeback"))
    offer_seq = v.next_seq - 1
    _turn(v, 1, "a1>b1^b2")
    assert v.takeback_offer is None
    from santorini_p2p.wire.messages import Accept

    late = seal(by_seat(v, 1), Accept(v.next_seq, v.last_hash, "takeback", offer_seq))
    expect(v, late, RecordError, "not open")


def test_takeback_with_three_players_needs_every_other_seat():
    v = _placed(3)
    before = v.state_hash
    _turn(v, 0, "b2>c3^c4")
    v.feed(v.make_offer(by_seat(v, 0), "takeback"))
    v.feed(v.make_accept(by_seat(v, 2)))
    assert v.takeback_offer.waiting == (1,)
    assert v.state_hash != before
    v.feed(v.make_accept(by_seat(v, 1)))
    assert v.state_hash == before
    assert v.position.to_move == 0


def test_chat_lines_change_nothing_and_fit_between_an_act_and_its_ack():
    v, _ = started(2, "none", options=("chat", "takeback"))
    v.feed(v.make_chat(by_seat(v, 1), "good luck"))
    v.feed(v.make_act(by_seat(v, 0), "place b2,d4"))
    h, pending = v.state_hash, v.pending_acks
    v.feed(v.make_chat(by_seat(v, 0), "héllo, ça va ? 🙂"))
    assert (v.state_hash, v.pending_acks) == (h, pending)
    v.feed(v.make_ack(by_seat(v, 1)))
    assert v.position.to_move == 1


@pytest.mark.parametrize(
    ("text", "error", "match"),
    [
        ("x" * 201, DecodeError, "at most 200 characters"),
        ("", RecordError, "1 to 200 characters"),
        ("two\nlines", RecordError, "not printable"),
        ("bell\x07", RecordError, "not printable"),
        ("rtl\u202eoverride", RecordError, "not printable"),
        (" padded", RecordError, "either end"),
    ],
)
def test_a_chat_line_too_long_or_with_control_characters_is_refused(text, error, match):
    v, _ = started(2, "none", options=("chat",))
    expect(v, v.make_chat(by_seat(v, 0), text), error, match)
    v.feed(v.make_chat(by_seat(v, 0), "x" * 200))


def test_chat_needs_the_header_option_the_draw_and_a_seat():
    v, env = started(2, "none")
    expect(v, v.make_chat(by_seat(v, 0), "hi"), RecordError, "does not allow chat")
    v, env = started(2, "none", options=("chat",))
    early = validate(env[:2])
    expect(early, early.make_chat(ALICE, "hi"), RecordError, "commit")
    expect(v, v.make_chat(STRANGER, "hi"), SignatureError, "holds no seat")


# -- a rematch's start slot (SPEC.md 11, option start=K) -------------------------------------


@pytest.mark.parametrize("players", [2, 3, 4])
def test_start_option_names_seat_1_and_leaves_the_god_draw_as_it_was(players):
    gid = bytes(range(16))
    drawn = started(players, gods="random", game_id=gid)[0]
    for slot in range(players):
        v = started(players, gods="random", game_id=gid, options=[f"start={slot}"])[0]
        assert v.seats[0] == IDS[slot].public_key
        assert v.seats == tuple(IDS[(slot + i) % players].public_key for i in range(players))
        # The stream is read as without the option: the same gods, dealt to seats 1, 2, ...
        assert v.drawn == drawn.drawn


@pytest.mark.parametrize("option", ["start=2", "start=01", "start=", "start=-1", "start=x"])
def test_a_start_option_that_names_no_slot_is_refused_at_the_header(option):
    header = make_header(bytes(16), [(i.public_key, i.name) for i in IDS[:2]], options=[option])
    expect(Validator(), seal(ALICE, header), RecordError, "start=K with K a slot 0..1")


def test_two_start_options_are_refused():
    header = make_header(
        bytes(16), [(i.public_key, i.name) for i in IDS[:3]], options=["start=0", "start=1"]
    )
    expect(Validator(), seal(ALICE, header), RecordError, "start=K")
