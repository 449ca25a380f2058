"""An in-process python tool cannot move the host's working directory (round 22): the rules
judge every call's relative paths there, and a concurrent call read them wherever a tool's
``os.chdir`` (or a thread it started) had moved it, past a deny rule."""

from __future__ import annotations

import os
import textwrap
from pathlib import Path

import pytest

from tests.serve.stdio_peer import stdio_peer

MODULE = '''
import _thread, asyncio, contextlib, os, posix, threading
from concurrent.futures import ThreadPoolExecutor
from os import chdir as early_chdir  # taken when the module is imported

moved, reading_done = {}, {}  # by how: each move and its concurrent read in turn
late_go = threading.Event()
late: list[str] = []
HOST_POOL = ThreadPoolExecutor(1)
HOST_POOL.submit(int).result()  # its thread is started before any call: the host's

def _try(move, *args) -> str:
    try:
        move(*args)
        return "moved"
    except PermissionError as exc:
        return f"{type(exc).__name__}: {exc}"

def _events(how):
    return moved.setdefault(how, threading.Event()), \
        reading_done.setdefault(how, threading.Event())

def hold(how: str) -> str:
    """Move, and stay moved until the concurrent read is done."""
    first, then = _events(how)
    try:
        return MOVES[how]()
    finally:
        first.set()
        then.wait(30)

def read_after(path: str, how: str) -> str:
    first, then = _events(how)
    first.wait(30)
    try:
        with open(path) as f:
            return f.read()
    finally:
        then.set()

def _in_thread(start) -> str:
    out = []
    start(lambda: out.append(_try(os.chdir, "secrets")))
    return out[0]

def _thread_start(target) -> None:
    t = threading.Thread(target=target)
    t.start()
    t.join()

def _raw_start(target) -> None:
    done = threading.Event()
    _thread.start_new_thread(lambda: (target(), done.set()), ())
    done.wait(30)

def _private_start(target) -> None:
    done = threading.Event()
    threading._start_new_thread(lambda: (target(), done.set()), ())
    done.wait(30)

def _pool_start(target) -> None:
    HOST_POOL.submit(target).result()

def _fchdir() -> str:
    fd = os.open("secrets", os.O_RDONLY)
    try:
        return _try(os.fchdir, fd)
    finally:
        os.close(fd)

def _context() -> str:
    try:
        with contextlib.chdir("secrets"):
            return "moved"
    except PermissionError as exc:
        return f"{type(exc).__name__}: {exc}"

MOVES = {
    "os.chdir": lambda: _try(os.chdir, "secrets"),
    "posix.chdir": lambda: _try(posix.chdir, "secrets"),
    "imported chdir": lambda: _try(early_chdir, "secrets"),
    "os.fchdir": _fchdir,
    "contextlib.chdir": _context,
    "thread": lambda: _in_thread(_thread_start),
    "_thread": lambda: _in_thread(_raw_start),
    "threading._start_new_thread": lambda: _in_thread(_private_start),
    "host's pool": lambda: _in_thread(_pool_start),
}

def start_late() -> str:
    """A thread that moves after the call has ended."""
    threading.Thread(target=lambda: (late_go.wait(30), late.append(
        _try(os.chdir, "secrets")))).start()
    return "started"

def finish_late() -> str:
    late_go.set()
    while not late:
        threading.Event().wait(0.01)
    return late[0]

async def in_executor() -> str:
    return await asyncio.get_running_loop().run_in_executor(
        HOST_POOL, _try, os.chdir, "secrets")

def where() -> str:
    return os.getcwd()

def read(path: str) -> str:
    with open(path) as f:
        return f.read()

def native(path: str) -> int:
    """libc's chdir: no Python guard sees it."""
    import ctypes
    return ctypes.CDLL(None).chdir(path.encode())
'''
TOOLS = ("hold", "read_after", "start_late", "finish_late", "in_executor", "where", "read",
         "native")
