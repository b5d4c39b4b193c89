"""Spectators' chat (SESSION.md 11), over the in-memory link (harness.py).

A spectator's line goes to the host signed over its watch's nonce, and the host relays it to
the players and the other spectators, signed over each receiver's nonce; it is never a record.
"""

from __future__ import annotations

import pytest

from santorini_p2p.net.frames import Cheer, decode_frame, encode_frame, sign_cheer
from santorini_p2p.net.session import HOST_ID
from santorini_p2p.net.spectator import Spectator
from santorini_p2p.wire.identity import Identity
from tests.net.harness import Net

pytestmark = pytest.mark.usefixtures("no_fsync")


def _chatting(tmp_path, seed: int, *, chat: bool = True) -> tuple[Net, Spectator, Spectator]:
    net = Net.create(tmp_path, 2, seed=seed)
    host = net.sessions[0]
    assert host.gallery is not None
    host.gallery.chat = chat
    net.bots = False
    a, b = net.watch("carol"), net.watch("dave")
    for _ in range(200):
        net.step()
        if a.welcome is not None and b.welcome is not None and net.sessions[1].records:
            break
    assert a.welcome is not None
    assert b.welcome is not None
    return net, a, b


def _lines(notes: list) -> list[str]:
    return [n.text for n in notes if n.chat]


def _settle(net: Net) -> None:
    for _ in range(5):
        net.step()


def test_a_spectators_line_reaches_both_players_and_the_other_spectator(tmp_path):
    net, carol, dave = _chatting(tmp_path, 40)
    assert carol.say("nice build") is None
    _settle(net)
    want = "[spectator] carol says: nice build"
    for s in net.sessions:
        assert want in _lines(s.notes), s.notes[-5:]
    assert want in _lines(dave.notes)
    assert _lines(carol.notes).count(want) == 1  # its own, shown once, not echoed back
    # Never a record: no player's log (nor the spectators' copy) holds the line.
    for s in (*net.sessions, carol, dave):
        assert not any(b"nice build" in r.raw for r in s.records)


def test_a_host_that_does_not_allow_it_is_told_to_the_spectator(tmp_path):
    net, carol, dave = _chatting(tmp_path, 41, chat=False)
    assert not carol.may_chat
    assert carol.say("hello") == "this game's host does not let spectators chat"
    # One sent regardless (another program) is dropped by the host and counted.
    host = net.sessions[0]
    assert host.gallery is not None
    me = carol.identity
    carol._out.append(
        encode_frame(sign_cheer(me, "hello", "carol", me.public_key, carol._nonce, relayed=False))
    )
    _settle(net)
    assert host.gallery.cheers_dropped == 1
    assert not any(_lines(s.notes) for s in (*net.sessions, dave))


def test_a_forged_line_is_dropped_and_counted(tmp_path):
    net, carol, dave = _chatting(tmp_path, 42)
    host = net.sessions[0]
    assert host.gallery is not None
    me = carol.identity
    other = Identity.generate("mallory")
    # Signed by another key than the one it names.
    forged = sign_cheer(other, "i am carol", "carol", me.public_key, carol._nonce, relayed=False)
    carol._out.append(encode_frame(forged))
    # Carol's own frame, sent from dave's connection: the nonce is not dave's watch's.
    copied = sign_cheer(me, "copied", "carol", me.public_key, carol._nonce, relayed=False)
    dave._out.append(encode_frame(copied))
    _settle(net)
    assert host.gallery.forged == 2
    assert not any(_lines(s.notes) for s in (*net.sessions, carol, dave))
    # A relayed line the host did not sign for this receiver is dropped by a player.
    joiner = net.sessions[1]
    dropped = joiner.dropped
    fake = sign_cheer(other, "fake", "carol", me.public_key, b"\0" * 32, relayed=True)
    joiner.receive(HOST_ID, encode_frame(fake))
    assert joiner.dropped == dropped + 1
    assert not _lines(joiner.notes)


def test_a_line_too_long_or_with_control_characters_is_refused(tmp_path):
    _, carol, _ = _chatting(tmp_path, 43)
    assert carol.say("x" * 201) == "chat: expected 1 to 200 characters, got 201"
    assert carol.say("bell\x07") == "chat: character 5 ('\\x07') is not printable"
    assert carol.say("   ") == "chat: expected 1 to 200 characters, got 0"
    # The decoder refuses such a frame whoever sends it.
    me = carol.identity
    bad = Cheer("bell\x07", "carol", me.public_key, b"\0" * 64)
    with pytest.raises(Exception, match="not printable"):
        decode_frame(encode_frame(bad))


def test_at_most_one_line_a_second_per_spectator(tmp_path):
    net, carol, dave = _chatting(tmp_path, 44)
    host = net.sessions[0]
    assert host.gallery is not None
    assert carol.say("one") is None
    assert carol.say("two") == "at most one chat line a second"
    # Sent regardless, the host drops it.
    me = carol.identity
    carol._out.append(
        encode_frame(sign_cheer(me, "two", "carol", me.public_key, carol._nonce, relayed=False))
    )
    _settle(net)
    assert host.gallery.cheers_dropped == 1
    assert _lines(dave.notes) == ["[spectator] carol says: one"]
    net.clock.ms += 1000
    assert carol.say("three") is None
    _settle(net)
    assert _lines(dave.notes)[-1] == "[spectator] carol says: three"
