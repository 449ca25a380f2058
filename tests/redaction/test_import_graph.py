"""The modules of toolhost.redaction import one another one way: no circle among the imports
run when a module loads (an import inside a function runs at call time and is left out)."""

from __future__ import annotations

import ast
from pathlib import Path

import toolhost.redaction

PACKAGE = Path(toolhost.redaction.__file__).parent


def _load_time_imports(path: Path) -> set[str]:
    """The toolhost.redaction modules ``path`` imports at module level."""
    found: set[str] = set()
    for node in ast.parse(path.read_text()).body:
        if isinstance(node, ast.ImportFrom) and node.module:
            if node.module == "toolhost.redaction":
                found.update(alias.name for alias in node.names
                             if (PACKAGE / f"{alias.name}.py").exists())
            elif node.module.startswith("toolhost.redaction."):
                found.add(node.module.rsplit(".", 1)[1])
    return found


def test_no_import_circle() -> None:
    graph = {p.stem: _load_time_imports(p) for p in PACKAGE.glob("*.py")
             if p.stem != "__init__"}
    state: dict[str, int] = {}

    def visit(module: str, trail: list[str]) -> None:
        state[module] = 1
        for imported in sorted(graph.get(module, ())):
            assert state.get(imported) != 1, " -> ".join([*trail, module, imported])
            if imported not in state:
                visit(imported, [*trail, module])
        state[module] = 2

    for module in sorted(graph):
        if module not in state:
            visit(module, [])
