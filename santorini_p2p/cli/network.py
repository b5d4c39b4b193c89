"""``host``, ``join``, ``resume`` and ``games``: peer-to-peer play over the LAN (net/)."""

from __future__ import annotations

import argparse
import dataclasses
import re
import sys
from pathlib import Path
from typing import TYPE_CHECKING, cast

from santorini_p2p.cli.common import (
    SaveTarget,
    Subparsers,
    UsageError,
    add_pool_option,
    error,
    god_pool,
    save_target,
    think,
)

DEFAULT_SPECTATORS = 4
"""How many spectators a host takes unless told (``net.gallery.DEFAULT_SPECTATORS``)."""

if TYPE_CHECKING:
    from santorini_p2p.net.game import GameOutcome, NetworkGame, PlayOptions
    from santorini_p2p.net.watch import SpectatorGame
    from santorini_p2p.ui.state import GameController

__all__ = ["add_commands", "game_address", "net_options", "watch_lan_game"]


def net_options(args: argparse.Namespace) -> PlayOptions:
    """Build the ``PlayOptions`` of ``host``/``join``/``resume`` from the command line."""
    from santorini_p2p.net.game import PlayOptions
    from santorini_p2p.ui.line_prompt import start_prompt
    from santorini_p2p.wire.identity import (
        Identity,
        check_name,
        home_dir,
        load_or_create_identity,
    )

    home = home_dir()
    me = load_or_create_identity(home, args.name)
    if args.name is not None and args.name != me.name:
        try:
            me = Identity.from_seed(me.seed, check_name(args.name))
        except ValueError as e:
            raise UsageError(str(e)) from None
    if args.bot is not None:
        from santorini_p2p.ai import LEVELS

        if args.bot not in LEVELS:
            raise UsageError(f"bot: expected one of {', '.join(LEVELS)}, got {args.bot!r}")
    pace = getattr(args, "pace", None)
    if pace is not None and args.bot is None:
        raise UsageError("pace: only with --bot (a person plays at their own pace)")
    if pace is not None and pace < 0:
        raise UsageError(f"pace: expected a number of ms from 0, got {pace}")
    if getattr(args, "takebacks", None) is not None and args.bot is None:
        raise UsageError("takebacks: only with --bot (a person answers y or n when asked)")
    # A person plays on the console's game screen; without a terminal, on a line prompt.
    screen = args.bot is None and sys.stdin.isatty() and sys.stdout.isatty()
    spectators = getattr(args, "spectators", None)
    extra = {} if spectators is None else {"spectators": spectators}
    return PlayOptions(
        home=home,
        identity=me,
        bot=args.bot,
        seed=args.seed,
        think=think(args.think),
        pace_ms=getattr(args, "pace", None) or 0,
        save=Path(args.save) if args.save else None,
        on_note=None if screen else lambda text: print(text, flush=True),
        on_start=None if args.bot or screen else start_prompt,
        play=_ScreenPlay(Path(args.save) if args.save else None) if screen else None,
        advertise=not getattr(args, "no_advertise", False),
        takebacks=getattr(args, "takebacks", None) or "refuse",
        rematches=getattr(args, "rematch", 0),
        spectator_chat=getattr(args, "spectator_chat", False),
        **extra,
    )


