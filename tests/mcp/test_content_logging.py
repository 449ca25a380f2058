"""A python function behind a resource, a prompt or a completion logs as a tool does:
``ctx.log("warning", ...)`` works (it was a plain ``Logger``, so that form raised TypeError
and failed the read), and its lines reach the client as ``notifications/message`` under the
method's name, at the level the client asked for, before the answer."""

from __future__ import annotations

from typing import Any

import anyio
import pytest

from toolhost.mcp import McpServer

from .mcp_testtools import MODERN_META, content_server

MODULE = '''\
from toolhost.backends.base import CallContext


def read(a: str, *, ctx: CallContext) -> str:
    ctx.log.debug("debug %s", a)
    ctx.log("warning", "read %s", a)
    return "ok " + a


def prompt(who: str, *, ctx: CallContext) -> str:
    ctx.log("notice", "prompt for " + who)
    return "hi " + who


def values(value: str, *, ctx: CallContext) -> list[str]:
    ctx.log("info", "completing %r", value)
    return ["x1", "x2"]
'''
CONFIG = """\
toolhost: 1
servers:
  kb:
    resources:
      l: {uri: "l://{a}", python: "contentlog:read", complete: {a: "contentlog:values"}}
    prompts:
      p: {python: "contentlog:prompt"}
"""


@pytest.fixture(scope="module")
def server(tmp_path_factory: pytest.TempPathFactory) -> McpServer:
    return content_server(tmp_path_factory.mktemp("contentlog"), CONFIG, {"contentlog": MODULE})


@pytest.mark.parametrize(("level", "method", "params", "lines"), [
    ("info", "resources/read", {"uri": "l://q"}, [("warning", "read q")]),
    ("debug", "resources/read", {"uri": "l://q"}, [("debug", "debug q"), ("warning", "read q")]),
    ("error", "resources/read", {"uri": "l://q"}, []),
    ("info", "prompts/get", {"name": "p", "arguments": {"who": "ann"}},
     [("notice", "prompt for ann")]),
    ("info", "completion/complete", {"ref": {"type": "ref/resource", "uri": "l://{a}"},
                                     "argument": {"name": "a", "value": "x"}},
     [("info", "completing 'x'")]),
])
def test_a_content_function_logs_to_the_client(server: McpServer, level: str, method: str,
                                               params: dict[str, Any],
                                               lines: list[tuple[str, str]]) -> None:
    sent: list[dict[str, Any]] = []

    async def notify(message: dict[str, Any]) -> None:
        sent.append(message)

    async def go() -> dict[str, Any]:
        peer = object()
        await server.handle({"jsonrpc": "2.0", "id": 0, "method": "logging/setLevel",
                             "params": {"level": level}}, peer=peer)
        answer = await server.handle({"jsonrpc": "2.0", "id": 1, "method": method,
                                      "params": params}, notify=notify, peer=peer)
        assert answer is not None
        return answer
    answer = anyio.run(go)
    assert "result" in answer, answer
    assert [(m["params"]["level"], m["params"]["data"]) for m in sent] == lines
    assert all(m["params"]["logger"] == method for m in sent)


def test_a_prompt_function_can_ask_the_person(tmp_path_factory: pytest.TempPathFactory
                                              ) -> None:
    from toolhost.mcp.client_requests import ClientChannel, Pending, client_channel

    server = content_server(
        tmp_path_factory.mktemp("contentask"),
        "toolhost: 1\nservers:\n  kb:\n    prompts:\n      p: {python: \"contentask:ask\"}\n",
        {"contentask": "from toolhost.backends.base import CallContext\n\n\n"
         "async def ask(*, ctx: CallContext) -> str:\n"
         "    got = await ctx.elicit('Which team?', {'type': 'object', 'properties':"
         " {'team': {'type': 'string'}}})\n"
         "    return 'brief for ' + got.content['team']\n"})
    pending = Pending()

    async def send(message: dict[str, Any]) -> None:
        assert message["method"] == "elicitation/create"
        pending.resolve({"jsonrpc": "2.0", "id": message["id"],
                         "result": {"action": "accept", "content": {"team": "red"}}})

    async def go() -> dict[str, Any]:
        with client_channel(ClientChannel({"elicitation": {}}, send, pending)):
            answer = await server.handle({"jsonrpc": "2.0", "id": 1, "method": "prompts/get",
                                          "params": {"name": "p"}})
        assert answer is not None
        return answer
    answer = anyio.run(go)
    assert answer["result"]["messages"][0]["content"]["text"] == "brief for red", answer


PROGRESS = '''\
from toolhost.backends.base import CallContext


async def read(a: str, *, ctx: CallContext) -> str:
    await ctx.progress(1, 2, "reading " + a)
    return "ok " + a


async def prompt(*, ctx: CallContext) -> str:
    await ctx.progress(0.5)
    return "hi"


async def values(value: str, *, ctx: CallContext) -> list[str]:
    await ctx.progress(3)
    return ["x1"]
'''


