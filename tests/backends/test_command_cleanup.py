"""Nothing a command tool started outlives it: background children, setsid and double forks
are killed when the tool ends, however it ends (real processes, real /proc)."""

from __future__ import annotations

import sys
import threading
from pathlib import Path

import anyio
import pytest

from toolhost.backends import reaper
from toolhost.backends.base import CallContext
from toolhost.backends.process import kill_all_tool_processes
from toolhost.compile import compile_tools

from .test_command_backend import Config, cmd, gone, pid_alive, run

pytestmark = [pytest.mark.anyio,
              pytest.mark.skipif(not sys.platform.startswith("linux"),
                                 reason="escaped descendants are caught on Linux only")]


def escape_scripts(tmp: Path) -> dict[str, str]:
    """sh -c scripts that leave a child behind which writes its pid, then would touch X
    (in the double forks ``$$`` is escaped: the pid written is the innermost shell's)."""
    child = f"echo $$ > {tmp}/pid.tmp; mv {tmp}/pid.tmp {tmp}/pid; sleep 6; touch {tmp}/X"
    ready = f"while [ ! -s {tmp}/pid ]; do sleep 0.01; done; echo started"
    return {
        "background": f"(sh -c '{child}' &) >/dev/null 2>&1; {ready}",
        "setsid": f"setsid sh -c '{child}' >/dev/null 2>&1 & {ready}",
        "double_fork_setsid": "(setsid sh -c '(sh -c \"{}\" &)' &) >/dev/null 2>&1; "
                              "{}".format(child.replace("$$", r"\$\$"), ready),
        "holds_stdout": f"sh -c '{child}' & {ready}",
        # no marker (env -i), its own session, orphaned before the tool ends: only the
        # descriptor every descendant inherits says it is the run's
        "env_i_double_fork_setsid": "(env -i setsid sh -c '(sh -c \"{}\" &)' &) "
                                    ">/dev/null 2>&1; {}".format(child.replace("$$", r"\$\$"),
                                                                 ready),
        # a Python child closes the inherited descriptors (close_fds), keeps stdout
        "env_i_python_session": f"env -i {sys.executable} -c 'import subprocess; "
                                f"subprocess.Popen([\"sh\", \"-c\", \"{child}\"], "
                                f"start_new_session=True)'; {ready}",
        # a daemon: its own session, a double fork, every descriptor closed, an empty
        # environment: nothing of the run left on it but its place in the process tree,
        # which the run's own subreaper keeps (Linux)
        "daemon": f"{sys.executable} -c 'import os\n"
                  f"if os.fork() == 0:\n os.setsid()\n if os.fork(): os._exit(0)\n"
                  f" os.closerange(0, 65536)\n"
                  f" os.execve(\"/bin/sh\", [\"sh\", \"-c\", \"{child}\"], {{}})\n"
                  f"os.wait()'; {ready}",
    }


async def wait_for_pid(path: Path) -> int:
    for _ in range(200):
        if path.exists() and path.read_text().strip():
            return int(path.read_text())
        await anyio.sleep(0.02)
    raise AssertionError(f"{path} was never written")


@pytest.mark.parametrize("shape", ["background", "setsid", "double_fork_setsid",
                                   "holds_stdout", "env_i_double_fork_setsid",
                                   "env_i_python_session", "daemon"])
async def test_children_die_when_the_tool_exits(config: Config, tmp_path: Path,
                                                shape: str) -> None:
    script = escape_scripts(tmp_path)[shape]
    cfg = config({"t": cmd(["sh", "-c", script], timeout=20.0)})
    result = await run(cfg, "t", {})
    assert not result.is_error and result.text_content == "started\n", result
    assert await gone(int((tmp_path / "pid").read_text()))
    assert not reaper.live_runs()
    assert not (tmp_path / "X").exists()


@pytest.mark.parametrize("end", ["timeout", "cancel"])
async def test_children_die_on_timeout_and_cancel(config: Config, tmp_path: Path,
                                                  end: str) -> None:
    child = f"echo $$ > {tmp_path}/pid; sleep 30"
    script = f"setsid sh -c '{child}' >/dev/null 2>&1 & sleep 30"
    cfg = config({"t": cmd(["sh", "-c", script], timeout=1.0 if end == "timeout" else 30.0)})
    if end == "timeout":
        result = await run(cfg, "t", {})
        assert result.is_error and "timed out" in result.text_content
        pid = await wait_for_pid(tmp_path / "pid")
    else:
        compiled = compile_tools(cfg)
        async with anyio.create_task_group() as tg:
            tg.start_soon(compiled.tool("demo", "t").call, {}, CallContext())
            pid = await wait_for_pid(tmp_path / "pid")
            tg.cancel_scope.cancel()
        await compiled.aclose()
    assert await gone(pid)
    assert not reaper.live_runs()


