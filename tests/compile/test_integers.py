"""An integral float where the schema says integer reaches no backend as a float: it is the
integer the JSON text wrote (1e16 is 10**16, 1e300 is 10**300), as the argv rendering reads
it."""

from __future__ import annotations

import json
import textwrap
from collections.abc import Iterator
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from threading import Thread
from typing import Any

import anyio
import pytest
from hypothesis import given
from hypothesis import strategies as st

from toolhost.backends.base import CallContext
from toolhost.backends.templating import number_text
from toolhost.compile import compile_tools
from toolhost.compile.integers import EXACT, integer_normalizer
from toolhost.config import load_config

MODULE = """\
import dataclasses
from typing import Annotated, Optional
@dataclasses.dataclass
class DC:
    a: int
def num(n: int, m: Annotated[int, "x"] = 3, o: Optional[int] = None) -> str:
    return repr((type(n).__name__, n, type(m).__name__, m, type(o).__name__))
def dc(o: DC) -> str:
    return repr(o)
def lst(xs: list[int], t: tuple[int, str], d: dict[str, int]) -> str:
    return repr((xs, t, d))
"""


@pytest.fixture
def compiled(tmp_path: Path) -> Iterator[Any]:
    module = f"ints_{abs(hash(str(tmp_path)))}"
    (tmp_path / f"{module}.py").write_text(MODULE)
    config = tmp_path / "c.yaml"
    config.write_text(textwrap.dedent(f"""\
        toolhost: 1
        servers:
          p:
            tools:
              num: {{python: "{module}:num"}}
              dc: {{python: "{module}:dc"}}
              lst: {{python: "{module}:lst"}}
        """))
    tools = compile_tools(load_config(config, layers=False))
    yield tools
    anyio.run(tools.aclose)


def _call(compiled: Any, tool: str, arguments: dict[str, Any]) -> str:
    async def go() -> str:
        return (await compiled.tool("p", tool).call(arguments, CallContext())).text_content
    return anyio.run(go)


@pytest.mark.parametrize(("tool", "arguments", "expected"), [
    ("num", {"n": 2.0, "m": 1e15, "o": -0.0}, "('int', 2, 'int', 1000000000000000, 'int')"),
    ("num", {"n": -3.0}, "('int', -3, 'int', 3, 'NoneType')"),
    ("num", {"n": float(EXACT - 1)}, f"('int', {EXACT - 1}, 'int', 3, 'NoneType')"),
    ("dc", {"o": {"a": 1.0}}, "DC(a=1)"),
    ("lst", {"xs": [1.0, 2], "t": [1.0, "a"], "d": {"k": 5.0}}, "([1, 2], (1, 'a'), {'k': 5})"),
])
def test_integral_floats_arrive_as_ints(compiled: Any, tool: str, arguments: dict[str, Any],
                                        expected: str) -> None:
    assert _call(compiled, tool, arguments) == expected


@pytest.mark.parametrize(("tool", "arguments", "expected"), [
    ("num", {"n": 1e300}, f"('int', {10 ** 300}, 'int', 3, 'NoneType')"),
    ("num", {"n": 1, "m": -1e20}, f"('int', 1, 'int', {-10 ** 20}, 'NoneType')"),
    ("num", {"n": float(EXACT)}, f"('int', {EXACT}, 'int', 3, 'NoneType')"),
    ("dc", {"o": {"a": 1e16}}, f"DC(a={10 ** 16})"),
    ("lst", {"xs": [1, 1e20], "t": [1e17, "a"], "d": {}},
     f"([1, {10 ** 20}], ({10 ** 17}, 'a'), {{}})"),
])
def test_large_integral_floats_are_the_integer_written(compiled: Any, tool: str,
                                                       arguments: dict[str, Any],
                                                       expected: str) -> None:
    assert _call(compiled, tool, arguments) == expected


@pytest.mark.parametrize("value", [2.5, float("inf"), float("nan"), -1e-3])
def test_a_float_that_is_no_integer_is_refused_by_validation(compiled: Any,
                                                             value: float) -> None:
    assert _call(compiled, "num", {"n": value}).startswith("Invalid arguments for tool 'num'")


@given(st.floats(allow_nan=False, allow_infinity=False).filter(float.is_integer))
def test_every_integral_float_is_the_int_its_shortest_text_says(value: float) -> None:
    normalize = integer_normalizer({"type": "object", "properties": {"n": {"type": "integer"}}})
    out = normalize({"n": value})["n"]
    assert type(out) is int and float(out) == value
    assert str(out) == number_text(value)  # the same integer the argv would carry


def test_without_an_integer_in_the_schema_the_arguments_are_untouched() -> None:
    normalize = integer_normalizer({"type": "object", "properties": {"x": {"type": "number"},
                                                                     "y": {}}})
    arguments = {"x": 2.0, "y": [1.0]}
    assert normalize(arguments) is arguments
    plain = {"x": 1, "y": "s"}
    assert integer_normalizer({"type": "integer"})(plain) is plain


class _Echo(BaseHTTPRequestHandler):
    def do_POST(self) -> None:
        body = self.rfile.read(int(self.headers["Content-Length"]))
        self.send_response(200)
        self.send_header("Content-Type", "text/plain")
        self.end_headers()
        self.wfile.write(body)

    def log_message(self, *args: Any) -> None:
        pass


def test_an_http_json_body_carries_integers(tmp_path: Path) -> None:
    server = ThreadingHTTPServer(("127.0.0.1", 0), _Echo)
    Thread(target=server.serve_forever, args=(0.05,), daemon=True).start()
    try:
        config = tmp_path / "h.yaml"
        config.write_text(textwrap.dedent(f"""\
            toolhost: 1
            servers:
              h:
                base_url: http://127.0.0.1:{server.server_address[1]}/
                tools:
                  j:
                    http:
                      method: POST
                      url: j
                      json: {{count: "{{{{ n }}}}", ids: "{{{{ ids }}}}"}}
                    params:
                      n: {{type: integer}}
                      ids: {{type: array, items: {{type: integer}}}}
            """))
        tools = compile_tools(load_config(config, layers=False))
        async def go() -> str:
            tool = tools.tool("h", "j")
            return (await tool.call({"n": 2.0, "ids": [1.0, 1e15]}, CallContext())).text_content
        text = anyio.run(go)
        assert json.loads(text) == {"count": 2, "ids": [1, 1000000000000000]}
        assert "2.0" not in text and "e+" not in text
        anyio.run(tools.aclose)
    finally:
        server.shutdown()
        server.server_close()
