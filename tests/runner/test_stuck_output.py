"""``toolhost run`` whose stdout nobody reads keeps serving the Claude CLI, and a SIGTERM
still ends it (143). Before: the transcript's write blocked the event loop once the pipe was
full: the CLI's permission request was never answered and SIGTERM was never acted on."""

from __future__ import annotations

import os
import signal
import subprocess
import time
from pathlib import Path

import pytest

from tests.runner.cli_harness import FAKE_CLI_HEAD, TOOLHOST, fake_cli

# A turn that writes ~400 KB of model text (six pipes full), then asks about a call the
# rules allow; once answered, the turn stays open (until the test's SIGTERM)
CLI = FAKE_CLI_HEAD + r'''
    elif m.get("type") == "control_response" and m["response"]["request_id"] == "q":
        log.write(b"ANSWERED " + json.dumps(m["response"]).encode() + b"\n")
    elif m.get("type") == "user":
        for i in range(400):
            send({{"type": "assistant", "message": {{"id": "m%d" % i, "content": [
                  {{"type": "text", "text": "x" * 1000}}]}}}})
        send({{"type": "control_request", "request_id": "q", "request": {{
              "subtype": "can_use_tool", "tool_name": "mcp__s__echo",
              "input": {{"text": "x"}}, "tool_use_id": "t1"}}}})
'''
CONFIG = """\
toolhost: 1
servers:
  s:
    tools:
      echo:
        command: [printf, "%s", "{{ text }}"]
        params: {text: {type: string}}
permissions:
  default: deny
  allow: ["mcp__s__echo"]
"""


def _wait_for(path: Path, text: str, seconds: float = 60) -> str:
    deadline = time.monotonic() + seconds
    while time.monotonic() < deadline:
        seen = path.read_text() if path.exists() else ""
        if text in seen:
            return seen
        time.sleep(0.05)
    return path.read_text() if path.exists() else ""


@pytest.mark.parametrize("output", ["text", "json"])
def test_a_stdout_nobody_reads_stops_neither_the_calls_nor_sigterm(
        tmp_path: Path, output: str) -> None:
    cli = fake_cli(tmp_path, CLI)
    (tmp_path / "c.yaml").write_text(CONFIG)
    log = tmp_path / "cli.log"
    read, write = os.pipe()  # stdout: a pipe nobody reads
    try:
        with subprocess.Popen([TOOLHOST, "run", str(tmp_path / "c.yaml"), "--cli", str(cli),
                               "-p", "go", "--output", output],
                              stdin=subprocess.DEVNULL, stdout=write, stderr=subprocess.DEVNULL,
                              env={**os.environ, "FAKE_LOG": str(log)},
                              start_new_session=True) as process:
            os.close(write)
            try:
                seen = _wait_for(log, "ANSWERED")
                assert '"behavior": "allow"' in seen, seen  # answered, while stdout is full
                process.send_signal(signal.SIGTERM)
                assert process.wait(60) == 143  # stopped, and ended: nobody reads the rest
            finally:
                if process.poll() is None:
                    os.killpg(process.pid, signal.SIGKILL)
                    process.wait()
    finally:
        os.close(read)
