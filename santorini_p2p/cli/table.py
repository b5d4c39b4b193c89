"""``host --secret-gods`` / ``--mode party|agora`` and ``join`` of such a game (SECRET.md 13).

These games run on the secret table's own protocol (``net.secrettable``): the host seats the
players, every peer checks every sealed record, and the finished game is kept as a replay file
under ``$SANTORINI_HOME/games/`` (and copied to ``--save``). A person plays on a line prompt
(``ui.table_view``); ``--bot LEVEL`` lets the computer play.
"""

from __future__ import annotations

import argparse
import asyncio
import hashlib
import os
import secrets
import sys
from pathlib import Path

from santorini_p2p.cli.common import SaveTarget, UsageError, error, save_target

__all__ = ["MODES", "host_table_game", "is_table_game", "join_table_game", "table_refusal"]

MODES = ("party", "agora")
"""The modes of ``host --mode`` that play on the table (the plain game needs no mode)."""

CLOCK_S = 120.0
"""How long a seat may owe a record (a turn, an ack, an answer, an opening) before the next
seat signs its forfeit."""


def is_table_game(args: argparse.Namespace) -> bool:
    """Whether ``host``'s arguments ask for a game on the secret table (``--table``).

    Secret gods, Party and Agora are games of the session (SECRET.md 12); the table is kept
    for a host that asks for it, and ``join`` follows a table host.
    """
    return bool(getattr(args, "table", False))


def secret_settings(args: argparse.Namespace) -> tuple[str, tuple[str, ...], tuple[str, ...]]:
    """``host --secret-gods`` / ``--mode party|agora``: selection, pool and header options.

    Secret gods are dealt at random, secretly, from ``--gods-from`` or the default pool
    (``wire.secretgame.DEFAULT_POOL``); Party deals from its pool at random, with ``pass=K``;
    Agora is four players.

    Raises:
        UsageError: another selection than random, a pool the mode refuses, a player count
            the mode is not played with, or options that do not go together.
    """
    from santorini_p2p.engine.party import AGORA_GODS, PARTY_POOL, agora_error
    from santorini_p2p.engine.setup import resolve_pool
    from santorini_p2p.wire.secretgame import DEFAULT_POOL, NOT_WITH_SECRET, SecretGame

    mode = args.mode
    if args.secret_gods and mode:
        raise UsageError(
            f"mode: --secret-gods and --mode {mode} are different games; pick one: "
            f"{NOT_WITH_SECRET[mode]}"
        )
    what = "--secret-gods" if args.secret_gods else f"--mode {mode}"
    if args.gods not in ("none", "random"):
        raise UsageError(f"gods: {what} deals them at random, not by {args.gods}")
    if mode == "agora":
        if args.players not in (2, 4):  # 2 is the default: Agora is always 4
            raise UsageError(f"players: Agora is played by 4 players, got {args.players}")
        args.players = 4
    if mode == "party" and args.players not in (2, 3):
        raise UsageError(f"players: Party is played by 2 or 3 players, got {args.players}")
    default = {"party": PARTY_POOL, "agora": AGORA_GODS}.get(mode or "", DEFAULT_POOL)
    pool: tuple[str, ...] = default
    if args.gods_from is not None:
        try:
            pool = resolve_pool(args.gods_from, args.players, "random")
        except ValueError as e:
            raise UsageError(f"gods-from: {str(e).removeprefix('god pool: ')}") from None
    if mode is None:
        try:
            SecretGame(pool, args.players)
        except ValueError as e:
            raise UsageError(f"gods-from: {str(e).removeprefix('pool: ')}") from None
        return "random", pool, ("secret",)
    bad = [g for g in pool if g not in default] or [g for g in pool if agora_error((g,) * 4)]
    if bad:
        raise UsageError(f"gods-from: {bad[0]} is not offered in {mode.capitalize()}")
    if mode == "agora":
        return "random", pool, ("agora",)
    every = args.pass_every if args.pass_every is not None else 2 * args.players
    if not 1 <= every <= 99:
        raise UsageError(f"pass-every: expected 1 to 99 turns, got {every}")
    return "random", pool, ("party", f"pass={every}")


def table_refusal(stopped: str | None) -> bool:
    """Whether a session join stopped because the host plays on the secret table."""
    from santorini_p2p.net.secrettable import SESSION_REFUSAL

    return stopped is not None and SESSION_REFUSAL in stopped


def _check_bot(bot: str | None) -> None:
    if bot is None:
        return
    from santorini_p2p.ai import LEVELS

    if bot not in LEVELS:
        raise UsageError(f"bot: expected one of {', '.join(LEVELS)}, got {bot!r}")


