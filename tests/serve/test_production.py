"""``toolhost serve`` as deployed: two replicas (OAuth tokens of a local issuer, rules on
the caller, an audit log each) behind a real haproxy, round robin per request, when haproxy
is installed. One run probed every way production uses it:

- many modern (2026-07-28) calls from several threads and callers, on kept-alive
  connections, each answered with its own result or denied by the caller's rule, beside the
  official client in legacy mode (a session spread over both replicas);
- every decision in the audit logs, naming the caller the token vouched for;
- SIGTERM to one replica while slow calls run on it: every call that had started answered,
  calls that come later answered or refused cleanly (503), the replica exits by the signal."""

from __future__ import annotations

import http.client
import json
import os
import shutil
import signal
import subprocess
import sys
import threading
import time
import urllib.error
import urllib.request
from pathlib import Path
from typing import Any
from urllib.parse import urlsplit

import pytest
from mcp.client.client import Client
from mcp.client.streamable_http import streamable_http_client
from mcp.shared._httpx_utils import create_mcp_http_client

from tests.modern import modern_meta
from tests.serve.conftest import HERE, http_servers
from tests.serve.local_issuer import LocalIssuer
from tests.serve.test_haproxy import haproxy

pytestmark = [pytest.mark.anyio,
              pytest.mark.skipif(shutil.which("haproxy") is None,
                                 reason="haproxy is not installed (apt-get install haproxy)")]

AUD = "toolhost-prod"
CONFIG = """\
toolhost: 1
servers:
  db:
    tools:
      echo: {python: "blackbox_tools:echo"}
      slow: {python: "blackbox_tools:slow"}
permissions:
  default: deny
  allow:
    - tool: mcp__db__echo
      callers: {groups: [staff]}
    - tool: mcp__db__slow
      callers: {groups: [staff]}
  audit_log: AUDIT
"""
THREADS = 8
CALLS = 125  # per thread: 1,000 modern calls (then fewer during the SIGTERM)
LATER = 30


def token(issuer: LocalIssuer, sub: str) -> str:
    now = int(time.time())
    staff = int(sub.rsplit("-", 1)[1]) % 2 == 0
    return issuer.sign({"iss": issuer.url, "aud": AUD, "sub": sub, "iat": now,
                        "exp": now + 300, "groups": ["staff" if staff else "interns"]})


class Caller:
    """One thread's caller: its own token and one kept-alive connection to the front."""

    def __init__(self, front: str, issuer: LocalIssuer, sub: str) -> None:
        self.sub, self.staff = sub, int(sub.rsplit("-", 1)[1]) % 2 == 0
        self.token = token(issuer, sub)
        parts = urlsplit(front)
        self.address = (parts.hostname or "", parts.port or 80)
        self.connection: http.client.HTTPConnection | None = None
        self.refusals: list[str] = []

    def call(self, tool: str, arguments: dict[str, Any]) -> tuple[int, dict[str, Any]]:
        body = json.dumps({"jsonrpc": "2.0", "id": 1, "method": "tools/call", "params": {
            "name": tool, "arguments": arguments, "_meta": modern_meta()}})
        headers = {"content-type": "application/json", "accept": "application/json",
                   "mcp-protocol-version": "2026-07-28", "mcp-method": "tools/call",
                   "mcp-name": tool, "authorization": f"Bearer {self.token}"}
        for attempt in range(2):  # a kept-alive connection the front closed: once more
            if self.connection is None:
                self.connection = http.client.HTTPConnection(*self.address, timeout=30)
            try:
                self.connection.request("POST", "/mcp", body, headers)
                answer = self.connection.getresponse()
                data = answer.read()
            except (ConnectionError, http.client.RemoteDisconnected):
                self.connection.close()
                self.connection = None
                if attempt:
                    raise
                continue
            if answer.getheader("connection", "").lower() == "close":
                self.connection.close()
                self.connection = None
            return answer.status, json.loads(data) if data.startswith(b"{") else {}
        raise AssertionError("unreachable")

    def close(self) -> None:
        if self.connection is not None:
            self.connection.close()
            self.connection = None

    def echo_many(self, phase: str, results: list[str], calls: int) -> None:
        try:
            for i in range(calls):
                text = f"{self.sub} {phase}{i}"
                status, answer = self.call("echo", {"text": text})
                results.append(self.judge(status, answer, text))
        except Exception as exc:  # a lost call: said in the results
            results.append(f"{self.sub}: {exc!r}")
        finally:
            self.close()

    def judge(self, status: int, answer: dict[str, Any], text: str) -> str:
        """"ok", "denied" (as the caller's rule says), "refused" (503) or what went wrong."""
        if status == 503:
            self.refusals.append(str(answer)[:200])
            return "refused"
        result = answer.get("result") if status == 200 else None
        if not isinstance(result, dict):
            return f"{self.sub}: HTTP {status} {answer}"
        said = result["content"][0]["text"] if result.get("content") else ""
        if self.staff and not result["isError"] and said == text:
            return "ok"
        if not self.staff and result["isError"] and "deny" in said.lower():
            return "denied"
        return f"{self.sub}: {result}"


