"""An upstream's ``elicitation/create`` passed on to toolhost's client (``mcp: {elicitation:
pass}``; toolhost.gateway.elicit_pass): only during a call toolhost made to it, to that call's
client when it declared elicitation, bounded, withdrawn when the call ends; everything else
answered with the error the specification names (-32601), and the rest of the call goes on.

In-process: the compiled tool is called inside a real client channel (the one ``serve`` opens
around each request of a 2025-era client) whose client is this test; the upstreams are real
processes (the hostile raw JSON-RPC one, over stdio and over Streamable HTTP)."""

from __future__ import annotations

import contextlib
import contextvars
import json
import os
import sys
from collections.abc import Mapping
from pathlib import Path
from typing import Any

import anyio
import pytest

from toolhost.backends.base import CallContext
from toolhost.mcp.client_requests import ClientChannel, Pending, client_channel
from toolhost.visible import visible

from .conftest import HOSTILE, http_upstream

pytestmark = pytest.mark.anyio


def config(tmp_path: Path, mcp: str, elicitation: str = "pass") -> Path:
    path = tmp_path / "up.yaml"
    path.write_text(f"""\
toolhost: 1
servers:
  h:
    mcp: {{{mcp}, elicitation: {elicitation}, timeout: 20s, connect_timeout: 20s}}
permissions:
  default: allow
""")
    return path


class Person:
    """The client's person: answers each elicitation/create with ``answer`` (None: never)."""

    def __init__(self, answer: Mapping[str, Any] | None, capabilities: Any = None) -> None:
        self.answer, self.asked, self.cancelled = answer, list[Any](), list[Any]()
        self.pending = Pending()
        self.channel = ClientChannel(
            {"elicitation": {}} if capabilities is None else capabilities, self.send,
            self.pending)

    async def send(self, message: dict[str, Any]) -> None:
        if message.get("method") == "notifications/cancelled":
            self.cancelled.append(message["params"])
            return
        self.asked.append(message["params"])
        if self.answer is not None:
            self.pending.resolve({"jsonrpc": "2.0", "id": message["id"],
                                  "result": dict(self.answer)})


async def call(tool: Any, person: Person | None, **arguments: Any) -> dict[str, Any]:
    if person is None:  # `run`: no channel to a client
        result = await tool.call(arguments, CallContext())
    else:
        with client_channel(person.channel):
            result = await tool.call(arguments, CallContext())
    text = result.to_mcp()["content"][0]["text"]
    assert not result.is_error, text
    return dict(json.loads(text))


ACCEPT = {"action": "accept", "content": {"name": "Ada"}}


async def test_stdio_upstream_asks_the_person_of_its_call(tmp_path: Path) -> None:
    from toolhost.compile import compile_tools
    from toolhost.config import load_config

    log = tmp_path / "late.jsonl"
    loaded = load_config(config(tmp_path, f"command: [{sys.executable}, {HOSTILE}], env: "
                                "{HOSTILE_MODE: elicit, HOSTILE_LATE: " + str(log) + "}"),
                         environ=dict(os.environ), layers=False)
    async with compile_tools(loaded) as compiled:
        tool = compiled.tool("h", "echo")
        person = Person(ACCEPT)
        said = await call(tool, person, text="Your name?", late=True)
        # the capability was declared upstream; the question reached the person as asked,
        # the answer reached the upstream
        assert said["declared"].get("elicitation") is not None
        assert person.asked == [{"message": "upstream server 'h' asks: Your name?",
                                 "requestedSchema": {
            "type": "object", "properties": {"name": {"type": "string"}}}}]
        assert said["answers"] == [ACCEPT]
        # asked again once the call had ended: not passed on (no call of ours runs)
        with anyio.fail_after(20):
            while not log.exists() or not log.read_text():
                await anyio.sleep(0.05)
        late = json.loads(log.read_text())
        assert late["code"] == -32601 and "only while a call" in late["message"], late
        assert len(person.asked) == 1

        declined = await call(tool, Person({"action": "decline"}), text="Sure?")
        assert declined["answers"] == [{"action": "decline"}]

        refusals: list[tuple[Person | None, dict[str, Any], int, str]] = [
            (Person(ACCEPT, capabilities={}), {}, -32601,
             "did not declare the elicitation capability"),
            (None, {}, -32601, "the Claude CLI under `toolhost run` has no such request"),
            (Person(ACCEPT), {"mode": "url"}, -32601,
             "did not declare url mode elicitation"),
            (Person(ACCEPT), {"text": "x" * 2001}, -32602, "at most 2,000 characters"),
            (Person(ACCEPT), {"schema": {"type": "object", "properties": {"a": {
                "type": "object"}}}}, -32602, "cannot be elicited"),
            # the person's answer must fit what was asked: never passed on as data
            (Person({"action": "accept", "content": {"name": 5}}), {}, -32603,
             "do not fit the schema"),
        ]
        for person_, extra, code, words in refusals:
            said = await call(tool, person_, **{"text": "Your name?", **extra})
            got = said["answers"][0]
            assert got["code"] == code and words in got["message"], (extra, got)
            if person_ is not None and code != -32603:  # refused before anyone is asked
                assert not person_.asked, extra

        # bounded per call: eight questions, the ninth refused; the call is still answered
        many = await call(tool, Person(ACCEPT), text="Again?", times=9)
        assert many["answers"][:8] == [ACCEPT] * 8
        assert many["answers"][8]["code"] == -32602 and "at most 8" in \
            many["answers"][8]["message"]


