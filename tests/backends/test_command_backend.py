from __future__ import annotations

import dataclasses
import json
import os
import sys
from collections.abc import Callable
from pathlib import Path
from typing import Any

import anyio
import pytest

from toolhost.backends.base import CallContext
from toolhost.compile import compile_tools
from toolhost.config.model import HostConfig, ServerDefaults
from toolhost.errors import CompileError
from toolhost.results import ToolResult

Config = Callable[..., HostConfig]
PY = sys.executable
ARGV_JSON = "import json, sys; print(json.dumps(sys.argv[1:]))"


def cmd(argv: list[Any], **extra: Any) -> dict[str, Any]:
    options = {"argv": argv, **extra.pop("options", {})}
    return {"kind": "command", "options": options, **extra}


async def run(cfg: HostConfig, tool: str, args: dict[str, Any]) -> ToolResult:
    compiled = compile_tools(cfg)
    try:
        return await compiled.tool("demo", tool).call(args, CallContext())
    finally:
        await compiled.aclose()


def every_slot(config: Config) -> HostConfig:
    """Tools that put a value in each kind of argv slot: alone after an option, glued to
    text, as a list's items, and in an ``each`` group (what an option check must cover)."""
    return config({"t": cmd([PY, "-c", ARGV_JSON, "-n", "{{ a }}"]),
                   "glued": cmd([PY, "-c", ARGV_JSON, "{{ a }}.txt"]),
                   "list": cmd([PY, "-c", ARGV_JSON, "{{ files }}"],
                               params={"files": {"type": "array", "items": {"type": "string"}}},
                               required=("files",)),
                   "each": cmd([PY, "-c", ARGV_JSON, {"each": "p", "argv": ["{{ item }}"]}],
                               params={"p": {"type": "array", "items": {"type": "string"}}},
                               required=("p",))})


def every_slot_call(value: str) -> tuple[tuple[str, dict[str, Any]], ...]:
    """A call of each of ``every_slot``'s tools with ``value`` in its slot."""
    return (("t", {"a": value}), ("glued", {"a": value}),
            ("list", {"files": ["ok", value]}), ("each", {"p": [value]}))


