"""Small backend kinds for the loader's tests, so they do not depend on the real backends."""

from __future__ import annotations

from collections.abc import Iterator, Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import pytest

from toolhost.backends.base import BindContext, Binding
from toolhost.config.model import ToolConfig
from toolhost.config.removetree import remove_tree

CASES = Path(__file__).parent / "cases"


@pytest.fixture
def deep_tmp_path(tmp_path: Path) -> Iterator[Path]:
    """``tmp_path`` for a test that nests directories deeper than Python's recursion limit:
    removed at teardown by ``remove_tree``. Left behind, pytest's own clean-up of old temporary
    directories (``shutil.rmtree`` at exit of a later session) recursed once per level and
    ended the whole run with a RecursionError after every test had passed."""
    yield tmp_path
    for item in list(tmp_path.iterdir()):
        remove_tree(item)


@dataclass
class FakeKind:
    name: str
    shorthand: str | None
    options_schema: Mapping[str, Any] = field(default_factory=dict)

    def bind(self, tool: ToolConfig, ctx: BindContext) -> Binding:
        raise NotImplementedError("the loader never binds")


TEST_KINDS: dict[str, Any] = {
    "python": FakeKind("python", "function", {
        "type": "object", "required": ["function"], "additionalProperties": False,
        "properties": {"function": {"type": "string", "pattern": r"^[\w.]+:[\w.]+$"},
                       "path": {"type": "string"}}}),
    "command": FakeKind("command", "argv", {
        "type": "object", "required": ["argv"], "additionalProperties": False,
        "properties": {"argv": {"type": "array", "items": {"type": "string"}, "minItems": 1},
                       "cwd": {"type": "string"}, "env": {"type": "object"},
                       "stdin": {"type": "string"}}}),
    "http": FakeKind("http", None, {
        "type": "object", "required": ["url"], "additionalProperties": False,
        "properties": {"method": {"enum": ["GET", "POST", "PUT", "DELETE"]},
                       "url": {"type": "string"}, "query": {"type": "object"},
                       "headers": {"type": "object", "additionalProperties": {"type": "string"}},
                       "json": {}}}),
}


@pytest.fixture
def kinds() -> dict[str, Any]:
    return TEST_KINDS


@pytest.fixture
def write(tmp_path: Path):  # type: ignore[no-untyped-def]
    """write("name.yaml", text) -> path of a file in a fresh temp dir."""
    def _write(name: str, text: str) -> Path:
        path = tmp_path / name
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(text, encoding="utf-8")
        return path
    return _write
