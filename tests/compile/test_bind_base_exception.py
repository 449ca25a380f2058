"""A tool's module that raises a ``BaseException`` that is not an ``Exception`` while it is
imported (a class of its own, ``GeneratorExit``, ``CancelledError``) is a located problem of
that tool, as an ``Exception`` is: it was an internal error (exit 2) of ``validate``, ``run``
and ``serve``, and a ``serve --watch`` reload bringing it ended the server. A plugin's
already was (``toolhost.plugins.activate``)."""

from __future__ import annotations

import subprocess
import sys
import threading
from pathlib import Path

import pytest

from toolhost.errors import ConfigError


@pytest.mark.parametrize(("body", "said"), [
    ("class Stop(BaseException):\n    pass\nraise Stop('boom')\n", "Stop (a BaseException): boom"),
    ("raise GeneratorExit('gone')\n", "GeneratorExit (a BaseException): gone"),
    ("import asyncio\nraise asyncio.CancelledError('c')\n",
     "CancelledError (a BaseException): c"),
])
def test_a_module_raising_a_base_exception_at_import_is_a_located_problem(
        tmp_path: Path, body: str, said: str) -> None:
    (tmp_path / "raises.py").write_text(body + "def f(x: int) -> int:\n    return x\n")
    config = tmp_path / "c.yaml"
    config.write_text("toolhost: 1\nservers:\n  s:\n    tools:\n"
                      "      f: {python: raises:f}\n      g: {command: [echo, hi]}\n")
    done = subprocess.run([sys.executable, "-m", "toolhost", "validate", str(config)],
                          capture_output=True, text=True, cwd=tmp_path, timeout=60)
    assert done.returncode == 1, done
    assert "c.yaml:5:7: servers.s.tools.f: the 'python' backend could not bind this tool: " \
        + said in done.stderr, done.stderr
    assert "internal error" not in done.stderr and "Traceback" not in done.stderr


def test_a_keyboard_interrupt_off_the_main_thread_is_the_module_s_own(tmp_path: Path) -> None:
    # a reload builds in a thread of its own, where no signal is delivered: a
    # KeyboardInterrupt there was raised by the module (on the main thread it stays a Ctrl-C)
    from toolhost.commands._configs import compile_config
    from toolhost.config.loader import load_config

    (tmp_path / "interrupts_h36.py").write_text(
        "raise KeyboardInterrupt\ndef f(x: int) -> int:\n    return x\n")
    config = tmp_path / "c.yaml"
    config.write_text("toolhost: 1\nservers:\n  s:\n    tools:\n"
                      "      f: {python: interrupts_h36:f}\n")
    caught: list[BaseException] = []

    def work() -> None:
        try:
            compile_config(load_config(config, layers=False))
        except BaseException as exc:
            caught.append(exc)

    thread = threading.Thread(target=work)
    thread.start()
    thread.join(60)
    (exc,) = caught
    assert isinstance(exc, ConfigError), repr(exc)
    assert "servers.s.tools.f: the 'python' backend could not bind this tool: " \
        "KeyboardInterrupt (a BaseException)" in str(exc), str(exc)
