"""``id`` and the ``replay`` group: this player's identity and the signed game records."""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path
from typing import Final

from santorini_p2p.cli.common import (
    Subparsers,
    UsageError,
    error,
    output_target,
    progress,
    read_input,
    readable_file,
    think,
    usage,
    write_output,
)
from santorini_p2p.errors import SantoriniError

__all__ = ["add_commands"]


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
    failed = unreadable = 0
    verdicts = []
    for done, v in enumerate(verify_files(files, jobs), 1):
        if show:
            print("\r" + " " * 60 + "\r", end="", file=sys.stderr)
        if args.json:
            verdicts.append(v.to_json())
        elif v.ok:
            print(v.line(), flush=show)
        else:
            error(v.line())
        failed += not v.ok
        unreadable += v.kind == "OSError"
        if show:
            progress(done, len(files))
    if args.json:
        print(json.dumps(verdicts, indent=None))
    # A file that is not there (or is a directory) is bad input, as in every command: exit 2.
    return 2 if unreadable else 1 if failed else 0


def _cmd_replay_show(args: argparse.Namespace) -> int:
    from santorini_p2p.ui.replay_view import show_replay

    readable_file(args.file)
    return show_replay(args.file, mouse=args.mouse)


def _count(n: int, one: str, many: str) -> str:
    return f"{n} {one if n == 1 else many}"


def _format_eval(e: float | str) -> str:
    return e if isinstance(e, str) else f"{e:.0%}"


def _cmd_replay_review(args: argparse.Namespace) -> int:
    import os

    from santorini_p2p.study.review import DEFAULT_THINK, review_file

    jobs = args.jobs if args.jobs is not None else (os.cpu_count() or 1)
    if jobs < 1:
        raise UsageError(f"jobs: expected a whole number of at least 1, got {jobs}")
    if args.nodes is not None and args.nodes < 1:
        raise UsageError(f"nodes: expected a whole number of at least 1, got {args.nodes}")
    if args.think is not None:
        seconds: float | None = think(args.think)
    else:
        seconds = None if args.nodes is not None else DEFAULT_THINK
    try:
        review, how = review_file(
            args.file,
            level=args.level,
            think=seconds,
            nodes=args.nodes,
            jobs=jobs,
            progress=progress,
        )
    except OSError as e:
        raise SantoriniError(f"cannot read {args.file}: {e.strerror or e}") from None
    except ValueError as e:
        raise SantoriniError(f"{args.file}: {e}") from None
    if how.startswith("not saved"):
        error(f"the review is {how}")
    if args.json:
        print(json.dumps(review.to_json()))
        return 0
    print(f"{'ply':>4} {'seat':>4}  {'turn':<14} {'best':<14} {'before':>10} {'after':>10}  mark")
    for t in review.turns:
        print(
            f"{t.ply:>4} {t.seat + 1:>4}  {t.turn:<14} {t.best:<14} "
            f"{_format_eval(t.eval_before):>10} {_format_eval(t.eval_after):>10}  {t.mark or ''}"
        )
    for p in review.players:
        counts = [
            _count(p.turns, "turn", "turns"),
            _count(p.inaccuracies, "inaccuracy", "inaccuracies"),
            _count(p.mistakes, "mistake", "mistakes"),
            _count(p.blunders, "blunder", "blunders"),
            _count(p.missed_wins, "missed win", "missed wins"),
        ]
        print(
            f"seat {p.seat + 1} {p.name}: {', '.join(counts)}, "
            f"average loss {p.average_loss:.1f} points"
        )
    return 0


# -- sharing replays (replay/export_*.py) -------------------------------------------------------


_EXPORT_SUFFIXES: Final = {
    ".html": "html",
    ".htm": "html",
    ".json": "json",
    ".svg": "svg",
    ".txt": "text",
    "": "text",
}
"""The export format an output file's extension asks for when ``--format`` is not given."""


def _export_format(args: argparse.Namespace) -> str:
    """The format ``--format`` names, or else the one ``-o OUT``'s extension asks for."""
    if args.format is not None:
        return str(args.format)
    suffix = Path(args.output or "-").suffix.lower()
    if suffix not in _EXPORT_SUFFIXES:
        raise UsageError(
            f"output: cannot tell the format of {args.output!r} from {suffix!r}; name the file "
            ".html, .json, .svg or .txt, or give --format"
        )
    return _EXPORT_SUFFIXES[suffix]


