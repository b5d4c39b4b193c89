"""Gaea's choice in her opponent's turn, signed by her own seat (SPEC.md 8.4, SESSION.md 5).

Two ``santorini`` processes with computer players (``host --gods-from gaea,hestia``,
``join``) play whole games over 127.0.0.1 until one has Gaea put a worker down in her
opponent's turn: both replays must be identical and verify, and the answer that put the
worker down must be signed by Gaea's seat. In-memory sessions show the hostile cases: an
answer signed by the mover, for Gaea, is refused with the reason, and a session of the
previous version is refused at the door.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from santorini_p2p.engine.choices import choice_options
from santorini_p2p.errors import ReplayError, SignatureError
from santorini_p2p.net.frames import RecordFrame, encode_frame
from santorini_p2p.net.session import HOST_ID
from santorini_p2p.replay.verify import verify_file
from santorini_p2p.wire.log import read_log
from santorini_p2p.wire.messages import Act, Answer, Ask
from tests.net.harness import Net
from tests.net.test_loopback import Peer, _check_replays

POOL = "gaea,hestia"
MOST_GAMES = 8


def _game(tmp: Path, seed: int) -> bytes:
    """One game between two random computer players; the host's saved replay."""
    tmp.mkdir()
    host = Peer(
        tmp,
        "p0",
        [
            "host",
            "--bind",
            "127.0.0.1",
            "--no-advertise",
            "--gods",
            "random",
            "--gods-from",
            POOL,
            "--bot",
            "random",
            "--seed",
            str(seed),
            "--save",
            str(tmp / "r0"),
        ],
    )
    port = int(host.wait_for(r"address: 127\.0\.0\.1:(\d+)").group(1))
    joiner = Peer(
        tmp,
        "p1",
        [
            "join",
            f"127.0.0.1:{port}",
            "--bot",
            "random",
            "--seed",
            str(seed + 100),
            "--save",
            str(tmp / "r1"),
        ],
    )
    codes = [p.finish() for p in (host, joiner)]
    assert codes == [0, 0], "\n".join(p.text() for p in (host, joiner))
    _check_replays(tmp, 2)
    return (tmp / "r0").read_bytes()


def _placements_by_gaea(data: bytes) -> list[tuple[str, str]]:
    """Each answer that put Gaea's worker down, with the act that followed it.

    Checks on the way that the answer is signed by Gaea's seat, in the other seat's turn,
    and that the act writes the worker where the answer put it.
    """
    v = read_log(data)
    assert v.header is not None
    assert v.header.protocol == 3
    found = []
    records = v.records
    for i, r in enumerate(records):
        if not isinstance(r.message, Answer) or r.message.answer == "-":
            continue
        ask = records[i - 1]
        assert isinstance(ask.message, Ask)
        assert ask.seat != r.seat
        assert v.position is not None
        assert v.position.gods[r.seat] == "gaea"
        act = next(x for x in records[i:] if isinstance(x.message, Act))
        assert isinstance(act.message, Act)
        assert act.seat == ask.seat
        assert act.message.action.startswith(ask.message.asked + r.message.answer)
        found.append((r.message.answer, act.message.action))
    return found


def test_bots_over_loopback_let_gaea_place_in_the_opponents_turn(tmp_path):
    for seed in range(1, MOST_GAMES + 1):
        data = _game(tmp_path / f"g{seed}", seed)
        if _placements_by_gaea(data):
            verdict = verify_file(tmp_path / f"g{seed}" / "r1")
            assert verdict.ok, verdict.line()
            return
    pytest.fail(f"no game of {MOST_GAMES} had Gaea place a worker in her opponent's turn")


def _to_first_ask(tmp: Path) -> tuple[Net, int, int]:
    """In-memory sessions of Gaea against Polyphemus, run until the mover's first ask.

    Returns the net, the mover's session index and Gaea's.
    """
    net = Net.create(tmp, gods="random", pool=("gaea", "hestia"), seed=3)
    for _ in range(20_000):
        v = net.sessions[0].validator
        if v is not None and v.open_ask is not None:
            assert v.position is not None
            mover = v.position.to_move
            keys = [s.identity.public_key for s in net.sessions]
            return net, keys.index(v.seats[mover]), keys.index(v.seats[v.open_ask[0]])
        assert not net.done(), net.summary()
        net.step()
    raise AssertionError("no ask")


