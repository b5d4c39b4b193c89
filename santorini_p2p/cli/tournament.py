"""The ``tournament`` group: a club event run from signed replays (protocol/EVENT.md).

``new`` creates the event directory and its signed file, ``pair`` pairs the next round,
``result`` reads results from replays, ``standings`` prints the table (and an offline page),
``verify`` re-derives the whole event from its file and the replays alone.
"""

from __future__ import annotations

import argparse
import json
import math
import time
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Final

from santorini_p2p.cli.common import (
    Subparsers,
    UsageError,
    add_pool_option,
    error,
    god_pool,
    read_input,
    usage,
    write_output,
)

if TYPE_CHECKING:
    from santorini_p2p.tournament.club import Event
    from santorini_p2p.tournament.pairing import Round
    from santorini_p2p.wire.identity import Identity

__all__ = ["EventBoard", "add_commands", "tournament_game"]

PRESETS: Final = {"tournament": ("draft", "60+300")}
"""``--preset tournament``: the tournament rules (RULES.md 3, 5): a four-god draft from the ten
simple gods, a minute a move plus a five-minute bank."""


@dataclass(frozen=True, slots=True)
class EventBoard:
    """What ``host --tournament`` needs: the board's game settings and who moves first.

    ``settings`` are ``--gods``, ``--gods-from`` and ``--time`` as text; ``start_slot`` is
    the header slot of the board's first player (the host is slot 0); ``label`` is the
    board's name on the LAN, ``EVENT: round R board N: FIRST-SECOND``; ``opponent`` the other
    player's fingerprint.
    """

    settings: tuple[str, str | None, str]
    start_slot: int
    description: str
    opponent: str
    label: str = ""


def tournament_game(event_dir: str, me: str) -> EventBoard:
    """This player's board in the round being played of the event at ``event_dir``.

    Raises:
        UsageError: no event there, or no open board of the fingerprint ``me``.
    """
    event = _load(event_dir)
    h = event.header
    mine = event.index_of(me)
    if mine is None:
        raise UsageError(f"tournament: your key {me} is not a player of {h.name!r}")
    board = next((b for b in event.open_boards() if mine in (b.first, b.second)), None)
    if board is None:
        raise UsageError(
            f"tournament: you have no board to play in {h.name!r} now (the round being played "
            "is paired with `santorini tournament pair`; a copy of the event file must be new)"
        )
    other = board.second if mine == board.first else board.first
    settings = (h.gods, ",".join(h.pool) or None, h.time_text)
    first, second = event.name_of(board.first), event.name_of(board.second)
    label = f"{h.name}: round {board.round} board {board.number}: {first}-{second}"
    text = (
        f"tournament {h.name}: round {board.round} board {board.number}: "
        f"{first} (first) - {second}; "
        f"the other joins with: santorini join --tournament EVENT (or santorini join {me})"
    )
    opponent = h.players[other].fingerprint
    return EventBoard(settings, 0 if mine == board.first else 1, text, opponent, label)


def _now_ms() -> int:
    return time.time_ns() // 1_000_000


def _players(specs: list[str]) -> list[tuple[str, str]]:
    from santorini_p2p.wire.identity import check_name

    out: list[tuple[str, str]] = []
    for spec in specs:
        name, sep, fp = spec.rpartition("=")
        fp = fp.strip().lower()
        if not sep or not name:
            raise UsageError(f"player: expected NAME=FINGERPRINT, got {spec!r}")
        parts = fp.split("-")
        if len(parts) != 4 or any(
            len(p) != 4 or any(c not in "0123456789abcdef" for c in p) for p in parts
        ):
            raise UsageError(
                f"player {name!r}: fingerprint {fp!r} is not xxxx-xxxx-xxxx-xxxx in hex "
                "(`santorini id` prints a player's)"
            )
        try:
            check_name(name)
        except ValueError as e:
            raise UsageError(f"player: {e}") from None
        for other, ofp in out:
            if other.casefold() == name.casefold():
                raise UsageError(f"player: {name!r} is named twice")
            if ofp == fp:
                raise UsageError(f"player: {name!r} and {other!r} have the same fingerprint {fp}")
        out.append((name, fp))
    return out