class _ScreenPlay:
    """Plays a network game on the console's game screen (``host``/``join`` on a terminal).

    At game over m asks for a rematch (SESSION.md 10); with ``save`` (``--save FILE``) game N
    of the series is copied to ``FILE-N`` when it is complete. ``left`` is set when the person
    left the game before its end (kept to resume): no error, the command says how to resume.
    """

    def __init__(self, save: Path | None) -> None:
        self._save = save
        self.left = False

    async def __call__(self, game: NetworkGame) -> None:
        """Show ``game`` (and each rematch) until the person leaves or the series ends."""
        from santorini_p2p.engine import Phase
        from santorini_p2p.net.game import save_when_complete
        from santorini_p2p.net.rematch import rematch_save_path
        from santorini_p2p.ui.app import LEAVE
        from santorini_p2p.ui.start import reviewer, run_network_game

        games = [game]
        save = self._save

        def rematch(again: NetworkGame) -> None:
            games.append(again)
            if save is not None:
                save_when_complete(again, rematch_save_path(save, again.session.series))

        await run_network_game(game, leave=LEAVE, review=reviewer(), on_rematch=rematch)
        last = games[-1]
        if last.session.journal is None:
            self.left = True
            print("left before the game started: the offer is withdrawn", flush=True)
        elif last.position.phase is not Phase.OVER and last.stopped is None:
            self.left = True
            print("left the game; run the same command again to resume it", flush=True)
        for number, again in enumerate(games[1:], 2):
            if again.replay is not None:
                print(f"game {number} over: {again.session.result_text()}; replay {again.replay}")


def _left(opts: PlayOptions) -> bool:
    """Whether the person left the game on its screen before the end (kept to resume)."""
    return isinstance(opts.play, _ScreenPlay) and opts.play.left


def _net_finish(out: GameOutcome, save: SaveTarget | None, *, left: bool = False) -> int:
    """Report how a network game and each rematch ended; copy the first one's replay.

    The first game goes to ``--save``'s file if it finished; ``_run`` wrote each rematch's to
    ``FILE-N`` already. A game the person ``left`` on its screen (kept to resume) is no error.
    """
    if left and not out.complete and out.stopped is None:
        return 0
    if out.complete:
        print(f"game over: {out.result}; replay {out.journal}", flush=True)
        # Game N of a series (a resumed rematch) was copied to FILE-N already: FILE is the first's.
        first = out.series == 1
        if (
            first
            and save is not None
            and out.journal is not None
            and not save.copy_from(out.journal)
        ):
            return 1
        for number, again in enumerate(out.rematches, 2):
            if not again.complete:
                return _net_finish(again, None)
            print(f"game {number} over: {again.result}; replay {again.journal}", flush=True)
        return 0
    error(out.stopped or "the game did not finish")
    if out.report is not None:
        print(f"santorini: report written to {out.report}", file=sys.stderr)
    return 1


def _recovered(home: Path, role: str | None, address: str | None, save: Path | None) -> bool:
    """Write the missing --save copy of a finished game of this command; say so."""
    from santorini_p2p.net.game import recover_unsaved

    lines = recover_unsaved(home, role=role, address=address, save=save)
    for line in lines:
        print(line, flush=True)
    return bool(lines)


def _say_set_aside(lines: list[str]) -> None:
    """Tell the user of each unreadable journal moved out of the way."""
    for line in lines:
        print(f"santorini: warning: {line}", file=sys.stderr, flush=True)


