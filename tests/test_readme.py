"""The README's examples work as written, in a new shell after its set-up.

Each command the README shows is run as a new shell would run it: a bash with no profile and no
virtual environment on the PATH, then the README's ``. .venv/bin/activate``. Commands that end by
themselves run to the end; the game screens open on a pseudo-terminal and are left with Ctrl-Q;
the LAN commands (which would announce on or connect to a real network) and the training
commands (hours of self-play) are checked by the parser only. The list below must name every
example the README has, so a new one is not left out.
"""

from __future__ import annotations

import re
import shlex
import subprocess
import sys
from pathlib import Path

import pytest

from santorini_p2p.cli import _build_parser
from tests.terminal import Terminal, clean_env

ROOT = Path(__file__).resolve().parent.parent
README = ROOT / "README.md"
VENV = Path(sys.prefix)

RUN, SCREEN, LAN, LONG = "run", "screen", "lan", "long"
CTRL_Q = "\x11"

# Every `santorini ...` line of the README's shell blocks, in order: how it is checked, and for
# a game screen the text that shows it opened and the keys typed then (the last one leaves).
EXAMPLES: dict[str, tuple[str, str, tuple[str, ...]]] = {
    "santorini play --bot hard --think 5": (SCREEN, "you vs the computer (hard)", (CTRL_Q,)),
    "santorini play --players 3 --time 30+120": (SCREEN, "0:30 +2:00", (CTRL_Q,)),
    "santorini play --bot easy --save game.sntr": (
        SCREEN,
        "you vs the computer (easy)",
        ("resign\r", "resign\r", "Saved the game as", CTRL_Q),
    ),
    "santorini watch --levels easy hard": (SCREEN, "Hard computer 2", (CTRL_Q,)),
    "santorini watch --loopback --players 4": (SCREEN, "seat 4", (CTRL_Q,)),
    "santorini replay show game.sntr": (SCREEN, "Replay | game.sntr", ("q",)),
    "santorini host --players 2 --gods draft": (LAN, "", ()),
    "santorini join 192.168.1.20:40517": (LAN, "", ()),
    "santorini games": (LAN, "", ()),
    "santorini host --bot random --save a.sntr": (LAN, "", ()),
    "santorini host --gods random --gods-from chronus,medusa": (LAN, "", ()),
    "santorini watch 192.168.1.20:40517 --save seen.sntr": (LAN, "", ()),
    "santorini host --spectators 0": (LAN, "", ()),
    "santorini replay export game.sntr -o game.santorini.txt": (RUN, "", ()),
    "santorini replay export game.sntr -o game.html": (RUN, "", ()),
    "santorini replay verify game.santorini.txt": (RUN, "", ()),
    "santorini replay import game.santorini.txt -o copy.sntr": (RUN, "", ()),
    "santorini post new --gods draft --time 3d -o invite.txt": (RUN, "", ()),
    "santorini post read reply.txt -o mine.txt": (LAN, "", ()),
    'santorini post play "b2>c3^d4" -o mine.txt': (LAN, "", ()),
    "santorini post list": (RUN, "", ()),
    "santorini post resend -o again.txt": (RUN, "", ()),
    "santorini tournament new club --format swiss --rounds 3 --preset tournament "
    "--player ann=c5e2-1ab1-c9f6-022d --player ben=c11a-e409-2c56-1014 "
    "--player cat=b6e8-cee2-69bf-6989 --player dan=96be-8a58-3bbf-27bd": (RUN, "", ()),
    "santorini tournament pair club": (RUN, "", ()),
    "santorini host --tournament club": (LAN, "", ()),
    "santorini join --tournament club": (LAN, "", ()),
    "santorini tournament result club r1-*.sntr": (LAN, "", ()),
    "santorini tournament standings club --html standings.html": (RUN, "", ()),
    "santorini tournament verify club club/games": (RUN, "", ()),
    "santorini gods": (RUN, "", ()),
    'santorini moves "0A0000A/00000/00000B/00000/00000B 1 bia,chronus -"': (RUN, "", ()),
    "santorini train runs/a --generations 1 --games 1900 --nodes 1500 --arena-games 200 "
    "--epochs 8 --offset shipped --seed 2": (LONG, "", ()),
    "santorini train runs/a --generations 2": (LONG, "", ()),
    "santorini train runs/a --export santorini_p2p/ai/weights/value-v2.npz": (LONG, "", ()),
    "santorini tune runs/t --generations 3 --games 1000 --nodes 1500 --arena-games 200 --seed 1": (
        LONG,
        "",
        (),
    ),
    "santorini tune runs/t --export santorini_p2p/ai/weights/eval-v1.json": (LONG, "", ()),
}


