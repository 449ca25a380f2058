"""``toolhost run`` in a real terminal (a tmux pane), typed at like a person, and a check of
the process table afterwards.

Each ``Pane`` has a tmux server of its own (``-L``), so tests never share one. Every process
of a run carries ``E2E_TOKEN`` in its environment (toolhost and the CLI inherit it; command
tools get it through their ``env:``), which is how ``leftovers`` finds what a run left.
Waits are generous deadlines on expected output, never sleeps standing in for assertions.
"""

from __future__ import annotations

import contextlib
import os
import shlex
import shutil
import signal
import subprocess
import time
import uuid
from pathlib import Path

from .conftest import HERE, TOOLHOST

WAIT = 90.0  # seconds: a loaded 2-core machine starts the CLI slowly


def new_token() -> str:
    return uuid.uuid4().hex


def tmux_available() -> bool:
    return shutil.which("tmux") is not None


class Pane:
    """One ``toolhost run`` in a tmux pane of its own."""

    def __init__(self, tmp: Path, cli: str, args: list[str],
                 env: dict[str, str] | None = None, token: str | None = None) -> None:
        self.token = token or new_token()
        self.socket = f"th-{self.token[:12]}"
        self.exit_file = tmp / f"exit-{self.token[:8]}"
        full = {"PYTHONPATH": str(HERE), "TOOLHOST_CLI": cli, "E2E_TOKEN": self.token,
                "TERM": "xterm", "PYTHONFAULTHANDLER": "1", **(env or {})}
        exports = " ".join(f"{k}={shlex.quote(v)}" for k, v in full.items())
        command = " ".join(shlex.quote(a) for a in [str(TOOLHOST), "run", *args])
        script = tmp / f"run-{self.token[:8]}.sh"
        # exec: the pane's process is toolhost itself (signals reach it, not a shell)
        script.write_text(f"export {exports}\nexec {command}\n")
        self.conf = tmp / f"tmux-{self.token[:8]}.conf"
        self.conf.write_text("set -g remain-on-exit on\nset -g history-limit 5000\n")
        self._tmux("new-session", "-d", "-x", "160", "-y", "50", "sh", str(script))
        self.pid = int(self._tmux("display-message", "-p", "-t", "0", "#{pane_pid}").strip())

    def _tmux(self, *args: str) -> str:
        done = subprocess.run(["tmux", "-L", self.socket, "-f", str(self.conf), *args],
                              capture_output=True, text=True, timeout=30, check=False)
        return done.stdout

    def screen(self) -> str:
        """Everything the pane shows, scroll-back included."""
        return self._tmux("capture-pane", "-p", "-J", "-t", "0", "-S", "-2000")

    def wait_for(self, text: str, *, count: int = 1, timeout: float = WAIT) -> str:
        """Wait until ``text`` shows (``count`` times); the screen, or fail with it."""
        deadline = time.monotonic() + timeout
        while True:
            shown = self.screen()
            if shown.count(text) >= count:
                return shown
            if time.monotonic() > deadline:
                raise AssertionError(f"{text!r} (x{count}) never showed; the screen:\n{shown}")
            time.sleep(0.2)

    def type(self, text: str) -> None:
        """Type ``text`` literally (no Enter)."""
        self._tmux("send-keys", "-t", "0", "-l", text)

    def paste(self, text: str) -> None:
        """Paste ``text`` as a terminal does (marked when toolhost asked for marks)."""
        buffer = self.conf.with_name(f"paste-{self.token[:8]}.txt")
        buffer.write_text(text)
        self._tmux("load-buffer", str(buffer))
        self._tmux("paste-buffer", "-p", "-t", "0")

    def line(self, text: str) -> None:
        self.type(text)
        self._tmux("send-keys", "-t", "0", "Enter")

    def key(self, name: str) -> None:
        """A key by tmux's name: C-c, C-d, Enter."""
        self._tmux("send-keys", "-t", "0", name)

    def exit_status(self, timeout: float = WAIT) -> int:
        """Wait for toolhost to exit; its status (128+N when a signal killed it)."""
        deadline = time.monotonic() + timeout
        while True:
            state = self._tmux("display-message", "-p", "-t", "0",
                               "#{pane_dead}|#{pane_dead_status}|#{pane_dead_signal}")
            dead, status, signum = ([*state.strip().split("|"), "", "", ""])[:3]
            if dead == "1" and (status or signum):
                return int(status) if status else 128 + int(signum)
            if dead == "1" and (lost := _lost_exit_status(self.pid)) is not None:
                return lost
            if time.monotonic() > deadline:  # a hang: show where (faulthandler's dump)
                with contextlib.suppress(OSError):
                    os.kill(self.pid, signal.SIGABRT)
                time.sleep(1)
                raise AssertionError(f"toolhost did not exit; the screen:\n{self.screen()}")
            time.sleep(0.2)

    def close(self) -> None:
        """Close the terminal (SIGHUP to what runs in it) and stop this tmux server."""
        self._tmux("kill-server")


def _lost_exit_status(pid: int) -> int | None:
    """The exit status of a zombie tmux never reaped, as ``exit_status`` reports it.

    tmux 3.3 with libutempter runs a helper with SIGCHLD at its default action when a pane's
    terminal closes; an exit reported in that window is lost and the pane's process stays a
    zombie with no ``pane_dead_status`` (seen with ``sleep 100`` killed by SIGKILL too, so
    not ours to fix). The kernel still has the status: field 52 of ``/proc/PID/stat``.
    """
    try:
        with open(f"/proc/{pid}/stat") as f:
            fields = f.read().rsplit(")", 1)[1].split()
    except OSError:
        return None
    if fields[0] != "Z" or len(fields) < 50:
        return None
    raw = int(fields[49])  # field 52 counted from 1, with pid and comm cut off
    return (raw >> 8) & 0xFF if raw & 0x7F == 0 else 128 + (raw & 0x7F)


def leftovers(token: str) -> list[str]:
    """Processes (pid and command line) whose environment carries ``token``."""
    found = []
    needle = f"E2E_TOKEN={token}".encode()
    for entry in os.listdir("/proc"):
        if not entry.isdigit():
            continue
        try:
            with open(f"/proc/{entry}/environ", "rb") as f:
                environ = f.read()
            with open(f"/proc/{entry}/cmdline", "rb") as f:
                cmdline = f.read().replace(b"\0", b" ").decode(errors="replace")
        except OSError:
            continue
        if needle in environ.split(b"\0") and cmdline:  # zombies have no cmdline
            found.append(f"{entry}: {cmdline[:200]}")
    return found


def assert_nothing_left(token: str, timeout: float = 30.0) -> None:
    """Every process of the run is gone (within ``timeout``: exits take a moment)."""
    deadline = time.monotonic() + timeout
    while True:
        left = leftovers(token)
        if not left:
            return
        if time.monotonic() > deadline:
            raise AssertionError("processes left behind:\n" + "\n".join(left))
        time.sleep(0.2)


def kill_leftovers(token: str) -> None:
    """After a failed test: do not let its processes linger on the machine."""
    for line in leftovers(token):
        pid = int(line.split(":", 1)[0])
        with contextlib.suppress(OSError):
            os.kill(pid, 9)
