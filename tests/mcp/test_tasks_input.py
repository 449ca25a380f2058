"""Questions a tool asks at once (a task group): under the stateless round trip they are
one round's ``inputRequests`` (the call used to stop with an exception group out of
``McpServer.handle``), and the repeated call with every answer completes."""

from __future__ import annotations

from typing import Any

import pytest

from tests.mcp.test_tasks import Tools, request, server_of

pytestmark = pytest.mark.anyio


async def test_questions_asked_at_once_are_one_round() -> None:
    server = server_of(Tools())
    params: dict[str, Any] = {"name": "asks", "arguments": {}}
    first = await server.handle(request("tools/call", params, tasks=False, elicitation={}))
    assert first is not None and "result" in first, first
    round1 = first["result"]
    assert round1["resultType"] == "input_required"
    assert set(round1["inputRequests"]) == {"first", "toolhost-2"}
    assert all(r["method"] == "elicitation/create" for r in round1["inputRequests"].values())
    answers = {"first": {"action": "accept", "content": {"ok": True}},
               "toolhost-2": {"action": "accept", "content": {"ok": False}}}
    second = await server.handle(request("tools/call", {
        **params, "inputResponses": answers, "requestState": round1["requestState"]},
        tasks=False, elicitation={}))
    assert second is not None and second["result"]["resultType"] == "complete", second
    assert second["result"]["content"][0]["text"] == \
        "answers [\"{'ok': False}\", \"{'ok': True}\"]"
    # one answer of two: the other is asked again, alone
    partial = await server.handle(request("tools/call", {
        **params, "inputResponses": {"first": answers["first"]}}, tasks=False,
        elicitation={}))
    assert partial is not None
    assert set(partial["result"]["inputRequests"]) == {"toolhost-2"}
