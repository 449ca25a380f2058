"""What an ``isolation: process`` tool starts does not outlive its call, however the call ends
(it returns, it raises, it times out) nor the host: a child in the worker's group, one in its
own session (``start_new_session``), one that double-forked away, all die before the answer
while the warm worker lives on for the next call (Linux: the worker is a subreaper and kills
its descendants after each call; a killed worker's by the reaper's descendant and
TOOLHOST_RUN_ID walk, as for command tools)."""

from __future__ import annotations

import os
import subprocess
import sys
import textwrap
import time
from pathlib import Path
from typing import Any

import pytest

from toolhost.backends.base import CallContext
from toolhost.compile import compile_tools

pytestmark = pytest.mark.skipif(not sys.platform.startswith("linux"),
                                reason="the descendant walk is Linux's")

MODULE = '''
import os, subprocess, sys, time

def _note(mark, pid):
    # the helper's pid, written by its parent as soon as it exists (not by the helper once
    # it runs: under load a helper starting slowly was killed at the timeout before it wrote
    # its mark, and looked like one that never started)
    with open(mark + ".tmp", "w") as f:
        f.write(str(pid))
    os.replace(mark + ".tmp", mark)

def _spawn(style, mark):
    code = "import time; time.sleep(60)"
    if style == "group":
        _note(mark, subprocess.Popen([sys.executable, "-c", code]).pid)
    elif style == "session":
        _note(mark, subprocess.Popen([sys.executable, "-c", code], start_new_session=True,
                                     stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL,
                                     stderr=subprocess.DEVNULL).pid)
    elif style == "kills-worker":  # a daemon (no marker, no descriptor) that kills the
        pid = os.fork()             # worker, its subreaper, once it is orphaned
        if pid == 0:
            os.setsid()
            helper = os.fork()
            if helper == 0:
                os.closerange(0, 65536)
                time.sleep(0.3)
                os.execve("/bin/sh", ["sh", "-c", "kill -9 $PPID; exec sleep 60"], {})
            _note(mark, helper)
            os._exit(0)
        os.waitpid(pid, 0)
    else:  # double fork, then a new session: the grandchild's parent is gone
        pid = os.fork()
        if pid == 0:
            os.setsid()
            helper = os.fork()
            if helper == 0:
                os.execv(sys.executable, [sys.executable, "-c", code])
            _note(mark, helper)
            os._exit(0)
        os.waitpid(pid, 0)

def convert(style: str, mark: str, seconds: float) -> str:
    """Start a helper, then work."""
    _spawn(style, mark)
    time.sleep(seconds)
    return f"done in {os.getpid()}"

def convert_fails(style: str, mark: str, seconds: float) -> str:
    """Start a helper, then fail."""
    _spawn(style, mark)
    raise ValueError("no")

async def convert_async(style: str, mark: str, seconds: float) -> str:
    """Start a helper from an async tool."""
    _spawn(style, mark)
    return f"done in {os.getpid()}"
'''

STYLES = ["group", "session", "double-fork"]


def _alive(pid: int) -> bool:
    try:
        with open(f"/proc/{pid}/stat") as stat:
            return stat.read().rsplit(")", 1)[1].split()[0] != "Z"
    except FileNotFoundError:
        return False


def _pid(mark: Path) -> int:
    for _ in range(250):
        if mark.exists() and mark.read_text():
            return int(mark.read_text())
        time.sleep(0.02)
    raise AssertionError("the helper never started")


def _gone(pid: int, within: float = 5.0) -> bool:
    deadline = time.monotonic() + within
    while time.monotonic() < deadline:
        if not _alive(pid):
            return True
        time.sleep(0.05)
    return False


def _setup(tmp_path: Path) -> Path:
    (tmp_path / "spawning_tools.py").write_text(textwrap.dedent(MODULE))
    config = tmp_path / "spawn.yaml"
    config.write_text(textwrap.dedent("""\
        toolhost: 1
        permissions: {default: allow}
        servers:
          p:
            timeout: 2s
            tools:
              convert: {python: {function: "spawning_tools:convert", isolation: process}}
        """))
    return config


