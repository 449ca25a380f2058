"""Under ``toolhost serve`` over stdio nothing but JSON-RPC reaches stdout: a tool's print,
writes to sys.stdout and to fd 1, and a child inheriting fd 1 all land on stderr."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

NOISY = '''
import os, subprocess, sys

def noisy(word: str) -> str:
    print("PRINTED", word)
    sys.stdout.write("WRITTEN\\n")
    sys.__stdout__.write("DUNDER\\n")
    sys.__stdout__.flush()
    os.write(1, b"FD1\\n")
    subprocess.run(["echo", "CHILD"], check=True)
    return "quiet " + word
'''

NOISES = ["PRINTED", "WRITTEN", "DUNDER", "FD1", "CHILD"]


@pytest.mark.parametrize("isolation", ["in-process", "process"])
def test_only_protocol_lines_reach_stdout(tmp_path: Path, isolation: str) -> None:
    (tmp_path / "th_noisy.py").write_text(NOISY)
    config = tmp_path / "n.yaml"
    config.write_text("toolhost: 1\nservers:\n  n:\n    tools:\n"
                      f"      noisy: {{python: {{function: 'th_noisy:noisy', "
                      f"isolation: {isolation}}}}}\n"
                      "permissions:\n  default: allow\n")
    requests = [
        {"jsonrpc": "2.0", "id": 1, "method": "initialize", "params": {
            "protocolVersion": "2025-11-25", "capabilities": {},
            "clientInfo": {"name": "t", "version": "1"}}},
        {"jsonrpc": "2.0", "method": "notifications/initialized"},
        *({"jsonrpc": "2.0", "id": 10 + i, "method": "tools/call",
           "params": {"name": "noisy", "arguments": {"word": f"w{i}"}}} for i in range(3)),
    ]
    stdin = "".join(json.dumps(r) + "\n" for r in requests)
    done = subprocess.run([sys.executable, "-m", "toolhost", "serve", str(config)],
                          input=stdin, capture_output=True, text=True, timeout=120,
                          env={**os.environ}, check=False)
    assert done.returncode == 0, done.stderr
    answers = [json.loads(line) for line in done.stdout.splitlines()]  # every line is JSON
    results = {a["id"]: a["result"]["content"][0]["text"] for a in answers if a.get("id", 0) >= 10}
    assert results == {10: "quiet w0", 11: "quiet w1", 12: "quiet w2"}
    for noise in NOISES:
        assert noise not in done.stdout
        assert done.stderr.count(noise) >= 3, (noise, done.stderr)
