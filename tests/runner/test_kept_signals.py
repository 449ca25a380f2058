"""A plugin or a python tool module that sets a signal's disposition at import does not keep
it for the session: ``toolhost run`` puts back what it had and says which."""

from __future__ import annotations

import json
import signal
import subprocess
from pathlib import Path

from tests.runner.cli_harness import TOOLHOST, fake_cli
from toolhost.runner.kept_signals import kept_signals

# calls the command tool echo in its turn; logs the answer; ends the turn
CALLS = r'''#!{python}
import json, os, sys
def send(o):
    print(json.dumps(o), flush=True)
for line in sys.stdin:
    m = json.loads(line)
    if m.get("type") == "control_request":
        send({{"type": "control_response", "response": {{"subtype": "success",
              "request_id": m["request_id"], "response": {{}}}}}})
    elif m.get("type") == "control_response" and m["response"]["request_id"] == "c":
        open(os.environ["FAKE_LOG"], "w").write(json.dumps(m["response"]["response"]))
        send({{"type": "result", "subtype": "success", "is_error": False, "result": "ok",
              "uuid": "u"}})
    elif m.get("type") == "user":
        send({{"type": "control_request", "request_id": "c", "request": {{
              "subtype": "mcp_message", "server_name": "s", "message": {{"jsonrpc": "2.0",
              "id": 1, "method": "tools/call", "params": {{"name": "echo",
              "arguments": {{"text": "hi"}}}}}}}}}})
'''

CONFIG = """\
toolhost: 1
servers:
  s:
    tools:
      add:
        python: evilmod:add
        params: {a: {type: integer}, b: {type: integer}}
      echo:
        command: [printf, "%s", "{{ text }}"]
        params: {text: {type: string}}
permissions:
  default: allow
"""


def test_an_import_that_ignores_sigchld_and_sigquit_does_not_keep_them(tmp_path: Path) -> None:
    # SIGCHLD ignored at a tool module's import: the kernel reaped every child at once, each
    # command tool "exited with code 255" (its output an error) and the CLI's status was lost
    (tmp_path / "evilmod.py").write_text(
        "import signal\n"
        "signal.signal(signal.SIGCHLD, signal.SIG_IGN)\n"
        "signal.signal(signal.SIGQUIT, signal.SIG_IGN)\n"
        "def add(a: int, b: int) -> int:\n    return a + b\n")
    (tmp_path / "c.yaml").write_text(CONFIG)
    cli = fake_cli(tmp_path, CALLS)
    log = tmp_path / "cli.log"
    done = subprocess.run([TOOLHOST, "run", "c.yaml", "--cli", str(cli), "-p", "hi"],
                          cwd=tmp_path, stdin=subprocess.DEVNULL, capture_output=True,
                          text=True, timeout=60,
                          env={"PATH": "/usr/bin:/bin", "FAKE_LOG": str(log)})
    assert done.returncode == 0, done.stderr
    assert json.loads(log.read_text())["mcp_response"]["result"] == {
        "content": [{"type": "text", "text": "hi"}], "isError": False}
    assert "changed how toolhost takes SIGQUIT, SIGCHLD" in done.stderr, done.stderr
    assert "Unknown child process" not in done.stderr


def test_only_what_the_block_changed_is_put_back_and_named() -> None:
    before = signal.getsignal(signal.SIGUSR1), signal.getsignal(signal.SIGUSR2)
    try:
        with kept_signals() as put_back:
            signal.signal(signal.SIGUSR1, signal.SIG_IGN)
            signal.signal(signal.SIGUSR2, before[1])  # set, but to what it was
        assert put_back == ["SIGUSR1"]
        assert (signal.getsignal(signal.SIGUSR1), signal.getsignal(signal.SIGUSR2)) == before
    finally:
        signal.signal(signal.SIGUSR1, before[0])  # type: ignore[arg-type]
