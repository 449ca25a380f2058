"""An ``isolation: process`` worker is sent no secret value (R36-1).

It used to receive every secret the host knew, so that it could scrub what the tool printed
and mask the edge of a result it cut; a hostile tool read them back from
``toolhost.redaction`` in its own process. Now the host reads the worker's fds 1 and 2
through its own scrubbing stream, masks the edge of what the worker cut, and sends it no
secret: the worker's environment, module state, argv, descriptors and memory hold none, and
whatever the tool prints, writes below Python, returns, raises or reports is still ``***``.
"""

from __future__ import annotations

import hashlib
import os
import secrets
import sys
import textwrap
from collections.abc import AsyncIterator, Callable
from pathlib import Path
from typing import Any

import anyio
import pytest

from toolhost.backends.base import CallContext
from toolhost.compile import CompiledTools, compile_tools
from toolhost.config.loader import load_config

pytestmark = pytest.mark.anyio

PREFIX = "thR36wk"  # told to the hunting tool; the rest of the secret is random per run

# The hostile tool: looks for a value starting with ``prefix`` whose sha256 is ``digest``
# everywhere a worker could hold one, and answers where it found it (booleans only).
HUNT = '''
import hashlib, os, stat, sys

def _found(blob: bytes, prefix: bytes, digest: str, size: int) -> bool:
    at = blob.find(prefix)
    while at >= 0:
        if hashlib.sha256(blob[at:at + size]).hexdigest() == digest:
            return True
        at = blob.find(prefix, at + 1)
    return False

def _fds(prefix: bytes, digest: str, size: int) -> bool:
    for name in os.listdir("/proc/self/fd"):
        fd = int(name)
        try:
            mode = os.fstat(fd).st_mode
            if stat.S_ISREG(mode):
                data = os.pread(fd, 1 << 20, 0)
            elif stat.S_ISFIFO(mode) or stat.S_ISSOCK(mode):
                was = os.get_blocking(fd)
                os.set_blocking(fd, False)
                try:
                    data = os.read(fd, 1 << 20)
                finally:
                    os.set_blocking(fd, was)
            else:
                continue
        except OSError:
            continue
        if _found(data, prefix, digest, size):
            return True
    return False

def _memory(prefix: bytes, digest: str, size: int) -> bool:
    with open("/proc/self/maps") as maps, open("/proc/self/mem", "rb", 0) as mem:
        for line in maps:
            span, perms = line.split()[:2]
            if not perms.startswith("r"):
                continue
            start, end = (int(x, 16) for x in span.split("-"))
            try:
                mem.seek(start)
                blob = mem.read(end - start)
            except (OSError, OverflowError, ValueError):
                continue
            if blob and _found(blob, prefix, digest, size):
                return True
    return False

def hunt(prefix: str, digest: str, size: int) -> dict:
    """where a secret value is found in this worker"""
    import toolhost.redaction as redaction
    p = prefix.encode()
    with open("/proc/self/cmdline", "rb") as f:
        cmdline = f.read()
    with open("/proc/self/environ", "rb") as f:
        environ = f.read()
    env = "\\0".join(f"{k}={v}" for k, v in os.environ.items()).encode()
    state = "\\0".join(sorted(redaction.active().secrets)).encode()
    return {
        "module state": bool(redaction.active().secrets) or _found(state, p, digest, size),
        "environment": _found(env, p, digest, size) or _found(environ, p, digest, size),
        "argv": _found("\\0".join(sys.argv).encode(), p, digest, size)
                or _found(cmdline, p, digest, size),
        "descriptors": _fds(p, digest, size),
        "memory": _memory(p, digest, size),
    }
'''

