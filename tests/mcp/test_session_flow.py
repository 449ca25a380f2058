"""A secret cut between what one session was sent is hidden where it is known
(``toolhost.mcp.session_flow``): two tool results, a log line or a progress message and a
later result, each too short to be known by alone (secrets24: the client, and the model,
joined ``s3cr3t`` and ``T0k3nX``)."""

from __future__ import annotations

import json
from collections.abc import Hashable, Mapping
from typing import Any

import anyio
import pytest

from toolhost.backends.base import CallContext
from toolhost.compile.shaping import compact_json
from toolhost.mcp import McpServer
from toolhost.mcp.session_flow import continued
from toolhost.redaction import MASK, redactor_for, remember
from toolhost.redaction.flow import Continued
from toolhost.results import ToolResult

from .mcp_testtools import make_tool

SECRET = "s3cr3tT0k3nX"  # (12 letters and digits: a half is too short to be known by)
FIRST, REST = SECRET[:6], SECRET[6:]
SCHEMA = {"type": "object", "properties": {"say": {"type": "string"},
                                           "log": {"type": "string"},
                                           "progress": {"type": "string"}}}


async def say(arguments: Mapping[str, Any], ctx: CallContext) -> ToolResult:
    if "log" in arguments:
        ctx.log.info(arguments["log"])
    if "progress" in arguments:
        await ctx.progress(1, message=arguments["progress"])
    return ToolResult.text(arguments.get("say", ""))


@pytest.fixture(autouse=True)
def _secret() -> None:
    remember({SECRET})  # (the conftest restores the process's secrets after each test)


def _session(*calls: tuple[Hashable, dict[str, Any]], redact: bool = True) -> list[Any]:
    """What each call sent (its notifications' texts, then its result's text), in order."""
    server = McpServer("demo", "1.0", [make_tool(
        "say", say, schema=SCHEMA, redact=redactor_for(frozenset({SECRET})),
        redact_results=redact)])
    sent: list[Any] = []

    async def notify(note: dict[str, Any]) -> None:
        params = note["params"]
        sent.append(params.get("data", params.get("message")))

    async def run() -> None:
        for n, (peer, arguments) in enumerate(calls, 1):
            answer = await server.handle({
                "jsonrpc": "2.0", "id": n, "method": "tools/call",
                "params": {"name": "say", "arguments": arguments,
                           "_meta": {"progressToken": n}}}, notify=notify, peer=peer)
            assert answer is not None
            sent.append(answer["result"]["content"][0]["text"])

    anyio.run(run)
    return [text for text in sent if text]


FLOWS = {
    "two results": [{"say": FIRST}, {"say": REST}],
    "a log line, then a result": [{"log": FIRST}, {"say": REST}],
    "a progress message, then a result": [{"progress": FIRST}, {"say": REST}],
    "a result, then a log line": [{"say": FIRST}, {"log": REST}],
    "a result, then a progress message": [{"say": FIRST}, {"progress": REST}],
}


@pytest.mark.parametrize("peer", ["session-1", None])
@pytest.mark.parametrize("calls", FLOWS.values(), ids=FLOWS.keys())
def test_a_secret_cut_between_two_messages_of_a_session_is_hidden(
        calls: list[dict[str, Any]], peer: Hashable) -> None:
    sent = _session(*((peer, arguments) for arguments in calls))
    assert FIRST in sent and REST not in sent and MASK in sent


def test_sessions_are_not_joined_and_other_text_is_left() -> None:
    assert _session(("a", {"say": FIRST}), ("b", {"say": REST})) == [FIRST, REST]
    assert _session(("a", {"say": "fetched 10 rows"}), ("a", {"say": "T0 done"})) \
        == ["fetched 10 rows", "T0 done"]


def test_a_tool_whose_results_are_shown_as_they_are_keeps_them() -> None:
    assert _session(("a", {"say": FIRST}), ("a", {"say": REST}), redact=False) \
        == [FIRST, REST]


def test_a_structured_results_strings_are_read_after_the_session_too() -> None:
    flow = Continued()
    assert continued(flow, ToolResult.text(FIRST)).content[0]["text"] == FIRST
    value = {"a": [REST[:3], REST[3:]]}
    shown = continued(flow, ToolResult(content=({"type": "text", "text": compact_json(value)},),
                                       structured=value))
    assert shown.structured == {"a": [MASK, MASK]}
    assert shown.content[0]["text"] == compact_json({"a": [MASK, MASK]})


