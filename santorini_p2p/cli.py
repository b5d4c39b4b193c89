"""The ``santorini`` command line: argparse, one function per subcommand; the only exit point.

Exit codes: 0 ok, 1 the operation failed (for example a replay that does not verify), 2 bad
usage or bad input. Errors go to standard error as ``santorini: error: ...``.
"""

from __future__ import annotations

import argparse
import json
import sys
from collections.abc import Callable, Sequence
from typing import TextIO

from santorini_p2p import __version__
from santorini_p2p.engine import (
    Position,
    apply_unchecked,
    divide,
    format_position,
    legal_turns,
    outcome,
    parse_position,
    perft,
)
from santorini_p2p.errors import SantoriniError

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
    print(render_text(p))
    return 0


def _moves_json(p: Position) -> str:
    turns = []
    for t in legal_turns(p):
        child = apply_unchecked(p, t)
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
            for t in legal_turns(p):
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
            out.write(" ".join(str(t) for t in legal_turns(p)) + "\n")
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


def _build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="santorini",
        description="Play Santorini over a LAN with no server; verify and share game records.",
    )
    parser.add_argument("--version", action="version", version=f"santorini-p2p {__version__}")
    sub = parser.add_subparsers(dest="command", metavar="COMMAND")

    p = sub.add_parser("show", help="draw a position as text", description="Draw a position.")
    p.add_argument("position", help="a position string (protocol/SPEC.md)")
    p.set_defaults(handler=_cmd_show)

    p = sub.add_parser(
        "moves",
        help="list the legal turns of a position",
        description="List the legal turns. With no POSITION, read positions from standard "
        "input, one per line, and write one line per position, in order.",
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
    _build_parser().print_help()
    return 0
