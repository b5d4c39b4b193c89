"""What every command family shares: the one place errors become exit codes, and argument checks.

Exit codes: 0 ok, 1 the operation failed (for example a replay that does not verify), 2 bad
usage or bad input. Errors go to standard error as ``santorini: error: ...``.
"""

from __future__ import annotations

import argparse
import contextlib
import os
import shutil
import sys
import time
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import TypeAlias

from santorini_p2p.engine import Position, parse_position
from santorini_p2p.errors import SantoriniError

__all__ = [
    "Handler",
    "SaveTarget",
    "Subparsers",
    "UsageError",
    "add_pool_option",
    "command_age",
    "error",
    "god_pool",
    "output_target",
    "position_arg",
    "progress",
    "read_input",
    "readable_file",
    "run",
    "save_target",
    "think",
    "usage",
    "write_output",
]

Handler = Callable[[argparse.Namespace], int]
Subparsers: TypeAlias = "argparse._SubParsersAction[argparse.ArgumentParser]"

EXIT_OK = 0
EXIT_FAILED = 1
EXIT_USAGE = 2
EXIT_INTERRUPTED = 130


class UsageError(SantoriniError):
    """Bad command-line input: exit 2."""


def error(message: str) -> None:
    """Print one ``santorini: error: ...`` line to standard error."""
    print(f"santorini: error: {message}", file=sys.stderr)


def run(handler: Handler, args: argparse.Namespace) -> int:
    """Run one subcommand's handler; turn what it raises into an error line and an exit code."""
    try:
        return handler(args)
    except UsageError as e:
        error(str(e))
        return EXIT_USAGE
    except SantoriniError as e:
        error(str(e))
        return EXIT_FAILED
    except KeyboardInterrupt:
        print("santorini: interrupted", file=sys.stderr)
        return EXIT_INTERRUPTED
    except BrokenPipeError:
        return EXIT_OK


def usage(parser: argparse.ArgumentParser) -> int:
    """Print a command group's help to standard error (it was given no action): exit 2."""
    parser.print_help(sys.stderr)
    return EXIT_USAGE


POOL_HELP = (
    "the gods to choose from: simple (the ten, default), advanced (the fifteen), "
    "goldenfleece, promo, memory (the eight gods with memory), heroes (the ten heroes, "
    "2 players), all, or god names joined by ',' (with --gods challenger, draft or random)"
)


def add_pool_option(p: argparse.ArgumentParser) -> None:
    """Add ``--gods-from POOL`` to a command that creates games."""
    p.add_argument("--gods-from", metavar="POOL", help=POOL_HELP)


def god_pool(args: argparse.Namespace) -> tuple[str, ...]:
    """Return the god pool ``--gods-from`` names for ``--gods`` and ``--players``.

    Empty for the ten simple gods (the default), so that such a game is written as before.
    The named sets leave out gods not played with that many players; a list naming one, an
    unknown god or too few gods for the selection is bad usage.

    Raises:
        UsageError: the pool cannot be used (the message says why).
    """
    from santorini_p2p.engine.gods import GOD_NAMES
    from santorini_p2p.engine.setup import resolve_pool

    spec = getattr(args, "gods_from", None)
    if spec is None:
        return ()
    if args.gods == "none":
        raise UsageError("gods-from: a god pool needs --gods challenger, draft or random")
    try:
        pool = resolve_pool(spec, args.players, args.gods)
    except ValueError as e:
        raise UsageError(f"gods-from: {str(e).removeprefix('god pool: ')}") from None
    return () if pool == GOD_NAMES else pool


def position_arg(text: str) -> Position:
    """A position string from the command line, or a usage error naming what is wrong."""
    try:
        return parse_position(text)
    except SantoriniError as e:
        raise UsageError(f"position: {e}") from None


_IMPORTED = time.monotonic()