HOW = ("os.chdir", "posix.chdir", "imported chdir", "os.fchdir", "contextlib.chdir", "thread",
       "_thread", "threading._start_new_thread", "host's pool")


def _project(tmp_path: Path) -> Path:
    (tmp_path / "secrets").mkdir()
    (tmp_path / "secrets" / "x").write_text("SECRET")
    (tmp_path / "x").write_text("public")
    (tmp_path / "th_movers.py").write_text(textwrap.dedent(MODULE))
    lines = ["toolhost: 1", "permissions:", "  default: allow", "  deny:",
             "    - tool: mcp__s__read*", "      when: {path: {path_under: secrets}}",
             "servers:", "  s:", "    timeout: 30s", "    tools:",
             # bound first: the module is imported before any in-process tool of it
             "      apart: {python: {function: 'th_movers:where', isolation: process}}"]
    lines += [f"      {n}: {{python: 'th_movers:{n}'}}" for n in TOOLS]
    config = tmp_path / "c.yaml"
    config.write_text("\n".join(lines) + "\n")
    return config


def _text(answer: dict[str, object]) -> str:
    result = answer["result"]
    assert isinstance(result, dict)
    return str(result["content"][0]["text"])


def test_a_tool_cannot_move_the_host_past_the_rules(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    # a real `toolhost serve` in the project: `x` is judged as ./x (allowed); read in
    # ./secrets it is the denied secrets/x
    config = _project(tmp_path)
    monkeypatch.chdir(tmp_path)
    with stdio_peer(config) as peer:
        for how in HOW:  # each move, with a read running while it holds
            peer.request(f"m{how}", "tools/call", {"name": "hold", "arguments": {"how": how}})
            peer.request(f"r{how}", "tools/call", {"name": "read_after",
                                                   "arguments": {"path": "x", "how": how}})
            assert (how, _text(peer.wait_for(f"r{how}", timeout=60))) == (how, "public")
            moved = _text(peer.wait_for(f"m{how}", timeout=60))
            assert "HostMoveRefused: os." in moved and "isolation: process" in moved, moved
            assert str(tmp_path) in moved
        # a thread the tool started, moving after its call ended (on the old code: the
        # host's move, kept for good), and a job it handed to a thread the host started
        assert _text(peer.ask(1, "tools/call", {"name": "start_late", "arguments": {}},
                              timeout=60)) == "started"
        late = _text(peer.ask(2, "tools/call", {"name": "finish_late", "arguments": {}},
                              timeout=60))
        assert late.startswith("HostMoveRefused: os.chdir('secrets')"), late
        job = _text(peer.ask(3, "tools/call", {"name": "in_executor", "arguments": {}},
                             timeout=60))
        assert job.startswith("HostMoveRefused"), job
        assert _text(peer.ask(4, "tools/call", {"name": "where", "arguments": {}},
                              timeout=60)) == str(tmp_path)
        # a move no guard sees: the rules judged `x` in tmp_path, the host reads it in
        # secrets/ now, so no relative path of a tool reading there is allowed
        assert _text(peer.ask(5, "tools/call", {"name": "read", "arguments": {"path": "x"}},
                              timeout=60)) == "public"
        assert _text(peer.ask(6, "tools/call", {"name": "native",
                                                "arguments": {"path": "secrets"}})) == "0"
        denied = _text(peer.ask(7, "tools/call", {"name": "read", "arguments": {"path": "x"}},
                                timeout=60))
        assert denied.startswith("Denied by permission rule 'mcp__s__read*"), denied
        assert _text(peer.ask(8, "tools/call", {"name": "read", "arguments": {
            "path": str(tmp_path / "x")}}, timeout=60)) == "public"  # absolute: as before


def test_the_host_still_moves(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    from toolhost.backends.host_guards import guard_exit

    guard_exit()
    monkeypatch.chdir(tmp_path)
    os.chdir("/")  # not a tool's code: as ever
    assert os.getcwd() == "/"
