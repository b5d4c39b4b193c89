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
    for line in out.splitlines():
        if line.startswith("    ") and line.split()[0] in commands:
            assert len(line.split()) > 1, f"no description: {line!r}"
