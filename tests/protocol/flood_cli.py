#!/usr/bin/env python3
"""A fake Claude CLI that floods its host with control messages (run by ``toolhost run --cli``).

It answers ``initialize``, reads the user turn, then writes hundreds of interleaved control
requests (tools/call that are quick, slow, failing, cancelled or aimed at unknown servers and
tools; can_use_tool that the config allows, denies or rewrites; notifications/initialized;
unknown subtypes), garbage lines, a 10 MB line, ``control_cancel_request`` and
``notifications/cancelled``, all in uneven chunks that split lines across writes. It checks
that every request was answered exactly once with the right answer, that withdrawn requests
got none, and that the host still serves afterwards. The verdict goes to ``$FLOOD_REPORT``
(JSON) and, as the ``result`` message, to the host, which ends the run.

Server ``bb`` of the config must have the tools of ``flood_tools.py``; the permission rules
must deny ``mcp__bb__secret`` (message ``no secrets``) and rewrite ``mcp__bb__shout`` input
to ``{"word": "REWRITTEN"}``.
"""

from __future__ import annotations

import json
import os
import random
import sys
import threading
import time
from collections.abc import Callable
from typing import Any

Check = Callable[[dict[str, Any] | None], str | None]  # the answer (None: none came) -> problem

_out = sys.stdout.buffer
_lock = threading.Lock()
_answers: dict[str, list[dict[str, Any]]] = {}
_arrived = threading.Condition()
_turn: list[dict[str, Any]] = []
_eof = threading.Event()


def write(data: bytes) -> None:
    with _lock:
        _out.write(data)
        _out.flush()


def line(obj: Any) -> bytes:
    return json.dumps(obj).encode() + b"\n"


def reader() -> None:
    """Collect control responses; ack the host's own requests (progress notifications)."""
    for raw in sys.stdin.buffer:
        msg = json.loads(raw)
        kind = msg.get("type")
        if kind == "control_response":
            response = msg["response"]
            with _arrived:
                _answers.setdefault(response["request_id"], []).append(response)
                _arrived.notify_all()
        elif kind == "control_request":
            request = msg["request"]
            answer: dict[str, Any] = {}
            if request.get("subtype") == "initialize":
                answer = {"commands": [], "models": [], "claude_code_version": "fake"}
            write(line({"type": "control_response", "response": {
                "subtype": "success", "request_id": msg["request_id"], "response": answer}}))
        elif kind == "user":
            with _arrived:
                _turn.append(msg)
                _arrived.notify_all()
    _eof.set()


def wait_for(condition: Callable[[], bool], timeout: float) -> bool:
    deadline = time.monotonic() + timeout
    with _arrived:
        while not condition():
            left = deadline - time.monotonic()
            if left <= 0:
                return False
            _arrived.wait(left)
    return True


class Plan:
    def __init__(self) -> None:
        self.lines: list[bytes] = []
        self.checks: dict[str, Check] = {}
        self.silent: set[str] = set()  # withdrawn: must get no answer
        self._rpc = 1000

    def request(self, rid: str, request: dict[str, Any], check: Check | None) -> None:
        self.lines.append(line({"type": "control_request", "request_id": rid,
                                "request": request}))
        if check is None:
            self.silent.add(rid)
        else:
            self.checks[rid] = check

    def call(self, rid: str, tool: str, arguments: Any, check: Check, *,
             server: str = "bb") -> int:
        self._rpc += 1
        self.request(rid, {"subtype": "mcp_message", "server_name": server, "message": {
            "jsonrpc": "2.0", "id": self._rpc, "method": "tools/call",
            "params": {"name": tool, "arguments": arguments,
                       "_meta": {"claudecode/toolUseId": f"toolu_{rid}",
                                 "progressToken": self._rpc}}}}, check)
        return self._rpc


def mcp(answer: dict[str, Any] | None, rpc_id: int) -> dict[str, Any]:
    assert answer is not None and answer["subtype"] == "success", answer
    out = answer["response"]["mcp_response"]
    assert out["id"] == rpc_id, f"JSON-RPC id {out.get('id')!r} != {rpc_id}"
    return dict(out)


