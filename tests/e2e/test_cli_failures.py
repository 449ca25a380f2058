"""Known failures of the real CLI, explained with the fix: no credentials, an API that cannot
be reached (given up after three attempts, not the CLI's three minutes of retries)."""

from __future__ import annotations

import os
import socket
import subprocess
from pathlib import Path

import pytest

from .conftest import CONFIG, HERE, TOOLHOST

pytestmark = pytest.mark.e2e


def _run(cli: str, home: Path, *args: str, **env: str) -> subprocess.CompletedProcess[str]:
    clean = {k: v for k, v in os.environ.items() if not k.startswith(("ANTHROPIC_", "CLAUDE_"))}
    clean.update({"HOME": str(home), "PYTHONPATH": str(HERE), "TOOLHOST_CLI": cli, **env})
    return subprocess.run([str(TOOLHOST), "run", str(CONFIG), *args], capture_output=True,
                          text=True, env=clean, timeout=120, check=False)


def _closed_port() -> int:
    with socket.socket() as s:  # bound, then closed: nothing listens there
        s.bind(("127.0.0.1", 0))
        port: int = s.getsockname()[1]
    return port


def test_no_credentials_says_how_to_log_in(cli: str, tmp_path: Path) -> None:
    done = _run(cli, tmp_path, "-p", "hello")
    assert done.returncode == 1
    assert "failed (authentication_failed)" in done.stdout
    assert "Set ANTHROPIC_API_KEY" in done.stderr + done.stdout
    assert "--script" in done.stderr + done.stdout
    assert "(success)" not in done.stdout


def test_an_unreachable_api_is_given_up_after_three_attempts(cli: str, tmp_path: Path) -> None:
    done = _run(cli, tmp_path, "-p", "hello", ANTHROPIC_API_KEY="test",
                ANTHROPIC_BASE_URL=f"http://127.0.0.1:{_closed_port()}")
    assert done.returncode == 1, done.stderr
    assert "could not reach the API" in done.stderr
    assert "gave no answer 3 times" in done.stderr
    assert "attempt 4 of" not in done.stderr  # stopped at the third
    assert "0 turns" in done.stdout  # the model never replied


def test_max_retries_set_by_the_person_is_respected(cli: str, tmp_path: Path) -> None:
    done = _run(cli, tmp_path, "-p", "hello", ANTHROPIC_API_KEY="test",
                ANTHROPIC_BASE_URL=f"http://127.0.0.1:{_closed_port()}",
                CLAUDE_CODE_MAX_RETRIES="1")
    assert done.returncode == 1, done.stderr
    assert "gave no answer" not in done.stderr  # the CLI gave up on its own, after one retry
    assert "could not reach the API" in done.stderr + done.stdout
