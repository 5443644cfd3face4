"""The engine's layers, as core/__init__.py states them: every import of core/ (lazy and
TYPE_CHECKING ones included) goes to the same layer or one below it, plugins import only
what their docstring allows, and no modules import each other in a circle."""

from __future__ import annotations

import ast
from pathlib import Path

CORE = Path(__file__).resolve().parent.parent / "core"

# Layer of each first-level name under kschedx.core; a name not listed is an error.
LAYERS = {
    "": 0, "errors": 0, "progress": 0, "gcpause": 0, "versions": 0, "feature_gates_data": 0,
    "api": 1,
    "load": 2,
    "admission": 3,
    "snapshot": 4,
    "config": 5,
    "framework": 6,
    "plugins": 7,
    "legacy": 8,
    "explain": 9,
}
PLUGINS_MAY_IMPORT = {"", "errors", "progress", "gcpause", "versions", "feature_gates_data",
                      "api", "snapshot", "framework", "plugins"}


def _module_name(path: Path) -> str:
    parts = list(path.relative_to(CORE).with_suffix("").parts)
    if parts[-1] == "__init__":
        parts.pop()
    return ".".join(["kschedx", "core", *parts])


def _imports(path: Path, module: str) -> set[str]:
    """Every kschedx.core module ``path`` imports, anywhere in the file."""
    tree = ast.parse(path.read_text(), str(path))
    package = module if path.name == "__init__.py" else module.rpartition(".")[0]
    found: set[str] = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            found.update(a.name for a in node.names)
        elif isinstance(node, ast.ImportFrom):
            base = node.module or ""
            if node.level:
                anchor = package.split(".")[: len(package.split(".")) - (node.level - 1)]
                base = ".".join([*anchor, *([base] if base else [])])
            found.add(base)
            # "from kschedx.core.explain import front": the submodule is imported too.
            found.update(f"{base}.{a.name}" for a in node.names)
    return {m for m in found if m == "kschedx.core" or m.startswith("kschedx.core.")}


def _graph() -> dict[str, set[str]]:
    files = {_module_name(p): p for p in CORE.rglob("*.py") if "__pycache__" not in p.parts}
    graph: dict[str, set[str]] = {}
    for module, path in files.items():
        graph[module] = {m for m in _imports(path, module) if m in files and m != module}
    return graph


def _first(module: str) -> str:
    parts = module.split(".")
    return parts[2] if len(parts) > 2 else ""


def test_every_core_module_sits_in_a_layer() -> None:
    unknown = sorted({_first(m) for m in _graph()} - set(LAYERS))
    assert not unknown, f"add these to a layer (core/__init__.py and LAYERS): {unknown}"


def test_no_module_imports_a_layer_above_it() -> None:
    upward = [
        f"{m} ({_first(m) or 'core'}) imports {d} ({_first(d) or 'core'})"
        for m, deps in sorted(_graph().items())
        for d in sorted(deps)
        if LAYERS[_first(d)] > LAYERS[_first(m)]
    ]
    assert not upward, "\n".join(upward)


def test_plugins_import_only_api_snapshot_and_framework() -> None:
    wrong = [f"{m} imports {d}" for m, deps in sorted(_graph().items()) if _first(m) == "plugins"
             for d in sorted(deps) if _first(d) not in PLUGINS_MAY_IMPORT]
    assert not wrong, "\n".join(wrong)


def test_no_import_circles() -> None:
    graph = _graph()
    # Package __init__ modules are what "import kschedx.core.x.y" runs first; an edge to a
    # package's own __init__ from inside it is not a circle of the code's own making.
    cycles: list[list[str]] = []
    state: dict[str, int] = {}
    stack: list[str] = []

    def visit(m: str) -> None:
        state[m] = 1
        stack.append(m)
        for d in sorted(graph[m]):
            if m.startswith(d + "."):
                continue
            if state.get(d) == 1:
                cycles.append([*stack[stack.index(d):], d])
            elif d not in state:
                visit(d)
        stack.pop()
        state[m] = 2

    for m in sorted(graph):
        if m not in state:
            visit(m)
    assert not cycles, "\n".join(" -> ".join(c) for c in cycles)


def test_the_checks_can_fail() -> None:
    """The walker sees lazy imports inside functions (so the layer test is not vacuous)."""
    graph = _graph()
    assert "kschedx.core.load.live" in graph["kschedx.core.explain.front"]
    assert "kschedx.core.plugins" in graph["kschedx.core.explain.front"]
