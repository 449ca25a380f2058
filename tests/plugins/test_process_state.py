"""A plugin's import that changes the process toolhost runs in (its working directory, the
recursion limit, the environment, sys.stderr) is put back, with a warning naming it."""

from __future__ import annotations

import os
import subprocess
import sys
from collections.abc import Callable
from pathlib import Path

import pytest

MakePlugin = Callable[..., Path]
TOOLHOST = str(Path(sys.executable).parent / "toolhost")

DOES = {
    "chdir": "import os\nos.chdir('/')\n",
    "recursion": "import sys\nsys.setrecursionlimit(60)\n",
    "environ": "import os\nos.environ.clear()\n",
    "stderr": "import sys\nsys.stderr = None\n",
}
CHANGED = {"chdir": "the working directory", "recursion": "the recursion limit",
           "environ": "the environment (", "stderr": "sys.stdin or sys.stderr"}


@pytest.mark.parametrize("does", sorted(DOES))
def test_what_a_plugin_changes_of_the_process_is_put_back(
        tmp_path: Path, make_plugin: MakePlugin, does: str) -> None:
    make_plugin("toolhost-rude", modules={
        "rude_plugin": DOES[does] + "def register(registry):\n    pass\n"})
    work = tmp_path / "work"
    work.mkdir()
    config = work / "c.yaml"
    config.write_text("toolhost: 1\nplugins: [toolhost-rude]\nservers:\n  s:\n    tools:\n"
                      "      t: {command: [pwd], description: where tools run}\n")
    done = subprocess.run([TOOLHOST, "call", str(config), "s.t"], cwd=work,
                          capture_output=True, text=True, timeout=120,
                          stdin=subprocess.DEVNULL,
                          env={k: v for k, v in os.environ.items() if k != "TOOLHOST_DEBUG"})
    # the tool still runs where toolhost was started, found on PATH, and nothing is an
    # internal error
    assert done.returncode == 0, done.stderr
    assert done.stdout.strip() == str(work.resolve()), done.stdout
    assert (f"plugin 'toolhost-rude' changed {CHANGED[does]}" in done.stderr
            and "put back" in done.stderr), done.stderr


def test_an_exit_hook_a_plugin_registers_cannot_turn_a_failure_into_success(
        tmp_path: Path, make_plugin: MakePlugin) -> None:
    # atexit's os._exit(0) made `validate` of a broken config exit 0: a CI gate passed
    make_plugin("toolhost-rude", modules={"rude_plugin": (
        "import atexit, os\natexit.register(os._exit, 0)\n"
        "@atexit.register\ndef bye():\n    os._exit(0)\n"
        "def register(registry):\n    pass\n")})
    config = tmp_path / "c.yaml"
    config.write_text("toolhost: 1\nplugins: [toolhost-rude]\nservers:\n  s:\n    tools:\n"
                      "      t: {command: [pwd], descripton: a typo}\n")
    done = subprocess.run([TOOLHOST, "validate", str(config)], cwd=tmp_path,
                          capture_output=True, text=True, timeout=120,
                          stdin=subprocess.DEVNULL,
                          env={k: v for k, v in os.environ.items() if k != "TOOLHOST_DEBUG"})
    assert done.returncode == 1, done.stderr
    assert "servers.s.tools.t.descripton: unknown key" in done.stderr
    assert done.stderr.count("toolhost: WARNING: an exit hook of plugin 'toolhost-rude' "
                             "failed: PluginError: it called os._exit(0) ") == 2
    assert "Traceback" not in done.stderr


