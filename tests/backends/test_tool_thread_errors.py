"""A thread an in-process tool starts that raises is one error line in the host's log (its
name and the exception), not a traceback of the tool's code; ``TOOLHOST_DEBUG`` brings the
traceback back. The call that started it, and every other, is answered as ever."""

from __future__ import annotations

import textwrap
from pathlib import Path

from tests.serve.stdio_peer import stdio_peer

MODULE = '''
import _thread, os, threading, time

class Odd(Exception):
    def __str__(self):
        raise ValueError("no message")

def plain(x: int = 0) -> str:
    t = threading.Thread(target=lambda: 1 / 0, name="worker-a")
    t.start(); t.join()
    return "plain"

def multiline(x: int = 0) -> str:
    def boom():
        raise RuntimeError("first\\nsecond")
    t = threading.Thread(target=boom, name="worker-b")
    t.start(); t.join()
    return "multiline"

def odd(x: int = 0) -> str:
    def boom():
        raise Odd()
    t = threading.Thread(target=boom, name="worker-c")
    t.start(); t.join()
    return "odd"

def raw(x: int = 0) -> str:
    done = threading.Event()
    def raw_boom():
        try:
            raise KeyError("raw")
        finally:
            done.set()
    _thread.start_new_thread(raw_boom, ())
    done.wait(10)
    time.sleep(0.2)
    return "raw"

def exits(x: int = 0) -> str:
    t = threading.Thread(target=lambda: os._exit(3), name="worker-d")
    t.start(); t.join()
    return "exits"
'''
TOOLS = ("plain", "multiline", "odd", "raw", "exits")


def _serve(tmp_path: Path, debug: str) -> str:
    (tmp_path / "th_threads.py").write_text(textwrap.dedent(MODULE))
    lines = ["toolhost: 1", "permissions: {default: allow}", "servers:", "  p:",
             "    timeout: 20s", "    tools:"]
    lines += [f"      {n}: {{python: 'th_threads:{n}'}}" for n in TOOLS]
    config = tmp_path / "threads.yaml"
    config.write_text("\n".join(lines) + "\n")
    with stdio_peer(config, extra_env={"TOOLHOST_DEBUG": debug}) as peer:
        for name in TOOLS:
            answer = peer.ask(name, "tools/call", {"name": name, "arguments": {}},
                              timeout=60)["result"]
            assert answer["content"][0]["text"] == name, answer
    return peer.log()


def test_a_tool_threads_exception_is_one_line(tmp_path: Path) -> None:
    log = _serve(tmp_path, "")
    assert "Traceback" not in log, log
    assert "th_threads.py" not in log, log
    errors = [line for line in log.splitlines() if "a thread a tool started" in line]
    assert len(errors) == 5, log
    shown = "\n".join(errors)
    assert "(worker-a) raised ZeroDivisionError: division by zero" in shown
    assert "(worker-b) raised RuntimeError: first second" in shown
    assert "(worker-c) raised Odd: (its message could not be read: ValueError)" in shown
    assert "(raw_boom) raised KeyError: 'raw'" in shown
    assert "(worker-d) raised HostExitRefused: os._exit(3)" in shown


def test_debug_keeps_the_traceback(tmp_path: Path) -> None:
    log = _serve(tmp_path, "1")
    assert "Traceback" in log and "th_threads.py" in log