def _cmd_new(args: argparse.Namespace) -> int:
    from santorini_p2p.net.clock import parse_time_control
    from santorini_p2p.tournament.club import create_event
    from santorini_p2p.tournament.event import MAX_PLAYERS, EventHeader, Player
    from santorini_p2p.tournament.pairing import round_robin_length
    from santorini_p2p.wire.identity import home_dir, load_or_create_identity

    players = _players(args.player or [])
    if not 2 <= len(players) <= MAX_PLAYERS:
        raise UsageError(f"player: an event has 2 to {MAX_PLAYERS} players, got {len(players)}")
    gods, time_text = PRESETS[args.preset] if args.preset else ("none", "60+300")
    args.gods = args.gods or gods
    args.players = 2
    pool = god_pool(args)
    try:
        tc = parse_time_control(args.time or time_text)
    except ValueError as e:
        raise UsageError(str(e)) from None
    n = len(players)
    cycle = round_robin_length(n)
    if args.format == "swiss":
        most = n - 1 if n % 2 == 0 else n
        rounds = args.rounds if args.rounds is not None else min(most, math.ceil(math.log2(n)))
        if not 1 <= rounds <= most:
            raise UsageError(
                f"rounds: a Swiss event of {n} players has 1 to {most} rounds, got {rounds}"
            )
    else:
        rounds = args.rounds if args.rounds is not None else cycle
        if not 1 <= rounds <= 2 * cycle:
            raise UsageError(
                f"rounds: a round robin of {n} players has {cycle} rounds a cycle and at most "
                f"two cycles ({2 * cycle}), got {rounds}"
            )
    directory = Path(args.event_dir)
    name = args.name or directory.resolve().name or "event"
    if not 0 < len(name) <= 100:
        raise UsageError(f"name: 1 to 100 characters, got {len(name)}")
    me = load_or_create_identity(home_dir())
    header = EventHeader(
        0,
        bytes(32),
        name,
        _now_ms(),
        tuple(Player(a, b) for a, b in players),
        args.format,
        rounds,
        args.gods,
        pool,
        tc.move_ms if tc else 0,
        tc.bank_ms if tc else 0,
    )
    event = create_event(directory, me, header)
    h = event.header
    pool_text = ",".join(h.pool) or "simple"
    gods_text = "none" if h.gods == "none" else f"{h.gods} from {pool_text}"
    print(f"event {h.name!r} created in {directory}")
    print(f"{h.format}, {h.rounds} rounds, {n} players; gods {gods_text}; time {h.time_text}")
    print(f"director: {me.fingerprint} ({me.name})")
    print(f"next: santorini tournament pair {directory}")
    return 0


def _load(directory: str) -> Event:
    from santorini_p2p.tournament.club import load_event

    path = Path(directory)
    if not path.exists():
        raise UsageError(f"no event at {directory} (create one with `santorini tournament new`)")
    return load_event(path)


def _director() -> Identity:
    from santorini_p2p.wire.identity import home_dir, load_or_create_identity

    return load_or_create_identity(home_dir())


def _print_round(event: Event, rnd: Round, directory: str, as_json: bool) -> None:
    names = [p.name for p in event.header.players]
    if as_json:
        print(
            json.dumps(
                {
                    "round": rnd.number,
                    "games": [{"first": names[a], "second": names[b]} for a, b in rnd.games],
                    "bye": None if rnd.bye is None else names[rnd.bye],
                }
            )
        )
        return
    print(f"round {rnd.number} of {event.header.rounds}")
    for n, (a, b) in enumerate(rnd.games, 1):
        print(f"board {n}: {names[a]} - {names[b]} ({names[a]} first)")
    if rnd.bye is not None:
        print(f"bye: {names[rnd.bye]}")
    print(
        f"each board: one player runs `santorini host --tournament EVENT`, the other `santorini "
        f"join --tournament EVENT` (EVENT: {directory} or a copy of its event.snte)"
    )


