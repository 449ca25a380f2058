"""The team-repo modules of config/ and the lock's modules import one way: no module
imports one that imports it back, at the top or inside a function (``if TYPE_CHECKING:``
blocks do not run and are not counted)."""

from __future__ import annotations

import ast
from pathlib import Path

import toolhost

ROOT = Path(toolhost.__file__).parent
GROUP = sorted([*(path for path in ROOT.joinpath("lockfile").glob("*.py")
                  if path.name != "__init__.py"),  # the package's face: it re-exports
                *(ROOT / "config" / f"{name}.py" for name in
                  ("gitrepos", "gitclone", "gitcreds", "gitobjects", "repotree", "worktree"))])


def _name(path: Path) -> str:
    parts = path.relative_to(ROOT.parent).with_suffix("").parts
    return ".".join(parts[:-1] if parts[-1] == "__init__" else parts)


def _imports(path: Path) -> set[str]:
    """The toolhost modules ``path`` imports when it runs."""
    found: set[str] = set()

    def visit(node: ast.AST) -> None:
        if isinstance(node, ast.If) and "TYPE_CHECKING" in ast.unparse(node.test):
            for child in node.orelse:
                visit(child)
            return
        if isinstance(node, ast.Import):
            found.update(alias.name for alias in node.names)
        elif isinstance(node, ast.ImportFrom) and node.module and node.level == 0:
            found.add(node.module)
            found.update(f"{node.module}.{alias.name}" for alias in node.names)
        for child in ast.iter_child_nodes(node):
            visit(child)

    visit(ast.parse(path.read_text(encoding="utf-8")))
    return found


def test_no_import_circle() -> None:
    names = {_name(path): path for path in GROUP}
    graph = {name: sorted(n for n in _imports(path) if n in names and n != name)
             for name, path in names.items()}
    circles: list[list[str]] = []

    def walk(name: str, trail: list[str]) -> None:
        for nxt in graph[name]:
            if nxt in trail:
                circles.append([*trail[trail.index(nxt):], nxt])
            elif len(trail) < len(graph):
                walk(nxt, [*trail, nxt])

    for start in graph:
        walk(start, [start])
    assert circles == [], "\n".join(" -> ".join(c) for c in circles[:5])
