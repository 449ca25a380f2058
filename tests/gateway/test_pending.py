"""An imported server marked ``required: false`` that cannot start does not stop the host:
it is pending (none of its tools served, a call of one is a one-line tool error), retried in
the background, and once up its tools are served and announced like any re-listing's."""

from __future__ import annotations

import os
import subprocess
import sys
import time
from pathlib import Path

import anyio
import pytest

from .test_list_changed import names, served, text_of

pytestmark = pytest.mark.anyio

FLAKY = Path(__file__).with_name("flaky_upstream.py")


def pending_config(tmp_path: Path, *, fails: int, mode: str = "crash",
                   required: str = "false", connect_timeout: str = "5s",
                   extra: str = "") -> Path:
    """Server ``gh`` imports an upstream failing its first ``fails`` starts; ``loc`` is the
    config's own."""
    config = tmp_path / "pending.yaml"
    config.write_text(f"""\
toolhost: 1
servers:
  gh:
    mcp:
      command: [{sys.executable}, {FLAKY}, {tmp_path / "starts"}, "{fails}", {mode}]
      env: {{UPSTREAM_GROW: "1"}}
      connect_timeout: {connect_timeout}
      required: {required}
    exclude: ["delete_*"]
  loc:
    tools:
      hi:
        command: [echo, hi]
permissions:
  default: allow
  deny:
    - tool: mcp__gh__echo
      when: {{text: {{regex: "(?i).*password.*"}}}}
      message: No password hunting.
{extra}""")
    return config


def toolhost(*args: str, timeout: float = 120) -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, "-m", "toolhost", *args], capture_output=True,
                          text=True, timeout=timeout, env=dict(os.environ))


def alive(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    return True


@pytest.mark.parametrize("mode", ["legacy", "auto"])
async def test_serve_starts_without_it_and_serves_it_once_it_is_up(
        tmp_path: Path, mode: str) -> None:
    config = pending_config(tmp_path, fails=2)
    log = tmp_path / "serve.log"
    async with served(config, mode, log, {}, "--all") as (client, heard):
        assert await names(client) == ["loc__hi"]  # at once: the local tools
        assert text_of(await client.call_tool("loc__hi", {})).strip() == "hi"
        waiting = await client.call_tool("gh__echo", {"text": "x"})
        assert waiting.is_error
        said = text_of(waiting)
        assert said.startswith("upstream server 'gh' is not available yet: ")
        assert said.endswith("; retrying") and "\n" not in said
        await heard.next()  # it came up: tools/list_changed
        assert await names(client) == ["gh__echo", "gh__grow", "gh__search_issues", "loc__hi"]
        assert text_of(await client.call_tool("gh__echo", {"text": "back"})) == "back"
        # the rules written for its tools hold from its first call
        denied = await client.call_tool("gh__echo", {"text": "my password"})
        assert denied.is_error and text_of(denied) == "No password hunting."
    text = log.read_text()
    assert "Traceback" not in text
    warned = [line for line in text.splitlines() if "gh: its upstream is not available" in line]
    assert len(warned) == 1, text
    assert "retry" in warned[0]
    assert "gh: its upstream is available now" in text
    assert (tmp_path / "starts").read_text() == "3"  # 1 failed start, 1 failed retry, up


async def test_a_single_served_pending_server_answers_every_call_with_why(
        tmp_path: Path) -> None:
    config = pending_config(tmp_path, fails=1000)
    async with served(config, "legacy", tmp_path / "serve.log", {}, "--server", "gh") as (
            client, _heard):
        assert await names(client) == []
        for tool in ("echo", "anything"):
            waiting = await client.call_tool(tool, {})
            assert waiting.is_error
            assert text_of(waiting).startswith("upstream server 'gh' is not available yet")


def test_a_required_upstream_still_stops_the_start(tmp_path: Path) -> None:
    for required in ("true", None):
        config = pending_config(tmp_path, fails=1, required=required or "true")
        if required is None:  # the default
            config.write_text(config.read_text().replace("      required: true\n", ""))
        (tmp_path / "starts").unlink(missing_ok=True)
        done = toolhost("tools", str(config))
        assert done.returncode == 1
        assert "servers.gh.mcp: cannot start upstream server 'gh'" in done.stderr
        assert "Traceback" not in done.stderr


@pytest.mark.parametrize("value", ['"false"', "null", "0", "no_thanks", "[false]", "{}"])
def test_a_hostile_required_is_a_located_config_error(tmp_path: Path, value: str) -> None:
    config = pending_config(tmp_path, fails=0, required=value)
    done = toolhost("validate", str(config))
    assert done.returncode == 1
    assert "pending.yaml:8:" in done.stderr and "servers.gh.mcp.required" in done.stderr
    assert "true or false" in done.stderr
    assert "Traceback" not in done.stderr
    assert not (tmp_path / "starts").exists()  # nothing was started


async def test_exit_during_a_retry_leaves_nothing_running(tmp_path: Path) -> None:
    """Each start never answers; serve exits while a retry waits for one: nothing is left,
    and the exit does not wait for the retry's connect_timeout."""
    config = pending_config(tmp_path, fails=1000, mode="silent", connect_timeout="4s")
    serve = subprocess.Popen([sys.executable, "-m", "toolhost", "serve", str(config), "--all"],
                             stdin=subprocess.PIPE, stdout=subprocess.DEVNULL,
                             stderr=subprocess.PIPE, env=dict(os.environ))
    pids = tmp_path / "starts.pids"
    try:
        deadline = time.monotonic() + 30
        while time.monotonic() < deadline:  # the start, then a retry under way
            if pids.exists() and len(pids.read_text().split()) >= 2:
                break
            await anyio.sleep(0.05)
        assert pids.exists() and len(pids.read_text().split()) >= 2
        assert serve.stdin is not None
        serve.stdin.close()  # the client leaves: serve exits
        started = time.monotonic()
        serve.wait(30)
        assert time.monotonic() - started < 3.5  # not the retry's 4s connect_timeout
    finally:
        if serve.poll() is None:
            serve.kill()
            serve.wait()
    assert serve.stderr is not None
    with serve.stderr:
        assert "Traceback" not in serve.stderr.read().decode()
    with anyio.fail_after(10):
        while [p for p in map(int, pids.read_text().split()) if alive(p)]:
            await anyio.sleep(0.1)
