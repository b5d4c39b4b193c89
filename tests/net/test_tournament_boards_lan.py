"""A club tournament's board announced on the LAN under its pairing's name, over 127.0.0.1.

``host --tournament EVENT`` announces the board as ``EVENT: round R board N: FIRST-SECOND``;
``join --tournament EVENT`` (no address) finds it by that name and its host's key, and the
game is played; ``santorini games`` and the console's join list show the name.
"""

from __future__ import annotations

import asyncio
import json
import os
import re
from pathlib import Path

import pytest

from santorini_p2p.net.discovery import Offer
from santorini_p2p.wire.identity import Identity, load_or_create_identity
from tests.net.test_loopback import Peer
from tests.net.test_tournament_loopback import run_cli

pytestmark = pytest.mark.timeout(300)


def _event(tmp: Path, name: str) -> tuple[Path, dict[str, Path]]:
    """A two-player round robin, its first round paired; the players' homes."""
    homes = {n: tmp / "homes" / n for n in ("ann", "ben")}
    prints = {n: load_or_create_identity(h, n).fingerprint for n, h in homes.items()}
    event = tmp / "club"
    players = [a for n in ("ann", "ben") for a in ("--player", f"{n}={prints[n]}")]
    code, _, err = run_cli(
        tmp / "director", "tournament", "new", str(event), *players, "--format", "roundrobin",
        "--rounds", "1", "--time", "none", "--name", name,
    )  # fmt: skip
    assert code == 0, err
    code, out, err = run_cli(tmp / "director", "tournament", "pair", str(event), "--json")
    assert code == 0, err
    assert json.loads(out)["games"] == [{"first": "ann", "second": "ben"}]
    return event, homes


def test_a_board_is_announced_under_its_pairing_and_joined_by_that_name(tmp_path):
    # A name of this run alone, so that runs side by side do not find each other's boards.
    name = f"Club {os.urandom(3).hex()}"
    board = f"{name}: round 1 board 1: ann-ben"
    event, homes = _event(tmp_path, name)
    host = Peer(
        tmp_path, "host",
        ["host", "--bind", "127.0.0.1", "--tournament", str(event), "--bot", "random",
         "--seed", "1", "--save", str(tmp_path / "r-ann.sntr")],
        home=homes["ann"],
    )  # fmt: skip
    try:
        host.wait_for(re.escape(f"announcing on the LAN as: {board}"))
        # Anyone on the LAN sees the board by its name.
        for _ in range(5):
            code, listed, err = run_cli(tmp_path / "onlooker", "games", "--wait", "2")
            assert code == 0, err
            if board in listed:
                break
        assert f"  board: {board}" in listed
        joiner = Peer(
            tmp_path, "join",
            ["join", "--tournament", str(event), "--bot", "random", "--seed", "2",
             "--save", str(tmp_path / "r-ben.sntr")],
            home=homes["ben"],
        )  # fmt: skip
        codes = [host.finish(), joiner.finish()]
    finally:
        host.kill()
    assert codes == [0, 0], host.text() + joiner.text()
    assert f"found {board} at 127.0.0.1:" in joiner.text()
    assert (tmp_path / "r-ann.sntr").read_bytes() == (tmp_path / "r-ben.sntr").read_bytes()
    code, out, err = run_cli(
        tmp_path / "director", "tournament", "result", str(event), str(tmp_path / "r-ann.sntr")
    )
    assert code == 0, err
    assert "round 1 board 1" in out


def test_join_tournament_with_no_board_on_the_lan_says_who_hosts_it(tmp_path):
    name = f"Club {os.urandom(3).hex()}"
    event, homes = _event(tmp_path, name)
    joiner = Peer(tmp_path, "join", ["join", "--tournament", str(event)], home=homes["ben"])
    assert joiner.finish() == 2
    out = joiner.text()
    assert (
        f"santorini: error: tournament: no game '{name}: round 1 board 1: ann-ben' hosted by "
        in out
    )
    assert "santorini host --tournament EVENT" in out


def test_the_console_join_list_names_a_tournament_board(tmp_path, monkeypatch):
    from santorini_p2p.net import discovery
    from santorini_p2p.ui.lan import LanGames

    board = Offer(
        "ann 0a1b2c3d", "127.0.0.1", 40517, "ann", "0a1b-2c3d", 2, "none", "none", 4,
        board="Friday club: round 2 board 3: ann-ben",
    )  # fmt: skip
    plain = Offer("cat 99990000", "127.0.0.1", 40518, "cat", "9999-0000", 2, "none", "none", 4)

    async def found(wait):
        return [board, plain]

    monkeypatch.setattr(discovery, "browse", found)
    shown = []

    async def choose(title, items):
        shown.extend(items)
        return None

    async def ask(title, prompt):
        raise AssertionError("nothing is asked before a game is chosen")

    lan = LanGames(tmp_path, Identity.from_seed(b"\x03" * 32, "dan"), choose, ask)
    assert asyncio.run(lan.join()) is None
    labels = dict(shown)
    assert labels["127.0.0.1:40517"].startswith("Friday club: round 2 board 3: ann-ben: ann (")
    assert labels["127.0.0.1:40518"].startswith("cat (9999-0000)")


def test_a_board_name_longer_than_a_txt_string_is_cut_alike_and_still_found():
    from santorini_p2p.net.discovery import find_board

    label = "Ωmega club " * 20 + ": round 1 board 1: ann-ben"
    offer = Offer("ann 0a1b", "127.0.0.1", 1, "ann", "0a1b-2c3d", 2, "none", "none", 4, board=label)
    announced = offer.properties()["board"]
    assert len(("board=" + announced).encode()) <= 255
    assert label.startswith(announced)
    props = {k.encode(): v.encode() for k, v in offer.properties().items()}
    read = Offer.from_properties(offer.name, "127.0.0.1", 1, props)
    assert read is not None
    assert read.board == announced
    assert find_board([read], label, "0a1b-2c3d") == read