def pid_alive(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    # a zombie still answers kill(0); look at its state
    stat = Path(f"/proc/{pid}/stat")
    return not (stat.exists() and stat.read_text().split(") ")[1].startswith("Z"))


async def gone(pid: int) -> bool:
    """Whether ``pid`` has exited, allowing it a few seconds to."""
    for _ in range(50):
        if not pid_alive(pid):
            return True
        await anyio.sleep(0.05)
    return not pid_alive(pid)


@pytest.mark.anyio
async def test_printf_exact_and_generated_schema(config: Config) -> None:
    cfg = config({"fmt": cmd(["printf", "%s|%s", "{{ a }}", "{{ b }}"])})
    tool = compile_tools(cfg).tool("demo", "fmt")
    assert tool.input_schema == {"type": "object", "additionalProperties": False,
                                 "required": ["a", "b"],
                                 "properties": {"a": {"type": "string"}, "b": {"type": "string"}}}
    result = await run(cfg, "fmt", {"a": "x y", "b": ""})
    assert result.to_mcp() == {"content": [{"type": "text", "text": "x y|"}], "isError": False}


@pytest.mark.anyio
@pytest.mark.parametrize("value", [
    "; rm -rf /", "$(touch {marker})", "`touch {marker}`", "a && touch {marker}",
    "{{{{ 7*7 }}}}", "{{{{ ''.__class__.__mro__ }}}}", "{{% for x in range(3) %}}x{{% endfor %}}",
    "| cat /etc/passwd", "'\"\\n\x01", "--help",
])
async def test_injection_arrives_as_plain_data(config: Config, tmp_path: Path,
                                               value: str) -> None:
    marker = tmp_path / "pwned"
    value = value.format(marker=marker)
    cfg = config({"echo": cmd([PY, "-c", ARGV_JSON, "--", "{{ text }}", "x{{ text }}"])})
    result = await run(cfg, "echo", {"text": value})
    assert not result.is_error, result
    assert json.loads(result.text_content) == ["--", value, "x" + value]
    assert not marker.exists()


@pytest.mark.anyio
async def test_optional_flags_lists_and_each_groups(config: Config) -> None:
    cfg = config({"t": cmd(
        [PY, "-c", ARGV_JSON, "{% if verbose %}--verbose{% endif %}", "-n", "{{ count }}",
         {"each": "patterns", "argv": ["-e", "{{ item }}"]}, "{{ files }}",
         {"if": "note", "argv": ["--note", "{{ note }}"]}],
        params={"verbose": {"type": "boolean", "default": False},
                "count": {"type": "integer", "default": 10},
                "patterns": {"type": "array", "items": {"type": "string"}, "default": []},
                "files": {"type": "array", "items": {"type": "string"}},
                "note": {"type": "string"}},
        required=("files",))})
    plain = await run(cfg, "t", {"files": ["a b", "c"]})
    assert json.loads(plain.text_content) == ["-n", "10", "a b", "c"]
    full = await run(cfg, "t", {"files": ["", "d"], "verbose": True, "count": 3,
                                "patterns": ["x", "y"], "note": ""})
    # a given empty value and empty list items stay arguments: nothing after them shifts
    assert json.loads(full.text_content) == ["--verbose", "-n", "3", "-e", "x", "-e", "y",
                                             "", "d", "--note", ""]


@pytest.mark.anyio
async def test_stdin_env_and_cwd(config: Config, tmp_path: Path,
                                 monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("TOOLHOST_TEST_LEAK", "leaked")
    script = ("import os, sys; print(sys.stdin.read().upper(), os.getcwd(), "
              "os.environ.get('GREETING'), os.environ.get('TEAM'), "
              "os.environ.get('TOOLHOST_TEST_LEAK'), 'PATH' in os.environ)")
    cfg = config({"t": cmd([PY, "-c", script],
                           options={"stdin": "hello {{ who }}", "env": {"GREETING": "hi {{ who }}"},
                                    "cwd": str(tmp_path)})},
                 defaults=ServerDefaults(env={"TEAM": "core"}))
    result = await run(cfg, "t", {"who": "$(whoami)"})
    assert result.text_content == f"HELLO $(WHOAMI) {tmp_path} hi $(whoami) core None True\n"


@pytest.mark.anyio
async def test_exit_code_is_error_with_stderr_tail(config: Config) -> None:
    cfg = config({"t": cmd([PY, "-c", "import sys; print('out'); sys.stderr.write('bad "
                            "thing\\n' * 3); sys.exit(3)"]),
                  "grep": cmd(["grep", "-c", "zzz"], options={"stdin": "abc\n",
                                                               "ok_codes": [0, 1]})})
    result = await run(cfg, "t", {})
    assert result.is_error
    assert result.text_content == "The command exited with code 3.\nstderr:\n" + \
        "bad thing\nbad thing\nbad thing"
    grep = await run(cfg, "grep", {})
    assert not grep.is_error and grep.text_content == "0\n"


@pytest.mark.anyio
async def test_stdout_json_and_lines(config: Config) -> None:
    cfg = config({"j": cmd(["printf", '{"n": %s}', "{{ n }}"], options={"stdout": "json"}),
                  "l": cmd(["printf", "a\\nb\\n"], options={"stdout": "lines"})})
    j = await run(cfg, "j", {"n": "5"})
    assert j.structured == {"n": 5}
    bad = await run(cfg, "j", {"n": "x"})
    assert bad.is_error and "not valid JSON" in bad.text_content
    lines = await run(cfg, "l", {})
    assert lines.structured == {"lines": ["a", "b"], "truncated": False}


@pytest.mark.anyio
async def test_output_cap_stops_the_program(config: Config) -> None:
    cfg = config({"yes": cmd(["yes"], options={"max_output_bytes": 1000})})
    result = await run(cfg, "yes", {})
    assert not result.is_error
    assert result.text_content.startswith("y\n" * 500)
    assert "passed 1,000 bytes; the command was stopped" in result.text_content


SPAWN = ("import subprocess, sys, time; p = subprocess.Popen(['sleep', '30']); "
         "open(sys.argv[1], 'w').write(str(p.pid)); time.sleep(30)")


@pytest.mark.anyio
async def test_timeout_kills_the_process_group(config: Config, tmp_path: Path) -> None:
    pidfile = tmp_path / "pid"
    cfg = config({"t": cmd([PY, "-c", SPAWN, str(pidfile)], timeout=1.0)})
    result = await run(cfg, "t", {})
    assert result.is_error and "timed out after 1s" in result.text_content
    assert await gone(int(pidfile.read_text()))


@pytest.mark.anyio
async def test_cancellation_kills_the_process_group(config: Config, tmp_path: Path) -> None:
    pidfile = tmp_path / "pid"
    cfg = config({"t": cmd([PY, "-c", SPAWN, str(pidfile)])})
    compiled = compile_tools(cfg)
    async with anyio.create_task_group() as tg:
        tg.start_soon(compiled.tool("demo", "t").call, {}, CallContext())
        while not pidfile.exists() or not pidfile.read_text():
            await anyio.sleep(0.05)
        tg.cancel_scope.cancel()
    assert await gone(int(pidfile.read_text()))
    await compiled.aclose()


@pytest.mark.anyio
async def test_missing_program_and_bad_templates(config: Config) -> None:
    cfg = config({"t": cmd(["no-such-program-xyz", "{{ a }}"]),
                  "u": cmd(["printf", "{{ a.b.c }}"], params={"a": {"type": "string"}})})
    missing = await run(cfg, "t", {"a": "x"})
    assert missing.is_error and "'no-such-program-xyz' was not found" in missing.text_content
    undefined = await run(cfg, "u", {"a": "x"})
    assert undefined.is_error and "Could not build the command line" in undefined.text_content


def test_compile_errors(config: Config) -> None:
    cfg = config({"prog": cmd(["{{ program }}", "x"]),
                  "syntax": cmd(["echo", "{{ oops"]),
                  "stdin": cmd(["cat"], options={"stdin": "{% if %}"})})
    with pytest.raises(CompileError) as info:
        compile_tools(cfg)
    prog, syntax, stdin = info.value.problems
    assert prog.key_path == "servers.demo.tools.prog.command.argv[0]"
    assert "must be literal" in prog.message
    assert syntax.key_path == "servers.demo.tools.syntax.command.argv[1]"
    assert "does not parse" in syntax.message and stdin.line == 6


def test_a_placeholder_misspelling_a_declared_param_is_a_compile_error(config: Config) -> None:
    # {{ texxt }} next to an unused declared `text` would silently add a second required param
    cfg = config({"typo": cmd(["echo", "{{ texxt }}"], params={"text": {"type": "string"}}),
                  "url": {"kind": "http", "options": {"url": "http://127.0.0.1:9/{nme}"},
                          "params": {"name": {"type": "string"}}}})
    with pytest.raises(CompileError) as info:
        compile_tools(cfg)
    typo, url = info.value.problems
    assert typo.key_path == "servers.demo.tools.typo.command"
    assert typo.message == ("placeholder 'texxt' is not a declared param; did you mean 'text'? "
                            "(declared: text)")
    assert url.key_path == "servers.demo.tools.url.http"
    assert "placeholder 'nme'" in url.message and "did you mean 'name'?" in url.message
    # an undeclared placeholder unlike any unused param is still a generated string param
    ok = config({"extra": cmd(["echo", "{{ text }}", "{{ more }}"],
                              params={"text": {"type": "string"}})})
    extra = compile_tools(ok).tool("demo", "extra")
    assert extra.input_schema["properties"]["more"] == {"type": "string"}
    assert "more" in extra.input_schema["required"]


@pytest.mark.anyio
async def test_stdout_lines_hide_a_secret_that_spans_lines(config: Config) -> None:
    key = "-----BEGIN KEY-----\nb3BlbnNzaC1rZXktdjEAAAA\n-----END KEY-----"
    script = f"print('host: prod'); print('key: ' + {key!r}); print('after')"
    cfg = config({"l": cmd([PY, "-c", script], options={"stdout": "lines"})})
    cfg = dataclasses.replace(cfg, secrets=frozenset({key}))
    result = await run(cfg, "l", {})
    assert result.text_content == "host: prod\nkey: ***\nafter\n"
    assert result.structured == {"lines": ["host: prod", "key: ***", "***", "***", "after"],
                                 "truncated": False}
