"""``toolhost run`` as a whole, from a fake CLI: tool calls and permission requests.

Run:  .venv/bin/python bench/bench_run.py [--calls N] [--inflight K] [--rounds R] [--cpu C]
                                          [--against OTHER_CHECKOUT]

The subject is the real command, ``toolhost run CONFIG -p go --cli FAKE_CLI`` (a fresh
process: the config loaded, its tools compiled, the CLI started as a child). The fake CLI
(this file with --fake-cli, a real process on real pipes) answers ``initialize``, and on the
user turn does the MCP handshake, then sends ``mcp_message`` tools/call requests (one at a
time, then K in flight) or ``can_use_tool`` requests, timing each round trip from the write
of its line to the read of its answer, and checks every answer.

Against the same fake CLI, in the same rounds:

- floor:    a hand-written blocking responder (read a line, json, answer, write);
- aiofloor: (only when named in --hosts) the same work by a hand-written asyncio responder
            (a pipe protocol's callback): the floor of any asyncio host;
- official: a ``claude_agent_sdk`` program (``ClaudeSDKClient`` with an SDK MCP server and a
            ``can_use_tool`` callback that allows), ``cli_path`` set to the fake CLI.

Subjects: ``async`` (an ``async def`` python tool), ``sync`` (a plain ``def`` tool, run in a
worker thread), ``inline`` (only when named: the same def under ``blocking: false``, run on
the event loop), each allowed by a rule among the same 1,000 (the fake CLI calls without asking
first, so each call is decided as it arrives: toolhost's second lock, docs/running.md),
``can_use_tool`` (1,000 rules -- those of bench_permissions.py -- the call
allowed by the last one, after 300 conditional denies were tried; the audit log on). Every
process is pinned to one CPU (``--cpu``), rounds are interleaved, medians of the rounds are
printed with the targets: tools/call p50 at most 2x the floor's (async) or 2.5x (sync), 32
in flight at least 0.8x the floor's calls/s, can_use_tool p50 at most 1.5x the floor's and
never above the official SDK's. ``--against DIR`` adds host ``before``: the ``toolhost`` of
another checkout (its own ``.venv``), run in the same interleaved rounds with the same fake
CLI and config, and prints this checkout / it per round (an A/B of two commits). Each host's
CPU time per call (user + system, read from /proc by the fake CLI, sequential and in flight)
is printed too: on one CPU a sequential round trip is the two processes' CPU time, and it is
steadier than wall time when other work shares the machine. The fake CLI reads its
settings from the environment (``BENCH_SUBJECT``, ``BENCH_CALLS``, ``BENCH_INFLIGHT``,
``BENCH_WARMUP``, ``BENCH_OUT``); ``BENCH_SEQ_CALLS=0`` skips its sequential phase, to profile
or count the calls in flight alone (``bench_instructions.py --inflight``).
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
HERE = Path(__file__).resolve()
TOOLS = '''
async def greet(name: str) -> str:
    """Greet a person by name."""
    return f"Hello, {name}!"


def greet_sync(name: str) -> str:
    """Greet a person by name."""
    return f"Hello, {name}!"


def greet_inline(name: str) -> str:
    """Greet a person by name."""
    return f"Hello, {name}!"


def query(table: str, limit: int = 10) -> str:
    """Query a table."""
    return table
'''


# -- the fake CLI ---------------------------------------------------------------------------


def host_cpu() -> float:
    """CPU seconds (user + system) the host -- the fake CLI's parent -- has used so far; 0
    where /proc has no such file. Steadier than wall time when other work shares the CPU."""
    try:
        fields = Path(f"/proc/{os.getppid()}/stat").read_bytes().rsplit(b")", 1)[1].split()
    except OSError:
        return 0.0
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")


def fake_cli() -> None:
    subject, calls, inflight, warmup = (os.environ["BENCH_SUBJECT"],
                                        int(os.environ["BENCH_CALLS"]),
                                        int(os.environ["BENCH_INFLIGHT"]),
                                        int(os.environ["BENCH_WARMUP"]))
    stdin, stdout = sys.stdin.buffer, sys.stdout.buffer
    write, flush, readline = stdout.write, stdout.flush, stdin.readline
    tool = {"sync": "greet_sync", "inline": "greet_inline"}.get(subject, "greet")

    def control(rid: str, request: dict[str, Any]) -> bytes:
        return json.dumps({"type": "control_request", "request_id": rid,
                           "request": request}).encode() + b"\n"

    def mcp(rid: str, message: dict[str, Any]) -> bytes:
        return control(rid, {"subtype": "mcp_message", "server_name": "demo",
                             "message": message})

    def line_for(rid: str, i: int) -> bytes:
        if subject == "can_use_tool":
            return control(rid, {"subtype": "can_use_tool", "tool_name": "mcp__hot__query",
                                 "input": {"table": f"n{i}", "limit": 10},
                                 "tool_use_id": f"toolu_{i}", "permission_suggestions": []})
        return mcp(rid, {"jsonrpc": "2.0", "id": i + 10, "method": "tools/call",
                         "params": {"name": tool, "arguments": {"name": f"n{i}"},
                                    "_meta": {"claudecode/toolUseId": f"toolu_{i}",
                                              "progressToken": i + 10}}})

    def answer(line: bytes) -> None:  # a control request of the host's own: acknowledge it
        rid = json.loads(line)["request_id"]
        write(json.dumps({"type": "control_response", "response": {
            "subtype": "success", "request_id": rid, "response": {}}}).encode() + b"\n")
        flush()

    def receive() -> bytes:
        while True:
            line = readline()
            if not line:
                raise SystemExit("host closed the pipe")
            if line.startswith(b'{"type":"control_response"') \
                    or line.startswith(b'{"type": "control_response"'):
                return line
            if b'"control_request"' in line:
                answer(line)

    while True:  # initialize, then the user turn
        line = readline()
        if not line:
            return
        if b'"control_request"' in line:
            answer(line)
        elif b'"type":"user"' in line or b'"type": "user"' in line:
            break

    expected = [b'"allow"' if subject == "can_use_tool" else f"Hello, n{i}!".encode()
                for i in range(max(calls, warmup))]
    errors = 0
    if subject != "can_use_tool":
        for message in ({"jsonrpc": "2.0", "id": 0, "method": "initialize",
                         "params": {"protocolVersion": "2025-11-25", "capabilities": {},
                                    "clientInfo": {"name": "claude-code", "version": "2"}}},
                        {"jsonrpc": "2.0", "method": "notifications/initialized"},
                        {"jsonrpc": "2.0", "id": 1, "method": "tools/list"}):
            write(mcp("setup", message))
            flush()
            receive()
    for i in range(warmup):
        write(line_for(f"w{i}", i))
        flush()
        errors += expected[i] not in receive()

    clock = time.perf_counter
    lines = [line_for(f"s{i}", i) for i in range(calls)]
    sequential = []
    cpu0 = host_cpu()
    t0 = clock()
    for i in range(int(os.environ.get("BENCH_SEQ_CALLS", calls))):  # 0: in flight only
        start = clock()
        write(lines[i])
        flush()
        got = receive()
        sequential.append(clock() - start)
        errors += expected[i] not in got
    seq_wall = clock() - t0
    seq_cpu = host_cpu() - cpu0

    lines = [line_for(f"c{i}", i) for i in range(calls)]
    started: dict[bytes, tuple[int, float]] = {}
    concurrent = []
    sent = 0
    cpu0 = host_cpu()
    t0 = clock()
    while sent < min(inflight, calls):
        started[f'"c{sent}"'.encode()] = (sent, clock())
        write(lines[sent])
        sent += 1
    flush()
    while started:
        got = receive()
        key = got[got.index(b'"request_id"') + 12:].lstrip(b': ').split(b",")[0].rstrip(b"}")
        i, start = started.pop(key)
        concurrent.append(clock() - start)
        errors += expected[i] not in got
        if sent < calls:
            started[f'"c{sent}"'.encode()] = (sent, clock())
            write(lines[sent])
            flush()
            sent += 1
    conc_wall = clock() - t0
    conc_cpu = host_cpu() - cpu0

    Path(os.environ["BENCH_OUT"]).write_text(json.dumps({
        "sequential": sequential, "sequential_wall": seq_wall, "concurrent": concurrent,
        "concurrent_wall": conc_wall, "sequential_cpu": seq_cpu, "concurrent_cpu": conc_cpu,
        "errors": errors}))
    write(json.dumps({"type": "result", "subtype": "success", "is_error": False,
                      "result": "done", "session_id": "bench", "num_turns": 1,
                      "duration_ms": 1, "duration_api_ms": 1, "total_cost_usd": 0,
                      "usage": {}}).encode() + b"\n")
    flush()
    for _ in stdin:  # until the host closes our input
        pass


# -- the references -------------------------------------------------------------------------


def floor(cli: str) -> None:
    """The hand-written blocking responder."""
    proc = subprocess.Popen([cli], stdin=subprocess.PIPE, stdout=subprocess.PIPE)
    assert proc.stdin is not None and proc.stdout is not None
    out, inp = proc.stdin, proc.stdout
    out.write(b'{"type":"control_request","request_id":"init","request":'
              b'{"subtype":"initialize","hooks":null}}\n')
    out.write(b'{"type":"user","message":{"role":"user","content":"go"},'
              b'"parent_tool_use_id":null,"session_id":"default"}\n')
    out.flush()
    for line in inp:
        msg = json.loads(line)
        if msg.get("type") == "result":
            break
        if msg.get("type") != "control_request":
            continue
        out.write(_floor_answer(msg))
        out.flush()
    out.close()
    proc.wait()


def _floor_answer(msg: dict[str, Any]) -> bytes:
    request = msg["request"]
    if request["subtype"] == "can_use_tool":
        response: dict[str, Any] = {"behavior": "allow", "updatedInput": request["input"]}
    else:
        message = request["message"]
        if message.get("method") == "tools/call":
            result: dict[str, Any] = {"content": [{"type": "text", "text": "Hello, "
                                      f"{message['params']['arguments']['name']}!"}],
                                      "isError": False}
        else:
            result = {}
        response = {"mcp_response": {"jsonrpc": "2.0", "id": message.get("id"),
                                     "result": result}}
    return json.dumps({"type": "control_response", "response": {
        "subtype": "success", "request_id": msg["request_id"],
        "response": response}}).encode() + b"\n"


def aiofloor(cli: str) -> None:
    """The hand-written asyncio responder: the floor's work in a pipe protocol's callback
    (one epoll wake-up and one loop turn per chunk, nothing else): what any asyncio host
    pays at least, and what a blocking fast path in toolhost could save at most."""
    import asyncio

    async def main() -> None:
        loop = asyncio.get_running_loop()
        proc = subprocess.Popen([cli], stdin=subprocess.PIPE, stdout=subprocess.PIPE)
        assert proc.stdin is not None and proc.stdout is not None
        done = loop.create_future()
        wt, _ = await loop.connect_write_pipe(asyncio.Protocol, proc.stdin)
        wt.write(b'{"type":"control_request","request_id":"init","request":'
                 b'{"subtype":"initialize","hooks":null}}\n'
                 b'{"type":"user","message":{"role":"user","content":"go"},'
                 b'"parent_tool_use_id":null,"session_id":"default"}\n')

        class Lines(asyncio.Protocol):
            rest = b""

            def data_received(self, data: bytes) -> None:
                *lines, self.rest = (self.rest + data).split(b"\n")
                out = []
                for line in lines:
                    msg = json.loads(line)
                    if msg.get("type") == "result":
                        if not done.done():
                            done.set_result(None)
                    elif msg.get("type") == "control_request":
                        out.append(_floor_answer(msg))
                if out:
                    wt.write(b"".join(out))

            def connection_lost(self, exc: Exception | None) -> None:
                if not done.done():
                    done.set_result(None)

        rt, _ = await loop.connect_read_pipe(Lines, proc.stdout)
        # asyncio's pipe transport reads up to 256 KiB at once, and CPython allocates that
        # before the read: above glibc's mmap threshold, each read of a short line costs an
        # mmap, an mremap and a munmap (~20 us a round trip on one CPU). A pipe holds 64 KiB.
        # (toolhost does not pay it: its earlier large frees have raised the threshold.)
        rt.max_size = int(os.environ.get("BENCH_AIO_READ", 64 * 1024))  # type: ignore[attr-defined]
        await done
        wt.close()
        rt.close()
        await asyncio.to_thread(proc.wait)

    asyncio.run(main())


def official(cli: str) -> None:
    """A claude_agent_sdk program with the same tool and an allowing callback."""
    import anyio
    from claude_agent_sdk import (
        ClaudeAgentOptions,
        ClaudeSDKClient,
        PermissionResultAllow,
        ResultMessage,
        create_sdk_mcp_server,
        tool,
    )

    @tool("greet", "Greet a person by name", {"name": str})
    async def greet(args: dict[str, Any]) -> dict[str, Any]:
        return {"content": [{"type": "text", "text": f"Hello, {args['name']}!"}]}

    @tool("greet_sync", "Greet a person by name", {"name": str})
    async def greet_sync(args: dict[str, Any]) -> dict[str, Any]:
        return {"content": [{"type": "text", "text": f"Hello, {args['name']}!"}]}

    @tool("greet_inline", "Greet a person by name", {"name": str})
    async def greet_inline(args: dict[str, Any]) -> dict[str, Any]:
        return {"content": [{"type": "text", "text": f"Hello, {args['name']}!"}]}

    async def allow(name: str, tool_input: dict[str, Any], context: Any) -> Any:
        return PermissionResultAllow(updated_input=tool_input)

    async def main() -> None:
        options = ClaudeAgentOptions(cli_path=cli, can_use_tool=allow, mcp_servers={
            "demo": create_sdk_mcp_server("demo", "1.0.0", tools=[greet, greet_sync,
                                                                 greet_inline])})
        async with ClaudeSDKClient(options) as client:
            await client.query("go")
            async for message in client.receive_response():
                if isinstance(message, ResultMessage):
                    break

    anyio.run(main)


# -- the driver -----------------------------------------------------------------------------


def write_fixtures(tmp: Path, inline: bool = False) -> tuple[Path, Path]:
    """The bench's module, config and fake CLI in ``tmp``. ``inline``: the config also has
    ``greet_inline``, a def under ``blocking: false`` (a tree from before that option refuses
    the config, so it is there only when the ``inline`` subject is asked for)."""
    sys.path.insert(0, str(HERE.parent))
    from bench_permissions import rules

    (tmp / "bench_tools.py").write_text(TOOLS)
    lists: dict[str, list[Any]] = {"allow": [], "deny": [], "ask": []}
    for rule in rules():  # in their order within each effect; the hot call's allow is last
        entry: dict[str, Any] = {"tool": rule.tool}
        if rule.when:
            entry["when"] = rule.when
        if rule.expr:
            entry["expr"] = rule.expr
        lists[rule.effect].append(entry)
    # The tools/call subjects' tool is allowed: the fake CLI calls it without asking first
    # (a real CLI asks), so toolhost decides each call when it arrives (the second lock)
    lists["allow"].insert(0, {"tool": "mcp__demo__*"})
    demo: dict[str, Any] = {"greet": {"python": "bench_tools:greet"},
                            "greet_sync": {"python": "bench_tools:greet_sync"}}
    if inline:
        demo["greet_inline"] = {"python": {"function": "bench_tools:greet_inline",
                                           "blocking": False}}
    config = {"toolhost": 1, "servers": {
        "demo": {"tools": demo},
        "hot": {"tools": {"query": {"python": "bench_tools:query"}}}},
        "permissions": {"default": "deny", "ask_mode": "deny",
                        "audit_log": str(tmp / "audit.jsonl"), **lists}}
    path = tmp / "bench.yaml"
    path.write_text(json.dumps(config))  # JSON is YAML
    cli = tmp / "fake_cli"
    cli.write_text(f"#!{sys.executable}\nimport sys\nsys.path.insert(0, {str(HERE.parent)!r})\n"
                   "import bench_run\nbench_run.fake_cli()\n")
    cli.chmod(0o755)
    return path, cli


def run_once(host: str, subject: str, args: argparse.Namespace, config: Path, cli: Path,
             out: Path) -> dict[str, Any]:
    env = {**os.environ, "BENCH_SUBJECT": subject, "BENCH_CALLS": str(args.calls),
           "BENCH_INFLIGHT": str(args.inflight), "BENCH_WARMUP": str(args.warmup),
           "BENCH_OUT": str(out), "PYTHONPATH": str(config.parent)}
    env.pop("PYTHONDONTWRITEBYTECODE", None)
    out.unlink(missing_ok=True)
    if host in ("toolhost", "before"):
        program = (args.against.resolve() / ".venv" / "bin" / "toolhost" if host == "before"
                   else Path(sys.executable).parent / "toolhost")
        if host == "before" and not program.exists():
            # a bare tree (a git archive of toolhost/): this interpreter, the tree first
            program = Path(sys.executable).parent / "toolhost"
            env["PYTHONPATH"] = f"{args.against.resolve()}{os.pathsep}{config.parent}"
        argv = [str(program), "run", str(config), "-p", "go", "--cli", str(cli)]
    else:
        argv = [sys.executable, str(HERE), f"--{host}", str(cli)]
    subprocess.run(argv, env=env, check=True, stdout=subprocess.DEVNULL, cwd=config.parent,
                   timeout=600)
    stats: dict[str, Any] = json.loads(out.read_text())
    if stats["errors"]:
        raise SystemExit(f"{host} {subject}: {stats['errors']} wrong answers")
    return stats


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__,
                                     formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--calls", type=int, default=2000)
    parser.add_argument("--inflight", type=int, default=32)
    parser.add_argument("--warmup", type=int, default=300)
    parser.add_argument("--rounds", type=int, default=3)
    parser.add_argument("--cpu", type=int, default=0, help="the CPU every process runs on")
    parser.add_argument("--subjects", default="async,sync,can_use_tool")
    parser.add_argument("--hosts", default="floor,toolhost,official")
    parser.add_argument("--floor", metavar="CLI", help=argparse.SUPPRESS)
    parser.add_argument("--official", metavar="CLI", help=argparse.SUPPRESS)
    parser.add_argument("--aiofloor", metavar="CLI", help=argparse.SUPPRESS)
    parser.add_argument("--against", type=Path, metavar="DIR",
                        help="another checkout (with its .venv; or a bare tree, run by this "
                             "interpreter first on PYTHONPATH): its toolhost runs too")
    args = parser.parse_args()
    if args.floor:
        floor(args.floor)
        return 0
    if args.official:
        official(args.official)
        return 0
    if args.aiofloor:
        aiofloor(args.aiofloor)
        return 0
    if hasattr(os, "sched_setaffinity"):
        os.sched_setaffinity(0, {args.cpu})  # inherited by every process started below
    # each host once a round ("before" named in --hosts as well as by --against ran twice a
    # round, and the A/B's rounds no longer paired up)
    hosts = list(dict.fromkeys(args.hosts.split(",") + (["before"] if args.against else [])))
    if "before" in hosts and not args.against:
        parser.error("host 'before' needs --against DIR (the checkout it runs)")
    with tempfile.TemporaryDirectory() as tmp:
        config, cli = write_fixtures(Path(tmp), "inline" in args.subjects.split(","))
        out = Path(tmp) / "stats.json"
        for subject in args.subjects.split(","):
            rows: dict[str, dict[str, list[float]]] = {h: {} for h in hosts}
            for round_ in range(args.rounds):
                for host in hosts if round_ % 2 == 0 else hosts[::-1]:  # order alternates
                    stats = run_once(host, subject, args, config, cli, out)
                    row = rows[host]
                    row.setdefault("seq", []).append(statistics.median(stats["sequential"]))
                    row.setdefault("rate", []).append(args.calls / stats["sequential_wall"])
                    row.setdefault("flight", []).append(args.calls / stats["concurrent_wall"])
                    row.setdefault("cpu", []).append(stats["sequential_cpu"] / args.calls)
                    row.setdefault("fcpu", []).append(stats["concurrent_cpu"] / args.calls)
            if args.against:
                ab(subject, rows["toolhost"], rows["before"])
            report(subject, args.inflight, {h: {k: statistics.median(v) for k, v in r.items()}
                                            for h, r in rows.items()})
    return 0


def ab(subject: str, ours: dict[str, list[float]], before: dict[str, list[float]]) -> None:
    """This checkout against ``--against``'s, round by round (each pair ran back to back)."""
    for key, label, invert in (("seq", "seq p50", False), ("flight", "calls/s in flight", True),
                               ("cpu", "CPU us/call seq", False)):
        ratios = [(b / a if invert else a / b) if a and b else float("nan")
                  for a, b in zip(ours[key], before[key], strict=True)]
        shown = ", ".join(f"{r:.2f}" for r in ratios)
        print(f"  {subject}: this / before, {label}: {statistics.median(ratios):.2f}x "
              f"(rounds: {shown}){'  (time per call: lower is better)' if invert else ''}")


