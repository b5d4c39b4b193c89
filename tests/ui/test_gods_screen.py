"""The game screen with the advanced gods: Tab-only games, what powers did, what they impose."""

from __future__ import annotations

import asyncio
import random
import re

import pytest

from santorini_p2p.engine import (
    ADVANCED,
    OPENING,
    Phase,
    apply,
    find_god,
    find_turn,
    legal_actions,
    new_game,
    parse_position,
)
from santorini_p2p.net.game import SeatInfo
from santorini_p2p.ui.app import GameScreen, help_text
from santorini_p2p.ui.board_view import fragments_text, render_board, render_panel
from santorini_p2p.ui.local import LocalGame, Player
from tests.ui.test_app import CTRL_Q, ENTER, TAB, poll, start, terminal

START = parse_position(OPENING)


def random_choice(position, level, rng, stop):
    return rng.choice(legal_actions(position))


async def play_with_tab(keys, screen, game, rng, prefer: str, limit: int = 3000) -> int:
    """Play every local turn with Tab and Enter alone until the game is over; return presses.

    Each step is chosen as a person reads the menu: a step of the kind ``prefer`` marks when
    one is offered, else a random one; Tab goes down the menu to it and Enter takes it.
    """
    buffer = screen.input.buffer
    presses = 0
    while game.position.phase is not Phase.OVER:
        assert presses < limit, "the game did not end"
        await poll(lambda: game.awaiting is not None or game.position.phase is Phase.OVER)
        if game.awaiting is None:
            continue
        before = len(game.actions)
        typed = buffer.text
        opened = buffer.complete_state is not None  # Enter opened the next steps' menu
        # Tab shows the menu and takes none (a step alone is typed at once); in an open
        # menu Tab goes down it.
        keys.send_text(TAB)
        presses += 1
        await poll(
            lambda typed=typed: (
                (buffer.complete_state is not None and bool(buffer.complete_state.completions))
                or buffer.text != typed
            )
        )
        if buffer.complete_state is not None:
            if not opened:
                assert buffer.complete_state.complete_index is None  # nothing taken yet
                keys.send_text(TAB)
                presses += 1
            await poll(lambda: buffer.complete_state.complete_index is not None)
            offered = [c.text for c in buffer.complete_state.completions]
            wanted = [i for i, t in enumerate(offered) if t[-3:-2] in prefer]
            index = rng.choice(wanted) if wanted else rng.randrange(len(offered))
            for i in range(1, index + 1):
                keys.send_text(TAB)
                presses += 1
                await poll(lambda i=i: buffer.complete_state.complete_index == i)
            assert buffer.text == offered[index]
        keys.send_text(ENTER)
        presses += 1
        await poll(
            lambda before=before: (
                len(game.actions) > before
                or (
                    buffer.complete_state is not None
                    and buffer.complete_state.complete_index is None
                    and bool(buffer.complete_state.completions)
                )
            )
        )
    return presses


@pytest.mark.parametrize(
    ("gods", "bot", "mark", "seed"),
    [
        (("charon", "minotaur"), None, "~", 3),
        (("triton", "hera"), "random", ">", 5),
        (("ares", "pan"), "random", "-", 2),
        (("poseidon", "apollo"), "random", "^", 2),
    ],
    ids=["charon", "triton", "ares", "poseidon"],
)
def test_an_advanced_gods_game_is_played_to_the_end_with_tab_and_enter_only(gods, bot, mark, seed):
    async def main():
        with terminal() as keys:
            players = [Player("Ann"), Player("Ben", bot)]
            game = LocalGame(
                players,
                seed=seed,
                time_control=None,
                start=new_game(2, "random", drawn=gods),
                chooser=random_choice,
            )
            screen = GameScreen(game)
            task = start(screen)
            await play_with_tab(keys, screen, game, random.Random(seed), mark)
            ann = [str(a) for a in game.actions[::2]][1:]
            if mark == "~":
                assert any("~" in t for t in ann), ann  # the ferry was used
            elif mark == ">":
                assert any(t.count(">") >= 3 for t in ann), ann  # Triton moved on and on
            elif mark == "-":
                assert any("-" in t for t in ann), ann  # Ares removed a block
            else:
                assert any(t.count("^") >= 3 for t in ann), ann  # Poseidon built again
            assert re.search(r"wins|You win|You lose", game.messages[-1].text)
            keys.send_text(ENTER)
            assert await asyncio.wait_for(task, 5) == "menu"

    asyncio.run(main())


