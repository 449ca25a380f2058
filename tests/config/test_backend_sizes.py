"""A size bound of a backend's options (a python tool's ``path:`` list, a plugin's maxLength)
is one located line saying the bound and the size, never the whole value."""

from __future__ import annotations

import subprocess
import sys
from collections.abc import Mapping
from pathlib import Path
from typing import Any

import pytest

from toolhost.config import load_config
from toolhost.errors import ConfigError


def _python_tool_with_path(tmp_path: Path, entries: int) -> Path:
    listed = ", ".join(f"p{i}" for i in range(entries))
    config = tmp_path / "tools.yaml"
    config.write_text("toolhost: 1\nservers:\n  s:\n    tools:\n"
                      f"      t: {{python: {{function: 'toolhost.demo:add', path: [{listed}]}}}}\n")
    return config


def _problems(config: Path) -> list[str]:
    with pytest.raises(ConfigError) as caught:
        load_config(config, layers=False)
    return [str(p) for p in caught.value.problems]


@pytest.mark.parametrize("entries", [101, 100_000])
def test_a_python_path_list_past_100_entries_is_one_located_line(tmp_path: Path,
                                                                 entries: int) -> None:
    """Each entry goes on sys.path, and every later import of a module not yet loaded looks
    in each: 100,000 of them held validate past two minutes."""
    config = _python_tool_with_path(tmp_path, entries)
    (problem,) = _problems(config)
    assert problem == (f"{config}:5:51: servers.s.tools.t.python.path: expected a list of at "
                       f"most 100 entries, got {entries:,}")


def test_100_path_entries_load(tmp_path: Path) -> None:
    config = load_config(_python_tool_with_path(tmp_path, 100), layers=False)
    assert len(config.servers["s"].tools["t"].backend.options["path"]) == 100


def test_validate_of_100000_path_entries_says_one_line(tmp_path: Path) -> None:
    config = _python_tool_with_path(tmp_path, 100_000)
    proc = subprocess.run([sys.executable, "-m", "toolhost", "validate", "--no-layers",
                           str(config)], capture_output=True, text=True, timeout=120,
                          check=False)
    assert proc.returncode == 1
    assert proc.stderr.splitlines() == [f"{config}:5:51: servers.s.tools.t.python.path: "
                                        "expected a list of at most 100 entries, got 100,000"]


@pytest.mark.parametrize(("schema", "value", "said"), [
    ({"type": "string", "maxLength": 5}, "'abcdefgh'", "a string of at most 5 characters, got 8"),
    ({"type": "string", "minLength": 3}, "'ab'", "a string of at least 3 characters, got 2"),
    ({"type": "object", "maxProperties": 1}, "{a: 1, b: 2}",
     "a mapping of at most 1 keys, got 2"),
    ({"type": "array", "maxItems": 2}, "[1, 2, 3]", "a list of at most 2 entries, got 3"),
])
def test_a_plugin_options_size_bound_is_said_in_words(tmp_path: Path, schema: dict[str, object],
                                                      value: str, said: str) -> None:
    from toolhost.backends.base import Binding

    class Sized:
        name: str = "sized"
        shorthand: str | None = None
        options_schema: Mapping[str, Any] = {"type": "object", "properties": {"x": schema}}

        def bind(self, tool: object, ctx: object) -> Binding:  # pragma: no cover
            raise NotImplementedError

    config = tmp_path / "tools.yaml"
    config.write_text(f"toolhost: 1\nservers:\n  s:\n    tools:\n      t:\n"
                      f"        sized: {{x: {value}}}\n")
    with pytest.raises(ConfigError) as caught:
        load_config(config, layers=False, kinds={"sized": Sized()})
    (problem,) = [str(p) for p in caught.value.problems]
    assert problem == f"{config}:6:17: servers.s.tools.t.sized.x: expected {said}"
