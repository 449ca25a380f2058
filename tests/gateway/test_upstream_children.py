"""What an upstream starts ends with it: the whole process group is stopped, also when the
upstream itself exits at the end of its stdin (as most servers do) and leaves workers behind."""

from __future__ import annotations

import json
import os
import subprocess
import sys
import time
import uuid
from pathlib import Path

import pytest

from .conftest import hostile_config


def running_with(marker: str, where: str = "cmdline") -> list[int]:
    """PIDs (but this one) whose command line (or ``where="environ"``: environment) holds
    ``marker``."""
    found = []
    for entry in os.listdir("/proc"):
        if not entry.isdigit() or entry == str(os.getpid()):
            continue
        try:
            with open(f"/proc/{entry}/{where}", "rb") as handle:
                if marker.encode() in handle.read():
                    found.append(int(entry))
        except OSError:
            continue
    return found


def gone_within(marker: str, seconds: float) -> list[int]:
    """The processes still running with ``marker`` after waiting up to ``seconds``."""
    deadline = time.monotonic() + seconds
    while (left := running_with(marker)) and time.monotonic() < deadline:
        time.sleep(0.1)
    return left


# how the upstream's use ends: a call answered and the host exiting, or a start that fails
# (no answer to tools/list within connect_timeout); one upstream leaves a worker of each kind
# behind (plain, ignoring SIGTERM, orphaned, in a session of its own)
@pytest.mark.parametrize("mode", ["", "hang_list"])
def test_workers_of_an_upstream_end_with_it(tmp_path: Path, mode: str) -> None:
    config = hostile_config(tmp_path, connect_timeout="3s" if mode else "60s")
    base = f"toolhost-test-worker-{uuid.uuid4().hex}"
    kinds = ("plain", "stubborn", "orphan", "daemon")
    markers = {kind: f"{base}-{kind}" for kind in kinds}
    try:
        done = subprocess.run(
            [sys.executable, "-m", "toolhost", "call", str(config), "h.echo", "text=hi"],
            capture_output=True, text=True, timeout=60,
            env={**os.environ, "HOSTILE_WORKER": base, "HOSTILE_WORKER_KIND": ",".join(kinds),
                 "HOSTILE_MODE": mode})
        if mode:
            # (its listing timed out; on a loaded machine its initialize may have)
            assert done.returncode != 0 and "upstream server 'h'" in done.stderr, done.stderr
        else:
            assert done.returncode == 0 and "called echo" in done.stdout, done.stderr
        for kind, marker in markers.items():
            # the stubborn one needs the SIGKILL that follows 2 s after SIGTERM
            assert gone_within(marker, 6) == [], f"left running ({kind}, {mode or 'call'})"
    finally:
        for marker in markers.values():
            for pid in running_with(marker):
                os.kill(pid, 9)


def test_an_upstream_that_stopped_reading_ends_with_the_host(tmp_path: Path) -> None:
    """An upstream that stops reading its stdin ignores the end of it: the host's stop
    (2 s to exit, then SIGTERM) outlasts a stdio client's patience, and a host killed by
    SIGTERM's default action stops nothing. Either way the upstream dies with the host."""
    config = hostile_config(tmp_path, timeout="1s")
    logs = {how: str(tmp_path / f"{how}-{uuid.uuid4().hex}.log") for how in ("eof", "sigterm")}
    hosts = {how: subprocess.Popen(
        [sys.executable, "-m", "toolhost", "serve", str(config), "--all"],
        stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.DEVNULL,
        env={**os.environ, "HOSTILE_MODE": "deaf_call", "HOSTILE_LOG": log})
        for how, log in logs.items()}
    try:
        requests = [
            {"jsonrpc": "2.0", "id": 1, "method": "initialize", "params": {
                "protocolVersion": "2025-06-18", "capabilities": {},
                "clientInfo": {"name": "t", "version": "1"}}},
            {"jsonrpc": "2.0", "method": "notifications/initialized"},
            {"jsonrpc": "2.0", "id": 2, "method": "tools/call",
             "params": {"name": "h__echo", "arguments": {"text": "x"}}}]
        for host in hosts.values():
            assert host.stdin is not None
            host.stdin.write("".join(json.dumps(r) + "\n" for r in requests).encode())
            host.stdin.flush()
        for how, host in hosts.items():
            assert host.stdout is not None
            answers = [json.loads(host.stdout.readline()) for _ in range(2)]
            # the upstream is deaf now: the call's timeout (or the gateway's own deadline of
            # the same 1 s, whichever fires first on a loaded machine) answered it
            assert answers[1]["result"]["isError"] and "1s" in json.dumps(answers[1]), answers
            assert running_with(logs[how], "environ"), how
        hosts["eof"].stdin.close()  # type: ignore[union-attr]
        hosts["sigterm"].terminate()
        for host in hosts.values():
            host.wait(timeout=30)
        for how, log in logs.items():
            deadline = time.monotonic() + 10
            while running_with(log, "environ") and time.monotonic() < deadline:
                time.sleep(0.1)
            assert running_with(log, "environ") == [], f"the upstream ran on after the host ({how})"
    finally:
        for log in logs.values():
            for pid in running_with(log, "environ"):
                os.kill(pid, 9)
        for host in hosts.values():
            host.kill()
            host.wait()
            for pipe in (host.stdin, host.stdout):
                if pipe is not None:
                    pipe.close()
