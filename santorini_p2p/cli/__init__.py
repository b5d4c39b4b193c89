"""The ``santorini`` command line: argparse, one module per command family; the only exit point.

Each family module (``engine``, ``computer``, ``replay``, ``console``, ``network``) adds its own
subcommands with ``add_commands``; ``common.run`` turns what a handler raises into an error line
and an exit code: 0 ok, 1 the operation failed, 2 bad usage or bad input. Heavy modules are
imported inside the handlers, so that ``santorini --help`` starts fast.
"""

from __future__ import annotations

import argparse
from collections.abc import Sequence

from santorini_p2p import __version__
from santorini_p2p.cli import computer, console, engine, network, replay
from santorini_p2p.cli.common import Handler, run

__all__ = ["main"]


def _build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="santorini",
        description="Play Santorini over a LAN with no server; verify and share game records.",
    )
    parser.add_argument("--version", action="version", version=f"santorini-p2p {__version__}")
    sub = parser.add_subparsers(dest="command", metavar="COMMAND")
    for family in (engine, computer, replay, console, network):
        family.add_commands(sub)
    return parser


def main(argv: Sequence[str] | None = None) -> int:
    """Run the command line with ``argv`` (default ``sys.argv[1:]``); return the exit code."""
    args = _build_parser().parse_args(argv)
    handler: Handler | None = getattr(args, "handler", None)
    if handler is None:
        return console.open_console()
    return run(handler, args)
