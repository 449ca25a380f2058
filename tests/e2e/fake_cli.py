#!/usr/bin/env python3
"""A fake Claude CLI for tests of what toolhost does with what a CLI sends (it speaks the
stream-json control protocol just enough): it answers ``initialize``, waits for the first
user turn, sends an ``init`` message, then the raw lines of ``$FAKE_LINES`` (``#SLEEP s``
lines pause, ``#EXIT`` exits at once, ``#CLOSE`` closes its stdout and lives on), then
collects what toolhost sends (logged to ``$FAKE_LOG``) for ``$FAKE_WAIT`` seconds and ends
the turn with a ``result``. ``FAKE_MODE=garbage``: junk on stdout and control characters on
stderr, then exit 2."""

import json
import os
import sys
import threading
import time

log = open(os.environ.get("FAKE_LOG", os.devnull), "ab", buffering=0)  # noqa: SIM115
out = sys.stdout.buffer
inp = sys.stdin.buffer


def send(obj: object) -> None:
    out.write((json.dumps(obj) + "\n").encode())
    out.flush()


def readline() -> bytes:
    line = inp.readline()
    log.write(b"IN " + line)
    return line


def main() -> None:
    if os.environ.get("FAKE_MODE") == "garbage":
        out.write(b"\x1b]52;c;aGVsbG8=\x07garbage not json\n")
        out.flush()
        sys.stderr.write("boom \x1b[31mred\x1b[0m\x1b]52;c;ZXZpbA==\x07 \u202eevil\n")
        sys.exit(2)
    while True:  # initialize
        line = readline()
        if not line:
            sys.exit(0)
        message = json.loads(line)
        if message.get("type") == "control_request":
            send({"type": "control_response", "response": {
                "subtype": "success", "request_id": message["request_id"], "response": {}}})
            break
    while True:  # the first user turn
        line = readline()
        if not line:
            sys.exit(0)
        if json.loads(line).get("type") == "user":
            break
    ended = threading.Event()

    def drain() -> None:
        while readline():
            pass
        ended.set()

    threading.Thread(target=drain, daemon=True).start()
    send({"type": "system", "subtype": "init", "session_id": "s", "tools": [],
          "mcp_servers": [], "model": "fake", "claude_code_version": "2.1.330"})
    with open(os.environ["FAKE_LINES"], "rb") as f:
        for raw in f.read().split(b"\n"):
            if raw.startswith(b"#SLEEP"):
                time.sleep(float(raw.split()[1]))
            elif raw == b"#EXIT":
                os._exit(0)
            elif raw == b"#CLOSE":
                out.close()
                os.close(1)
                ended.wait(float(os.environ.get("FAKE_WAIT", "3")))
                os._exit(0)
            elif raw:
                out.write(raw + b"\n")
                out.flush()
    ended.wait(float(os.environ.get("FAKE_WAIT", "3")))
    if ended.is_set():
        sys.exit(0)
    send({"type": "result", "subtype": "success", "is_error": False, "num_turns": 1,
          "duration_ms": 5, "total_cost_usd": 0.0, "result": "done", "session_id": "s"})
    ended.wait(30)


if __name__ == "__main__":
    main()
