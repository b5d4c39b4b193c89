"""A full disk at any write of a game: that peer halts with a plain error, and resumes later.

``os.write`` fails with ENOSPC from the joiner's k-th write on, for k over every write the
joiner makes in a whole game (journal records, the zeros ahead, the note). The joiner must
stop with ``cannot write ... No space left on device`` and nothing else, its journal must hold
only whole records, the host must wait (not stop), and once there is room again the joiner,
resumed from its journal, must finish the game with a replay identical to the host's.
"""

from __future__ import annotations

import errno
import os

import pytest

from santorini_p2p.errors import StorageError
from santorini_p2p.net.session import Session
from santorini_p2p.net.trust import KnownPeers
from santorini_p2p.replay.verify import verify_bytes
from santorini_p2p.wire.log import iter_frames, read_log
from tests.net.harness import Net, identity

pytestmark = pytest.mark.usefixtures("no_fsync")
REAL_WRITE = os.write


class Disk:
    """``os.write`` that fails with ENOSPC for the joiner from its ``k``-th write on."""

    def __init__(self, net: Net, k: int) -> None:
        self.net = net
        self.k = k
        self.count = 0
        self.full = False

    def write(self, fd: int, data: bytes) -> int:
        if self.net.active[0] == 1 and self.k > 0:
            self.count += 1
            if self.count >= self.k:
                self.full = True
                raise OSError(errno.ENOSPC, os.strerror(errno.ENOSPC))
        return REAL_WRITE(fd, data)


RESIGN_AT = 24
"""The host resigns once the log holds this many records: a short whole game, to be quick."""


def _step(net: Net) -> None:
    host = net.sessions[0]
    v = host.validator
    ready = v is not None and v.position is not None and not v.is_over and not host.stopped
    if ready and v is not None and v.next_seq >= RESIGN_AT and not host._resign_requested:
        host.resign()
    net.step()


def _run(net: Net, until=None) -> None:
    for _ in range(20_000):
        if net.done() or (until is not None and until()):
            return
        _step(net)
    raise AssertionError(net.summary())


def _writes_in_a_game(tmp_path, monkeypatch) -> int:
    net = Net.create(tmp_path / "count", 2, seed=40)
    disk = Disk(net, 10**9)
    monkeypatch.setattr(os, "write", disk.write)
    _run(net)
    monkeypatch.setattr(os, "write", REAL_WRITE)
    return disk.count


def test_a_full_disk_at_each_write_halts_the_peer_and_a_resume_finishes(tmp_path, monkeypatch):
    total = _writes_in_a_game(tmp_path, monkeypatch)
    assert total > RESIGN_AT
    for k in range(1, total + 1):
        root = tmp_path / f"k{k}"
        net = Net.create(root, 2, seed=40)
        disk = Disk(net, k)
        monkeypatch.setattr(os, "write", disk.write)
        joiner = net.sessions[1]
        _run(net, until=lambda j=joiner: j.stopped is not None)
        monkeypatch.setattr(os, "write", REAL_WRITE)
        assert disk.full, k
        assert joiner.stopped is not None, k
        assert joiner.stopped.startswith("cannot write"), joiner.stopped
        assert "No space left on device" in joiner.stopped
        assert net.sessions[0].stopped is None, net.sessions[0].stopped
        # Room again: the joiner's process ends (its journal closed) and the same command
        # runs again: resume when the journal exists, a new join when it never did.
        joiner.close()
        path = joiner.journal_path
        home = root / "p1"
        if joiner.game_id and path.exists():
            data = path.read_bytes()
            assert list(iter_frames(data))  # whole records only, no zeros, nothing torn
            again = Session.resume(
                identity(1), path, home=home, now=net.clock, known=KnownPeers(home)
            )
        else:
            again = Session.join(identity(1), home=home, now=net.clock, known=KnownPeers(home))
        net.sessions[1] = again
        net.bots = True
        _run(net)
        data = net.journals()
        assert data[0] == data[1], (k, net.summary())
        assert read_log(data[0]).is_complete
        assert verify_bytes(data[0]).ok


def test_a_full_disk_is_a_storage_error_naming_the_file(tmp_path, monkeypatch):
    from santorini_p2p.net.trust import KnownPeers as Known

    def full(*args, **kwargs):
        raise OSError(errno.ENOSPC, os.strerror(errno.ENOSPC))

    known = Known(tmp_path)
    monkeypatch.setattr(os, "fsync", full)
    with pytest.raises(
        StorageError,
        match=r"cannot write the known keys file .*known_peers.*"
        r"No space left on device; free some space",
    ):
        known.check("bob", identity(1).public_key)
    assert not list(tmp_path.glob("*.tmp"))


def test_a_full_disk_writing_the_saved_replay_names_it_and_keeps_the_journal(tmp_path, monkeypatch):
    from santorini_p2p.net.game import save_replay
    from santorini_p2p.net.session import SessionError

    journal = tmp_path / "game.sntr"
    journal.write_bytes(b"SNTR\x01")

    def full(*args, **kwargs):
        raise OSError(errno.ENOSPC, os.strerror(errno.ENOSPC))

    monkeypatch.setattr(os, "fsync", full)
    with pytest.raises(SessionError, match=r"cannot write the replay to .*out\.sntr: No space"):
        save_replay(journal, tmp_path / "out.sntr")
    assert not (tmp_path / "out.sntr").exists()
    assert [p.name for p in tmp_path.iterdir()] == ["game.sntr"]


def test_a_host_whose_disk_is_full_as_the_game_starts_says_nothing_was_kept(tmp_path):
    """Finding 6: no journal, so the host says so, its joiners are told, and re-runs play."""
    from santorini_p2p.errors import StorageError as Full
    from santorini_p2p.net.session import GameSettings

    net = Net.create(tmp_path, 2, seed=41)
    host, joiner = net.sessions
    game_id = host.game_id

    def full(*args: object, **kwargs: object) -> object:
        raise Full(f"cannot write the journal {host.journal_path}: No space left on device")

    host.store.create_journal = full  # type: ignore[method-assign]
    _run(net, until=lambda: joiner.stopped is not None)
    assert host.stopped is not None
    assert "nothing of this game was kept" in host.stopped
    assert any("the same command offers a new game" in n.text for n in host.notes)
    assert joiner.stopped is not None
    assert "cannot start the game" in joiner.stopped
    assert "No space left on device" in joiner.stopped
    assert "join the new game" in joiner.stopped
    # Nothing left to resume, so the same command offers a new game...
    assert not host.journal_path.exists()
    assert not (host.store.journal_path(game_id).with_suffix(".json")).exists()
    host.close()
    joiner.close()
    home0, home1 = tmp_path / "p0", tmp_path / "p1"
    net.sessions[0] = Session.host(
        identity(0), GameSettings(2), home=home0, now=net.clock, known=KnownPeers(home0)
    )
    # ... and the joiners join it again, as they were told.
    net.sessions[1] = Session.join(identity(1), home=home1, now=net.clock, known=KnownPeers(home1))
    _run(net)
    data = net.journals()
    assert data[0] == data[1]
    assert read_log(data[0]).is_complete
