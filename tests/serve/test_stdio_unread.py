"""A stdio client that never reads our output: the server's memory stays bounded while it
writes, and when the client closes our input the server still ends after its grace (the
answers nobody reads are given up) instead of waiting forever on a full pipe. A real
``toolhost serve`` process whose stdout pipe is never read; then the lines it did write are
whole JSON messages, in order.
"""

from __future__ import annotations

import contextlib
import json
import os
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

import pytest

from tests.serve.conftest import server_env

HERE = Path(__file__).parent
CONFIG = """\
toolhost: 1
servers:
  s:
    tools:
      echo: {python: "blackbox_tools:echo"}
      slow: {python: "blackbox_tools:slow"}
permissions:
  default: allow
"""
INIT = {"jsonrpc": "2.0", "id": 0, "method": "initialize", "params": {
    "protocolVersion": "2025-11-25", "capabilities": {},
    "clientInfo": {"name": "t", "version": "1"}}}


def calls(kind: str) -> list[dict[str, Any]]:
    """What the client sends before it closes its end (it reads nothing)."""
    def call(i: int, name: str, arguments: dict[str, Any], **meta: Any) -> dict[str, Any]:
        params: dict[str, Any] = {"name": name, "arguments": arguments}
        if meta:
            params["_meta"] = meta
        return {"jsonrpc": "2.0", "id": i, "method": "tools/call", "params": params}

    if kind == "many answers":
        return [call(i, "echo", {"text": "x" * 20_000}) for i in range(1, 400)]
    if kind == "more than in flight":  # past --max-in-flight: "busy" answers are lines too
        return [{"jsonrpc": "2.0", "id": i, "method": "tools/list"} for i in range(1, 3000)]
    if kind == "progress":
        return [call(i, "slow", {"seconds": 0.01, "steps": 200}, progressToken=i)
                for i in range(1, 50)]
    raise AssertionError(kind)


@pytest.mark.parametrize("kind", ["many answers", "more than in flight", "progress"])
def test_a_client_that_never_reads_does_not_keep_the_server_alive(tmp_path: Path,
                                                                  kind: str) -> None:
    config = tmp_path / "s.yaml"
    config.write_text(CONFIG)
    env = {**server_env(), "PYTHONPATH": os.pathsep.join(
        p for p in (str(HERE), server_env().get("PYTHONPATH")) if p)}
    log = tmp_path / "server.log"
    with open(log, "wb") as err:
        proc = subprocess.Popen([sys.executable, "-m", "toolhost", "serve", str(config),
                                 "--shutdown-grace", "1"],
                                stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=err,
                                env=env)
    assert proc.stdin is not None and proc.stdout is not None
    try:
        proc.stdin.write(json.dumps(INIT).encode() + b"\n")
        for message in calls(kind):
            proc.stdin.write(json.dumps(message).encode() + b"\n")
        proc.stdin.flush()
        time.sleep(2)  # the answers fill the pipe nobody reads
        rss = int(next(line.split()[1] for line in
                       Path(f"/proc/{proc.pid}/status").read_text().splitlines()
                       if line.startswith("VmRSS")))
        assert rss < 400_000, rss  # kB
        proc.stdin.close()
        started = time.monotonic()
        proc.wait(20)  # the 1 s grace, then out, though the pipe is still full
        assert time.monotonic() - started < 11
    finally:
        if proc.poll() is None:
            proc.kill()
            proc.wait()
    # what was written before it gave up is whole lines of JSON, the initialize answer first
    lines = proc.stdout.read().splitlines()
    assert lines and json.loads(lines[0])["id"] == 0
    complete = lines if not lines[-1] or lines[-1].endswith(b"}") else lines[:-1]
    for line in complete[:-1]:
        json.loads(line)
    proc.stdout.close()
    assert "Traceback" not in log.read_text()


BIG_TOOL = '''
import os


def big() -> str:
    """200 KB of answer for a request of a few bytes; each call counted in CALLS."""
    with open(os.environ["CALLS"], "a") as calls:
        calls.write("x")
    return "y" * 200_000
'''


@pytest.mark.parametrize("then", ["reads", "closes its input"])
def test_a_client_that_stops_reading_is_no_longer_read(tmp_path: Path, then: str) -> None:
    """100 requests of 200 KB answers each, none read: once the answers waiting for the
    client pass --max-in-flight-bytes (1 MiB here), no further request is read, so only a
    few are run and held (before, every answer was computed and held: 1 MB requests grew the
    server by ~1 MB each, without bound). A client that then reads gets every answer, in
    full; one that closes its input instead still lets the server end after its grace."""
    (tmp_path / "bigtool.py").write_text(BIG_TOOL)
    (tmp_path / "s.yaml").write_text(
        "toolhost: 1\nservers:\n  s:\n    tools:\n      big: {python: 'bigtool:big', "
        "max_output_chars: 250000}\npermissions:\n  default: allow\n")
    calls = tmp_path / "calls"
    calls.write_text("")
    env = {**server_env(), "CALLS": str(calls)}
    env["PYTHONPATH"] = os.pathsep.join([str(tmp_path), env["PYTHONPATH"]])
    log = tmp_path / "server.log"
    with open(log, "wb") as err:
        proc = subprocess.Popen([sys.executable, "-m", "toolhost", "serve",
                                 str(tmp_path / "s.yaml"), "--max-in-flight-bytes", "1MiB",
                                 "--shutdown-grace", "1"],
                                stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=err,
                                env=env)
    assert proc.stdin is not None and proc.stdout is not None
    try:
        proc.stdin.write(json.dumps(INIT).encode() + b"\n")
        for i in range(1, 101):  # (a few KB: the pipe to the server holds them)
            proc.stdin.write(json.dumps({"jsonrpc": "2.0", "id": i, "method": "tools/call",
                                         "params": {"name": "big", "arguments": {}}}).encode()
                             + b"\n")
        proc.stdin.flush()
        deadline = time.monotonic() + 15  # (the old code read on: never said so)
        while "stopped reading requests" not in log.read_text():
            assert time.monotonic() < deadline and proc.poll() is None, log.read_text()
            time.sleep(0.05)
        time.sleep(0.3)
        run = len(calls.read_text())
        time.sleep(0.5)  # (the lines left wait in the pipe: read, they would run at once)
        assert len(calls.read_text()) == run < 40, run
        if then == "reads":
            answers = [json.loads(proc.stdout.readline()) for _ in range(101)]
            assert sorted(a["id"] for a in answers) == list(range(101))
            texts = [a["result"]["content"][0]["text"] for a in answers[1:]]
            assert texts == ["y" * 200_000] * 100
            assert len(calls.read_text()) == 100
            proc.stdin.close()
        else:
            proc.stdin.close()
        proc.wait(20)  # (then: the 1 s grace, though nobody reads the pipe)
    finally:
        if proc.poll() is None:
            proc.kill()
            proc.wait()
        with contextlib.suppress(OSError):
            proc.stdin.close()
        proc.stdout.close()
    assert "Traceback" not in log.read_text()