def _cmd_pair(args: argparse.Namespace) -> int:
    from santorini_p2p.tournament.pairing import PairingError, Round

    event = _load(args.event_dir)
    waiting = event.open_boards()
    if waiting:
        # The round is being played: print it again rather than pair ahead of its results.
        number = waiting[0].round
        boards = event.round_boards(number)
        rnd = Round(number, tuple((b.first, b.second) for b in boards), event.byes.get(number))
        _print_round(event, rnd, args.event_dir, args.json)
        return 0
    me = _director()
    try:
        rnd = event.pair(me, _now_ms())
    except PairingError as e:
        error(str(e))
        return 1
    event.save(Path(args.event_dir))
    _print_round(event, rnd, args.event_dir, args.json)
    return 0


def _cmd_result(args: argparse.Namespace) -> int:
    from santorini_p2p.tournament.club import ResultRefused, keep_replay
    from santorini_p2p.tournament.games import GameError, read_game

    event = _load(args.event_dir)
    me = _director()
    names = [p.name for p in event.header.players]
    refused = 0
    for file in args.replays:
        try:
            data = read_input(file)
        except UsageError as e:
            error(f"{file}: refused: {e}")
            refused += 1
            continue
        try:
            facts = read_game(data)
            board, new = event.record(me, facts, _now_ms())
        except (GameError, ResultRefused) as e:
            error(f"{file}: refused: {e}")
            refused += 1
            continue
        if new:
            event.save(Path(args.event_dir))
        keep_replay(Path(args.event_dir), board, event, Path(file))
        first, second = names[board.first], names[board.second]
        if board.winner is None:
            what = f"{first} and {second} drew ({board.reason})"
        else:
            loser = second if board.winner == board.first else first
            what = f"{names[board.winner]} beat {loser} ({board.reason})"
        again = "" if new else " (already recorded)"
        if board.reversed:
            # As when colours are reversed in chess: the game stands as played.
            what += f"; played the other way round, {second} first: it stands as played"
        print(f"{file}: round {board.round} board {board.number}: {what}{again}")
    return 1 if refused else 0


def _cmd_standings(args: argparse.Namespace) -> int:
    from santorini_p2p.tournament.standings import render_html, render_text

    event = _load(args.event_dir)
    table = event.table()
    if args.html not in (None, "-"):
        page_at = Path(args.html)
        if page_at.is_dir() or not page_at.parent.is_dir():
            raise UsageError(f"html: cannot write a page at {args.html!r}")
    print(render_text(event.header, table, event.status()), end="")
    if args.html is not None:
        page = render_html(event.header, table, event.boards, event.byes, event.status())
        write_output(args.html, page.encode())
        if args.html != "-":
            print(f"page written to {args.html}")
    return 0


def _cmd_verify(args: argparse.Namespace) -> int:
    from santorini_p2p.tournament.club import event_path, verify_event
    from santorini_p2p.tournament.standings import render_text

    path = event_path(Path(args.event_dir))
    replays = Path(args.replay_dir)
    if not replays.is_dir():
        raise UsageError(f"replay directory: {args.replay_dir} is not a directory")
    try:
        data = path.read_bytes()
    except OSError as e:
        raise UsageError(f"cannot read the event file {path}: {e.strerror or e}") from None
    result = verify_event(data, replays)
    for problem in result.problems:
        error(f"{path}: {problem}")
    event = result.event
    if event is None:
        return 1
    print(render_text(event.header, event.table(), event.status()), end="")
    pairings = event.rounds_paired
    if not result.ok:
        print(f"{path}: does not verify: {len(result.problems)} result(s) not re-derived")
        return 1
    print(
        f"{path}: ok: {len(event.log.records)} records signed by the director "
        f"{_fp(event.log.director)}; {pairings} round pairing(s) and {result.checked} result(s) "
        f"re-derived from the replays in {replays}"
    )
    return 0