def expect_text(rpc_id: Callable[[], int], text: str, is_error: bool = False) -> Check:
    def check(answer: dict[str, Any] | None) -> str | None:
        result = mcp(answer, rpc_id())["result"]
        got = (result["content"][0]["text"], result["isError"])
        return None if got == (text, is_error) else f"got {str(got)[:200]}"
    return check


def expect_error(rpc_id: Callable[[], int], code: int) -> Check:
    def check(answer: dict[str, Any] | None) -> str | None:
        error = mcp(answer, rpc_id()).get("error") or {}
        return None if error.get("code") == code else f"got {error}"
    return check


def expect(predicate: Callable[[dict[str, Any]], bool]) -> Check:
    def check(answer: dict[str, Any] | None) -> str | None:
        return None if answer is not None and predicate(answer) else f"got {answer}"
    return check


def expect_fields(want: dict[str, Any]) -> Check:
    return expect(lambda a: a["subtype"] == "success"
                  and {k: a["response"].get(k) for k in want} == want)


def expect_refusal(text: str) -> Check:
    return expect(lambda a: a["subtype"] == "error" and text in a["error"])


def expect_is_error(rpc_id: Callable[[], int]) -> Check:
    return expect(lambda a: bool(mcp(a, rpc_id())["result"]["isError"]))


ACK = {"mcp_response": {"jsonrpc": "2.0", "result": {}}}


def build(rng: random.Random) -> tuple[Plan, list[bytes]]:
    plan = Plan()
    later: list[bytes] = []  # cancellations, sent once their targets are surely running
    for i in range(520):
        rid = f"r{i}"
        kind = i % 13
        ids: list[int] = []

        def rpc(ids: list[int] = ids) -> int:  # the id is known once the call is planned
            return ids[0]
        if kind in (0, 1, 2):
            ids.append(plan.call(rid, "echo", {"text": f"e{i}"}, expect_text(rpc, f"e{i}")))
        elif kind == 3:
            ids.append(plan.call(rid, "slow", {"seconds": rng.random() / 20, "label": f"s{i}"},
                                 expect_text(rpc, f"slow s{i}")))
        elif kind == 4:
            ids.append(plan.call(rid, "boom", {"reason": f"b{i}"}, expect_text(
                rpc, f"Tool 'boom' failed: RuntimeError: boom: b{i}", is_error=True)))
        elif kind == 5:
            ids.append(plan.call(rid, "nope", {}, expect_error(rpc, -32602)))
        elif kind == 6:
            ids.append(plan.call(rid, "echo", {"text": "x"}, expect_error(rpc, -32601),
                                 server="ghost"))
        elif kind == 7:
            choices: list[tuple[str, dict[str, Any], dict[str, Any]]] = [
                ("mcp__bb__echo", {"text": f"p{i}"}, {"behavior": "allow",
                                                      "updatedInput": {"text": f"p{i}"}}),
                ("mcp__bb__secret", {"key": f"k{i}"}, {"behavior": "deny",
                                                       "message": "no secrets"}),
                ("mcp__bb__shout", {"word": f"w{i}"}, {"behavior": "allow",
                                                       "updatedInput": {"word": "REWRITTEN"}}),
            ]
            tool, tool_input, want = choices[i % 3]
            plan.request(rid, {"subtype": "can_use_tool", "tool_name": tool, "input": tool_input,
                               "tool_use_id": f"toolu_{rid}"},
                         expect_fields(want))
        elif kind == 8:
            plan.request(rid, {"subtype": "mcp_message", "server_name": "bb", "message": {
                "jsonrpc": "2.0", "method": "notifications/initialized"}},
                expect(lambda a: a["subtype"] == "success" and a["response"] == ACK))
        elif kind == 9:
            plan.request(rid, {"subtype": f"made_up_{i}", "x": 1},
                         expect_refusal(f"made_up_{i}"))
        elif kind == 10:  # cancelled by notifications/cancelled: answered -32800
            ids.append(plan.call(rid, "hang", {}, expect_error(rpc, -32800)))
            cancel = line({"type": "control_request", "request_id": f"{rid}-cancel",
                           "request": {"subtype": "mcp_message", "server_name": "bb",
                                       "message": {"jsonrpc": "2.0",
                                                   "method": "notifications/cancelled",
                                                   "params": {"requestId": ids[0],
                                                              "reason": "flood"}}}})
            plan.checks[f"{rid}-cancel"] = expect(lambda a: a["response"] == ACK)
            if i % 2:  # right behind its call, in the same write
                plan.lines[-1] += cancel
            else:
                later.append(cancel)
        elif kind == 11:  # withdrawn by control_cancel_request: no answer
            plan.call(rid, "hang", {}, lambda a: None)
            del plan.checks[rid]
            plan.silent.add(rid)
            cancel = line({"type": "control_cancel_request", "request_id": rid})
            if i % 2:
                plan.lines[-1] += cancel
            else:
                later.append(cancel)
        else:
            ids.append(plan.call(rid, "echo", {"text": f"t{i}", "times": "two"},
                                 expect_is_error(rpc)))
    plan.lines += [b"{not json", b"[1, 2]", b'"text"', b"null", b"\xff\xfe",
                   b'{"type": "control_request"}', b'{"type": "control_response"}',
                   b'{"type": "control_cancel_request", "request_id": "never-sent"}',
                   b'{"type": "system", "subtype": "something_new"}', b"   "]
    big = "x" * (10 * 1024 * 1024)
    rpc_big = plan.call("big", "size", {"text": big}, lambda a: None)
    plan.checks["big"] = expect_text(lambda: rpc_big, str(len(big)))
    head, tail = plan.lines[:5], plan.lines[5:]
    rng.shuffle(tail)
    plan.lines = head + tail
    return plan, later