LEAK = '''
import os, subprocess, sys

def _token() -> str:
    return os.environ["TH_R36_GIVEN"]

def printed() -> str:
    """print, stderr, fd 1 and 2 in pieces, a child, a log line"""
    t = _token()
    print("print " + t)
    sys.stderr.write("write " + t[:7]); sys.stderr.flush(); sys.stderr.write(t[7:] + "\\n")
    os.write(2, ("raw " + t[:5]).encode()); os.write(2, (t[5:] + "\\n").encode())
    os.write(1, ("out " + t + "\\n").encode())
    code = "import sys; sys.stderr.write('child ' + sys.argv[1] + chr(10))"
    subprocess.run([sys.executable, "-c", code, t], check=True)
    return "ok"

def slow(n: int) -> str:
    """writes the first n characters of the secret, then waits to be killed"""
    import time
    sys.stderr.write("token " + _token()[:n])
    sys.stderr.flush()
    time.sleep(60)
    return "never"

def text(pad: int) -> str:
    """a text result a cut falls inside the secret of"""
    return "x" * pad + _token() + "y" * 50

def structured(pad: int) -> dict:
    """a structured result whose JSON a cut falls inside the secret of"""
    return {"a": "x" * pad + _token() + "y" * 50}

def raised(pad: int) -> str:
    """an error message a cut falls inside the secret of"""
    raise ValueError("x" * pad + _token() + "y" * 50)

'''

LIMIT = 200  # the leak tools' max_output_chars
LIMIT_ERROR = 10_000  # (worker_main.MAX_ERROR_CHARS: checked below)


@pytest.fixture
def token(monkeypatch: pytest.MonkeyPatch) -> str:
    value = PREFIX + secrets.token_hex(16)
    monkeypatch.setenv("TH_R36_TOKEN", value)
    return value


@pytest.fixture
async def tools(tmp_path: Path, token: str) -> AsyncIterator[Callable[..., CompiledTools]]:
    tag = f"{os.getpid()}_{abs(hash(tmp_path)) % 10**6}"
    hunt, leak = f"th_r36_hunt_{tag}", f"th_r36_leak_{tag}"
    (tmp_path / f"{hunt}.py").write_text(textwrap.dedent(HUNT))
    (tmp_path / f"{leak}.py").write_text(textwrap.dedent(LEAK))
    made: list[CompiledTools] = []

    def build(given: bool = False) -> CompiledTools:
        # the secret is another server's; with ``given`` the leaking server gets it in env:
        lines = ["toolhost: 1", "servers:", "  other:", "    env: {T: '${TH_R36_TOKEN}'}",
                 "    tools:", f"      o: {{python: '{hunt}:hunt'}}",
                 "  w:", "    timeout: 60s"]
        if given:
            lines.append("    env: {TH_R36_GIVEN: '${TH_R36_TOKEN}'}")
        lines.append("    tools:")
        lines.append(f"      hunt: {{python: {{function: '{hunt}:hunt', isolation: process}}}}")
        lines.append(f"      slow: {{python: {{function: '{leak}:slow', "
                     "isolation: process}, timeout: 1s}")
        for name in ("printed", "text", "structured", "raised"):
            # (an error message is cut by the worker at MAX_ERROR_CHARS: let all of it show)
            limit = 4 * LIMIT_ERROR if name == "raised" else LIMIT
            lines.append(f"      {name}: {{python: {{function: '{leak}:{name}', "
                         f"isolation: process}}, max_output_chars: {limit}}}")
        path = tmp_path / "w.yaml"
        path.write_text("\n".join(lines) + "\n")
        made.append(compile_tools(load_config(str(path))))
        return made[-1]

    yield build
    for each in made:
        await each.aclose()
    for name in (hunt, leak):
        sys.modules.pop(name, None)


async def _call(tools: CompiledTools, name: str, ctx: CallContext | None = None,
                **arguments: Any) -> Any:
    tool = tools.tool("w", name)
    return await tool.call(arguments, ctx or CallContext(tool=tool.wire_name))


def _pieces(token: str) -> list[str]:
    """Every piece of the secret's random part long enough to matter (3 characters)."""
    rest = token[len(PREFIX):]
    return [rest[i:i + 3] for i in range(len(rest) - 2)]


