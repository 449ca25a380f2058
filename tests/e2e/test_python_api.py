"""``load_host`` + ``run_host`` from Python, with the real CLI and the scripted model."""

from __future__ import annotations

import io
from collections.abc import Callable
from pathlib import Path

import anyio
import pytest

from toolhost.host import load_host
from toolhost.runner import RunReport, TextRenderer, run_host
from toolhost.scripted import load_scenario

from .conftest import CONFIG, read_log

pytestmark = pytest.mark.e2e


def play(cli: str, script: Path) -> tuple[RunReport, str]:
    out = io.StringIO()

    async def main() -> RunReport:
        host = load_host(CONFIG)
        try:
            return await run_host(host, ["go"], cli=cli, scenario=load_scenario(script),
                                  renderer=TextRenderer(out, io.StringIO(), color=False))
        finally:
            await host.aclose()

    return anyio.run(main), out.getvalue()


def test_allowed_call_through_the_python_api(
        cli: str, tool_log: Path, scenario: Callable[[str], Path]) -> None:
    report, out = play(cli, scenario("""\
turns:
  - tool_calls:
      - {tool: mcp__e2e__write_note, input: {name: api, text: "ü ∑ \\"q\\""}}
  - expect_results:
      - {equals: "saved api: ü ∑ \\"q\\""}
    text: ok
"""))
    assert report.ok, (report.problems, report.stderr)
    assert read_log(tool_log) == [{"tool": "write_note", "name": "api", "text": 'ü ∑ "q"'}]
    assert [r["subtype"] for r in report.results] == ["success"]
    assert '→ #1 mcp__e2e__write_note(name="api", text="ü ∑ \\"q\\"")' in out


def test_two_read_only_tools_run_concurrently(
        cli: str, tool_log: Path, scenario: Callable[[str], Path]) -> None:
    report, _ = play(cli, scenario("""\
turns:
  - tool_calls:
      - {tool: mcp__e2e__look}
      - {tool: mcp__e2e__peek}
  - expect_results:
      - {equals: look saw peek}
      - {equals: peek saw look}
    text: both done
"""))
    assert report.ok, (report.problems, report.stderr)
    times = {(e["tool"], e["event"]): e["t"] for e in read_log(tool_log)}
    # Each started before the other ended: the two calls overlapped.
    assert times["look", "start"] < times["peek", "end"]
    assert times["peek", "start"] < times["look", "end"]


def test_failing_tool_reaches_the_model_as_an_error(
        cli: str, tool_log: Path, scenario: Callable[[str], Path]) -> None:
    report, out = play(cli, scenario("""\
turns:
  - tool_calls:
      - {tool: mcp__e2e__explode, input: {reason: kaboom}}
  - expect_results:
      - {is_error: true, contains: kaboom}
    text: it failed
"""))
    assert report.ok, (report.problems, report.stderr)
    assert read_log(tool_log) == [{"tool": "explode", "reason": "kaboom"}]
    assert "✗" in out and "kaboom" in out


def test_rule_rewrites_the_input_the_backend_receives(
        cli: str, tool_log: Path, scenario: Callable[[str], Path]) -> None:
    report, out = play(cli, scenario("""\
turns:
  - tool_calls:
      - {tool: mcp__e2e__write_note, input: {name: prod, text: deploy}}
  - expect_results:
      - {equals: "saved sandbox: deploy"}
    text: saved in the sandbox
"""))
    assert report.ok, (report.problems, report.stderr)
    assert read_log(tool_log) == [{"tool": "write_note", "name": "sandbox", "text": "deploy"}]
    assert "(input rewritten)" in out