def command_age() -> float:
    """Seconds since this command's process started: what a program that runs it has waited.

    The kernel's record where it keeps one (Linux ``/proc``); elsewhere, since the command
    line was imported (the interpreter's own start, some 50 ms, then goes uncounted).
    """
    try:
        with open("/proc/self/stat", encoding="ascii") as f:
            started = int(f.read().rsplit(")", 1)[1].split()[19])
        with open("/proc/uptime", encoding="ascii") as f:
            up = float(f.read().split()[0])
        age = up - started / os.sysconf("SC_CLK_TCK")
    except (OSError, ValueError, IndexError):
        age = -1.0
    return age if age >= 0 else time.monotonic() - _IMPORTED


def think(seconds: float | None) -> float | None:
    """Check a ``--think`` value: seconds above 0, or None for the level's own budget."""
    if seconds is not None and not seconds > 0:
        raise UsageError(f"think: expected a number of seconds above 0, got {seconds}")
    return seconds


def progress(done: int, total: int, width: int = 30) -> None:
    """Draw a progress bar on standard error (a new line once ``done`` reaches ``total``)."""
    filled = width * done // max(1, total)
    bar = "#" * filled + "-" * (width - filled)
    end = "\n" if done == total else ""
    print(f"\r[{bar}] {done}/{total}", end=end, file=sys.stderr, flush=True)


def read_input(path: str) -> bytes:
    """Read a replay file or a text export given on the command line (bounded in size)."""
    from santorini_p2p.replay.verify import MAX_FILE_BYTES

    try:
        if Path(path).stat().st_size > 2 * MAX_FILE_BYTES:
            raise UsageError(f"{path}: too large for a replay file")
        return Path(path).read_bytes()
    except OSError as e:
        raise UsageError(f"cannot read {path}: {e.strerror or e}") from None


def readable_file(path: str) -> Path:
    """A file named on the command line that can be read, or a usage error (exit 2) saying why."""
    try:
        with open(path, "rb"):
            pass
    except OSError as e:
        raise UsageError(f"cannot read {path}: {e.strerror or e}") from None
    return Path(path)


def output_target(out: str | None, force: bool) -> None:
    """Check ``-o OUT`` before any work: an existing file is overwritten only with ``--force``."""
    if out is None or out == "-":
        return
    path = Path(out)
    if path.is_dir():
        raise UsageError(f"output: {out!r} is a directory; give a file name")
    if not path.parent.is_dir():
        raise UsageError(f"output: no directory {str(path.parent)!r} to write into")
    if path.exists() and not force:
        raise UsageError(f"output: {out} exists; add --force to overwrite it")


def write_output(out: str | None, data: bytes) -> None:
    """Write ``data`` to the file ``out``, or to standard output for None or ``-``."""
    if out is None or out == "-":
        sys.stdout.buffer.write(data)
        sys.stdout.flush()
        return
    try:
        Path(out).write_bytes(data)
    except OSError as e:
        raise UsageError(f"cannot write {out}: {e.strerror or e}") from None


@dataclass(frozen=True, slots=True)
class SaveTarget:
    """Where ``--save`` copies a finished game, checked before the game began."""

    path: Path

    def copy_from(self, replay: Path) -> bool:
        """Copy the finished ``replay`` here; on failure say why and where the game is kept."""
        try:
            shutil.copyfile(replay, self.path)
        except OSError as e:
            error(
                f"cannot save the replay to {self.path}: {e.strerror or e}; it is kept at {replay}"
            )
            return False
        return True


def save_target(text: str | None) -> SaveTarget | None:
    """Check a ``--save FILE`` before any game starts: a file that can be written, or exit 2.

    The check writes nothing that was not there: a file it has to create to try is removed.
    """
    if text is None:
        return None
    path = Path(text)
    if not text or path.is_dir():
        raise UsageError(
            f"save: {text!r} is a directory; give a file name, like {path / 'game.sntr'}"
        )
    parent = path.parent
    if not parent.is_dir():
        raise UsageError(f"save: no directory {str(parent)!r} to write into")
    existed = path.exists()
    try:
        with open(path, "ab"):
            pass
    except OSError as e:
        raise UsageError(f"save: cannot write {text!r}: {e.strerror or e}") from None
    if not existed:
        with contextlib.suppress(OSError):
            os.unlink(path)
    return SaveTarget(path)
