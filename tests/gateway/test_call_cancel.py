"""A call of an imported tool that its client cancels (``notifications/cancelled`` under
``serve``, an interrupt under ``run``) is cancelled upstream too: the upstream is sent
``notifications/cancelled`` for its ``tools/call`` at once. Before, toolhost abandoned the
worker thread waiting for it and the upstream went on (a deploy, a delete) until the call's
``timeout`` (10 minutes by default), told of nothing, while the client had been told the
call was over."""

from __future__ import annotations

import os
from pathlib import Path

import anyio
import pytest

from .conftest import hostile_config

pytestmark = pytest.mark.anyio


def _said(log: Path) -> str:
    return log.read_text() if log.exists() else ""


async def _until_said(log: Path, what: str, times: int) -> None:
    """Until the upstream's log holds ``what`` ``times`` times (20 s: a bound on a broken
    test, not a measure)."""
    with anyio.fail_after(20):
        while _said(log).count(what) < times:
            await anyio.sleep(0.05)


async def test_a_cancelled_call_is_cancelled_upstream(tmp_path: Path) -> None:
    from toolhost.backends.base import CallContext
    from toolhost.compile import compile_tools
    from toolhost.config import load_config

    log = tmp_path / "requests.log"
    config = hostile_config(tmp_path, timeout="10m")
    loaded = load_config(config, environ={**os.environ, "HOSTILE_MODE": "hang_call",
                                          "HOSTILE_LOG": str(log)}, layers=False)
    async with compile_tools(loaded) as compiled:
        tool = compiled.tool("h", "echo")
        for round_ in (1, 2):  # the second on the same connection: a cancel keeps it
            async with anyio.create_task_group() as tasks:
                tasks.start_soon(tool.call, {"text": "x"}, CallContext())
                await _until_said(log, "tools/call", round_)
                tasks.cancel_scope.cancel()
            await _until_said(log, "notifications/cancelled", round_)
    assert _said(log).count('"initialize"') == 1, _said(log)


@pytest.mark.parametrize("what", ["resources/read", "prompts/get"])
async def test_a_cancelled_read_or_prompt_get_is_cancelled_upstream(tmp_path: Path,
                                                                    what: str) -> None:
    """A resource read or a prompt get its client cancels: the upstream is told at once,
    as of a tool call (before, the worker was abandoned until the request's timeout)."""
    from toolhost.backends.base import CallContext
    from toolhost.compile import compile_tools
    from toolhost.config import load_config

    log = tmp_path / "requests.log"
    config = hostile_config(tmp_path, timeout="10m")
    loaded = load_config(config, environ={**os.environ, "HOSTILE_MODE": "hang_read",
                                          "HOSTILE_LOG": str(log)}, layers=False)
    async with compile_tools(loaded) as compiled:
        content = compiled.content["h"]
        for round_ in (1, 2):  # the second on the same connection: a cancel keeps it
            async with anyio.create_task_group() as tasks:
                if what == "resources/read":
                    found = content.find("x://r")
                    assert found is not None
                    resource, values = found
                    tasks.start_soon(resource.read, "x://r", values, CallContext())
                else:
                    tasks.start_soon(content.prompts["p"].get, {}, CallContext())
                await _until_said(log, what, round_)
                tasks.cancel_scope.cancel()
            await _until_said(log, "notifications/cancelled", round_)
    assert _said(log).count('"initialize"') == 1, _said(log)
