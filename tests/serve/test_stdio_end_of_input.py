"""A stdio client that sends its requests, closes our input and reads on (``printf ... |
toolhost serve``): every request it sent is answered. Those still running when the grace
ends are answered -32800 saying why, and answers already computed but not yet written go
out (before, both were dropped when the grace ended: the client waited for them forever).
A real ``toolhost serve`` process."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path
from typing import Any

from tests.serve.conftest import server_env

HERE = Path(__file__).parent
CONFIG = """\
toolhost: 1
servers:
  s:
    tools:
      hang: {python: "blackbox_tools:hang"}
permissions:
  default: allow
"""


def test_every_request_sent_before_the_end_of_input_is_answered(tmp_path: Path) -> None:
    (tmp_path / "s.yaml").write_text(CONFIG)
    env = {**server_env(), "PYTHONPATH": os.pathsep.join(
        p for p in (str(HERE), server_env().get("PYTHONPATH")) if p)}
    hanging = [{"jsonrpc": "2.0", "id": f"h{i}", "method": "tools/call",
                "params": {"name": "hang", "arguments": {}}} for i in range(3)]
    pings = [{"jsonrpc": "2.0", "id": i, "method": "ping"} for i in range(300)]
    sent = b"".join(json.dumps(m).encode() + b"\n" for m in [*hanging, *pings])
    proc = subprocess.run([sys.executable, "-m", "toolhost", "serve", str(tmp_path / "s.yaml"),
                           "--shutdown-grace", "0.1"], input=sent, capture_output=True,
                          env=env, timeout=60)
    assert proc.returncode == 0, proc.stderr
    answers: dict[Any, dict[str, Any]] = {}
    for line in proc.stdout.splitlines():
        message = json.loads(line)
        if "id" in message:
            assert message["id"] not in answers, message  # one answer each
            answers[message["id"]] = message
    assert sorted(answers, key=str) == sorted([m["id"] for m in [*hanging, *pings]], key=str)
    for message in hanging:
        error = answers[message["id"]]["error"]
        assert error["code"] == -32800 and "grace" in error["message"], error
    assert all(answers[i] == {"jsonrpc": "2.0", "id": i, "result": {}} for i in range(300))
