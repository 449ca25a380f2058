"""Clients hear about changes: a subscribed file resource that changes on disk is announced
(``notifications/resources/updated``), and a reload that changes the resources or prompts
announces their lists, in both protocol eras, through ``toolhost serve`` and the official
``mcp`` client."""

from __future__ import annotations

import os
import sys
from pathlib import Path
from typing import Any

import anyio
import mcp_types as types
import pytest
from mcp.client.client import Client
from mcp.client.stdio import StdioServerParameters
from mcp.shared.subscriptions import PromptsListChanged, ResourcesListChanged, ResourceUpdated

from tests.modern import modern_meta
from toolhost.serve.resource_watch import INTERVAL_ENV, watch_interval

pytestmark = pytest.mark.anyio


def write_config(tmp_path: Path, extra: str = "") -> Path:
    (tmp_path / "docs").mkdir(exist_ok=True)
    (tmp_path / "runbook.md").write_text("# Deploy\n")
    (tmp_path / "docs" / "a.md").write_text("alpha\n")
    config = tmp_path / "kb.yaml"
    config.write_text(f"""\
toolhost: 1
servers:
  kb:
    tools:
      noop: {{python: "toolhost.demo:add"}}
    resources:
      runbook: {{file: runbook.md}}
      docs: {{directory: docs, uri: "docs://kb/"}}
{extra}permissions:
  allow: [ReadMcpResourceTool]   # subscribing is reading
""")
    return config


def params(config: Path, *flags: str) -> StdioServerParameters:
    # the watcher looks every 0.1 s here (1 s by default): what is heard, and in what
    # order, is the same
    return StdioServerParameters(command=sys.executable,
                                 env={**os.environ, INTERVAL_ENV: "0.1"},
                                 args=["-m", "toolhost", "serve", str(config), *flags])


def touch(path: Path, text: str) -> None:
    path.write_text(text)
    stamp = os.stat(path).st_mtime_ns + 2_000_000_000  # a coarse clock still sees a change
    os.utime(path, ns=(stamp, stamp))


async def keep_touching(path: Path) -> None:
    for count in range(10_000):
        touch(path, f"version {count}\n")
        await anyio.sleep(0.05)


class Heard:
    """Notifications a legacy client received."""

    def __init__(self) -> None:
        self.items: list[Any] = []
        self.event = anyio.Event()

    async def __call__(self, message: Any) -> None:
        if isinstance(message, (types.ResourceUpdatedNotification,
                                types.ResourceListChangedNotification,
                                types.PromptListChangedNotification)):
            self.items.append(message)
            self.event.set()

    async def updated(self, uri: str, *, touching: Path) -> None:
        """Touch ``touching`` until an update of ``uri`` is heard (then taken from the
        notes heard; any other kept)."""
        with anyio.fail_after(20):
            for count in range(10_000):
                touch(touching, f"version {count}\n")
                for item in self.items:
                    if (isinstance(item, types.ResourceUpdatedNotification)
                            and str(item.params.uri) == uri):
                        self.items.remove(item)
                        return
                self.event = anyio.Event()
                with anyio.move_on_after(0.05):
                    await self.event.wait()

    async def wait(self, kind: type, timeout: float = 20) -> Any:
        with anyio.fail_after(timeout):
            while True:
                for item in self.items:
                    if isinstance(item, kind):
                        self.items.remove(item)
                        return item
                self.event = anyio.Event()
                await self.event.wait()


