"""The README's examples work as written, in a new shell after its set-up.

Each command the README shows is run as a new shell would run it: a bash with no profile and no
virtual environment on the PATH, then the README's ``. .venv/bin/activate``. Commands that end by
themselves run to the end; the game screens open on a pseudo-terminal and are left with Ctrl-Q;
the LAN commands (which would announce on or connect to a real network) are checked by the
parser only. The list below must name every example the README has, so a new one is not
left out.
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

RUN, SCREEN, LAN = "run", "screen", "lan"

# Every `santorini ...` line of the README's shell blocks: how it is checked, and for a game
# screen the text that shows it opened.
EXAMPLES: dict[str, tuple[str, str]] = {
    "santorini --version": (RUN, ""),
    "santorini play --bot hard --think 5": (SCREEN, "you vs the computer (hard)"),
    "santorini play --players 3": (SCREEN, "seat 3"),
    "santorini watch --levels easy hard": (SCREEN, "Hard computer 2"),
    "santorini watch --loopback --players 4": (SCREEN, "seat 4"),
    "santorini replay show game.sntr": (SCREEN, "Replay | game.sntr"),
    "santorini host --players 2 --gods draft": (LAN, ""),
    "santorini join 192.168.1.20:40517": (LAN, ""),
    "santorini games": (LAN, ""),
    "santorini host --bot random --save a.sntr": (LAN, ""),
    "santorini replay export game.sntr -o game.santorini.txt": (RUN, ""),
    "santorini replay export game.sntr -o game.html": (RUN, ""),
    "santorini replay verify game.santorini.txt": (RUN, ""),
    "santorini replay import game.santorini.txt -o copy.sntr": (RUN, ""),
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


@pytest.fixture(scope="module")
def workdir(tmp_path_factory):
    """A directory to run the examples in, holding the ``game.sntr`` they read."""
    if sys.prefix == sys.base_prefix:
        pytest.skip("the tests do not run in a virtual environment, as the README sets up")
    d = tmp_path_factory.mktemp("readme")
    env = clean_env(d)
    games = d / "arena"
    subprocess.run(
        _new_shell(f"santorini arena random random --games 1 --jobs 1 --save {games}", d),
        env=env,
        check=True,
        capture_output=True,
        timeout=120,
    )
    (games / "game-0001.sntr").rename(d / "game.sntr")
    return d


def test_the_set_up_activates_the_environment_that_holds_santorini(workdir):
    setup = _shell_lines()[:3]
    assert setup[0] == "python3 -m venv .venv && .venv/bin/pip install -e ."
    assert setup[1] == ". .venv/bin/activate"
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


@pytest.mark.parametrize("command", [c for c, (how, _) in EXAMPLES.items() if how == RUN])
def test_a_readme_command_runs_in_a_new_shell(workdir, command):
    done = subprocess.run(
        _new_shell(command, workdir),
        env=clean_env(workdir),
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert done.returncode == 0, done.stderr
    assert "Traceback" not in done.stderr


@pytest.mark.parametrize("command", [c for c, (how, _) in EXAMPLES.items() if how == SCREEN])
def test_a_readme_game_screen_opens_in_a_new_shell_and_ctrl_q_leaves(workdir, command):
    shown = EXAMPLES[command][1]
    with Terminal(_new_shell(command, workdir), env=clean_env(workdir)) as term:
        term.wait_for(shown, timeout=60)
        term.wait_for("Ctrl-Q" if "replay" not in command else "q back")
        term.send("\x11" if "replay" not in command else "q")
        assert term.wait_exit(30) == 0, term.text()


@pytest.mark.parametrize("command", [c for c, (how, _) in EXAMPLES.items() if how == LAN])
def test_a_readme_lan_command_is_accepted_by_the_parser(command):
    args = _build_parser().parse_args(shlex.split(command)[1:])
    assert callable(args.handler)
