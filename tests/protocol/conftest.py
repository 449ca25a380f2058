"""Every test that serves a ControlSession through ``running_session`` runs twice: over
in-memory streams, and over real OS pipes as ``toolhost run`` serves the CLI (see
``session_harness``)."""

from __future__ import annotations

from collections.abc import Iterator

import pytest

from . import session_harness


def pytest_generate_tests(metafunc: pytest.Metafunc) -> None:
    if "running_session" in vars(metafunc.module) and "_transport" in metafunc.fixturenames:
        metafunc.parametrize("_transport", ["memory", "pipes"], indirect=True)


@pytest.fixture(autouse=True)
def _transport(request: pytest.FixtureRequest) -> Iterator[str]:
    transport = getattr(request, "param", "memory")
    session_harness.TRANSPORT = transport
    yield transport
    session_harness.TRANSPORT = "memory"
