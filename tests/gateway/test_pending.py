"""An imported server marked ``required: false`` that cannot start does not stop the host:
it is pending (none of its tools served, a call of one is a one-line tool error), retried in
the background, and once up its tools are served and announced like any re-listing's."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import anyio
import pytest
from mcp.shared.exceptions import MCPError

from .conftest import at_once
from .test_list_changed import gone, names, served, text_of

pytestmark = pytest.mark.anyio

FLAKY = Path(__file__).with_name("flaky_upstream.py")


def pending_config(tmp_path: Path, *, fails: int, mode: str = "crash",
                   required: str = "false", connect_timeout: str = "20s",
                   extra: str = "", raw: bool = False) -> Path:
    """Server ``gh`` imports an upstream failing its first ``fails`` starts; ``loc`` is the
    config's own. ``raw``: once up, the hostile upstream's ``issues`` mode (quick to start;
    for tests of what is listed and locked, not of calls)."""
    config = tmp_path / "pending.yaml"
    config.write_text(f"""\
toolhost: 1
servers:
  gh:
    mcp:
      command: [{sys.executable}, {FLAKY}, {tmp_path / "starts"}, "{fails}", "{mode}"]
      env: {{UPSTREAM_GROW: "1"{', FLAKY_RAW: "1"' if raw else ''}}}
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
    """The first start fails, each retry never answers; serve exits while a retry waits for
    one: nothing is left, and the exit does not wait for the retry's connect_timeout (60s
    here: an exit that waited for it would pass the 30s the test gives it, however loaded
    the machine; no wall-clock assertion)."""
    config = pending_config(tmp_path, fails=1000, mode="crash,silent", connect_timeout="60s")
    pids = tmp_path / "starts.pids"
    with subprocess.Popen([sys.executable, "-m", "toolhost", "serve", str(config), "--all"],
                          stdin=subprocess.PIPE, stdout=subprocess.DEVNULL,
                          stderr=subprocess.PIPE, env=dict(os.environ)) as serve:
        try:
            with anyio.move_on_after(60):
                while serve.poll() is None:  # the start failed, a retry under way
                    if pids.exists() and pids.read_text().split():
                        break
                    await anyio.sleep(0.05)
            assert serve.stderr is not None
            assert serve.poll() is None, serve.stderr.read().decode()  # it ended: why
            assert pids.exists() and pids.read_text().split()
            assert serve.stdin is not None
            serve.stdin.close()  # the client leaves: serve exits
            serve.wait(30)  # TimeoutExpired if it waits for the retry's 60s
        finally:
            if serve.poll() is None:
                serve.kill()
                serve.wait()
            said = serve.stderr.read().decode() if serve.stderr else ""
        assert "Traceback" not in said, said
    with anyio.fail_after(10):
        while [p for p in map(int, pids.read_text().split()) if alive(p)]:
            await anyio.sleep(0.1)


def test_tools_lists_it_as_unavailable_and_call_of_its_tool_fails(tmp_path: Path) -> None:
    config = pending_config(tmp_path, fails=1000)
    listed, as_json, called, local = at_once(  # each start of the upstream fails
        ["tools", str(config)], ["tools", str(config), "--json"],
        ["call", str(config), "gh.echo", "text=hi"], ["call", str(config), "loc.hi"])
    assert listed.returncode == 0, listed.stderr
    assert "  unavailable: cannot start upstream server 'gh'" in listed.stdout
    assert "mcp__loc__hi" in listed.stdout and "mcp__gh__" not in listed.stdout
    import json

    gh = json.loads(as_json.stdout)["servers"][0]
    assert gh["name"] == "gh" and gh["tools"] == []
    assert gh["unavailable"].startswith("cannot start upstream server 'gh'")
    assert called.returncode == 1
    lines = called.stderr.strip().splitlines()
    assert lines[-1].startswith("toolhost call: upstream server 'gh' is not available: "
                                "cannot start upstream server 'gh'"), called.stderr
    assert "Traceback" not in called.stderr
    assert local.stdout.strip() == "hi"


