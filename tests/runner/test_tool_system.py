"""A tool's ``os.system`` does not take Ctrl-C from the session.

libc's ``system()`` ignores SIGINT and SIGQUIT in the whole calling process while its command
runs: a sync tool calling ``os.system`` made toolhost ignore Ctrl-C (SIGINT) for as long as
the command ran: the interrupt was lost, the turn went on."""

from __future__ import annotations

import json
import signal
import subprocess
import time
from pathlib import Path

import pytest

from tests.runner.cli_harness import TOOLHOST, cli_text, fake_cli

# calls the tool `waits` in its turn
CALLS = cli_text(r'''
    elif m.get("type") == "user":
        send({{"type": "control_request", "request_id": "w", "request": {{
              "subtype": "mcp_message", "server_name": "s", "message": {{"jsonrpc": "2.0",
              "id": 1, "method": "tools/call", "params": {{"name": "waits",
              "arguments": {{}}}}}}}}}})
''')

TOOL = """\
import os
def waits() -> int:
    # a harmless loop in the test's own directory: it ends when the test says so
    return os.system('touch running; i=0; while [ ! -e stop ] && [ $i -lt 600 ]; '
                     'do sleep 0.1; i=$((i+1)); done')
"""

# the same, with ``system`` taken from os when the tools module is imported (the config's
# load, before the session starts): runner35 left it open, libc's system() was kept
TOOL_IMPORTED = TOOL.replace("import os\n", "from os import system\n").replace(
    "return os.system(", "return system(")


@pytest.mark.parametrize("tool", [TOOL, TOOL_IMPORTED], ids=["os.system", "from-os-import"])
def test_ctrl_c_while_a_tool_runs_os_system_interrupts(tmp_path: Path, tool: str) -> None:
    (tmp_path / "systool.py").write_text(tool)
    (tmp_path / "c.yaml").write_text(
        "toolhost: 1\nservers:\n  s:\n    tools:\n      waits:\n"
        "        python: systool:waits\npermissions:\n  default: allow\n")
    cli = fake_cli(tmp_path, CALLS)
    log = tmp_path / "cli.log"
    with subprocess.Popen([TOOLHOST, "run", "c.yaml", "--cli", str(cli), "-p", "hi"],
                          cwd=tmp_path, stdin=subprocess.DEVNULL, stdout=subprocess.PIPE,
                          stderr=subprocess.PIPE, text=True,
                          env={"PATH": "/usr/bin:/bin", "FAKE_LOG": str(log),
                               "TOOLHOST_INTERRUPT_GRACE": "0.5"}) as process:
        try:
            deadline = time.monotonic() + 30
            while not (tmp_path / "running").exists() and time.monotonic() < deadline:
                time.sleep(0.01)
            process.send_signal(signal.SIGINT)
            try:
                _, err = process.communicate(timeout=30)
            except subprocess.TimeoutExpired:  # the Ctrl-C was lost: the turn went on
                (tmp_path / "stop").touch()
                try:
                    _, err = process.communicate(timeout=60)
                except subprocess.TimeoutExpired:
                    process.kill()
                    _, err = process.communicate()
        finally:
            (tmp_path / "stop").touch()  # the loop ends either way
    assert process.returncode == 130, err
    assert "interrupting the turn" in err or "Ctrl-C" in err, err
    answers = [m for m in map(json.loads, log.read_text().splitlines())
               if m["type"] == "control_response" and m["response"]["request_id"] == "w"]
    assert len(answers) == 1, answers
    assert "toolhost is stopping (Ctrl-C)" in json.dumps(answers[0]), answers
