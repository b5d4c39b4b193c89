"""Shared randomness during play from hash chains committed at the start (SECRET.md 9)."""

from __future__ import annotations

import pytest

from santorini_p2p.wire.draw import DrawStream
from santorini_p2p.wire.stream import chain, draw_seed, link_error

GAME = bytes(range(16))


def test_each_draw_reveals_the_link_before_and_every_peer_checks_it() -> None:
    chains = [chain(bytes([0xAA + s]) * 32, GAME, s, 8) for s in range(3)]
    anchors = [c[-1] for c in chains]
    last = list(anchors)
    seeds = []
    for k in range(1, 9):
        links = [c[8 - k] for c in chains]
        for s, link in enumerate(links):
            assert link_error(link, last[s], GAME, s) is None
        last = links
        seeds.append(draw_seed(GAME, k, links))
    assert len(set(seeds)) == 8
    assert last == [c[0] for c in chains]


def test_a_link_that_is_not_the_one_committed_is_refused_with_a_reason() -> None:
    c = chain(b"\xaa" * 32, GAME, 0, 4)
    assert "does not hash" in (link_error(c[2], c[4], GAME, 0) or "")
    assert "does not hash" in (link_error(c[3], c[4], GAME, 1) or "")  # another seat's chain
    assert "expected 32 bytes" in (link_error(b"\x00", c[4], GAME, 0) or "")


def test_no_seat_can_choose_a_draw_it_reveals_last() -> None:
    """Only one link hashes to the anchor: the seat revealing last has one value to give."""
    c = chain(b"\xbb" * 32, GAME, 1, 2)
    others = [chain(bytes([s]) * 32, GAME, s, 2)[1] for s in (0, 2)]
    honest = draw_seed(GAME, 1, [others[0], c[1], others[1]])
    assert DrawStream(honest).below(3) in (0, 1, 2)
    forged = b"\x00" * 32
    assert link_error(forged, c[2], GAME, 1) is not None


def test_bad_arguments_are_refused_by_name() -> None:
    with pytest.raises(ValueError, match="secret: expected 32 bytes"):
        chain(b"x", GAME, 0, 2)
    with pytest.raises(ValueError, match="length: expected 1 to 1024"):
        chain(b"x" * 32, GAME, 0, 0)
    with pytest.raises(ValueError, match="draw: expected 1 to 1024"):
        draw_seed(GAME, 0, [])
