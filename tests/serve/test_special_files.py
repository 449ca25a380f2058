"""A file the config names that becomes a FIFO, a directory or a socket after the load (a
``file:`` resource, the audit log) never freezes ``serve``: the read or the call is refused in
one message and every other request is still answered (real processes over stdio)."""

from __future__ import annotations

import os
import shutil
import socket
from collections.abc import Callable
from pathlib import Path

import pytest

from .stdio_peer import stdio_peer


def _fifo(path: Path) -> None:
    os.mkfifo(path)


def _directory(path: Path) -> None:
    path.mkdir()


def _socket(path: Path) -> None:
    sock = socket.socket(socket.AF_UNIX)
    sock.bind(str(path))  # left bound until the test ends: the name stays a socket
    _SOCKETS.append(sock)


_SOCKETS: list[socket.socket] = []
SWAPS: dict[str, Callable[[Path], None]] = {"fifo": _fifo, "directory": _directory,
                                            "socket": _socket}


@pytest.fixture(autouse=True)
def _close_sockets() -> object:
    yield None
    while _SOCKETS:
        _SOCKETS.pop().close()


def _remove(path: Path) -> None:
    if path.is_dir() and not path.is_symlink():
        shutil.rmtree(path)
    elif path.exists() or path.is_symlink():
        path.unlink()


@pytest.mark.parametrize("swap", sorted(SWAPS))
def test_a_file_resource_swapped_for_a_special_file_is_refused_not_waited_on(
        tmp_path: Path, swap: str) -> None:
    target = tmp_path / "doc.md"
    target.write_text("hello\n")
    config = tmp_path / "res.yaml"
    config.write_text("toolhost: 1\nservers:\n  kb:\n    resources:\n      r: {file: doc.md}\n"
                      "    tools:\n      a: {command: [echo, hi]}\n"
                      "permissions:\n  default: allow\n")
    with stdio_peer(config, "--all") as peer:
        _remove(target)
        SWAPS[swap](target)
        answer = peer.ask("read", "resources/read", {"uri": "toolhost://kb/r"}, timeout=8)
        assert "error" in answer, answer
        assert "not a regular file" in answer["error"]["message"], answer
        assert peer.ask("ping", "ping", timeout=8)["result"] == {}
        called = peer.ask("call", "tools/call", {"name": "a", "arguments": {}}, timeout=8)
        assert "result" in called, called


@pytest.mark.parametrize("swap", sorted(SWAPS))
def test_an_audit_log_that_is_a_special_file_fails_closed_and_serve_answers(
        tmp_path: Path, swap: str) -> None:
    audit = tmp_path / "audit.jsonl"
    config = tmp_path / "al.yaml"
    config.write_text("toolhost: 1\npermissions:\n  audit_log: audit.jsonl\n  default: allow\n"
                      "servers:\n  s:\n    tools:\n      a: {command: [echo, hi]}\n")
    with stdio_peer(config, "--all") as peer:
        SWAPS[swap](audit)  # created after the load: the log is opened at the first call
        called = peer.ask("call", "tools/call", {"name": "a", "arguments": {}}, timeout=8)
        text = str(called)
        assert "hi" not in text.replace("hint", ""), called  # fail closed: the tool never ran
        assert peer.ask("ping", "ping", timeout=8)["result"] == {}
