"""``toolhost serve --transport http`` that cannot listen: one located line, exit 1."""

from __future__ import annotations

import socket
import subprocess
import sys
from pathlib import Path

import pytest

from toolhost.errors import ToolhostError
from toolhost.serve.listen import bind_sockets

ROOT = Path(__file__).parent.parent.parent
DEMO = str(ROOT / "examples" / "configs" / "demo.yaml")


def _serve(*args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, "-m", "toolhost", "serve", DEMO, "--all",
                           "--transport", "http", *args], capture_output=True, text=True,
                          timeout=60, stdin=subprocess.DEVNULL)


@pytest.fixture
def busy_port() -> object:
    holder = socket.socket()
    holder.bind(("127.0.0.1", 0))
    holder.listen(1)
    yield holder.getsockname()[1]
    holder.close()


def test_a_port_in_use_is_one_line_and_nothing_is_announced(busy_port: int) -> None:
    proc = _serve("--port", str(busy_port))
    assert proc.returncode == 1, proc.stderr
    assert proc.stderr.strip() == (f"toolhost: error: cannot listen on 127.0.0.1:{busy_port}: "
                                   "address already in use")


HOSTS = [
    ("192.0.2.1", "cannot assign requested address"),  # TEST-NET-1: no machine has it
    ("nonexistent.invalid", ""),
    ("a" * 300, ""),
    ("bad host name", ""),
]


def test_a_host_that_cannot_be_bound_is_one_line() -> None:
    """The command: one line, exit 1, nothing announced (one process; the hosts' own
    messages are checked in-process below, where each costs no process start)."""
    proc = _serve("--host", "192.0.2.1", "--port", "0", "--token-env", "PATH")
    assert proc.returncode == 1, proc.stderr
    lines = proc.stderr.strip().splitlines()
    assert len(lines) == 1 and lines[0].startswith("toolhost: error: cannot listen on "), lines
    assert "cannot assign requested address" in lines[0] and len(lines[0]) < 250
    assert "Traceback" not in proc.stderr and "serving" not in proc.stderr


@pytest.mark.parametrize(("host", "reason"), HOSTS, ids=[h[:20] for h, _ in HOSTS])
def test_each_host_that_cannot_be_bound_is_one_short_line(host: str, reason: str) -> None:
    with pytest.raises(ToolhostError) as raised:
        bind_sockets(host, 0)
    message = str(raised.value)
    assert message.startswith("cannot listen on ") and "\n" not in message
    assert reason in message and len(message) < 230


def test_bind_sockets_binds_each_address_once_and_closes_on_failure(busy_port: int) -> None:
    sockets = bind_sockets("127.0.0.1", 0)
    try:
        assert len(sockets) == 1 and sockets[0].getsockname()[0] == "127.0.0.1"
    finally:
        for sock in sockets:
            sock.close()
    with pytest.raises(ToolhostError, match="address already in use"):
        bind_sockets("127.0.0.1", busy_port)
