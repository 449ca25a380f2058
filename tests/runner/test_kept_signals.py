"""A plugin or a python tool module that sets a signal's disposition at import does not keep
it for the session: ``toolhost run`` puts back what it had and says which."""

from __future__ import annotations

import json
import signal
import subprocess
import time
from pathlib import Path

from tests.runner.cli_harness import TOOLHOST, cli_text, fake_cli
from toolhost.runner.kept_signals import kept_signals

# calls the command tool echo in its turn; writes the answer to $ANSWER; ends the turn
CALLS = cli_text(r'''
    elif m.get("type") == "control_response" and m["response"]["request_id"] == "c":
        open(os.environ["ANSWER"], "w").write(json.dumps(m["response"]["response"]))
        send({{"type": "result", "subtype": "success", "is_error": False, "result": "ok",
              "uuid": "u"}})
    elif m.get("type") == "user":
        send({{"type": "control_request", "request_id": "c", "request": {{
              "subtype": "mcp_message", "server_name": "s", "message": {{"jsonrpc": "2.0",
              "id": 1, "method": "tools/call", "params": {{"name": "echo",
              "arguments": {{"text": "hi"}}}}}}}}}})
''')

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
    answer = tmp_path / "answer.json"
    done = subprocess.run([TOOLHOST, "run", "c.yaml", "--cli", str(cli), "-p", "hi"],
                          cwd=tmp_path, stdin=subprocess.DEVNULL, capture_output=True,
                          text=True, timeout=60,
                          env={"PATH": "/usr/bin:/bin", "ANSWER": str(answer)})
    assert done.returncode == 0, done.stderr
    assert json.loads(answer.read_text())["mcp_response"]["result"] == {
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


# calls grab (an async python tool that sets SIGTERM back to its default), then a slow call;
# says when that one was sent
GRABS = cli_text(r'''
    elif m.get("type") == "control_response" and m["response"]["request_id"] == "g":
        call("s", "slow")
    elif m.get("type") == "user":
        call("g", "grab")
''', prelude=r'''
    def call(rid, name):
        send({{"type": "control_request", "request_id": rid, "request": {{
              "subtype": "mcp_message", "server_name": "s", "message": {{"jsonrpc": "2.0",
              "id": rid, "method": "tools/call", "params": {{"name": name,
              "arguments": {{}}}}}}}}}})
''')


def test_a_tool_cannot_take_sigterm_from_the_session(tmp_path: Path) -> None:
    # An async tool's signal.signal(SIGTERM, SIG_DFL) replaced the event loop's handler: the
    # next SIGTERM ended toolhost outright, the slow call unanswered and never audited
    (tmp_path / "grabber.py").write_text(
        "import signal\n"
        "async def grab() -> str:\n"
        "    signal.signal(signal.SIGTERM, signal.SIG_DFL)\n"
        "    return 'grabbed'\n")
    running = tmp_path / "running"
    (tmp_path / "c.yaml").write_text(f"""\
toolhost: 1
servers:
  s:
    tools:
      grab:
        python: grabber:grab
      slow:
        command: [sh, -c, 'touch "$0"; exec sleep 60', {json.dumps(str(running))}]
permissions:
  default: allow
""")
    cli = fake_cli(tmp_path, GRABS)
    log = tmp_path / "cli.log"
    with subprocess.Popen([TOOLHOST, "run", "c.yaml", "--cli", str(cli), "-p", "hi"],
                          cwd=tmp_path, stdin=subprocess.DEVNULL, stdout=subprocess.PIPE,
                          stderr=subprocess.PIPE, text=True,
                          env={"PATH": "/usr/bin:/bin", "FAKE_LOG": str(log)}) as process:
        deadline = time.monotonic() + 30
        while not running.exists() and time.monotonic() < deadline:
            time.sleep(0.01)
        process.send_signal(signal.SIGTERM)
        _, err = process.communicate(timeout=60)
    assert process.returncode == 143
    assert "SIGTERM: stopping the session" in err, err
    answers = {m["response"]["request_id"]: m["response"]["response"]["mcp_response"]
               for m in map(json.loads, log.read_text().splitlines())
               if m["type"] == "control_response"}
    assert "SIGTERM belongs to toolhost run" in json.dumps(answers["g"])
    assert "toolhost is stopping (SIGTERM)" in json.dumps(answers["s"]), answers
