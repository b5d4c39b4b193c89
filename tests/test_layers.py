"""Imports point downwards only (DESIGN.md layers; STYLE.md section 3), checked with ast."""

from __future__ import annotations

import ast
import sys
from pathlib import Path

import pytest

PACKAGE = Path(__file__).resolve().parent.parent / "santorini_p2p"

RANK = {
    "errors": 0,
    "engine": 1,
    "wire": 2,
    "ai": 3,
    "replay": 3,
    "study": 4,
    "tournament": 4,
    "net": 5,
    "ui": 6,
    "cli": 7,
}
# The computer opponent's search needs the rules alone (STYLE.md section 3): whatever plays or
# reads signed games with it (the arena, the review) lives in study/.
ONLY = {"ai": {"engine", "ai", "errors"}}
# Third-party libraries each belong to one module (or layer) only.
OWNER = {
    "msgpack": ("wire/codec.py",),
    "cryptography": ("wire/identity.py",),
    "zmq": ("net/transport.py",),
    "zeroconf": ("net/discovery.py",),
    "ifaddr": ("net/address.py",),
    "prompt_toolkit": ("ui/",),
    "numpy": ("ai/net.py", "study/train.py", "study/tune.py"),
    "dask": ("study/jobs.py",),
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
            if own in ONLY:
                assert target in ONLY[own], f"{own}/ imports only {sorted(ONLY[own])}: {where}"
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


def _runtime_imports(path: Path):
    """The package modules ``path`` imports at run time (``if TYPE_CHECKING:`` left out)."""
    tree = ast.parse(path.read_text(), str(path))
    skip: set[int] = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.If) and "TYPE_CHECKING" in ast.unparse(node.test):
            skip.update(id(n) for n in ast.walk(node))
    for node in ast.walk(tree):
        if id(node) in skip:
            continue
        if isinstance(node, ast.ImportFrom) and node.module and not node.level:
            yield node.module, [a.name for a in node.names], node.lineno
        elif isinstance(node, ast.Import):
            for alias in node.names:
                yield alias.name, [], node.lineno


def _module_name(path: Path) -> str:
    rel = path.relative_to(PACKAGE.parent).with_suffix("")
    parts = list(rel.parts)
    if parts[-1] == "__init__":
        parts.pop()
    return ".".join(parts)


MODULE_NAMES = {_module_name(p): p for p in MODULES}


def _target(module: str, names: list[str]) -> list[str]:
    """The package modules an import statement reaches (``from pkg import mod`` included)."""
    out = []
    for name in names:
        if f"{module}.{name}" in MODULE_NAMES:
            out.append(f"{module}.{name}")
    if (module in MODULE_NAMES and len(out) < len(names)) or not names:
        out.append(module)
    return [m for m in out if m in MODULE_NAMES]


def test_no_import_circle_inside_the_engine():
    graph: dict[str, set[str]] = {}
    for name, path in MODULE_NAMES.items():
        if not name.startswith("santorini_p2p.engine"):
            continue
        edges = set()
        for module, names, _ in _runtime_imports(path):
            for t in _target(module, names):
                # A package's __init__ re-exports its modules; importing it is not a cycle.
                if (
                    t.startswith("santorini_p2p.engine")
                    and t != name
                    and not name.startswith(t + ".")
                ):
                    edges.add(t)
        graph[name] = edges
    state: dict[str, int] = {}
    stack: list[str] = []

    def visit(n: str) -> None:
        state[n] = 1
        stack.append(n)
        for m in sorted(graph.get(n, ())):
            if state.get(m) == 1:
                cycle = [*stack[stack.index(m) :], m]
                pytest.fail("import circle: " + " -> ".join(cycle))
            if m not in state:
                visit(m)
        stack.pop()
        state[n] = 2

    for n in sorted(graph):
        if n not in state:
            visit(n)


@pytest.mark.parametrize("path", MODULES, ids=[str(p.relative_to(PACKAGE)) for p in MODULES])
def test_no_module_imports_another_modules_private_names(path):
    for module, names, line in _runtime_imports(path):
        if not module.startswith("santorini_p2p"):
            continue
        private = [n for n in names if n.startswith("_") and not n.startswith("__")]
        assert not private, f"{path.relative_to(PACKAGE)}:{line} imports {private} from {module}"


KERNEL = ("rules", "position", "notation", "hashing", "setup", "order", "perft", "power", "squares")


@pytest.mark.parametrize("name", KERNEL)
def test_the_kernel_names_no_god(name):
    from santorini_p2p.engine import ALL_GOD_NAMES

    text = (PACKAGE / "engine" / f"{name}.py").read_text().lower()
    import re

    named = [g for g in ALL_GOD_NAMES if re.search(rf"\b{g}\b", text)]
    assert not named, f"engine/{name}.py names {named}: a god's rule belongs in engine/gods/"


def _package_graph(layer: str) -> dict[str, set[str]]:
    """Each module of ``layer`` and the modules of the same layer it imports (anywhere)."""
    graph: dict[str, set[str]] = {}
    for path in sorted((PACKAGE / layer).glob("*.py")):
        name = f"santorini_p2p.{layer}.{path.stem}"
        graph[name] = {
            n for n, _ in _imports(path) if n.startswith(f"santorini_p2p.{layer}.") and n != name
        }
    return graph


# The engine has its own check above (run-time imports of every module, packages too).
@pytest.mark.parametrize("layer", ["wire", "ai", "replay", "study", "net", "ui"])
def test_no_import_circle_inside_a_layer(layer):
    graph = _package_graph(layer)
    state: dict[str, int] = {}

    def visit(node: str, trail: list[str]) -> None:
        state[node] = 1
        for nxt in sorted(graph.get(node, ())):
            if state.get(nxt) == 1:
                circle = trail[trail.index(nxt) :] if nxt in trail else trail
                pytest.fail(f"import circle: {' -> '.join([*circle, nxt])}")
            if nxt in graph and not state.get(nxt):
                visit(nxt, [*trail, nxt])
        state[node] = 2

    for node in graph:
        if not state.get(node):
            visit(node, [node])
