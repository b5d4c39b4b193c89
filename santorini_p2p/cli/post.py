"""The ``post`` group: correspondence games carried in text blocks (protocol/POST.md).

``new`` writes an invitation, ``read`` takes the other player's block (and with ``--bot``
answers at once), ``play`` signs this side's action, ``resend`` writes again what the other
side lacks, ``list`` shows every game with whose turn it is and since when. A block goes to
``-o FILE`` (overwritten) or, without it, to standard output after the messages: a reader
ignores the text around a block, so the whole output can be pasted as it is.
"""

from __future__ import annotations

import argparse
import json
import re
import sys
import time
from datetime import UTC, datetime
from pathlib import Path
from typing import TYPE_CHECKING, Final

from santorini_p2p.cli.common import (
    Subparsers,
    UsageError,
    add_pool_option,
    god_pool,
    usage,
)

if TYPE_CHECKING:
    from santorini_p2p.net.post import PostGame
    from santorini_p2p.net.postbot import Bot
    from santorini_p2p.wire.identity import Identity

__all__ = ["add_commands"]

MAX_INPUT: Final = 4 << 20
"""The most text ``post read`` takes (a block is far smaller)."""


def _now_ms() -> int:
    return time.time_ns() // 1_000_000


def _me(name: str | None = None) -> tuple[Path, Identity]:
    from santorini_p2p.wire.identity import (
        Identity,
        check_name,
        home_dir,
        load_or_create_identity,
    )

    home = home_dir()
    me = load_or_create_identity(home, name)
    if name is not None and name != me.name:
        try:
            me = Identity.from_seed(me.seed, check_name(name))
        except ValueError as e:
            raise UsageError(str(e)) from None
    return home, me


def _days(text: str | None) -> int:
    if text is None or text.strip().lower() in ("none", "0"):
        return 0
    m = re.fullmatch(r"\s*([0-9]+)\s*d\s*", text.lower())
    if not m or not 1 <= int(m.group(1)) <= 365:
        raise UsageError(
            f"time: a correspondence game takes days a move, 1d to 365d (3d), or none; got {text!r}"
        )
    return int(m.group(1))


def _bot(level: str | None) -> Bot | None:
    from santorini_p2p.ai import LEVELS
    from santorini_p2p.net.postbot import random_bot

    if level is None:
        return None
    if level not in LEVELS:
        raise UsageError(f"bot: expected one of {', '.join(LEVELS)}, got {level!r}")
    return random_bot(level)


def _send(game: PostGame, out: str | None) -> None:
    """Write the block the other side needs: to ``out``, or printed after the messages."""
    now = _now_ms()
    text = game.block_text(now)
    game.mark_sent(now)
    game.save()
    if out is None or out == "-":
        print(text, end="", flush=True)
        return
    try:
        Path(out).write_text(text, encoding="utf-8")
    except OSError as e:
        raise UsageError(f"cannot write {out}: {e.strerror or e}") from None
    print(f"block for {game.opponent_name} written to {out}", flush=True)


def _check_out(out: str | None) -> None:
    if out is not None and out != "-" and not Path(out).parent.is_dir():
        raise UsageError(f"output: no directory {str(Path(out).parent)!r} to write into")


def _show(game: PostGame, start: int) -> None:
    """Print what changed since record ``start``, the board, and whose turn it is."""
    from santorini_p2p.net.postview import span
    from santorini_p2p.ui.board_view import render_text

    changes = game.changes(start)
    if game.waited_ms is not None and any(not c.mine for c in changes):
        print(
            f"{game.opponent_name}'s block came {span(game.waited_ms)} after yours, by your clock"
        )
    for c in changes:
        print(f"{c.who}: {c.text}")
    p = game.position
    if p is not None and changes:
        print(render_text(p))


def _status_line(game: PostGame) -> str:
    s = game.status()
    if s.turn == "over":
        return f"game over: {s.result}; replay {s.replay}"
    if s.turn == "you":
        return f"game {game.short}: your turn (santorini post play {game.short} ACTION)"
    if s.turn == "invited":
        return f"game {game.short}: waiting for someone to accept the invitation"
    return f"game {game.short}: {s.turn}'s turn"


def _cmd_new(args: argparse.Namespace) -> int:
    from santorini_p2p.net.post import PostGame
    from santorini_p2p.net.trust import KnownPeers

    args.players = 2
    pool = god_pool(args)
    days = _days(args.time)
    _bot(args.bot)
    _check_out(args.out)
    home, me = _me(args.name)
    to = b""
    if args.to is not None:
        key = KnownPeers(home).get(args.to)
        if key is None:
            raise UsageError(
                f"to: no remembered key for {args.to!r} (known_peers holds the players met "
                "before); leave --to out to invite whoever reads the block first"
            )
        to = key
    game, _ = PostGame.invite(
        home,
        me,
        gods=args.gods,
        pool=pool,
        days=days,
        now_ms=_now_ms(),
        bot=args.bot,
        to=to,
        to_name=args.to,
    )
    if args.out is None or args.out == "-":
        print(f"game {game.short}: send this invitation to the other player", file=sys.stderr)
    else:
        print(f"game {game.short}: an invitation", flush=True)
    _send(game, args.out)
    return 0


