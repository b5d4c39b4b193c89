"""The ``santorini`` command line: argparse, one function per subcommand; the only exit point.

Exit codes: 0 ok, 1 the operation failed (for example a replay that does not verify), 2 bad
usage or bad input. Errors go to standard error as ``santorini: error: ...``.
"""

from __future__ import annotations

import argparse
import json
import sys
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Final, TextIO

from santorini_p2p import __version__
from santorini_p2p.engine import (
    Position,
    Turn,
    apply_action,
    apply_unchecked,
    divide,
    format_position,
    legal_actions,
    outcome,
    parse_position,
    perft,
)
from santorini_p2p.errors import SantoriniError

if TYPE_CHECKING:
    from santorini_p2p.ai import Analysis
    from santorini_p2p.ai.arena import GameRecord
    from santorini_p2p.ui.start import GameOptions, NetworkGames

__all__ = ["main"]

Handler = Callable[[argparse.Namespace], int]


class UsageError(SantoriniError):
    """Bad command-line input: exit 2."""


def _position_arg(text: str) -> Position:
    try:
        return parse_position(text)
    except SantoriniError as e:
        raise UsageError(f"position: {e}") from None


def _cmd_show(args: argparse.Namespace) -> int:
    from santorini_p2p.ui.board_view import render_text

    p = _position_arg(args.position)
    if args.svg:
        from santorini_p2p.replay.svg import board_svg

        print(board_svg(p, title=format_position(p)))
        return 0
    print(render_text(p))
    return 0


def _moves_json(p: Position) -> str:
    turns = []
    for t in legal_actions(p):
        child = apply_unchecked(p, t) if isinstance(t, Turn) else apply_action(p, t)
        won = outcome(child)
        turns.append(
            {
                "turn": str(t),
                "position": format_position(child),
                "winner": won.winner + 1 if won.winner is not None else None,
            }
        )
    return json.dumps({"position": format_position(p), "turns": turns})


def _cmd_moves(args: argparse.Namespace) -> int:
    if args.position is not None:
        p = _position_arg(args.position)
        if args.json:
            print(_moves_json(p))
        else:
            for t in legal_actions(p):
                print(t)
        return 0
    return _moves_batch(sys.stdin, sys.stdout, args.json)


def _moves_batch(inp: TextIO, out: TextIO, as_json: bool) -> int:
    """Batch mode: one position a line in, one JSON line (or turn list) out, in order."""
    status = 0
    for number, line in enumerate(inp, 1):
        text = line.strip()
        if not text:
            continue
        try:
            p = parse_position(text)
        except SantoriniError as e:
            print(f"santorini: error: line {number}: position: {e}", file=sys.stderr)
            if as_json:
                out.write(json.dumps({"position": text, "error": str(e)}) + "\n")
            status = 2
            continue
        if as_json:
            out.write(_moves_json(p) + "\n")
        else:
            out.write(" ".join(str(t) for t in legal_actions(p)) + "\n")
        out.flush()
    return status


def _cmd_perft(args: argparse.Namespace) -> int:
    p = _position_arg(args.position)
    if args.depth < 0:
        raise UsageError(f"depth: expected a whole number of at least 0, got {args.depth}")
    if args.divide and args.depth >= 1:
        total = 0
        for t, n in divide(p, args.depth):
            print(f"{t} {n}")
            total += n
        print(total)
    else:
        print(perft(p, args.depth))
    return 0


def _analysis_json(p: Position, level: str, a: Analysis) -> str:
    return json.dumps(
        {
            "position": format_position(p),
            "level": level,
            "best": str(a.best),
            "win": round(a.win, 4),
            "mate": a.mate,
            "score": a.score,
            "depth": a.depth,
            "nodes": a.nodes,
            "pv": [str(x) for x in a.pv],
        }
    )


def _cmd_analyse(args: argparse.Namespace) -> int:
    from santorini_p2p.ai import analyse

    p = _position_arg(args.position)
    _think(args.think)
    if args.nodes is not None and args.nodes < 1:
        raise UsageError(f"nodes: expected a whole number of at least 1, got {args.nodes}")
    try:
        a = analyse(p, args.level, think=args.think, nodes=args.nodes)
    except ValueError as e:
        raise UsageError(str(e)) from None
    if args.json:
        print(_analysis_json(p, args.level, a))
        return 0
    if a.mate is not None:
        kind = "win" if a.mate > 0 else "loss"
        value = f"forced {kind} in {abs(a.mate)} turn{'s' if abs(a.mate) != 1 else ''}"
    else:
        value = f"win probability {a.win:.0%} (score {a.score:+d})"
    print(f"evaluation: {value} for seat {p.to_move + 1}")
    print(f"depth: {a.depth}  nodes: {a.nodes}")
    print("line: " + " ".join(str(x) for x in a.pv))
    print(a.best)
    return 0


