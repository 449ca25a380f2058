"""The real server the shutdown tests signal (test_shutdown_answers, test_shutdown_tasks):
``toolhost serve`` over HTTP on a free port with a grace, started from a config text, and
the MCP URL it prints. The quiet second of step 1 is kept (the tests are about it)."""

from __future__ import annotations

import os
import subprocess
import sys
import time
from pathlib import Path

from tests.serve.conftest import HERE


def start_server(tmp_path: Path, config: str, grace: float, **environ: str
                 ) -> tuple[subprocess.Popen[bytes], str, Path]:
    """``toolhost serve`` of ``config`` with ``--shutdown-grace grace`` (``environ`` added to
    its environment): the process, its MCP URL and its log."""
    path = tmp_path / "s.yaml"
    path.write_text(config)
    env = {**os.environ, "PYTHONPATH": os.pathsep.join(
        p for p in (str(HERE), str(HERE.parent.parent), os.environ.get("PYTHONPATH")) if p)}
    env.pop("TOOLHOST_SHUTDOWN_QUIET", None)
    env.update(environ)
    log = tmp_path / "server.log"
    with open(log, "wb") as err:
        proc = subprocess.Popen([sys.executable, "-m", "toolhost", "serve", str(path),
                                 "--transport", "http", "--port", "0", "--shutdown-grace",
                                 str(grace)], stdin=subprocess.DEVNULL,
                                stdout=subprocess.DEVNULL, stderr=err, env=env)
    deadline = time.monotonic() + 30
    while "serving MCP on " not in log.read_text():
        assert proc.poll() is None and time.monotonic() < deadline, log.read_text()
        time.sleep(0.05)
    return proc, log.read_text().split("serving MCP on ", 1)[1].split()[0], log