def test_a_plugin_closing_stderr_does_not_silence_the_problems(
        tmp_path: Path, make_plugin: MakePlugin) -> None:
    make_plugin("toolhost-rude", modules={
        "rude_plugin": "import os\nos.close(2)\ndef register(registry):\n    pass\n"})
    config = tmp_path / "c.yaml"
    config.write_text("toolhost: 1\nplugins: [toolhost-rude]\nservers:\n  s:\n    tools:\n"
                      "      t: {command: [pwd], descripton: a typo}\n")
    done = subprocess.run([TOOLHOST, "validate", str(config)], cwd=tmp_path,
                          capture_output=True, text=True, timeout=120,
                          stdin=subprocess.DEVNULL,
                          env={k: v for k, v in os.environ.items() if k != "TOOLHOST_DEBUG"})
    assert done.returncode == 1, done.stderr
    assert "servers.s.tools.t.descripton: unknown key" in done.stderr, done.stderr
    assert "plugin 'toolhost-rude' changed file descriptor 2 while loading" in done.stderr


def _toolhost(config: Path, *args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run([TOOLHOST, *args[:1], str(config), *args[1:]], cwd=config.parent,
                          capture_output=True, text=True, timeout=90,
                          stdin=subprocess.DEVNULL,
                          env={k: v for k, v in os.environ.items() if k != "TOOLHOST_DEBUG"})


TYPO = ("toolhost: 1\nplugins: [toolhost-rude]\nservers:\n  s:\n    tools:\n"
        "      t: {command: [pwd], descripton: a typo}\n")
LATER = {  # what would end or stall the host after the plugin has loaded
    "builtins": ("import builtins\nbuiltins.print = lambda *a, **k: None\n",
                 "built-ins (print)"),
    "nofile": ("import resource\nhard = resource.getrlimit(resource.RLIMIT_NOFILE)[1]\n"
               "resource.setrlimit(resource.RLIMIT_NOFILE, (5, hard))\n",
               "a resource limit while"),
    "thread": ("import threading, time\n"
               "threading.Thread(target=time.sleep, args=(3600,), name='nap').start()\n",
               "left a thread running (nap,"),
}


@pytest.mark.parametrize("does", sorted(LATER))
def test_what_would_end_or_stall_the_host_later_is_put_back(
        tmp_path: Path, make_plugin: MakePlugin, does: str) -> None:
    # a replaced print said nothing, RLIMIT_NOFILE of 5 was an internal error, and a
    # non-daemon thread kept `validate` from ever ending (Python waits for it at exit)
    code, said = LATER[does]
    make_plugin("toolhost-rude", modules={
        "rude_plugin": code + "def register(registry):\n    pass\n"})
    config = tmp_path / "c.yaml"
    config.write_text(TYPO)
    done = _toolhost(config, "validate")
    assert done.returncode == 1, done.stderr
    assert "servers.s.tools.t.descripton: unknown key" in done.stderr, done.stderr
    assert said in done.stderr and "internal error" not in done.stderr, done.stderr


def test_a_timer_a_plugin_sets_is_cancelled(tmp_path: Path, make_plugin: MakePlugin) -> None:
    # signal.alarm(1) at import killed the host with SIGALRM a second later, mid-call
    make_plugin("toolhost-rude", modules={
        "rude_plugin": "import signal\nsignal.alarm(1)\ndef register(registry):\n    pass\n"})
    config = tmp_path / "c.yaml"
    config.write_text("toolhost: 1\nplugins: [toolhost-rude]\nservers:\n  s:\n    tools:\n"
                      "      t: {command: [sleep, '2'], description: naps}\n")
    done = _toolhost(config, "call", "s.t")
    assert done.returncode == 0, (done.returncode, done.stderr)
    assert "plugin 'toolhost-rude' changed a timer" in done.stderr, done.stderr


def test_a_child_a_plugin_forks_does_not_run_the_command_again(
        tmp_path: Path, make_plugin: MakePlugin) -> None:
    make_plugin("toolhost-rude", modules={
        "rude_plugin": "import os\nos.fork()\ndef register(registry):\n    pass\n"})
    config = tmp_path / "c.yaml"
    config.write_text(TYPO)
    done = _toolhost(config, "validate")
    assert done.returncode == 1, done.stderr
    assert done.stderr.count("servers.s.tools.t.descripton: unknown key") == 1, done.stderr
