"""A command tool that closes its own stdout or stderr early (probes, backends36): the call
still ends at the program's exit or at its timeout, never hangs, and shows what came first."""

from __future__ import annotations

import pytest

from .test_command_backend import Config, cmd, run

pytestmark = pytest.mark.anyio


@pytest.mark.parametrize("script", [
    "echo first; exec 1>&-; exec 2>&-; sleep 30",
    "echo first; exec 1>&- 2>&-; exec 0<&-; sleep 30",
    "echo first; exec 1>/dev/null 2>/dev/null; sleep 30",
])
async def test_closed_output_and_still_running_ends_at_the_timeout(config: Config,
                                                                    script: str) -> None:
    result = await run(config({"t": cmd(["sh", "-c", script], timeout=1.0)}), "t", {})
    assert result.is_error and "timed out" in result.text_content, result


@pytest.mark.parametrize("script", [
    "echo first; exec 1>&-; echo second >&2; exit 0",
    "echo first; exec 1>&- 2>&-; exit 0",
    "exec 0<&-; echo first; exit 0",
])
async def test_closed_output_then_exit_is_a_result(config: Config, script: str) -> None:
    result = await run(config({"t": cmd(["sh", "-c", script], timeout=20.0)}), "t", {})
    assert not result.is_error, result
    assert "first" in result.text_content, result


async def test_a_closed_stdout_with_a_child_holding_stderr(config: Config) -> None:
    # the program exits; a child it left holds stderr open (and is killed with the run)
    script = "echo first; exec 1>&-; sleep 30 >/dev/null & exit 0"
    result = await run(config({"t": cmd(["sh", "-c", script], timeout=20.0)}), "t", {})
    assert not result.is_error, result
    assert "first" in result.text_content, result
