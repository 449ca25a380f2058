"""Work accepted before a graceful shutdown (a real ``toolhost serve`` over HTTP, SIGTERM)
that needs the client after new requests are refused. A task that ends within the grace is
read by a poller slower than the quiet second (``tasks/get`` is still answered for a task
kept here); one that outlives the grace is read as ``failed`` with an error saying the
server stopped it. Before, every running task was stopped right after the quiet second and
its poller got 503, then a closed port: the result was lost without a word. A call waiting
for the person's answer (``ctx.elicit``) gets it: an answer is no new request. Before, it
was refused 503 and the call cancelled at the end of the grace."""

from __future__ import annotations

import json
import signal
import time
import urllib.error
import urllib.request
from pathlib import Path
from typing import Any

import httpx
import pytest

from tests.modern import CAPABILITIES_KEY, modern_meta
from tests.serve.shutdown_serve import start_server
from toolhost.mcp.tasks import TASKS_EXTENSION

CONFIG = """\
toolhost: 1
servers:
  s:
    tools:
      nap: {python: "shutdown_tools:nap", task_support: optional}
      book: {python: "elicit_tools:book"}
permissions: {default: allow}
"""


def _post(url: str, method: str, params: dict[str, Any], name: str) -> tuple[int, Any]:
    meta = modern_meta()
    meta[CAPABILITIES_KEY]["extensions"] = {TASKS_EXTENSION: {}}
    body = {"jsonrpc": "2.0", "id": 1, "method": method, "params": {**params, "_meta": meta}}
    request = urllib.request.Request(url, json.dumps(body).encode(), {
        "content-type": "application/json", "accept": "application/json",
        "mcp-protocol-version": "2026-07-28", "mcp-method": method, "mcp-name": name})
    try:
        with urllib.request.urlopen(request, timeout=30) as answer:
            return answer.status, json.loads(answer.read())
    except urllib.error.HTTPError as exc:
        with exc:
            return exc.code, json.loads(exc.read() or b"{}")


def _start_task(url: str, seconds: float) -> str:
    status, answer = _post(url, "tools/call", {"name": "nap",
                                               "arguments": {"seconds": seconds}}, "nap")
    assert status == 200 and answer["result"]["resultType"] == "task", answer
    return str(answer["result"]["taskId"])


def _get(url: str, task_id: str) -> tuple[int, Any]:
    return _post(url, "tasks/get", {"taskId": task_id}, task_id)


@pytest.mark.parametrize(("nap", "grace", "shown"), [
    # ends within the grace: its result waits for the slow poller (3 s, the quiet second is 1)
    (2.0, 8.0, {"status": "completed", "text": "slept 2"}),
    # outlives the grace: failed, saying why, and still read
    (60.0, 2.0, {"status": "failed", "text": "outlived the 2 s grace"}),
])
def test_a_task_running_at_shutdown_is_read_by_its_poller(
        tmp_path: Path, nap: float, grace: float, shown: dict[str, str]) -> None:
    proc, url, log = start_server(tmp_path, CONFIG, grace)
    try:
        task_id = _start_task(url, nap)
        proc.send_signal(signal.SIGTERM)
        if shown["status"] == "completed":
            time.sleep(3.0)  # a slow poller: the server refuses new calls by now
            status, refused = _post(url, "tools/call", {"name": "nap",
                                                        "arguments": {"seconds": 0}}, "nap")
            assert status == 503 and "shutting down" in refused["error"]["message"], refused
            status, answer = _get(url, task_id)
        else:
            while True:  # polled at the suggested 0.5 s until it ends
                status, answer = _get(url, task_id)
                if status != 200 or answer["result"]["status"] != "working":
                    break
                time.sleep(0.5)
        assert status == 200, (status, answer, log.read_text())
        result = answer["result"]
        assert result["status"] == shown["status"], result
        said = (result["result"]["content"][0]["text"] if "result" in result
                else result["error"]["message"])
        assert shown["text"] in said, result
        proc.wait(timeout=30)  # and the server ends once the result was read
    finally:
        if proc.poll() is None:
            proc.kill()
            proc.wait()
    assert "Traceback" not in log.read_text()


def test_a_call_waiting_for_the_persons_answer_gets_it_while_new_requests_are_refused(
        tmp_path: Path) -> None:
    # refusing from 1 s after SIGTERM (a 4 s grace, 3 s kept for the calls in flight)
    proc, url, log = start_server(tmp_path, CONFIG, 4.0, TOOLHOST_SHUTDOWN_RESERVE="3")
    legacy = {"accept": "application/json, text/event-stream",
              "content-type": "application/json"}
    try:
        with httpx.Client(timeout=30) as client:
            started = client.post(url, headers=legacy, json={
                "jsonrpc": "2.0", "id": 1, "method": "initialize", "params": {
                    "protocolVersion": "2025-06-18", "capabilities": {"elicitation": {}},
                    "clientInfo": {"name": "t", "version": "1"}}})
            session = {**legacy, "mcp-session-id": started.headers["mcp-session-id"],
                       "mcp-protocol-version": "2025-06-18"}
            client.post(url, headers=session, json={
                "jsonrpc": "2.0", "method": "notifications/initialized"})
            with client.stream("POST", url, headers=session, json={
                    "jsonrpc": "2.0", "id": 2, "method": "tools/call",
                    "params": {"name": "book", "arguments": {"city": "Oslo"}}}) as call:
                events = (json.loads(line[5:]) for line in call.iter_lines()
                          if line.startswith("data:"))
                asked = next(events)
                assert asked["method"] == "elicitation/create", asked
                proc.send_signal(signal.SIGTERM)
                time.sleep(2.0)  # the person takes their time: new requests are refused now
                refused = client.post(url, headers=session, json={
                    "jsonrpc": "2.0", "id": 3, "method": "tools/list"})
                assert refused.status_code == 503, refused.text
                answered = client.post(url, headers=session, json={
                    "jsonrpc": "2.0", "id": asked["id"], "result": {
                        "action": "accept", "content": {"seat": "aisle", "nights": 2}}})
                assert answered.status_code == 202, answered.text
                final = next(events)
        assert final["id"] == 2 and "result" in final, final
        assert final["result"]["content"][0]["text"].startswith("booked Oslo"), final
        proc.wait(timeout=30)
    finally:
        if proc.poll() is None:
            proc.kill()
            proc.wait()
    assert "Traceback" not in log.read_text()


def test_a_result_whose_poller_went_elsewhere_does_not_hold_the_shutdown(
        tmp_path: Path) -> None:
    """The poller asked every 0.2 s; SIGTERM, ``/readyz`` says 503 and the balancer sends it
    to another replica: it never comes back here. Before, its unread result held the
    shutdown for the whole 60 s grace (every rollout waited it out); now the server waits
    PATIENCE_MIN (5 s) after the task's end, says the result was left unread and exits."""
    proc, url, log = start_server(tmp_path, CONFIG, 60.0)
    try:
        task_id = _start_task(url, 1.5)
        for _ in range(3):
            assert _get(url, task_id)[1]["result"]["status"] == "working"
            time.sleep(0.2)
        proc.send_signal(signal.SIGTERM)
        # far less than the grace: 1.5 s to end, 5 s of patience, the quiet second
        assert proc.wait(timeout=40) in (0, -signal.SIGTERM), log.read_text()
    finally:
        if proc.poll() is None:
            proc.kill()
            proc.wait()
    text = log.read_text()
    assert "1 task result(s) left unread: their pollers stopped asking" in text, text
    assert "Traceback" not in text
