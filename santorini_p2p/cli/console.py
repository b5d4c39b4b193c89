"""``play``, ``watch`` and the bare ``santorini``: the console's games, from the command line."""

from __future__ import annotations

import argparse
from typing import TYPE_CHECKING

from santorini_p2p.cli.common import (
    Subparsers,
    UsageError,
    add_pool_option,
    god_pool,
    save_target,
    think,
)

if TYPE_CHECKING:
    from santorini_p2p.ui.lan import LanGames
    from santorini_p2p.ui.start import GameOptions

__all__ = ["add_commands", "open_console"]


def open_console() -> int:
    """``santorini`` with no arguments: the console's start screen."""
    from santorini_p2p.ui.start import GameOptions, run_console

    return run_console(GameOptions(), network=_lan_games())


def _lan_games() -> LanGames:
    """The console's host and join entries, played over the LAN (ui/lan.py)."""
    from santorini_p2p.ui.lan import LanGames
    from santorini_p2p.ui.start import ask, choose
    from santorini_p2p.wire.identity import home_dir, load_or_create_identity

    home = home_dir()
    return LanGames(home, load_or_create_identity(home), choose, ask)


def _console_options(args: argparse.Namespace) -> GameOptions:
    from santorini_p2p.net.clock import STANDARD, parse_time_control
    from santorini_p2p.ui.start import GameOptions

    clock = STANDARD
    timed = not args.untimed
    if args.time is not None:
        try:
            tc = parse_time_control(args.time)
        except ValueError as e:
            raise UsageError(str(e)) from None
        timed = timed and tc is not None
        if tc is not None:
            clock = tc
    return GameOptions(
        gods=args.gods,
        pool=god_pool(args),
        seed=args.seed,
        timed=timed,
        mouse=args.mouse,
        think=think(getattr(args, "think", None)),
        clock=clock,
    )


def _cmd_play(args: argparse.Namespace) -> int:
    from santorini_p2p.ui.start import play

    save = save_target(args.save)
    options = _console_options(args)
    try:
        return play(
            args.bot,
            args.players,
            options,
            resume=args.resume,
            save=save.copy_from if save is not None else None,
            new=args.new,
        )
    except ValueError as e:
        raise UsageError(str(e)) from None


def _cmd_watch(args: argparse.Namespace) -> int:
    if args.address is not None:
        from santorini_p2p.cli.network import watch_lan_game

        given = [o for o, v in (("--levels", args.levels), ("--loopback", args.loopback)) if v]
        if given:
            raise UsageError(
                f"{' and '.join(given)}: computer players are not chosen when watching the "
                f"game at {args.address}"
            )
        return watch_lan_game(args)
    if args.save is not None or args.name is not None:
        raise UsageError(
            f"{'--save' if args.save is not None else '--name'}: only when watching a LAN "
            "game (santorini watch ADDRESS)"
        )
    from santorini_p2p.ui.start import watch

    if args.pace < 0:
        raise UsageError(f"pace: expected milliseconds of at least 0, got {args.pace}")
    levels = args.levels or ["medium"] * args.players
    if len(levels) != args.players:
        raise UsageError(f"levels: expected {args.players} levels, got {len(levels)}")
    network = _lan_games() if args.loopback else None
    return watch(levels, _console_options(args), args.pace, network)


def _add_game_options(p: argparse.ArgumentParser) -> None:
    p.add_argument(
        "--players", type=int, choices=(2, 3, 4), default=2, help="number of players (default 2)"
    )
    p.add_argument(
        "--gods",
        choices=("none", "random", "draft", "challenger"),
        default="none",
        help="how gods are chosen (default none)",
    )
    add_pool_option(p)
    p.add_argument("--seed", type=int, help="seed of the god draw and the computer's choices")
    p.add_argument(
        "--time",
        metavar="MOVE+BANK",
        help="seconds per move + bank (default 60+300), or none for no clocks",
    )
    p.add_argument("--untimed", action="store_true", help="no clocks (the same as --time none)")
    p.add_argument("--no-mouse", dest="mouse", action="store_false", help="ignore the mouse")
    p.add_argument(
        "--think",
        type=float,
        metavar="S",
        help="the computer's seconds a turn (and a position, in the review at game over)",
    )


def add_commands(sub: Subparsers) -> None:
    """Add ``play`` and ``watch``: the console's games, opened straight from the command line."""
    from santorini_p2p.ai import LEVELS

    p = sub.add_parser(
        "play",
        help="play on this terminal: against the computer, or hot-seat",
        description="Open the game screen: against the computer with --bot LEVEL, otherwise "
        "hot-seat (players take turns at this terminal). Tab completes every legal action; "
        "? shows the keys and the gods. Without a terminal, turns are read as text from "
        "standard input, one a line. Every finished game is kept as a replay file under "
        "$SANTORINI_HOME/games/.",
    )
    p.add_argument("--bot", choices=LEVELS, metavar="LEVEL", help=", ".join(LEVELS))
    p.add_argument("--resume", action="store_true", help="play on the game left unfinished here")
    p.add_argument(
        "--new", action="store_true", help="start a new game, giving up an unfinished one"
    )
    p.add_argument("--save", metavar="FILE", help="also copy the finished replay to FILE")
    _add_game_options(p)
    p.set_defaults(handler=_cmd_play)

    p = sub.add_parser(
        "watch",
        help="watch a LAN game, or computer players play each other",
        description="With ADDRESS (host:port, or a game's name from 'santorini games'), watch "
        "that LAN game as a spectator: before it starts or while it is played, every record "
        "verified as it comes, the board and clocks drawn live (q leaves). With --save, or "
        "when standard output is not a terminal, it runs unattended, prints each event and "
        "keeps the verified copy of the log when the game ends. Without ADDRESS, open the "
        "game screen on a game between computer players.",
    )
    p.add_argument(
        "address", nargs="?", help="the LAN game to watch: host:port, or a game name on the LAN"
    )
    p.add_argument(
        "--save", metavar="FILE", help="with ADDRESS: write the finished game's replay to FILE"
    )
    p.add_argument("--name", help="with ADDRESS: the name the host is shown")
    p.add_argument("--levels", nargs="+", choices=LEVELS, metavar="LEVEL", help="one per player")
    p.add_argument("--pace", type=int, default=700, metavar="MS", help="least ms between turns")
    p.add_argument(
        "--loopback",
        action="store_true",
        help="play over the network on this machine (127.0.0.1): a host and joiners in one "
        "process, each with its own key and journal",
    )
    _add_game_options(p)
    p.set_defaults(handler=_cmd_watch)