def _fp(key: bytes) -> str:
    from santorini_p2p.wire.identity import fingerprint

    return fingerprint(key)


def add_commands(sub: Subparsers) -> None:
    """Add the ``tournament`` group: new, pair, result, standings, verify."""
    group = sub.add_parser(
        "tournament",
        help="run a club event (Swiss or round robin) from signed replays",
        description="Run a club event: pairings, results read from replays signed by both "
        "players, standings with Buchholz and Sonneborn-Berger, and a signed event file anyone "
        "can re-verify from the replays.",
    )
    group.set_defaults(handler=lambda _args: usage(group))
    actions = group.add_subparsers(dest="tournament_action", metavar="ACTION")

    p = actions.add_parser(
        "new",
        help="create an event: players, format, rounds, game settings",
        description="Create EVENT_DIR with the event file, signed by this player's key (the "
        "director's). --preset tournament: a four-god draft of the simple gods and a minute a "
        "move plus a five-minute bank; --gods and --time override it.",
    )
    p.add_argument("event_dir", metavar="EVENT_DIR")
    p.add_argument(
        "--player",
        action="append",
        metavar="NAME=FINGERPRINT",
        help="a player and their key's fingerprint (`santorini id`); in seed order, repeated",
    )
    p.add_argument("--format", choices=("swiss", "roundrobin"), required=True)
    p.add_argument("--rounds", type=int, help="rounds (default: Swiss log2(players), or a cycle)")
    p.add_argument("--preset", choices=tuple(PRESETS), help="the tournament rules")
    p.add_argument("--time", metavar="MOVE+BANK", help="seconds per move + bank, or none")
    p.add_argument("--gods", choices=("none", "random", "draft", "challenger"))
    add_pool_option(p)
    p.add_argument("--name", help="the event's name (default: the directory's)")
    p.set_defaults(handler=_cmd_new)

    p = actions.add_parser(
        "pair",
        help="pair the next round (or print the round being played)",
        description="Pair the next round once every board of the last one has its result: "
        "Swiss with no repeated pairing, byes and first-player balance, or the round robin's "
        "next round. While a round is being played, print it again.",
    )
    p.add_argument("event_dir", metavar="EVENT_DIR")
    p.add_argument(
        "--json",
        action="store_true",
        help='print {"round": R, "games": [{"first", "second"}, ...], "bye": NAME|null}',
    )
    p.set_defaults(handler=_cmd_pair)

    p = actions.add_parser(
        "result",
        help="record results from replay files",
        description="Read each replay: it must verify, be finished, be signed by both players "
        "of a board and played under the event's settings (a game played the other way round "
        "stands as played, and says so). A replay already recorded changes nothing. Any "
        "refused: its file and the reason, exit 1.",
    )
    p.add_argument("event_dir", metavar="EVENT_DIR")
    p.add_argument("replays", nargs="+", metavar="REPLAY")
    p.set_defaults(handler=_cmd_result)

    p = actions.add_parser(
        "standings",
        help="print the standings (and write an offline page)",
        description="Print the standings: points, Buchholz, Sonneborn-Berger, wins-draws-"
        "losses and byes. --html FILE writes them, with every round, as one offline page.",
    )
    p.add_argument("event_dir", metavar="EVENT_DIR")
    p.add_argument(
        "--html", metavar="FILE", help="write the standings page to FILE (replaced each time)"
    )
    p.set_defaults(handler=_cmd_standings)

    p = actions.add_parser(
        "verify",
        help="re-derive the event from its file and the replays alone",
        description="Check the event file's signatures and chain, re-derive every pairing "
        "from the results before it, and every result from the replays in REPLAY_DIR (found "
        "by their SHA-256), then print the standings. Exit 1 naming what does not verify.",
    )
    p.add_argument("event_dir", metavar="EVENT_DIR")
    p.add_argument("replay_dir", metavar="REPLAY_DIR")
    p.set_defaults(handler=_cmd_verify)