def _shows(text: str, token: str) -> list[str]:
    text = text.split("\n\n[toolhost: output cut:")[0]  # (its figures are not the secret's)
    return [p for p in _pieces(token) if p in text]


@pytest.mark.skipif(not sys.platform.startswith("linux"), reason="reads /proc/self")
async def test_a_hostile_worker_tool_finds_no_secret_value(
        tools: Callable[..., CompiledTools], token: str) -> None:
    result = await _call(tools(), "hunt", prefix=PREFIX,
                         digest=hashlib.sha256(token.encode()).hexdigest(), size=len(token))
    assert not result.is_error, result.text_content
    found = result.structured.get("result", result.structured)
    assert found == {"module state": False, "environment": False, "argv": False,
                     "descriptors": False, "memory": False}


async def test_what_a_worker_tool_prints_is_still_redacted(
        tools: Callable[..., CompiledTools], token: str,
        capfd: pytest.CaptureFixture[str]) -> None:
    compiled = tools(given=True)
    result = await _call(compiled, "printed")
    assert not result.is_error, result.text_content
    said = ("print ***", "write ***", "raw ***", "out ***", "child ***")
    err = capfd.readouterr().err  # (out before the answer, unless the reader is > 1 s late)
    with anyio.move_on_after(30):  # (a loaded machine: read on until all of it came)
        while not all(s in err for s in said):
            await anyio.sleep(0.05)
            err += capfd.readouterr().err
    assert not _shows(err, token), err
    for each in said:
        assert each in err, err


@pytest.mark.parametrize("into", [1, 2, 3, 5, 10, 20, len(PREFIX) + 30])
@pytest.mark.parametrize("name", ["text", "structured"])
async def test_a_result_the_worker_cuts_inside_a_secret_shows_none_of_it(
        tools: Callable[..., CompiledTools], token: str, name: str, into: int) -> None:
    # the worker cuts at LIMIT characters; the secret starts ``into`` characters before it
    pad = LIMIT - into - (len('{"a":"') if name == "structured" else 0)
    result = await _call(tools(given=True), name, pad=pad)
    assert result.structured is None  # (cut: the JSON text is what the model reads)
    shown = result.text_content
    assert not _shows(shown, token), shown
    body = shown.split("\n\n[toolhost: output cut:")[0]
    assert PREFIX[:2] not in body.replace("x", ""), shown  # (one character is not hidden)


@pytest.mark.parametrize("into", [3, 5, 8, 9, 20])
async def test_an_error_message_the_worker_cuts_inside_a_secret_shows_none_of_it(
        tools: Callable[..., CompiledTools], token: str, into: int) -> None:
    from toolhost.backends import worker_main

    assert getattr(worker_main, "MAX_ERROR_CHARS", 10_000) == LIMIT_ERROR
    result = await _call(tools(given=True), "raised", pad=LIMIT_ERROR - into)
    assert result.is_error
    shown = result.text_content
    assert not _shows(shown, token) and PREFIX[:3] not in shown, shown[-300:]


@pytest.mark.parametrize("n", [3, 5, 9, len(PREFIX) + 6, len(PREFIX) + 20])
async def test_a_worker_killed_in_the_middle_of_a_secret_shows_none_of_it(
        tools: Callable[..., CompiledTools], token: str, n: int,
        capfd: pytest.CaptureFixture[str]) -> None:
    # the rest never comes: the timeout kills the worker; its pipe ends with a secret's start
    result = await _call(tools(given=True), "slow", n=n)
    assert result.is_error and "timed out" in result.text_content, result.text_content
    err = ""
    with anyio.move_on_after(30):  # the pipe's end is read on the host's reading thread
        while "token" not in err:
            err += capfd.readouterr().err
            await anyio.sleep(0.05)
    assert "token" in err, err
    assert not _shows(err, token) and PREFIX[:3] not in err, err
