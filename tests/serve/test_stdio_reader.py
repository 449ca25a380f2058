"""The client's lines are read on a daemon thread: Ctrl-C (SIGINT) ends ``toolhost serve``
over stdio at once though the client keeps its end open (it waited for stdin to end), and a
read whose waiter was cancelled is not lost."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
from pathlib import Path

import anyio
import pytest

from tests.serve.conftest import server_env
from toolhost.serve.stdio_reader import LineReader

CONFIG = """\
toolhost: 1
servers:
  s:
    tools:
      echo:
        command: [echo, "{{ text }}"]
permissions:
  default: allow
"""
INIT = {"jsonrpc": "2.0", "id": 0, "method": "initialize", "params": {
    "protocolVersion": "2025-11-25", "capabilities": {},
    "clientInfo": {"name": "t", "version": "1"}}}


def test_ctrl_c_ends_serve_though_the_client_keeps_stdin_open(tmp_path: Path) -> None:
    config = tmp_path / "s.yaml"
    config.write_text(CONFIG)
    log = tmp_path / "server.log"
    with open(log, "wb") as err:
        proc = subprocess.Popen([sys.executable, "-m", "toolhost", "serve", str(config)],
                                stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=err,
                                env=server_env())
    assert proc.stdin is not None and proc.stdout is not None
    try:
        proc.stdin.write(json.dumps(INIT).encode() + b"\n")
        proc.stdin.flush()
        assert json.loads(proc.stdout.readline())["id"] == 0  # serving, reading stdin
        proc.send_signal(signal.SIGINT)
        try:  # stdin stays open: the exit must not wait for it
            code = proc.wait(30)
        except subprocess.TimeoutExpired:
            pytest.fail("toolhost serve still runs 30 s after SIGINT (stdin open)")
        assert code == 130
    finally:
        if proc.poll() is None:
            proc.kill()
            proc.wait()
        proc.stdin.close()
        proc.stdout.close()
    assert "Traceback" not in log.read_text()


def test_lines_come_in_order_and_a_cancelled_read_is_not_lost() -> None:
    read_fd, write_fd = os.pipe()

    async def main() -> list[bytes]:
        with open(read_fd, "rb", buffering=0) as file:
            lines = LineReader(file)
            got = []
            with anyio.move_on_after(0.05):  # nothing written yet: the wait is cancelled
                got.append(await lines.readline(100))
            os.write(write_fd, b"one\ntwo\n")
            got.append(await lines.readline(100))  # the cancelled read's line, not lost
            got.append(await lines.readline(100))
            os.close(write_fd)
            got.append(await lines.readline(100))  # the input ended
            return got

    assert anyio.run(main) == [b"one\n", b"two\n", b""]


@pytest.mark.parametrize("sent", [b"", b'{"jsonrpc":"2.0","id":1,"method":"ping"}\n'])
def test_serve_on_a_terminal_ends_cleanly_when_it_hangs_up(tmp_path: Path, sent: bytes) -> None:
    """stdin a pseudo-terminal (a person ran ``toolhost serve`` in a terminal, or a client
    gave it a pty) whose other side closes: the input ended, the server exits 0 (before:
    "internal error: OSError: [Errno 5] Input/output error", exit 2, once a line was read)."""
    import pty
    import tty

    (tmp_path / "s.yaml").write_text(CONFIG)
    main, other = pty.openpty()
    tty.setraw(other)  # (no echo: what the server writes is only its answers)
    proc = subprocess.Popen([sys.executable, "-m", "toolhost", "serve",
                             str(tmp_path / "s.yaml")], stdin=other, stdout=subprocess.PIPE,
                            stderr=subprocess.PIPE, env=server_env())
    os.close(other)
    try:
        try:
            if sent:
                os.write(main, sent)
                assert proc.stdout is not None
                assert json.loads(proc.stdout.readline()) == {"jsonrpc": "2.0", "id": 1,
                                                              "result": {}}
        finally:
            os.close(main)
        _, err = proc.communicate(timeout=20)
    finally:  # (a failure above too: a process left running fails a later test's warnings)
        if proc.poll() is None:
            proc.kill()
        proc.communicate()
    assert proc.returncode == 0, err
    assert b"error" not in err.lower(), err
