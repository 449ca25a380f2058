"""The first fetch of a pin: it says what it is doing on a terminal, and only there; offline,
a pin never cached says so while cached pins load.

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


def test_offline_a_pin_never_cached_says_so_and_cached_pins_still_load(tmp_path: Path) -> None:
    one, two = tmp_path / "one", tmp_path / "two"
    _make_repo(one, {"one.yaml": "servers: {}\n"}, tag="v1")
    _make_repo(two, {"two.yaml": "servers: {}\n"}, tag="v1")
    config = tmp_path / "toolhost.yaml"
    env = {**os.environ, "TOOLHOST_CACHE": str(tmp_path / "cache"),
           "XDG_CONFIG_HOME": str(tmp_path / "xdg")}
    config.write_text(f"toolhost: 1\nextends:\n  - {{repo: {one.as_uri()}, rev: v1, "
                      "path: one.yaml}\n")
    assert _validate(config, env, tty=False)[0] == 0  # one is cached now
    config.write_text(config.read_text() + f"  - {{repo: {two.as_uri()}, rev: v1, "
                      "path: two.yaml}\n")
    one.rename(tmp_path / "one-gone")
    two.rename(tmp_path / "two-gone")  # offline: neither repository can be reached
    code, said = _validate(config, env, tty=False)
    assert code == 1 and len(said.strip().splitlines()) == 1, said
    assert said.startswith(f"{config}:4:5: extends[1]: "), said  # the cached one is fine
    assert f"{two.as_uri()} at v1 is not in the cache" in said
    assert "then every load reads it offline" in said
