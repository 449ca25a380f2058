# ruff: noqa: E501  (the config holds one-line programs)
"""No piece of a secret leaves ``toolhost serve``: not whole, not cut, not as a number.

A real ``toolhost serve`` over stdio, with secrets in its environment, is asked for every kind
of thing it sends (initialize, tool/resource/prompt lists and reads, results cut at every cap,
progress, stderr lines, a process-isolated tool's prints and failure); nothing it writes, on
stdout or stderr, may hold six consecutive characters of a secret.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path
from typing import Any

from tests.serve.conftest import HERE

SECRETS = {"SVC_TOKEN": "svcTOKENzq7x42wv", "ACCOUNT_PIN": "98765432",
           "BOT_PASSWORD": "Geheim-pässwörd"}

CONFIG = """\
toolhost: 1
permissions: {default: allow}
servers:
  s:
    description: "Service with key ${SVC_TOKEN}"
    env: {SVC_TOKEN: "${SVC_TOKEN}", ACCOUNT_PIN: "${ACCOUNT_PIN}",
          BOT_PASSWORD: "${BOT_PASSWORD}"}
    tools:
      long_dict: {python: "secret_tools:long_dict"}
      long_text: {python: "secret_tools:long_text"}
      long_dict_p: {python: {function: "secret_tools:long_dict", isolation: process}}
      long_text_p: {python: {function: "secret_tools:long_text", isolation: process}}
      noisy_p: {python: {function: "secret_tools:noisy", isolation: process}}
      pin: {python: "secret_tools:pin"}
      pin_any: {python: "secret_tools:pin_any", output: structured}
      progress: {python: "secret_tools:progress"}
      pin_cmd:
        command:
          argv: [python3, -c, 'import json,os; print(json.dumps({"pin": int(os.environ["ACCOUNT_PIN"])}))']
          stdout: json
        output: structured
      capped:
        description: "Capped, see ${SVC_TOKEN}"
        command:
          argv: [python3, -c, 'import os,sys; sys.stdout.write("x"*86 + os.environ["BOT_PASSWORD"])']
          max_output_bytes: 100
        params:
          q: {type: string, description: "token ${SVC_TOKEN}", default: "${SVC_TOKEN}"}
      stderr_log:
        command:
          argv: [python3, -c, 'import os,sys,time; e=sys.stderr; e.write("p " + "."*4089 + os.environ["SVC_TOKEN"]); e.flush(); time.sleep(0.2); e.write(" done\\n"); e.flush()']
          stderr: log
    resources:
      key:
        uri: "key://{name}"
        description: "the key ${SVC_TOKEN}"
        command: [sh, -c, 'printf "%s=%s" "$0" "$SVC_TOKEN"', "{{ name }}"]
    prompts:
      use:
        description: "Use ${SVC_TOKEN}"
        template: "Call with ${SVC_TOKEN} and {{ what }}"
        arguments: {what: {description: what, required: true}}
"""


def _rpc(i: int, method: str, params: dict[str, Any] | None = None) -> str:
    message: dict[str, Any] = {"jsonrpc": "2.0", "id": i, "method": method}
    if params is not None:
        message["params"] = params
    return json.dumps(message)


def _windows(secret: str, size: int = 6) -> set[str]:
    return {secret[i:i + size] for i in range(len(secret) - size + 1)}


def test_no_piece_of_a_secret_leaves_serve(tmp_path: Path) -> None:
    config = tmp_path / "secrets.yaml"
    config.write_text(CONFIG)
    calls = [("long_dict", {"pad": 39_980}), ("long_text", {"pad": 39_990}),
             ("long_dict_p", {"pad": 39_980}), ("long_text_p", {"pad": 39_990}),
             ("noisy_p", {"x": "a"}), ("pin", {}), ("pin_cmd", {}), ("capped", {}),
             ("stderr_log", {}), ("pin_any", {})]
    lines = [
        _rpc(0, "initialize", {"protocolVersion": "2025-11-25", "capabilities": {},
                               "clientInfo": {"name": "t", "version": "1"}}),
        json.dumps({"jsonrpc": "2.0", "method": "notifications/initialized"}),
        _rpc(1, "tools/list"), _rpc(2, "resources/templates/list"),
        _rpc(3, "resources/read", {"uri": "key://current"}), _rpc(4, "prompts/list"),
        _rpc(5, "prompts/get", {"name": "use", "arguments": {"what": "it"}}),
        _rpc(6, "tools/call", {"name": "progress", "arguments": {},
                               "_meta": {"progressToken": "p"}}),
        *(_rpc(10 + n, "tools/call", {"name": name, "arguments": args})
          for n, (name, args) in enumerate(calls)),
    ]
    env = {**os.environ, **SECRETS, "PYTHONPATH": os.pathsep.join(
        p for p in (str(HERE), str(HERE.parent.parent), os.environ.get("PYTHONPATH")) if p)}
    env.pop("TOOLHOST_DEBUG", None)
    # one request at a time, so each answer is complete before the next (and stdin stays
    # open until the last answer: an EOF would end the session early)
    proc = subprocess.Popen([sys.executable, "-m", "toolhost", "serve", str(config), "--all"],
                            stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                            stderr=subprocess.PIPE, env=env, cwd=tmp_path)
    assert proc.stdin is not None and proc.stdout is not None and proc.stderr is not None
    answers: dict[int, Any] = {}
    out: list[str] = []
    for line in lines:
        proc.stdin.write(line.encode() + b"\n")
        proc.stdin.flush()
        wanted = json.loads(line).get("id")
        while wanted is not None and wanted not in answers:
            got = proc.stdout.readline().decode()
            assert got, "serve ended early"
            out.append(got)
            message = json.loads(got)
            if "id" in message and "method" not in message:
                answers[message["id"]] = message
    rest, err = proc.communicate(timeout=30)  # closes stdin: the session ends
    out.append(rest.decode())
    stderr = err.decode()
    assert proc.returncode == 0
    everything = "".join(out) + stderr
    assert all("error" not in a for a in answers.values()), answers
    # what was asked for did arrive, hidden
    assert "***" in answers[0]["result"]["instructions"]
    assert "***" in answers[3]["result"]["contents"][0]["text"]
    assert "a secret of the config was hidden" in answers[15]["result"]["content"][0]["text"]
    assert answers[16]["result"]["structuredContent"] == {"pin": "***"}
    assert answers[19]["result"]["structuredContent"] == {"pin": "***"}
    assert "stdout print ***" in stderr and "Traceback" not in stderr
    for name, secret in SECRETS.items():
        for piece in _windows(secret):
            assert piece not in everything, (name, piece)
