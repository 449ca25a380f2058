"""An upstream MCP server (tests/gateway/upstream_server.py) and configs importing it."""

from __future__ import annotations

import os
import socket
import subprocess
import sys
import time
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

import anyio

HERE = Path(__file__).parent
UPSTREAM = HERE / "upstream_server.py"


def gateway_config(tmp_path: Path, *, mcp: str | None = None, extra: str = "",
                   raw: bool = False) -> Path:
    """A config importing the upstream over stdio (or ``mcp``), reshaped and governed.
    ``raw``: the hostile upstream's ``issues`` mode instead, which lists the same tools and
    starts far sooner (where the subject is the listing, not the calls or the SDK)."""
    if raw:
        mcp = (f"{{command: [{sys.executable}, {HOSTILE}], env: {{HOSTILE_MODE: issues, "
               "UPSTREAM_SEARCH_DESCRIPTION: '${UPSTREAM_SEARCH_DESCRIPTION:-}'}}")
    block = mcp or (f"{{command: [{sys.executable}, {UPSTREAM}, stdio], env: "
                    "{UPSTREAM_LOG: '${UPSTREAM_LOG:-}', "
                    "UPSTREAM_CRASH_AFTER: '${UPSTREAM_CRASH_AFTER:-}', "
                    "UPSTREAM_SEARCH_DESCRIPTION: '${UPSTREAM_SEARCH_DESCRIPTION:-}', "
                    "UPSTREAM_GROW: '${UPSTREAM_GROW:-}', "
                    "UPSTREAM_LEGACY: '${UPSTREAM_LEGACY:-}'}}")
    config = tmp_path / "gateway.yaml"
    config.write_text(f"""\
toolhost: 1
servers:
  gh:
    description: Issues, governed by toolhost
    mcp: {block}
    exclude: ["delete_*"]
    tools:
      search_issues:
        name: search
        description: Search our app's issues
        fixed: {{repo: acme/app}}
        defaults: {{limit: 5}}
        params: {{limit: {{maximum: 10}}}}
        annotations: {{readOnlyHint: true}}
permissions:
  default: allow
  deny:
    - tool: mcp__gh__search
      when: {{query: {{regex: "(?i).*password.*"}}}}
      message: No password hunting.
{extra}""")
    return config


def upstream_processes() -> list[int]:
    """PIDs of running upstream servers started from this checkout, but those another xdist
    worker of this run started (their environment names that worker: ``make test`` runs two);
    an upstream whose environment cannot be read or names no worker counts as this one's."""
    found = []
    for entry in os.listdir("/proc"):
        if not entry.isdigit():
            continue
        try:
            with open(f"/proc/{entry}/cmdline", "rb") as handle:
                cmdline = handle.read()
        except OSError:
            continue
        if str(UPSTREAM).encode() in cmdline and not _another_workers(entry):
            found.append(int(entry))
    return found


_WORKER = os.environ.get("PYTEST_XDIST_WORKER", "").encode()


def _another_workers(pid: str) -> bool:
    try:
        with open(f"/proc/{pid}/environ", "rb") as handle:
            environ = handle.read().split(b"\0")
    except OSError:
        return False
    named = [v for v in environ if v.startswith(b"PYTEST_XDIST_WORKER=")]
    return bool(named) and named[0] != b"PYTEST_XDIST_WORKER=" + _WORKER


def free_port() -> int:
    """A local TCP port nothing listens on (at the time of asking)."""
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


@contextmanager
def http_upstream(script: Path = UPSTREAM, **env: str) -> Iterator[int]:
    """The upstream (or ``script``: e.g. HOSTILE) served over HTTP on a free local port
    (``env``: its switches); yields the port once it accepts connections."""
    with http_upstream_process(script, **env) as (port, _server):
        yield port


