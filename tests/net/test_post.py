"""Correspondence games (``santorini post``): blocks through a mangling channel, and refusals.

Two ``SANTORINI_HOME``s on one machine pass every block through a mangler (re-wrapped lines,
quoting with ``> ``, extra spaces, text around the block); one block is dropped and one read
twice. The game finishes, and both sides' replays are identical and verify. Tampered,
truncated and foreign blocks are refused with a reason, and the game goes on.
"""

from __future__ import annotations

import contextlib
import io
import json
import os
import random
import re
import textwrap
from pathlib import Path
from unittest import mock

import pytest

from santorini_p2p import cli
from santorini_p2p.replay.verify import verify_file
from santorini_p2p.wire.identity import load_or_create_identity
from santorini_p2p.wire.post import (
    BEGIN_LINE,
    END_LINE,
    BlockError,
    RecordsBlock,
    armour,
    open_block,
    seal_block,
    unarmour,
)

pytestmark = pytest.mark.timeout(300)


def run_cli(home: Path, *args: str) -> tuple[int, str, str]:
    """Run ``santorini ARGS`` in this process under ``SANTORINI_HOME=home``."""
    out, err = io.StringIO(), io.StringIO()
    with (
        mock.patch.dict(os.environ, {"SANTORINI_HOME": str(home)}),
        contextlib.redirect_stdout(out),
        contextlib.redirect_stderr(err),
    ):
        code = cli.main(list(args))
    return code, out.getvalue(), err.getvalue()


def mangle(text: str, rng: random.Random) -> str:
    """What a chat or a mail client may do to a pasted block."""
    lines = []
    for line in text.splitlines():
        lines += textwrap.wrap(line, rng.randint(20, 60), break_long_words=True) or [""]
    quoted = ["> " + " " * rng.randint(0, 3) + line + " " * rng.randint(0, 3) for line in lines]
    return "Here is my move:\n\n" + "\n".join(quoted) + "\n\n-- \nSent from my phone\n"


@pytest.fixture
def homes(tmp_path):
    a, b = tmp_path / "alice", tmp_path / "bob"
    load_or_create_identity(a, "alice")
    load_or_create_identity(b, "bob")
    return a, b


def _block_of(path: Path) -> RecordsBlock:
    block = open_block(unarmour(path.read_text()))
    assert isinstance(block, RecordsBlock)
    return block


def test_a_whole_game_through_a_mangling_channel_with_a_drop_and_a_duplicate(homes, tmp_path):
    a, b = homes
    rng = random.Random(7)
    code, out, err = run_cli(
        a, "post", "new", "--gods", "draft", "--bot", "random", "-o", str(tmp_path / "b0.txt")
    )
    assert code == 0, err
    sides = {"a": a, "b": b}
    side = "b"
    block = tmp_path / "b0.txt"
    dropped = duplicated = refused = False
    n = 0
    last = {}
    while n < 300:
        n += 1
        home = sides[side]
        pasted = tmp_path / f"m{n}.txt"
        pasted.write_text(mangle(block.read_text(), rng))
        reply = tmp_path / f"b{n}.txt"
        code, out, err = run_cli(home, "post", "read", str(pasted), "--bot", "random",
                                 "-o", str(reply))  # fmt: skip
        assert code == 0, err
        last[side] = out
        if n == 5 and not duplicated:
            # The same block read again: accepted, nothing changes, the reply is the same.
            code, again, err = run_cli(home, "post", "read", str(pasted), "-o",
                                       str(tmp_path / "again.txt"))  # fmt: skip
            assert code == 0, err
            assert "already read; nothing new" in again
            assert _block_of(tmp_path / "again.txt").records == _block_of(reply).records
            duplicated = True
        if n == 6 and not refused:
            _refusals(home, reply, pasted, tmp_path)
            refused = True
        if not reply.exists():
            break
        if n == 8 and not dropped:
            # This reply is lost on the way; the other side's last block, read again here
            # (as a player who hears nothing back pastes it again), brings the records back.
            dropped = True
            other = "a" if side == "b" else "b"
            code, out, err = run_cli(sides[other], "post", "resend", "-o", str(tmp_path / "re.txt"))
            assert code == 0, err
            lost = _block_of(reply)
            resent = _block_of(tmp_path / "re.txt")
            # The other side never saw the lost block: what it resends starts where it was.
            assert resent.start <= lost.have
            block = tmp_path / "re.txt"
            continue
        block = reply
        side = "a" if side == "b" else "b"
    assert dropped
    assert duplicated
    assert refused
    for s in "ab":
        assert re.search(r"game over: .*; replay (\S+)$", last[s].strip())
    paths = [Path(re.search(r"replay (\S+)$", last[s].strip()).group(1)) for s in "ab"]
    assert paths[0].read_bytes() == paths[1].read_bytes()
    verdict = verify_file(paths[0])
    assert verdict.ok, verdict.line()
    assert verdict.players == ("bob", "alice") or verdict.players == ("alice", "bob")
    code, out, _ = run_cli(a, "replay", "verify", str(paths[0]))
    assert code == 0
    for home in (a, b):
        code, out, _ = run_cli(home, "post", "list", "--json")
        games = json.loads(out)
        assert len(games) == 1
        assert games[0]["turn"] == "over"


