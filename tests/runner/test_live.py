"""LiveHost: a reload reaching a running session (tools, list_changed, rules, clean-up)."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import anyio
import anyio.abc
from anyio.streams.memory import MemoryObjectReceiveStream, MemoryObjectSendStream

from toolhost.host import load_host
from toolhost.permissions import FixedAsker
from toolhost.protocol import ControlSession
from toolhost.runner.gate import make_gate
from toolhost.runner.live import LiveHost


class _Send(anyio.abc.ByteSendStream):
    def __init__(self, stream: MemoryObjectSendStream[bytes]) -> None:
        self.stream = stream

    async def send(self, item: bytes) -> None:
        await self.stream.send(item)

    async def aclose(self) -> None:
        await self.stream.aclose()


class _Receive(anyio.abc.ByteReceiveStream):
    def __init__(self, stream: MemoryObjectReceiveStream[bytes]) -> None:
        self.stream = stream

    async def receive(self, max_bytes: int = 65536) -> bytes:
        return await self.stream.receive()

    async def aclose(self) -> None:
        await self.stream.aclose()


def _pipe() -> tuple[_Send, _Receive]:
    send, receive = anyio.create_memory_object_stream[bytes](100)
    return _Send(send), _Receive(receive)


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
        cli_out, session_in = _pipe()
        session_out, cli_in = _pipe()
        control = ControlSession(session_in, session_out, servers=host.servers)
        gate = make_gate(host, asker=FixedAsker("deny", answered_by="test"))
        live = LiveHost(host, control, gate, say=said.append)

        async def fake_cli() -> None:  # acks every control request, records it
            async for chunk in cli_in.stream:
                for line in chunk.splitlines():
                    message = json.loads(line)
                    sent.append(message)
                    await cli_out.send(json.dumps({"type": "control_response", "response": {
                        "subtype": "success", "request_id": message["request_id"]}}).encode()
                        + b"\n")

        async with anyio.create_task_group() as tg:
            tg.start_soon(fake_cli)
            tg.start_soon(control.run)
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
        for stream in (cli_out, session_in, session_out, cli_in):
            await stream.aclose()
        await host.aclose()
        gate.close()

    anyio.run(main)
