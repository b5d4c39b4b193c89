"""Clocks (RULES.md section 5) and trust on first use."""

from __future__ import annotations

import pytest

from santorini_p2p.net.clock import (
    STANDARD,
    TimeControl,
    bank_after,
    is_flagged,
    parse_time_control,
    read_clock,
)
from santorini_p2p.net.trust import ChangedKeyError, KnownPeers
from tests.net.harness import identity


def test_standard_time_control_is_a_minute_and_a_five_minute_bank():
    assert parse_time_control("60+300") == STANDARD == TimeControl(60_000, 300_000)
    assert parse_time_control("none") is None
    assert str(STANDARD) == "60+300"
    with pytest.raises(ValueError, match="time"):
        parse_time_control("1:00")


@pytest.mark.parametrize(
    ("text", "says"),
    [
        ("0+0", "leaves no time at all"),
        ("86401+0", "at most 86400 seconds"),
        ("60+-1", r"MOVE\+BANK"),
    ],
)
def test_a_time_control_with_no_time_or_too_much_is_refused_clearly(text, says):
    with pytest.raises(ValueError, match=says):
        parse_time_control(text)
    assert parse_time_control("0+300") == TimeControl(0, 300_000)
    assert parse_time_control("86400+86400") == TimeControl(86_400_000, 86_400_000)


def test_bank_drains_only_after_the_move_allowance():
    assert bank_after(STANDARD, 300_000, 59_999) == 300_000
    assert bank_after(STANDARD, 300_000, 61_000) == 299_000
    assert bank_after(STANDARD, 1_000, 90_000) == 0
    assert read_clock(STANDARD, 300_000, 10_000) == (50_000, 300_000)
    assert not is_flagged(STANDARD, 1_000, 61_000)
    assert is_flagged(STANDARD, 1_000, 61_001)


def test_known_peers_remember_the_first_key_and_refuse_a_changed_one(tmp_path):
    a, b = identity(0).public_key, identity(1).public_key
    known = KnownPeers(tmp_path)
    assert known.check("alice", a)
    assert not known.check("alice", a)
    again = KnownPeers(tmp_path)
    assert again.get("alice") == a
    with pytest.raises(ChangedKeyError) as e:
        again.check("alice", b)
    assert identity(0).fingerprint in str(e.value)
    assert identity(1).fingerprint in str(e.value)


def test_known_peers_skip_malformed_lines(tmp_path):
    (tmp_path / "known_peers").write_text("nothex alice\n" + "00" * 32 + " bob\n")
    known = KnownPeers(tmp_path)
    assert known.get("alice") is None
    assert known.get("bob") == bytes(32)