@contextmanager
def http_upstream_process(script: Path = UPSTREAM, **env: str
                          ) -> Iterator[tuple[int, subprocess.Popen[bytes]]]:
    """``http_upstream``, with its process (for a test that kills it)."""
    port = free_port()
    server = subprocess.Popen([sys.executable, str(script), "http", str(port)],
                              env={**os.environ, **env},
                              stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    try:
        deadline = time.monotonic() + 60
        while time.monotonic() < deadline:
            with socket.socket() as probe:
                if probe.connect_ex(("127.0.0.1", port)) == 0:
                    break
            time.sleep(0.1)
        yield port, server
    finally:
        server.terminate()
        server.wait(10)


async def upstreams_gone(wait: float) -> None:
    """Until no upstream server of this checkout runs (a closed gateway ends its own)."""
    deadline = time.monotonic() + wait
    while upstream_processes():
        if time.monotonic() > deadline:
            raise AssertionError(f"upstreams still running after {wait} s: {who_runs()}")
        await anyio.sleep(0.1)


def wait_upstreams_gone(wait: float) -> None:
    """``upstreams_gone`` outside an event loop: an upstream ends on its own once its host has
    closed its input, a moment after the host itself may have exited."""
    deadline = time.monotonic() + wait
    while upstream_processes():
        if time.monotonic() > deadline:
            raise AssertionError(f"upstreams still running after {wait} s: {who_runs()}")
        time.sleep(0.1)


def who_runs() -> list[str]:
    """Each upstream of this checkout still running, with its parent (to tell whose it is)."""
    def described(pid: int) -> str:
        try:
            with open(f"/proc/{pid}/cmdline", "rb") as handle:
                line = handle.read().replace(b"\0", b" ").decode(errors="replace")[:200]
            with open(f"/proc/{pid}/stat", "rb") as handle:
                parent = int(handle.read().rpartition(b")")[2].split()[1])
        except (OSError, IndexError, ValueError):
            return f"{pid} (gone)"
        return f"{pid} [{line}] child of {parent}"
    out = []
    for pid in upstream_processes():
        here = described(pid)
        parent = here.rpartition("child of ")[2]
        out.append(here + (f" <- {described(int(parent))}" if parent.isdigit() else ""))
    return out


HOSTILE = HERE / "hostile_upstream.py"


def hostile_config(tmp_path: Path, *, timeout: str = "5s", connect_timeout: str = "30s",
                   extra: str = "") -> Path:
    """A config importing the hostile upstream over stdio (its switches from the environment:
    HOSTILE_MODE, HOSTILE_TOOLS, HOSTILE_PRE, HOSTILE_N, HOSTILE_HIDDEN) and a local
    command tool ``loc.hi``."""
    config = tmp_path / "hostile.yaml"
    # (one line: the tests name the config's lines)
    pre = 'HOSTILE_PRE: "${HOSTILE_PRE:-}", HOSTILE_HIDDEN: "${HOSTILE_HIDDEN:-}"'
    worker = ('HOSTILE_WORKER: "${HOSTILE_WORKER:-}", '
              'HOSTILE_WORKER_KIND: "${HOSTILE_WORKER_KIND:-}"')
    config.write_text(f"""\
toolhost: 1
servers:
  h:
    mcp:
      command: [{sys.executable}, {HOSTILE}]
      env: {{HOSTILE_MODE: "${{HOSTILE_MODE:-}}", HOSTILE_TOOLS: "${{HOSTILE_TOOLS:-}}",
             HOSTILE_N: "${{HOSTILE_N:-1}}", HOSTILE_LOG: "${{HOSTILE_LOG:-}}", {pre}, {worker}}}
      timeout: {timeout}
      connect_timeout: {connect_timeout}
{extra}  loc:
    tools:
      hi:
        command: [echo, hi]
permissions:
  default: allow
""")
    return config


@contextmanager
def tarpit() -> Iterator[tuple[int, list[bytes]]]:
    """A local port that accepts connections and never answers; yields the port and what
    each connection sent (a fetch that must never happen shows up there)."""
    import threading

    got: list[bytes] = []
    server = socket.socket()
    server.bind(("127.0.0.1", 0))
    server.listen(16)
    server.settimeout(0.2)
    stop = threading.Event()

    def accept() -> None:
        while not stop.is_set():
            try:
                conn, _ = server.accept()
            except OSError:
                continue
            conn.settimeout(1)
            try:
                got.append(conn.recv(4096) or b"(connected)")
            except OSError:
                got.append(b"(connected)")
    thread = threading.Thread(target=accept, daemon=True)
    thread.start()
    try:
        yield int(server.getsockname()[1]), got
    finally:
        stop.set()
        thread.join(5)
        server.close()


def at_once(*commands: list[str], **env: str) -> list[subprocess.CompletedProcess[str]]:
    """``toolhost COMMAND...`` for each command, run side by side (so: none that writes what
    another reads), each with ``env`` added to the environment."""
    started = [(command, subprocess.Popen([sys.executable, "-m", "toolhost", *command],
                                          stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                                          text=True, env={**os.environ, **env}))
               for command in commands]
    done = []
    for command, process in started:
        out, err = process.communicate(timeout=120)
        done.append(subprocess.CompletedProcess(command, process.returncode, out, err))
    return done
