"""A signal that ends ``toolhost run`` while tool calls run: each call is answered (an error
result saying toolhost is stopping, the signal named) before the CLI's stdin closes, and the
audit log gets a ``stopped`` line for it. A host that stops never drops a call."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import time
from pathlib import Path

import pytest

from tests.runner.cli_harness import FAKE_CLI_HEAD, TOOLHOST, fake_cli

# Logs every line it reads (and the end of its stdin); a turn starts two calls of the slow
# tool; an interrupt is acknowledged, never acted on (a CLI that ignores it)
CALLS = FAKE_CLI_HEAD + r'''
    elif m.get("type") == "user":
        for b in range(12 if os.environ.get("FAKE_SLOW") else 0):  # big answers first
            send({{"type": "control_request", "request_id": f"big{{b}}", "request": {{
                  "subtype": "mcp_message", "server_name": "s", "message": {{
                  "jsonrpc": "2.0", "id": 10 + b, "method": "tools/call", "params": {{
                  "name": "big", "arguments": {{}}}}}}}}}})
        for i in (1, 2):
            send({{"type": "control_request", "request_id": f"c{{i}}", "request": {{
                  "subtype": "mcp_message", "server_name": "s", "message": {{
                  "jsonrpc": "2.0", "id": i, "method": "tools/call", "params": {{
                  "name": "slow", "arguments": {{"n": str(i)}},
                  "_meta": {{"claudecode/toolUseId": f"t{{i}}"}}}}}}}}}})
        if os.environ.get("FAKE_SLOW"):
            time.sleep(float(os.environ["FAKE_SLOW"]))
log.write(b'{{"type": "end of stdin"}}\n')
'''

CONFIG = """\
toolhost: 1
servers:
  s:
    tools:
      slow:
        command: [sh, -c, 'echo "$1" >> "$0"; exec sleep 60', {started}, "{{{{ n }}}}"]
        params: {{n: {{type: string}}}}
      big:
        command: [sh, -c, 'head -c 39000 /dev/zero | tr "\\0" x; echo big >> "$0"', {started}]
permissions:
  default: allow
  audit_log: {audit}
"""


@pytest.mark.parametrize(("signum", "status", "named", "slow"), [
    (signal.SIGTERM, 143, "SIGTERM", False), (signal.SIGHUP, 129, "SIGHUP", False),
    (signal.SIGINT, 130, "Ctrl-C", False),
    # a CLI slow to read (12 answers of 39 KB unread): the answers still go before its
    # stdin closes
    (signal.SIGTERM, 143, "SIGTERM", True),
], ids=["SIGTERM", "SIGHUP", "SIGINT", "slow-reader"])
def test_tool_calls_running_at_a_signal_are_answered_before_the_cli_stops(
        tmp_path: Path, signum: int, status: int, named: str, slow: bool) -> None:
    cli = fake_cli(tmp_path, CALLS)
    started, audit, log = tmp_path / "started", tmp_path / "audit.jsonl", tmp_path / "cli.log"
    config = tmp_path / "c.yaml"
    config.write_text(CONFIG.format(started=started, audit=audit))
    # a Ctrl-C interrupts the turn first; the CLI ignores it, so the run ends 0.5 s later
    env = {**os.environ, "FAKE_LOG": str(log), "TOOLHOST_INTERRUPT_GRACE": "0.5"}
    if slow:  # it reads again 2 s after the calls, well within the grace it gets (10 s)
        env.update(FAKE_SLOW="2", TOOLHOST_SIGNAL_GRACE="10")
    with subprocess.Popen([TOOLHOST, "run", str(config), "--cli", str(cli), "-p", "go"],
                          stdin=subprocess.DEVNULL, stdout=subprocess.PIPE,
                          stderr=subprocess.PIPE, env=env) as process:
        try:
            deadline = time.monotonic() + 30
            while not (started.exists() and len(started.read_text().split()) == 2 + 12 * slow):
                assert time.monotonic() < deadline and process.poll() is None, \
                    process.communicate()
                time.sleep(0.02)
            if slow:  # the big answers written (into the pipe and toolhost's own buffer)
                time.sleep(0.5)
            process.send_signal(signum)
            _out, err = process.communicate(timeout=60)
        finally:
            if process.poll() is None:
                process.kill()
    assert process.returncode == status, err
    read = [json.loads(line) for line in log.read_text().splitlines()]
    assert read[-1] == {"type": "end of stdin"}, read  # what follows was read before it
    text = (f"The call was cancelled before it ended: toolhost is stopping ({named}). "
            "It may have done part of its work.")
    for i in (1, 2):
        answers = [m["response"] for m in read if m["type"] == "control_response"
                   and m["response"]["request_id"] == f"c{i}"]
        assert answers == [{"subtype": "success", "request_id": f"c{i}", "response": {
            "mcp_response": {"jsonrpc": "2.0", "id": i, "result": {
                "content": [{"type": "text", "text": text}], "isError": True}}}}], read
    records = [json.loads(line) for line in audit.read_text().splitlines()]
    stopped = sorted((r["tool_use_id"], r["arguments"]["n"]) for r in records
                     if r.get("event") == "stopped" and r["tool"] == "mcp__s__slow")
    assert stopped == [("t1", "1"), ("t2", "2")], records
    assert all(r["message"] == text and "decision" not in r
               for r in records if r.get("event") == "stopped"), records
    if slow:  # the big calls too: each answered once, with its result
        big = [m["response"]["response"]["mcp_response"]["result"]["content"][0]["text"]
               for m in read if m["type"] == "control_response"
               and m["response"]["request_id"].startswith("big")]
        assert big == ["x" * 39_000] * 12