def _cmd_host(args: argparse.Namespace) -> int:
    import asyncio

    from santorini_p2p.cli.table import host_table_game, is_table_game, secret_settings
    from santorini_p2p.net.clock import STANDARD, parse_time_control
    from santorini_p2p.net.game import find_unfinished, host_game, resume_game, shown_address
    from santorini_p2p.net.session import GameSettings

    if is_table_game(args):
        return host_table_game(args)
    if args.pass_every is not None and args.mode != "party":
        raise UsageError("pass-every: only with --mode party")
    if not 0 <= args.port <= 65535:
        raise UsageError(f"port: expected 0 (any free port) to 65535, got {args.port}")
    if not 0 <= args.spectators <= MAX_SPECTATORS:
        raise UsageError(
            f"spectators: expected 0 (none) to {MAX_SPECTATORS}, got {args.spectators}"
        )
    secret = bool(getattr(args, "secret_gods", False))
    mode_options: tuple[str, ...] = ()
    if secret or args.mode:
        if args.tournament is not None:
            raise UsageError("secret-gods, mode: not in a tournament game")
        args.gods, secret_pool, mode_options = secret_settings(args)
        args.gods_from = None
    save = save_target(args.save)
    opts = net_options(args)
    event_start: tuple[str, ...] = ()
    if args.tournament is not None:
        from santorini_p2p.cli.tournament import tournament_game

        board = tournament_game(args.tournament, opts.identity.fingerprint)
        args.players, args.gods, args.gods_from, args.time = 2, *board.settings
        event_start = (f"start={board.start_slot}",)
        print(board.description, flush=True)
        # Announced on the LAN under the board's name, so that its other player finds it.
        opts = dataclasses.replace(opts, board=board.label)
    pool = secret_pool if secret or args.mode else god_pool(args)
    if _recovered(opts.home, "host", None, opts.save):
        return 0
    aside: list[str] = []
    found = find_unfinished(opts.home, role="host", notes=aside)
    _say_set_aside(aside)
    if found is not None:
        print(f"resuming the unfinished game {found[0].stem}", flush=True)
        return _net_finish(asyncio.run(resume_game(*found, opts)), save, left=_left(opts))
    if args.untimed and args.time not in (None, "none"):
        raise UsageError(f"--untimed and --time {args.time}: give one of them")
    try:
        time = "none" if args.untimed else args.time
        tc = parse_time_control(time) if time is not None else STANDARD
        # Chat and takebacks are allowed unless the host turns them off (protocol 2 headers).
        options = tuple(
            o for o, off in (("chat", args.no_chat), ("takeback", args.no_takebacks)) if not off
        )
        if mode_options:  # a takeback cannot undo an opening, an objection or a pass
            options = (*(o for o in options if o != "takeback"), *mode_options)
        options += event_start
        settings = GameSettings(args.players, args.gods, tc, options, pool=pool)
    except ValueError as e:
        raise UsageError(str(e)) from None
    shown = shown_address(args.bind)

    def listening(port: int) -> None:
        print(f"address: {shown}:{port}", flush=True)
        print(f"host fingerprint: {opts.identity.fingerprint} ({opts.identity.name})", flush=True)
        print(f"others join with: santorini join {shown}:{port}", flush=True)
        if args.spectators:
            print(f"spectators watch with: santorini watch {shown}:{port}", flush=True)
        if opts.board and opts.advertise:
            print(f"announcing on the LAN as: {opts.board}", flush=True)

    out = asyncio.run(
        host_game(settings, opts, bind=args.bind, port=args.port, on_listening=listening)
    )
    return _net_finish(out, save, left=_left(opts))


def game_address(address: str) -> str:
    """The ``host:port`` of ``address``: itself, or the game of that name on the LAN.

    Raises:
        UsageError: neither host:port nor the name of one game offered on the LAN.
    """
    import asyncio

    from santorini_p2p.net.transport import parse_address

    if address.count(":") > 1 and not address.startswith("["):
        raise UsageError(
            f"address: {address!r} looks like an IPv6 address; write it in brackets with "
            "the port, like [::1]:40517"
        )
    try:
        parse_address(address)
    except ValueError as e:
        from santorini_p2p.net.discovery import browse, find_offer

        if re.fullmatch(r".+:[0-9]+", address):
            raise UsageError(str(e)) from None  # host:port, not a game's name: say what is wrong

        offer = find_offer(asyncio.run(browse(2.0)), address)
        if offer is None:
            raise UsageError(
                f"address: not host:port, and no game named {address!r} on the LAN"
            ) from None
        address = offer.endpoint
    return address


def board_address(label: str, opponent: str, wait: float = 2.0, tries: int = 5) -> str:
    """The ``host:port`` of the tournament board ``label``, hosted by the key ``opponent``.

    Looks ``tries`` times, ``wait`` seconds each, so that a joiner started a little before its
    host still finds the game.

    Raises:
        UsageError: no such board on the LAN by then (the message says who hosts it, and that
            an explicit address works too).
    """
    import asyncio

    from santorini_p2p.net.discovery import browse, find_board

    offer = None
    for n in range(tries):
        offer = find_board(asyncio.run(browse(wait)), label, opponent)
        if offer is not None:
            break
        if n == 0:
            print(f"looking for {label} on the LAN ...", flush=True)
    if offer is None:
        raise UsageError(
            f"tournament: no game {label!r} hosted by {opponent} on the LAN yet; the other "
            "player starts it with `santorini host --tournament EVENT` (or give its address: "
            "santorini join HOST:PORT --tournament EVENT)"
        )
    return offer.endpoint