def _refusals(home: Path, reply: Path, pasted: Path, tmp_path: Path) -> None:
    """Bad blocks, read between two good ones: refused, and nothing of the game changes."""
    before = {p.name: p.read_bytes() for p in (home / "post").iterdir()}
    text = pasted.read_text()
    lines = text.splitlines()
    begin = next(i for i, line in enumerate(lines) if "-----BEGIN" in line)
    end = next(i for i, line in enumerate(lines) if "-----END" in line)
    middle = (begin + end) // 2
    cases = {
        "cut": "\n".join(lines[:middle]),
        "missing-line": "\n".join(lines[:middle] + lines[middle + 1 :]),
        "changed-char": _change_char(text),
        "foreign": armour(seal_block(_stranger(), _foreign_block()), "a stranger"),
        "changed-then-armoured": armour(_flip(unarmour(text), -100), "a changed copy"),
        "empty": "hello, no block here",
    }
    reasons = {
        "cut": "truncated",
        "missing-line": "truncated or damaged",
        "changed-char": "damaged",
        "foreign": "no correspondence game",
        "changed-then-armoured": "bad signature",
        "empty": "no block",
    }
    for name, bad in cases.items():
        path = tmp_path / f"bad-{name}.txt"
        path.write_text(bad)
        code, out, err = run_cli(home, "post", "read", str(path), "-o", str(tmp_path / "x"))
        assert code == 1, (name, out)
        assert f"{path}: refused: " in err
        assert reasons[name] in err, (name, err)
        assert not (tmp_path / "x").exists()
    after = {p.name: p.read_bytes() for p in (home / "post").iterdir()}
    assert after == before


def _flip(data: bytes, at: int) -> bytes:
    out = bytearray(data)
    out[at] ^= 1
    return bytes(out)


def _change_char(text: str) -> str:
    lines = text.splitlines()
    i = (next(i for i, line in enumerate(lines) if "-----BEGIN" in line) + len(lines)) // 2
    line = lines[i]
    j = next(k for k, c in enumerate(line) if c.isalnum() and k > 4)
    lines[i] = line[:j] + ("A" if line[j] != "A" else "B") + line[j + 1 :]
    return "\n".join(lines)


def _stranger():
    from santorini_p2p.wire.identity import Identity

    return Identity.from_seed(bytes([0x5A]) * 32, "mallory")


def _foreign_block() -> RecordsBlock:
    return RecordsBlock(bytes(16), _stranger().public_key, 3, 0, (), 0)


