"""``toolhost serve --transport http --metrics``: Prometheus text at ``GET /metrics``, behind
the same checks as MCP (an OAuth access token here), counting requests by status, calls by
tool, decision and outcome, denials, durations as histograms, and gauges (in flight,
sessions, tasks); a tool name a client made up never makes a series. Off by default (404).
A real server, a local issuer, real HTTP."""

from __future__ import annotations

import re
import threading
import urllib.error
import urllib.request
from collections.abc import Iterable
from pathlib import Path

import anyio
import pytest

from tests.serve.test_auth import Issuer, call, serve_authed
from toolhost.serve.metrics import Metrics, _Family

# a sample line of the text format: name, optional labels, a number
SAMPLE = re.compile(r'^([a-z_]+)(\{(?:[a-z_]+="(?:[^"\\\n]|\\.)*",?)*\})? '
                    r'(-?[0-9.]+(?:e[+-]?[0-9]+)?|\+Inf|NaN)$')


def _scrape(url: str, token: str | None) -> tuple[int, str, str]:
    headers = {} if token is None else {"authorization": f"Bearer {token}"}
    request = urllib.request.Request(url.rsplit("/", 1)[0] + "/metrics", headers=headers)
    try:
        with urllib.request.urlopen(request, timeout=30) as answer:
            return answer.status, answer.headers["content-type"], answer.read().decode()
    except urllib.error.HTTPError as exc:
        with exc:
            return exc.code, exc.headers["content-type"], exc.read().decode()


def _samples(text: str) -> dict[str, float]:
    """Every sample of the scrape by its name and labels; each line must be well formed."""
    out: dict[str, float] = {}
    for line in text.splitlines():
        if line.startswith("# HELP ") or line.startswith("# TYPE "):
            continue
        match = SAMPLE.match(line)
        assert match, f"not a sample line: {line!r}"
        out[match.group(1) + (match.group(2) or "")] = float(match.group(3))
    return out


def test_metrics_count_requests_calls_denials_and_durations(issuer: Issuer,
                                                            tmp_path: Path) -> None:
    with serve_authed(issuer, tmp_path, "--metrics") as url:
        assert call(url, "echo", issuer.token("ana"))[0] == 200
        assert call(url, "echo", issuer.token("ana"))[0] == 200
        assert call(url, "migrate", issuer.token("bob"))[0] == 200  # denied: not platform
        assert call(url, "made-up-name", issuer.token("cy"))[0] == 400  # unknown tool
        assert call(url, "echo", None)[0] == 401
        assert _scrape(url, None)[0] == 401  # the same auth as MCP
        assert _scrape(url, "forged")[0] == 401
        status, kind, text = _scrape(url, issuer.token("prometheus"))
    assert status == 200 and kind.startswith("text/plain; version=0.0.4"), (status, kind)
    got = _samples(text)
    assert got['toolhost_tool_calls_total{tool="echo",decision="allow",outcome="ok"}'] == 2
    assert got['toolhost_tool_calls_total{tool="migrate",decision="deny",'
               'outcome="tool_error"}'] == 1
    assert got['toolhost_permission_denials_total{tool="migrate"}'] == 1
    # a name nobody serves is "?": a client cannot make series
    assert got['toolhost_tool_calls_total{tool="?",decision="unknown",'
               'outcome="jsonrpc_error"}'] == 1
    assert "made" not in text
    assert got['toolhost_http_requests_total{method="POST",status="200"}'] == 3
    assert got['toolhost_http_requests_total{method="POST",status="401"}'] == 1
    assert got['toolhost_http_requests_total{method="GET",status="401"}'] == 2
    assert got['toolhost_rpc_requests_total{rpc="tools/call",outcome="ok"}'] == 2
    assert got['toolhost_tool_call_duration_seconds_count{tool="echo"}'] == 2
    assert got['toolhost_tool_call_duration_seconds_bucket{tool="echo",le="+Inf"}'] == 2
    assert got['toolhost_http_request_duration_seconds_count{method="POST"}'] == 5
    assert got['toolhost_http_requests_total{method="POST",status="400"}'] == 1
    assert got["toolhost_requests_in_flight"] == 0
    assert got["toolhost_sessions"] == 0
    assert got['toolhost_tasks{status="working"}'] == 0


def test_metrics_are_off_by_default(issuer: Issuer, tmp_path: Path) -> None:
    with serve_authed(issuer, tmp_path) as url:
        assert _scrape(url, issuer.token("prometheus"))[0] == 404


@pytest.mark.anyio
async def test_a_scrape_is_written_off_the_event_loop_from_a_copy(
        monkeypatch: pytest.MonkeyPatch) -> None:
    """The page is written in a worker thread (with thousands of series it takes a second:
    on the loop every request waited), from a copy: the loop counts new series meanwhile,
    which the page being written neither shows nor trips on."""
    metrics = Metrics()
    metrics.requests.inc("POST", "200")
    metrics.gauge("toolhost_sessions", "sessions", lambda: 3)
    counted = threading.Event()
    writers: list[int] = []
    lines = _Family.lines

    def slow_lines(family: _Family) -> Iterable[str]:
        writers.append(threading.get_ident())
        counted.wait(10)  # the loop goes on meanwhile, or this waits in vain
        yield from lines(family)

    async def count() -> None:
        await anyio.sleep(0)
        for status in range(300, 400):
            metrics.requests.inc("POST", str(status))
        counted.set()

    monkeypatch.setattr(_Family, "lines", slow_lines)
    async with anyio.create_task_group() as tg:
        tg.start_soon(count)
        page = (await metrics.scrape()).decode()
    assert counted.is_set() and writers and threading.get_ident() not in writers
    got = _samples(page)
    assert got['toolhost_http_requests_total{method="POST",status="200"}'] == 1
    assert 'status="300"' not in page and got["toolhost_sessions"] == 3
