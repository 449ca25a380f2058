"""A number JSON cannot carry (NaN, Infinity, a float such as 1e400) in a structured result,
from any backend, is that tool's one-line error result naming where it is, never a JSON-RPC
internal error; JSON nested too deep to read is a one-line error too."""

from __future__ import annotations

import json
import math
import textwrap
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from tests.serve.stdio_peer import stdio_peer
from toolhost.compile.shaping import shape_result
from toolhost.results import ToolResult

from .test_command_backend import cmd
from .test_command_backend import run as run_command
from .test_http import api, http
from .test_http import run as run_http

Config = Callable[..., Any]

# the JSON text a command prints or a server answers -> where the error says the number is
TEXTS = {
    '{"a": NaN}': "NaN at a",
    '{"a": Infinity}': "Infinity at a",
    '{"a": -Infinity}': "-Infinity at a",
    '{"a": [1, {"b": NaN}]}': "NaN at a[1].b",
    "[1, 2, NaN]": "NaN at result[2]",
    "NaN": "NaN at result",
    '{"x": {"y": {"z": [0, 0, Infinity]}}}': "Infinity at x.y.z[2]",
}

# valid JSON numbers a float cannot hold: kept as their text, never read as Infinity (the
# whole result was an error saying "Infinity", a value the answer never held)
BIG = "9" * 400 + ".5"
HUGE = {
    '{"a": 1e400}': {"a": "1e400"},
    '{"a": -1E+400, "b": 2.5}': {"a": "-1E+400", "b": 2.5},
    f'[1, {BIG}]': {"result": [1, BIG]},
    f'{{"x": {{"y": [0, -{BIG}e3]}}}}': {"x": {"y": [0, f"-{BIG}e3"]}},
    '{"tiny": 1e-400}': {"tiny": 0.0},
}


def _expected(tool: str, where: str) -> str:
    return (f"Tool '{tool}' returned a result toolhost cannot pass on: a number JSON cannot "
            f"carry ({where}; return null or a string instead).")


@pytest.mark.anyio
@pytest.mark.parametrize(("text", "where"), list(TEXTS.items()))
async def test_a_commands_json_output(config: Config, text: str, where: str) -> None:
    cfg = config({"j": cmd(["printf", "%s", "{{ s }}"], options={"stdout": "json"})})
    result = await run_command(cfg, "j", {"s": text})
    assert result.is_error and result.structured is None
    assert result.text_content == _expected("j", where)


@pytest.mark.anyio
@pytest.mark.parametrize(("text", "where"), list(TEXTS.items()))
async def test_an_http_json_response(config: Config, server: Any, text: str,
                                     where: str) -> None:
    server.raw["doc"] = (text.encode(), {"Content-Type": "application/json"})
    result = await run_http(config({"get": http("raw/doc")}, defaults=api(server)), "get", {})
    assert result.is_error and result.text_content == _expected("get", where)


@pytest.mark.anyio
@pytest.mark.parametrize(("text", "kept"), list(HUGE.items()))
async def test_a_number_too_large_for_a_float_is_kept_as_its_text(
        config: Config, server: Any, text: str, kept: Any) -> None:
    server.raw["doc"] = (text.encode(), {"Content-Type": "application/json"})
    got = await run_http(config({"get": http("raw/doc")}, defaults=api(server)), "get", {})
    cfg = config({"j": cmd(["printf", "%s", "{{ s }}"], options={"stdout": "json"})})
    printed = await run_command(cfg, "j", {"s": text})
    for result in (got, printed):
        assert not result.is_error, result.text_content
        assert result.structured == kept
        assert json.loads(result.text_content) == (kept["result"] if text[0] == "[" else kept)