def _cmd_replay_export(args: argparse.Namespace) -> int:
    from santorini_p2p.replay.export_text import load_timeline

    fmt = _export_format(args)
    output_target(args.output, args.force)
    data = read_input(args.file)
    from santorini_p2p.replay.secret import is_secret_replay

    if is_secret_replay(data):
        return _export_secret(args, fmt, data)
    t = load_timeline(data)
    if t.header is None:
        raise SantoriniError(f"{args.file}: {t.verification}; nothing to export")
    n = len(t.steps)
    step = None
    if args.ply is not None:
        # Move N as the game numbers it (its text export, the viewer, the console): the step
        # of the move that stands with that number (a chat line or a request is none).
        from santorini_p2p.replay.timeline import move_numbers

        if not 0 <= args.ply <= t.moves:
            raise UsageError(
                f"ply: expected 0 to {t.moves} (the game's moves, numbered as its text export "
                f"numbers them), got {args.ply}"
            )
        numbers = move_numbers(t.steps)
        step = max((i + 1 for i, k in enumerate(numbers) if k == args.ply), default=0)
    if fmt == "text":
        from santorini_p2p.replay.export_text import export_text

        text = export_text(t, args.text_format)
    elif fmt == "html":
        from santorini_p2p.replay.export_html import export_html
        from santorini_p2p.replay.review import load_review, review_path

        # The engine review stored beside the replay (replay review), if it is of these bytes.
        review = load_review(review_path(args.file), data) if t.ok else None
        text = export_html(t, step=step, review=review)
    elif fmt == "json":
        from santorini_p2p.replay.export_json import export_json

        text = export_json(t)
    else:
        from santorini_p2p.replay.svg import step_svg

        at = n if step is None else step
        image = step_svg(t, at)
        if image is None:
            raise SantoriniError(f"{args.file}: {t.verification}; no position to draw")
        text = image + "\n"
    write_output(args.output, text.encode("utf-8"))
    if not t.ok:
        error(f"{args.file}: {t.verification}; exported up to the last good record")
        return 1
    return 0


def _export_secret(args: argparse.Namespace, fmt: str, data: bytes) -> int:
    """``replay export`` of a secret table's game (SECRET.md 13): text only."""
    from santorini_p2p.replay.secret_text import secret_text

    if fmt != "text":
        raise UsageError(
            f"format: a secret table's game exports as text only, not {fmt}; give --format text"
        )
    if args.ply is not None:
        raise UsageError("ply: a secret table's game exports whole")
    text, ok = secret_text(data)
    write_output(args.output, text.encode("utf-8"))
    if not ok:
        error(f"{args.file}: {text.splitlines()[-1]}; exported up to the last good record")
        return 1
    return 0


def _cmd_replay_info(args: argparse.Namespace) -> int:
    from santorini_p2p.replay.export_text import load_timeline
    from santorini_p2p.replay.secret import is_secret_replay
    from santorini_p2p.replay.timeline import is_taken_back

    data = read_input(args.file)
    if is_secret_replay(data):
        from santorini_p2p.replay.secret_text import secret_info

        lines, ok = secret_info(data, args.file)
        print("\n".join(lines))
        return 0 if ok else 1
    t = load_timeline(data)
    h = t.header
    if h is None and not t.records:
        raise SantoriniError(f"{args.file}: {t.verification}")
    print(f"file          {args.file}")
    for p in t.players:
        god = f"  {p.god}" if p.god not in ("", "?") else ""
        print(f"seat {p.seat + 1}        {p.name}  {p.fingerprint}{god}")
    if h is not None:
        tc = t.time_control
        print(
            f"gods          {h.gods}" + (f"  options {', '.join(h.options)}" if h.options else "")
        )
        if h.gods != "none":
            from santorini_p2p.engine.setup import pool_name

            named = pool_name(h.pool, h.players)
            names = f" ({len(h.pool)} gods)" if h.pool and named != ",".join(h.pool) else ""
            print(f"god pool      {named.replace(',', ', ')}{names}  (protocol {h.protocol})")
        print(f"time control  {'untimed' if tc == '-' else tc + ' s (move+bank)'}")
        print(f"date          {t.date + ' UTC' if t.date else 'not recorded'}")
        print(f"game id       {h.game_id.hex()}")
    print(f"result        {t.result_text}")
    # The game's one numbering (as the console's Turns panel, the viewer and the text export
    # number it): the actions that stand, setup included; notes are not moves.
    back = sum(1 for s in t.steps if is_taken_back(s))
    chat = sum(1 for s in t.steps if s.kind == "chat")
    notes = [_count(back, "taken back", "taken back")] if back else []
    notes += [_count(chat, "chat line", "chat lines")] if chat else []
    notes.append(_count(len(t.records), "record", "records"))
    print(
        f"turns         {t.turns} (moves numbered 1 to {t.moves}, setup included; "
        f"{', '.join(notes)})"
    )
    if not t.ok and t.bad_record == len(t.records) and t.error.startswith("truncated"):
        # Every record there is good; the game has no signed result yet. That is a game
        # still going (or left to resume), not a bad file: ``replay verify`` says it fails.
        print(f"verification  every record good; unfinished: {t.error.split(': ', 1)[-1]}")
        return 0
    print(f"verification  {t.verification}")
    return 0 if t.ok else 1


