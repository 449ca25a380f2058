"""``isolation: process``: real worker processes, killed on timeout, cancel, crash and close."""

from __future__ import annotations

import os
import signal
import sys
import textwrap
from collections.abc import AsyncIterator
from pathlib import Path

import anyio
import pytest

from toolhost.backends.base import CallContext
from toolhost.compile import CompiledTools, compile_tools
from toolhost.config.loader import load_config
from toolhost.errors import ConfigError

pytestmark = pytest.mark.anyio

TOOLS = '''
import ctypes, os, sys, time
from dataclasses import dataclass
import anyio.from_thread
from toolhost.backends.base import CallContext

@dataclass
class Point:
    x: int
    y: int

def where(p: Point) -> dict:
    """Where am I."""
    print("a print that must not reach the protocol")
    os.write(1, b"a raw write to fd 1\\n")
    return {"pid": os.getpid(), "x": p.x, "y": p.y}

def fails(n: int) -> str:
    raise ValueError(f"n must be even, got {n}")

def spin() -> str:
    while True:
        pass

def nap(seconds: float) -> str:
    time.sleep(seconds)
    return "woke"

def segfault() -> str:
    ctypes.string_at(0)
    return "never"

def leave(code: int) -> str:
    os._exit(code)

def huge():  # no return annotation: no outputSchema
    return ["x" * 100] * 2_000_000

def giant() -> str:
    return "y" * 50_000_000

def steps(n: int, ctx: CallContext) -> str:
    for i in range(n):
        anyio.from_thread.run(ctx.progress, i + 1, n, f"step {i + 1}")
    return f"{n} steps"

async def hello(who: str) -> str:
    return "hello " + who

def pid(seconds: float = 0) -> int:
    time.sleep(seconds)
    return os.getpid()

def fs(op: str, path: str) -> list:
    """A `cd` op of its own: os.chdir in the worker."""
    if op == "cd":
        os.chdir(path)
        return [os.getpid(), os.getcwd()]
    with open(path) as f:
        return [os.getpid(), f.read()]
'''

NAMES = ["where", "fails", "spin", "nap", "segfault", "leave", "huge", "giant", "steps",
         "hello", "pid", "fs"]


@pytest.fixture
async def compiled(tmp_path: Path) -> AsyncIterator[CompiledTools]:
    module = f"th_worker_{os.getpid()}_{abs(hash(tmp_path)) % 10**6}"
    (tmp_path / f"{module}.py").write_text(textwrap.dedent(TOOLS))
    lines = ["toolhost: 1", "servers:", "  w:", "    timeout: 3s", "    tools:"]
    lines += [f"      {n}: {{python: {{function: '{module}:{n}', isolation: process}}"
              + (", timeout: 60s}" if n in ("huge", "giant") else
                 ", timeout: 300ms}" if n in ("spin", "nap") else "}") for n in NAMES]
    lines += ["      few:", f"        python: {{function: '{module}:huge', isolation: process}}",
              "        max_output_chars: 100", "        timeout: 60s"]
    (tmp_path / "w.yaml").write_text("\n".join(lines) + "\n")
    tools = compile_tools(load_config(str(tmp_path / "w.yaml")))
    yield tools
    await tools.aclose()
    sys.modules.pop(module, None)


async def call(tools: CompiledTools, name: str, **args: object) -> tuple[bool, str, object]:
    tool = tools.tool("w", name)
    result = await tool.call(args, CallContext(tool=tool.wire_name))
    return result.is_error, result.text_content, result.structured