def _cmd_join(args: argparse.Namespace) -> int:
    import asyncio

    from santorini_p2p.net.game import find_unfinished, join_game, resume_game

    save = save_target(args.save)
    opts = net_options(args)
    if args.tournament is not None:
        from santorini_p2p.cli.tournament import tournament_game

        board = tournament_game(args.tournament, opts.identity.fingerprint)
        print(board.description, flush=True)
        if args.address is None:
            # The board's other player hosts it: found on the LAN by the board's name.
            address = board_address(board.label, board.opponent)
            print(f"found {board.label} at {address}", flush=True)
        else:
            address = game_address(args.address)
    elif args.address is None:
        raise UsageError("address: give host:port or a game's name (or --tournament EVENT)")
    else:
        address = game_address(args.address)
    if _recovered(opts.home, "join", address, opts.save):
        return 0
    aside: list[str] = []
    found = find_unfinished(opts.home, role="join", address=address, notes=aside)
    _say_set_aside(aside)
    if found is not None:
        print(f"resuming the unfinished game {found[0].stem}", flush=True)
        return _net_finish(asyncio.run(resume_game(*found, opts)), save, left=_left(opts))
    out = asyncio.run(join_game(address, opts))
    from santorini_p2p.cli.table import join_table_game, table_refusal

    if not out.complete and table_refusal(out.stopped):
        # The host's answer to the session hello says it plays the secret table (SECRET.md 13).
        return join_table_game(args, address)
    return _net_finish(out, save, left=_left(opts))


def _cmd_resume(args: argparse.Namespace) -> int:
    import asyncio

    from santorini_p2p.net.game import resume_game
    from santorini_p2p.net.session import unfinished_games

    save = save_target(args.save)
    opts = net_options(args)
    if _recovered(opts.home, None, None, opts.save):
        return 0
    aside: list[str] = []
    games = unfinished_games(opts.home, stopped=bool(args.game), notes=aside)
    _say_set_aside(aside)
    if args.game:
        games = [g for g in games if g[0].stem.startswith(args.game)]
    if not games:
        error("no unfinished network game to resume")
        return 1
    print(f"resuming the unfinished game {games[0][0].stem}", flush=True)
    return _net_finish(asyncio.run(resume_game(*games[0], opts)), save, left=_left(opts))


MAX_SPECTATORS = 64
"""The most spectators a host may take (each costs it a bounded share of its sending)."""


def watch_lan_game(args: argparse.Namespace) -> int:
    """``santorini watch ADDRESS|NAME``: watch a LAN game as a spectator, to its end.

    On a terminal without ``--save`` the game is drawn on the console's read-only game screen;
    otherwise (``--save``, or standard output not a terminal) it runs unattended, printing
    each event, and keeps the verified copy of the log when the game ends.
    """
    import asyncio

    from santorini_p2p.errors import AddressError, SantoriniError
    from santorini_p2p.net.watch import watch_lan
    from santorini_p2p.wire.identity import check_name, home_dir, load_or_create_identity

    save = save_target(args.save)
    home = home_dir()
    name = args.name
    if name is not None:
        try:
            check_name(name)
        except ValueError as e:
            raise UsageError(str(e)) from None
    else:
        name = load_or_create_identity(home).name
    address = game_address(args.address)
    unattended = save is not None or not (sys.stdout.isatty() and sys.stdin.isatty())
    play = None
    if not unattended:
        from santorini_p2p.ui.app import LEAVE
        from santorini_p2p.ui.start import run_network_game

        async def on_screen(game: SpectatorGame) -> None:
            # The spectator's game matches the console's controller by structure.
            await run_network_game(cast("GameController", game), leave=LEAVE)

        play = on_screen
    try:
        out = asyncio.run(
            watch_lan(
                address,
                name,
                home,
                save=save.path if save is not None else None,
                on_note=(lambda text: print(text, flush=True)) if unattended else None,
                play=play,
            )
        )
    except (ValueError, AddressError) as e:
        error(str(e))
        return 1
    except SantoriniError as e:  # the copy could not be written
        error(str(e))
        return 1
    if out.complete:
        game = "game" if out.number <= 1 else f"game {out.number}"
        print(f"{game} over: {out.result}; verified copy {out.replay}", flush=True)
        if out.saved is not None:
            print(f"saved to {out.saved}", flush=True)
        return 0
    if out.stopped is None:
        return 0  # left before the end (q)
    error(out.stopped)
    return 1