def _settings(args: argparse.Namespace) -> tuple[int, tuple[str, ...], tuple[str, ...]]:
    """``(players, pool, seats options)`` of the table game the arguments ask for."""
    from santorini_p2p.engine.party import AGORA_GODS, PARTY_POOL
    from santorini_p2p.wire.secretgame import DEFAULT_POOL, NOT_WITH_SECRET

    mode = args.mode
    if args.secret_gods and mode:
        raise UsageError(
            f"mode: --secret-gods and --mode {mode} are different games; pick one: "
            f"{NOT_WITH_SECRET[mode]}"
        )
    bad = [
        name
        for name, given in (
            ("--gods", args.gods != "none"),
            ("--gods-from", args.gods_from is not None),
            ("--time", args.time is not None),
        )
        if given
    ]
    if bad:
        what = "--secret-gods" if args.secret_gods else f"--mode {mode}"
        raise UsageError(f"{bad[0][2:]}: not with {what} (the table deals its own gods, untimed)")
    players = args.players
    if mode == "agora":
        if players not in (2, 4):  # 2 is the default: Agora is always 4
            raise UsageError(f"players: Agora is played by 4 players, got {players}")
        return 4, AGORA_GODS, ("agora",)
    if mode == "party":
        if players not in (2, 3):
            raise UsageError(f"players: Party is played by 2 or 3 players, got {players}")
        every = args.pass_every if args.pass_every is not None else 2 * players
        if not 1 <= every <= 99:
            raise UsageError(f"pass-every: expected 1 to 99 turns, got {every}")
        return players, PARTY_POOL, ("party", f"pass={every}")
    if args.pass_every is not None:
        raise UsageError("pass-every: only with --mode party")
    return players, DEFAULT_POOL, ()


def _peer(args: argparse.Namespace) -> tuple[Path, object]:
    """The home and the ``SecretPeer`` (identity and chooser) this command plays as."""
    from santorini_p2p.net.secrettable import SecretPeer
    from santorini_p2p.net.tablebots import PartyBot, SecretBot
    from santorini_p2p.ui.table_view import LinePartyPlayer, LineSecretPlayer
    from santorini_p2p.wire.identity import (
        Identity,
        check_name,
        home_dir,
        load_or_create_identity,
    )

    _check_bot(args.bot)
    home = home_dir()
    me = load_or_create_identity(home, args.name)
    if args.name is not None and args.name != me.name:
        try:
            me = Identity.from_seed(me.seed, check_name(args.name))
        except ValueError as e:
            raise UsageError(str(e)) from None
    # A repeatable --seed derives the deal key from it too; a player's key is drawn at random.
    if args.seed is not None:
        seed = hashlib.blake2b(f"{args.seed} {me.fingerprint}".encode(), digest_size=32).digest()
    else:
        seed = secrets.token_bytes(32)
    # A joiner learns from the seats frame whether the game is Party or Agora.
    bot: SecretBot
    party: PartyBot
    if args.bot is not None:
        bot, party = SecretBot(0, seed, level=args.bot), PartyBot(0, seed, level=args.bot)
    else:
        bot, party = LineSecretPlayer(0, seed), LinePartyPlayer(0, seed)
    return home, SecretPeer(me, bot, party_bot=party)


def _keep(home: Path, data: bytes, game_id: bytes, save: SaveTarget | None) -> int:
    """Write the replay under ``home/games/``, copy it to ``save``; say where."""
    from santorini_p2p.net.store import game_dir

    folder = game_dir(home)
    path = folder / f"table-{game_id.hex()}.sntr"
    try:
        folder.mkdir(parents=True, exist_ok=True)
        tmp = path.with_suffix(".tmp")
        tmp.write_bytes(data)
        os.replace(tmp, path)
    except OSError as e:
        error(f"cannot keep the replay at {path}: {e.strerror or e}")
        if save is not None:
            save.path.write_bytes(data)
            print(f"saved to {save.path}", flush=True)
            return 0
        return 1
    if save is not None and not save.copy_from(path):
        return 1
    return 0


def _finish(home: Path, peer: object, save: SaveTarget | None) -> int:
    from santorini_p2p.net.secrettable import SecretPeer
    from santorini_p2p.wire.secretlog import read_seats

    assert isinstance(peer, SecretPeer)
    g = peer.game
    if g is None or g.result is None:
        error("the game did not finish")
        return 1
    game_id = read_seats(peer.seats)[0]
    rc = _keep(home, peer.replay(), game_id, save)
    path = home / "games" / f"table-{game_id.hex()}.sntr"
    print(f"game over: {g.result[1]}; replay {path}", flush=True)
    return rc


