"""Helpers for serve tests: a real server process on stdio or on a random loopback port."""

from __future__ import annotations

import os
import re
import subprocess
import sys
import time
from collections.abc import Iterator, Sequence
from contextlib import contextmanager
from pathlib import Path
from typing import Any

import pytest

HERE = Path(__file__).parent
FIXTURE_SERVER = str(HERE / "fixture_server.py")
URL_LINE = re.compile(r"serving MCP on (http://\S+)")


@pytest.fixture
def anyio_backend() -> str:
    return "asyncio"


@pytest.fixture(scope="module")
def issuer() -> Iterator[Any]:
    """A local OAuth issuer (tests/serve/test_auth.py ``Issuer``) for one test module."""
    from tests.serve.test_auth import Issuer

    made = Issuer()
    yield made
    made.close()


def server_env() -> dict[str, str]:
    env = dict(os.environ)
    env["PYTHONPATH"] = os.pathsep.join(p for p in (str(HERE.parent.parent),
                                                    env.get("PYTHONPATH")) if p)
    return env


def quick_exit(env: dict[str, str]) -> dict[str, str]:
    """``env`` with a short quiet time at SIGTERM (``TOOLHOST_SHUTDOWN_QUIET``) unless it names
    one: a server a test ends waits 0.05 s for late requests instead of a second. The tests of
    the shutdown itself (test_shutdown_answers, test_replicas) keep the default."""
    return {"TOOLHOST_SHUTDOWN_QUIET": "0.05", **env}


@contextmanager
def http_server(argv: Sequence[str], log_path: Path, *,
                env: dict[str, str] | None = None) -> Iterator[str]:
    """Start ``argv`` (which must listen on port 0) and yield its MCP URL."""
    with http_process(argv, log_path, env=env) as (url, _proc):
        yield url


@contextmanager
def http_process(argv: Sequence[str], log_path: Path, *, env: dict[str, str] | None = None
                 ) -> Iterator[tuple[str, subprocess.Popen[bytes]]]:
    """``http_server``, yielding the process too (its pid: /proc)."""
    with open(log_path, "wb") as log:
        proc = subprocess.Popen(list(argv), stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL,
                                stderr=log, env=quick_exit(env or server_env()))
    try:
        deadline = time.monotonic() + 30
        while True:
            match = URL_LINE.search(log_path.read_text(errors="replace"))
            if match:
                break
            if proc.poll() is not None or time.monotonic() > deadline:
                raise AssertionError("server did not start:\n" + log_path.read_text())
            time.sleep(0.05)
        yield match.group(1), proc
    finally:
        proc.terminate()
        try:
            proc.wait(10)
        except subprocess.TimeoutExpired:
            proc.kill()
            proc.wait()


@contextmanager
def http_servers(started: Sequence[tuple[Sequence[str], Path, dict[str, str] | None]],
                 processes: list[subprocess.Popen[bytes]] | None = None
                 ) -> Iterator[list[str]]:
    """Several ``http_server`` processes (argv, log path, env each), all started before any
    is waited for (replicas start side by side, not one after another); their MCP URLs.
    ``processes``: a list the processes are appended to (to signal one)."""
    procs: list[tuple[subprocess.Popen[bytes], Path]] = []
    try:
        for argv, log_path, env in started:
            with open(log_path, "wb") as log:
                procs.append((subprocess.Popen(
                    list(argv), stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL,
                    stderr=log, env=quick_exit(env or server_env())), log_path))
                if processes is not None:
                    processes.append(procs[-1][0])
        urls = []
        deadline = time.monotonic() + 30
        for proc, log_path in procs:
            while not (match := URL_LINE.search(log_path.read_text(errors="replace"))):
                if proc.poll() is not None or time.monotonic() > deadline:
                    raise AssertionError("server did not start:\n" + log_path.read_text())
                time.sleep(0.05)
            urls.append(match.group(1))
        yield urls
    finally:
        for proc, _ in procs:
            proc.terminate()
        for proc, _ in procs:
            try:
                proc.wait(10)
            except subprocess.TimeoutExpired:
                proc.kill()
                proc.wait()


def fixture_stdio_argv() -> list[str]:
    return [sys.executable, FIXTURE_SERVER, "stdio"]


def fixture_http_argv() -> list[str]:
    return [sys.executable, FIXTURE_SERVER, "http", "0"]
