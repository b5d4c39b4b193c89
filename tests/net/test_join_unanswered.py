"""A join or a watch at an address where nothing answers at all fails fast, once, alike for
IPv4 and IPv6 (on the loopback: a listener whose queue is full drops every new connection)."""

from __future__ import annotations

import contextlib
import socket
import subprocess
import sys
from collections.abc import Iterator

import pytest

from tests.terminal import clean_env


def _ipv6_loopback() -> bool:
    try:
        with socket.socket(socket.AF_INET6, socket.SOCK_STREAM) as s:
            s.bind(("::1", 0))
    except OSError:
        return False
    return True


@contextlib.contextmanager
def _silent_listener(family: socket.AddressFamily, host: str) -> Iterator[int]:
    """A port whose connections are never answered: its accept queue is full, so the kernel
    drops each new connection's first packet (the connecting side hears nothing at all)."""
    server = socket.socket(family, socket.SOCK_STREAM)
    held: list[socket.socket] = []
    try:
        server.bind((host, 0))
        server.listen(0)
        port = server.getsockname()[1]
        for _ in range(4):
            c = socket.socket(family, socket.SOCK_STREAM)
            c.setblocking(False)
            with contextlib.suppress(BlockingIOError):
                c.connect((host, port))
            held.append(c)
        probe = socket.socket(family, socket.SOCK_STREAM)
        probe.settimeout(1.5)
        try:
            probe.connect((host, port))
        except TimeoutError:
            pass  # dropped: the queue is full
        else:
            pytest.skip("this system answers connections beyond a full queue")
        finally:
            probe.close()
        yield port
    finally:
        for c in held:
            c.close()
        server.close()


@pytest.mark.parametrize("family", ["IPv4", "IPv6"])
@pytest.mark.parametrize("command", ["join", "watch"])
def test_nothing_answering_is_said_at_once_and_once(tmp_path, family, command):
    if family == "IPv6" and not _ipv6_loopback():
        pytest.skip("no IPv6 loopback here")
    af, host = (socket.AF_INET6, "::1") if family == "IPv6" else (socket.AF_INET, "127.0.0.1")
    with _silent_listener(af, host) as port:
        address = f"[{host}]:{port}" if af == socket.AF_INET6 else f"{host}:{port}"
        argv = [sys.executable, "-m", "santorini_p2p", command, address]
        if command == "join":
            argv += ["--bot", "random"]
        done = subprocess.run(
            argv,
            env=clean_env(tmp_path),
            capture_output=True,
            text=True,
            timeout=60,
            check=False,
            stdin=subprocess.DEVNULL,
        )
    assert done.returncode == 1, done.stdout + done.stderr
    said = f"nothing answers at {address} (no answer in 5 s)"
    assert (done.stdout + done.stderr).count(said) == 1, done.stdout + done.stderr
    assert done.stderr.startswith(f"santorini: error: {said}: check the address")
    assert "answered for" not in done.stdout + done.stderr  # it never answered at all
