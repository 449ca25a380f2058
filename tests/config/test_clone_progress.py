"""A clone says what it is doing on a terminal, and only there.

A real ``toolhost validate`` process with its stderr on a real pseudo-terminal: the first
load of a pin says which repository and revision it fetches; the second reads the cache and
says nothing; with stderr a pipe (a script, an MCP client) only problems are written.
"""

from __future__ import annotations

import os
import pty
import subprocess
import sys
from pathlib import Path

from ..plugins.conftest import _make_repo


def _validate(config: Path, env: dict[str, str], *, tty: bool) -> tuple[int, str]:
    if not tty:
        done = subprocess.run([sys.executable, "-m", "toolhost", "validate", str(config)],
                              env=env, capture_output=True, text=True, timeout=120)
        return done.returncode, done.stderr
    leader, follower = pty.openpty()
    try:
        proc = subprocess.Popen([sys.executable, "-m", "toolhost", "validate", str(config)],
                                env=env, stdout=subprocess.DEVNULL, stderr=follower,
                                stdin=subprocess.DEVNULL)
        os.close(follower)
        chunks: list[bytes] = []
        while True:
            try:
                data = os.read(leader, 4096)
            except OSError:  # EIO: the process closed the terminal
                break
            if not data:
                break
            chunks.append(data)
        return proc.wait(timeout=120), b"".join(chunks).decode()
    finally:
        os.close(leader)


def test_a_clone_is_announced_on_a_terminal_only(tmp_path: Path) -> None:
    origin = tmp_path / "origin"
    _make_repo(origin, {"base.yaml": "servers: {}\n"}, tag="v1")
    config = tmp_path / "toolhost.yaml"
    config.write_text(f"toolhost: 1\nextends:\n  - {{repo: {origin.as_uri()}, rev: v1, "
                      "path: base.yaml}\n")
    env = {**os.environ, "TOOLHOST_CACHE": str(tmp_path / "cache"),
           "XDG_CONFIG_HOME": str(tmp_path / "xdg")}
    code, said = _validate(config, env, tty=True)
    assert code == 0, said
    assert f"fetching {origin.as_uri()} at v1 into the cache" in said, said
    code, said = _validate(config, env, tty=True)  # cached: nothing to say
    assert code == 0 and "fetching" not in said, said
    env["TOOLHOST_CACHE"] = str(tmp_path / "cache2")
    code, said = _validate(config, env, tty=False)  # a pipe: problems only
    assert code == 0 and said == "", said