def run_threads(callers: list[Caller], phase: str, calls: int = CALLS) -> list[str]:
    results: list[str] = []
    threads = [threading.Thread(target=c.echo_many, args=(phase, results, calls))
               for c in callers]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join(120)
    return results


async def test_two_replicas_behind_haproxy_identity_and_sigterm(tmp_path: Path) -> None:
    import anyio

    issuer = LocalIssuer()
    started = []
    processes: list[subprocess.Popen[bytes]] = []
    for i in range(2):
        config = tmp_path / f"db{i}.yaml"
        config.write_text(CONFIG.replace("AUDIT", str(tmp_path / f"audit{i}.jsonl")))
        env = {k: v for k, v in os.environ.items() if k != "TOOLHOST_SESSION_SECRET"}
        env["PYTHONPATH"] = os.pathsep.join(p for p in (str(HERE), str(HERE.parent.parent),
                                                        env.get("PYTHONPATH")) if p)
        started.append(([sys.executable, "-m", "toolhost", "serve", str(config),
                         "--transport", "http", "--port", "0", "--shutdown-grace", "8",
                         "--auth-issuer", issuer.url, "--auth-audience", AUD],
                        tmp_path / f"replica{i}.log", env))
    try:
        with http_servers(started, processes) as urls, haproxy(tmp_path, [u.rsplit("/mcp", 1)[0]
                                                               for u in urls], True) as front:
            callers = [Caller(front, issuer, f"user-{t}") for t in range(THREADS)]
            bearer = {"authorization": f"Bearer {token(issuer, 'legacy-0')}"}
            legacy_http = create_mcp_http_client(headers=bearer)

            # phase 1: modern calls from every thread beside one legacy session
            async with legacy_http, Client(streamable_http_client(
                    f"{front}/mcp", http_client=legacy_http), mode="legacy") as client:
                pending = anyio.to_thread.run_sync(run_threads, callers, "a")
                got: list[str] = []

                async def modern() -> None:
                    got.extend(await pending)

                async with anyio.create_task_group() as tg:
                    tg.start_soon(modern)
                    said = [(await client.call_tool("echo", {"text": f"l{i}"})).content[0]
                            for i in range(20)]
                assert [getattr(s, "text", None) for s in said] == [f"l{i}" for i in range(20)]
            assert len(got) == THREADS * CALLS
            assert [r for r in got if r not in ("ok", "denied")] == [], [
                (c.sub, c.refusals) for c in callers if c.refusals]
            assert got.count("ok") == got.count("denied")

            # every decision recorded, with the caller the token named, on both replicas
            entries = [json.loads(line) for i in range(2)
                       for line in (tmp_path / f"audit{i}.jsonl").read_text().splitlines()]
            per_replica = [len((tmp_path / f"audit{i}.jsonl").read_text().splitlines())
                           for i in range(2)]
            assert min(per_replica) >= THREADS * CALLS // 3, per_replica
            assert len(entries) == THREADS * CALLS + 20
            for entry in entries:
                sub = entry["caller"]["sub"]
                staff = int(sub.rsplit("-", 1)[1]) % 2 == 0
                assert entry["decision"] == ("allow" if staff else "deny"), entry
                assert entry["caller"]["iss"] == issuer.url

            # phase 2: SIGTERM to replica 0 while slow calls run on both
            slow: list[str] = []

            def slow_call(index: int) -> None:
                one = Caller(front, issuer, f"slow-{2 * index}")
                try:
                    status, answer = one.call("slow", {"seconds": 1.5, "steps": 3})
                except Exception as exc:  # a lost call: said
                    status, answer = 0, {"lost": repr(exc)}
                finally:
                    one.close()
                slow.append(answer.get("result", {}).get("content", [{}])[0].get("text", "")
                            if status == 200 else f"HTTP {status} {answer}")

            slows = [threading.Thread(target=slow_call, args=(i,)) for i in range(4)]
            for thread in slows:
                thread.start()
            await anyio.sleep(0.4)  # every slow call is running (two on each replica)
            processes[0].send_signal(signal.SIGTERM)
            await anyio.sleep(0.2)
            with pytest.raises(urllib.error.HTTPError) as not_ready:  # out of rotation
                await anyio.to_thread.run_sync(lambda: urllib.request.urlopen(
                    urls[0].replace("/mcp", "/readyz"), timeout=5))
            assert not_ready.value.code == 503
            not_ready.value.close()
            later = await anyio.to_thread.run_sync(run_threads, callers, "b", LATER)
            for thread in slows:
                thread.join(30)
            assert slow == ["slept 1.5"] * 4  # none that had started was lost
            assert [r for r in later if r not in ("ok", "denied", "refused")] == []
            assert processes[0].wait(30) in (0, -signal.SIGTERM)  # it ended by the signal
            # the other replica still serves, the official client in both eras
            for mode in ("legacy", "auto"):
                official = create_mcp_http_client(headers=bearer)
                async with official, Client(streamable_http_client(
                        f"{front}/mcp", http_client=official), mode=mode) as client:
                    said = [(await client.call_tool("echo", {"text": f"m{i}"})).content[0]
                            for i in range(3)]
                assert [getattr(s, "text", None) for s in said] == ["m0", "m1", "m2"], mode
    finally:
        issuer.close()
