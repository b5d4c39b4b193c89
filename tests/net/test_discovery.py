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
