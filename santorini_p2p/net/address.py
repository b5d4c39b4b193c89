"""This machine's address on the LAN: the one a host prints for the other players to join.

A lookup of the machine's own name is no good for this: on a stock Debian or Ubuntu machine it
gives 127.0.0.1 or 127.0.1.1, which another machine cannot reach. The address used is, in
order: the address of the interface that traffic to another network leaves by (a UDP socket
"connected" to a private address, which sends nothing), then the first private address of the
machine's interfaces (a LAN with no route out), then any other address of its interfaces or
its name that is not a loopback or link-local one, and 127.0.0.1 only when there is none.
"""

from __future__ import annotations

import contextlib
import ipaddress
import logging
import socket
from collections.abc import Callable, Iterable
from typing import Final

__all__ = ["interface_addresses", "lan_address", "outbound_address", "usable"]

LOG = logging.getLogger(__name__)

_PROBES: Final = (("10.254.254.254", 9), ("192.168.254.254", 9), ("172.31.254.254", 9))
"""Private addresses a UDP socket is "connected" to (nothing is sent) to learn the route out."""


def usable(address: str) -> bool:
    """Whether ``address`` is one another machine could reach: no loopback, link-local or any."""
    try:
        ip = ipaddress.ip_address(address.split("%", 1)[0])
    except ValueError:
        return False
    return not (ip.is_loopback or ip.is_link_local or ip.is_unspecified or ip.is_multicast)


def outbound_address(probes: Iterable[tuple[str, int]] = _PROBES) -> str | None:
    """The IPv4 address of the interface the route to another network leaves by, or None.

    ``connect`` on a UDP socket only picks the route and the source address: nothing is sent.
    """
    for probe in probes:
        try:
            with socket.socket(socket.AF_INET, socket.SOCK_DGRAM) as s:
                s.connect(probe)
                address = str(s.getsockname()[0])
        except OSError:
            continue
        if usable(address):
            return address
    return None


def interface_addresses() -> list[str]:
    """The IPv4 addresses of this machine's interfaces (by ``ifaddr``), then its name's."""
    found: list[str] = []
    try:
        import ifaddr  # the interface list zeroconf uses; installed with it

        for adapter in ifaddr.get_adapters():
            found.extend(ip.ip for ip in adapter.ips if isinstance(ip.ip, str))
    except (ImportError, OSError) as e:  # without the list, the name's addresses are left
        LOG.debug("cannot list the network interfaces: %s", e)
    with contextlib.suppress(OSError):
        found.extend(socket.gethostbyname_ex(socket.gethostname())[2])
    return list(dict.fromkeys(found))


def lan_address(
    outbound: Callable[[], str | None] = outbound_address,
    interfaces: Callable[[], list[str]] = interface_addresses,
) -> str:
    """Return this machine's address on the LAN, to give other players (127.0.0.1 if none)."""
    address = outbound()
    if address is not None:
        return address
    candidates = [a for a in interfaces() if usable(a)]
    private = [a for a in candidates if ipaddress.ip_address(a).is_private]
    if private or candidates:
        return (private or candidates)[0]
    return "127.0.0.1"
