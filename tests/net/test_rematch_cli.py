"""Rematches from the command line over 127.0.0.1: ``host``/``join --bot --rematch N``."""

from __future__ import annotations

import re

import pytest

from santorini_p2p.replay.verify import verify_file
from santorini_p2p.wire.log import read_log
from santorini_p2p.wire.messages import Act
from tests.net.test_loopback import Peer


def _host(tmp, players, gods, *extra):
    host = Peer(
        tmp,
        "p0",
        [
            "host", "--bind", "127.0.0.1", "--no-advertise", "--players", str(players),
            "--gods", gods, "--bot", "random", "--seed", "1", "--save", str(tmp / "r0.sntr"),
            *extra,
        ],
    )  # fmt: skip
    port = int(host.wait_for(r"address: 127\.0\.0\.1:(\d+)").group(1))
    return host, port


def _join(tmp, i, port, *extra):
    return Peer(
        tmp,
        f"p{i}",
        [
            "join", f"127.0.0.1:{port}", "--bot", "random", "--seed", str(i + 1),
            "--save", str(tmp / f"r{i}.sntr"), *extra,
        ],
    )  # fmt: skip


def _first_slot(path):
    """The header slot that acted first in a replay (the start slot), and the game id.

    The first act is seat 1's as drawn: its first placement, or with challenger its offer.
    """
    v = read_log(path.read_bytes())
    keys = [s.public_key for s in v.header.seats]
    first = next(r for r in v.records if isinstance(r.message, Act))
    return keys.index(first.signer), v.header.game_id


@pytest.mark.parametrize(("players", "gods"), [(2, "none"), (3, "random"), (4, "challenger")])
def test_two_bots_play_a_rematch_with_the_next_player_first(tmp_path, players, gods):
    host, port = _host(tmp_path, players, gods, "--rematch", "1")
    joiners = [_join(tmp_path, i, port, "--rematch", "1") for i in range(1, players)]
    peers = (host, *joiners)
    codes = [p.finish() for p in peers]
    assert codes == [0] * players, "\n".join(p.text() for p in peers)
    for i, p in enumerate(peers):
        assert re.search(r"game over: .*; replay ", p.text())
        assert re.search(r"game 2 over: .*; replay ", p.text())
        assert "rematch agreed" in p.text()
        # One rematch at most: after game 2 each says no (asked, or before anyone asked).
        assert re.search(r"you decline a rematch|no rematch from here", p.text())
        assert not (tmp_path / f"r{i}-3.sntr").exists()
    for name in ("r{}.sntr", "r{}-2.sntr"):
        data = {(tmp_path / name.format(i)).read_bytes() for i in range(players)}
        assert len(data) == 1, name
        verdict = verify_file(tmp_path / name.format(0))
        assert verdict.ok, verdict.line()
    first, gid1 = _first_slot(tmp_path / "r0.sntr")
    second, gid2 = _first_slot(tmp_path / "r0-2.sntr")
    assert gid1 != gid2
    assert second == (first + 1) % players
    header1 = read_log((tmp_path / "r0.sntr").read_bytes()).header
    header2 = read_log((tmp_path / "r0-2.sntr").read_bytes()).header
    # The same settings, and the start slot named in place of the draw.
    assert sorted(header2.options) == sorted((*header1.options, f"start={second}"))
    assert (header2.gods, header2.pool, header2.move_ms) == (
        header1.gods,
        header1.pool,
        header1.move_ms,
    )
    # Both games are in every peer's games directory.
    for p in peers:
        assert len(list((p.home / "games").glob("*.sntr"))) == 2


def test_a_declined_rematch_ends_both_peers_cleanly(tmp_path):
    host, port = _host(tmp_path, 2, "none", "--rematch")
    joiner = _join(tmp_path, 1, port)
    codes = [p.finish() for p in (host, joiner)]
    assert codes == [0, 0], host.text() + joiner.text()
    # The joiner's no crosses the host's ask: a decline, or a player not playing again.
    assert re.search(r"no rematch: \S+ (declined|is not playing again)", host.text())
    assert re.search(r"you decline a rematch|no rematch from here", joiner.text())
    assert "game 2 over" not in host.text()
    assert not (tmp_path / "r0-2.sntr").exists()


def test_a_rematch_killed_and_resumed_keeps_each_games_own_save_file(tmp_path):
    """Finding 5: game 2 resumed writes FILE-2, and FILE keeps game 1, on both peers."""
    host, port = _host(tmp_path, 2, "none", "--rematch", "1")
    slow = ("--bot", "easy", "--think", "0.05")
    joiner = _join(tmp_path, 1, port, "--rematch", "1", *slow)
    # Into game 2 a few moves, then the joiner is killed.
    joiner.wait_for(r"(?s)rematch agreed.*The game starts.*: place .*: place ")
    assert "game 2 over" not in joiner.text()
    joiner.kill()
    first = (tmp_path / "r1.sntr").read_bytes()
    assert read_log(first).is_complete
    # The same command again resumes game 2 and finishes it.
    joiner.proc = joiner.start()
    codes = [p.finish() for p in (host, joiner)]
    assert codes == [0, 0], host.text() + joiner.text()
    for i in (0, 1):
        one = tmp_path / f"r{i}.sntr"
        two = tmp_path / f"r{i}-2.sntr"
        assert two.exists(), (host.text(), joiner.text())
        assert verify_file(one).ok
        assert verify_file(two).ok
        _, gid1 = _first_slot(one)
        _, gid2 = _first_slot(two)
        assert gid1 != gid2
    assert (tmp_path / "r1.sntr").read_bytes() == first  # game 1's copy, untouched
    assert (tmp_path / "r0.sntr").read_bytes() == first
    assert (tmp_path / "r0-2.sntr").read_bytes() == (tmp_path / "r1-2.sntr").read_bytes()


def test_a_spectator_watches_both_games_of_a_rematch_and_everyone_is_told_the_score(tmp_path):
    """The finished game's spectator stays for the rematch (SESSION.md 11), and the players'
    and the spectator's output number the game and give the match's score alike."""
    host, port = _host(tmp_path, 2, "none", "--rematch", "1")
    watch = ["watch", f"127.0.0.1:{port}", "--name", "carol", "--save", str(tmp_path / "w.sntr")]
    watcher = Peer(tmp_path, "w", watch)
    host.wait_for(r"carol joined as a spectator \(1 of 4 spectators\)")
    joiner = _join(tmp_path, 1, port, "--rematch", "1")
    peers = (host, joiner, watcher)
    codes = [p.finish() for p in peers]
    assert codes == [0, 0, 0], "\n".join(p.text() for p in peers)
    lines = []
    for p in peers:
        found = re.findall(r"Rematch: game 2\. Score: \S+ [01], \S+ [01]\.", p.text())
        assert len(found) == 1, p.text()
        lines.append(found[0])
    assert len(set(lines)) == 1, lines  # the same words and score for everyone
    assert "carol stopped watching" not in host.text()  # she stayed for game 2
    assert "no rematch: " in watcher.text()  # the vote after game 2: she is told, and leaves
    # Her copies are the players' replays, game 1 and game 2, byte for byte.
    assert (tmp_path / "w.sntr").read_bytes() == (tmp_path / "r0.sntr").read_bytes()
    assert (tmp_path / "w-2.sntr").read_bytes() == (tmp_path / "r0-2.sntr").read_bytes()
