"""E2E fixtures: the real Claude CLI (bundled in claude-agent-sdk) and per-test tool logs."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest

from toolhost.runner.discovery import bundled_cli

HERE = Path(__file__).parent
CONFIG = HERE / "e2e.yaml"
TOOLHOST = Path(sys.executable).parent / "toolhost"


@pytest.fixture(scope="session")
def cli() -> str:
    """The CLI under test: $TOOLHOST_E2E_CLI (``make e2e-cli-latest``/``-oldest``), else the
    one bundled in the pinned claude-agent-sdk wheel."""
    chosen = os.environ.get("TOOLHOST_E2E_CLI")
    if chosen:
        if not os.access(chosen, os.X_OK):
            pytest.fail(f"$TOOLHOST_E2E_CLI={chosen}: not an executable")
        return chosen
    path = bundled_cli()
    if path is None:
        pytest.skip("the Claude CLI bundled in claude-agent-sdk is not installed")
    return str(path)


@pytest.fixture
def tool_log(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """The file the e2e tools append to; also importable tools for in-process runs."""
    log = tmp_path / "tools.jsonl"
    monkeypatch.setenv("E2E_LOG", str(log))
    monkeypatch.syspath_prepend(str(HERE))
    return log


def read_log(path: Path) -> list[dict[str, Any]]:
    if not path.exists():
        return []
    return [json.loads(line) for line in path.read_text().splitlines()]


@pytest.fixture
def scenario(tmp_path: Path) -> Callable[[str], Path]:
    def write(text: str) -> Path:
        path = tmp_path / "scenario.yaml"
        path.write_text(text)
        return path
    return write


def run_toolhost(cli: str, *args: str) -> subprocess.CompletedProcess[str]:
    """``toolhost run`` as a user runs it: a subprocess, tools importable via PYTHONPATH."""
    env = {**os.environ, "PYTHONPATH": str(HERE), "TOOLHOST_CLI": cli}
    return subprocess.run([str(TOOLHOST), "run", *args], capture_output=True, text=True,
                          env=env, timeout=120, check=False)


def start_toolhost(cli: str, *args: str, env: dict[str, str] | None = None,
                   stdin: int | None = subprocess.DEVNULL) -> subprocess.Popen[str]:
    """``toolhost run`` started in the background, in its own process group."""
    full = {**os.environ, "PYTHONPATH": str(HERE), "TOOLHOST_CLI": cli, **(env or {})}
    return subprocess.Popen([str(TOOLHOST), "run", *args], stdin=stdin,
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
                            env=full, start_new_session=True)


class Model:
    """``python -m toolhost.scripted SCENARIO`` in the background."""

    def __init__(self, scenario: Path) -> None:
        self.proc = subprocess.Popen([sys.executable, "-m", "toolhost.scripted", str(scenario)],
                                     stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
        assert self.proc.stdout is not None
        self.url = self.proc.stdout.readline().strip()
        assert self.url.startswith("http://127.0.0.1:"), self.proc.stderr

    def stop(self) -> tuple[int, str]:
        """SIGTERM; its exit code and stderr (the scenario's verdict)."""
        self.proc.send_signal(signal.SIGTERM)
        _, err = self.proc.communicate(timeout=30)
        return self.proc.returncode, err


@pytest.fixture
def model(scenario: Callable[[str], Path]) -> Iterator[Callable[[str], Model]]:
    started: list[Model] = []

    def start(text: str) -> Model:
        started.append(Model(scenario(text)))
        return started[-1]

    yield start
    for m in started:
        if m.proc.poll() is None:
            m.proc.kill()
            m.proc.communicate()