async def _drawn(game, typed: str, columns: int, lines: int, wait_for):
    """Run the game screen on an emulated ``columns`` x ``lines`` terminal, type ``typed``
    and Enter; return the screen as a person reads it once ``wait_for(screen)`` holds, and
    the message lines."""
    import io

    import pyte
    from prompt_toolkit.application import create_app_session
    from prompt_toolkit.data_structures import Size
    from prompt_toolkit.input import create_pipe_input
    from prompt_toolkit.output.vt100 import Vt100_Output

    out = io.StringIO()
    output = Vt100_Output(out, lambda: Size(rows=lines, columns=columns), term="xterm")
    term = pyte.Screen(columns, lines)
    stream = pyte.Stream(term)

    def text() -> str:
        stream.feed(out.getvalue())
        out.seek(0)
        out.truncate(0)
        return "\n".join(row.rstrip() for row in term.display)

    with create_pipe_input() as keys, create_app_session(input=keys, output=output):
        screen = GameScreen(game, mouse=False)
        task = start(screen)
        before = len(game.actions)
        keys.send_text(typed + ENTER)
        await poll(lambda: len(game.actions) > before)
        shown = ""

        def drawn() -> bool:
            nonlocal shown
            shown = text()
            return "Turns" in shown and wait_for(shown)

        await poll(drawn)
        screen.app.exit(result="menu")
        await asyncio.wait_for(task, 5)
    return shown, [t for _, t in screen._lines()]


def _square(screen: str, name: str) -> str:
    """The five characters of square ``name`` on the drawn board."""
    f, r = "abcde".index(name[0]), int(name[1])
    row = next(line for line in screen.splitlines() if line.startswith(f"{r} |"))
    return row[3 + 6 * f : 8 + 6 * f]


def _hotseat(position: str) -> LocalGame:
    return LocalGame(
        [Player("Ann"), Player("Ben")], time_control=None, start=parse_position(position)
    )


SIZES = [(80, 24), (60, 18)]
EFFECT_CASES = [
    # (position, turn, the message, the square, its sign)
    (
        "0A0000A/00000/00000B/00000/00000B 1 bia,chronus -",
        "e5>e4^d3",
        "bia: B's worker on e3 removed",
        "e3",
        "x",
    ),
    (
        "0X13X11A/0X00B02/132X0X1/030A21/0110X0 1 medusa,atlas -",
        "e5>d5^d4",
        "medusa: B's worker on c4 removed",
        "c4",
        "x+",
    ),
    (
        "013X0A0/1001B0/101A23/01000/10B110 1 charon,aphrodite -",
        "c3~d4>b3^a2",
        "charon: B's worker forced from d4 to b2",
        "b2",
        "~",
    ),
    (
        "0A0A010/00220/01010B/03000B/00310 1 ares,aphrodite -",
        "a5>a4^a3-c4",
        "ares: a block removed from c4",
        "c4",
        "-",
    ),
]


@pytest.mark.parametrize(("columns", "lines"), SIZES)
@pytest.mark.parametrize("no_color", [False, True])
@pytest.mark.parametrize(("position", "turn", "said", "square", "sign"), EFFECT_CASES)
def test_what_a_power_did_is_said_and_marked_on_the_board(
    monkeypatch, position, turn, said, square, sign, no_color, columns, lines
):
    if no_color:
        monkeypatch.setenv("NO_COLOR", "1")
    else:
        monkeypatch.delenv("NO_COLOR", raising=False)
    game = _hotseat(position)
    shown, messages = asyncio.run(
        _drawn(game, turn, columns, lines, lambda s: _square(s, square)[2:].startswith(sign))
    )
    # said in the messages (on the screen), right after the turn it came with
    at = next(i for i, m in enumerate(messages) if said in m)
    assert messages[at - 1].endswith(f"played {turn}.")
    rows = shown.splitlines()
    if lines >= 24:
        assert said in shown
    # and marked on its square, in letters that read without colour
    cell = _square(shown, square)
    assert cell[2 : 2 + len(sign)] == sign, cell
    assert all(len(r) <= columns for r in rows)


