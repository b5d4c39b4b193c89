import subprocess
import sys

from santorini_p2p.cli import main
from santorini_p2p.engine import OPENING


def test_perft_opening_depth_2_via_cli(capsys):
    assert main(["perft", OPENING, "2"]) == 0
    assert capsys.readouterr().out.splitlines()[-1] == "6176"


def test_help_lists_subcommands():
    out = subprocess.run(
        [sys.executable, "-m", "santorini_p2p", "--help"],
        capture_output=True,
        text=True,
        check=True,
    ).stdout
    commands = [
        line.split()[0]
        for line in out.split("COMMAND", 2)[-1].split("options:")[0].splitlines()
        if line.startswith("    ") and line.split()
    ]
    for name in ("show", "moves", "perft", "analyse", "arena", "id", "replay", "play"):
        assert name in commands
    lines = out.splitlines()
    for i, line in enumerate(lines):
        if line.startswith("    ") and line.split()[0] in commands:
            # A name longer than the help column (``tournament``) has its help on the next line.
            described = len(line.split()) > 1 or lines[i + 1].startswith(" " * 8)
            assert described, f"no description: {line!r}"