def _paste() -> str:
    """On a terminal: read pasted lines until the block's END line (or an empty input)."""
    from santorini_p2p.wire.post import END_LINE

    end = re.sub(r"[\s>]+", "", END_LINE)
    print("paste the block (reading stops at its END line):", file=sys.stderr, flush=True)
    lines: list[str] = []
    size = 0
    while size <= MAX_INPUT:
        line = sys.stdin.readline()
        if not line:
            break
        lines.append(line)
        size += len(line)
        if end in re.sub(r"[\s>]+", "", "".join(lines[-3:])):
            break
    return "".join(lines)


def _read_text(source: str | None) -> str:
    if (source is None or source == "-") and sys.stdin.isatty():
        return _paste()
    if source is None or source == "-":
        data = sys.stdin.buffer.read(MAX_INPUT + 1)
        where = "standard input"
    else:
        try:
            with open(source, "rb") as f:
                data = f.read(MAX_INPUT + 1)
        except OSError as e:
            raise UsageError(f"cannot read {source}: {e.strerror or e}") from None
        where = source
    if len(data) > MAX_INPUT:
        raise UsageError(f"{where}: more text than a block can be")
    return data.decode("utf-8", errors="replace")


def _cmd_read(args: argparse.Namespace) -> int:
    from santorini_p2p.net.post import PostGame
    from santorini_p2p.net.postio import PostError, read_block_text
    from santorini_p2p.wire.post import Invitation

    bot = _bot(args.bot)
    _check_out(args.out)
    text = _read_text(args.file)
    home, me = _me()
    where = args.file if args.file not in (None, "-") else "standard input"
    try:
        block, data = read_block_text(text)
    except PostError as e:
        raise PostError(f"{where}: refused: {e}") from None
    now = _now_ms()
    if isinstance(block, Invitation):
        try:
            game = PostGame.load(home, me, block.game_id)
        except PostError:
            try:
                game = PostGame.accept(home, me, block, data, now, args.bot)
            except PostError as e:
                raise PostError(f"{where}: refused: {e}") from None
            game.save()
            print(
                f"game {game.short}: you accept {block.name}'s invitation "
                f"({game.status().fingerprint}); the draw for the first player comes next"
            )
        else:
            if game.state["role"] == "inviter":
                raise PostError(f"{where}: refused: this is your own invitation")
            print(f"game {game.short}: already read (the invitation); nothing changes")
        if game.outgoing():
            _send(game, args.out)
        return 0
    try:
        game = PostGame.load(home, me, block.game_id)
    except PostError:
        raise PostError(
            f"{where}: refused: no correspondence game {block.game_id.hex()[:8]} here (a "
            "block of a game started elsewhere, or with another player)"
        ) from None
    start = len(game.records)
    try:
        new = game.receive(block, now)
    except PostError as e:
        raise PostError(f"{where}: refused: {e}; nothing of game {game.short} changed") from None
    level = args.bot or game.state.get("bot")
    judge = None
    if level:
        from santorini_p2p.net.postbot import offer_judge

        bot = bot or _bot(str(level))
        judge = offer_judge(str(level))
    game.advance(bot, now, judge)
    game.save()
    if not new:
        print(f"game {game.short}: already read; nothing new")
    _show(game, start)
    if game.my_turn and bot is None and sys.stdin.isatty() and sys.stdout.isatty():
        _ask_turn(game)
    if game.outgoing():
        _send(game, args.out)
    print(_status_line(game), flush=True)
    return 0


def _ask_turn(game: PostGame) -> None:
    """On a terminal: ask for this side's action until one is played or the line is empty."""
    from santorini_p2p.net.postio import PostError

    while game.my_turn:
        try:
            line = input("your turn (a turn, resign, draw, say TEXT; Enter: later)> ")
        except EOFError:
            return
        if not line.strip():
            return
        try:
            start = len(game.records)
            game.play(line, _now_ms())
        except PostError as e:
            print(f"santorini: {e}", file=sys.stderr)
            continue
        game.save()
        _show(game, start)


def _cmd_play(args: argparse.Namespace) -> int:
    from santorini_p2p.net.post import find_game

    _check_out(args.out)
    home, me = _me()
    words: list[str] = args.action
    game_name: str | None = None
    if len(words) > 1 and re.fullmatch(r"[0-9a-f]{4,32}", words[0]):
        game_name, words = words[0], words[1:]
    game = find_game(home, me, game_name or args.game)
    start = len(game.records)
    game.play(" ".join(words), _now_ms())
    game.save()
    _show(game, start)
    _send(game, args.out)
    print(_status_line(game), flush=True)
    return 0


def _cmd_resend(args: argparse.Namespace) -> int:
    from santorini_p2p.net.post import find_game

    _check_out(args.out)
    home, me = _me()
    game = find_game(home, me, args.game)
    _send(game, args.out)
    return 0


def _ago(ms: int, now: int) -> str:
    from santorini_p2p.net.postview import span

    return span(now - ms)