def test_armour_reads_through_wrapping_quoting_and_spaces():
    data = bytes(range(256)) * 3
    text = armour(data, "a title line for people")
    rng = random.Random(1)
    for _ in range(20):
        assert unarmour(mangle(text, rng)) == data
    assert unarmour("> > " + text.replace("\n", "\n> > ")) == data


@pytest.mark.parametrize(
    ("edit", "reason"),
    [
        (lambda t: t.replace(END_LINE, ""), "truncated block: no -----END"),
        (lambda t: t.replace(BEGIN_LINE, ""), "no block"),
        (lambda t: t.replace("\n", "\n!", 3), "the character '!' is not part of a block"),
        (lambda t: "\n".join(t.splitlines()[:3] + t.splitlines()[4:]), "truncated or damaged"),
    ],
)
def test_a_damaged_or_cut_block_says_what_is_wrong(edit, reason):
    text = armour(bytes(200), "title")
    with pytest.raises(BlockError, match=re.escape(reason)):
        unarmour(edit(text))


def test_a_block_changed_and_rearmoured_fails_its_signature():
    me = _stranger()
    data = bytearray(seal_block(me, _foreign_block()))
    data[-70] ^= 1  # inside the signed fields, the armour's checksum made anew
    with pytest.raises(BlockError, match="bad signature"):
        open_block(unarmour(armour(bytes(data), "t")))


def test_play_by_hand_refusals_and_a_resignation(homes, tmp_path):
    a, b = homes
    code, _, err = run_cli(a, "post", "new", "-o", str(tmp_path / "inv.txt"))
    assert code == 0, err
    # Reading your own invitation is refused.
    code, _, err = run_cli(a, "post", "read", str(tmp_path / "inv.txt"))
    assert code == 1
    assert "your own invitation" in err
    code, out, err = run_cli(
        b, "post", "read", str(tmp_path / "inv.txt"), "-o", str(tmp_path / "1")
    )
    assert code == 0, err
    assert "you accept alice's invitation" in out
    # The invitation read again changes nothing.
    code, out, _ = run_cli(b, "post", "read", str(tmp_path / "inv.txt"), "-o", str(tmp_path / "1"))
    assert code == 0
    assert "already read" in out
    code, out, err = run_cli(a, "post", "read", str(tmp_path / "1"), "-o", str(tmp_path / "2"))
    assert code == 0, err
    code, out, err = run_cli(b, "post", "read", str(tmp_path / "2"), "-o", str(tmp_path / "3"))
    assert code == 0, err
    code, out, err = run_cli(a, "post", "read", str(tmp_path / "3"), "-o", str(tmp_path / "4"))
    assert code == 0, err
    # The draw is done: one of the two places first.
    first, second = (a, b) if "your turn" in out else (b, a)
    if first is b:
        code, out, err = run_cli(b, "post", "read", str(tmp_path / "4"), "-o", str(tmp_path / "5"))
        assert code == 0, err
        assert "your turn" in out
    code, _, err = run_cli(first, "post", "play", "b2>c3^d4", "-o", str(tmp_path / "p"))
    assert code == 1
    assert "'b2>c3^d4'" in err
    code, out, err = run_cli(first, "post", "play", "place", "b2,c3", "-o", str(tmp_path / "p"))
    assert code == 0, err
    code, out, _ = run_cli(first, "post", "list")
    assert "'s turn" in out
    code, _, err = run_cli(first, "post", "play", "place", "d4,e5", "-o", str(tmp_path / "q"))
    assert code == 1
    assert "turn, not yours" in err
    code, out, err = run_cli(second, "post", "read", str(tmp_path / "p"), "-o", str(tmp_path / "r"))
    assert code == 0, err
    assert "place b2,c3" in out
    code, out, err = run_cli(
        second, "post", "play", "say", "good", "luck", "-o", str(tmp_path / "s")
    )
    assert code == 0, err
    code, out, err = run_cli(second, "post", "play", "resign", "-o", str(tmp_path / "s"))
    assert code == 0, err
    code, out, err = run_cli(first, "post", "read", str(tmp_path / "s"), "-o", str(tmp_path / "t"))
    assert code == 0, err
    assert "says: good luck" in out
    assert "resigns" in out
    # Each side signs the result in seat order; the blocks go on until both hold them all.
    block, reader, other = tmp_path / "t", second, first
    for n in range(3):
        assert block.exists()
        reply = tmp_path / f"end{n}"
        code, out, err = run_cli(reader, "post", "read", str(block), "-o", str(reply))
        assert code == 0, err
        if not reply.exists():
            break
        block, reader, other = reply, other, reader
    for home in (first, second):
        code, out, _ = run_cli(home, "post", "list", "--json")
        (game,) = json.loads(out)
        assert game["turn"] == "over"
        assert game["result"].endswith("won by resignation")
        assert verify_file(game["replay"]).ok


