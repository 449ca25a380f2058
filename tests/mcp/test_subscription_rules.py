"""A reload that brings a deny on a subscribed URI ends that subscription (hearing of a
resource's changes is a read too): the server asks ``read_visible`` about each subscribed
URI when its content is swapped, and drops the ones it refuses (or fails on)."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import anyio

from .mcp_testtools import DOCS_CONFIG, content_server

CONFIG = DOCS_CONFIG


def test_a_reload_that_denies_a_subscribed_uri_ends_the_subscription(tmp_path: Path) -> None:
    (tmp_path / "docs").mkdir()
    for name in ("open.md", "secret.md", "odd.md"):
        (tmp_path / "docs" / name).write_text(name)
    server = content_server(tmp_path, CONFIG)
    content = server.content
    denied: set[str] = set()

    def visible(uri: str) -> bool:
        if uri.endswith("odd.md") and denied:
            raise RuntimeError("the policy broke")
        return uri not in denied
    server.read_visible = visible

    async def subscribe(peer: str, uri: str) -> Any:
        return await server.handle({"jsonrpc": "2.0", "id": 1, "method": "resources/subscribe",
                                    "params": {"uri": uri}}, peer=peer)

    async def go() -> None:
        for peer in ("a", "b"):
            for name in ("open.md", "secret.md", "odd.md"):
                assert "result" in await subscribe(peer, f"docs://kb/{name}")
        server.set_content(content)  # a reload with the same rules keeps every one
        assert server.resource_subscriptions()["a"] == {
            "docs://kb/open.md", "docs://kb/secret.md", "docs://kb/odd.md"}
        denied.add("docs://kb/secret.md")
        server.set_content(content)
    anyio.run(go)
    assert dict(server.resource_subscriptions()) == {"a": {"docs://kb/open.md"},
                                                     "b": {"docs://kb/open.md"}}
