"""A fake Claude CLI and ``toolhost run`` at a real pseudo-terminal, for the runner's
end-to-end tests of questions, interrupts and signals (one set-up, not one per test file)."""

from __future__ import annotations

import fcntl
import os
import pty
import select
import subprocess
import sys
import termios
import textwrap
import time
from collections.abc import Iterator
from contextlib import contextmanager, suppress
from pathlib import Path

TOOLHOST = str(Path(sys.executable).parent / "toolhost")

# A fake CLI is a ``str.format`` template (``{python}``; other braces doubled): the top, a
# prelude slot (module-level code run before the first line is read: helpers its arms call),
# then a loop that logs every line it reads to $FAKE_LOG (if set) and acknowledges every
# control request; the arms that follow add ``elif`` branches to it
_TOP = r'''#!{python}
import json, os, signal, sys, threading, time
log = open(os.environ.get("FAKE_LOG", os.devnull), "ab", buffering=0)
def send(o):
    print(json.dumps(o), flush=True)
'''
_LOOP = r'''
for line in sys.stdin:
    log.write(line.encode())
    m = json.loads(line)
    if m.get("type") == "control_request":
        send({{"type": "control_response", "response": {{"subtype": "success",
              "request_id": m["request_id"], "response": {{}}}}}})
'''


def cli_text(arms: str, prelude: str = "") -> str:
    """A fake CLI's text: ``prelude`` (top-level code, e.g. ``def die(): ...``) put before
    the reading loop, ``arms`` (``elif`` branches, indented 4) after its control-request
    branch. Both follow the template's brace doubling."""
    return _TOP + textwrap.dedent(prelude) + _LOOP + arms


FAKE_CLI_HEAD = cli_text("")
"""The fake CLI with no prelude and no arms: tests append their ``elif`` arms to it."""

# Logs every line it reads; a turn asks about mcp__s__echo, ends when the answer comes
ASKS = FAKE_CLI_HEAD + r'''
    elif m.get("type") == "control_response" and m["response"]["request_id"] == "q":
        send({{"type": "result", "subtype": "error_during_execution", "is_error": True,
              "result": "", "uuid": "u"}})
    elif m.get("type") == "user":
        send({{"type": "control_request", "request_id": "q", "request": {{
              "subtype": "can_use_tool", "tool_name": "mcp__s__echo",
              "input": {{"text": "x"}}, "tool_use_id": "t1"}}}})
'''

ECHO_CONFIG = """\
toolhost: 1
servers:
  s:
    tools:
      echo:
        command: [printf, "%s", "{{ text }}"]
        params: {text: {type: string}}
"""
CONFIG = ECHO_CONFIG + "permissions:\n  default: ask\n"


def read_until(master: int, text: str, seconds: float = 30) -> str:
    data = b""
    deadline = time.monotonic() + seconds
    while text.encode() not in data and time.monotonic() < deadline:
        if select.select([master], [], [], 0.1)[0]:
            try:
                data += os.read(master, 65536)
            except OSError:
                break
    return data.decode(errors="replace")


def fake_cli(tmp_path: Path, text: str) -> Path:
    """``text`` (a fake CLI, ``{python}`` for the interpreter) as the executable
    ``tmp_path/cli.py``."""
    cli = tmp_path / "cli.py"
    cli.write_text(text.format(python=sys.executable))
    cli.chmod(0o755)
    return cli


def _own_terminal() -> None:
    os.setsid()
    fcntl.ioctl(0, termios.TIOCSCTTY, 0)


@contextmanager
def at_terminal(tmp_path: Path, config_text: str, cli_text: str, **env: str
                ) -> Iterator[tuple[subprocess.Popen[bytes], int]]:
    """``toolhost run`` of ``config_text`` with the fake CLI of ``cli_text`` (its log:
    ``tmp_path/cli.log``) on a real terminal of its own (``TERM=xterm`` and ``env`` set):
    the process and the terminal's master end (killed and closed after)."""
    cli = fake_cli(tmp_path, cli_text)
    config = tmp_path / "c.yaml"
    config.write_text(config_text)
    master, slave = pty.openpty()
    try:
        with subprocess.Popen([TOOLHOST, "run", str(config), "--cli", str(cli)],
                              stdin=slave, stdout=slave, stderr=slave,
                              preexec_fn=_own_terminal,
                              env={**os.environ, "FAKE_LOG": str(tmp_path / "cli.log"),
                                   "TERM": "xterm", **env}) as process:
            try:
                yield process, master
            finally:
                if process.poll() is None:
                    process.kill()
    finally:
        with suppress(OSError):  # a test may close it (the terminal hangs up)
            os.close(master)
        os.close(slave)


@contextmanager
def at_question(tmp_path: Path, config_text: str = CONFIG, cli_text: str = ASKS
                ) -> Iterator[tuple[subprocess.Popen[bytes], int]]:
    """``at_terminal`` with a turn typed and its permission question shown."""
    with at_terminal(tmp_path, config_text, cli_text) as (process, master):
        assert "> " in read_until(master, "> ")
        os.write(master, b"save it\n")
        assert "Allow?" in read_until(master, "Allow?")
        yield process, master