async def test_a_question_left_open_is_withdrawn_when_the_call_ends(tmp_path: Path) -> None:
    from toolhost.compile import compile_tools
    from toolhost.config import load_config

    loaded = load_config(config(tmp_path, f"command: [{sys.executable}, {HOSTILE}], env: "
                                "{HOSTILE_MODE: elicit}"),
                         environ=dict(os.environ), layers=False)
    async with compile_tools(loaded) as compiled:
        tool = compiled.tool("h", "echo")
        person = Person(None)  # never answers
        with client_channel(person.channel):
            async with anyio.create_task_group() as tasks:
                tasks.start_soon(tool.call, {"text": "Still there?"}, CallContext())
                with anyio.fail_after(20):
                    while not person.asked:
                        await anyio.sleep(0.02)
                tasks.cancel_scope.cancel()  # the client cancels its call
        with anyio.fail_after(10):
            while not person.cancelled:
                await anyio.sleep(0.02)
        assert len(person.pending) == 0
        # the connection is still sound: the next call asks and is answered
        assert (await call(tool, Person(ACCEPT), text="Now?"))["answers"] == [ACCEPT]


async def test_http_upstream_asks_and_unopted_upstream_is_refused(tmp_path: Path) -> None:
    from toolhost.compile import compile_tools
    from toolhost.config import load_config

    with http_upstream(HOSTILE, HOSTILE_MODE="elicit") as port:
        url = f"url: 'http://127.0.0.1:{port}/mcp'"
        for opted, expect in (("true", [ACCEPT]), ("refuse", None)):  # true reads as pass
            loaded = load_config(config(tmp_path, url, opted), environ=dict(os.environ),
                                 layers=False)
            async with compile_tools(loaded) as compiled:
                person = Person(ACCEPT)
                said = await call(compiled.tool("h", "echo"), person, text="Your name?")
            if expect is not None:
                assert said["answers"] == expect and len(person.asked) == 1
            else:  # not opted in: not declared, never asked, answered as before
                assert not person.asked
                assert said["answers"][0]["code"] == -32601


async def test_a_question_goes_only_to_the_call_it_belongs_to() -> None:
    """Routing (CallAsks.whose): the call whose task dispatches it (a 2026-07-28 call's
    embedded request), else the only call under way; none or several: refused."""
    from toolhost.gateway.elicit_pass import Asker, CallAsks, Refused

    calls = CallAsks()
    mine, other = Asker(None, 5), Asker(None, 5)

    def refused() -> str:
        with pytest.raises(Refused) as caught:
            calls.whose()
        assert caught.value.code == -32601
        return str(caught.value)

    assert "only while a call" in refused()
    with calls.running(mine):
        assert calls.whose() is mine
        seen: list[Any] = []

        async def elsewhere() -> None:  # another call's task: its own, though two run
            with calls.running(other):
                seen.append(calls.whose())
                # dispatched outside any call's task (a 2025-era request): two run, refused
                seen.append(contextvars.Context().run(calls.whose))

        with pytest.raises(Refused, match="several calls"):
            await elsewhere()
        assert seen == [other]
        assert calls.whose() is mine  # the other one ended
    with calls.running(None):  # a call that came from no MCP client
        assert "came from no MCP client" in refused()
    assert "only while a call" in refused()