def _shell_lines() -> list[str]:
    """The command lines of the README's ``sh`` blocks, comments removed, in order."""
    lines = []
    for block in re.findall(r"```sh\n(.*?)```", README.read_text(encoding="utf-8"), re.S):
        for line in block.splitlines():
            line = re.sub(r"\s+#\s.*$", "", line).strip()
            if line:
                lines.append(line)
    return lines


def _examples() -> list[str]:
    return [line for line in _shell_lines() if line.startswith("santorini")]


def _new_shell(command: str, cwd: Path) -> list[str]:
    """``command`` as typed into a new shell after the README's set-up."""
    script = f"cd {shlex.quote(str(cwd))} && . {shlex.quote(str(VENV / 'bin' / 'activate'))}"
    return ["bash", "--noprofile", "--norc", "-c", f"{script} && {command}"]


@pytest.fixture
def workdir(tmp_path):
    """An empty directory to run the examples in, as a new user would."""
    if sys.prefix == sys.base_prefix:
        pytest.skip("the tests do not run in a virtual environment, as the README sets up")
    return tmp_path


def test_the_set_up_activates_the_environment_that_holds_santorini(workdir):
    setup = _shell_lines()[0]
    assert setup == (
        "python3 -m venv .venv && .venv/bin/pip install -e . && . .venv/bin/activate && santorini"
    )
    # Without the activation a new shell does not find the command; with it, it does.
    env = clean_env(workdir)
    bare = subprocess.run(
        ["bash", "--noprofile", "--norc", "-c", "command -v santorini"],
        env=env,
        capture_output=True,
        text=True,
        timeout=30,
    )
    assert bare.returncode != 0
    found = subprocess.run(
        _new_shell("command -v santorini", workdir),
        env=env,
        capture_output=True,
        text=True,
        timeout=30,
    )
    assert found.stdout.strip() == str(VENV / "bin" / "santorini")


def test_every_readme_example_is_in_the_checked_list():
    assert sorted(_examples()) == sorted(EXAMPLES)


def _run(command: str, cwd: Path) -> None:
    done = subprocess.run(
        _new_shell(command, cwd), env=clean_env(cwd), capture_output=True, text=True, timeout=120
    )
    assert done.returncode == 0, f"{command}: {done.stderr}"
    assert "Traceback" not in done.stderr


def _screen(command: str, cwd: Path) -> None:
    _, shown, keys = EXAMPLES[command]
    with Terminal(_new_shell(command, cwd), env=clean_env(cwd)) as term:
        term.wait_for(shown, timeout=60)
        for key in keys:
            if key[0].isupper():
                term.wait_for(key, timeout=60)  # a text to wait for, not a key
            else:
                term.send(key)
        assert term.wait_exit(30) == 0, f"{command}:\n{term.text()}"


def test_the_readme_examples_in_order_in_a_new_shell(workdir):
    for command in _examples():
        how = EXAMPLES[command][0]
        if how == RUN:
            _run(command, workdir)
        elif how == SCREEN:
            _screen(command, workdir)
        else:
            args = _build_parser().parse_args(shlex.split(command)[1:])
            assert callable(args.handler), command
    # The game played on the screen to its end was kept, and copied where --save said.
    kept = list((workdir / "santorini" / "games").glob("local-*.sntr"))
    assert len(kept) == 1
    assert (workdir / "game.sntr").read_bytes() == kept[0].read_bytes()
    assert (workdir / "copy.sntr").read_bytes() == kept[0].read_bytes()
