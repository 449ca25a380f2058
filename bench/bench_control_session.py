"""Round trips of tools/call through the control protocol, from a fake CLI over real pipes.

Run:  .venv/bin/python bench/bench_control_session.py [--calls N] [--inflight K]

A fake CLI (a real subprocess: this file with --fake-cli) does the MCP handshake, then sends
``mcp_message`` control requests carrying ``tools/call`` for a one-line ``greet`` tool, first
one at a time, then with K in flight, and times each round trip (time.perf_counter, from the
write of the request to the read of its answer). It checks every answer's text.
Three hosts answer it, one after the other, in this process:

- toolhost: ``ControlSession`` + ``McpServer`` with one ``CompiledTool``;
- floor:    a minimal hand-written JSON-lines responder (read, json, format, write);
- official: ``claude_agent_sdk.create_sdk_mcp_server`` driven by the SDK's own ``Query``
            over a Transport on the same pipes (what a claude_agent_sdk program runs).

With ``--subject can_use_tool`` the fake CLI sends ``can_use_tool`` permission requests
instead (for ``mcp__hot__query``, which the 1,000 rules of bench_permissions.py allow by
expression after 300 conditional denies were tried) and the hosts answer them: toolhost's
``PermissionGate`` with those rules and the audit log on (a real file), the floor answering
allow, the official SDK's ``can_use_tool`` callback answering allow.

Prints p50/p99 latency and calls/s for each mode, each host's CPU time per call (this
process's ``time.process_time``: steadier than wall time on a shared machine), and the
ratios the project targets: tools/call sequential p50 at most 2x the floor's, 32 in flight
at least 0.8x the floor's calls per second, at least 20x the official SDK's calls per second;
can_use_tool p50 at most 1.5x the floor's and never above the official SDK's.
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import sys
import tempfile
import time
from collections.abc import AsyncIterator, Awaitable, Callable, Mapping
from pathlib import Path
from typing import Any

GREET_SCHEMA = {"type": "object", "properties": {"name": {"type": "string"}},
                "required": ["name"]}


# -- the fake CLI (child process) ---------------------------------------------------------


def fake_cli(calls: int, inflight: int, warmup: int, out_path: str, subject: str) -> None:
    # As cheap as possible, so the numbers measure the hosts: every request line is encoded
    # before the clock starts, and answers are matched with a byte search, not json.loads.
    import re

    stdin, stdout = sys.stdin.buffer, sys.stdout.buffer
    write, flush, readline = stdout.write, stdout.flush, stdin.readline
    request_id = re.compile(rb'"request_id": ?"([^"]+)"')

    def encode(rid: str, message: dict[str, Any]) -> bytes:
        return json.dumps({"type": "control_request", "request_id": rid,
                           "request": {"subtype": "mcp_message", "server_name": "demo",
                                       "message": message}}).encode() + b"\n"

    def permission_line(rid: str, i: int) -> bytes:
        return json.dumps({"type": "control_request", "request_id": rid, "request": {
            "subtype": "can_use_tool", "tool_name": "mcp__hot__query",
            "input": {"table": f"n{i}", "limit": 10}, "tool_use_id": f"toolu_{i}",
            "permission_suggestions": []}}).encode() + b"\n"

    def call_line(rid: str, i: int) -> bytes:
        if subject == "can_use_tool":
            return permission_line(rid, i)
        return encode(rid, {"jsonrpc": "2.0", "id": i + 10, "method": "tools/call",
                            "params": {"name": "greet", "arguments": {"name": f"n{i}"},
                                       "_meta": {"claudecode/toolUseId": f"toolu_{i}",
                                                 "progressToken": i + 10}}})

    def receive() -> bytes:
        while True:
            line = readline()
            if not line:
                raise SystemExit("host closed the pipe")
            if b'"control_response"' in line:
                return line

    errors = 0

    def check(line: bytes, i: int) -> None:
        nonlocal errors
        if expected[i] not in line:
            errors += 1

    expected = [b'"allow"' if subject == "can_use_tool" else f'"Hello, n{i}!"'.encode()
                for i in range(max(calls, warmup))]
    for message in ({"jsonrpc": "2.0", "id": 0, "method": "initialize",
                     "params": {"protocolVersion": "2025-11-25", "capabilities": {},
                                "clientInfo": {"name": "claude-code", "version": "2.1.330"}}},
                    {"jsonrpc": "2.0", "method": "notifications/initialized"},
                    {"jsonrpc": "2.0", "id": 1, "method": "tools/list"}):
        if subject == "can_use_tool":
            break  # no MCP server to set up
        write(encode("setup", message))
        flush()
        receive()

    for i in range(warmup):
        write(call_line(f"w{i}", i))
        flush()
        check(receive(), i)

    seq_lines = [call_line(f"s{i}", i) for i in range(calls)]
    sequential: list[float] = []
    clock = time.perf_counter
    t0 = clock()
    for i in range(calls):
        start = clock()
        write(seq_lines[i])
        flush()
        line = receive()
        sequential.append(clock() - start)
        check(line, i)
    seq_wall = clock() - t0

    conc_lines = [call_line(f"c{i}", i) for i in range(calls)]
    concurrent: list[float] = []
    started: dict[bytes, tuple[int, float]] = {}
    t0 = clock()
    sent = 0
    while sent < min(inflight, calls):
        started[f"c{sent}".encode()] = (sent, clock())
        write(conc_lines[sent])
        sent += 1
    flush()
    while started:
        line = receive()
        match = request_id.search(line)
        assert match is not None, line
        i, start = started.pop(match.group(1))
        concurrent.append(clock() - start)
        check(line, i)
        if sent < calls:
            started[f"c{sent}".encode()] = (sent, clock())
            write(conc_lines[sent])
            flush()
            sent += 1
    conc_wall = clock() - t0

    Path(out_path).write_text(json.dumps({
        "sequential": sequential, "sequential_wall": seq_wall,
        "concurrent": concurrent, "concurrent_wall": conc_wall, "errors": errors}))


# -- hosts (this process) -----------------------------------------------------------------


async def host_toolhost_permissions(receive: Any, send: Any,
                                    done: Callable[[], Awaitable[None]]) -> None:
    from bench_permissions import rules

    from toolhost.config.model import PermissionsConfig
    from toolhost.permissions import compile_policy
    from toolhost.permissions.ask import FixedAsker
    from toolhost.permissions.audit import AuditLog
    from toolhost.permissions.gate import PermissionGate
    from toolhost.protocol import ControlSession

    policy = compile_policy(PermissionsConfig(default="deny", rules=tuple(rules())))
    with tempfile.TemporaryDirectory() as tmp:
        audit = AuditLog(str(Path(tmp) / "audit.jsonl"))
        gate = PermissionGate(policy, FixedAsker("deny", answered_by="bench"), audit)

        class Permission:  # what `toolhost run` passes: awaitable, and decided without a pause
            __call__ = staticmethod(gate.check)
            decide_now = staticmethod(gate.check_now)

        session = ControlSession(receive, send, servers={}, permission=Permission())
        await session.run()
        gate.close()


async def host_floor_permissions(receive: Any, send: Any,
                                 done: Callable[[], Awaitable[None]]) -> None:
    def allow(msg: dict[str, Any]) -> dict[str, Any]:
        return {"behavior": "allow", "updatedInput": msg["request"]["input"]}

    await _floor(receive, send, allow)


async def host_official_permissions(receive: Any, send: Any,
                                    done: Callable[[], Awaitable[None]]) -> None:
    from claude_agent_sdk import PermissionResultAllow

    async def can_use_tool(name: str, tool_input: dict[str, Any],
                           context: Any) -> PermissionResultAllow:
        return PermissionResultAllow(updated_input=tool_input)

    await _official(receive, send, done, can_use_tool=can_use_tool)


async def host_toolhost(receive: Any, send: Any, done: Callable[[], Awaitable[None]]) -> None:
    import jsonschema

    from toolhost.backends.base import CallContext
    from toolhost.compile.tool import CompiledTool
    from toolhost.mcp import McpServer
    from toolhost.protocol import ControlSession
    from toolhost.results import ToolResult

    async def greet(arguments: Mapping[str, Any], ctx: CallContext) -> ToolResult:
        return ToolResult.text(f"Hello, {arguments['name']}!")

    tool = CompiledTool(name="greet", server="demo", description="Greet a person by name",
                        input_schema=GREET_SCHEMA,
                        validator=jsonschema.Draft202012Validator(GREET_SCHEMA), invoke=greet)
    session = ControlSession(receive, send, servers={"demo": McpServer("demo", "1.0.0", [tool])})
    await session.run()


async def host_floor(receive: Any, send: Any, done: Callable[[], Awaitable[None]]) -> None:
    def greet(msg: dict[str, Any]) -> dict[str, Any]:
        request = msg["request"]["message"]
        if request.get("method") == "tools/call":
            result: dict[str, Any] = {"content": [{"type": "text", "text":
                                      f"Hello, {request['params']['arguments']['name']}!"}],
                                      "isError": False}
        else:
            result = {}
        return {"mcp_response": {"jsonrpc": "2.0", "id": request.get("id"), "result": result}}

    await _floor(receive, send, greet)


async def _floor(receive: Any, send: Any,
                 respond: Callable[[dict[str, Any]], dict[str, Any]]) -> None:
    """The hand-written floor: read a line, parse it, answer ``respond(message)``, write."""
    import anyio

    from toolhost.protocol import LineReader

    reader = LineReader(receive, 1 << 24)
    while True:
        try:
            line = await reader.receive_line()
        except anyio.EndOfStream:
            return
        msg = json.loads(line)
        answer = {"type": "control_response", "response": {
            "subtype": "success", "request_id": msg["request_id"], "response": respond(msg)}}
        await send.send((json.dumps(answer) + "\n").encode())


async def host_official(receive: Any, send: Any, done: Callable[[], Awaitable[None]]) -> None:
    from claude_agent_sdk import create_sdk_mcp_server, tool

    @tool("greet", "Greet a person by name", GREET_SCHEMA)
    async def greet(args: dict[str, Any]) -> dict[str, Any]:
        return {"content": [{"type": "text", "text": f"Hello, {args['name']}!"}]}

    config = create_sdk_mcp_server("demo", "1.0.0", tools=[greet])
    await _official(receive, send, done, sdk_mcp_servers={"demo": config["instance"]})


async def _official(receive: Any, send: Any, done: Callable[[], Awaitable[None]],
                    **options: Any) -> None:
    """The official SDK's ``Query`` (what a claude_agent_sdk program runs) on the pipes."""
    import anyio
    from claude_agent_sdk._internal.query import Query
    from claude_agent_sdk._internal.transport import Transport

    from toolhost.protocol import LineReader

    class PipeTransport(Transport):
        async def connect(self) -> None:
            return None

        async def write(self, data: str) -> None:
            await send.send(data.encode())

        async def read_messages(self) -> AsyncIterator[dict[str, Any]]:
            reader = LineReader(receive, 1 << 24)
            while True:
                try:
                    line = await reader.receive_line()
                except anyio.EndOfStream:
                    return
                yield json.loads(line)

        async def close(self) -> None:
            return None

        def is_ready(self) -> bool:
            return True

        async def end_input(self) -> None:
            return None

    query = Query(PipeTransport(), is_streaming_mode=True, **options)
    await query.start()
    await done()  # the fake CLI has finished and closed its output
    await query.close()
    query.close_receive_stream()