SURROGATES = {
    "value": ({"name": "A\ud800"}, "the value at name holds a lone surrogate (\\ud800)"),
    "low": ({"name": "\udfff tail"}, "the value at name holds a lone surrogate (\\udfff)"),
}


@pytest.mark.parametrize("kind", ["stdio", "http"])
@pytest.mark.parametrize(("content", "said"), list(SURROGATES.values()), ids=list(SURROGATES))
async def test_a_lone_surrogate_in_the_persons_answer_is_refused_and_the_upstream_kept(
        tmp_path: Path, kind: str, content: dict[str, Any], said: str) -> None:
    """A raw JSON-RPC client may answer ``"\\ud800"`` (JSON Python reads as text): writing it
    upstream failed the whole connection, and a stdio upstream was started again. The
    upstream is answered an error naming the place; the same connection serves on."""
    from toolhost.compile import compile_tools
    from toolhost.config import load_config

    log = tmp_path / "log"
    env = {"HOSTILE_MODE": "elicit", "HOSTILE_LOG": str(log)}
    with contextlib.ExitStack() as stack:
        if kind == "stdio":
            mcp = (f"command: [{sys.executable}, {HOSTILE}], env: "
                   + json.dumps(env))
        else:
            port = stack.enter_context(http_upstream(HOSTILE, **env))
            mcp = f"url: 'http://127.0.0.1:{port}/mcp'"
        loaded = load_config(config(tmp_path, mcp), environ=dict(os.environ), layers=False)
        async with compile_tools(loaded) as compiled:
            tool = compiled.tool("h", "echo")
            refused = await call(tool, Person({"action": "accept", "content": content}),
                                 text="Your name?")
            after = await call(tool, Person(ACCEPT), text="Again?")
    got = refused["answers"][0]
    assert got["code"] == -32603 and said in got["message"], got
    assert after["answers"] == [ACCEPT]
    methods = [json.loads(line)["method"] for line in log.read_text().splitlines()]
    assert methods.count("initialize") == 1, methods  # the first connection never dropped


async def test_what_the_person_reads_of_a_question_is_what_it_is(tmp_path: Path) -> None:
    """The upstream's message and the labels of its form show every character that makes
    text read as something it is not as an escape; the values it checks answers against
    stay its own, so an answer of one of them still fits."""
    from toolhost.compile import compile_tools
    from toolhost.config import load_config

    from .elicit_texts import HIDING, hiding_schema

    loaded = load_config(config(tmp_path, f"command: [{sys.executable}, {HOSTILE}], env: "
                                "{HOSTILE_MODE: elicit}"),
                         environ=dict(os.environ), layers=False)
    async with compile_tools(loaded) as compiled:
        tool = compiled.tool("h", "echo")
        for char in HIDING:
            answer = {"action": "accept", "content": {"pick": f"a{char}", "many": [f"b{char}"]}}
            person = Person(answer)
            said = await call(tool, person, text=f"Allow{char} it?", schema=hiding_schema(char))
            assert said["answers"] == [answer]  # (the upstream's own values fit)
            [asked] = person.asked
            shown = json.dumps(asked, ensure_ascii=False)
            assert char not in shown.replace(f"a{char}", "").replace(f"b{char}", ""), \
                ascii(shown)
            assert asked["message"] == f"upstream server 'h' asks: Allow{visible(char)} it?"


async def test_a_form_too_large_for_a_person_is_refused_before_anyone_is_asked(
        tmp_path: Path) -> None:
    """Checking a 14 MB form held the call's loop (every other client's calls) for 1.6 s,
    then sent it all to the client: over 128 KiB of JSON it is refused (-32602) in the
    connection's thread, and the call goes on."""
    from toolhost.compile import compile_tools
    from toolhost.config import load_config

    loaded = load_config(config(tmp_path, f"command: [{sys.executable}, {HOSTILE}], env: "
                                "{HOSTILE_MODE: elicit}"),
                         environ=dict(os.environ), layers=False)
    big = {"type": "object", "properties": {
        f"p{i}": {"type": "string", "enum": [f"v{k}" for k in range(3_000)]}
        for i in range(10)}}
    async with compile_tools(loaded) as compiled:
        tool = compiled.tool("h", "echo")
        person = Person(ACCEPT)
        said = await call(tool, person, text="Pick?", schema=big)
        got = said["answers"][0]
        assert got["code"] == -32602 and "at most 131,072" in got["message"], got
        assert person.asked == []
        assert (await call(tool, person, text="Your name?"))["answers"] == [ACCEPT]