CONTENT_MODULE = '''\
def read(a: str) -> str:
    return a


def prompt(who: str) -> str:
    return who
'''
CONTENT_CONFIG = """\
toolhost: 1
servers:
  kb:
    resources:
      r: {uri: "r://{a}", python: "flowcontent:read"}
    prompts:
      p: {python: "flowcontent:prompt"}
"""


@pytest.fixture(scope="module")
def content(tmp_path_factory: pytest.TempPathFactory) -> McpServer:
    from .mcp_testtools import content_server

    return content_server(tmp_path_factory.mktemp("flowcontent"), CONTENT_CONFIG,
                          {"flowcontent": CONTENT_MODULE})


@pytest.mark.parametrize(("method", "params", "text"), [
    ("resources/read", {"uri": f"r://{REST}"}, lambda r: r["contents"][0]["text"]),
    ("prompts/get", {"name": "p", "arguments": {"who": REST}},
     lambda r: r["messages"][0]["content"]["text"]),
])
def test_a_read_or_a_prompt_is_read_after_the_session_too(
        content: McpServer, method: str, params: dict[str, Any], text: Any) -> None:
    from .mcp_testtools import ask

    first = ask(content, "resources/read", {"uri": f"r://{FIRST}"}, peer=method)
    assert first["result"]["contents"][0]["text"] == FIRST
    assert text(ask(content, method, params, peer=method)["result"]) == MASK


def test_a_task_result_is_read_after_the_stateless_calls_before() -> None:
    from tests.modern import CAPABILITIES_KEY, modern_meta
    from toolhost.mcp.tasks import TASKS_EXTENSION

    server = McpServer("demo", "1.0", [make_tool(
        "say", say, schema=SCHEMA, redact=redactor_for(frozenset({SECRET})),
        task_support="optional")])

    def meta_of(task: bool) -> dict[str, Any]:
        meta = modern_meta()
        if task:
            meta[CAPABILITIES_KEY]["extensions"] = {TASKS_EXTENSION: {}}
        return meta

    async def call(n: int, text: str, task: bool) -> dict[str, Any]:
        meta = meta_of(task)
        answer = await server.handle({"jsonrpc": "2.0", "id": n, "method": "tools/call",
                                      "params": {"name": "say", "arguments": {"say": text},
                                                 "_meta": meta}})
        assert answer is not None
        return answer["result"]  # type: ignore[no-any-return]

    async def run() -> list[str]:
        first = await call(1, FIRST, task=False)
        task_id = (await call(2, REST, task=True))["taskId"]
        for n in range(2000):  # polled, never timed
            got = await server.handle({"jsonrpc": "2.0", "id": 10 + n, "method": "tasks/get",
                                       "params": {"taskId": task_id,
                                                  "_meta": meta_of(True)}})
            assert got is not None
            if got["result"]["status"] == "completed":
                return [first["content"][0]["text"],
                        got["result"]["result"]["content"][0]["text"]]
            await anyio.sleep(0.005)
        raise AssertionError("the task never completed")

    assert anyio.run(run) == [FIRST, MASK]


@pytest.mark.parametrize("shape", [
    lambda rest: {"part": rest},
    lambda rest: [{"i": 1, "v": rest[:3]}, {"i": 2, "v": rest[3:]}],
    lambda rest: {"data": {"chunk": rest}, "more": True},
])
def test_a_json_text_result_is_read_after_the_session_too(shape: Any) -> None:
    # a tool returning JSON as text (no structured content): the keys and quotes cut the
    # secret's second half from the first, which the earlier result showed
    flow = Continued()
    assert continued(flow, ToolResult.text(FIRST)).content[0]["text"] == FIRST
    text = json.dumps(shape(REST), indent=2)
    shown = continued(flow, ToolResult.text(text)).content[0]["text"]
    assert REST not in shown and REST[:3] not in shown and MASK in shown, shown
    assert type(json.loads(shown)) is type(shape(REST))  # still JSON, of the same shape


def test_a_json_text_without_the_secrets_rest_is_left_as_written() -> None:
    flow = Continued()
    continued(flow, ToolResult.text(FIRST))
    text = json.dumps({"part": "ordinary words", "n": 3}, indent=2)
    assert continued(flow, ToolResult.text(text)).content[0]["text"] == text
