"""The import contract of the house: layers import one way, no cycles, click in cli.py only.

go <- patterns <- datasets <- miner <- find <- engine <- cli.py; the root modules
(``errors``, ``files``, ``tables``, ``plots``, ``workers``) sit below them all. ``patterns`` is
the move model (features, candidates, the prior, ``Knowledge``), below both the miner, which
mines and rates it, and the engine, which plays with it. Imports inside functions count.
"""

from __future__ import annotations

import ast
import functools
import os
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
LAYERS = ("", "go", "patterns", "datasets", "miner", "find", "engine", "cli")
OUTSIDE = ("tests", "bench", "tools", "build", "docs")


def package_files() -> list[Path]:
    return _package_files(ROOT)


@functools.cache
def _package_files(root: Path) -> list[Path]:
    """The package's Python files under ``root``: neither the folders ``OUTSIDE`` it nor hidden ones."""
    found = []
    for folder, subfolders, files in os.walk(root):
        top = Path(folder) == root
        subfolders[:] = [d for d in subfolders if not d.startswith(".") and not (top and d in OUTSIDE)]
        found += [Path(folder) / f for f in files if f.endswith(".py") and not f.startswith(".")]
    return sorted(found)


@functools.cache
def _modules(root: Path) -> frozenset[str]:
    return frozenset(module_name(p) for p in _package_files(root))


def module_name(path: Path) -> str:
    parts = list(path.relative_to(ROOT).with_suffix("").parts)
    if parts[-1] == "__init__":
        parts.pop()
    return ".".join(["shapemill", *parts])


def imports_of(path: Path) -> list[tuple[int, str]]:
    """(line, module) of every import of ``path``, relative ones resolved; ``from P
    import m`` of a submodule ``m`` counts as importing ``P.m`` only."""
    modules = _modules(ROOT)
    package = module_name(path).split(".")
    if path.name != "__init__.py":
        package.pop()
    found = []
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        if isinstance(node, ast.Import):
            found += [(node.lineno, alias.name) for alias in node.names]
        elif isinstance(node, ast.ImportFrom):
            base = package[: len(package) - node.level + 1] if node.level else []
            module = ".".join(base + ([node.module] if node.module else []))
            subs = [f"{module}.{alias.name}" for alias in node.names if f"{module}.{alias.name}" in modules]
            found += [(node.lineno, m) for m in subs or [module]]
    return found


def layer_of(module: str) -> int:
    parts = module.split(".")
    top = parts[1] if len(parts) > 1 else ""
    return LAYERS.index(top) if top in LAYERS else 0


def internal_graph() -> dict[str, set[str]]:
    modules = {module_name(p): p for p in package_files()}
    graph: dict[str, set[str]] = {}
    for name, path in modules.items():
        graph[name] = {m for _, m in imports_of(path) if m in modules and m != name}
    return graph


def upward_imports() -> list[str]:
    upward = []
    for path in package_files():
        here = module_name(path)
        for line, target in imports_of(path):
            if target.startswith("shapemill") and layer_of(target) > layer_of(here):
                upward.append(f"{path.relative_to(ROOT)}:{line} imports {target}")
    return upward


def test_every_layer_imports_only_the_layers_below() -> None:
    assert upward_imports() == []


def test_go_imports_nothing_of_ours() -> None:
    reached = [
        f"{path.relative_to(ROOT)}:{line} imports {target}"
        for path in package_files() if path.relative_to(ROOT).parts[0] == "go"
        for line, target in imports_of(path)
        if target.startswith("shapemill") and not target.startswith("shapemill.go")
    ]
    assert reached == []


def test_no_import_cycle_between_files() -> None:
    graph = internal_graph()
    state: dict[str, int] = {}
    cycles = []

    def visit(node: str, stack: list[str]) -> None:
        state[node] = 1
        for nxt in sorted(graph[node]):
            if state.get(nxt) == 1:
                cycles.append(" -> ".join(stack[stack.index(nxt):] + [node, nxt]) if nxt in stack else f"{node} -> {nxt}")
            elif nxt not in state:
                visit(nxt, stack + [node])
        state[node] = 2

    for node in sorted(graph):
        if node not in state:
            visit(node, [])
    assert cycles == []


def test_click_only_in_cli() -> None:
    users = [
        f"{path.relative_to(ROOT)}:{line}"
        for path in package_files() if path.name != "cli.py" or path.parent != ROOT
        for line, target in imports_of(path) if target.split(".")[0] == "click"
    ]
    assert users == []


