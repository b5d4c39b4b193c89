"""A journal created so that a kill at any instant leaves no game, or a resumable one.

A child process (forked, so no start-up cost) creates a journal and SIGKILLs itself just
before its k-th file-system call, for every k until the creation completes; after each kill
the directory must hold no journal, or one that opens with its header, and the scan for
unfinished games must not be blocked.
"""

from __future__ import annotations

import json
import os
import signal
from pathlib import Path

import pytest

from santorini_p2p.net.session import unfinished_games
from santorini_p2p.wire.identity import Identity
from santorini_p2p.wire.log import Journal, make_header, seal

ALICE = Identity.from_seed(b"\x01" * 32, "alice")
BOB = Identity.from_seed(b"\x02" * 32, "bob")
GAME = bytes(range(16))
CALLS = ("open", "write", "lseek", "fsync", "fdatasync", "link", "unlink", "replace", "close")


def _create_killed_at(games: Path, k: int) -> bool:
    """Create the journal in a child killed before its ``k``-th call; True if it was killed."""
    header = seal(ALICE, make_header(GAME, [(ALICE.public_key, "alice"), (BOB.public_key, "bob")]))
    pid = os.fork()
    if pid == 0:  # pragma: no cover - the child
        try:
            count = [0]

            def counted(name: str):
                real = getattr(os, name)

                def call(*args, **kwargs):
                    count[0] += 1
                    if count[0] == k:
                        os.kill(os.getpid(), signal.SIGKILL)
                    return real(*args, **kwargs)

                return call

            for name in CALLS:
                if hasattr(os, name):
                    setattr(os, name, counted(name))
            Journal.create(games / f"{GAME.hex()}.sntr", header)
        finally:
            os._exit(0)
    _, status = os.waitpid(pid, 0)
    return os.WIFSIGNALED(status)


@pytest.mark.skipif(not hasattr(os, "fork"), reason="needs fork")
def test_a_kill_at_any_instant_of_creating_a_journal_leaves_none_or_a_good_one(tmp_path):
    killed_at = 0
    for k in range(1, 200):
        home = tmp_path / f"k{k}"
        games = home / "games"
        games.mkdir(parents=True)
        note = {"game": GAME.hex(), "role": "host", "address": "127.0.0.1:1", "nonce": "00"}
        (games / f"{GAME.hex()}.json").write_text(json.dumps(note))
        killed = _create_killed_at(games, k)
        journal = games / f"{GAME.hex()}.sntr"
        if journal.exists():
            with Journal.open(journal) as j:
                assert j.validator.next_seq == 1
                assert j.validator.header is not None
        notes: list[str] = []
        found = unfinished_games(home, notes=notes)
        assert notes == []
        assert [p for p, _ in found] == ([journal] if journal.exists() else [])
        if not killed:
            assert journal.exists()
            break
        killed_at = k
    else:
        raise AssertionError("the creation never completed")
    assert killed_at >= 5  # it was killed at each of its first calls


def test_a_journal_a_crash_left_unreadable_is_set_aside_with_a_message(tmp_path):
    games = tmp_path / "games"
    games.mkdir()
    gid = GAME.hex()
    # What an earlier version could leave: the zeros written ahead, no magic, no header.
    (games / f"{gid}.sntr").write_bytes(bytes(1 << 16))
    (games / f"{gid}.json").write_text(json.dumps({"role": "host", "nonce": "00"}))
    notes: list[str] = []
    assert unfinished_games(tmp_path, notes=notes) == []
    assert len(notes) == 1
    assert f"{gid}.sntr" in notes[0]
    assert "set aside" in notes[0]
    assert "no SNTR magic" in notes[0]
    assert (games / f"{gid}.sntr.unreadable").read_bytes() == bytes(1 << 16)
    assert not (games / f"{gid}.sntr").exists()
    assert (games / f"{gid}.json.unreadable").exists()
    # Nothing left to say the next time.
    assert unfinished_games(tmp_path, notes=notes) == []
    assert len(notes) == 1


@pytest.mark.skipif(not hasattr(os, "fork"), reason="needs fork")
def test_a_journal_another_process_holds_is_never_set_aside(tmp_path):
    import fcntl

    games = tmp_path / "games"
    games.mkdir()
    path = games / f"{GAME.hex()}.sntr"
    path.write_bytes(bytes(100))
    (games / f"{GAME.hex()}.json").write_text(json.dumps({"role": "host", "nonce": "00"}))
    ready_r, ready_w = os.pipe()
    pid = os.fork()
    if pid == 0:  # pragma: no cover - the child holds the file as a playing process would
        try:
            fd = os.open(path, os.O_WRONLY)
            fcntl.flock(fd, fcntl.LOCK_EX)
            os.write(ready_w, b"x")
            signal.pause()
        finally:
            os._exit(0)
    try:
        assert os.read(ready_r, 1) == b"x"
        notes: list[str] = []
        assert unfinished_games(tmp_path, notes=notes) == []
        assert notes == []
        assert path.exists()
    finally:
        os.kill(pid, signal.SIGKILL)
        os.waitpid(pid, 0)
        os.close(ready_r)
        os.close(ready_w)
    unfinished_games(tmp_path, notes=notes)
    assert len(notes) == 1
    assert not path.exists()
