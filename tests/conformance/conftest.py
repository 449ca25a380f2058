"""The official MCP conformance suite (npm @modelcontextprotocol/conformance) and the Node 22
it needs, installed once into a cache directory, run once per test session against
``toolhost serve --transport http`` on tests/conformance/conformance.yaml.

Two pinned versions run: ``SUITE`` (the last release, 0.1.x: the 2025 revisions' scenarios)
and ``NEWEST`` (the newest alpha: 2026-07-28, tasks, the stateless round trip). Each is
installed into its own cache directory; the newest costs ~20 s of run (docs/serve.md).
"""

from __future__ import annotations

import fcntl
import json
import os
import shutil
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from ..serve.conftest import http_server

HERE = Path(__file__).parent
ROOT = HERE.parent.parent
SUITE = "@modelcontextprotocol/conformance@0.1.16"
NEWEST = "@modelcontextprotocol/conformance@0.2.0-alpha.12"
NODE = "node@22"

Results = dict[str, list[dict[str, Any]]]


def cache_dir(suite: str = SUITE) -> Path:
    """``$TOOLHOST_TEST_CACHE/conformance`` or ``.cache/conformance`` in the checkout for
    ``SUITE``; ``conformance-<version>`` beside it for any other version."""
    base = os.environ.get("TOOLHOST_TEST_CACHE")
    name = "conformance" if suite == SUITE else f"conformance-{suite.rsplit('@', 1)[1]}"
    return (Path(base) if base else ROOT / ".cache") / name


def install(suite: str) -> Path:
    """The command line of ``suite``, installed with Node 22 beside it on first use (under a
    lock: two test runs, or two workers of one, never install into one directory at once)."""
    where = cache_dir(suite)
    where.mkdir(parents=True, exist_ok=True)
    with open(where.parent / f".{where.name}.lock", "w") as lock:
        fcntl.flock(lock, fcntl.LOCK_EX)
        return _install(suite, where)


def _install(suite: str, where: Path) -> Path:
    binary = where / "node_modules" / ".bin" / "conformance"
    if binary.exists() and (where / "node_modules" / ".bin" / "node").exists():
        return binary
    npm = shutil.which("npm")
    if npm is None:
        pytest.skip("npm is not installed: the conformance suite comes from the npm registry")
    done = subprocess.run([npm, "install", "--prefix", str(where), "--no-audit", "--no-fund",
                           "--loglevel=error", NODE, suite], capture_output=True, text=True,
                          timeout=600, check=False)
    if done.returncode != 0 or not binary.exists():
        pytest.fail(f"npm install {NODE} {suite} failed:\n{done.stderr[-2000:]}")
    return binary


def run_suite(binary: Path, work: Path) -> Results:
    """Every server scenario's checks, by scenario name (one run of the whole suite)."""
    env = {**os.environ, "PYTHONPATH": os.pathsep.join(
        p for p in (str(HERE), str(ROOT), os.environ.get("PYTHONPATH")) if p)}
    argv = [sys.executable, "-m", "toolhost", "serve", str(HERE / "conformance.yaml"),
            "--transport", "http", "--port", "0"]
    bin_dir = binary.parent
    with http_server(argv, work / "server.log", env=env) as url:
        run_env = {**os.environ, "PATH": f"{bin_dir}{os.pathsep}{os.environ.get('PATH', '')}"}
        subprocess.run([str(binary), "server", "--url", url, "--suite", "all", "-o",
                        str(work / "out")],
                       capture_output=True, text=True, env=run_env, timeout=300, check=False)
    results: Results = {}
    for checks in sorted((work / "out").glob("*/checks.json")):
        name = checks.parent.name.removeprefix("server-").rsplit("-", 6)[0]
        results[name] = json.loads(checks.read_text())
    return results


@pytest.fixture(scope="session")
def conformance_bin() -> Path:
    """The pinned suite's command line (``SUITE``)."""
    return install(SUITE)


@pytest.fixture(scope="session")
def suite_results(conformance_bin: Path, tmp_path_factory: pytest.TempPathFactory
                  ) -> Iterator[Results]:
    """Every server scenario's checks of ``SUITE``, by scenario name."""
    yield run_suite(conformance_bin, tmp_path_factory.mktemp("conformance"))


@pytest.fixture(scope="session")
def newest_results(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Results]:
    """Every server scenario's checks of ``NEWEST``, by scenario name."""
    yield run_suite(install(NEWEST), tmp_path_factory.mktemp("conformance-newest"))
