"""Discovery: offers survive the TXT round trip; an offer on the loopback interface is found."""

from __future__ import annotations

import asyncio
import dataclasses
import os

import pytest

from santorini_p2p.net.discovery import Advertiser, Offer, browse, find_offer

OFFER = Offer(
    "alice abcdef01", "127.0.0.1", 4242, "alice", "abcdef0123456789", 3, "draft", "60+300", 1
)


def test_offer_properties_round_trip():
    props = {k.encode(): v.encode() for k, v in OFFER.properties().items()}
    assert Offer.from_properties(OFFER.name, "127.0.0.1", 4242, props) == OFFER
    assert OFFER.endpoint == "127.0.0.1:4242"


def test_an_offer_says_whether_spectators_may_chat():
    chatty = dataclasses.replace(OFFER, spectators=4, spectator_chat=True)
    props = {k.encode(): v.encode() for k, v in chatty.properties().items()}
    assert props[b"chat"] == b"spectators"
    assert Offer.from_properties(OFFER.name, "127.0.0.1", 4242, props) == chatty
    assert b"chat" not in {k.encode() for k in OFFER.properties()}


def test_malformed_offer_is_ignored():
    assert Offer.from_properties("x", "127.0.0.1", 1, {b"players": b"two", b"v": b"1"}) is None


def test_find_offer_by_name_host_or_fingerprint():
    other = Offer("bob 99990000", "127.0.0.1", 1, "bob", "99990000ffff", 2, "none", "none", 1)
    offers = [OFFER, other]
    assert find_offer(offers, "alice") == OFFER
    assert find_offer(offers, "BOB 99990000") == other
    assert find_offer(offers, "abcdef") == OFFER
    assert find_offer(offers, "carol") is None
    assert find_offer([OFFER, OFFER], "alice") is None


def test_advertised_offer_is_browsed_on_loopback():
    # Unique per run, so that runs side by side do not see each other's offers.
    fp = os.urandom(8).hex()
    offer = dataclasses.replace(OFFER, fingerprint=fp, name=f"alice {fp[:8]}")

    async def main():
        adv = Advertiser(offer)
        if not await adv.start():
            pytest.skip("multicast is not available on the loopback interface")
        try:
            found = await browse(1.0, ["127.0.0.1"])
        finally:
            await adv.stop()
        assert [o.fingerprint for o in found if o.fingerprint == fp] == [fp]

    asyncio.run(main())


def test_an_offer_carries_its_god_pool_and_games_lists_it_within_80_columns(
    monkeypatch, capsys, tmp_path
):
    from santorini_p2p.cli import main
    from santorini_p2p.engine.gods import ALL_GOD_NAMES
    from santorini_p2p.net import discovery

    every = ",".join(ALL_GOD_NAMES[:25])
    pooled = dataclasses.replace(OFFER, pool=every)
    props = {k.encode(): v.encode() for k, v in pooled.properties().items()}
    assert Offer.from_properties(OFFER.name, "127.0.0.1", 4242, props) == pooled
    # An offer of a program before pools has none: the simple gods.
    old = {k: v for k, v in props.items() if k != b"pool"}
    assert Offer.from_properties(OFFER.name, "127.0.0.1", 4242, old) == OFFER
    assert OFFER.gods_shown == "draft"

    named = dataclasses.replace(OFFER, pool="advanced", host_name="a" * 40)
    listed = [named, pooled, dataclasses.replace(OFFER, pool="simple")]

    async def found(wait):
        return listed

    monkeypatch.setattr(discovery, "browse", found)
    monkeypatch.setenv("SANTORINI_HOME", str(tmp_path))
    assert main(["games", "--wait", "0"]) == 0
    lines = capsys.readouterr().out.splitlines()
    assert all(len(line) <= 80 for line in lines), lines
    assert lines[2] == "  gods from: advanced"
    assert lines[4].startswith("  gods from: apollo, artemis,")
    assert lines[4].endswith("~")
    assert len(lines) == 6  # the simple pool adds no line


def test_a_game_that_takes_spectators_is_marked_watch_in_the_list(monkeypatch, capsys, tmp_path):
    from santorini_p2p.cli import main
    from santorini_p2p.net import discovery

    playing = dataclasses.replace(OFFER, spectators=4, playing=True)
    props = {k.encode(): v.encode() for k, v in playing.properties().items()}
    assert props[b"watch"] == b"4"
    assert props[b"state"] == b"playing"
    assert Offer.from_properties(OFFER.name, "127.0.0.1", 4242, props) == playing
    assert playing.watchable
    assert not OFFER.watchable
    waiting = dataclasses.replace(OFFER, spectators=2, address="192.168.100.200", port=65000)

    async def found(wait):
        return [playing, OFFER, waiting]

    monkeypatch.setattr(discovery, "browse", found)
    monkeypatch.setenv("SANTORINI_HOME", str(tmp_path))
    assert main(["games", "--wait", "0"]) == 0
    lines = capsys.readouterr().out.splitlines()
    assert all(len(line) <= 80 for line in lines), lines
    assert lines[2] == "  watch: santorini watch 127.0.0.1:4242 (in play, 4 spectators)"
    assert lines[3].startswith("127.0.0.1:4242")  # no line under a game that takes none
    assert lines[5] == "  watch: santorini watch 192.168.100.200:65000 (seats free, 2 spectators)"


def test_a_game_in_play_that_takes_spectators_is_announced_as_in_play():
    fp = os.urandom(8).hex()
    offer = dataclasses.replace(OFFER, fingerprint=fp, name=f"alice {fp[:8]}", spectators=4)

    async def main():
        adv = Advertiser(offer)
        if not await adv.start():
            pytest.skip("multicast is not available on the loopback interface")
        try:
            await adv.update(dataclasses.replace(offer, playing=True))
            found = await browse(1.0, ["127.0.0.1"])
        finally:
            await adv.stop()
        mine = [o for o in found if o.fingerprint == fp]
        assert len(mine) == 1
        assert mine[0].playing
        assert mine[0].spectators == 4

    asyncio.run(main())
