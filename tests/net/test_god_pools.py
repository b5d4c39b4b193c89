"""God pools over the network: every advanced god played between two bots over 127.0.0.1.

Each game is created as ``santorini host --gods MODE --gods-from POOL`` creates it (the real
argument parser and pool check), played by the command's own functions (``host_game`` and
``join_game``, with their sockets, journals and ``--save`` copies), and its replay is checked
by ``replay verify`` and ``replay info``. Most games run side by side in this process, to keep
the suite short on a busy machine; a few run as real ``santorini host`` and ``join``
processes, the draft and the challenger among them.
"""

from __future__ import annotations

import asyncio
import re
from pathlib import Path

import pytest

from santorini_p2p.cli import _build_parser, main
from santorini_p2p.cli.common import god_pool
from santorini_p2p.engine.gods import ADVANCED
from santorini_p2p.net import handshake as session_module
from santorini_p2p.net.game import PlayOptions, host_game, join_game
from santorini_p2p.net.session import GameSettings
from santorini_p2p.replay.verify import verify_file
from santorini_p2p.wire.log import read_log
from santorini_p2p.wire.messages import Act, Reveal
from tests.net.harness import Net, identity
from tests.net.test_loopback import _check_replays, _host, _join
from tests.patience import patient

ADVANCED_NAMES = [g.name for g in ADVANCED]
# Each advanced god with the next one (the last with the first): every god plays once.
PAIRS = [(g, ADVANCED_NAMES[(i + 1) % len(ADVANCED_NAMES)]) for i, g in enumerate(ADVANCED_NAMES)]
BATCH_S = patient(240.0)


def _settings(argv: list[str]) -> GameSettings:
    """The game ``santorini host ARGV`` offers, read by the command's own parser."""
    args = _build_parser().parse_args(["host", *argv])
    return GameSettings(args.players, args.gods, None, pool=god_pool(args))


async def _pair(tmp: Path, index: int, settings: GameSettings) -> tuple[int, int]:
    """A host and a joiner, computer players both, to the end; their exit codes' truth."""
    listening = asyncio.get_running_loop().create_future()
    homes = [tmp / f"g{index}-host", tmp / f"g{index}-join"]
    opts = [
        PlayOptions(
            home=home,
            identity=identity(k, f"bot{k}"),
            bot="random",
            seed=index * 2 + k,
            save=tmp / f"g{index}-r{k}",
            advertise=False,
        )
        for k, home in enumerate(homes)
    ]

    async def host() -> bool:
        out = await host_game(
            settings, opts[0], bind="127.0.0.1", on_listening=listening.set_result
        )
        return out.complete

    async def join() -> bool:
        port = await listening
        return (await join_game(f"127.0.0.1:{port}", opts[1])).complete

    done = await asyncio.gather(host(), join())
    return int(done[0]), int(done[1])


def _info(path: Path, capsys: pytest.CaptureFixture[str]) -> str:
    capsys.readouterr()
    assert main(["replay", "info", str(path)]) == 0
    return capsys.readouterr().out


def test_every_advanced_god_plays_a_whole_network_game_that_verifies(tmp_path, capsys):
    async def batch() -> list[tuple[int, int]]:
        async with asyncio.timeout(BATCH_S):
            return await asyncio.gather(
                *(
                    _pair(
                        tmp_path,
                        i,
                        _settings(["--gods", "random", "--gods-from", f"{god},{other}"]),
                    )
                    for i, (god, other) in enumerate(PAIRS)
                )
            )

    assert asyncio.run(batch()) == [(1, 1)] * len(PAIRS)
    for i, (god, other) in enumerate(PAIRS):
        r0, r1 = tmp_path / f"g{i}-r0", tmp_path / f"g{i}-r1"
        assert r0.read_bytes() == r1.read_bytes(), god
        verdict = verify_file(r0)
        assert verdict.ok, verdict.line()
        v = read_log(r0.read_bytes())
        assert v.header is not None
        assert v.header.protocol == 2
        assert v.header.pool == tuple(sorted((god, other), key=ADVANCED_NAMES.index))
        assert v.position is not None
        assert sorted(v.position.gods) == sorted((god, other))
        info = _info(r0, capsys)
        assert re.search(rf"seat \d .*  {god}$", info, re.MULTILINE), info
        assert "god pool" in info
        assert god in info.split("god pool", 1)[1].splitlines()[0]