def alive(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    return True


async def test_results_arguments_exceptions_and_progress_cross(compiled: CompiledTools,
                                                              capfd: pytest.CaptureFixture[str]
                                                              ) -> None:
    error, _, structured = await call(compiled, "where", p={"x": 1, "y": 2})
    assert not error and isinstance(structured, dict)
    assert structured["pid"] != os.getpid() and (structured["x"], structured["y"]) == (1, 2)
    out, err = capfd.readouterr()
    assert "a print that must not reach the protocol" in err
    assert "a raw write to fd 1" in err and "a raw write" not in out
    assert await call(compiled, "fails", n=3) == (
        True, "Tool 'fails' failed: ValueError: n must be even, got 3", None)
    assert (await call(compiled, "hello", who="you"))[1] == "hello you"
    seen: list[tuple[float, float | None, str | None]] = []

    async def progress(done: float, total: float | None, message: str | None) -> None:
        seen.append((done, total, message))

    tool = compiled.tool("w", "steps")
    result = await tool.call({"n": 3}, CallContext(tool=tool.wire_name, progress=progress))
    assert result.text_content == "3 steps"
    assert seen == [(1, 3, "step 1"), (2, 3, "step 2"), (3, 3, "step 3")]


async def test_a_worker_is_reused_and_replaced_after_a_kill(compiled: CompiledTools) -> None:
    first = int((await call(compiled, "pid"))[1])
    assert int((await call(compiled, "pid"))[1]) == first  # persistent
    with anyio.move_on_after(0.5):  # a cancel kills the worker running the call
        await call(compiled, "pid", seconds=30)
    assert not alive(first)
    assert int((await call(compiled, "pid"))[1]) not in (first, os.getpid())


async def test_a_call_s_chdir_does_not_move_the_next_call_s_paths(
        compiled: CompiledTools, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    # round 22: the rules judged the next call's `x` against the host's directory; the
    # worker read it in the directory a `cd` call had left it in
    monkeypatch.chdir(tmp_path)
    (tmp_path / "secrets").mkdir()
    (tmp_path / "secrets" / "x").write_text("SECRET")
    (tmp_path / "x").write_text("public")
    moved = (await call(compiled, "fs", op="cd", path="secrets"))[2]
    assert isinstance(moved, dict) and moved["result"][1] == str(tmp_path / "secrets")
    read = (await call(compiled, "fs", op="cat", path="x"))[2]
    assert read == {"result": [moved["result"][0], "public"]}  # same worker, back home


@pytest.mark.parametrize("name, args, message", [
    # the tool's own short timeout (the server's 3s is for the others): the faults stay quick
    ("spin", {}, "timed out after 0.3s and was stopped"),
    ("nap", {"seconds": 60}, "timed out after 0.3s and was stopped"),
    ("segfault", {}, "crashed: its worker process was killed by SIGSEGV"),
    ("leave", {"code": 7}, "crashed: its worker process exited with status 7"),
])
async def test_faults_end_in_an_error_and_a_fresh_worker(compiled: CompiledTools, name: str,
                                                        args: dict[str, object],
                                                        message: str) -> None:
    error, text, _ = await call(compiled, name, **args)
    assert error and message in text, text
    assert (await call(compiled, "hello", who="again"))[1] == "hello again"
    assert (await call(compiled, name, **args))[0]  # the tool itself runs (and fails) again


@pytest.mark.skipif(not sys.platform.startswith("linux"), reason="/proc")
async def test_close_kills_every_worker(tmp_path: Path, compiled: CompiledTools) -> None:
    pids = {int((await call(compiled, "pid"))[1]), int((await call(compiled, "where",
                                                                    p={"x": 0, "y": 0}))[2]
                                                        ["pid"])}  # type: ignore[index]
    await compiled.aclose()
    assert not any(alive(p) for p in pids)  # killed and reaped, not even zombies


async def test_a_huge_result_is_cut_in_the_worker(compiled: CompiledTools) -> None:
    error, text, structured = await call(compiled, "huge")
    assert not error and structured is None, text[:300]
    assert text.startswith('["xxxx') and "output cut: showing the first 40,000 of more than" in text
    error, text, _ = await call(compiled, "giant")
    assert text.startswith("yyyy") and "showing the first 40,000 of 50,000,000" in text
    assert len(text) < 41_000
    error, text, _ = await call(compiled, "few")
    assert len(text) < 400 and "first 100 of more than 100 characters" in text


def test_isolation_is_checked_by_the_schema(tmp_path: Path) -> None:
    config = tmp_path / "bad.yaml"
    config.write_text("toolhost: 1\nservers:\n  w:\n    tools:\n"
                      "      t: {python: {function: 'toolhost.demo:add', isolation: thread}}\n")
    with pytest.raises(ConfigError) as info:
        load_config(str(config))
    assert "isolation" in str(info.value) and "bad.yaml:5" in str(info.value)


def test_worker_processes_do_not_outlive_a_killed_host(tmp_path: Path) -> None:
    """SIGKILL of the host: the worker dies with it (PR_SET_PDEATHSIG on Linux)."""
    if not sys.platform.startswith("linux"):
        pytest.skip("parent-death signal is Linux only")
    (tmp_path / "th_orphan.py").write_text("import os, time\n"
                                           "def pid() -> int:\n    return os.getpid()\n"
                                           "def nap() -> str:\n    time.sleep(600)\n"
                                           "    return 'x'\n")
    (tmp_path / "o.yaml").write_text(
        "toolhost: 1\nservers:\n  o:\n    tools:\n"
        "      nap: {python: {function: 'th_orphan:nap', isolation: process}}\n")
    import subprocess

    host = subprocess.Popen(
        [sys.executable, "-m", "toolhost", "call", str(tmp_path / "o.yaml"), "o.nap"],
        stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, env={**os.environ})
    try:
        import time

        worker = None
        start = time.monotonic()
        while worker is None and time.monotonic() - start < 30:
            kids = _all_children(host.pid)
            worker = kids[0] if kids else None
            time.sleep(0.05)
        assert worker is not None, "no worker process started"
        host.send_signal(signal.SIGKILL)
        host.wait()
        start = time.monotonic()
        while alive(worker) and _state(worker) != "Z" and time.monotonic() - start < 30:
            time.sleep(0.05)
        assert not alive(worker) or _state(worker) == "Z"
    finally:
        if host.poll() is None:
            host.kill()
            host.wait()


def _all_children(pid: int) -> list[int]:
    out = []
    for entry in os.listdir("/proc"):
        if entry.isdigit():
            try:
                fields = Path(f"/proc/{entry}/stat").read_text().rsplit(")", 1)[1].split()
            except OSError:
                continue
            if fields[1] == str(pid):
                out.append(int(entry))
    return out


def _state(pid: int) -> str:
    try:
        return Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()[0]
    except OSError:
        return "gone"
