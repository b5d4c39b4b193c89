"""The handshake at the session level: what a host answers to a hello, and to an impostor."""

from __future__ import annotations

import pytest

from santorini_p2p.net.frames import (
    SESSION_VERSION,
    Challenge,
    Hello,
    Refuse,
    decode_frame,
    encode_frame,
)
from santorini_p2p.net.session import HOST_ID, GameSettings, Session, SessionError
from santorini_p2p.net.trust import KnownPeers
from tests.net.harness import FakeClock, Net, identity

pytestmark = pytest.mark.usefixtures("no_fsync")


def _host(tmp_path) -> Session:
    home = tmp_path / "host"
    return Session.host(
        identity(0), GameSettings(2), home=home, now=FakeClock(), known=KnownPeers(home)
    )


def _answers(host: Session) -> list[object]:
    return [decode_frame(data) for _, data in host.outgoing()]


def test_a_hello_breaking_the_name_rule_is_refused_naming_the_rule(tmp_path):
    host = _host(tmp_path)
    bob = identity(1)
    unsigned = Hello(SESSION_VERSION, bob.public_key, " bob", b"", 0, b"")
    hello = Hello(
        *[getattr(unsigned, f) for f in ("protocol", "public_key", "name", "game_id", "have")],
        bob.sign(unsigned.signed_bytes()),
    )
    host.receive(b"x", encode_frame(hello))
    [answer] = _answers(host)
    assert answer == Refuse("your display name is refused: name: no spaces at either end: ' bob'")
    assert host.seat_names() == (identity(0).name,)


@pytest.mark.parametrize("version", [1, 2, 3])
def test_a_hello_of_an_older_version_is_refused_naming_both_versions(tmp_path, version):
    from santorini_p2p.net.frames import sign_hello

    # Version 2 is a peer from before god pools: its welcome would have no pool to check;
    # version 3 one from before takeback refusals, the audience, secret gods and
    # Gaea's answers.
    host = _host(tmp_path)
    host.receive(b"x", encode_frame(sign_hello(identity(1), version, b"", 0)))
    [answer] = _answers(host)
    assert isinstance(answer, Refuse)
    assert not answer.signature  # in the shape every version reads
    assert answer.reason == (
        f"protocol {version} is not 4: your santorini-p2p is earlier than the host's (session "
        f"protocol {version}; the host speaks 4); update it to join"
    )
    assert SESSION_VERSION == 4


def test_a_joiner_refused_by_an_earlier_host_says_the_host_must_update(tmp_path):
    """A host of session 3 answers ``protocol 4 is not 3`` alone: the joiner says what it means."""
    bob = Session.join(identity(1), home=tmp_path / "b", now=lambda: 0)
    bob.receive(HOST_ID, encode_frame(Refuse("protocol 4 is not 3")))
    assert bob.stopped is not None
    assert "protocol 4 is not 3: the host runs an earlier santorini-p2p" in bob.stopped
    assert "both must run the same version to join" in bob.stopped


def test_a_hello_alone_gets_a_challenge_and_no_seat(tmp_path):
    from santorini_p2p.net.frames import sign_hello

    host = _host(tmp_path)
    host.receive(b"x", encode_frame(sign_hello(identity(1), SESSION_VERSION, b"", 0)))
    [answer] = _answers(host)
    assert isinstance(answer, Challenge)
    assert answer.host_key == identity(0).public_key
    assert host.seat_names() == (identity(0).name,)


def test_resuming_a_copied_journal_names_the_player_and_the_seats(tmp_path):
    net = Net.create(tmp_path, 2, seed=50)
    for _ in range(200):
        net.step()
    journal = net.sessions[1].journal_path
    net.sessions[1].close()
    stranger = identity(7, "mallory")
    with pytest.raises(SessionError) as e:
        Session.resume(stranger, journal, home=tmp_path / "p1", now=net.clock)
    text = str(e.value)
    assert f"this player, mallory ({stranger.fingerprint}), holds no seat" in text
    assert f"player0 ({identity(0).fingerprint})" in text
    assert f"player1 ({identity(1).fingerprint})" in text


def test_a_host_resumed_after_the_end_gives_a_joiner_the_records_it_lacks(tmp_path):
    from santorini_p2p.net.store import unfinished_games
    from santorini_p2p.wire.log import read_log

    net = Net.create(tmp_path, 2, seed=53)  # the host is seat 2: it signs the last result
    host = net.sessions[0]
    send = net._send

    def lossy(src: int, dst: int, data: bytes) -> None:
        if not (dst == 1 and host.is_complete):  # the joiner never hears the last result
            send(src, dst, data)

    net._send = lossy  # type: ignore[method-assign]
    for _ in range(20_000):
        if host.is_complete:
            break
        net.step()
    for _ in range(50):
        net.step()
    assert host.is_complete
    assert not net.sessions[1].is_complete
    host.close()  # killed before it knew the joiner held everything: the note says so
    [(journal, note)] = unfinished_games(tmp_path / "p0")
    assert note["settled"] is False
    net.sessions[0] = Session.resume(
        identity(0), journal, home=tmp_path / "p0", now=net.clock, known=KnownPeers(tmp_path / "p0")
    )
    assert not net.sessions[0].is_settled  # it waits for the joiner, whom it does not know yet
    net._send = send  # type: ignore[method-assign]
    net.run()
    data = net.journals()
    assert data[0] == data[1]
    assert read_log(data[0]).is_complete


def test_a_session_draws_its_randomness_and_wall_time_from_the_sources_it_is_given(tmp_path):
    """Game id, commit nonce, challenge and hello nonces, header date: all passed in."""
    from itertools import count

    from santorini_p2p.net.frames import Challenge, decode_frame, encode_frame, sign_hello
    from santorini_p2p.net.session import GameSettings, Session, Sources
    from santorini_p2p.net.trust import KnownPeers
    from tests.net.harness import FakeClock, identity

    drawn = count(1)

    def entropy(n: int) -> bytes:
        return bytes([next(drawn)]) * n

    sources = Sources(entropy=entropy, wall_ms=lambda: 1_700_000_000_000)
    home = tmp_path / "h"
    clock = FakeClock()
    host = Session.host(
        identity(0), GameSettings(2), home=home, now=clock, known=KnownPeers(home), sources=sources
    )
    assert host.game_id == bytes([1]) * 16
    assert host._nonce == bytes([2]) * 32
    assert host._created_ms == 1_700_000_000_000
    host.receive(b"j", encode_frame(sign_hello(identity(1), SESSION_VERSION, b"", 0)))
    challenge = decode_frame(host.outgoing()[-1][1])
    assert isinstance(challenge, Challenge)
    assert challenge.nonce == bytes([3]) * 32
    jhome = tmp_path / "j"
    joiner = Session.join(
        identity(1), home=jhome, now=clock, known=KnownPeers(jhome), sources=sources
    )
    assert joiner._round_nonce == bytes([4]) * 32
    assert joiner._nonce == bytes([5]) * 32