async def test_kill_all_tool_processes_ends_running_tools(config: Config,
                                                          tmp_path: Path) -> None:
    """What the runner calls on shutdown: every running tool and what it started dies."""
    child = f"echo $$ > {tmp_path}/pid; sleep 30"
    cfg = config({"t": cmd(["sh", "-c", f"setsid sh -c '{child}' >/dev/null 2>&1 & sleep 30"],
                           timeout=30.0)})
    compiled = compile_tools(cfg)
    results = []

    async def call() -> None:
        results.append(await compiled.tool("demo", "t").call({}, CallContext()))

    async with anyio.create_task_group() as tg:
        tg.start_soon(call)
        pid = await wait_for_pid(tmp_path / "pid")
        # the grandchild can write its pid before the spawn returns and registers the run
        for _ in range(500):
            if reaper.live_runs():
                break
            await anyio.sleep(0.01)
        assert len(reaper.live_runs()) == 1
        done = threading.Event()
        threading.Thread(target=lambda: (kill_all_tool_processes(), done.set())).start()
        while not done.is_set():
            await anyio.sleep(0.01)
    await compiled.aclose()
    assert await gone(pid)
    (result,) = results
    assert result.is_error and "killed by signal 9" in result.text_content


async def test_concurrent_runs_only_kill_their_own(config: Config, tmp_path: Path) -> None:
    """Ending one run leaves another run's escaped child alone until that run ends."""
    (tmp_path / "a").mkdir()
    (tmp_path / "b").mkdir()
    slow = f"setsid sh -c 'echo $$ > {tmp_path}/b/pid; sleep 30' >/dev/null 2>&1 & sleep 30"
    cfg = config({"fast": cmd(["sh", "-c", "echo done"]),
                  "slow": cmd(["sh", "-c", slow], timeout=30.0)})
    compiled = compile_tools(cfg)
    async with anyio.create_task_group() as tg:
        tg.start_soon(compiled.tool("demo", "slow").call, {}, CallContext())
        pid = await wait_for_pid(tmp_path / "b" / "pid")
        for _ in range(5):
            fast = await compiled.tool("demo", "fast").call({}, CallContext())
            assert fast.text_content == "done\n"
        assert pid_alive(pid)  # the other run's child was not touched
        tg.cancel_scope.cancel()
    await compiled.aclose()
    assert await gone(pid)


def test_the_host_is_a_child_subreaper() -> None:
    assert reaper.enable_subreaper()
    status = Path("/proc/self/status").read_text()
    assert status  # prctl(PR_GET_CHILD_SUBREAPER) is not in /proc; ask the kernel instead
    import ctypes

    value = ctypes.c_int(0)
    libc = ctypes.CDLL(None, use_errno=True)
    assert libc.prctl(37, ctypes.byref(value), 0, 0, 0) == 0  # PR_GET_CHILD_SUBREAPER
    assert value.value == 1


@pytest.mark.parametrize("shape", ["setsid", "same_session"])
async def test_a_daemon_that_kills_its_subreaper_still_dies(config: Config, tmp_path: Path,
                                                            shape: str) -> None:
    """A double-forked daemon with an empty environment and no descriptors kills the run's
    own subreaper (its parent once orphaned: ``kill -9 $PPID``), and so is re-parented to
    the host: the host's sweep of the orphans it never started still ends it."""
    child = f"kill -9 $PPID; sleep 6; touch {tmp_path}/X"  # no marker, no descriptor
    setsid = " os.setsid()\n" if shape == "setsid" else ""
    daemon = (f"import os, time\n"
              f"if os.fork() == 0:\n{setsid} if os.fork(): os._exit(0)\n"
              f" os.closerange(0, 65536)\n"
              f" open('{tmp_path}/pid.tmp', 'w').write(str(os.getpid()))\n"
              f" os.rename('{tmp_path}/pid.tmp', '{tmp_path}/pid')\n"
              f" time.sleep(0.3)\n"  # orphaned: its parent is the run's subreaper now
              f" os.execve('/bin/sh', ['sh', '-c', '{child}'], {{}})\n"
              f"os.wait()\n"
              f"time.sleep(30)\n")
    cfg = config({"t": cmd([sys.executable, "-c", daemon], timeout=20.0)})
    result = await run(cfg, "t", {})
    assert result.is_error and "killed by signal 9" in result.text_content, result
    pid = await wait_for_pid(tmp_path / "pid")
    assert await gone(pid)
    assert not reaper.live_runs()
    assert not (tmp_path / "X").exists()