def test_imports_inside_the_package_are_relative() -> None:
    absolute = []
    for path in package_files():
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            if isinstance(node, ast.ImportFrom) and node.level == 0 and (node.module or "").startswith("shapemill"):
                absolute.append(f"{path.relative_to(ROOT)}:{node.lineno}")
            if isinstance(node, ast.Import) and any(a.name.startswith("shapemill") for a in node.names):
                absolute.append(f"{path.relative_to(ROOT)}:{node.lineno}")
    assert absolute == []


@pytest.mark.parametrize(
    ("source", "found"),
    [
        ("from ..engine import mcts\n", "miner/x.py:1 imports shapemill.engine"),
        ("def f():\n    from ..miner.rate import fit\n", "patterns/x.py:2 imports shapemill.miner.rate"),
    ],
)
def test_the_contract_catches_an_upward_import(tmp_path, monkeypatch, source, found) -> None:
    layer = found.split("/")[0]
    (tmp_path / layer).mkdir()
    (tmp_path / layer / "x.py").write_text(source)
    monkeypatch.setattr(f"{__name__}.ROOT", tmp_path)
    assert upward_imports() == [found]


#: The engine's job folders, lowest first: each may import only the folders before it.
ENGINE_JOBS = ("playouts", "solve", "search", "frontends")
#: The rooms of a job folder, lowest first: each may import only the rooms before it (the
#: reading order of ``engine/search/__init__.py``); the package's ``__init__`` sits above them.
ROOMS = {
    "playouts": ("random", "mogo", "nested", "nmcs", "gamma", "ppa"),
    "search": ("figure1", "expert", "selection", "tree", "tree_priors", "walk", "search", "endgame"),
}


def engine_room_violations() -> list[str]:
    """Imports from an engine job folder of a later folder, from a room of a later room of its
    folder, and any import of ours in the clock (arithmetic on seconds: it knows nothing of the
    search)."""
    bad = []
    for path in package_files():
        parts = path.relative_to(ROOT).with_suffix("").parts
        if len(parts) != 3 or parts[0] != "engine" or parts[1] not in ENGINE_JOBS:
            continue
        job, here = parts[1], parts[2]
        where = f"engine/{job}/{here}.py"
        for line, target in imports_of(path):
            if here == "clock" and target.startswith("shapemill"):
                bad.append(f"{where}:{line} imports {target}")
            tparts = target.split(".")
            if len(tparts) < 3 or tparts[:2] != ["shapemill", "engine"] or tparts[2] not in ENGINE_JOBS:
                continue
            if ENGINE_JOBS.index(tparts[2]) > ENGINE_JOBS.index(job):
                bad.append(f"{where}:{line} imports {target}")
            rooms = ROOMS.get(job, ())
            if tparts[2] == job and here in rooms:
                room = tparts[3] if len(tparts) > 3 else "__init__"
                if room not in rooms or rooms.index(room) >= rooms.index(here):
                    bad.append(f"{where}:{line} imports {target}")
    return bad


def test_the_engines_rooms_import_only_the_rooms_before_them() -> None:
    assert engine_room_violations() == []


def test_the_engine_imports_nothing_of_the_miner() -> None:
    reached = [
        f"{path.relative_to(ROOT)}:{line} imports {target}"
        for path in package_files() if path.relative_to(ROOT).parts[0] == "engine"
        for line, target in imports_of(path) if target.startswith(("shapemill.miner", "shapemill.find"))
    ]
    assert reached == []


@pytest.mark.parametrize(
    ("where", "source", "found"),
    [
        ("search/walk", "from ..frontends.gtp import GtpEngine\n",
         "engine/search/walk.py:1 imports shapemill.engine.frontends.gtp"),
        ("search/tree", "from .walk import simulate\n", "engine/search/tree.py:1 imports shapemill.engine.search.walk"),
        ("playouts/mogo", "from ..search.tree import Tree\n",
         "engine/playouts/mogo.py:1 imports shapemill.engine.search.tree"),
        ("frontends/clock", "from ..search.search import Budget\n",
         "engine/frontends/clock.py:1 imports shapemill.engine.search.search"),
    ],
)
def test_the_rooms_contract_catches_a_later_import(tmp_path, monkeypatch, where, source, found) -> None:
    for job in ENGINE_JOBS:
        (tmp_path / "engine" / job).mkdir(parents=True)
        for room in ROOMS.get(job, ()) + ("clock", "gtp"):
            (tmp_path / "engine" / job / f"{room}.py").write_text("")
    (tmp_path / "engine" / f"{where}.py").write_text(source)
    monkeypatch.setattr(f"{__name__}.ROOT", tmp_path)
    assert engine_room_violations() == [found]


def test_every_package_folder_is_installed() -> None:
    import tomllib

    listed = set(tomllib.loads((ROOT / "pyproject.toml").read_text())["tool"]["setuptools"]["packages"])
    folders = {module_name(p) for p in package_files() if p.name == "__init__.py"}
    assert folders - listed == set()
