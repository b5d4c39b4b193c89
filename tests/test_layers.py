"""Imports point downwards only (DESIGN.md layers; STYLE.md section 3), checked with ast."""

from __future__ import annotations

import ast
import sys
from pathlib import Path

import pytest

PACKAGE = Path(__file__).resolve().parent.parent / "santorini_p2p"

RANK = {"errors": 0, "engine": 1, "wire": 2, "ai": 3, "replay": 3, "net": 4, "ui": 5, "cli": 6}
# Third-party libraries each belong to one module (or layer) only.
OWNER = {
    "msgpack": ("wire/codec.py",),
    "cryptography": ("wire/identity.py",),
    "zmq": ("net/transport.py",),
    "zeroconf": ("net/discovery.py",),
    "prompt_toolkit": ("ui/",),
}
ENGINE_BANNED = {"asyncio", "socket", "time", "random", "os", "pathlib", "threading", "logging"}


def _layer(rel: str) -> str:
    head = rel.split("/")[0]
    return head.removesuffix(".py") if head.endswith(".py") else head


def _imports(path: Path):
    tree = ast.parse(path.read_text(), str(path))
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            for alias in node.names:
                yield alias.name, node.lineno
        elif isinstance(node, ast.ImportFrom) and node.module and not node.level:
            yield node.module, node.lineno


MODULES = sorted(p for p in PACKAGE.rglob("*.py"))


@pytest.mark.parametrize("path", MODULES, ids=[str(p.relative_to(PACKAGE)) for p in MODULES])
def test_imports_point_downwards(path):
    rel = str(path.relative_to(PACKAGE))
    own = _layer(rel)
    if own in ("__init__", "__main__"):
        return
    for name, line in _imports(path):
        top = name.split(".")[0]
        where = f"{rel}:{line} imports {name}"
        if top == "santorini_p2p":
            parts = name.split(".")
            if len(parts) == 1:
                continue
            target = parts[1]
            if target in ("__init__",):
                continue
            assert RANK[target] < RANK[own] or target == own, f"upward import: {where}"
        elif top in OWNER:
            assert rel.startswith(OWNER[top]), f"{top} belongs to {OWNER[top]}: {where}"
        if own == "engine":
            stdlib = top in sys.stdlib_module_names or top in ("santorini_p2p", "__future__")
            assert stdlib, f"the engine imports only the standard library: {where}"
            assert top not in ENGINE_BANNED, f"the engine does no I/O: {where}"
        if own == "errors":
            assert top == "__future__", f"errors.py imports nothing: {where}"


def test_every_layer_is_checked():
    assert {_layer(str(p.relative_to(PACKAGE))) for p in MODULES} - {"__init__", "__main__"} <= set(
        RANK
    )