def _keep_unfinished(home: Path, peer: object, save: SaveTarget | None) -> int:
    """The host left mid-game: keep the records this joiner holds, say where; exit 1."""
    from santorini_p2p.net.secrettable import SecretPeer
    from santorini_p2p.wire.secretlog import read_seats

    assert isinstance(peer, SecretPeer)
    if peer.seats:
        game_id = read_seats(peer.seats)[0]
        _keep(home, peer.replay(), game_id, save)
        path = home / "games" / f"table-{game_id.hex()}.sntr"
        print(f"game unfinished: the host left; the records so far are in {path}", flush=True)
    return 1


def _left() -> int:
    """Ctrl-C during a table game: say what that means."""
    error("left the table before the end; a table game cannot be resumed")
    return 1


def host_table_game(args: argparse.Namespace) -> int:
    """``santorini host --secret-gods`` / ``--mode party|agora``: host it, play it, keep it."""
    from santorini_p2p.errors import AddressError, PeerError
    from santorini_p2p.net.game import shown_address
    from santorini_p2p.net.secrettable import host_table
    from santorini_p2p.ui.table_view import TableView

    if not 0 <= args.port <= 65535:
        raise UsageError(f"port: expected 0 (any free port) to 65535, got {args.port}")
    players, pool, options = _settings(args)
    save = save_target(args.save)
    home, peer = _peer(args)
    view = TableView(peer)  # type: ignore[arg-type]
    shown = shown_address(args.bind)
    what = {"party": "Party", "agora": "Agora"}.get(args.mode or "", "secret gods")

    def listening(port: int) -> None:
        print(f"address: {shown}:{port}", flush=True)
        fp = view.peer.identity.fingerprint
        print(f"host fingerprint: {fp} ({view.peer.identity.name})", flush=True)
        print(f"others join with: santorini join {shown}:{port}", flush=True)
        print(f"table: {what}, {players} players; waiting for them", flush=True)

    try:
        asyncio.run(
            host_table(
                view.peer,
                players,
                pool,
                options,
                bind=args.bind,
                port=args.port,
                clock=CLOCK_S,
                on_listening=listening,
                on_record=view.show,
            )
        )
    except (AddressError, PeerError) as e:
        error(str(e))
        return 1
    except KeyboardInterrupt:
        return _left()
    return _finish(home, view.peer, save)


def join_table_game(args: argparse.Namespace, address: str) -> int:
    """``santorini join ADDRESS`` of a table game: take a seat, play it, keep it."""
    from santorini_p2p.errors import PeerError
    from santorini_p2p.net.secrettable import join_table
    from santorini_p2p.ui.table_view import TableView

    save = save_target(args.save)
    home, peer = _peer(args)
    view = TableView(peer)  # type: ignore[arg-type]
    print(f"the host at {address} plays a secret table: joining it in that protocol", flush=True)
    from santorini_p2p.net.secrettable import HostGone

    try:
        asyncio.run(join_table(view.peer, address, clock=CLOCK_S, on_record=view.show))
    except HostGone as e:
        error(str(e))
        return _keep_unfinished(home, view.peer, save)
    except PeerError as e:
        error(str(e))
        return 1
    except KeyboardInterrupt:
        return _left()
    return _finish(home, view.peer, save)


def add_host_options(p: argparse.ArgumentParser) -> None:
    """Add ``--secret-gods``, ``--mode`` and ``--pass-every`` to ``host``."""
    p.add_argument(
        "--secret-gods",
        action="store_true",
        help="deal the gods secretly (protocol/SECRET.md): each player learns only their own, "
        "reveals it with the first turn that needs it, objects when it forbids a turn",
    )
    p.add_argument(
        "--mode",
        choices=MODES,
        help="party: random gods that pass to the next player every --pass-every turns (2-3 "
        "players); agora: 4 players, seats 1 and 3 share workers, 2 and 4 the others, each "
        "wins alone",
    )
    p.add_argument(
        "--table",
        action="store_true",
        help="play --mode party|agora on the secret table of protocol/SECRET.md 13 (no "
        "clocks, chat or resume) instead of the session",
    )
    p.add_argument(
        "--pass-every",
        type=int,
        metavar="K",
        help="Party: the cards pass after every K turns (default: two rounds)",
    )


def say(text: str) -> None:
    """Print one line of the game now."""
    print(text, flush=True)
    sys.stdout.flush()
