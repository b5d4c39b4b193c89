"""The ``santorini`` command line: argparse, one module per command family; the only exit point.

Each family module (``engine``, ``computer``, ``replay``, ``console``, ``network``) adds its own
subcommands with ``add_commands``; ``common.run`` turns what a handler raises into an error line
and an exit code: 0 ok, 1 the operation failed, 2 bad usage or bad input. Heavy modules are
imported inside the handlers, so that ``santorini --help`` starts fast.
"""

from __future__ import annotations

import argparse
import sys
from collections.abc import Sequence
from typing import Final

from santorini_p2p import __version__
from santorini_p2p.cli import computer, console, engine, network, post, replay, tournament
from santorini_p2p.cli.common import Handler, run

__all__ = ["main"]


def _build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="santorini",
        description="Play Santorini over a LAN with no server; verify and share game records.",
        epilog="With no command, santorini opens the start screen.",
    )
    parser.add_argument("--version", action="version", version=f"santorini-p2p {__version__}")
    sub = parser.add_subparsers(dest="command", metavar="COMMAND")
    # The commands players use first (play, watch, host, join ...); the tools for positions and
    # the engine (show, moves, perft, analyse, arena) last.
    for family in (console, network, post, tournament, replay, engine, computer):
        family.add_commands(sub)
    return parser


_VALUE_OPTIONS: Final = ("--time",)
"""Options whose value may start with ``-`` (``--time -5+10``), which argparse would take for
an option and refuse with a message about a missing argument instead of saying what is wrong."""


def _join_values(argv: Sequence[str]) -> list[str]:
    """``--time -5+10`` as ``--time=-5+10``, so the value reaches its own check."""
    out: list[str] = []
    args = iter(argv)
    for a in args:
        if a in _VALUE_OPTIONS:
            value = next(args, None)
            if value is not None and value.startswith("-") and value != "--":
                out.append(f"{a}={value}")
                continue
            out.append(a)
            if value is not None:
                out.append(value)
            continue
        out.append(a)
    return out


def main(argv: Sequence[str] | None = None) -> int:
    """Run the command line with ``argv`` (default ``sys.argv[1:]``); return the exit code."""
    args = _build_parser().parse_args(_join_values(sys.argv[1:] if argv is None else argv))
    handler: Handler | None = getattr(args, "handler", None)
    if handler is None:
        return console.open_console()
    return run(handler, args)