_GAMES_ROW = "{:<21} {:<19} {:>2} {:<10} {:<7} {}"
"""A line of ``santorini games``: 63 columns and the host's name (16 at most), 80 in all."""


def _cmd_games(args: argparse.Namespace) -> int:
    import asyncio

    from santorini_p2p.net.discovery import browse

    if not args.wait >= 0:  # also refuses nan
        raise UsageError(f"wait: expected a number of seconds of at least 0, got {args.wait}")
    offers = asyncio.run(browse(args.wait))
    if offers:
        print(_GAMES_ROW.format("ADDRESS", "FINGERPRINT", "PL", "GODS", "TIME", "HOST"))
    for o in offers:
        name = o.host_name if len(o.host_name) <= 16 else o.host_name[:15] + "~"
        print(_GAMES_ROW.format(o.endpoint, o.fingerprint, o.players, o.gods, o.time, name))
        if o.board:
            board = f"  board: {o.board}"
            print(board if len(board) <= 80 else board[:79] + "~")
        if o.gods_shown != o.gods:
            pool = "  gods from: " + o.pool.replace(",", ", ")
            print(pool if len(pool) <= 80 else pool[:79] + "~")
        if o.watchable:
            state = "in play" if o.playing else "seats free"
            chat = ", who may chat" if o.spectator_chat else ""
            line = (
                f"  watch: santorini watch {o.endpoint} ({state}, {o.spectators} spectators{chat})"
            )
            print(line if len(line) <= 80 else line[:79] + "~")
    if not offers:
        print("no games offered on the LAN right now", file=sys.stderr)
    from santorini_p2p.net.session import unsaved_games
    from santorini_p2p.wire.identity import home_dir

    for journal, note in unsaved_games(home_dir()):
        print(
            f"finished here, replay not saved: {journal.stem} ({note.get('role')}, "
            f"{note.get('address')}); 'santorini resume --save FILE' writes it"
        )
    return 0


_EVERY_REMATCH = 2**31
"""``--rematch`` without N: ask for and accept a rematch after every game."""


def _rematch_count(text: str) -> int:
    try:
        n = int(text)
    except ValueError:
        n = -1
    if n < 0:
        raise argparse.ArgumentTypeError(
            f"expected a number of rematches of 0 or more, got {text!r}"
        )
    return n


def rematch_option(p: argparse.ArgumentParser) -> None:
    """Add ``--rematch [N]`` (SESSION.md 10) to ``host`` or ``join``."""
    p.add_argument(
        "--rematch",
        nargs="?",
        type=_rematch_count,
        const=_EVERY_REMATCH,
        default=0,
        metavar="N",
        help="without a terminal (a bot, a pipe): when the game is over, ask for a rematch and "
        "accept one, N times at most (default: every time); without it, say at once that this "
        "player is not playing again (a rematch asked is declined). A rematch "
        "is a new game with the same players and settings, the next player moving first",
    )


