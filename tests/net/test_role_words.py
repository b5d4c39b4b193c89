"""One game as its host, a joining player and a spectator read it: the same words for the
same roles (a person who watches is a spectator, a seated joiner a player) on 127.0.0.1."""

from __future__ import annotations

from tests.net.test_loopback import Peer


def test_the_host_the_player_and_the_spectator_name_each_role_alike(tmp_path):
    host = Peer(
        tmp_path,
        "ann",
        ["host", "--bind", "127.0.0.1", "--no-advertise", "--bot", "random", "--name", "Ann",
         "--time", "none", "--seed", "1"],
    )  # fmt: skip
    watcher = joiner = None
    try:
        port = host.wait_for(r"address: 127\.0\.0\.1:(\d+)").group(1)
        watcher = Peer(tmp_path, "eve", ["watch", f"127.0.0.1:{port}", "--name", "eve"])
        host.wait_for(r"eve joined as a spectator \(1 of 4 spectators\)\.")
        joiner = Peer(
            tmp_path,
            "bob",
            ["join", f"127.0.0.1:{port}", "--bot", "random", "--name", "Bob", "--seed", "2"],
        )
        assert [p.finish() for p in (host, joiner, watcher)] == [0, 0, 0]
    finally:
        for p in (host, joiner, watcher):
            if p is not None:
                p.kill()
    assert "Bob (" in host.text()
    assert ") joined as a player." in host.text()
    assert "Joined Ann's 2-player game as a player (gods: none" in joiner.text()
    assert "Joining the game at 127.0.0.1:" in watcher.text()
    assert "as a spectator; waiting for the host to answer." in watcher.text()
    assert "Joined Ann's 2-player game as a spectator (gods: none" in watcher.text()
    for p in (host, joiner, watcher):
        assert "joiner" not in p.text().lower()
        assert "is watching" not in p.text()
