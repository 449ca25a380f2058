"""A python tool's module that starts a non-daemon thread at import does not hold the
command's exit: Python waits for such a thread at exit, so ``validate`` never ended. It is
noted as a plugin's is, waited for a moment, named, and left (real ``toolhost``)."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

TOOLHOST = str(Path(sys.executable).parent / "toolhost")

STARTS = {
    "plain": "threading.Thread(target=time.sleep, args=(3600,), name='poller').start()\n",
    "timer": "t = threading.Timer(3600, print)\nt.name = 'poller'\nt.start()\n",
    "subclass": ("class P(threading.Thread):\n    def run(self):\n        time.sleep(3600)\n"
                 "P(name='poller').start()\n"),
    "from_a_thread": ("threading.Thread(target=lambda: threading.Thread(target=time.sleep, "
                      "args=(3600,), name='poller').start()).start()\n"
                      "time.sleep(0.5)\n"),
}
TOOLS = {
    "in_process": '{python: "thrmod:hello"}',
    "isolated": '{python: {function: "thrmod:hello", isolation: process}}',
}


def _validate(tmp_path: Path, start: str, tool: str, tail: str = "") -> \
        subprocess.CompletedProcess[str]:
    (tmp_path / "thrmod.py").write_text(
        "import threading, time\n" + start + tail
        + "def hello(name: str) -> str:\n    \"\"\"Say hi.\"\"\"\n    return 'hi ' + name\n")
    config = tmp_path / "c.yaml"
    config.write_text(f"toolhost: 1\nservers:\n  s:\n    tools:\n      hello: {tool}\n")
    env = {k: v for k, v in os.environ.items() if k not in ("TOOLHOST_DEBUG", "PYTHONPATH")}
    return subprocess.run([TOOLHOST, "validate", str(config)], cwd=tmp_path,
                          capture_output=True, text=True, timeout=120,
                          stdin=subprocess.DEVNULL, env=env)


@pytest.mark.parametrize("tool", sorted(TOOLS))
@pytest.mark.parametrize("start", sorted(STARTS))
def test_validate_ends_and_names_the_thread(tmp_path: Path, start: str, tool: str) -> None:
    done = _validate(tmp_path, STARTS[start], TOOLS[tool])
    assert done.returncode == 0, done.stderr
    assert "ok (1 server, 1 tool)" in done.stdout
    assert "python tool module 'thrmod' left a thread running (poller," in done.stderr
    assert "Traceback" not in done.stderr


def test_a_module_that_fails_after_starting_one(tmp_path: Path) -> None:
    done = _validate(tmp_path, STARTS["plain"], TOOLS["in_process"],
                     tail="raise RuntimeError('half loaded')\n")
    assert done.returncode == 1
    assert "RuntimeError: half loaded" in done.stderr
    assert "left a thread running (poller," in done.stderr
    assert "Traceback" not in done.stderr


def test_a_daemon_thread_is_not_named(tmp_path: Path) -> None:
    done = _validate(tmp_path, "threading.Thread(target=time.sleep, args=(3600,), "
                     "daemon=True).start()\n", TOOLS["in_process"])
    assert done.returncode == 0, done.stderr
    assert "left a thread" not in done.stderr