def add_commands(sub: Subparsers) -> None:
    """Add ``host``, ``join``, ``resume`` and ``games`` (peer-to-peer play over the LAN)."""

    def common(p: argparse.ArgumentParser) -> None:
        p.add_argument("--name", help="your display name for this game")
        p.add_argument("--bot", metavar="LEVEL", help="let the computer play (random, easy, ...)")
        p.add_argument("--seed", type=int, help="seed of the computer player's choices")
        p.add_argument("--think", type=float, metavar="S", help="the computer's seconds a turn")
        p.add_argument(
            "--pace",
            type=int,
            metavar="MS",
            help="with --bot: the computer's least ms a turn, so that people (or spectators) "
            "can follow the game (default 0: as fast as it plays)",
        )
        p.add_argument("--save", metavar="FILE", help="copy the finished replay to FILE")
        p.add_argument(
            "--takebacks",
            choices=("accept", "refuse"),
            help="how the computer player (--bot) answers a takeback request (default refuse)",
        )

    p = sub.add_parser(
        "host",
        help="offer a network game and wait for the players",
        description="Offer a game on the LAN; print the address to give the other players and "
        "this player's key fingerprint. Running it again resumes an unfinished hosted game.",
    )
    p.add_argument("--port", type=int, default=0, help="TCP port (default: any free port)")
    p.add_argument("--bind", default="0.0.0.0", help="address to listen on (default: all)")
    p.add_argument("--players", type=int, choices=(2, 3, 4), default=2)
    p.add_argument("--gods", choices=("none", "random", "draft", "challenger"), default="none")
    add_pool_option(p)
    p.add_argument("--time", metavar="MOVE+BANK", help="seconds per move + bank (60+300) or none")
    p.add_argument("--untimed", action="store_true", help="no clocks (the same as --time none)")
    p.add_argument(
        "--no-advertise", action="store_true", help="do not announce the game on the LAN"
    )
    p.add_argument(
        "--no-takebacks",
        action="store_true",
        help="players may not ask to take back a turn",
    )
    p.add_argument(
        "--no-chat",
        action="store_true",
        help="players may not chat (with --no-takebacks too, the game is written as before)",
    )
    p.add_argument(
        "--spectators",
        type=int,
        default=DEFAULT_SPECTATORS,
        metavar="N",
        help=f"take at most N spectators, who watch and can never act (default "
        f"{DEFAULT_SPECTATORS}; 0 refuses them)",
    )
    p.add_argument(
        "--spectator-chat",
        action="store_true",
        help="let spectators say lines to the players and each other (never in the log)",
    )
    p.add_argument(
        "--tournament",
        metavar="EVENT",
        help="host this player's board of a club event's round being played (EVENT: the "
        "event directory or its event.snte): its settings, and its first player moving first",
    )
    from santorini_p2p.cli.table import add_host_options

    add_host_options(p)
    common(p)
    rematch_option(p)
    p.set_defaults(handler=_cmd_host)

    p = sub.add_parser(
        "join",
        help="join a network game",
        description="Join the game at ADDRESS (host:port, or a game name from 'santorini games'). "
        "Running it again resumes an unfinished game with that host.",
    )
    p.add_argument("address", nargs="?", help="host:port, or a game name on the LAN")
    p.add_argument(
        "--tournament",
        metavar="EVENT",
        help="join this player's board of a club event's round being played, hosted by the "
        "other player (found on the LAN by fingerprint unless ADDRESS is given)",
    )
    common(p)
    rematch_option(p)
    p.set_defaults(handler=_cmd_join)

    p = sub.add_parser(
        "resume",
        help="resume an unfinished network game",
        description="Re-verify an unfinished game's journal, reconnect and play on.",
    )
    p.add_argument("game", nargs="?", help="the game id (or its start); default: the newest")
    common(p)
    p.set_defaults(handler=_cmd_resume)

    p = sub.add_parser(
        "games",
        help="list the games offered on the LAN",
        description="List the games offered on the LAN right now (mDNS/DNS-SD): name, address "
        "to join, players and gods; a game that takes spectators has a 'watch:' line under it "
        "(the command that watches it, and whether it is in play). Where multicast is blocked, "
        "join or watch by host:port instead.",
    )
    p.add_argument("--wait", type=float, default=2.0, help="seconds to listen (default 2)")
    p.set_defaults(handler=_cmd_games)
