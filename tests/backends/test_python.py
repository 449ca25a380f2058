from __future__ import annotations

import base64
import json
import logging
import sys
import textwrap
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import anyio
import pytest

from toolhost.backends.base import CallContext
from toolhost.compile import compile_tools
from toolhost.config.model import HostConfig
from toolhost.errors import CompileError

Config = Callable[..., HostConfig]


@pytest.fixture
def usermod(tmp_path: Path, png: bytes) -> Iterator[str]:
    """A real importable module of tool functions, written for the test."""
    source = textwrap.dedent('''
        from __future__ import annotations
        import dataclasses, enum, threading
        from toolhost.results import ToolResult

        class Mode(enum.Enum):
            UP = "up"
            DOWN = "down"

        @dataclasses.dataclass
        class Item:
            name: str
            qty: int = 1

        def shout(text: str, mode: Mode = Mode.UP) -> str:
            """Change the case of a text."""
            return text.upper() if mode is Mode.UP else text.lower()

        def total(items: list[Item]) -> dict[str, int]:
            return {"total": sum(i.qty for i in items), "kinds": len(items)}

        def listing(n: int) -> list[int]:
            return list(range(n))

        def nothing() -> None:
            return None

        def image() -> bytes:
            return IMAGE

        def custom() -> ToolResult:
            return ToolResult(content=({"type": "text", "text": "custom"},), is_error=True)

        def thread_name() -> str:
            return threading.current_thread().name

        def boom(n: int) -> str:
            raise ValueError(f"n must be even, got {n}")

        import pydantic

        class Order(pydantic.BaseModel):
            sku: str
            qty: int = 1

        def reorder(order: Order, times: int = 2) -> Order:
            return Order(sku=order.sku, qty=order.qty * times)

        class Greeter:
            def hello(self, who: str) -> str:
                return "hello " + who

        greeter = Greeter()

        def posonly(a: int, /) -> int:
            return a
        IMAGE = b""
    ''')
    name = f"th_usermod_{abs(hash(tmp_path)) % 10**8}"
    (tmp_path / f"{name}.py").write_text(source)
    sys.path.insert(0, str(tmp_path))
    try:
        module = __import__(name)
        module.IMAGE = png
        yield name
    finally:
        sys.path.remove(str(tmp_path))
        sys.modules.pop(name, None)


def py(ref: str, **extra: Any) -> dict[str, Any]:
    return {"kind": "python", "options": {"function": ref}, **extra}


async def call(config: HostConfig, tool: str, args: dict[str, Any]) -> dict[str, Any]:
    compiled = compile_tools(config)
    try:
        result = await compiled.tool("demo", tool).call(args, CallContext(tool=tool))
        return result.to_mcp()
    finally:
        await compiled.aclose()


@pytest.mark.anyio
async def test_demo_add_and_schema(config: Config) -> None:
    cfg = config({"add": py("toolhost.demo:add")})
    compiled = compile_tools(cfg)
    tool = compiled.tool("demo", "add")
    assert tool.description == "Add two numbers."
    assert tool.input_schema["required"] == ["a", "b"]
    result = await tool.call({"a": 2, "b": 3.5}, CallContext())
    assert result.to_mcp() == {"content": [{"type": "text", "text": "5.5"}], "isError": False}
    await compiled.aclose()


@pytest.mark.anyio
async def test_return_value_mapping(config: Config, usermod: str, png: bytes) -> None:
    cfg = config({name: py(f"{usermod}:{name}") for name in
                  ("shout", "total", "listing", "nothing", "image", "custom")}
                 | {"hello": py(f"{usermod}:greeter.hello")})
    assert (await call(cfg, "shout", {"text": "Hi", "mode": "down"}))["content"][0]["text"] == "hi"
    total = await call(cfg, "total", {"items": [{"name": "a", "qty": 2}, {"name": "b"}]})
    assert total["structuredContent"] == {"total": 3, "kinds": 2}
    assert json.loads(total["content"][0]["text"]) == {"total": 3, "kinds": 2}
    listing = await call(cfg, "listing", {"n": 3})
    assert listing["structuredContent"] == {"result": [0, 1, 2]}
    assert (await call(cfg, "nothing", {}))["content"] == [{"type": "text", "text": ""}]
    image = await call(cfg, "image", {})
    assert image["content"][0]["type"] == "image"
    assert image["content"][0]["mimeType"] == "image/png"
    assert base64.b64decode(image["content"][0]["data"]) == png
    assert await call(cfg, "custom", {}) == {"content": [{"type": "text", "text": "custom"}],
                                            "isError": True}
    hello = await call(cfg, "hello", {"who": "you"})
    assert hello["content"][0]["text"] == "hello you"


@pytest.mark.anyio
async def test_pydantic_models_in_and_out(config: Config, usermod: str) -> None:
    cfg = config({"reorder": py(f"{usermod}:reorder")})
    tool = compile_tools(cfg).tool("demo", "reorder")
    assert tool.input_schema["properties"]["order"]["required"] == ["sku"]
    assert tool.output_schema is not None and tool.output_schema["title"] == "Order"
    result = await tool.call({"order": {"sku": "A"}, "times": 3}, CallContext())
    assert result.structured == {"sku": "A", "qty": 3}
    bad = await tool.call({"order": {"qty": 1}}, CallContext())
    assert bad.is_error and "order: 'sku' is a required property" in bad.text_content
    missing = await tool.call({}, CallContext())
    assert missing.text_content == ("Invalid arguments for tool 'reorder': "
                                    "'order' is a required property")


