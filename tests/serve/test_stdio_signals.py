"""SIGTERM, SIGHUP or Ctrl-C to ``toolhost serve`` over stdio is a graceful shutdown, as over
HTTP: the calls running get ``--shutdown-grace`` to answer, those still running then are cancelled
and answered -32800 naming the signal, a request sent after the signal is refused at once
(-32000), and the process then ends by the signal; a second Ctrl-C cancels what runs at
once. Before, each signal ended the process at once: every call in flight went unanswered.
A real process on pipes."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
from pathlib import Path
from typing import IO, Any

import pytest

from tests.serve.conftest import HERE, server_env

CONFIG = """\
toolhost: 1
servers:
  slow:
    tools:
      nap: {python: "shutdown_tools:nap"}
permissions: {default: allow}
"""


def send(pipe: IO[bytes], message: dict[str, Any]) -> None:
    pipe.write(json.dumps(message).encode() + b"\n")
    pipe.flush()


def call(request_id: int, seconds: float) -> dict[str, Any]:
    return {"jsonrpc": "2.0", "id": request_id, "method": "tools/call",
            "params": {"name": "nap", "arguments": {"seconds": seconds}}}


@pytest.mark.skipif(sys.platform == "win32", reason="POSIX signals")
@pytest.mark.parametrize(("signum", "twice"), [
    (signal.SIGTERM, False), (getattr(signal, "SIGHUP", signal.SIGTERM), False),
    (signal.SIGINT, False), (signal.SIGINT, True)])
def test_a_signal_lets_running_calls_answer_then_cancels_the_rest_saying_why(
        tmp_path: Path, signum: int, twice: bool) -> None:
    config = tmp_path / "slow.yaml"
    config.write_text(CONFIG)
    env = server_env()
    env["PYTHONPATH"] = os.pathsep.join((str(HERE), env["PYTHONPATH"]))
    with subprocess.Popen([sys.executable, "-m", "toolhost", "serve", str(config),
                           "--shutdown-grace", "60" if twice else "2"], stdin=subprocess.PIPE,
                          stdout=subprocess.PIPE, stderr=subprocess.PIPE, env=env) as proc:
        assert proc.stdin is not None and proc.stdout is not None
        assert proc.stderr is not None
        try:
            send(proc.stdin, {"jsonrpc": "2.0", "id": 0, "method": "initialize", "params": {
                "protocolVersion": "2025-06-18", "capabilities": {},
                "clientInfo": {"name": "t", "version": "1"}}})
            assert b'"id":0' in proc.stdout.readline()
            send(proc.stdin, call(1, 0.2))
            send(proc.stdin, call(2, 600))
            send(proc.stdin, {"jsonrpc": "2.0", "id": 3, "method": "ping"})
            answers: dict[int, Any] = {}
            while 3 not in answers:  # once it is answered, both calls were started
                answer = json.loads(proc.stdout.readline())
                answers[answer["id"]] = answer
            proc.send_signal(signum)
            while 1 not in answers:
                answer = json.loads(proc.stdout.readline())
                answers[answer["id"]] = answer
            if twice:  # a second Ctrl-C: what runs is cancelled now, not after the grace
                proc.send_signal(signum)
            while len(answers) < 3:
                line = proc.stdout.readline()
                assert line, proc.stderr.read()
                answer = json.loads(line)
                answers[answer["id"]] = answer
            send(proc.stdin, call(4, 0))  # after the signal: refused, not started
            rest = [json.loads(line) for line in proc.stdout.read().splitlines()]
            code = proc.wait(30)
            log = proc.stderr.read().decode()
        finally:
            if proc.poll() is None:
                proc.kill()
    name = signal.Signals(signum).name
    assert answers[1]["result"]["content"][0]["text"] == "slept 0.2"
    assert answers[2]["error"]["code"] == -32800, answers
    assert (("told to stop at once" if twice else f"shutting down ({name})")
            in answers[2]["error"]["message"]), answers[2]
    assert [(a["id"], a["error"]["code"]) for a in rest] in ([(4, -32000)], []), rest
    assert code == (130 if signum == signal.SIGINT else -signum)  # (130: as Ctrl-C was)
    assert "Traceback" not in log