@pytest.fixture(scope="module")
def progressing(tmp_path_factory: pytest.TempPathFactory) -> McpServer:
    return content_server(tmp_path_factory.mktemp("contentprogress"),
                          CONFIG.replace("contentlog", "contentprogress"),
                          {"contentprogress": PROGRESS})


@pytest.mark.parametrize(("method", "params", "shown"), [
    ("resources/read", {"uri": "l://q"}, {"progress": 1, "total": 2, "message": "reading q"}),
    ("prompts/get", {"name": "p"}, {"progress": 0.5}),
    ("completion/complete", {"ref": {"type": "ref/resource", "uri": "l://{a}"},
                             "argument": {"name": "a", "value": "x"}}, {"progress": 3}),
])
@pytest.mark.parametrize("token", ["tok-1", 7, 2.5, None])
def test_a_content_function_reports_progress_when_asked(
        progressing: McpServer, method: str, params: dict[str, Any],
        shown: dict[str, Any], token: Any) -> None:
    server = progressing
    sent: list[dict[str, Any]] = []

    async def notify(message: dict[str, Any]) -> None:
        sent.append(message)

    async def go() -> dict[str, Any]:
        meta = {} if token is None else {"_meta": {"progressToken": token}}
        answer = await server.handle({"jsonrpc": "2.0", "id": 1, "method": method,
                                      "params": {**params, **meta}}, notify=notify)
        assert answer is not None
        return answer
    assert "result" in anyio.run(go)
    progress = [m["params"] for m in sent if m["method"] == "notifications/progress"]
    assert progress == ([] if token is None else [{"progressToken": token, **shown}])


@pytest.fixture(scope="module")
def unheard(tmp_path_factory: pytest.TempPathFactory) -> McpServer:
    config = CONFIG.replace("    prompts:", "    tools:\n      t: {python: \"contentlog:read\"}"
                                           "\n    prompts:").replace("contentlog", "unheard")
    return content_server(tmp_path_factory.mktemp("contentunheard"), config,
                          {"unheard": MODULE})


@pytest.mark.parametrize("era", ["modern, no logLevel", "legacy, nobody to notify"])
@pytest.mark.parametrize(("method", "params", "said"), [
    ("resources/read", {"uri": "l://q"}, "read q"),
    ("prompts/get", {"name": "p", "arguments": {"who": "ann"}}, "prompt for ann"),
    ("completion/complete", {"ref": {"type": "ref/resource", "uri": "l://{a}"},
                             "argument": {"name": "a", "value": "x"}}, "completing 'x'"),
    ("tools/call", {"name": "t", "arguments": {"a": "q"}}, "read q"),
])
def test_ctx_log_called_with_a_level_works_where_no_client_hears_it(
        unheard: McpServer, era: str, method: str, params: dict[str, Any], said: str,
        caplog: pytest.LogCaptureFixture) -> None:
    """``ctx.log("warning", ...)`` is documented for every python function; where no client
    hears the call (a 2026-07-28 request without ``_meta`` logLevel, the official client's
    default; ``toolhost run``; an isolated worker) ``ctx.log`` was a plain ``Logger``, so the
    call failed with "TypeError: 'Logger' object is not callable"."""
    sent: list[dict[str, Any]] = []

    async def notify(message: dict[str, Any]) -> None:
        sent.append(message)

    async def go() -> dict[str, Any]:
        if era.startswith("modern"):
            answer = await unheard.handle({"jsonrpc": "2.0", "id": 1, "method": method,
                                           "params": {**params, "_meta": MODERN_META}},
                                          notify=notify, peer=object())
        else:
            answer = await unheard.handle({"jsonrpc": "2.0", "id": 1, "method": method,
                                           "params": params})
        assert answer is not None
        return answer
    with caplog.at_level("INFO", logger="toolhost.call"):
        answer = anyio.run(go)
    assert "result" in answer, answer
    assert not answer["result"].get("isError"), answer
    assert sent == []  # nobody asked to hear it
    assert said in [r.getMessage() for r in caplog.records]  # still in toolhost's own log


def test_the_default_call_context_log_takes_an_mcp_level() -> None:
    """The context an isolated worker builds (``CallContext()``'s defaults) logs with
    ``ctx.log("notice", ...)`` too: an MCP level name, a Python number, an unknown name as
    info."""
    import logging

    from toolhost.backends.base import CallContext

    seen: list[tuple[int, str]] = []

    class Keep(logging.Handler):
        def emit(self, record: logging.LogRecord) -> None:
            seen.append((record.levelno, record.getMessage()))

    logger = logging.getLogger("toolhost.call")
    keep, was = Keep(), logger.level
    logger.addHandler(keep)
    logger.setLevel(logging.DEBUG)
    try:
        ctx = CallContext()
        ctx.log("notice", "n %d", 1)
        ctx.log("ERROR", "e")
        ctx.log(logging.DEBUG, "d")
        ctx.log("loud", "u")
        ctx.log.warning("w")
    finally:
        logger.removeHandler(keep)
        logger.setLevel(was)
    assert seen == [(logging.INFO, "n 1"), (logging.ERROR, "e"), (logging.DEBUG, "d"),
                    (logging.INFO, "u"), (logging.WARNING, "w")]