def send_chunked(data: bytes, rng: random.Random) -> None:
    # One lock for the whole burst: the reader's acks must not land inside a split line.
    with _lock:
        pos = 0
        while pos < len(data):
            size = rng.choice((1, 7, 300, 4096, 65536, 1 << 20))
            _out.write(data[pos:pos + size])
            _out.flush()
            pos += size


def main() -> int:
    rng = random.Random(int(os.environ.get("FLOOD_SEED", "7")))
    threading.Thread(target=reader, daemon=True).start()
    if not wait_for(lambda: bool(_turn), 30):
        return 2
    plan, later = build(rng)
    send_chunked(b"".join(x if x.endswith(b"\n") else x + b"\n" for x in plan.lines), rng)
    # The hang calls are running once every other answer is in; then cancel them.
    waiting = {rid for rid in plan.checks if rid.endswith("-cancel")}
    waiting |= {rid.removesuffix("-cancel") for rid in waiting}
    wait_for(lambda: all(rid in _answers for rid in plan.checks
                         if rid not in waiting), 60)
    send_chunked(b"".join(later), rng)
    wait_for(lambda: all(rid in _answers for rid in plan.checks), 60)
    time.sleep(0.3)  # anything late (a second answer, an answer to a withdrawn request)
    problems: list[str] = []
    with _arrived:
        answers = {rid: list(got) for rid, got in _answers.items()}
    for rid, check in plan.checks.items():
        got = answers.pop(rid, [])
        if len(got) != 1:
            problems.append(f"{rid}: {len(got)} answers")
            continue
        try:
            problem = check(got[0])
        except (AssertionError, KeyError, IndexError, TypeError) as exc:
            problem = f"{type(exc).__name__}: {exc}"
        if problem:
            problems.append(f"{rid}: {problem}")
    for rid in plan.silent:
        if answers.pop(rid, None):
            problems.append(f"{rid}: answered although withdrawn")
    for rid in sorted(answers):
        problems.append(f"{rid}: unexpected answer")
    # Still serving afterwards.
    after = Plan()
    rpc_after = after.call("after", "echo", {"text": "still here"}, lambda a: None)
    write(after.lines[0])
    if not wait_for(lambda: "after" in _answers, 30):
        problems.append("no answer after the flood")
    elif expect_text(lambda: rpc_after, "still here")(_answers["after"][0]):
        problems.append(f"wrong answer after the flood: {_answers['after'][0]}")
    report = {"requests": len(plan.checks) + len(plan.silent), "problems": problems}
    path = os.environ.get("FLOOD_REPORT")
    if path:
        with open(path, "w") as f:
            json.dump(report, f)
    subtype = "error_during_execution" if problems else "success"
    write(line({"type": "result", "subtype": subtype,
                "is_error": bool(problems), "num_turns": 1, "duration_ms": 1,
                "total_cost_usd": 0, "result": f"{len(problems)} problems",
                "session_id": "flood"}))
    _eof.wait(60)  # the host closes our input once it has the result
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
