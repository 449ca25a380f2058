"""What a tool writes while a permission question is open waits for the answer: bytes written
to fds 1 and 2 below Python (``os.write``, a child process) and ``print`` to ``sys.stdout``
/``sys.stderr`` went into the question at once, tearing the line the answer is typed on."""

from __future__ import annotations

import io
import json
import os
import time
from pathlib import Path

from tests.runner.cli_harness import FAKE_CLI_HEAD, at_terminal, read_until
from toolhost.runner.held_output import MAX_HELD, HeldOutput

# asks about mcp__s__asked; once FAKE_GO exists (the question is on screen), calls
# mcp__s__noisy (allowed by a rule), which writes every way a tool can
NOISY_CLI = FAKE_CLI_HEAD + r'''
    elif m.get("type") == "control_response" and m["response"]["request_id"] == "q":
        send({{"type": "result", "subtype": "success", "is_error": False, "result": "",
              "uuid": "u"}})
    elif m.get("type") == "user":
        send({{"type": "control_request", "request_id": "q", "request": {{
              "subtype": "can_use_tool", "tool_name": "mcp__s__asked", "input": {{}},
              "tool_use_id": "t1"}}}})
        while not os.path.exists(os.environ["FAKE_GO"]):
            time.sleep(0.01)
        send({{"type": "control_request", "request_id": "c1", "request": {{
              "subtype": "mcp_message", "server_name": "s", "message": {{
              "jsonrpc": "2.0", "id": 1, "method": "tools/call", "params": {{
              "name": "noisy", "arguments": {{}}}}}}}}}})
'''

NOISY_TOOLS = """\
import os, subprocess, sys


def noisy() -> str:
    os.write(2, b"RAW-FD2\\n")
    os.write(1, b"RAW-FD1\\n")
    print("PRINT-ERR", file=sys.stderr, flush=True)
    print("PRINT-OUT", flush=True)
    subprocess.run(["sh", "-c", "echo CHILD-ERR >&2"], check=True)
    return "ok"


def asked() -> str:
    return "asked"
"""

CONFIG = """\
toolhost: 1
servers:
  s:
    tools:
      noisy: {python: "noisy_tools:noisy"}
      asked: {python: "noisy_tools:asked"}
permissions:
  default: ask
  allow: [mcp__s__noisy]
"""
WRITTEN = ["RAW-FD2", "RAW-FD1", "PRINT-ERR", "PRINT-OUT", "CHILD-ERR"]


def test_what_a_tool_writes_while_a_question_is_open_comes_after_the_answer(
        tmp_path: Path) -> None:
    (tmp_path / "noisy_tools.py").write_text(NOISY_TOOLS)
    log, go = tmp_path / "cli.log", tmp_path / "go"
    with at_terminal(tmp_path, CONFIG, NOISY_CLI, FAKE_GO=str(go)) as (process, master):
        shown = read_until(master, "> ")
        os.write(master, b"go\n")
        shown += read_until(master, "Allow?")
        go.touch()
        # the tool has run and answered: everything it wrote is in toolhost's hands
        deadline = time.monotonic() + 30
        while '"request_id":"c1"' not in log.read_text():
            assert time.monotonic() < deadline and process.poll() is None, shown
            time.sleep(0.02)
        os.write(master, b"y\n")
        shown += read_until(master, "allowed by default (person)")
        os.write(master, b"\x04")  # Ctrl-D at the next prompt: the end
        shown += read_until(master, "\x1b[?2004l")
        process.wait(timeout=30)
    assert "[n] deny: y\r\n" in shown, shown  # the answer on the question's own line
    answered = shown.index("[n] deny: y\r\n")
    for text in WRITTEN:
        assert answered < shown.index(text) < shown.index("allowed by default"), shown
    assert json.loads(log.read_text().splitlines()[-1])["response"]["request_id"] == "q"


def test_held_writes_are_bounded_and_the_rest_counted() -> None:
    asking = [True]
    held = HeldOutput(lambda: asking[0])
    out, err = io.StringIO(), io.StringIO()
    held.write(out, "first\n")
    held.write(err, "x" * MAX_HELD)  # past the bound: counted, not kept
    held.write(out, "second\n")
    assert out.getvalue() == err.getvalue() == ""
    asking[0] = False
    held.write(err, "after\n")  # the next write lets what was held go first, in order
    assert out.getvalue() == ("first\nsecond\n"
                              f"(toolhost: {MAX_HELD:,} more characters were written while "
                              f"a question was open; the first {MAX_HELD:,} were kept)\n")
    assert err.getvalue() == "after\n"