def test_a_second_taker_of_an_open_invitation_and_a_forged_record_are_refused(homes, tmp_path):
    a, b = homes
    carol = tmp_path / "carol"
    load_or_create_identity(carol, "carol")
    run_cli(a, "post", "new", "-o", str(tmp_path / "inv"))
    assert run_cli(b, "post", "read", str(tmp_path / "inv"), "-o", str(tmp_path / "b1"))[0] == 0
    assert run_cli(carol, "post", "read", str(tmp_path / "inv"), "-o", str(tmp_path / "c1"))[0] == 0
    assert run_cli(a, "post", "read", str(tmp_path / "b1"), "-o", str(tmp_path / "a1"))[0] == 0
    code, _, err = run_cli(a, "post", "read", str(tmp_path / "c1"), "-o", str(tmp_path / "x"))
    assert code == 1
    assert "not by bob" in err
    assert "nothing of game" in err
    # A record bob's key signed that breaks the log (a commit where his reveal is due).
    from santorini_p2p.net.post import PostGame
    from santorini_p2p.wire.log import seal
    from santorini_p2p.wire.messages import Commit

    bob = load_or_create_identity(b)
    alice = load_or_create_identity(a)
    game = PostGame.load(a, alice, _block_of(tmp_path / "b1").game_id)
    v = game.validator
    bad = seal(bob, Commit(v.next_seq, v.last_hash, bytes(32)))
    block = RecordsBlock(game.game_id, bob.public_key, v.next_seq + 1, v.next_seq, (bad,), 0)
    (tmp_path / "forged").write_text(armour(seal_block(bob, block), "forged"))
    code, _, err = run_cli(a, "post", "read", str(tmp_path / "forged"))
    assert code == 1
    assert f"record {v.next_seq}: " in err
    # The real next block still reads.
    assert run_cli(b, "post", "read", str(tmp_path / "a1"), "-o", str(tmp_path / "b2"))[0] == 0
    assert run_cli(a, "post", "read", str(tmp_path / "b2"))[0] == 0


def test_on_a_terminal_the_block_is_pasted_and_the_turn_asked(homes, tmp_path):
    import sys

    from tests.terminal import Terminal

    a, b = homes
    run_cli(a, "post", "new", "-o", str(tmp_path / "0"))
    sides, block, n = [b, a], tmp_path / "0", 0
    # Pass the blocks until the draw is done and bob is to place his workers.
    while True:
        n += 1
        reader = sides[(n - 1) % 2]
        code, out, err = run_cli(reader, "post", "read", str(block), "-o", str(tmp_path / f"{n}"))
        assert code == 0, err
        if reader == b and "your turn" in out:
            break
        if reader == a and "your turn" in out:
            code, out, err = run_cli(
                a, "post", "play", "place", "a1,e5", "-o", str(tmp_path / f"{n}")
            )
            assert code == 0, err
        block = tmp_path / f"{n}"
        assert n < 12
    env = {**os.environ, "SANTORINI_HOME": str(b)}
    command = [sys.executable, "-m", "santorini_p2p", "post", "read"]
    with Terminal(command, env=env, columns=100, lines=60) as term:
        term.wait_for("paste the block")
        # Bob pastes the block again (quoted by his mail client): read already, his turn.
        term.type_lines("".join(f"> {line}\n" for line in block.read_text().splitlines()))
        term.wait_for("your turn (a turn, resign")
        term.type_lines("place z9\n")
        term.wait_for("'place z9'")
        term.type_lines("place b2,c3\n")
        term.wait_for("-----END SANTORINI POST-----")
        assert term.wait_exit(30) == 0, term.text()
        assert "bob: place b2,c3" in term.text()