def _call(config: Path, style: str, mark: Path, seconds: float) -> subprocess.CompletedProcess[str]:
    arguments = f'{{"style": "{style}", "mark": "{mark}", "seconds": {seconds}}}'
    return subprocess.run([sys.executable, "-m", "toolhost", "call", str(config), "p.convert",
                           "--json", arguments], capture_output=True, text=True, timeout=60,
                          check=False, cwd=config.parent)


@pytest.mark.parametrize("style", STYLES)
def test_a_helper_dies_with_the_call_at_its_timeout(tmp_path: Path, style: str) -> None:
    config = _setup(tmp_path)
    mark = tmp_path / f"{style}.pid"
    done = _call(config, style, mark, 30)
    assert "timed out after 2s" in done.stdout + done.stderr
    pid = _pid(mark)
    try:
        assert _gone(pid), f"the {style} helper {pid} outlived the call"
    finally:
        if _alive(pid):
            os.kill(pid, 9)


@pytest.mark.parametrize("style", STYLES)
def test_a_helper_dies_with_the_host(tmp_path: Path, style: str) -> None:
    config = _setup(tmp_path)
    mark = tmp_path / f"{style}.pid"
    done = _call(config, style, mark, 0)
    assert done.returncode == 0 and "done" in done.stdout, done.stdout + done.stderr
    pid = _pid(mark)
    try:
        assert _gone(pid), f"the {style} helper {pid} outlived the host"
    finally:
        if _alive(pid):
            os.kill(pid, 9)


@pytest.mark.anyio
@pytest.mark.parametrize("function", ["convert", "convert_fails", "convert_async"])
@pytest.mark.parametrize("style", STYLES)
async def test_a_helper_dies_with_its_call_in_a_warm_worker(config: Any, tmp_path: Path,
                                                            monkeypatch: pytest.MonkeyPatch,
                                                            style: str, function: str) -> None:
    name = f"th_spawning_{abs(hash(tmp_path)) % 10**8}"
    (tmp_path / f"{name}.py").write_text(textwrap.dedent(MODULE))
    monkeypatch.syspath_prepend(str(tmp_path))
    options = {"isolation": "process", "workers": 1}
    compiled = compile_tools(config({
        "t": {"kind": "python", "options": {"function": f"{name}:{function}", **options},
              "timeout": 90},
    }))
    pids = []
    answers = set()
    try:
        for n in range(2):  # the second call runs in the same warm worker
            mark = tmp_path / f"{style}-{n}.pid"
            arguments = {"style": style, "mark": str(mark), "seconds": 0}
            result = await compiled.tool("demo", "t").call(arguments, CallContext(tool="t"))
            assert result.is_error == (function == "convert_fails"), result.text_content
            answers.add(result.text_content)
            pid = _pid(mark)
            pids.append(pid)
            assert not _alive(pid), f"the {style} helper {pid} outlived call {n}"
        assert len(answers) == 1, answers  # one warm worker answered both
    finally:
        for pid in pids:
            if _alive(pid):
                os.kill(pid, 9)
        await compiled.aclose()


def test_a_helper_that_kills_its_worker_dies_with_the_call(tmp_path: Path) -> None:
    """The worker is the subreaper of what its tool starts; a daemon that kills it lands on
    the host, which sweeps the orphans it never started when the worker died unasked."""
    config = _setup(tmp_path)
    mark = tmp_path / "assassin.pid"
    done = _call(config, "kills-worker", mark, 30)
    assert "crashed: its worker process" in done.stdout + done.stderr, done.stdout
    pid = _pid(mark)
    try:
        assert _gone(pid, 2.0), f"the helper {pid} that killed its worker outlived the call"
    finally:
        if _alive(pid):
            os.kill(pid, 9)
