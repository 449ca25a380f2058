"""Small backend kinds for the loader's tests, so they do not depend on the real backends."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import pytest

from toolhost.backends.base import BindContext, Binding
from toolhost.config.model import ToolConfig

CASES = Path(__file__).parent / "cases"


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