def test_an_effect_sign_is_drawn_in_its_own_colour():
    p = parse_position("0A0000A/00000/00000B/00000/00000B 1 bia,chronus -")
    from santorini_p2p.engine import turn_effects
    from santorini_p2p.ui.board_view import Marks, last_move_marks

    t = find_turn(p, "e5>e4^d3")
    q = apply(p, t)
    marks = Marks(last=last_move_marks(p, q, turn_effects(p, t, q)))
    assert dict(marks.last)[14] == "x"  # e3
    styled = [st for st, tx, *_ in render_board(q, marks) if tx == "x"]
    assert styled
    assert all("class:effect" in st for st in styled)
    assert "x" not in fragments_text(render_board(q))


STANDING_CASES = [
    # (position, what the panel says for the seat to move)
    ("0B000B0A/00000/00000/02A300/00000 1 minotaur,hera -", "now: no winning move onto the"),
    ("3X03X03X/00000/3X00B00B/03000/0A0000A 1 chronus,atlas -", "now: A wins with 5 complete"),
    ("013X0A0/1001B0/101A23/01000/10B110 1 charon,aphrodite -", "now: workers on c3, d5, if"),
    ("0000B1/01001/0000B2/001A10/00010A 1 eros,hypnus -", "now: worker on c2 may not move"),
    ("01000/00001B/00A101/010A00/10001B 2 persephone,ares -", "now: must move up if possible"),
    ("00010A/00001/0010A0B/00B020/00001 1 charon,limus -", "now: no build next to the"),
]


@pytest.mark.parametrize(("columns", "lines"), SIZES)
@pytest.mark.parametrize(("position", "line"), STANDING_CASES)
def test_what_the_powers_impose_is_on_the_panel_for_the_seat_to_move(
    position, line, columns, lines
):
    p = parse_position(position)
    seats = [SeatInfo(0, "Ann", True, True), SeatInfo(1, "Ben", True, True)]
    width = columns - 35 - 1
    panel = fragments_text(render_panel(p, seats, [], width, max(13, lines - 10)))
    assert line in " ".join(panel.split())
    for row in panel.splitlines():
        assert len(row) <= width
    # each seat's god with its power, cut between words only
    for god in p.gods:
        first = next(r for r in panel.splitlines() if r.startswith(f"    {god}: "))
        words = first.split()
        power = f"{god}: {find_god(god).power}".split()
        assert words[: len(words) - (words[-1] == "~")] == power[: len(words) - (words[-1] == "~")]


@pytest.mark.parametrize("width", [78, 58])
def test_help_names_every_advanced_god_with_its_power_and_turn_form_uncut(width):
    for god in ADVANCED:
        p = parse_position(f"00000/00B00A0/00000/00A00B0/00000 1 {god.name},- -")
        text = help_text(p, width)
        assert all(len(line) <= width for line in text.splitlines())
        block = text[text.index(f"  {god.name}: ") :]
        # the whole power, word for word, however it wraps
        assert " ".join(block.split())[: len(god.power) + len(god.name) + 2] == (
            f"{god.name}: {god.power}"
        )
    for name in ("charon", "ares", "triton", "poseidon", "zeus", "hestia", "bia", "medusa"):
        p = parse_position(f"00000/00B00A0/00000/00A00B0/00000 1 {name},- -")
        assert "    type: " in help_text(p, width), name


def test_the_hint_names_the_kinds_of_the_next_steps():
    async def main():
        with terminal() as keys:
            game = _hotseat("013X0A0/1001B0/101A23/01000/10B110 1 charon,aphrodite -")
            screen = GameScreen(game)
            task = start(screen)
            await poll(lambda: game.awaiting is not None)
            # from the start: the power's own first step is named
            assert "a worker, then > move or ~ ferry" in fragments_text(screen._hint())
            keys.send_text("c3")
            await poll(lambda: screen.input.buffer.text == "c3")
            hint = fragments_text(screen._hint())
            assert "> move" in hint
            assert "~ ferry" in hint
            keys.send_text("~d4>b3^a2")
            await poll(lambda: "Enter plays" in fragments_text(screen._hint()))
            screen.app.exit(result="menu")
            await asyncio.wait_for(task, 5)

    asyncio.run(main())


