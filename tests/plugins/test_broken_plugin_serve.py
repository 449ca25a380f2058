"""A plugin that raises while registering never takes a running host down."""

from __future__ import annotations

import json
import os
import queue
import subprocess
import sys
import threading
import time
from collections.abc import Callable
from pathlib import Path
from typing import IO, Any

MakePlugin = Callable[..., Path]

GOOD = """\
toolhost: 1
servers:
  local:
    tools:
      shout:
        command: ["echo", "{{ text }}!"]
        params: {text: {type: string}}
permissions: {default: allow}
"""


class Lines:
    """Lines of a pipe, read by a thread, so a wait can time out (select misses buffered lines)."""

    def __init__(self, stream: IO[str]) -> None:
        self._queue: queue.Queue[str] = queue.Queue()
        self._thread = threading.Thread(target=self._pump, args=(stream,), daemon=True)
        self._thread.start()

    def _pump(self, stream: IO[str]) -> None:
        for line in stream:
            self._queue.put(line)

    def next(self, timeout: float = 30) -> str:
        try:
            return self._queue.get(timeout=timeout)
        except queue.Empty:
            raise AssertionError("no output from toolhost serve") from None

    def join(self) -> None:
        self._thread.join(timeout=30)


def test_serve_watch_keeps_the_last_good_config_when_a_plugin_breaks(
        tmp_path: Path, make_plugin: MakePlugin) -> None:
    make_plugin("toolhost-broken", "0.3", modules={"broken_plugin": """
        def register(registry):
            registry.add_server("bad")
            raise RuntimeError("driver missing")
    """})
    config = tmp_path / "live.yaml"
    config.write_text(GOOD)
    proc = subprocess.Popen(
        [sys.executable, "-m", "toolhost", "serve", str(config), "--watch",
         "--watch-interval", "0.1"],
        stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    assert proc.stdin and proc.stdout and proc.stderr
    out, err = Lines(proc.stdout), Lines(proc.stderr)

    def rpc(ident: int, method: str, params: dict[str, Any]) -> dict[str, Any]:
        assert proc.stdin and proc.stdout
        proc.stdin.write(json.dumps({"jsonrpc": "2.0", "id": ident, "method": method,
                                     "params": params}) + "\n")
        proc.stdin.flush()
        answer: dict[str, Any] = json.loads(out.next())
        return answer

    try:
        rpc(1, "initialize", {"protocolVersion": "2025-11-25", "capabilities": {},
                              "clientInfo": {"name": "test", "version": "1"}})
        proc.stdin.write('{"jsonrpc": "2.0", "method": "notifications/initialized"}\n')
        assert "serving local" in err.next()

        config.write_text(GOOD.replace("toolhost: 1\n",
                                       "toolhost: 1\nplugins: [toolhost-broken]\n"))
        later = time.time() + 5  # a new mtime even on coarse file systems
        os.utime(config, (later, later))
        report = "".join(err.next() for _ in range(2))
        assert "reload failed; still serving the last good config" in report
        assert ("live.yaml:2:11: plugins[0]: plugin 'toolhost-broken' 0.3 failed while "
                "registering: RuntimeError: driver missing") in report

        answer = rpc(2, "tools/call", {"name": "shout", "arguments": {"text": "still here"}})
        assert answer["result"] == {"content": [{"type": "text", "text": "still here!\n"}],
                                    "isError": False}
    finally:
        proc.stdin.close()
        try:
            proc.wait(timeout=30)
        except subprocess.TimeoutExpired:
            proc.kill()
            proc.wait()
        out.join()
        err.join()
        proc.stdout.close()
        proc.stderr.close()
    assert proc.returncode == 0