Host = Callable[[Any, Any, Callable[[], Awaitable[None]]], Awaitable[None]]
HOSTS: dict[str, dict[str, Host]] = {
    "tools/call": {"toolhost": host_toolhost, "floor": host_floor, "official": host_official},
    "can_use_tool": {"toolhost": host_toolhost_permissions, "floor": host_floor_permissions,
                     "official": host_official_permissions}}


async def run_host(name: str, calls: int, inflight: int, warmup: int,
                   subject: str) -> dict[str, Any]:
    import anyio

    from toolhost.protocol.pipes import PipeLines

    cpu = time.process_time()  # this process only: the host's work, not the fake CLI's
    with tempfile.TemporaryDirectory() as tmp:
        out = Path(tmp) / "stats.json"
        argv = [sys.executable, __file__, "--fake-cli", "--calls", str(calls),
                "--inflight", str(inflight), "--warmup", str(warmup), "--out", str(out),
                "--subject", subject]
        # As `toolhost run` starts the CLI: its stdout a pipe of our own, which toolhost reads
        # with PipeLines (lines served as they arrive); the other hosts read anyio's stream.
        read_fd, write_fd = os.pipe()
        async with await anyio.open_process(argv, stderr=None, stdout=write_fd) as proc:
            os.close(write_fd)
            assert proc.stdin is not None
            lines = await PipeLines.open(read_fd, 1 << 24)

            async def done() -> None:
                await proc.wait()

            receive = lines if name == "toolhost" else PipeReceiver(lines)
            await HOSTS[subject][name](receive, proc.stdin, done)
            await proc.stdin.aclose()
            await proc.wait()
            lines.aclose()
        if proc.returncode != 0:
            raise SystemExit(f"fake CLI failed against {name} (exit {proc.returncode})")
        stats = dict(json.loads(out.read_text()))
    stats["cpu_us_per_call"] = (time.process_time() - cpu) / (warmup + 2 * calls) * 1e6
    return stats