@pytest.mark.filterwarnings("ignore::mcp.shared.exceptions.MCPDeprecationWarning")
async def test_a_subscribed_file_that_changes_is_announced_legacy(tmp_path: Path) -> None:
    config = write_config(tmp_path)
    heard = Heard()
    async with Client(params(config), mode="legacy", message_handler=heard) as client:
        uri = "toolhost://kb/runbook"
        listed = await client.list_resources()
        assert uri in [str(r.uri) for r in listed.resources]
        await client.subscribe_resource(uri)
        await client.subscribe_resource("docs://kb/a.md")
        # (touched until heard: the watcher notes a file on its first look, then announces)
        await heard.updated(uri, touching=tmp_path / "runbook.md")
        await heard.updated("docs://kb/a.md", touching=tmp_path / "docs" / "a.md")
        await client.unsubscribe_resource(uri)
        # a look taken after the unsubscribe: what was heard before it is behind us
        await heard.updated("docs://kb/a.md", touching=tmp_path / "docs" / "a.md")
        heard.items.clear()
        touch(tmp_path / "runbook.md", "# Deploy v3\n")
        # a.md, still subscribed, heard from two looks of the watcher taken after runbook.md
        # changed: any update of runbook.md (sent in the first at the latest) came before
        for _ in range(2):
            await heard.updated("docs://kb/a.md", touching=tmp_path / "docs" / "a.md")
        assert [str(n.params.uri) for n in heard.items
                if isinstance(n, types.ResourceUpdatedNotification)
                and str(n.params.uri) == uri] == []


async def test_a_listen_stream_hears_updates_and_list_changes(tmp_path: Path) -> None:
    config = write_config(tmp_path)
    async with Client(params(config, "--watch", "--watch-interval", "0.2")) as client:
        uri = "toolhost://kb/runbook"
        async with client.listen(resource_subscriptions=[uri], resources_list_changed=True,
                                 prompts_list_changed=True) as sub:
            async with anyio.create_task_group() as tg:  # touched until heard
                tg.start_soon(keep_touching, tmp_path / "runbook.md")
                with anyio.fail_after(20):
                    event = await sub.__anext__()
                tg.cancel_scope.cancel()
            assert isinstance(event, ResourceUpdated) and event.uri == uri
            write_config(tmp_path, extra="""\
    prompts:
      hello: {template: "Say hello"}
""")
            seen: set[type] = set()
            with anyio.fail_after(20):
                while PromptsListChanged not in seen:
                    seen.add(type(await sub.__anext__()))
            assert ResourcesListChanged not in seen  # the resources did not change
        prompts = await client.list_prompts()
        assert [p.name for p in prompts.prompts] == ["hello"]


async def test_a_reload_that_changes_resources_announces_the_list_legacy(
        tmp_path: Path) -> None:
    config = write_config(tmp_path)
    heard = Heard()
    async with Client(params(config, "--watch", "--watch-interval", "0.2"), mode="legacy",
                      message_handler=heard) as client:
        write_config(tmp_path, extra="""\
      notes: {file: runbook.md, uri: "notes://kb/runbook"}
""")
        await heard.wait(types.ResourceListChangedNotification)
        listed = await client.list_resources()
        assert "notes://kb/runbook" in [str(r.uri) for r in listed.resources]
        assert not [n for n in heard.items if isinstance(n, types.PromptListChangedNotification)]


