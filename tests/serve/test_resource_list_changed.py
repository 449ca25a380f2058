"""A reload whose rules newly hide (or show) a resource changes what resources/list shows,
though the resources declared are the same: clients hear
``notifications/resources/list_changed``; a reload that changes nothing they see is quiet."""

from __future__ import annotations

from collections.abc import Collection, Hashable
from pathlib import Path
from typing import Any

import anyio

from toolhost.serve.served import ServedServer

from ..mcp.mcp_testtools import content_server

CONFIG = """\
toolhost: 1
servers:
  kb:
    resources:
      docs: {directory: docs, uri: "docs://kb"}
      readme: {file: docs/open.md, uri: "readme://kb"}
"""


def test_a_rules_only_reload_that_hides_a_resource_is_announced(tmp_path: Path) -> None:
    (tmp_path / "docs").mkdir()
    for name in ("open.md", "secret.md"):
        (tmp_path / "docs" / name).write_text(name)
    core = content_server(tmp_path, CONFIG)
    content = core.content
    denied: set[str] = set()
    core.read_visible = lambda uri: uri not in denied
    served = ServedServer(core, {})
    heard: list[str] = []

    async def broadcast(message: dict[str, Any], peers: Collection[Hashable] | None) -> None:
        heard.append(message["method"])
    served.broadcast = broadcast

    async def listed() -> list[str]:
        answer = await served.handle({"jsonrpc": "2.0", "id": 1, "method": "resources/list"})
        assert answer is not None
        return [entry["uri"] for entry in answer["result"]["resources"]]

    async def go() -> None:
        assert "docs://kb/secret.md" in await listed()
        await served.set_content(content)  # same resources, same rules: nothing to say
        assert heard == []
        denied.add("docs://kb/secret.md")  # the new build's rules deny it
        await served.set_content(content)
        assert heard == ["notifications/resources/list_changed"]
        assert "docs://kb/secret.md" not in await listed()
        denied.add("docs://kb/nothing-listed.md")  # a deny on nothing listed: quiet
        await served.set_content(content)
        assert len(heard) == 1
        denied.clear()  # shown again
        await served.set_content(content)
        assert heard == ["notifications/resources/list_changed"] * 2
    anyio.run(go)


def test_the_rules_are_asked_about_a_listed_uri_once_per_build(tmp_path: Path) -> None:
    (tmp_path / "docs").mkdir()
    for index in range(30):
        (tmp_path / "docs" / f"f{index}.md").write_text("x")
    core = content_server(tmp_path, CONFIG)
    asked: list[str] = []

    def visible(uri: str) -> bool:
        asked.append(uri)
        return not uri.endswith("f7.md")
    core.read_visible = visible

    async def pages() -> list[str]:
        uris, cursor = [], None
        while True:
            answer = await core.handle({"jsonrpc": "2.0", "id": 1, "method": "resources/list",
                                        "params": {"cursor": cursor} if cursor else {}})
            assert answer is not None
            uris += [entry["uri"] for entry in answer["result"]["resources"]]
            cursor = answer["result"].get("nextCursor")
            if cursor is None:
                return uris

    async def go() -> None:
        first = await pages()
        assert len(first) == 30 and "docs://kb/f7.md" not in first  # 30 files + readme - 1
        once = len(asked)
        assert await pages() == first
        assert len(asked) == once  # remembered: no decision asked again
        core.set_content(core.content)  # a reload (new rules, maybe): asked afresh
        assert await pages() == first
        assert len(asked) == 2 * once
    anyio.run(go)


def test_nothing_is_walked_before_a_client_lists_the_resources(tmp_path: Path) -> None:
    """The listing a reload compares is taken at the first resources/list, not at the first
    message: an initialize (and a client that never lists resources) walks no directory."""
    (tmp_path / "docs").mkdir()
    (tmp_path / "docs" / "open.md").write_text("x")
    core = content_server(tmp_path, CONFIG)
    walks: list[int] = []
    listing = core.visible_resources

    async def counted() -> list[dict[str, Any]]:
        walks.append(1)
        return await listing()
    core.visible_resources = counted  # type: ignore[method-assign]
    served = ServedServer(core, {})
    heard: list[str] = []

    async def broadcast(message: dict[str, Any], peers: Collection[Hashable] | None) -> None:
        heard.append(message["method"])
    served.broadcast = broadcast

    async def go() -> None:
        for method, params in (("initialize", {"protocolVersion": "2025-06-18"}),
                               ("ping", {}), ("tools/list", {}), ("prompts/list", {})):
            await served.handle({"jsonrpc": "2.0", "id": 1, "method": method,
                                 "params": params})
        await served.set_content(core.content)  # a reload before anyone listed: no walk
        assert walks == []
        assert heard == []
        answer = await served.handle({"jsonrpc": "2.0", "id": 2, "method": "resources/list"})
        assert answer is not None and "result" in answer
        assert walks == [1]  # the listing the next reload compares with
    anyio.run(go)


def test_the_listings_a_served_server_compares_are_walked_off_the_event_loop(
        tmp_path: Path, monkeypatch: Any) -> None:
    """The listing taken at the first resources/list and again at a reload walks its
    directories on a worker thread: a huge directory does not stall every other call."""
    import os
    import threading

    (tmp_path / "docs").mkdir()
    (tmp_path / "docs" / "open.md").write_text("x")
    core = content_server(tmp_path, CONFIG)
    served = ServedServer(core, {})
    walked_on: list[int] = []
    real_scandir = os.scandir

    def spying_scandir(path: Any) -> Any:
        walked_on.append(threading.get_ident())
        return real_scandir(path)

    async def go() -> int:
        monkeypatch.setattr(os, "scandir", spying_scandir)
        answer = await served.handle({"jsonrpc": "2.0", "id": 1, "method": "resources/list"})
        assert answer is not None
        assert "docs://kb/open.md" in [r["uri"] for r in answer["result"]["resources"]]
        first = len(walked_on)
        await served.set_content(core.content)  # a reload takes the listing again
        assert len(walked_on) > first
        return threading.get_ident()
    loop_thread = anyio.run(go)
    assert walked_on and loop_thread not in walked_on
