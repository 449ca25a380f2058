"""The plugin example configs load, compile and answer, with the plugins installed."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import anyio
import pytest

from toolhost.backends.base import CallContext
from toolhost.compile import compile_tools
from toolhost.config.loader import load_config
from toolhost.plugins import kinds_for

EXAMPLES = Path(__file__).resolve().parents[2] / "examples" / "configs"


def call(file: str, server: str, tool: str, arguments: dict[str, Any]) -> dict[str, Any]:
    config = load_config(EXAMPLES / file, layers=False)
    compiled = compile_tools(config, kinds=kinds_for(config.plugins))

    async def go() -> dict[str, Any]:
        try:
            (found,) = [t for t in compiled.servers[server] if t.name == tool]
            return (await found.call(arguments, CallContext())).to_mcp()
        finally:
            await compiled.aclose()

    return anyio.run(go)


def test_files_example_reads_docs_but_not_the_env_file() -> None:
    found = call("plugins-files.yaml", "files", "search", {"pattern": "stock"})
    assert found["structuredContent"]["matches"][0]["path"] == "handbook.md"
    secret = call("plugins-files.yaml", "files", "read", {"path": ".env"})
    assert secret["isError"] and "not-for-the-model" not in secret["content"][0]["text"]


def test_sqlite_example_binds_parameters() -> None:
    low = call("plugins-sqlite.yaml", "shop", "low_stock", {"below": 50})
    assert [r["sku"] for r in low["structuredContent"]["rows"]] == ["WASH-M6", "DRILL-10"]
    orders = call("plugins-sqlite.yaml", "shop", "orders_for", {"customer": "ada", "limit": 2})
    assert [r["placed"] for r in orders["structuredContent"]["rows"]] == [
        "2025-03-02", "2025-01-04"]


@pytest.mark.parametrize("file", ["plugins-both.toml"])
def test_toml_example_with_the_pkg_preset(file: str) -> None:
    config = load_config(EXAMPLES / file, layers=False)
    assert config.permissions.default == "ask"  # from pkg:toolhost-files/presets/...
    products = call(file, "shop", "products", {})
    assert len(products["structuredContent"]["rows"]) == 4
    assert call(file, "files", "list", {})["structuredContent"]["files"] == ["handbook.md"]


def test_load_host_compiles_a_plugin_kind_without_being_told_the_kinds() -> None:
    from toolhost.host import load_host

    async def go() -> dict[str, Any]:
        host = load_host(EXAMPLES / "plugins-sqlite.yaml", layers=False)
        try:
            answer = await host.servers["shop"].handle({
                "jsonrpc": "2.0", "id": 1, "method": "tools/call",
                "params": {"name": "low_stock", "arguments": {"below": 1}}})
            assert answer is not None
            result: dict[str, Any] = answer["result"]
            return result
        finally:
            await host.aclose()

    result = anyio.run(go)
    assert [r["sku"] for r in result["structuredContent"]["rows"]] == ["WASH-M6"]