@pytest.mark.parametrize(
    ("gods", "pool", "named"),
    [
        ("random", "chronus,medusa", "chronus, medusa"),
        ("draft", "advanced", "advanced (15 gods)"),
        ("challenger", "advanced", "advanced (15 gods)"),
    ],
)
def test_santorini_host_and_join_play_from_a_god_pool(tmp_path, capsys, gods, pool, named):
    host, port = _host(tmp_path, 2, gods, ("--gods-from", pool))
    joiner = _join(tmp_path, 1, port)
    codes = [p.finish() for p in (host, joiner)]
    assert codes == [0, 0], host.text() + joiner.text()
    _check_replays(tmp_path, 2)
    v = read_log((tmp_path / "r0").read_bytes())
    assert v.header is not None
    assert v.position is not None
    allowed = set(pool.split(",")) if "," in pool else set(ADVANCED_NAMES)
    assert set(v.position.gods) <= allowed
    info = _info(tmp_path / "r0", capsys)
    assert f"god pool      {named}  (protocol 2)" in info
    for god in v.position.gods:
        assert re.search(rf"  {god}$", info, re.MULTILINE), info
    if gods == "challenger":
        offer = next(r.message.action for r in v.records if hasattr(r.message, "action"))
        assert offer.startswith("gods ")
        assert set(offer[5:].split(",")) <= set(ADVANCED_NAMES)


def test_a_joiner_that_does_not_know_a_god_of_the_pool_refuses_the_game_at_once(
    tmp_path, monkeypatch
):
    # A program older than medusa: its known gods lack her.
    monkeypatch.setattr(
        session_module, "KNOWN_GODS", frozenset(session_module.KNOWN_GODS - {"medusa"})
    )
    net = Net.create(tmp_path, 2, "random", pool=("chronus", "medusa"))
    net.run(limit=2_000)
    host, joiner = net.sessions
    assert joiner.stopped is not None
    assert "'medusa', a god this program does not know" in joiner.stopped
    # The host is told why, in the joiner's words, before any record of play.
    assert host.stopped is not None
    assert "refused by player1" in host.stopped
    assert "'medusa'" in host.stopped
    assert joiner.journal is None
    assert not any(isinstance(r.message, Act | Reveal) for r in host.records)


def test_a_pool_with_a_god_for_other_player_counts_is_refused_when_the_game_is_created(
    tmp_path, monkeypatch, capsys
):
    monkeypatch.setenv("SANTORINI_HOME", str(tmp_path))
    argv = ["host", "--bind", "127.0.0.1", "--no-advertise", "--players", "3", "--gods"]
    assert main([*argv, "random", "--gods-from", "hypnus,zeus,ares"]) == 2
    err = capsys.readouterr().err
    assert err.startswith("santorini: error: gods-from: hypnus is played with 2 or 4 players")
    assert not (tmp_path / "games").exists()
    with pytest.raises(ValueError, match="hypnus is played with 2 or 4 players, not 3"):
        GameSettings(3, "random", None, pool=("ares", "hypnus", "zeus"))
    # A named set leaves hypnus out for 3 players, and plays.
    assert (
        "hypnus" not in _settings(["--players", "3", "--gods", "draft", "--gods-from", "all"]).pool
    )


@pytest.mark.parametrize(
    ("argv", "said"),
    [
        (["--gods-from", "chronus,medusa"], "a god pool needs --gods challenger, draft or random"),
        (["--gods", "random", "--gods-from", "chronos,medusa"], "did you mean chronus"),
        (["--gods", "draft", "--gods-from", "chronus,medusa"], "draft with 2 players needs"),
        (["--gods", "random", "--gods-from", "zeus,ZEUS"], "zeus is named twice"),
    ],
)
def test_a_bad_explicit_pool_is_a_usage_error_naming_the_fault(
    tmp_path, monkeypatch, capsys, argv, said
):
    monkeypatch.setenv("SANTORINI_HOME", str(tmp_path))
    assert main(["host", "--bind", "127.0.0.1", "--no-advertise", *argv]) == 2
    err = capsys.readouterr().err
    assert err.startswith("santorini: error: gods-from: ")
    assert said in err
    assert "Traceback" not in err
