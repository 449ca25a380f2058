"""A ``toolhost serve`` process over stdio, driven line by line (for tests that need the raw
wire: messages the official client would never send, or many at once)."""

from __future__ import annotations

import json
import os
import queue
import subprocess
import sys
import threading
import time
from collections.abc import Iterator, Sequence
from contextlib import contextmanager
from pathlib import Path
from typing import IO, Any

HERE = Path(__file__).parent
ROOT = HERE.parent.parent

INIT = {"jsonrpc": "2.0", "id": "init", "method": "initialize",
        "params": {"protocolVersion": "2025-11-25", "capabilities": {},
                   "clientInfo": {"name": "t", "version": "1"}}}


class StdioPeer:
    """Write JSON-RPC lines; answers are read by a thread and kept until asked for."""

    def __init__(self, proc: subprocess.Popen[bytes], stderr: Path) -> None:
        self.proc = proc
        self.stderr = stderr
        self.messages: queue.Queue[dict[str, Any]] = queue.Queue()
        self.seen: list[dict[str, Any]] = []
        self.reader = threading.Thread(target=self._read, args=(proc.stdout,), daemon=True)
        self.reader.start()

    def _read(self, out: IO[bytes]) -> None:
        for line in out:
            self.messages.put(json.loads(line))

    def send(self, message: Any) -> None:
        assert self.proc.stdin is not None
        data = message if isinstance(message, bytes) else json.dumps(message).encode()
        self.proc.stdin.write(data + b"\n")
        self.proc.stdin.flush()

    def request(self, request_id: Any, method: str, params: Any = None) -> None:
        message: dict[str, Any] = {"jsonrpc": "2.0", "id": request_id, "method": method}
        if params is not None:
            message["params"] = params
        self.send(message)

    def wait_for(self, test: Any, timeout: float = 15.0) -> dict[str, Any]:
        """The first message (already seen or to come) ``test`` accepts: a callable, or
        the id of a response."""
        accept = test if callable(test) else (
            lambda m: m.get("id") == test and ("result" in m or "error" in m))
        for message in self.seen:
            if accept(message):
                self.seen.remove(message)
                return message
        deadline = time.monotonic() + timeout
        while True:
            left = deadline - time.monotonic()
            if left <= 0:
                raise AssertionError(f"nothing matching {test!r} within {timeout}s; "
                                     f"seen {self.seen[-5:]}")
            try:
                message = self.messages.get(timeout=left)
            except queue.Empty:
                continue
            if accept(message):
                return message
            self.seen.append(message)

    def ask(self, request_id: Any, method: str, params: Any = None,
            timeout: float = 15.0) -> dict[str, Any]:
        self.request(request_id, method, params)
        return self.wait_for(request_id, timeout)

    def log(self) -> str:
        return self.stderr.read_text(errors="replace")


def env(extra: dict[str, str] | None = None) -> dict[str, str]:
    paths = [str(HERE), str(ROOT), os.environ.get("PYTHONPATH", "")]
    return {**os.environ, "PYTHONPATH": os.pathsep.join(p for p in paths if p),
            "TOOLHOST_DEBUG": "", **(extra or {})}


@contextmanager
def stdio_peer(config: Path, *args: str, extra_env: dict[str, str] | None = None,
               initialize: dict[str, Any] | None = INIT) -> Iterator[StdioPeer]:
    """``toolhost serve CONFIG ARGS`` over stdio, initialized (unless ``initialize`` is
    None); stdin is closed and the process awaited at the end."""
    stderr_path = config.parent / f"{config.stem}.stderr.log"
    with open(stderr_path, "wb") as stderr:
        argv: Sequence[str] = [sys.executable, "-m", "toolhost", "serve", str(config), *args]
        proc = subprocess.Popen(list(argv), stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                                stderr=stderr, env=env(extra_env))
    peer = StdioPeer(proc, stderr_path)
    try:
        if initialize is not None:
            peer.send(initialize)
            # the answer comes once the config is compiled and its upstreams started: on
            # a loaded machine that can take longer than a request's usual wait
            peer.wait_for(initialize["id"], timeout=60)
            peer.send({"jsonrpc": "2.0", "method": "notifications/initialized"})
        yield peer
    finally:
        if proc.stdin is not None:
            proc.stdin.close()
        try:
            proc.wait(20)
        except subprocess.TimeoutExpired:
            proc.kill()
            proc.wait()
        peer.reader.join(10)
        if proc.stdout is not None:
            proc.stdout.close()
