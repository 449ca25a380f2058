"""SIGKILL of ``toolhost run`` during a command tool: the tool's process group and what it
started (background children that ignore SIGTERM/SIGHUP, a ``setsid`` child) die with it, on
Linux, where the CLI also gets its parent-death signal."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

from .conftest import HERE, TOOLHOST
from .fakecli import FAKE_CLI, lines_file
from .tty import assert_nothing_left, kill_leftovers, leftovers, new_token

pytestmark = [pytest.mark.e2e,
              pytest.mark.skipif(not sys.platform.startswith("linux"),
                                 reason="the marker scan and the CLI's death signal: Linux")]

CONFIG = """\
toolhost: 1
servers:
  s:
    tools:
      sh:
        timeout: 600s
        command:
          argv: [sh, -c, "@SCRIPT@"]
          env: {E2E_TOKEN: "@TOKEN@"}
permissions:
  default: allow
"""

# the red team's shape: a leader and children that ignore TERM/HUP, one in the group, one
# left behind by a subshell, one in a session of its own
SCRIPT = ("trap '' TERM HUP; (trap '' TERM HUP; exec sleep 6111) & (setsid sleep 6222 &); "
          "(sleep 6444 &); sleep 6333")


def _call() -> dict[str, object]:
    return {"type": "control_request", "request_id": "c1", "request": {
        "subtype": "mcp_message", "server_name": "s", "message": {
            "jsonrpc": "2.0", "id": 1, "method": "tools/call",
            "params": {"name": "sh", "arguments": {}}}}}


@pytest.mark.parametrize("run", ["script", "call"])
def test_sigkill_of_toolhost_takes_the_command_tool_and_its_children(tmp_path: Path,
                                                                     run: str) -> None:
    token = new_token()
    config = tmp_path / "c.yaml"
    config.write_text(CONFIG.replace("@SCRIPT@", SCRIPT).replace("@TOKEN@", token))
    env = {**os.environ, "PYTHONPATH": str(HERE), "FAKE_LOG": str(tmp_path / "fake.log"),
           "FAKE_LINES": str(lines_file(tmp_path, [_call()])), "FAKE_WAIT": "600",
           "E2E_TOKEN": token}
    argv = ([str(TOOLHOST), "run", str(config), "--cli", str(FAKE_CLI), "-p", "hi"]
            if run == "script" else [str(TOOLHOST), "call", str(config), "s.sh"])
    host = subprocess.Popen(argv, stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL,
                            stderr=subprocess.DEVNULL, env=env, start_new_session=True)
    try:
        deadline = time.monotonic() + 60
        while sum(f"sleep 6{n}" in line for line in leftovers(token)
                  for n in ("111", "222", "333", "444")) < 4:
            assert time.monotonic() < deadline, leftovers(token)
            assert host.poll() is None
            time.sleep(0.1)
        host.send_signal(signal.SIGKILL)
        host.wait()
        assert_nothing_left(token, timeout=10)
    finally:
        if host.poll() is None:
            host.kill()
            host.wait()
        kill_leftovers(token)
