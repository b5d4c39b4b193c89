"""``show``, ``moves``, ``perft`` and ``gods``: the rules engine on the command line."""

from __future__ import annotations

import argparse
import json
import shutil
import sys
import textwrap
from typing import TextIO

from santorini_p2p.cli.common import Subparsers, UsageError, error, position_arg
from santorini_p2p.engine import (
    ADVANCED,
    GOLDEN_FLEECE,
    GROUP1,
    HEROES,
    MEMORY,
    SIMPLE,
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

__all__ = ["LEGEND", "add_commands", "moves_batch"]

LEGEND = "legend: the digit is the level (. for 0), X a dome, A B C the workers of each side"
"""What ``show`` prints under the board: how to read a square."""


def _cmd_show(args: argparse.Namespace) -> int:
    from santorini_p2p.ui.board_view import render_text

    p = position_arg(args.position)
    if args.svg:
        from santorini_p2p.replay.svg import board_svg

        print(board_svg(p, title=format_position(p)))
        return 0
    print(render_text(p))
    print(LEGEND)
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
        p = position_arg(args.position)
        if args.json:
            print(_moves_json(p))
        else:
            for t in legal_actions(p):
                print(t)
        return 0
    return moves_batch(sys.stdin, sys.stdout, args.json)


def moves_batch(inp: TextIO, out: TextIO, as_json: bool) -> int:
    """Batch mode: one position a line in, one JSON line (or turn list) out, in order."""
    status = 0
    for number, line in enumerate(inp, 1):
        text = line.strip()
        if not text:
            continue
        try:
            p = parse_position(text)
        except SantoriniError as e:
            error(f"line {number}: position: {e}")
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
    p = position_arg(args.position)
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


def gods_listing(as_json: bool, width: int | None = None) -> str:
    """Every god with its card, its set and the player counts it is played with.

    With ``width`` (a terminal's columns) each power is wrapped under its own column, so that
    no line is longer; without it, one line a god (for a script).
    """
    rows = (
        [("simple", g) for g in SIMPLE]
        + [("advanced", g) for g in ADVANCED]
        + [("goldenfleece" if g.name in GOLDEN_FLEECE else "promo", g) for g in GROUP1]
        + [("memory", g) for g in MEMORY]
        + [("hero", g) for g in HEROES]
    )
    if as_json:
        return json.dumps(
            [
                {"name": g.name, "set": kind, "players": sorted(g.players), "power": g.text}
                for kind, g in rows
            ]
        )
    out = []
    name_width = max(len(g.name) for _, g in rows)
    kind_width = max(len(kind) for kind, _ in rows)
    for kind, g in rows:
        counts = ",".join(str(n) for n in sorted(g.players))
        head = f"{g.name:<{name_width}} {kind:<{kind_width}} players {counts:<5}  "
        if width is None or width - len(head) < 20:
            out.append(head + g.text)
            continue
        lines = textwrap.wrap(g.text, width - len(head)) or [""]
        out.append(head + lines[0])
        out.extend(" " * len(head) + line for line in lines[1:])
    return "\n".join(out)


def _cmd_gods(args: argparse.Namespace) -> int:
    width = shutil.get_terminal_size().columns - 1 if sys.stdout.isatty() else None
    print(gods_listing(args.json, width))
    return 0


def add_commands(sub: Subparsers) -> None:
    """Add ``show``, ``moves``, ``perft`` and ``gods``."""
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

    p = sub.add_parser(
        "gods",
        help="list every god, its power and its player counts",
        description="List every god: the ten simple gods (RULES.md 6), then the fifteen "
        "advanced gods (RULES.md 8), each with the player counts its card reads unambiguously "
        "for and its power.",
    )
    p.add_argument(
        "--json", action="store_true", help='print [{"name", "set", "players", "power"}, ...]'
    )
    p.set_defaults(handler=_cmd_gods)