def _cmd_replay_import(args: argparse.Namespace) -> int:
    from santorini_p2p.replay.export_text import TextReplayError, check_text
    from santorini_p2p.wire.log import FILE_MAGIC

    output_target(args.output, args.force)
    data = read_input(args.file)
    if data.startswith(FILE_MAGIC):
        raise SantoriniError(
            f"{args.file}: this is a replay file already; import reads a text export "
            "(replay export FILE -o game.santorini.txt makes one)"
        )
    try:
        _, t = check_text(data)
    except TextReplayError as e:
        raise SantoriniError(f"{args.file}: {e}") from e
    write_output(args.output, t.data)
    if not t.ok:
        error(f"{args.file}: {t.verification}")
        return 1
    if args.output != "-":
        print(f"{args.output}: {len(t.data)} bytes, {len(t.records)} records; verification ok")
    return 0


def _add_export_commands(actions: Subparsers) -> None:
    """Add ``replay export``, ``replay info`` and ``replay import``."""
    p = actions.add_parser(
        "export",
        help="export a replay as text, a web page, JSON or an SVG image",
        description="Export a replay file (or a .santorini.txt text export) to standard output "
        "or -o OUT, in the --format given or else the one OUT's extension names: text (tags, "
        "numbered actions and the signed log, armoured), html (one self-contained page that "
        "steps through the game offline, with the engine review stored beside FILE by replay "
        "review, if any), json (every record decoded), svg (the board after "
        "move --ply N). A file that fails verification is exported up to its first bad record, "
        "says so, and the command exits 1.",
    )
    p.add_argument("file", metavar="FILE", help="a replay file or a text export")
    p.add_argument(
        "--format",
        choices=("text", "html", "json", "svg"),
        help="(default: as OUT's extension says, .html, .json or .svg; otherwise text)",
    )
    p.add_argument(
        "--ply",
        type=int,
        metavar="N",
        help="show the position after move N, numbered as the text export numbers the game "
        "(0: the start; default: the end)",
    )
    p.add_argument(
        "--text-format",
        type=int,
        choices=(1, 2),
        default=2,
        metavar="V",
        help="the text export's format: 2 (default) numbers the moves as the game does, chat "
        "lines and requests unnumbered; 1 numbers every line, as versions before it wrote",
    )
    p.add_argument("-o", "--output", metavar="OUT", help="write to OUT (default standard output)")
    p.add_argument("--force", action="store_true", help="overwrite OUT if it exists")
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
    p.add_argument("--force", action="store_true", help="overwrite OUT if it exists")
    p.set_defaults(handler=_cmd_replay_import)


def add_commands(sub: Subparsers) -> None:
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
    group.set_defaults(handler=lambda _args: usage(group))
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

    p = actions.add_parser(
        "review",
        help="judge every turn of a replay with the computer player",
        description="Verify a replay file, then search every position of its game: per turn "
        "the evaluation before and after it (from the mover's side: a win probability, or "
        "'win in N'/'loss in N' in the turns of the side that wins), the engine's best turn "
        "and a mark: 'blunder' (the opponent has a forced win after the turn, and the mover "
        "had a turn that avoided it), 'missed win' (a forced win let go), 'mistake' (the win "
        "probability fell by 20 points or more), 'inaccuracy' (10 or more); then each "
        "player's counts. The review is stored beside the replay (FILE.review.json, never "
        "in the signed log) and reused while the replay's bytes, level, think time, nodes and "
        "evaluation are the same. Progress goes to standard error. Games of 3 players "
        "cannot be reviewed.",
    )
    p.add_argument("file", metavar="FILE", help="a replay file or its text export")
    p.add_argument(
        "--level",
        choices=("easy", "medium", "hard", "learned"),
        default="hard",
        help="search level (default hard; learned: hard's search with the trained network)",
    )
    p.add_argument(
        "--think", type=float, metavar="S", help="seconds of search per position (default 1)"
    )
    p.add_argument(
        "--nodes",
        type=int,
        metavar="N",
        help="search N nodes per position instead of a time: the same review on any machine "
        "(with --think too, whichever ends first)",
    )
    p.add_argument("--jobs", type=int, metavar="N", help="processes (default: the number of cores)")
    p.add_argument(
        "--json",
        action="store_true",
        help='print {"turns": [{"ply", "seat", "turn", "best", "eval_before", "eval_after", '
        '"mark"}, ...], "players": [...]}',
    )
    p.set_defaults(handler=_cmd_replay_review)
    _add_export_commands(actions)