def _cmd_list(args: argparse.Namespace) -> int:
    from santorini_p2p.net.post import list_games

    home, me = _me()
    now = _now_ms()
    games = list_games(home, me)
    if args.json:
        out = []
        for g in games:
            s = g.status()
            out.append(
                {
                    "game": s.game,
                    "opponent": s.opponent,
                    "fingerprint": s.fingerprint or None,
                    "turn": s.turn,
                    "since": datetime.fromtimestamp(s.since_ms / 1000, UTC).isoformat(),
                    "days_a_move": s.days or None,
                    "overdue": bool(s.days) and now - s.since_ms > s.days * 86_400_000,
                    "records": s.records,
                    "result": s.result or None,
                    "replay": s.replay or None,
                }
            )
        print(json.dumps(out))
        return 0
    if not games:
        print("no correspondence games (start one with `santorini post new`)")
        return 0
    for g in games:
        s = g.status()
        who = {"you": "your turn", "over": f"over: {s.result}", "invited": "invitation sent"}
        turn = who.get(s.turn, f"{s.turn}'s turn")
        when = datetime.fromtimestamp(s.since_ms / 1000).strftime("%Y-%m-%d %H:%M")
        clock = ""
        if s.days and s.turn not in ("over", "invited"):
            late = now - s.since_ms > s.days * 86_400_000
            clock = f"; {s.days} days a move" + (" (overdue, by this clock)" if late else "")
        if g.position is None and s.turn not in ("over", "invited"):
            turn += " (the draw for the first player)"
        opp = f"{s.opponent} ({s.fingerprint})" if s.fingerprint else s.opponent
        print(f"{g.short}  {opp}  {turn}  since {when} ({_ago(s.since_ms, now)} ago){clock}")
    return 0


def add_commands(sub: Subparsers) -> None:
    """Add the ``post`` group: new, read, play, resend, list."""
    group = sub.add_parser(
        "post",
        help="correspondence games: turns as text blocks through any channel",
        description="Play across days by passing signed text blocks through any channel "
        "(a chat, a mail): each block carries every record the other side lacks.",
    )
    group.set_defaults(handler=lambda _args: usage(group))
    actions = group.add_subparsers(dest="post_action", metavar="ACTION")

    def out_option(p: argparse.ArgumentParser) -> None:
        p.add_argument(
            "-o",
            dest="out",
            metavar="FILE",
            help="write the block to FILE (overwritten); default: standard output",
        )

    p = actions.add_parser(
        "new",
        help="start a correspondence game: write its invitation",
        description="Start a correspondence game and write its first block, the invitation, "
        "to FILE (standard output without -o). Whoever reads it first plays you (with --to, "
        "only that remembered player).",
    )
    p.add_argument("--gods", choices=("none", "random", "draft", "challenger"), default="none")
    add_pool_option(p)
    p.add_argument(
        "--time", metavar="DAYS", help="days a move, shown and never enforced (3d), or none"
    )
    p.add_argument("--bot", metavar="LEVEL", help="the computer plays this side")
    p.add_argument("--name", help="your display name for this game")
    p.add_argument("--to", metavar="NAME", help="only this player (by name, from known_peers)")
    out_option(p)
    p.set_defaults(handler=_cmd_new)

    p = actions.add_parser(
        "read",
        help="read the other player's block",
        description="Read one block (from FILE, or standard input for - or no FILE): verify "
        "it, show what changed and the board, and ask for your turn on a terminal. Exit 0 "
        "when it is accepted (also when it was read before), 1 with the reason when refused. "
        "With --bot the computer answers at once. The reply block, when there is one, goes "
        "to -o FILE.",
    )
    p.add_argument("file", nargs="?", metavar="FILE")
    p.add_argument("--bot", metavar="LEVEL", help="the computer answers for this side")
    out_option(p)
    p.set_defaults(handler=_cmd_read)

    p = actions.add_parser(
        "play",
        help="play your turn (or resign, offer a draw, accept, say ...)",
        description="Sign your action in a correspondence game and write the block: a turn "
        "(b2>c3^d4), a god or a placement, resign, draw or abort (an offer), accept (the "
        "open offer) or say TEXT. GAME (the id's first digits) may be left out with one game.",
    )
    p.add_argument("action", nargs="+", metavar="[GAME] ACTION")
    p.add_argument("--game", help="the game (its id's first digits, or the opponent's name)")
    out_option(p)
    p.set_defaults(handler=_cmd_play)

    p = actions.add_parser(
        "resend",
        help="write again everything the other side has not acknowledged",
        description="Write again a block with every record the other side has not "
        "acknowledged (the invitation, before it is accepted).",
    )
    p.add_argument("game", nargs="?", metavar="GAME")
    out_option(p)
    p.set_defaults(handler=_cmd_resend)

    p = actions.add_parser(
        "list",
        help="the correspondence games, whose turn, since when",
        description="List the correspondence games: the other player, whose turn it is, since "
        "when, and the days a move agreed (a claim this side's clock can check, no more).",
    )
    p.add_argument("--json", action="store_true", help="print them as a JSON list")
    p.set_defaults(handler=_cmd_list)
