"""Shared by every test directory: HostConfig objects built directly (the loader is tested in
tests/config)."""

from __future__ import annotations

import sys
from collections.abc import Callable
from typing import Any

import pytest

from toolhost.config.model import BackendSpec, HostConfig, Origin, ServerConfig, ToolConfig


def make_config(tools: dict[str, dict[str, Any]], *, server: str = "demo",
                **server_kw: Any) -> HostConfig:
    """``tools``: name -> {"kind": ..., "options": {...}, plus ToolConfig fields}."""
    built = {}
    for line, (name, spec) in enumerate(tools.items(), start=3):
        spec = dict(spec)
        kind, options = spec.pop("kind"), spec.pop("options")
        origin = Origin("test.yaml", line, 5, f"servers.{server}.tools.{name}")
        backend = BackendSpec(kind, options, Origin("test.yaml", line + 1, 7,
                                                    f"{origin.key_path}.{kind}"))
        built[name] = ToolConfig(name=name, server=server, backend=backend, origin=origin, **spec)
    return HostConfig(version=1, servers={server: ServerConfig(name=server, tools=built,
                                                               **server_kw)})


@pytest.hookimpl(tryfirst=True)
def pytest_sessionfinish(session: pytest.Session) -> None:
    """pytest removes the temporary directories of older runs when a run ends, with
    ``shutil.rmtree``, which recursed once per directory level before Python 3.12: a tree left
    a thousand deep (a test of deep repositories, in a run from before they cleaned up after
    themselves) ended a later green run with RecursionError. The limit is raised for that
    clean-up only, after every test has run, so the tests of deep trees still meet the real
    limit."""
    sys.setrecursionlimit(max(sys.getrecursionlimit(), 20_000))


# `make test` runs the suite on two workers (pytest-xdist, -n 2): a test file goes to one
# worker whole (xdist's loadfile, also for its default "load"), so a module's fixtures are
# built once. A directory whose session fixtures are costly (the packaging tests' wheels)
# goes to one worker whole too.
_ONE_GROUP_DIRS = ("tests/packaging/",)


@pytest.hookimpl(optionalhook=True)
def pytest_xdist_make_scheduler(config: pytest.Config, log: Any) -> Any:
    if config.getvalue("dist") not in ("load", "loadfile"):
        return None
    from xdist.scheduler import LoadFileScheduling

    class Grouped(LoadFileScheduling):  # type: ignore[misc]
        def _split_scope(self, nodeid: str) -> str:
            return next((d for d in _ONE_GROUP_DIRS if nodeid.startswith(d)),
                        nodeid.split("::", 1)[0])

    return Grouped(config, log)


@pytest.fixture
def config() -> Callable[..., HostConfig]:
    """``config(tools, server=..., **ServerConfig fields)`` -> HostConfig (see make_config)."""
    return make_config


@pytest.fixture(autouse=True)
def _process_secrets_restored() -> Any:
    """Each test starts with the secrets the process knew before it: a config loaded in
    process ``remember``s its secrets for good (by design), and one test's `API_TOKEN=9`
    must not hide every 9 of the next test's output."""
    from toolhost.redaction import process as redaction

    saved = redaction._state
    yield
    redaction._state = saved


# Hypothesis: a derandomised profile in CI (CI=true) so every run tries the same examples;
# locally the same modest example counts with random seeds. No deadline: a shared machine's
# timing is not a property of the code (time bounds are asserted by the tests themselves).
def _hypothesis_profiles() -> None:
    import os

    from hypothesis import HealthCheck, settings

    common: dict[str, Any] = {"deadline": None, "max_examples": 60,
                              "suppress_health_check": [HealthCheck.too_slow]}
    settings.register_profile("ci", derandomize=True, database=None, **common)
    settings.register_profile("dev", **common)
    settings.load_profile("ci" if os.environ.get("CI", "").lower() in ("1", "true") else "dev")


_hypothesis_profiles()
