"""The address a host gives out: this machine's LAN address, never a loopback one."""

from __future__ import annotations

import ipaddress
import socket

import pytest

from santorini_p2p.net import address
from santorini_p2p.net.game import shown_address


def _machines_addresses() -> set[str]:
    """This machine's IPv4 addresses, read from the kernel's routing table of local addresses."""
    try:
        with open("/proc/net/fib_trie") as f:
            text = f.read()
    except OSError:
        pytest.skip("no /proc/net/fib_trie to list this machine's addresses")
    lines = text.splitlines()
    found = set()
    for i, line in enumerate(lines[1:], start=1):
        if "/32 host LOCAL" in line:
            found.add(lines[i - 1].split()[-1])
    return found


def test_a_host_on_every_interface_gives_the_machines_lan_address_not_loopback():
    mine = _machines_addresses()
    lan = {a for a in mine if not ipaddress.ip_address(a).is_loopback}
    if not lan:
        pytest.skip("this machine has no LAN address")
    shown = shown_address("0.0.0.0")
    assert shown in lan
    assert shown_address("::") in lan


def test_a_name_that_resolves_to_loopback_is_never_given_out(monkeypatch):
    # A stock Debian or Ubuntu machine: its name resolves to 127.0.1.1.
    monkeypatch.setattr(socket, "gethostbyname", lambda name: "127.0.1.1")
    monkeypatch.setattr(socket, "gethostbyname_ex", lambda name: (name, [], ["127.0.1.1"]))
    got = address.lan_address(
        outbound=lambda: None, interfaces=lambda: ["127.0.0.1", "169.254.3.4", "192.168.1.20"]
    )
    assert got == "192.168.1.20"


def test_a_private_interface_address_comes_before_a_public_one():
    got = address.lan_address(outbound=lambda: None, interfaces=lambda: ["8.8.4.4", "10.1.2.3"])
    assert got == "10.1.2.3"


def test_the_route_out_comes_first_and_loopback_only_when_nothing_else():
    assert address.lan_address(outbound=lambda: "10.0.0.7", interfaces=lambda: []) == "10.0.0.7"
    assert address.lan_address(outbound=lambda: None, interfaces=lambda: ["127.0.0.1"]) == (
        "127.0.0.1"
    )


def test_a_probe_with_no_route_is_passed_over(monkeypatch):
    # No route at all: every probe's connect fails, and nothing is sent.
    class NoRoute(socket.socket):
        def connect(self, addr):
            raise OSError(101, "Network is unreachable")

    monkeypatch.setattr(socket, "socket", NoRoute)
    assert address.outbound_address() is None


@pytest.mark.parametrize(
    ("text", "ok"),
    [
        ("192.168.1.20", True),
        ("10.0.0.1", True),
        ("127.0.1.1", False),
        ("169.254.1.1", False),
        ("0.0.0.0", False),
        ("fe80::1%eth0", False),
        ("not an address", False),
    ],
)
def test_usable_addresses(text, ok):
    assert address.usable(text) is ok