def test_validate_connect_warns_and_passes_unless_strict(tmp_path: Path) -> None:
    config = pending_config(tmp_path, fails=1000)
    (tmp_path / "required").mkdir()
    required = pending_config(tmp_path / "required", fails=1000, required="true")
    done, strict, refused = at_once(["validate", "--connect", str(config)],
                                    ["validate", "--connect", "--strict", str(config)],
                                    ["validate", "--connect", str(required)])
    assert done.returncode == 0, done.stderr
    assert ("pending.yaml:4:5: servers.gh.mcp: warning: upstream server 'gh' did not start: "
            "cannot start upstream server 'gh'") in done.stderr
    assert "required: false, so serve and run start without it" in done.stderr
    assert strict.returncode == 1
    assert refused.returncode == 1


def test_run_tells_the_cli_when_it_comes_up(tmp_path: Path) -> None:
    """Under ``run``: the session starts with the server's tools empty; once the upstream is
    up the CLI is sent tools/list_changed for it (protocol.md §5b: it lists them again)."""
    from typing import Any

    from tests.runner.live_harness import wired
    from toolhost.host import load_host

    config = pending_config(tmp_path, fails=1)
    sent: list[dict[str, Any]] = []

    async def main() -> None:
        host = load_host(config)
        told = anyio.Event()

        async def call(name: str) -> dict[str, Any]:
            answer = await host.servers["gh"].handle({
                "jsonrpc": "2.0", "id": 1, "method": "tools/call",
                "params": {"name": name, "arguments": {"text": "hi"}}})
            assert answer is not None
            return dict(answer["result"])

        async with wired(host) as w, anyio.create_task_group() as tg:
            assert host.servers["gh"].tools == ()
            waiting = await call("echo")
            assert waiting["isError"] is True
            assert waiting["content"][0]["text"].startswith(
                "upstream server 'gh' is not available yet: cannot start upstream server")
            tg.start_soon(w.acking_cli, sent, told.set)
            tg.start_soon(w.control.run)
            tg.start_soon(w.live.follow_upstreams)
            with anyio.fail_after(20):
                await told.wait()
            assert [m["request"] for m in sent][:1] == [{
                "subtype": "mcp_message", "server_name": "gh",
                "message": {"jsonrpc": "2.0",
                            "method": "notifications/tools/list_changed"}}]
            assert sorted(t.name for t in host.servers["gh"].tools) == [
                "echo", "grow", "search_issues"]
            assert (await call("echo"))["content"][0]["text"] == "hi"
            tg.cancel_scope.cancel()

    anyio.run(main)
    anyio.run(gone)


def test_run_with_a_cli_process_sends_it_list_changed(tmp_path: Path) -> None:
    """``toolhost run`` against the fake CLI: the run starts while the upstream is down, and
    the CLI is told when the server's tools arrive."""
    from tests.e2e.fakecli import run_fake

    config = pending_config(tmp_path, fails=1)
    done, log = run_fake(tmp_path, config, [], turns=30, timeout=60,
                         until="notifications/tools/list_changed")
    assert '"server_name": "gh"' in log or '"server_name":"gh"' in log, log[-2000:]
    assert "notifications/tools/list_changed" in log
    assert "gh: its upstream is not available" in done.stderr
    assert "Traceback" not in done.stderr


async def test_its_resources_and_prompts_come_with_it(tmp_path: Path) -> None:
    config = pending_config(tmp_path, fails=1)
    config.write_text(config.read_text().replace('env: {UPSTREAM_GROW: "1"}',
                                                 'env: {UPSTREAM_CONTENT: "1"}'))
    async with served(config, "legacy", tmp_path / "serve.log", {}, "--server", "gh") as (
            client, heard):
        await heard.next()  # its tools
        with anyio.fail_after(20):  # its resources and prompts: served once fetched
            while True:
                try:
                    if (await client.list_resources()).resources:
                        break
                except MCPError:  # not offered yet
                    pass
                await anyio.sleep(0.1)
        assert (await client.list_prompts()).prompts