def _progress(done: int, total: int, width: int = 30) -> None:
    filled = width * done // max(1, total)
    bar = "#" * filled + "-" * (width - filled)
    end = "\n" if done == total else ""
    print(f"\r[{bar}] {done}/{total}", end=end, file=sys.stderr, flush=True)


def _save_game(directory: str, record: GameRecord) -> None:
    """Write one arena game as a replay file (the signed log) into ``directory``."""
    from santorini_p2p.ai.arena import signed_log
    from santorini_p2p.wire.log import encode_frames

    path = Path(directory) / f"game-{record.spec.index + 1:04d}.sntr"
    path.write_bytes(encode_frames(signed_log(record)))


def _cmd_arena(args: argparse.Namespace) -> int:
    import os

    from santorini_p2p.ai.arena import elo_text, run, schedule, tally

    if args.games < 1:
        raise UsageError(f"games: expected a whole number of at least 1, got {args.games}")
    _think(args.think)
    jobs = args.jobs if args.jobs is not None else (os.cpu_count() or 1)
    if jobs < 1:
        raise UsageError(f"jobs: expected a whole number of at least 1, got {jobs}")
    a, b = args.levels
    try:
        specs = schedule(
            a,
            b,
            args.games,
            players=args.players,
            gods=args.gods,
            seed=args.seed,
            think=args.think,
            nodes=args.nodes,
        )
    except ValueError as e:
        raise UsageError(str(e)) from None
    if args.save is not None:
        try:
            Path(args.save).mkdir(parents=True, exist_ok=True)
        except OSError as e:
            raise UsageError(f"save: cannot create {args.save!r}: {e.strerror}") from None
    records: list[GameRecord] = []
    _progress(0, len(specs))
    for record in run(specs, jobs):
        records.append(record)
        if args.save is not None:
            _save_game(args.save, record)
        _progress(len(records), len(specs))
    t = tally(a, b, records)
    lo, hi = t.interval
    elo_lo, elo_hi = t.elo_interval
    print(f"{'level':<8} {'games':>5} {'wins':>5} {'losses':>6} {'draws':>5} {'score':>6}  95%")
    print(
        f"{a:<8} {t.games:>5} {t.wins:>5} {t.losses:>6} {t.draws:>5} {t.score:>6.3f}"
        f"  [{lo:.3f}, {hi:.3f}]"
    )
    print(
        f"Elo difference ({a} - {b}): {elo_text(t.elo)}, "
        f"95% [{elo_text(elo_lo)}, {elo_text(elo_hi)}]"
    )
    return 0