@pytest.mark.anyio
async def test_sync_runs_in_worker_thread(config: Config, usermod: str) -> None:
    cfg = config({"thread_name": py(f"{usermod}:thread_name")})
    result = await call(cfg, "thread_name", {})
    assert result["content"][0]["text"] != "MainThread"


@pytest.mark.anyio
async def test_exception_is_error_without_traceback(config: Config, usermod: str,
                                                    caplog: pytest.LogCaptureFixture,
                                                    monkeypatch: pytest.MonkeyPatch) -> None:
    cfg = config({"boom": py(f"{usermod}:boom")})
    monkeypatch.delenv("TOOLHOST_DEBUG", raising=False)
    with caplog.at_level(logging.ERROR, logger="toolhost.call"):
        result = await call(cfg, "boom", {"n": 3})
    assert result == {"content": [{"type": "text", "text":
                                   "Tool 'boom' failed: ValueError: n must be even, got 3"}],
                      "isError": True}
    # One line in the log, the traceback only when asked for (TOOLHOST_DEBUG=1).
    assert "ValueError: n must be even" in caplog.text and "Traceback" not in caplog.text
    caplog.clear()
    monkeypatch.setenv("TOOLHOST_DEBUG", "1")
    with caplog.at_level(logging.ERROR, logger="toolhost.call"):
        await call(cfg, "boom", {"n": 3})
    assert "Traceback" in caplog.text


@pytest.mark.anyio
async def test_invalid_arguments_never_reach_the_function(config: Config, usermod: str) -> None:
    cfg = config({"boom": py(f"{usermod}:boom")})
    result = await call(cfg, "boom", {"n": "three", "extra": 1})
    assert result["isError"] is True
    text = result["content"][0]["text"]
    assert "n: 'three' is not of type 'integer'" in text
    assert "'extra' was unexpected" in text


@pytest.mark.anyio
async def test_async_tool_reports_progress_and_times_out(config: Config) -> None:
    cfg = config({"slow": py("toolhost.demo:slow_count"),
                  "slower": py("toolhost.demo:slow_count", timeout=0.1)})
    seen: list[tuple[float, float | None, str | None]] = []

    async def progress(done: float, total: float | None, message: str | None) -> None:
        seen.append((done, total, message))

    compiled = compile_tools(cfg)
    result = await compiled.tool("demo", "slow").call({"to": 2, "delay": 0.01},
                                                      CallContext(progress=progress))
    assert result.text_content == "1 2"
    assert seen == [(1, 2, "counted 1"), (2, 2, "counted 2")]
    late = await compiled.tool("demo", "slower").call({"to": 5, "delay": 1}, CallContext())
    assert late.is_error and "timed out after 0.1s" in late.text_content
    await compiled.aclose()


def test_import_errors_are_compile_errors_with_lines(config: Config) -> None:
    cfg = config({"a": py("no_such_module_xyz:f"), "b": py("toolhost.demo:nope"),
                  "c": py("toolhost.demo:add")})
    with pytest.raises(CompileError) as info:
        compile_tools(cfg)
    problems = info.value.problems
    assert len(problems) == 2
    assert problems[0].file == "test.yaml" and problems[0].line == 4
    assert problems[0].key_path == "servers.demo.tools.a.python"
    assert "cannot import module 'no_such_module_xyz'" in problems[0].message
    assert "'toolhost.demo' has no attribute 'nope'" in problems[1].message


def test_config_params_override_generated(config: Config) -> None:
    cfg = config({"add": py("toolhost.demo:add", description="Sum",
                            params={"a": {"type": "integer", "minimum": 0,
                                          "description": "Left"}},
                            required=("a",))})
    tool = compile_tools(cfg).tool("demo", "add")
    assert tool.description == "Sum"
    assert tool.input_schema["properties"]["a"] == {"type": "integer", "minimum": 0,
                                                    "description": "Left"}
    assert tool.input_schema["properties"]["b"]["type"] == "number"
    assert tool.input_schema["required"] == ["a", "b"]
    assert tool.argument_errors({"a": -1, "b": 1}) == ["a: -1 is less than the minimum of 0"]


def test_unusable_signatures_are_compile_errors(config: Config, usermod: str) -> None:
    # math.hypot has no signature on 3.11-3.13 (time.sleep has one since 3.13)
    cfg = config({"posonly": py(f"{usermod}:posonly"), "builtin": py("math:hypot")})
    with pytest.raises(CompileError) as info:
        compile_tools(cfg)
    first, second = info.value.problems
    assert "parameter 'a' is positional-only" in first.message
    assert "no signature found" in second.message and second.hint


def test_runs_without_running_loop(config: Config) -> None:
    cfg = config({"add": py("toolhost.demo:add")})

    async def main() -> str:
        async with compile_tools(cfg) as compiled:
            res = await compiled.tool("demo", "add").call({"a": 1, "b": 1}, CallContext())
            return res.text_content

    assert anyio.run(main) == "2"
