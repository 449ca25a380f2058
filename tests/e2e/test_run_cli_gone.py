"""The CLI exits, or closes its output, while a tool call runs: the call is cancelled (its
processes stopped) and the run ends at once, never waiting for a tool nobody can hear from
(red team runner2 F7)."""

from __future__ import annotations

import subprocess
import time
from pathlib import Path

import pytest

from .fakecli import ECHO_SERVER, run_fake

pytestmark = pytest.mark.e2e


def config(tmp_path: Path, marker: Path, seconds: str) -> Path:
    path = tmp_path / "toolhost.yaml"
    path.write_text(ECHO_SERVER + f"""\
      slow:
        command: [sh, -c, 'sleep {seconds}; touch {marker}']
permissions:
  default: allow
""")
    return path


def call(request_id: str) -> dict[str, object]:
    return {"type": "control_request", "request_id": request_id, "request": {
        "subtype": "mcp_message", "server_name": "s", "message": {
            "jsonrpc": "2.0", "id": 1, "method": "tools/call",
            "params": {"name": "slow", "arguments": {},
                       "_meta": {"claudecode/toolUseId": "toolu_1"}}}}}


def running(pattern: str) -> bool:
    return subprocess.run(["pgrep", "-f", pattern], capture_output=True,
                          check=False).returncode == 0


@pytest.mark.parametrize("how,seconds", [("#EXIT", "91.25"), ("#CLOSE", "91.5")])
def test_a_call_in_flight_is_cancelled_when_the_cli_is_gone(
        tmp_path: Path, how: str, seconds: str) -> None:
    marker = tmp_path / "after"
    began = time.monotonic()
    done, _ = run_fake(tmp_path, config(tmp_path, marker, seconds),
                       [call("m1"), "#SLEEP 1", how], wait=20, timeout=60)
    took = time.monotonic() - began
    assert took < 25, (took, done.stderr)  # the CLI's own 10 s of grace at most
    assert done.returncode == 1, done.stderr
    assert "Traceback" not in done.stderr
    assert not running(f"sleep {seconds}")  # the command was stopped, not left behind
    assert not marker.exists()