def test_clicking_a_ferry_a_move_and_a_build_plays_charons_turn():
    async def main():
        with terminal() as keys:
            game = _hotseat("013X0A0/1001B0/101A23/01000/10B110 1 charon,aphrodite -")
            screen = GameScreen(game)
            task = start(screen)
            await poll(lambda: game.awaiting is not None)
            screen.click(12)  # c3: the worker
            screen.click(18)  # d4: the opponent's worker next to it, ferried across
            assert screen.input.buffer.text == "c3~d4"
            screen.click(11)  # b3: the move
            assert screen.input.buffer.text == "c3~d4>b3"
            screen.click(5)  # a2: the build ends the turn
            assert str(game.actions[-1]) == "c3~d4>b3^a2"
            keys.send_text(CTRL_Q)
            await asyncio.wait_for(task, 5)

    asyncio.run(main())


def test_help_lists_the_gods_a_challenger_offers_from():
    p = new_game(2, "challenger", offer=("charon", "triton", "zeus", "pan"))
    text = help_text(p, 78)
    for god in ("charon", "triton", "zeus", "pan"):
        assert f"  {god}: " in text
    assert "  apollo: " not in text


def test_a_tab_right_after_enter_takes_the_first_step_on():
    async def main():
        with terminal() as keys:
            game = LocalGame([Player("Ann"), Player("Ben")], time_control=None, start=START)
            screen = GameScreen(game)
            task = start(screen)
            await poll(lambda: game.awaiting is not None)
            # Enter opens the next steps and the Tab that follows at once selects the first.
            buffer = screen.input.buffer
            keys.send_text("b2" + ENTER + TAB)
            await poll(lambda: buffer.complete_state is not None and buffer.text.startswith("b2"))
            # (a background completion would still be running: wait for what it shows)
            await poll(lambda: bool(buffer.complete_state and buffer.complete_state.completions))
            assert buffer.text == "b2>a1"
            keys.send_text(CTRL_Q)
            await asyncio.wait_for(task, 5)

    asyncio.run(main())


def test_a_game_opened_mid_way_marks_the_last_turn_from_its_text():
    from santorini_p2p.engine import SQUARE_NAMES
    from santorini_p2p.ui.app import text_marks

    def named(text):
        return {SQUARE_NAMES[s]: sign for s, sign in text_marks(text)}

    assert named("b2>c3^b2") == {"b2": ".+", "c3": "*"}
    # a ferried worker left its square; where it went the text does not say
    assert named("c3~d4>b3^a2") == {"c3": ".", "d4": ".", "b3": "*", "a2": "+"}
    # Triton: where it left and where it stopped, not the squares on its way
    assert named("a2>a1>b1>c2^c3") == {"a2": ".", "c2": "*", "c3": "+"}
    assert named("b2>c3^b3-e5") == {"b2": ".", "c3": "*", "b3": "+", "e5": "-"}
    assert named("b2^c2>b3^c2") == {"b2": ".", "c2": "+", "b3": "*"}
    assert named("Ha1,d4^a2") == {"a1": "*", "d4": "*", "a2": "+"}


def test_help_scrolls_to_the_gods_however_fast_down_is_pressed():
    async def main():
        with terminal() as keys:
            game = _hotseat("013X0A0/1001B0/101A23/01000/10B110 1 charon,aphrodite -")
            screen = GameScreen(game)
            task = start(screen)
            keys.send_text("?")
            await poll(lambda: screen._help_window.render_info is not None)
            last = screen._help().count("\n")
            keys.send_text("\x1b[B" * 80)  # faster than the screen redraws
            await poll(lambda: screen._help_line == last)
            keys.send_text("\x1b[5~")  # PageUp
            await poll(lambda: screen._help_line < last - 5)
            keys.send_text("\x1b")
            await poll(lambda: not screen.show_help)
            keys.send_text(CTRL_Q)
            await asyncio.wait_for(task, 5)

    asyncio.run(main())


def test_a_side_out_of_a_three_player_game_is_said_and_its_squares_marked():
    game = LocalGame(
        [Player("Ann"), Player("Ben"), Player("Cy")],
        time_control=None,
        start=parse_position("00100/2101C0/0A0A20C1/20B230B/01100 3 -,-,- -"),
    )
    shown, messages = asyncio.run(
        _drawn(game, "d4>c4^b4", 80, 24, lambda s: _square(s, "a3")[2] == "x")
    )
    assert _square(shown, "b3")[2] == "x"
    assert messages[1].strip() == "A is out; its workers leave a3, b3"
    assert "leaves the game" in " ".join(messages)