@pytest.mark.anyio
@pytest.mark.parametrize("opener", ["[", '{"a":'])
async def test_json_nested_too_deep_is_a_one_line_error(config: Config, server: Any,
                                                        opener: str) -> None:
    deep = opener * 100_000
    server.raw["deep"] = (deep.encode(), {"Content-Type": "application/json"})
    result = await run_http(config({"get": http("raw/deep")}, defaults=api(server)), "get", {})
    assert result.text_content == "The response is not valid JSON (it nests too deeply to be read)."
    script = f"import sys; sys.stdout.write({opener!r} * 100_000)"
    command = config({"j": cmd(["python3", "-c", script], options={"stdout": "json"})})
    out = await run_command(command, "j", {})
    first = out.text_content.splitlines()[0]
    assert out.is_error and first == ("The command's output is not valid JSON (it nests too "
                                      "deeply to be read):")


VALUES = {
    "nan": ('{"a": float("nan")}', "NaN at a"),
    "inf": ('{"a": [1, math.inf]}', "Infinity at a[1]"),
    "ninf": ('[{"k": -math.inf}]', "-Infinity at result[0].k"),
    "big": ('{"a": float("1e400")}', "Infinity at a"),
    "dataclass": ("P(x=math.nan)", "NaN at x"),
    "tuple": ('{"t": (1, math.nan)}', "NaN at t[1]"),
    "result": ('ToolResult(content=({"type": "text", "text": "x"},), '
               'structured={"a": {"b": math.nan}})', "NaN at a.b"),
}


def test_python_tools_in_process_and_in_workers_over_serve(tmp_path: Path) -> None:
    lines = ["import dataclasses, math", "from toolhost.results import ToolResult",
             "@dataclasses.dataclass", "class P:", "    x: float"]
    for name, (expr, _) in VALUES.items():
        lines += [f"def {name}() -> object:", f"    return {expr}",
                  f"async def a{name}() -> object:", f"    return {expr}"]
    lines += ["def ping() -> str:", "    return 'pong'"]
    (tmp_path / "nonfinite_tools.py").write_text("\n".join(lines) + "\n")
    tools = []
    for name in VALUES:
        for fn in (name, f"a{name}"):
            tools.append(f"      {fn}: {{python: 'nonfinite_tools:{fn}'}}")
            tools.append(f"      w{fn}: {{python: {{function: 'nonfinite_tools:{fn}', "
                         "isolation: process}}")
    config = tmp_path / "nonfinite.yaml"
    config.write_text(textwrap.dedent("""\
        toolhost: 1
        permissions: {default: allow}
        servers:
          p:
            tools:
              ping: {python: 'nonfinite_tools:ping'}
        """) + "\n".join(tools) + "\n")
    with stdio_peer(config) as peer:
        n = 0
        for name, (_, where) in VALUES.items():
            for tool in (name, f"a{name}", f"w{name}", f"wa{name}"):
                n += 1
                answer = peer.ask(n, "tools/call", {"name": tool, "arguments": {}}, timeout=60)
                assert "result" in answer, answer
                assert answer["result"]["isError"], answer
                assert answer["result"]["content"][0]["text"] == _expected(tool, where)
                pong = peer.ask(f"p{n}", "tools/call", {"name": "ping", "arguments": {}})
                assert pong["result"]["content"][0]["text"] == "pong"


JSON_VALUES = st.recursive(
    st.none() | st.booleans() | st.integers() | st.floats() | st.text(max_size=5),
    lambda inner: st.lists(inner, max_size=4) | st.dictionaries(st.text(max_size=3), inner,
                                                                max_size=4),
    max_leaves=20)


@settings(max_examples=300, deadline=None)
@given(st.dictionaries(st.text(max_size=3), JSON_VALUES, max_size=4))
def test_what_shaping_passes_on_is_always_json(value: dict[str, Any]) -> None:
    shaped = shape_result(ToolResult.json(value), tool="t", output="structured",
                          output_validator=None, max_chars=40_000)
    if shaped.structured is not None:
        json.dumps(shaped.structured, allow_nan=False)
    for block in shaped.content:
        json.dumps(dict(block), allow_nan=False)
    finite = all(not (isinstance(v, float) and not math.isfinite(v)) for v in _leaves(value))
    assert shaped.is_error != finite


def _leaves(value: Any) -> list[Any]:
    if isinstance(value, dict):
        return [leaf for v in value.values() for leaf in _leaves(v)]
    if isinstance(value, list):
        return [leaf for v in value for leaf in _leaves(v)]
    return [value]