def _add_ai_commands(sub: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    from santorini_p2p.ai.search import LEVELS

    p = sub.add_parser(
        "analyse",
        help="find the best turn and evaluate a position",
        description="Search a position: print its evaluation (a win probability or a forced "
        "win or loss in N turns), the depth reached and the best line. The last line is the "
        "best turn's text.",
    )
    p.add_argument("position", help="a position string")
    p.add_argument("--level", choices=LEVELS, default="hard", help="search level (default hard)")
    p.add_argument("--think", type=float, metavar="S", help="seconds to search (default 2)")
    p.add_argument("--nodes", type=int, metavar="N", help="node budget (repeatable results)")
    p.add_argument(
        "--json",
        action="store_true",
        help='print {"best", "win", "mate", "score", "depth", "nodes", "pv", ...}',
    )
    p.set_defaults(handler=_cmd_analyse)

    p = sub.add_parser(
        "arena",
        help="play computer against computer and measure the difference",
        description="Play LEVEL against LEVEL locally with the seats swapped, over several "
        "processes; print wins, losses, the score and the Elo difference, each with its 95% "
        "interval. --save writes each game as a replay file (santorini replay show/verify).",
    )
    p.add_argument("levels", nargs=2, choices=LEVELS, metavar="LEVEL", help=", ".join(LEVELS))
    p.add_argument("--games", type=int, default=20, help="number of games (default 20)")
    p.add_argument("--players", type=int, choices=(2, 3, 4), default=2, help="players (2)")
    p.add_argument(
        "--gods",
        choices=("none", "random", "challenger", "draft"),
        default="none",
        help="how gods are chosen (default none)",
    )
    p.add_argument("--seed", type=int, default=0, help="seed of the games (default 0)")
    p.add_argument("--jobs", type=int, help="processes (default: the number of cores)")
    p.add_argument("--think", type=float, metavar="S", help="seconds a turn (default: level's)")
    p.add_argument(
        "--nodes", type=int, metavar="N", help="node budget a turn (a smaller level budget stays)"
    )
    p.add_argument("--save", metavar="DIR", help="write each game to DIR/game-NNNN.sntr")
    p.set_defaults(handler=_cmd_arena)


def _cmd_id(args: argparse.Namespace) -> int:
    from santorini_p2p.wire.identity import (
        KEY_FILE,
        check_name,
        home_dir,
        load_or_create_identity,
        save_name,
    )

    if args.name is not None:
        try:
            check_name(args.name)
        except ValueError as e:
            raise UsageError(str(e)) from None
    me = save_name(args.name) if args.name is not None else load_or_create_identity()
    if args.json:
        print(json.dumps({"fingerprint": me.fingerprint, "name": me.name}))
    else:
        print(f"fingerprint  {me.fingerprint}")
        print(f"name         {me.name}")
        print(f"key file     {home_dir() / KEY_FILE}")
    return 0


def _cmd_replay_verify(args: argparse.Namespace) -> int:
    import os

    from santorini_p2p.replay.verify import verify_files

    jobs = args.jobs if args.jobs is not None else (os.cpu_count() or 1)
    if jobs < 1:
        raise UsageError(f"jobs: expected a whole number of at least 1, got {jobs}")
    files: list[str] = args.files
    show = len(files) >= 20 and sys.stderr.isatty() and not args.json
    failed = 0
    verdicts = []
    for done, v in enumerate(verify_files(files, jobs), 1):
        if show:
            print("\r" + " " * 60 + "\r", end="", file=sys.stderr)
        if args.json:
            verdicts.append(v.to_json())
        elif v.ok:
            print(v.line(), flush=show)
        else:
            print(f"santorini: error: {v.line()}", file=sys.stderr)
        failed += not v.ok
        if show:
            _progress(done, len(files))
    if args.json:
        print(json.dumps(verdicts, indent=None))
    return 1 if failed else 0


# -- sharing replays (replay/export_*.py) -------------------------------------------------------


def _read_input(path: str) -> bytes:

    from santorini_p2p.replay.verify import MAX_FILE_BYTES

    try:
        if Path(path).stat().st_size > 2 * MAX_FILE_BYTES:
            raise UsageError(f"{path}: too large for a replay file")
        return Path(path).read_bytes()
    except OSError as e:
        raise UsageError(f"cannot read {path}: {e.strerror or e}") from None


def _write_output(out: str | None, data: bytes) -> None:

    if out is None or out == "-":
        sys.stdout.buffer.write(data)
        sys.stdout.flush()
        return
    try:
        Path(out).write_bytes(data)
    except OSError as e:
        raise UsageError(f"cannot write {out}: {e.strerror or e}") from None


_EXPORT_SUFFIXES: Final = {".html": "html", ".htm": "html", ".json": "json", ".svg": "svg"}
"""The export format an output file's extension asks for when ``--format`` is not given."""


def _cmd_replay_export(args: argparse.Namespace) -> int:
    from santorini_p2p.replay.export_text import load_timeline

    t = load_timeline(_read_input(args.file))
    if t.header is None:
        raise SantoriniError(f"{args.file}: {t.verification}; nothing to export")
    n = len(t.steps)
    if args.ply is not None and not 0 <= args.ply <= n:
        raise UsageError(f"ply: expected 0 to {n} (the game has {n} steps), got {args.ply}")
    fmt = args.format or _EXPORT_SUFFIXES.get(Path(args.output or "-").suffix.lower(), "text")
    if fmt == "text":
        from santorini_p2p.replay.export_text import export_text

        text = export_text(t)
    elif fmt == "html":
        from santorini_p2p.replay.export_html import export_html

        text = export_html(t, step=args.ply)
    elif fmt == "json":
        from santorini_p2p.replay.export_json import export_json

        text = export_json(t)
    else:
        from santorini_p2p.replay.svg import board_svg
        from santorini_p2p.replay.timeline import squares_of

        at = n if args.ply is None else args.ply
        step = t.steps[at - 1] if at else None
        p = step.position if step is not None else t.start
        if p is None:
            raise SantoriniError(f"{args.file}: {t.verification}; no position to draw")
        marks = squares_of(step.text) if step is not None and step.kind == "act" else ()
        text = board_svg(p, marks, title=format_position(p)) + "\n"
    _write_output(args.output, text.encode("utf-8"))
    if not t.ok:
        print(
            f"santorini: error: {args.file}: {t.verification}; exported up to the last good record",
            file=sys.stderr,
        )
        return 1
    return 0


def _cmd_replay_info(args: argparse.Namespace) -> int:
    from santorini_p2p.replay.export_text import load_timeline

    t = load_timeline(_read_input(args.file))
    h = t.header
    print(f"file          {args.file}")
    for p in t.players:
        god = f"  {p.god}" if p.god not in ("", "?") else ""
        print(f"seat {p.seat + 1}        {p.name}  {p.fingerprint}{god}")
    if h is not None:
        tc = t.time_control
        print(
            f"gods          {h.gods}" + (f"  options {', '.join(h.options)}" if h.options else "")
        )
        print(f"time control  {'untimed' if tc == '-' else tc + ' s (move+bank)'}")
        print(f"date          {t.date + ' UTC' if t.date else 'not recorded'}")
        print(f"game id       {h.game_id.hex()}")
    print(f"result        {t.result_text}")
    print(f"turns         {t.turns} ({len(t.steps)} actions, {len(t.records)} records)")
    print(f"verification  {t.verification}")
    return 0 if t.ok else 1


def _cmd_replay_import(args: argparse.Namespace) -> int:
    from santorini_p2p.replay.export_text import TextReplayError, check_text
    from santorini_p2p.wire.log import FILE_MAGIC

    data = _read_input(args.file)
    if data.startswith(FILE_MAGIC):
        raise SantoriniError(
            f"{args.file}: this is a replay file already; import reads a text export "
            "(replay export FILE -o game.santorini.txt makes one)"
        )
    try:
        _, t = check_text(data)
    except TextReplayError as e:
        raise SantoriniError(f"{args.file}: {e}") from e
    _write_output(args.output, t.data)
    if not t.ok:
        print(f"santorini: error: {args.file}: {t.verification}", file=sys.stderr)
        return 1
    if args.output != "-":
        print(f"{args.output}: {len(t.data)} bytes, {len(t.records)} records; verification ok")
    return 0


def _add_export_commands(actions: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    """Add ``replay export``, ``replay info`` and ``replay import``."""
    p = actions.add_parser(
        "export",
        help="export a replay as text, a web page, JSON or an SVG image",
        description="Export a replay file (or a .santorini.txt text export) to standard output "
        "or -o OUT, in the --format given or else the one OUT's extension names: text (tags, "
        "numbered actions and the signed log, armoured), html (one self-contained page that "
        "steps through the game offline), json (every record decoded), svg (the board after "
        "step --ply N). A file that fails verification is exported up to its first bad record, "
        "says so, and the command exits 1.",
    )
    p.add_argument("file", metavar="FILE", help="a replay file or a text export")
    p.add_argument(
        "--format",
        choices=("text", "html", "json", "svg"),
        help="(default: as OUT's extension says, .html, .json or .svg; otherwise text)",
    )
    p.add_argument(
        "--ply", type=int, metavar="N", help="the step to show (0: the start; default last)"
    )
    p.add_argument("-o", "--output", metavar="OUT", help="write to OUT (default standard output)")
    p.set_defaults(handler=_cmd_replay_export)

    p = actions.add_parser(
        "info",
        help="summarise a replay: players, fingerprints, gods, result, verification",
        description="Print the players with their key fingerprints and gods, the god mode, "
        "time control, date, result, number of turns and the verification status.",
    )
    p.add_argument("file", metavar="FILE", help="a replay file or a text export")
    p.set_defaults(handler=_cmd_replay_info)

    p = actions.add_parser(
        "import",
        help="restore the replay file from a text export",
        description="Decode the signed log armoured in a .santorini.txt text export, check that "
        "the readable part agrees with it, and write the exact original replay file to OUT.",
    )
    p.add_argument("file", metavar="TEXTFILE", help="a .santorini.txt text export")
    p.add_argument("-o", "--output", metavar="OUT", required=True, help="the replay file to write")
    p.set_defaults(handler=_cmd_replay_import)


def _add_replay_commands(sub: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    """Add ``id`` and the ``replay`` group; each replay action is one ``actions.add_parser``."""
    p = sub.add_parser(
        "id",
        help="print this player's fingerprint and display name",
        description="Print the fingerprint and display name of this player's identity, "
        "creating the key on first use (under $SANTORINI_HOME, or the user's data directory).",
    )
    p.add_argument("--name", help="change the display name (1 to 64 bytes, printable)")
    p.add_argument("--json", action="store_true", help='print {"fingerprint", "name"}')
    p.set_defaults(handler=_cmd_id)

    group = sub.add_parser(
        "replay",
        help="work with replay files (signed game records)",
        description="Work with replay files.",
    )
    group.set_defaults(handler=lambda _args: _usage(group))
    actions = group.add_subparsers(dest="replay_action", metavar="ACTION")

    p = actions.add_parser(
        "verify",
        help="check replay files: signatures, chain, legality, state hashes",
        description="Check every record of each replay file: signature, chain, the signer's "
        "right to the record, the legality of each action and the state hash after it. Print "
        "one line per good file (players, gods, result, turns, ok); name the first bad record "
        "of a bad file and why, and exit 1.",
    )
    p.add_argument("files", nargs="+", metavar="FILE", help="replay files")
    p.add_argument(
        "--json",
        action="store_true",
        help='print [{"file", "ok", "players", "gods", "result", "turns", ...}, ...]',
    )
    p.add_argument("--jobs", type=int, help="processes (default: the number of cores)")
    p.set_defaults(handler=_cmd_replay_verify)

    p = actions.add_parser(
        "show",
        help="step through a replay file on the game screen",
        description="Open the replay viewer: Left/Right step, Home/End jump, the turn list "
        "marks the current turn, and the verification status is shown at the top.",
    )
    p.add_argument("file", metavar="FILE", help="a replay file")
    p.add_argument("--no-mouse", dest="mouse", action="store_false", help="ignore the mouse")
    p.set_defaults(handler=_cmd_replay_show)
    _add_export_commands(actions)


def _usage(parser: argparse.ArgumentParser) -> int:
    parser.print_help(sys.stderr)
    return 2


def _build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="santorini",
        description="Play Santorini over a LAN with no server; verify and share game records.",
    )
    parser.add_argument("--version", action="version", version=f"santorini-p2p {__version__}")
    sub = parser.add_subparsers(dest="command", metavar="COMMAND")

    p = sub.add_parser("show", help="draw a position as text", description="Draw a position.")
    p.add_argument("position", help="a position string (protocol/SPEC.md)")
    p.add_argument("--svg", action="store_true", help="draw it as an SVG image instead")
    p.set_defaults(handler=_cmd_show)

    p = sub.add_parser(
        "moves",
        help="list the legal turns of a position",
        description="List the legal turns (in the setup phase, the legal setup actions). With "
        "no POSITION, read positions from standard input, one per line, and write one line "
        "per position, in order.",
    )
    p.add_argument("position", nargs="?", help="a position string (default: read standard input)")
    p.add_argument(
        "--json",
        action="store_true",
        help='print {"position": P, "turns": [{"turn", "position", "winner"}, ...]}',
    )
    p.set_defaults(handler=_cmd_moves)

    p = sub.add_parser(
        "perft",
        help="count complete-turn sequences of a given length",
        description="Count the complete-turn sequences of length DEPTH; a winning turn ends "
        "its line. The count is the last line.",
    )
    p.add_argument("position", help="a position string")
    p.add_argument("depth", type=int, help="the number of turns")
    p.add_argument("--divide", action="store_true", help="first print each turn with its count")
    p.set_defaults(handler=_cmd_perft)
    _add_ai_commands(sub)
    _add_replay_commands(sub)
    _add_console_commands(sub)
    _add_net_commands(sub)

    return parser


def main(argv: Sequence[str] | None = None) -> int:
    """Run the command line with ``argv`` (default ``sys.argv[1:]``); return the exit code."""
    parser = _build_parser()
    args = parser.parse_args(argv)
    handler: Handler | None = getattr(args, "handler", None)
    if handler is None:
        return _open_console()
    try:
        return handler(args)
    except UsageError as e:
        print(f"santorini: error: {e}", file=sys.stderr)
        return 2
    except SantoriniError as e:
        print(f"santorini: error: {e}", file=sys.stderr)
        return 1
    except KeyboardInterrupt:
        print("santorini: interrupted", file=sys.stderr)
        return 130
    except BrokenPipeError:
        return 0


def _open_console() -> int:
    """``santorini`` with no arguments: the console's start screen."""
    from santorini_p2p.ui.start import GameOptions, run_console

    return run_console(GameOptions(), network=_lan_games())


def _lan_games() -> NetworkGames:
    """The console's host and join entries, played over the LAN (net/game.py)."""
    from typing import cast

    from santorini_p2p.net.game import LanGames
    from santorini_p2p.ui.start import NetworkGames, ask, choose
    from santorini_p2p.wire.identity import home_dir, load_or_create_identity

    home = home_dir()

    async def menu(title: str, items: Sequence[tuple[str, str]]) -> str | None:
        return await choose(title, items)

    # LanGames's views match the console's by structure (same fields and enum values).
    return cast(NetworkGames, LanGames(home, load_or_create_identity(home), menu, ask))


def _console_options(args: argparse.Namespace) -> GameOptions:
    from santorini_p2p.ui.start import GameOptions

    return GameOptions(
        gods=args.gods,
        seed=args.seed,
        timed=not args.untimed,
        mouse=args.mouse,
        think=_think(getattr(args, "think", None)),
    )


def _think(seconds: float | None) -> float | None:
    """Check a ``--think`` value: seconds above 0, or None for the level's own budget."""
    if seconds is not None and not seconds > 0:
        raise UsageError(f"think: expected a number of seconds above 0, got {seconds}")
    return seconds


def _cmd_play(args: argparse.Namespace) -> int:
    from santorini_p2p.ui.start import play

    try:
        return play(args.bot, args.players, _console_options(args), resume=args.resume)
    except ValueError as e:
        raise UsageError(str(e)) from None


def _cmd_watch(args: argparse.Namespace) -> int:
    from santorini_p2p.ui.start import watch

    if args.pace < 0:
        raise UsageError(f"pace: expected milliseconds of at least 0, got {args.pace}")
    levels = args.levels or ["medium"] * args.players
    if len(levels) != args.players:
        raise UsageError(f"levels: expected {args.players} levels, got {len(levels)}")
    network = _lan_games() if args.loopback else None
    return watch(levels, _console_options(args), args.pace, network)


def _cmd_replay_show(args: argparse.Namespace) -> int:
    from santorini_p2p.ui.replay_view import show_replay

    return show_replay(args.file, mouse=args.mouse)


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
    p.add_argument("--seed", type=int, help="seed of the god draw and the computer's choices")
    p.add_argument("--untimed", action="store_true", help="no clocks (default: 1 min + 5 min)")
    p.add_argument("--no-mouse", dest="mouse", action="store_false", help="ignore the mouse")
    p.add_argument("--think", type=float, metavar="S", help="the computer's seconds a turn")


def _add_console_commands(sub: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    """Add ``play`` and ``watch``: the console's games, opened straight from the command line."""
    from santorini_p2p.ai import LEVELS

    p = sub.add_parser(
        "play",
        help="play on this terminal: against the computer, or hot-seat",
        description="Open the game screen: against the computer with --bot LEVEL, otherwise "
        "hot-seat (players take turns at this terminal). Tab completes every legal action; "
        "? shows the keys and the gods.",
    )
    p.add_argument("--bot", choices=LEVELS, metavar="LEVEL", help=", ".join(LEVELS))
    p.add_argument("--resume", action="store_true", help="play on the game left unfinished here")
    _add_game_options(p)
    p.set_defaults(handler=_cmd_play)

    p = sub.add_parser(
        "watch",
        help="watch computer players play each other",
        description="Open the game screen on a game between computer players.",
    )
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


# -- network play (net/) ------------------------------------------------------------------------


def _net_options(args: argparse.Namespace) -> object:
    """Build the ``PlayOptions`` of ``host``/``join``/``resume`` from the command line."""
    from santorini_p2p.net.game import PlayOptions
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
    if args.save and not Path(args.save).resolve().parent.is_dir():
        raise UsageError(f"save: no directory {str(Path(args.save).parent)!r} to write into")
    if args.bot is not None:
        from santorini_p2p.ai import LEVELS

        if args.bot not in LEVELS:
            raise UsageError(f"bot: expected one of {', '.join(LEVELS)}, got {args.bot!r}")
    # A person plays on the console's game screen; without a terminal, on a line prompt.
    screen = args.bot is None and sys.stdin.isatty() and sys.stdout.isatty()
    return PlayOptions(
        home=home,
        identity=me,
        bot=args.bot,
        seed=args.seed,
        think=_think(args.think),
        save=Path(args.save) if args.save else None,
        on_note=None if screen else lambda text: print(text, flush=True),
        on_start=None if args.bot or screen else _start_prompt,
        play=_on_screen if screen else None,
        advertise=not getattr(args, "no_advertise", False),
    )


async def _on_screen(game: object) -> None:
    """Play a network game on the console's game screen (``host``/``join`` on a terminal)."""
    from santorini_p2p.engine import Phase
    from santorini_p2p.net.game import NetworkGame
    from santorini_p2p.ui.app import LEAVE
    from santorini_p2p.ui.start import run_network_game

    assert isinstance(game, NetworkGame)
    await run_network_game(game, leave=LEAVE)
    if game.session.journal is None:
        print("left before the game started: the offer is withdrawn", flush=True)
    elif game.position.phase is not Phase.OVER and game.stopped is None:
        print("left the game; run the same command again to resume it", flush=True)


def _start_prompt(game: object) -> None:
    """Without a terminal (scripts, pipes): a plain line prompt that reads action text."""
    import asyncio

    from santorini_p2p.net.game import NetworkGame

    assert isinstance(game, NetworkGame)
    wake = asyncio.Event()
    game.listen(wake.set)
    loop = asyncio.get_running_loop()
    lines: asyncio.Queue[str] = asyncio.Queue()

    def read_lines() -> None:
        # A daemon thread: a pending read must not keep the process alive after the game.
        try:
            for line in sys.stdin:
                loop.call_soon_threadsafe(lines.put_nowait, line)
            loop.call_soon_threadsafe(lines.put_nowait, "")
        except RuntimeError:
            return  # the game is over and its event loop closed

    import threading

    threading.Thread(target=read_lines, daemon=True).start()

    async def prompt() -> None:
        from santorini_p2p.engine import legal_form, parse_action
        from santorini_p2p.ui.board_view import render_text

        while game.session.stopped is None and not game.session.is_complete:
            if game.awaiting is None:
                wake.clear()
                try:
                    async with asyncio.timeout(0.5):
                        await wake.wait()
                except TimeoutError:
                    pass
                continue
            print(render_text(game.position))
            print("your move (action text, or 'resign'): ", end="", flush=True)
            line = await lines.get()
            if not line:
                return
            text = line.strip()
            try:
                if text == "resign":
                    game.resign()
                else:
                    action = parse_action(text)
                    game.submit(legal_form(game.position, action) or action)
            except SantoriniError as e:
                print(f"santorini: {e}", flush=True)

    asyncio.get_running_loop().create_task(prompt())


def _net_finish(out: object) -> int:
    from santorini_p2p.net.game import GameOutcome

    assert isinstance(out, GameOutcome)
    if out.complete:
        print(f"game over: {out.result}; replay {out.journal}", flush=True)
        return 0
    print(f"santorini: error: {out.stopped or 'the game did not finish'}", file=sys.stderr)
    if out.report is not None:
        print(f"santorini: report written to {out.report}", file=sys.stderr)
    return 1


def _cmd_host(args: argparse.Namespace) -> int:
    import asyncio

    from santorini_p2p.net.clock import STANDARD, parse_time_control
    from santorini_p2p.net.game import (
        PlayOptions,
        find_unfinished,
        host_game,
        resume_game,
        shown_address,
    )
    from santorini_p2p.net.session import GameSettings

    if not 0 <= args.port <= 65535:
        raise UsageError(f"port: expected 0 (any free port) to 65535, got {args.port}")
    opts = _net_options(args)
    assert isinstance(opts, PlayOptions)
    found = find_unfinished(opts.home, role="host")
    if found is not None:
        print(f"resuming the unfinished game {found[0].stem}", flush=True)
        return _net_finish(asyncio.run(resume_game(*found, opts)))
    try:
        tc = parse_time_control(args.time) if args.time is not None else STANDARD
        settings = GameSettings(args.players, args.gods, tc)
    except ValueError as e:
        raise UsageError(str(e)) from None
    shown = shown_address(args.bind)

    def listening(port: int) -> None:
        print(f"address: {shown}:{port}", flush=True)
        print(f"host fingerprint: {opts.identity.fingerprint} ({opts.identity.name})", flush=True)
        print(f"others join with: santorini join {shown}:{port}", flush=True)

    out = asyncio.run(
        host_game(settings, opts, bind=args.bind, port=args.port, on_listening=listening)
    )
    return _net_finish(out)


def _cmd_join(args: argparse.Namespace) -> int:
    import asyncio

    from santorini_p2p.net.game import PlayOptions, find_unfinished, join_game, resume_game
    from santorini_p2p.net.transport import parse_address

    opts = _net_options(args)
    assert isinstance(opts, PlayOptions)
    address = args.address
    try:
        parse_address(address)
    except ValueError:
        from santorini_p2p.net.discovery import browse, find_offer

        offer = find_offer(asyncio.run(browse(2.0)), address)
        if offer is None:
            raise UsageError(
                f"address: not host:port, and no game named {address!r} on the LAN"
            ) from None
        address = offer.endpoint
    found = find_unfinished(opts.home, role="join", address=address)
    if found is not None:
        print(f"resuming the unfinished game {found[0].stem}", flush=True)
        return _net_finish(asyncio.run(resume_game(*found, opts)))
    return _net_finish(asyncio.run(join_game(address, opts)))


def _cmd_resume(args: argparse.Namespace) -> int:
    import asyncio

    from santorini_p2p.net.game import PlayOptions, resume_game
    from santorini_p2p.net.session import unfinished_games

    opts = _net_options(args)
    assert isinstance(opts, PlayOptions)
    games = unfinished_games(opts.home, stopped=bool(args.game))
    if args.game:
        games = [g for g in games if g[0].stem.startswith(args.game)]
    if not games:
        print("santorini: error: no unfinished network game to resume", file=sys.stderr)
        return 1
    print(f"resuming the unfinished game {games[0][0].stem}", flush=True)
    return _net_finish(asyncio.run(resume_game(*games[0], opts)))


def _cmd_games(args: argparse.Namespace) -> int:
    import asyncio

    from santorini_p2p.net.discovery import browse

    if not args.wait >= 0:  # also refuses nan
        raise UsageError(f"wait: expected a number of seconds of at least 0, got {args.wait}")
    offers = asyncio.run(browse(args.wait))
    for o in offers:
        print(
            f"{o.endpoint:21}  {o.host_name} ({o.fingerprint})  "
            f"players {o.players}  gods {o.gods}  time {o.time}"
        )
    if not offers:
        print("no games offered on the LAN right now", file=sys.stderr)
    return 0


def _add_net_commands(sub: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    """Add ``host``, ``join``, ``resume`` and ``games`` (peer-to-peer play over the LAN)."""

    def common(p: argparse.ArgumentParser) -> None:
        p.add_argument("--name", help="your display name for this game")
        p.add_argument("--bot", metavar="LEVEL", help="let the computer play (random, easy, ...)")
        p.add_argument("--seed", type=int, help="seed of the computer player's choices")
        p.add_argument("--think", type=float, metavar="S", help="the computer's seconds a turn")
        p.add_argument("--save", metavar="FILE", help="copy the finished replay to FILE")

    p = sub.add_parser(
        "host",
        help="offer a network game and wait for the players",
        description="Offer a game on the LAN; print the address to give the other players and "
        "this player's key fingerprint. Running it again resumes an unfinished hosted game.",
    )
    p.add_argument("--port", type=int, default=0, help="TCP port (default: any free port)")
    p.add_argument("--bind", default="0.0.0.0", help="address to listen on (default: all)")
    p.add_argument("--players", type=int, choices=(2, 3, 4), default=2)
    p.add_argument("--gods", choices=("none", "draft", "challenger", "random"), default="none")
    p.add_argument("--time", metavar="MOVE+BANK", help="seconds per move + bank (60+300) or none")
    p.add_argument(
        "--no-advertise", action="store_true", help="do not announce the game on the LAN"
    )
    common(p)
    p.set_defaults(handler=_cmd_host)

    p = sub.add_parser(
        "join",
        help="join a network game",
        description="Join the game at ADDRESS (host:port, or a game name from 'santorini games'). "
        "Running it again resumes an unfinished game with that host.",
    )
    p.add_argument("address", help="host:port, or a game name on the LAN")
    common(p)
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
        "to join, players and gods. Where multicast is blocked, join by host:port instead.",
    )
    p.add_argument("--wait", type=float, default=2.0, help="seconds to listen (default 2)")
    p.set_defaults(handler=_cmd_games)
