"""Every script in examples/ runs unattended and exits 0, so the examples cannot rot."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

EXAMPLES = sorted((Path(__file__).resolve().parent.parent / "examples").glob("*.py"))


def test_there_are_examples():
    assert EXAMPLES


@pytest.mark.parametrize("script", EXAMPLES, ids=[p.name for p in EXAMPLES])
def test_example_runs(script, tmp_path):
    env = {"SANTORINI_HOME": str(tmp_path / "home"), "PATH": "/usr/bin:/bin"}
    p = subprocess.run(
        [sys.executable, str(script)],
        capture_output=True,
        text=True,
        timeout=90,
        cwd=tmp_path,
        env=env,
    )
    assert p.returncode == 0, p.stdout[-2000:] + p.stderr[-2000:]


def test_the_advanced_pairing_example_plays_the_pairing_it_names(tmp_path):
    script = next(p for p in EXAMPLES if p.name == "advanced_pairing_loopback.py")
    env = {"SANTORINI_HOME": str(tmp_path / "home"), "PATH": "/usr/bin:/bin"}
    p = subprocess.run(
        [sys.executable, str(script), "--seed", "7"],
        capture_output=True,
        text=True,
        timeout=90,
        cwd=tmp_path,
        env=env,
    )
    assert p.returncode == 0, p.stdout[-2000:] + p.stderr[-2000:]
    first = p.stdout.splitlines()[0]
    god, other = first.removeprefix("pairing: ").split(" against ")
    assert f"gods {god}, {other}" in p.stdout or f"gods {other}, {god}" in p.stdout
    assert "header protocol 2, pool " in p.stdout


SECTION_10 = [
    "nike",
    "morpheus",
    "selene",
    "hippolyta",
    "aeolus",
    "siren",
    "eris",
    "gaea",
    "achilles",
    "adonis",
    "atalanta",
    "bellerophon",
    "heracles",
    "jason",
    "medea",
    "odysseus",
    "polyphemus",
    "theseus",
]


SECTION_9 = [
    "hades",
    "pegasus",
    "iris",
    "urania",
    "harpies",
    "asteria",
    "scylla",
    "castor",
    "maenads",
    "nemesis",
    "terpsichore",
    "graeae",
    "proteus",
    "hydra",
]


@pytest.mark.parametrize("god", SECTION_9 + SECTION_10)
def test_each_god_of_sections_9_and_10_plays_a_whole_game_between_two_peers(god, tmp_path):
    script = next(p for p in EXAMPLES if p.name == "memory_gods_loopback.py")
    env = {"SANTORINI_HOME": str(tmp_path / "home"), "PATH": "/usr/bin:/bin"}
    p = subprocess.run(
        [sys.executable, str(script), "--god", god, "--seed", "1"],
        capture_output=True,
        text=True,
        timeout=90,
        cwd=tmp_path,
        env=env,
    )
    assert p.returncode == 0, p.stdout[-2000:] + p.stderr[-2000:]
    assert f"pairing: {god} against " in p.stdout
    assert "ok: byte-identical replays of the pairing that verify" in p.stdout
