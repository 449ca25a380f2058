"""What a plugin leaves running after its load never lands in a command's stdout: a thread
started at import that prints (``print``, ``os.write(1, ...)``, a child process) once the load
is over, an ``atexit`` hook printing at the exit. ``tools --json``, ``call --json`` and the
``.mcp.json`` of ``mcp-config > .mcp.json`` stay parseable; a person still sees it on stderr.
A real plugin package (a dist-info with an entry point) in a real ``toolhost`` process."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from .plugins.conftest import write_plugin

CHATTY = '''\
import atexit, os, subprocess, sys, threading, time
from toolhost.backends.base import Binding, ToolResult

bound = threading.Event()

def later():
    bound.wait()  # the config is compiling
    while sys.stdout is sys.stderr:  # until the load's own redirect is over
        time.sleep(0.001)
    print("THREAD JUNK", flush=True)
    os.write(1, b"FD1 JUNK\\n")
    subprocess.run(["echo", "CHILD JUNK"], check=True)

threading.Thread(target=later).start()  # not a daemon: the process waits for it
atexit.register(lambda: print("ATEXIT JUNK", flush=True))

class Chatty:
    name = "chatty"
    options_schema = {"type": "object", "properties": {"x": {"type": "string"}}}
    shorthand = "x"

    def bind(self, tool, ctx):
        bound.set()

        async def invoke(arguments, ctx):
            return ToolResult.text("ok")
        return Binding(input_schema={"type": "object", "properties": {}}, invoke=invoke)

def register(registry):
    registry.add_kind(Chatty())
'''


@pytest.mark.parametrize("command", [["mcp-config"],
                                     ["call", "s.f", "--json"]])
def test_a_plugin_thread_printing_after_the_load_lands_on_stderr(
        tmp_path: Path, command: list[str]) -> None:
    write_plugin(tmp_path / "site", "chatty-plugin", "1.0.0", {"chatty_plugin": CHATTY})
    config = tmp_path / "c.yaml"
    config.write_text("toolhost: 1\nplugins: [chatty-plugin]\nservers:\n  s:\n    tools:\n"
                      "      f: {chatty: a}\npermissions: {default: allow}\n")
    env = {**os.environ, "PYTHONPATH": str(tmp_path / "site")}
    done = subprocess.run([sys.executable, "-m", "toolhost", command[0], str(config),
                           *command[1:]], capture_output=True, text=True, env=env,
                          cwd=tmp_path, timeout=60, check=False)
    assert done.returncode == 0, done.stderr
    json.loads(done.stdout)  # nothing else on stdout
    for junk in ("THREAD JUNK", "FD1 JUNK", "CHILD JUNK", "ATEXIT JUNK"):
        assert junk in done.stderr


@pytest.mark.skipif(not os.path.exists("/dev/full"), reason="needs /dev/full")
@pytest.mark.parametrize("command", [["--version"], ["schema"], ["validate", "c.yaml"]])
def test_output_that_cannot_be_written_fails_the_command(tmp_path: Path,
                                                         command: list[str]) -> None:
    """stdout on a full disk: the held stdout's last flush failed in silence (exit 0)."""
    (tmp_path / "c.yaml").write_text("toolhost: 1\nservers: {}\n")
    with open("/dev/full", "w") as full:
        done = subprocess.run([sys.executable, "-m", "toolhost", *command], stdout=full,
                              stderr=subprocess.PIPE, text=True, cwd=tmp_path, timeout=60,
                              check=False)
    assert done.returncode == 1, done.stderr  # (2: an internal error, mid-write)
    assert done.stderr.splitlines()[-1] == \
        "toolhost: error: stdout: cannot write the output: No space left on device"
    assert "internal error" not in done.stderr and "Traceback" not in done.stderr


@pytest.mark.skipif(not os.path.exists("/dev/full"), reason="needs /dev/full")
def test_output_that_cannot_be_written_leaves_no_descriptor_open() -> None:
    """The null device that drops the unwritten rest was opened and never closed: one
    descriptor lost per failed command (an embedding program calling ``main([...])``)."""
    from toolhost.stdout_quiet import HeldStdout

    saved_fd, saved_stdout = os.dup(1), sys.stdout
    try:
        full = os.open("/dev/full", os.O_WRONLY)
        os.dup2(full, 1)
        os.close(full)
        sys.stdout = open(1, "w", closefd=False)  # noqa: SIM115 - a stream on fd 1, as a shell's
        before = sorted(os.listdir("/proc/self/fd"))
        held = HeldStdout()
        held.stream.write("x" * 100)
        failed = held.release(for_good=False)
        after = sorted(os.listdir("/proc/self/fd"))
    finally:
        sys.stdout = saved_stdout
        os.dup2(saved_fd, 1)
        os.close(saved_fd)
    assert isinstance(failed, OSError)
    assert after == before


LATE = '''\
import atexit, os, sys
from toolhost import cli
import toolhost.commands.schema as schema

kept = []
real = schema.main
LOG = sys.argv[1]

def main(args):  # code run during the command keeps the stream it found as sys.stdout
    kept.append(sys.stdout)
    kept.append(sys.stdout.fileno())
    return real(args)

schema.main = main

def late():  # at the exit: open a file (the lowest free descriptor), then print with it
    while True:
        fd = os.open(LOG, os.O_WRONLY | os.O_CREAT | os.O_APPEND)
        if fd >= kept[1]:
            break
    print("LATE LINE", file=kept[0], flush=True)
    os.write(fd, b"the file's own line\\n")

atexit.register(late)
sys.argv = ["toolhost", "schema"]
sys.exit(cli.main())
'''


def test_a_stream_kept_from_stdout_and_used_at_the_exit_writes_to_stderr(tmp_path: Path) -> None:
    """The held stdout's descriptor was closed when the command ended: a stream kept during
    the command and used by an ``atexit`` hook wrote into whatever file took that number."""
    script, log = tmp_path / "late.py", tmp_path / "other.log"
    script.write_text(LATE)
    done = subprocess.run([sys.executable, str(script), str(log)], capture_output=True,
                          text=True, cwd=tmp_path, timeout=60, check=False)
    assert done.returncode == 0, done.stderr
    json.loads(done.stdout)  # the schema, whole
    assert log.read_text() == "the file's own line\n"
    assert "LATE LINE" in done.stderr
