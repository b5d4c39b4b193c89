"""The start screen and the console's entry points: pick a game, play it, come back.

``console`` is what ``santorini`` with no arguments runs; ``play`` and ``watch`` are the
same games opened straight from the command line. Network games come in through a
:class:`~santorini_p2p.ui.lan.LanGames` (host, join, watch over 127.0.0.1); without one the
host and join entries say so.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import sys
from collections.abc import Awaitable, Callable, Sequence
from dataclasses import dataclass, replace
from pathlib import Path
from typing import TYPE_CHECKING, Final, cast

from prompt_toolkit.application import Application
from prompt_toolkit.formatted_text import StyleAndTextTuples
from prompt_toolkit.key_binding import KeyBindings, KeyPressEvent
from prompt_toolkit.layout import FormattedTextControl, HSplit, Layout, Window
from prompt_toolkit.widgets import TextArea

from santorini_p2p.engine import GodMode, Phase
from santorini_p2p.errors import SantoriniError
from santorini_p2p.ui.app import LEAVE, START_SCREEN, STYLE, run_game
from santorini_p2p.ui.games import Recording
from santorini_p2p.ui.local import STANDARD_TIME, LocalGame, Player, TimeControl, ai_chooser
from santorini_p2p.ui.setup_form import GODS_MENU, ask_gods
from santorini_p2p.ui.state import GameController, Note, features_of

if TYPE_CHECKING:
    from santorini_p2p.net.game import NetworkGame
    from santorini_p2p.ui.lan import LanGames

__all__ = [
    "GameOptions",
    "ask",
    "choose",
    "computer_game",
    "console",
    "hotseat_game",
    "journal_path",
    "play",
    "resume_local",
    "reviewer",
    "run_network_game",
    "watch",
    "watch_game",
]

_LOGO: Final = """\
   ____              _             _       _
  / ___|  __ _ _ __ | |_ ___  _ __(_)_ __ (_)
  \\___ \\ / _` | '_ \\| __/ _ \\| '__| | '_ \\| |
   ___) | (_| | | | | || (_) | |  | | | | | |
  |____/ \\__,_|_| |_|\\__\\___/|_|  |_|_| |_|_|
"""

WATCH_PACE_MS: Final = 700
"""The least time between two computer actions when watching, so people can follow them."""


@dataclass(frozen=True, slots=True)
class GameOptions:
    """How a local game is set up: gods, seed, clocks, mouse, the computer's time a turn.

    ``clock`` is the time control of a timed game (default one minute a move plus a
    five-minute bank). ``pool`` is the gods drawn or offered (empty: the ten simple gods).
    """

    gods: GodMode = "none"
    pool: tuple[str, ...] = ()
    seed: int | None = None
    timed: bool = True
    mouse: bool = True
    think: float | None = None
    clock: TimeControl = STANDARD_TIME

    @property
    def time_control(self) -> TimeControl | None:
        """The clocks of a game with these options, or None when untimed."""
        return self.clock if self.timed else None


def journal_path() -> Path:
    """Return where the unfinished game on this terminal is kept (under ``SANTORINI_HOME``)."""
    from santorini_p2p.wire.identity import home_dir

    return home_dir() / "local-game.json"


def _recording(names: Sequence[str], options: GameOptions) -> Recording:
    """A new game's recording: it becomes a replay file under ``$SANTORINI_HOME/games/``."""
    from santorini_p2p.ui.lan import last_name
    from santorini_p2p.wire.identity import Identity, home_dir, load_or_create_identity

    home = home_dir()
    me = load_or_create_identity(home)
    # Seat 1 is recorded under the name the screen shows for it (hot-seat: "Player 1"), or for
    # the person against the computer the display name last given (Host, Join), never the
    # key's made-up name.
    shown = names[0] if names and names[0] else last_name(home)
    if shown and shown != me.name:
        me = Identity.from_seed(me.seed, shown)
    t = options.time_control
    return Recording.new(
        me,
        names,
        options.gods,
        move_ms=t.move_ms if t else 0,
        bank_ms=t.bank_ms if t else 0,
        seed=options.seed,
        pool=options.pool,
    )


def computer_game(level: str, players: int, options: GameOptions) -> LocalGame:
    """Return a game of one person (seat 1) against ``players - 1`` computer players."""
    from santorini_p2p.wire.identity import home_dir

    seats = [Player("You")] + [
        Player(f"Computer {i}" if players > 2 else "Computer", level) for i in range(1, players)
    ]
    names = [""] + [f"{p.name} ({level})" for p in seats[1:]]
    return LocalGame(
        seats,
        gods=options.gods,
        pool=options.pool,
        seed=options.seed,
        time_control=options.time_control,
        title=f"you vs the computer ({level})",
        journal=journal_path(),
        chooser=ai_chooser(options.think),
        recording=_recording(names, options),
        home=home_dir(),
    )


def hotseat_game(players: int, options: GameOptions) -> LocalGame:
    """Return a game of ``players`` people taking turns at this terminal."""
    from santorini_p2p.wire.identity import home_dir

    seats = [Player(f"Player {i + 1}") for i in range(players)]
    return LocalGame(
        seats,
        gods=options.gods,
        pool=options.pool,
        seed=options.seed,
        time_control=options.time_control,
        title="hot-seat",
        journal=journal_path(),
        recording=_recording([p.name for p in seats], options),
        home=home_dir(),
    )


def watch_game(
    levels: Sequence[str], options: GameOptions, pace_ms: int = WATCH_PACE_MS
) -> LocalGame:
    """Return a game between computer players of ``levels``, paced for watching."""
    return LocalGame(
        [Player(f"{lv.capitalize()} computer {i + 1}", lv) for i, lv in enumerate(levels)],
        gods=options.gods,
        pool=options.pool,
        seed=options.seed,
        time_control=options.time_control,
        title="watching the computer",
        pace_ms=pace_ms,
        chooser=ai_chooser(options.think),
    )


def _wrap(label: str, width: int) -> list[str]:
    """A menu label's lines, each wrapped at ``width`` columns between words."""
    import textwrap

    lines: list[str] = []
    for line in label.split("\n"):
        lines.extend(textwrap.wrap(line, width, break_on_hyphens=False) or [""])
    return lines


async def choose(
    title: str,
    items: Sequence[tuple[str, str]],
    *,
    default: int = 0,
    note: str = "",
    top: bool = False,
    logo: bool = True,
) -> str | None:
    """Show a menu of ``(key, label)`` items; return the chosen key, or None on Escape.

    Up, Down, Tab and Shift-Tab move; Enter or an item's number chooses. Ctrl-Q and Ctrl-C
    return None too. On the ``top`` menu Escape does nothing: pressed once too often while
    backing out of a submenu, it would otherwise quit the program. A label's further lines
    (after a newline) are shown indented under its first; ``logo`` False leaves the logo out
    to make room.
    """
    selected = [default]

    def width() -> int:
        from prompt_toolkit.application.current import get_app

        return max(20, get_app().output.get_size().columns - 8)

    def menu() -> StyleAndTextTuples:
        out: StyleAndTextTuples = [("class:logo", _LOGO + "\n")] if logo else [("", "\n")]
        out.append(("bold", f"  {title}\n\n"))
        for i, (_, label) in enumerate(items):
            mark = ">" if i == selected[0] else " "
            style = "reverse bold" if i == selected[0] else ""
            first, *more = _wrap(label, width())
            out.append(("", f"  {mark} "))
            out.append((style, f"{i + 1}. {first}"))
            out.append(("", "\n"))
            for line in more:
                out.append(("", f"       {line}\n"))
        if note:
            # Wrapped, never cut: a refused connection's reason is read to the end.
            wrapped = "\n".join("  " + line for line in _wrap(note, width() + 5))
            out.append(("class:msg.warning", f"\n{wrapped}\n"))
        return out

    kb = KeyBindings()

    @kb.add("down")
    @kb.add("tab")
    @kb.add("j")
    def _down(event: KeyPressEvent) -> None:
        selected[0] = (selected[0] + 1) % len(items)

    @kb.add("up")
    @kb.add("s-tab")
    @kb.add("k")
    def _up(event: KeyPressEvent) -> None:
        selected[0] = (selected[0] - 1) % len(items)

    @kb.add("enter")
    def _enter(event: KeyPressEvent) -> None:
        event.app.exit(result=items[selected[0]][0])

    @kb.add("c-c")
    @kb.add("c-q")
    def _back(event: KeyPressEvent) -> None:
        event.app.exit(result=None)

    @kb.add("escape", eager=True)
    def _escape(event: KeyPressEvent) -> None:
        if not top:
            event.app.exit(result=None)

    for number in range(1, min(9, len(items)) + 1):

        def pick(event: KeyPressEvent, n: int = number) -> None:
            event.app.exit(result=items[n - 1][0])

        kb.add(str(number))(pick)

    leave = "Ctrl-Q quit" if top else "Esc back"
    footer: StyleAndTextTuples = [("class:title", f" Up/Down or Tab move  Enter choose  {leave} ")]
    app: Application[str | None] = Application(
        layout=Layout(
            HSplit(
                [Window(FormattedTextControl(menu)), Window(FormattedTextControl(footer), height=1)]
            )
        ),
        key_bindings=kb,
        style=STYLE,
        full_screen=True,
    )
    return await app.run_async()


async def ask(title: str, prompt: str, *, paths: bool = False) -> str | None:
    """Ask for one line of text (a file name, an address); None on Escape.

    The lines of ``title`` after its first (why the last answer did not do) are shown under
    it, wrapped. With ``paths`` Tab completes file and directory names (a menu shows them).
    """
    from prompt_toolkit.completion import PathCompleter
    from prompt_toolkit.layout import Float, FloatContainer
    from prompt_toolkit.layout.menus import CompletionsMenu

    kb = KeyBindings()

    @kb.add("escape", eager=True)
    @kb.add("c-c")
    def _back(event: KeyPressEvent) -> None:
        event.app.exit(result=None)

    app: Application[str | None] = Application(full_screen=True, style=STYLE, key_bindings=kb)

    def accept(buffer: object) -> bool:
        app.exit(result=field.text.strip())
        return True

    field = TextArea(
        multiline=False,
        prompt=prompt,
        accept_handler=accept,
        completer=PathCompleter(expanduser=True) if paths else None,
        complete_while_typing=False,
    )
    first, *more = title.split("\n")

    def header() -> StyleAndTextTuples:
        from prompt_toolkit.application.current import get_app

        width = max(20, get_app().output.get_size().columns - 4)
        out: StyleAndTextTuples = [("class:logo", _LOGO + "\n"), ("bold", f"  {first}\n")]
        for line in more:  # why the last answer did not do: wrapped, in the warning colour
            for part in _wrap(line, width):
                out.append(("class:msg.warning", f"  {part}\n"))
        return out

    head = Window(FormattedTextControl(header), dont_extend_height=True)
    body = HSplit([head, Window(height=1), field, Window()])
    app.layout = Layout(
        FloatContainer(
            body,
            [Float(xcursor=True, ycursor=True, content=CompletionsMenu(max_height=8))],
        )
    )
    app.layout.focus(field)
    return await app.run_async()


_GODS_MENU: Final = GODS_MENU
"""The god rules every new game offers (``setup_form``), in this order on every screen."""
_LEVELS_MENU: Final = (
    ("easy", "easy"),
    ("medium", "medium"),
    ("hard", "hard"),
    ("random", "random moves"),
)
_CLOCKS_MENU: Final = (
    ("timed", "1 minute a move plus a 5-minute bank (the standard)"),
    ("untimed", "untimed"),
)
_PLAYERS_MENU: Final = (("2", "2 players"), ("3", "3 players"), ("4", "4 players (2 vs 2)"))


async def _gods(options: GameOptions, players: int = 2) -> GameOptions | None:
    """Ask for the god rule, the gods to choose from (``setup_form``), and the clocks."""
    chosen = await ask_gods(choose, ask, players)
    if chosen is None:
        return None
    gods, pool = chosen
    clocks = await choose("Clocks", _CLOCKS_MENU, default=0 if options.timed else 1)
    if clocks is None:
        return None
    return replace(options, gods=gods, pool=pool, timed=clocks == "timed")


async def _watch_over_loopback(
    network: LanGames, levels: Sequence[str], options: GameOptions, pace_ms: int
) -> GameController | str:
    """Computer players over the network stack on this machine (127.0.0.1)."""
    return await network.watch(
        levels,
        options.gods,
        timed=options.timed,
        think=options.think,
        seed=options.seed,
        pace_ms=pace_ms,
        pool=options.pool,
    )


async def _start_game(
    choice: str, options: GameOptions, network: LanGames | None
) -> GameController | str | None:
    """Ask what the chosen entry needs; return a game, a note to show, or None (backed out)."""
    if choice in ("computer", "hotseat"):
        kept = resume_local(options.think)
        if isinstance(kept, LocalGame):
            answer = await _keep_or_replace(kept)
            if answer != "new":
                return kept if answer == "resume" else None
    if choice == "computer":
        level = await choose("How strong a computer?", _LEVELS_MENU)
        if level is None:
            return None
        chosen = await _gods(options)
        return computer_game(level, 2, chosen) if chosen else None
    if choice == "hotseat":
        count = await choose("How many players?", _PLAYERS_MENU)
        if count is None:
            return None
        chosen = await _gods(options, int(count))
        return hotseat_game(int(count), chosen) if chosen else None
    if choice == "watch":
        chosen = await _gods(options)
        if chosen is None:
            return None
        if network is None:
            return watch_game(("medium", "medium"), chosen)
        return await _watch_over_loopback(network, ("medium", "medium"), chosen, WATCH_PACE_MS)
    if choice in ("host", "join"):
        if network is None:
            return "LAN games are not available in this build."
        return await (network.host() if choice == "host" else network.join())
    if choice == "replay":
        from santorini_p2p.ui.replay_view import view_replay_file

        name = await _pick_replay()
        while name:
            why = await view_replay_file(name, mouse=options.mouse)
            if why is None:
                return None
            # A file that cannot be opened: asked again, with why, on the same screen.
            name = await ask(f"Open a replay file\n{why}", "file: ", paths=True)
        return None
    return None


RECENT_SHOWN: Final = 4
"""How many recent games "Open a replay" lists (two or three lines each: they fit 18 rows)."""


async def _pick_replay() -> str | None:
    """The recent games under ``$SANTORINI_HOME/games/``, newest first, or another file."""
    from santorini_p2p.ui.games import recent_games
    from santorini_p2p.wire.identity import home_dir

    recent = recent_games(home_dir(), limit=RECENT_SHOWN)
    other = "\0other"
    if recent:
        items = [(str(path), label) for path, label in recent]
        items.append((other, "Another file... (Tab completes its name)"))
        picked = await choose("Open a replay: recent games", items, logo=False)
        if picked != other:
            return picked
    return await ask("Open a replay file", "file: ", paths=True)


_START_MENU: Final = (
    ("computer", "Play the computer"),
    ("hotseat", "Play hot-seat on this terminal"),
    ("host", "Host a LAN game"),
    ("join", "Join a LAN game"),
    ("watch", "Watch two computer players"),
    ("replay", "Open a replay"),
    ("quit", "Quit"),
)


async def _correspondence() -> None:
    """The correspondence games (``santorini post`` on the console's screens)."""
    from santorini_p2p.ui.post_screen import PostGames, paste_block, show_page
    from santorini_p2p.wire.identity import home_dir, load_or_create_identity

    async def menu(title: str, items: Sequence[tuple[str, str]]) -> str | None:
        return await choose(title, items, logo=False)

    home = home_dir()
    me = load_or_create_identity(home)
    await PostGames(home, me, menu, paste_block, show_page, ask).run()


def resume_local(think: float | None = None) -> LocalGame | str | None:
    """Return the unfinished game kept on this terminal, why it cannot resume, or None."""
    from santorini_p2p.wire.identity import home_dir, load_or_create_identity

    path = journal_path()
    if not path.exists():
        return None
    try:
        home = home_dir()
        me = load_or_create_identity(home)
        return LocalGame.resume(path, chooser=ai_chooser(think), identity=me, home=home)
    except (ValueError, SantoriniError) as e:
        return str(e)


async def console(options: GameOptions, network: LanGames | None = None) -> int:
    """Run the start screen until the player quits; return the exit code."""
    note = ""
    default = 0
    chosen_before = False
    while True:
        menu = list(_START_MENU)
        unfinished = resume_local()
        if isinstance(unfinished, LocalGame):
            # Last, so that the other entries keep their numbers; chosen unless moved off.
            label = f"Resume the unfinished game ({unfinished.journal_summary()})"
            menu.append(("resume", label))
            if not chosen_before:
                default = len(menu) - 1
        elif isinstance(unfinished, str):
            note = note or unfinished
        menu.append(("post", "Correspondence games"))
        default = min(default, len(menu) - 1)
        choice = await choose(
            "What would you like to do?", menu, default=default, note=note, top=True
        )
        note = ""
        if choice is None or choice == "quit":
            return 0
        default = [k for k, _ in menu].index(choice)
        chosen_before = True
        game: GameController | str | None
        if choice == "post":
            await _correspondence()
            continue
        if choice == "resume" and isinstance(unfinished, LocalGame):
            game = unfinished
        else:
            game = await _start_game(choice, options, network)
        if isinstance(game, str):
            note = game
            continue
        if game is None:
            continue
        run = run_game if isinstance(game, LocalGame) else run_network_game
        review = reviewer(options.think, mouse=options.mouse)
        if await run(game, mouse=options.mouse, review=review) == "quit":
            if game.position.phase is not Phase.OVER and game.stopped is None:
                # Ctrl-C in a game not over: it is kept, and the last words say how to go on.
                how = (
                    "the start screen offers to resume it"
                    if isinstance(game, LocalGame)
                    else "Host or Join again on the start screen (or santorini resume) resumes it"
                )
                print(f"The game is kept: {how}.")
            return 0


async def run_network_game(
    game: GameController,
    *,
    mouse: bool = True,
    leave: str = START_SCREEN,
    review: Callable[[Path], Awaitable[str | None]] | None = None,
    on_rematch: Callable[[NetworkGame], None] | None = None,
) -> str:
    """Show a network game while it runs; return ``"menu"`` or ``"quit"`` as ``run_game``.

    A network game that offers a rematch (``offer_rematch``) holds the vote at game over
    (m asks, y and n answer); when it is agreed the rematch is shown in its place, and
    ``on_rematch`` is told of it first.

    Leaving before the game is over stops it on this peer (its journal is kept, so the same
    command resumes it). Leaving once it is over lets ``game.run()`` end by itself, bounded,
    after the last result records have reached the other peers.
    """
    from santorini_p2p.net.game import NetworkGame

    _log_to_file()
    if isinstance(game, NetworkGame) and game.played_here:
        # A person plays here: at game over the screen offers a rematch (m; SESSION.md 10).
        game.offer_rematch = True
    number = 1
    score: dict[str, float] = {}
    while True:
        task = asyncio.create_task(game.run())
        try:
            result = await run_game(game, mouse=mouse, drive=False, leave=leave, review=review)
        finally:
            if game.position.phase is not Phase.OVER and game.stopped is None:
                task.cancel()
            elif (rematch := features_of(game).rematch) is not None:
                # Leaving at game over declines a rematch: the others need not wait.
                rematch.answer_rematch(False)
            with contextlib.suppress(asyncio.CancelledError):
                await task
        if result != "rematch" or not isinstance(game, NetworkGame):
            return result
        _count_result(game, score)
        game = game.next_game()
        number += 1
        # The match so far, as a site shows it: the game's number and the running score.
        standing = ", ".join(f"{name} {points:g}" for name, points in score.items())
        game.session.notes.append(Note(f"Rematch: game {number}. Score: {standing}."))
        if on_rematch is not None:
            on_rematch(game)


def _count_result(game: NetworkGame, score: dict[str, float]) -> None:
    """Add a finished game's result to the match ``score``: 1 a win, half each a draw."""
    v = game.session.validator
    res = v.result if v is not None else None
    p = game.position
    if v is None or res is None:
        return
    names = v.names
    for name in names:
        score.setdefault(name, 0)
    winner, _ = res
    if winner < 0:
        for name in names:
            score[name] += 0.5
        return
    for seat, name in enumerate(names):
        if p.side_of(seat) == p.side_of(winner):
            score[name] += 1


def _has_terminal() -> bool:
    """Whether standard input and output are a terminal; say so on standard error if not."""
    if sys.stdin.isatty() and sys.stdout.isatty():
        return True
    print("santorini: error: the console needs a terminal (see santorini --help)", file=sys.stderr)
    return False


def _log_to_file() -> None:
    """Send log records to a file: the full-screen terminal has no room for them.

    The file is ``console.log`` in ``$SANTORINI_HOME``, private as every file there (it holds
    the games' notes); where that cannot be written, nothing is logged.
    """
    import os

    from santorini_p2p.wire.identity import home_dir

    root = logging.getLogger()
    if not root.handlers:
        path = home_dir() / "console.log"
        try:
            path.parent.mkdir(parents=True, exist_ok=True, mode=0o700)
            os.close(os.open(path, os.O_WRONLY | os.O_CREAT | os.O_APPEND, 0o600))
            os.chmod(path, 0o600)
            handler = logging.FileHandler(path, encoding="utf-8")
        except OSError:
            return
        handler.setFormatter(logging.Formatter("%(asctime)s %(name)s %(levelname)s %(message)s"))
        root.addHandler(handler)
        # The file keeps this program's own notes too (a game's stop among them).
        logging.getLogger("santorini_p2p").setLevel(logging.INFO)


def reviewer(
    think: float | None = None, *, mouse: bool = True
) -> Callable[[Path], Awaitable[str | None]]:
    """The engine review offered at game over: ``think`` seconds a position, if given."""

    async def review(replay: Path) -> str | None:
        from santorini_p2p.ui.review_view import review_game

        return await review_game(replay, think=think, mouse=mouse)

    return review


async def _until_left(
    open_game: Callable[[], Awaitable[GameController | None]],
    mouse: bool,
    review: Callable[[Path], Awaitable[str | None]] | None = None,
) -> int:
    game = await open_game()
    if game is not None:
        await run_game(game, mouse=mouse, leave=LEAVE, review=review)
    return 0


async def _keep_or_replace(kept: LocalGame) -> str | None:
    """Ask what to do with the unfinished game a new one would replace: resume, new or None."""
    return await choose(
        "An unfinished game is kept on this terminal",
        [
            ("resume", f"Resume it ({kept.journal_summary()})"),
            ("new", "Start the new game (the unfinished one is given up)"),
        ],
    )


def play(
    level: str | None,
    players: int,
    options: GameOptions,
    resume: bool = False,
    save: Callable[[Path], bool] | None = None,
    new: bool = False,
) -> int:
    """``santorini play``: against the computer at ``level``, or hot-seat when it is None.

    With ``resume`` the unfinished game kept on this terminal is played on instead. A new
    game would replace it: on a terminal the player is asked first, without one it takes
    ``new``. On a terminal the game screen opens; without one, turns are read as text from
    standard input and the game's events printed. A finished game's replay file is handed to
    ``save`` (the ``--save`` copy), which returns whether it succeeded.

    Raises:
        ValueError: ``resume`` and there is no game to resume; or without a terminal, a game
            is kept and neither ``resume`` nor ``new`` says what to do with it.
    """
    terminal = sys.stdin.isatty() and sys.stdout.isatty()
    kept = resume_local(options.think) if resume or not new else None
    if resume and not isinstance(kept, LocalGame):
        raise ValueError(kept or "there is no unfinished game on this terminal")
    if not resume and not terminal and isinstance(kept, LocalGame):
        raise ValueError(
            f"an unfinished game is kept on this terminal ({kept.journal_summary()}): "
            "'santorini play --resume' plays on, --new starts over and gives it up"
        )
    game = kept if resume and isinstance(kept, LocalGame) else None
    ask_first = not resume and isinstance(kept, LocalGame)

    async def open_game() -> GameController | None:
        nonlocal game
        if ask_first and game is None:
            assert isinstance(kept, LocalGame)
            answer = await _keep_or_replace(kept)
            if answer is None:
                return None
            if answer == "resume":
                game = kept
        if game is None:
            game = (
                hotseat_game(players, options)
                if level is None
                else computer_game(level, players, options)
            )
        return game

    if terminal:
        _log_to_file()
        review = reviewer(options.think, mouse=options.mouse)
        asyncio.run(_until_left(open_game, options.mouse, review))
        over = game is not None and game.position.phase is Phase.OVER
    else:
        from santorini_p2p.ui.line_prompt import play_by_lines

        async def by_lines() -> bool:
            opened = await open_game()
            return await play_by_lines(cast(LocalGame, opened))

        over = asyncio.run(by_lines())
        if not over:
            print(
                "santorini: error: standard input ended before the game did; "
                "'santorini play --resume' plays on",
                file=sys.stderr,
            )
            return 1
    if over and game is not None and game.replay is not None:
        if not sys.stdout.isatty() or not sys.stdin.isatty():
            print(f"game over; replay {game.replay}", flush=True)
        if save is not None and not save(game.replay):
            return 1
    return 0


def watch(
    levels: Sequence[str],
    options: GameOptions,
    pace_ms: int = WATCH_PACE_MS,
    network: LanGames | None = None,
) -> int:
    """``santorini watch``: computer players of ``levels`` against each other.

    With ``network`` they play over 127.0.0.1 through the network stack (``--loopback``).
    """
    if not _has_terminal():
        return 2
    _log_to_file()
    if network is None:

        async def open_game() -> GameController:
            return watch_game(levels, options, pace_ms)

        return asyncio.run(_until_left(open_game, options.mouse))

    async def over_loopback() -> int:
        assert network is not None
        game = await _watch_over_loopback(network, levels, options, pace_ms)
        if isinstance(game, str):
            print(f"santorini: error: {game}", file=sys.stderr)
            return 1
        await run_network_game(game, mouse=options.mouse, leave=LEAVE)
        return 0

    return asyncio.run(over_loopback())


def run_console(options: GameOptions, network: LanGames | None = None) -> int:
    """``santorini`` with no arguments: the start screen."""
    if not _has_terminal():
        return 2
    _log_to_file()
    return asyncio.run(console(options, network))