def test_a_listing_that_does_not_fit_the_lock_at_start_leaves_it_pending(
        tmp_path: Path) -> None:
    import json

    from toolhost.lockfile import lock_path

    config = pending_config(tmp_path, fails=0, raw=True)
    assert toolhost("lock", str(config)).returncode == 0
    lock = json.loads(lock_path(config).read_text())
    lock["upstreams"]["gh"]["echo"]["description"] = "reviewed, but not what it says now"
    lock_path(config).write_text(json.dumps(lock))
    listed = toolhost("tools", str(config), "--json")
    assert listed.returncode == 0, listed.stderr
    gh = json.loads(listed.stdout)["servers"][0]
    assert gh["tools"] == []  # fail closed: none of it, not the tools that still fit
    assert "echo" in gh["unavailable"] and "lock" in gh["unavailable"]


def test_lock_refuses_while_it_is_down(tmp_path: Path) -> None:
    """Locking records what each upstream offers: one that is down would lose its pins."""
    from toolhost.lockfile import lock_path

    (tmp_path / "up").mkdir()
    (tmp_path / "down").mkdir()
    config = pending_config(tmp_path / "up", fails=0, raw=True)
    done = toolhost("lock", str(config))  # it answers
    assert done.returncode == 0, done.stderr
    assert '"gh"' in lock_path(config).read_text()
    config.write_text(config.read_text().replace('"0", "crash"', '"1000", "crash"'))
    before = lock_path(config).read_text()
    fresh = pending_config(tmp_path / "down", fails=1000, raw=True)  # no lock yet
    # down: an existing lock is kept as it is, and none is made (side by side)
    for refused in at_once(["lock", str(config)], ["lock", str(fresh)]):
        assert refused.returncode == 1, refused.args
        assert "cannot lock upstream server 'gh': it did not start" in refused.stderr
        assert "Traceback" not in refused.stderr
    assert lock_path(config).read_text() == before
    assert not lock_path(fresh).exists()


@pytest.mark.parametrize("options", [("--all",), ("--server", "gh")])
async def test_a_client_connecting_while_it_is_pending_is_told_of_resources_and_prompts(
        tmp_path: Path, options: tuple[str, ...]) -> None:
    config = pending_config(tmp_path, fails=2)
    config.write_text(config.read_text().replace('env: {UPSTREAM_GROW: "1"}',
                                                 'env: {UPSTREAM_GROW: "1", '
                                                 'UPSTREAM_CONTENT: "1"}'))
    async with served(config, "legacy", tmp_path / "serve.log", {}, *options) as (
            client, heard):
        caps = client.server_capabilities
        assert caps.resources is not None and caps.resources.list_changed
        assert caps.prompts is not None and caps.prompts.list_changed
        assert (await client.list_resources()).resources == []  # nothing yet, but answered
        assert (await client.list_prompts()).prompts == []
        await heard.next()  # it came up
        with anyio.fail_after(30):
            while not (await client.list_resources()).resources:
                await anyio.sleep(0.2)
        assert (await client.list_prompts()).prompts


async def test_an_upstream_up_at_start_without_content_offers_none(tmp_path: Path) -> None:
    config = pending_config(tmp_path, fails=0)
    async with served(config, "legacy", tmp_path / "serve.log", {}, "--all") as (
            client, _heard):
        caps = client.server_capabilities
        assert caps.resources is None and caps.prompts is None


def test_every_host_of_a_pending_upstream_offers_its_resources_and_prompts(
        tmp_path: Path) -> None:
    from toolhost.host import load_host

    host = load_host(pending_config(tmp_path, fails=1000))  # (what run and the SDK serve)
    try:
        caps = host.servers["gh"].capabilities
        assert caps["resources"] == {"subscribe": True, "listChanged": True}
        assert caps["prompts"] == {"listChanged": True}
        assert "resources" not in host.servers["loc"].capabilities
    finally:
        anyio.run(host.aclose)
