"""SIGTERM loses no accepted call (a real ``toolhost serve`` over HTTP): a call accepted
during the grace is answered; one that outlives the grace is cancelled and answered -32800;
once the server refuses new requests it says so (503, a JSON-RPC error); none gets a closed
connection without an answer."""

from __future__ import annotations

import json
import signal
import threading
import time
import urllib.error
import urllib.request
from pathlib import Path
from typing import Any

import pytest

from tests.modern import modern_meta
from tests.serve.shutdown_serve import start_server

CONFIG = """\
toolhost: 1
servers:
  s:
    tools:
      nap: {python: "shutdown_tools:nap"}
      doze: {python: "shutdown_tools:doze"}
permissions: {default: allow}
"""


def _call(url: str, tool: str, seconds: float) -> tuple[float, Any]:
    """(when it ended, relative to the epoch, and (status, answer) or the exception)."""
    body = {"jsonrpc": "2.0", "id": 1, "method": "tools/call", "params": {
        "name": tool, "arguments": {"seconds": seconds},
        "_meta": modern_meta()}}
    request = urllib.request.Request(url, json.dumps(body).encode(), {
        "content-type": "application/json", "accept": "application/json",
        "mcp-protocol-version": "2026-07-28", "mcp-method": "tools/call", "mcp-name": tool})
    try:
        with urllib.request.urlopen(request, timeout=60) as answer:
            return time.time(), (answer.status, json.loads(answer.read()))
    except urllib.error.HTTPError as exc:
        with exc:
            return time.time(), (exc.code, json.loads(exc.read() or b"{}"))
    except Exception as exc:  # what the client saw is the result
        return time.time(), exc


def _answered(outcome: Any) -> str:
    """ok, cancelled or refused: a clean answer; anything else fails."""
    assert not isinstance(outcome, Exception), f"no answer: {outcome!r}"
    status, answer = outcome
    if status == 200 and "result" in answer:
        assert answer["result"]["isError"] is False, answer
        return "ok"
    if status == 503:
        assert answer["error"]["message"].startswith("Server shutting down"), answer
        return "refused"
    assert answer["error"]["code"] == -32800 and "grace" in answer["error"]["message"], answer
    return "cancelled"


# (grace, [(delay after SIGTERM, tool, seconds) ...], what each must be; "any" = any clean)
CASES = {
    "late call, idle server": (10, [(0.3, "nap", 1.5)], ["ok"]),
    "late call, threaded tool": (10, [(0.3, "doze", 1.5)], ["ok"]),
    # SIGHUP (a closed terminal) stops as gracefully as SIGTERM (it killed the process)
    "in flight, then a late call, SIGHUP": (10, [(-0.5, "nap", 1.5), (1.2, "nap", 2)],
                                            ["ok", "any"]),
    "outlives the grace": (1.5, [(-0.5, "nap", 30)], ["cancelled"]),
    "threaded, outlives the grace": (1.5, [(-0.5, "doze", 30)], ["cancelled"]),
    "late, outlives the grace": (1.5, [(0.3, "nap", 30)], ["cancelled"]),
}


@pytest.mark.parametrize("case", sorted(CASES))
def test_no_accepted_call_is_cut_off(tmp_path: Path, case: str) -> None:
    grace, calls, expected = CASES[case]
    proc, url, log = start_server(tmp_path, CONFIG, grace)
    outcomes: dict[int, tuple[float, Any]] = {}
    threads = []
    try:
        start = time.time()
        signalled = start + 0.5

        def later(index: int, delay: float, tool: str, seconds: float) -> None:
            time.sleep(max(0.0, signalled + delay - time.time()))
            outcomes[index] = _call(url, tool, seconds)

        for index, (delay, tool, seconds) in enumerate(calls):
            thread = threading.Thread(target=later, args=(index, delay, tool, seconds))
            thread.start()
            threads.append(thread)
        time.sleep(max(0.0, signalled - time.time()))
        proc.send_signal(signal.SIGHUP if "SIGHUP" in case else signal.SIGTERM)
        for thread in threads:
            thread.join(60)
        proc.wait(30)
    finally:
        if proc.poll() is None:
            proc.kill()
            proc.wait()
    for index, want in enumerate(expected):
        ended, outcome = outcomes[index]
        got = _answered(outcome)
        assert want in ("any", got), (case, index, got, log.read_text())
        assert ended <= signalled + grace + 2.5, (case, index, ended - signalled)
    assert "Traceback" not in log.read_text()


def test_refused_requests_say_so(tmp_path: Path) -> None:
    proc, url, _log = start_server(tmp_path, CONFIG, 10)
    try:
        running = threading.Thread(target=_call, args=(url, "nap", 4))
        running.start()
        time.sleep(0.3)
        proc.send_signal(signal.SIGTERM)
        time.sleep(2.0)  # past the quiet second? no: a call is in flight, still accepting
        _ended, outcome = _call(url, "nap", 0.1)
        assert _answered(outcome) == "ok"
        running.join(30)
        time.sleep(1.5)  # nothing in flight for a second: new requests are refused now
        _ended, outcome = _call(url, "nap", 0.1)
        assert isinstance(outcome, Exception) or _answered(outcome) == "refused", outcome
        proc.wait(30)
    finally:
        if proc.poll() is None:
            proc.kill()
            proc.wait()
