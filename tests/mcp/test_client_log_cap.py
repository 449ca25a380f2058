"""``ctx.log`` sends a call's first 1,000 lines to the client, and one line saying how many
more were not sent, from sync tools (a worker thread) and async tools alike, over a real
``toolhost serve``; a call under the cap sends every line and no note."""

from __future__ import annotations

import textwrap
from collections.abc import Iterator
from pathlib import Path

import pytest

from tests.serve.stdio_peer import StdioPeer, stdio_peer

MAX_LINES = 1000  # toolhost.mcp.client_log.MAX_LINES, as the docs state it

MODULE = '''
from toolhost.backends.base import CallContext

def flood(n: int, ctx: CallContext) -> str:
    for i in range(n):
        ctx.log.info("line %d %s", i, "x" * 50)
    return "ok"

async def aflood(n: int, ctx: CallContext) -> str:
    for i in range(n):
        ctx.log.info("line %d %s", i, "x" * 50)
    return "ok"

def mixed(n: int, ctx: CallContext) -> str:
    for i in range(n):
        ctx.log("warning" if i % 2 else "info", "line %d", i)
    return "ok"
'''


@pytest.fixture(scope="module")
def config(tmp_path_factory: pytest.TempPathFactory) -> Path:
    root = tmp_path_factory.mktemp("logcap")
    (root / "logcap_tools.py").write_text(textwrap.dedent(MODULE))
    path = root / "logcap.yaml"
    path.write_text(textwrap.dedent("""\
        toolhost: 1
        permissions: {default: allow}
        servers:
          p:
            tools:
              flood: {python: "logcap_tools:flood"}
              aflood: {python: "logcap_tools:aflood"}
              mixed: {python: "logcap_tools:mixed"}
        """))
    return path


@pytest.fixture(scope="module")
def peer(config: Path) -> Iterator[StdioPeer]:
    """One server for every case: the cap is per call, so calls never share a count."""
    with stdio_peer(config) as the_peer:
        yield the_peer


@pytest.mark.parametrize("tool", ["flood", "aflood", "mixed"])
@pytest.mark.parametrize("n", [0, 5, MAX_LINES, MAX_LINES + 1, 3 * MAX_LINES])
def test_a_call_sends_at_most_the_cap_then_one_note(peer: StdioPeer, tool: str,
                                                    n: int) -> None:
    peer.seen.clear()
    for call in (1, 2):  # the cap is per call: a second call has its own
        answer = peer.ask(f"{tool}-{n}-{call}", "tools/call",
                          {"name": tool, "arguments": {"n": n}}, timeout=60)
        assert answer["result"]["content"][0]["text"] == "ok"
        lines = [m["params"]["data"] for m in peer.seen
                 if m.get("method") == "notifications/message"
                 and m["params"].get("logger") == tool]
        peer.seen.clear()
        sent = min(n, MAX_LINES)
        assert lines[:sent] == [f"line {i} {'x' * 50}" if tool != "mixed" else f"line {i}"
                                for i in range(sent)]
        if n > MAX_LINES:
            assert lines[sent:] == [f"({n - MAX_LINES:,} more log lines of this call were "
                                    f"not sent; the first {MAX_LINES:,} were)"]
        else:
            assert len(lines) == n
