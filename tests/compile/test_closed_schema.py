"""A python tool's whole input_schema decides what reaches the function: a property the
schema does not declare is refused (JSON Schema would admit it, and it would reach a parameter
the config left out), unless the function takes ``**kwargs``."""

from __future__ import annotations

import json
import textwrap
from pathlib import Path
from typing import Any

import anyio
import pytest

from toolhost.backends.base import CallContext
from toolhost.compile import compile_tools
from toolhost.config import load_config
from toolhost.errors import ConfigError

MODULE = """\
from typing import Any
def search(q: str, include_private: bool = False, limit: int = 10) -> str:
    return f"q={q!r} include_private={include_private!r} limit={limit!r}"
def loose(q: str, **extra: int) -> str:
    return f"q={q!r} extra={sorted(extra)!r}"
"""


def _tool(tmp_path: Path, function: str, schema: dict[str, Any]) -> Any:
    module = f"hid_{abs(hash(str(tmp_path)))}"
    (tmp_path / f"{module}.py").write_text(MODULE)
    config = tmp_path / "c.yaml"
    config.write_text(textwrap.dedent(f"""\
        toolhost: 1
        servers:
          p:
            tools:
              t:
                python: "{module}:{function}"
                input_schema: {json.dumps(schema)}
        """))
    return compile_tools(load_config(config, layers=False))


def _call(compiled: Any, arguments: dict[str, Any]) -> str:
    async def go() -> str:
        result = await compiled.tool("p", "t").call(arguments, CallContext())
        return result.text_content
    return anyio.run(go)


Q = {"type": "object", "properties": {"q": {"type": "string"}}, "required": ["q"]}
SCHEMAS = [
    Q,
    {**Q, "$defs": {"s": {"type": "string"}}, "properties": {"q": {"$ref": "#/$defs/s"}}},
    {"type": "object", "allOf": [Q]},
    {"type": "object", "$ref": "#/$defs/in", "$defs": {"in": Q}},
    {**Q, "additionalProperties": False},
    {**Q, "unevaluatedProperties": False},
]
EXTRAS = [{"include_private": True}, {"limit": 100000}, {"include_private": "yes"},
          {"other": 1}, {"include_private": True, "limit": 1}]


@pytest.mark.parametrize("schema", SCHEMAS)
@pytest.mark.parametrize("extra", EXTRAS)
def test_an_undeclared_argument_never_reaches_the_function(tmp_path: Path,
                                                           schema: dict[str, Any],
                                                           extra: dict[str, Any]) -> None:
    compiled = _tool(tmp_path, "search", schema)
    text = _call(compiled, {"q": "x", **extra})
    assert text.startswith("Invalid arguments for tool 't'"), text
    assert "not allowed" in text
    assert _call(compiled, {"q": "x"}) == "q='x' include_private=False limit=10"
    anyio.run(compiled.aclose)


@pytest.mark.parametrize("extra", [True, {}, {"type": "boolean"}])
@pytest.mark.parametrize("key", ["additionalProperties", "unevaluatedProperties"])
def test_a_schema_that_opens_the_hidden_parameters_is_a_load_error(
        tmp_path: Path, key: str, extra: Any) -> None:
    with pytest.raises(ConfigError) as caught:
        _tool(tmp_path, "search", {**Q, key: extra})
    (problem,) = caught.value.problems
    assert "servers.p.tools.t.input_schema" in str(problem)
    assert "'include_private', 'limit'" in str(problem)


def test_a_function_with_kwargs_takes_what_the_schema_admits(tmp_path: Path) -> None:
    compiled = _tool(tmp_path, "loose", Q)
    assert _call(compiled, {"q": "x", "a": 1}) == "q='x' extra=['a']"
    assert "additionalProperties" not in compiled.tool("p", "t").input_schema
    anyio.run(compiled.aclose)