def report(subject: str, inflight: int, rows: dict[str, dict[str, float]]) -> None:
    print(f"\n{subject}: {'host':<9} {'seq p50 us':>11} {'seq calls/s':>12} "
          f"{f'{inflight} in flight/s':>16} {'CPU us/call seq':>16} {'in flight':>10}")
    for host, r in rows.items():
        print(f"{'':{len(subject) + 2}}{host:<9} {r['seq'] * 1e6:>11.0f} {r['rate']:>12.0f} "
              f"{r['flight']:>16.0f} {r['cpu'] * 1e6:>16.1f} {r['fcpu'] * 1e6:>10.1f}")
    if "floor" in rows and "toolhost" in rows:
        ours, ref = rows["toolhost"], rows["floor"]
        target = {"async": 2.0, "sync": 2.5, "inline": 2.5, "can_use_tool": 1.5}[subject]
        print(f"  toolhost / floor, sequential p50: {ours['seq'] / ref['seq']:.2f}x "
              f"(target <= {target}x)")
        print(f"  toolhost / floor, calls/s {inflight} in flight: "
              f"{ours['flight'] / ref['flight']:.2f}x (target >= 0.8x)")
    if "aiofloor" in rows and "floor" in rows:
        ref, floor_ = rows["aiofloor"], rows["floor"]
        print(f"  aiofloor / floor, sequential p50: {ref['seq'] / floor_['seq']:.2f}x "
              f"(what the event loop itself costs)")
    if "official" in rows and "toolhost" in rows:
        ours, ref = rows["toolhost"], rows["official"]
        print(f"  toolhost / official, sequential p50: {ours['seq'] / ref['seq']:.2f}x"
              + (" (target <= 1x)" if subject == "can_use_tool" else ""))


if __name__ == "__main__":
    raise SystemExit(main())