@pytest.mark.parametrize("params, code", [
    ({"notifications": {"resourceSubscriptions": [f"file:///{i}" for i in range(100_000)]}},
     -32602),  # far too many
    ({"notifications": {"resourceSubscriptions": ["x" * 10_000_000]}}, -32602),  # huge
    ({"notifications": {"resourceSubscriptions": ["t://" + "x" * 8000] * 40}}, -32602),
    ({"notifications": {"resourceSubscriptions": [None, "toolhost://kb/runbook"]}}, -32602),
    ({"notifications": {"resourceSubscriptions": [""]}}, -32602),
    ({"notifications": {"resourceSubscriptions": [["nested"]]}}, -32602),
    ({"notifications": {"resourceSubscriptions": "toolhost://kb/runbook"}}, -32602),
    ({"notifications": {"resourceSubscriptions": {"a": 1}}}, -32602),
    ({"notifications": [1]}, -32602), ({"notifications": "all"}, -32602),
    ([1, 2], -32602), ("params", -32602), ({"_meta": [1]}, -32602),
    ({"_meta": {"io.modelcontextprotocol/protocolVersion": "1999-01-01"}}, -32022),
    ({"_meta": {"io.modelcontextprotocol/protocolVersion": "2026-07-28"}}, -32602),
    ({"_meta": {**modern_meta(), "io.modelcontextprotocol/clientCapabilities": 1}}, -32602),
    ({"notifications": {"resourceSubscriptions": ["toolhost://kb/nothing"]}}, -32002),
    ({"notifications": {"resourceSubscriptions": ["!0-0000"]}}, -32002),
])
async def test_a_malformed_listen_request_is_refused_and_opens_no_stream(
        params: Any, code: int) -> None:
    from toolhost.mcp import McpServer
    from toolhost.serve.served import ServedServer

    served = ServedServer(McpServer("kb", "1.0.0", []), {})
    heard: list[dict[str, Any]] = []

    async def notify(message: dict[str, Any]) -> None:
        heard.append(message)

    message = {"jsonrpc": "2.0", "id": 9, "method": "subscriptions/listen", "params": params}
    with anyio.fail_after(10):
        answer = await served.handle(message, notify=notify)
    assert answer is not None and answer["error"]["code"] == code, answer
    assert len(answer["error"]["message"]) < 300
    assert not heard and not served.subscribed_uris()


@pytest.mark.parametrize(("value", "seconds"), [
    (None, 1.0), ("", 1.0), ("0.1", 0.1), ("2", 2.0), ("60", 60.0), ("0", 1.0),
    ("-1", 1.0), ("nan", 1.0), ("inf", 1.0), ("1e9", 1.0), ("soon", 1.0)])
def test_the_watch_interval_is_an_option(monkeypatch: pytest.MonkeyPatch, value: str | None,
                                         seconds: float) -> None:
    """TOOLHOST_RESOURCE_WATCH_INTERVAL sets the seconds between looks (0.05 to 60); any
    other value watches every second (with a warning), never busy-loops or never looks."""
    if value is None:
        monkeypatch.delenv(INTERVAL_ENV, raising=False)
    else:
        monkeypatch.setenv(INTERVAL_ENV, value)
    assert watch_interval() == seconds


@pytest.mark.filterwarnings("ignore::mcp.shared.exceptions.MCPDeprecationWarning")
async def test_a_change_right_after_subscribing_is_announced(tmp_path: Path) -> None:
    """The file's stamp is taken as the client subscribes, not at the watcher's next look: a
    change between the two (up to a whole interval) is announced, for a legacy subscription
    and for a listen stream's."""
    from tests.mcp.mcp_testtools import content_server
    from toolhost.serve.resource_watch import ResourceWatch
    from toolhost.serve.served import ServedServer

    config = write_config(tmp_path)
    core = content_server(tmp_path, config.read_text())
    served = ServedServer(core, {})
    watch = ResourceWatch(served, interval=60)
    answer = await served.handle({"jsonrpc": "2.0", "id": 1, "method": "resources/subscribe",
                                  "params": {"uri": "toolhost://kb/%72unbook"}}, peer="a")
    assert answer is not None and "result" in answer
    touch(tmp_path / "runbook.md", "# Deploy v2\n")  # before the watcher's first look
    assert await watch.check() == ["toolhost://kb/runbook"]
    assert await watch.check() == []  # told once

    heard: list[dict[str, Any]] = []

    async def notify(message: dict[str, Any]) -> None:
        heard.append(message)

    listen = {"jsonrpc": "2.0", "id": 2, "method": "subscriptions/listen", "params": {
        "notifications": {"resourceSubscriptions": ["docs://kb/a.md"]},
        "_meta": modern_meta()}}
    async with anyio.create_task_group() as tg:
        tg.start_soon(lambda: served.handle(listen, notify=notify, peer="b"))
        with anyio.fail_after(10):
            while not heard:  # acknowledged
                await anyio.sleep(0.01)
        touch(tmp_path / "docs" / "a.md", "alpha v2\n")
        assert await watch.check() == ["docs://kb/a.md"]
        served.close()