class PipeReceiver:
    """A byte stream over PipeLines, for the hosts that read anyio streams."""

    def __init__(self, lines: Any) -> None:
        self._lines = lines

    async def receive(self, max_bytes: int = 65536) -> bytes:
        return bytes(await self._lines.receive_line()) + b"\n"

    async def aclose(self) -> None:
        return None


def summarize(samples: list[float], wall: float) -> dict[str, float]:
    ordered = sorted(samples)
    p99 = ordered[min(len(ordered) - 1, int(len(ordered) * 0.99))]
    return {"p50_us": statistics.median(ordered) * 1e6, "p99_us": p99 * 1e6,
            "calls_per_s": len(samples) / wall}


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__,
                                     formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--calls", type=int, default=2000)
    parser.add_argument("--inflight", type=int, default=32)
    parser.add_argument("--warmup", type=int, default=200)
    parser.add_argument("--hosts", default="floor,toolhost,official")
    parser.add_argument("--subject", choices=sorted(HOSTS), default="tools/call",
                        help="what the fake CLI sends (default tools/call)")
    parser.add_argument("--fake-cli", action="store_true", help=argparse.SUPPRESS)
    parser.add_argument("--out", help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.fake_cli:
        fake_cli(args.calls, args.inflight, args.warmup, args.out, args.subject)
        return 0

    import anyio

    import toolhost.mcp
    import toolhost.protocol  # noqa: F401  (imported before the hosts' CPU time is taken)
    if "official" in args.hosts:
        import claude_agent_sdk  # noqa: F401

    results: dict[str, dict[str, dict[str, float]]] = {}
    cpu: dict[str, float] = {}
    sys.path.insert(0, str(Path(__file__).parent))  # bench_permissions: the 1,000 rules
    print(f"{args.subject} round trips through the control protocol, {args.calls} per mode, "
          f"{args.inflight} in flight for the concurrent mode")
    print(f"{'host':<10} {'mode':<12} {'p50 us':>9} {'p99 us':>9} {'calls/s':>9}")
    for name in args.hosts.split(","):
        stats = anyio.run(run_host, name, args.calls, args.inflight, args.warmup,
                          args.subject)
        if stats["errors"]:
            print(f"{name}: {stats['errors']} wrong answers!")
        results[name] = {
            "sequential": summarize(stats["sequential"], stats["sequential_wall"]),
            f"{args.inflight}-inflight": summarize(stats["concurrent"],
                                                   stats["concurrent_wall"])}
        for mode, s in results[name].items():
            print(f"{name:<10} {mode:<12} {s['p50_us']:>9.0f} {s['p99_us']:>9.0f} "
                  f"{s['calls_per_s']:>9.0f}")
        cpu[name] = stats["cpu_us_per_call"]
    print("host CPU per call, both modes (us): "
          + ", ".join(f"{name} {us:.0f}" for name, us in cpu.items()))
    report(results, args.subject, f"{args.inflight}-inflight")
    return 0


def report(results: dict[str, dict[str, dict[str, float]]], subject: str, flight: str) -> None:
    """The ratios against the targets of the subject."""
    permissions = subject == "can_use_tool"
    if {"floor", "toolhost"} <= results.keys():
        ours, floor = results["toolhost"], results["floor"]
        ratio = ours["sequential"]["p50_us"] / floor["sequential"]["p50_us"]
        print(f"toolhost / floor sequential p50: {ratio:.2f}x "
              f"(target <= {1.5 if permissions else 2.0}x)")
        share = ours[flight]["calls_per_s"] / floor[flight]["calls_per_s"]
        print(f"toolhost / floor calls/s, {flight}: {share:.2f}x (target >= 0.8x)")
    if {"official", "toolhost"} <= results.keys():
        for mode in results["toolhost"]:
            if permissions:
                ratio = (results["toolhost"][mode]["p50_us"]
                         / results["official"][mode]["p50_us"])
                print(f"toolhost / official p50, {mode}: {ratio:.2f}x (target <= 1x)")
                continue
            speedup = (results["toolhost"][mode]["calls_per_s"]
                       / results["official"][mode]["calls_per_s"])
            print(f"toolhost / official calls/s, {mode}: {speedup:.1f}x (target >= 20x)")


if __name__ == "__main__":
    raise SystemExit(main())