def test_an_answer_for_gaea_signed_by_the_mover_is_refused_with_the_reason(tmp_path):
    net, mover, gaea = _to_first_ask(tmp_path)
    s = net.sessions[mover]
    v = s.validator
    assert v is not None
    assert v.position is not None
    asked = v.open_ask
    assert asked is not None
    options = choice_options(v.position, v.answered, asked[1])[1]
    forged = v.make_answer(s.identity, options[-1])
    # The validator names the seat whose choice it is.
    with pytest.raises(ReplayError) as info:
        v.feed(forged)
    assert isinstance(info.value.__cause__, SignatureError)
    assert f"is seat {asked[0] + 1}'s (gaea): only that seat may answer" in str(info.value)
    # Sent to Gaea's peer as the mover's record, it is refused: the game stops with the
    # reason (SESSION.md 6), and the forged answer never enters her journal.
    target = net.sessions[gaea]
    before = target.records
    frame = encode_frame(RecordFrame(v.next_seq, forged))
    target.receive(net.peer_id(mover) if gaea == 0 else HOST_ID, frame)
    assert target.records == before
    assert target.stopped is not None
    assert "SignatureError" in target.stopped
    assert "only that seat may answer" in target.stopped
    assert forged not in target.journal_path.read_bytes()


def test_a_peer_of_session_3_is_refused_by_its_version(tmp_path):
    from santorini_p2p.net.frames import SESSION_VERSION, Hello, decode_frame, sign_hello
    from tests.net.harness import identity

    assert SESSION_VERSION == 4
    net = Net.create(tmp_path, gods="random", pool=("gaea", "hestia"), seed=5)
    host = net.sessions[0]
    hello: Hello = sign_hello(identity(9, "old"), 3, b"", 0)
    host.receive(b"\x09", encode_frame(hello))
    sent = [decode_frame(d) for peer, d in host.outgoing() if peer == b"\x09"]
    assert any("protocol 3 is not 4" in getattr(f, "reason", "") for f in sent), sent


@pytest.mark.parametrize("seed", [3, 4])
def test_in_memory_sessions_play_whole_games_with_gaeas_answers(tmp_path, seed):
    net = Net.create(tmp_path, gods="random", pool=("gaea", "hestia"), seed=seed)
    net.run()
    logs = net.journals()
    assert logs[0] == logs[1]
    v = read_log(logs[0])
    assert v.is_complete
    asks = [r for r in v.records if isinstance(r.message, Ask)]
    answers = [r for r in v.records if isinstance(r.message, Answer)]
    assert asks
    assert len(asks) == len(answers)
    assert v.position is not None
    assert all(v.position.gods[r.seat] == "gaea" for r in answers)


def test_the_movers_turn_is_found_without_listing_every_turn(tmp_path, monkeypatch):
    """Where Gaea may answer, the mover's own turn is found by one turn's check (SPEC.md 8.4).

    Heracles against Gaea has a million turns: listing them for every act stalled the mover.
    """
    from santorini_p2p.engine import generate_turns
    from santorini_p2p.engine.choices import choices, deciders

    net = Net.create(tmp_path, gods="random", pool=("gaea", "hestia"), seed=3)
    for _ in range(20_000):
        v = net.sessions[0].validator
        p = v.position if v is not None else None
        if (
            v is not None
            and p is not None
            and p.phase.value == "play"
            and deciders(p)
            and not v.pending_acks
            and v.open_ask is None
            and not v.answered
            and any(choices(p, t) for t in generate_turns(p))
        ):
            break
        assert not net.done(), net.summary()
        net.step()
    else:
        raise AssertionError("no turn of Gaea's opponent")
    keys = [s.identity.public_key for s in net.sessions]
    mover = net.sessions[keys.index(v.seats[p.to_move])]
    turns = generate_turns(p)
    plain = next(t for t in turns if not choices(p, t))
    asking = [t for t in turns if choices(p, t)]
    assert asking

    def every_turn(*args: object) -> object:
        raise AssertionError("every turn of the position was listed")

    monkeypatch.setattr("santorini_p2p.engine.choices.legal_turns", every_turn)
    assert mover._go_on_from(p, plain) is None  # the plain act: nobody else chooses
    for t in asking[:3]:
        assert mover._go_on_from(p, t) == t  # a plan: Gaea is asked first