@pytest.mark.parametrize(
    ("gods", "pool"),
    [
        ("random", ("zeus", "bia", "medusa")),
        ("challenger", ()),
        ("draft", ("pan", "ares", "bia", "eros")),
    ],
)
def test_games_of_every_god_rule_and_pool_finish_the_same_on_both_sides(tmp_path, gods, pool):
    from santorini_p2p.net.post import PostGame
    from santorini_p2p.net.postbot import random_bot
    from santorini_p2p.net.postio import read_block_text

    alice = load_or_create_identity(tmp_path / "a", "alice")
    bob = load_or_create_identity(tmp_path / "b", "bob")
    # The pool in any order: the header lists it in god order.
    ga, _ = PostGame.invite(tmp_path / "a", alice, gods=gods, pool=pool, days=0, now_ms=1)
    invitation, data = read_block_text(ga.block_text(1))
    gb = PostGame.accept(tmp_path / "b", bob, invitation, data, 2, None)
    games, bots = [ga, gb], [random_bot("random", 1), random_bot("random", 2)]
    text, reader = gb.block_text(3), 0
    for n in range(600):
        game = games[reader]
        block, _ = read_block_text(text)
        game.receive(block, 10 + n)
        game.advance(bots[reader], 10 + n)
        if not game.outgoing():
            break
        text, reader = game.block_text(10 + n), 1 - reader
    assert ga.is_complete
    assert gb.is_complete
    assert ga.records == gb.records
    assert verify_file(ga.status().replay).ok


def test_several_games_at_once_are_listed_and_named_by_id_or_opponent(homes, tmp_path):
    a, b = homes
    carol = tmp_path / "carol"
    load_or_create_identity(carol, "carol")
    run_cli(a, "post", "new", "-o", str(tmp_path / "i1"))
    run_cli(a, "post", "new", "-o", str(tmp_path / "i2"))
    assert run_cli(b, "post", "read", str(tmp_path / "i1"), "-o", str(tmp_path / "b1"))[0] == 0
    assert run_cli(carol, "post", "read", str(tmp_path / "i2"), "-o", str(tmp_path / "c1"))[0] == 0
    assert run_cli(a, "post", "read", str(tmp_path / "b1"), "-o", str(tmp_path / "a1"))[0] == 0
    assert run_cli(a, "post", "read", str(tmp_path / "c1"), "-o", str(tmp_path / "a2"))[0] == 0
    code, out, _ = run_cli(a, "post", "list", "--json")
    games = json.loads(out)
    assert sorted(g["opponent"] for g in games) == ["bob", "carol"]
    assert all(g["turn"] in ("bob", "carol") for g in games)
    code, out, _ = run_cli(a, "post", "list")
    assert len(out.strip().splitlines()) == 2
    # With two games, resend must be told which: by the opponent's name, or the id's start.
    code, _, err = run_cli(a, "post", "resend", "-o", str(tmp_path / "r"))
    assert code == 1
    assert "2 games match" in err
    assert run_cli(a, "post", "resend", "carol", "-o", str(tmp_path / "r"))[0] == 0
    carol_game = next(g for g in games if g["opponent"] == "carol")["game"]
    assert _block_of(tmp_path / "r").game_id.hex() == carol_game
    assert run_cli(a, "post", "resend", carol_game[:6], "-o", str(tmp_path / "r2"))[0] == 0
