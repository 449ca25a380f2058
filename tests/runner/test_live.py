"""LiveHost: a reload reaching a running session (tools, list_changed, rules, clean-up)."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import anyio

from toolhost.host import load_host

from .live_harness import wired


def config(a_tools: str, *, b: bool = True, c: bool = False, deny: str = "[]") -> str:
    text = f"toolhost: 1\nservers:\n  a:\n    tools:\n{a_tools}"
    if b:
        text += "  b:\n    tools:\n      u: {command: [echo, u]}\n"
    if c:
        text += "  c:\n    tools:\n      w: {command: [echo, w]}\n"
    return text + f"permissions:\n  default: allow\n  deny: {deny}\n"


T1 = "      t1: {command: [echo, one]}\n"
T2 = "      t2: {command: [echo, two]}\n"


def test_swap_tools_rules_and_cleanup(tmp_path: Path) -> None:
    path = tmp_path / "live.yaml"
    path.write_text(config(T1))
    said: list[str] = []
    sent: list[dict[str, Any]] = []

    async def main() -> None:
        host = load_host(path)
        async with wired(host, say=said.append) as w, anyio.create_task_group() as tg:
            live, gate = w.live, w.gate
            tg.start_soon(w.acking_cli, sent)
            tg.start_soon(w.control.run)
            assert (await gate.check("mcp__a__t1", {})).behavior == "allow"

            path.write_text(config(T1 + T2, c=True, deny="[mcp__a__t1]"))
            second = load_host(path)
            await live.swap(second)
            assert [t.name for t in host.servers["a"].tools] == ["t1", "t2"]
            assert [m["request"]["server_name"] for m in sent] == ["a"]  # b is unchanged
            assert sent[0]["request"]["message"] == {
                "jsonrpc": "2.0", "method": "notifications/tools/list_changed"}
            assert (await gate.check("mcp__a__t1", {})).behavior == "deny"
            assert any("server 'c' is new; restart" in s for s in said)

            path.write_text(config(T2, b=False))
            third = load_host(path)
            await live.swap(third)
            assert [m["request"]["server_name"] for m in sent] == ["a", "a", "b"]
            assert host.servers["b"].tools == ()
            assert any("server 'b' was removed" in s for s in said)
            assert live.redact("x") == "x"
            assert second.compiled is not None  # a call may still run on it

            await live.aclose()
            assert second.compiled is None and third.compiled is None
            assert host.compiled is not None  # the caller's to close
            tg.cancel_scope.cancel()

    anyio.run(main)


def test_completion_checks_follow_a_reload(tmp_path: Path) -> None:
    """What a completion may show is decided by the rules of the moment: a reload's deny
    hides a value at once (the check asks the gate's current policy, not the first one)."""
    path = tmp_path / "live.yaml"
    path.write_text(config(T1))
    deny = '[{tool: ReadMcpResourceTool, when: {uri: "x://secret"}}, ' \
        '{tool: GetMcpPromptTool, when: {name: p}}]'

    async def main() -> None:
        host = load_host(path)
        async with wired(host) as w, anyio.create_task_group() as tg:
            tg.start_soon(w.acking_cli, [])
            tg.start_soon(w.control.run)
            server = w.control.servers["a"]
            assert server.read_visible is not None and server.prompt_visible is not None
            assert server.read_visible("x://secret") and server.prompt_visible("p", {})
            path.write_text(config(T1, deny=deny))
            await w.live.swap(load_host(path))
            assert not server.read_visible("x://secret")
            assert not server.prompt_visible("p", {})
            await w.live.aclose()
            tg.cancel_scope.cancel()

    anyio.run(main)
