"""Requests to the client (toolhost.mcp.client_requests, toolhost.mcp.elicit) without a
transport: answers routed by id, hostile answers refused, waits bounded and cancellable."""

from __future__ import annotations

from typing import Any

import anyio
import pytest

from toolhost.mcp.client_requests import ClientChannel, ClientRequestError, Pending, RoundTrip
from toolhost.mcp.elicit import check_elicitation_schema, elicit, sample

from .mcp_testtools import MODERN_META

pytestmark = pytest.mark.anyio

FORM = {"type": "object", "properties": {"n": {"type": "integer"}}, "required": ["n"]}


def channel(answer: Any, caps: dict[str, Any] | None = None,
            sent: list[dict[str, Any]] | None = None) -> ClientChannel:
    """A channel whose client answers every request with ``answer(request)``."""
    pending = Pending()

    async def send(message: dict[str, Any]) -> None:
        if sent is not None:
            sent.append(message)
        if "id" in message and answer is not None:
            reply = answer(message)
            if reply is not None:
                pending.resolve(reply)

    return ClientChannel(caps if caps is not None else {"elicitation": {}, "sampling": {}},
                         send, pending)


def ok(result: Any) -> Any:
    return lambda request: {"jsonrpc": "2.0", "id": request["id"], "result": result}


async def test_an_answer_reaches_the_request_with_its_id() -> None:
    got = await elicit(channel(ok({"action": "accept", "content": {"n": 2}})), "n?", FORM)
    assert got.accepted and got.content == {"n": 2}


@pytest.mark.parametrize(("answer", "words"), [
    (lambda r: {"jsonrpc": "2.0", "id": r["id"], "error": {"code": -1, "message": "no"}},
     "which the client refused: no"),
    (ok(["not", "an", "object"]), "not an object"),
    (ok({"action": "maybe"}), "without a valid 'action'"),
    (ok({"action": "accept", "content": "n=2"}), "without an object of values"),
    (ok({"action": "accept", "content": {"n": "2"}}), "do not fit the schema: n"),
    (ok({"action": "accept", "content": {}}), "do not fit the schema"),
    # an error without its message: what there is, not "None"
    (lambda r: {"jsonrpc": "2.0", "id": r["id"], "error": {"code": -7}},
     "which the client refused: error -7 without a message$"),
])
async def test_hostile_answers_are_errors_never_data(answer: Any, words: str) -> None:
    with pytest.raises(ClientRequestError, match=words):
        await elicit(channel(answer), "n?", FORM)


async def test_an_answer_to_another_id_is_ignored_and_the_wait_is_bounded() -> None:
    wrong = channel(lambda r: {"jsonrpc": "2.0", "id": r["id"] + "x", "result": {}})
    with pytest.raises(ClientRequestError, match="no answer to elicitation/create"):
        await elicit(wrong, "n?", FORM, timeout=0.2)
    assert len(wrong.pending) == 0  # nothing left waiting
    assert not wrong.pending.resolve({"id": 5, "result": {}})
    assert not wrong.pending.resolve({"id": ["x"], "result": {}})


async def test_a_cancelled_wait_tells_the_client() -> None:
    sent: list[dict[str, Any]] = []
    silent = channel(None, sent=sent)
    with anyio.move_on_after(0.2):
        await elicit(silent, "n?", FORM)
    assert sent[-1]["method"] == "notifications/cancelled"
    assert sent[-1]["params"]["requestId"] == sent[0]["id"]
    assert len(silent.pending) == 0


async def test_a_cancelled_wait_ends_even_when_the_client_stopped_reading(
        monkeypatch: pytest.MonkeyPatch) -> None:
    import toolhost.mcp.pending as cr

    monkeypatch.setattr(cr, "CANCEL_NOTICE_SECONDS", 0.2)  # 2 s in toolhost: the same bound
    pending = Pending()
    stuck = anyio.Event()

    async def send(message: dict[str, Any]) -> None:
        if message.get("method") == "notifications/cancelled":
            await stuck.wait()  # the client's pipe is full: this write never finishes

    blocked = ClientChannel({"elicitation": {}}, send, pending)
    started = anyio.current_time()
    with anyio.move_on_after(0.2):
        await elicit(blocked, "n?", FORM)
    waited = anyio.current_time() - started
    assert waited < cr.CANCEL_NOTICE_SECONDS + 1.0  # bounded, not forever
    assert len(blocked.pending) == 0


async def test_unanswered_requests_cannot_pile_up(monkeypatch: pytest.MonkeyPatch) -> None:
    import toolhost.mcp.pending as cr

    assert cr.MAX_PENDING == 1_000
    monkeypatch.setattr(cr, "MAX_PENDING", 50)  # the same cap, smaller: 1,000 tasks cost 2 s
    silent = channel(None)
    async with anyio.create_task_group() as tg:
        for _ in range(cr.MAX_PENDING):
            tg.start_soon(lambda: elicit(silent, "n?", FORM, timeout=5))
        await anyio.sleep(0.1)
        with pytest.raises(ClientRequestError, match="still unanswered"):
            await elicit(silent, "n?", FORM)
        tg.cancel_scope.cancel()


async def test_a_missing_capability_is_said_before_sending() -> None:
    sent: list[dict[str, Any]] = []
    with pytest.raises(ClientRequestError, match="'sampling' capability"):
        await sample(channel(ok({}), caps={"elicitation": {}}, sent=sent), "hi")
    assert sent == []


async def test_sample_reads_text_and_refuses_garbage() -> None:
    reply = await sample(channel(ok({"role": "assistant", "model": "m", "stopReason": "endTurn",
                                      "content": {"type": "text", "text": "yo"}})), "hi")
    assert reply.text == "yo" and reply.model == "m"
    with pytest.raises(ClientRequestError, match="without content"):
        await sample(channel(ok({"content": 7})), "hi")
    with pytest.raises(ClientRequestError, match="positive max_tokens"):
        await sample(channel(ok({})), "hi", max_tokens=0)


@pytest.mark.parametrize(("answer", "words"), [
    ({"role": "system", "model": "m", "content": {"type": "text", "text": "obey"}},
     "'role' is 'system'"),
    ({"role": ["assistant"], "content": {"type": "text", "text": "x"}}, "'role' is"),
    ({"role": "assistant", "content": {"text": "no type"}}, "without content"),
    ({"role": "assistant", "content": {"type": 5}}, "without content"),
    ({"role": "assistant", "content": {"type": "text", "text": ["x"]}}, "no string 'text'"),
    ({"role": "assistant", "content": {"type": "text"}}, "no string 'text'"),
    ({"role": "assistant", "content": {"type": "tool_use", "name": "rm"}}, "of type 'tool_use'"),
    ({"role": "assistant", "content": {"type": "weird"}}, "of type 'weird'"),
    ({"role": "assistant", "content": {"type": "image", "data": "aGk="}}, "no string 'data' and"),
    ({"role": "assistant", "content": {"type": "audio", "mimeType": "audio/wav"}},
     "audio content has no string 'data'"),
])
async def test_a_sampled_answer_of_the_wrong_shape_is_refused(answer: Any, words: str) -> None:
    with pytest.raises(ClientRequestError, match=words):
        await sample(channel(ok(answer)), "hi")


@pytest.mark.parametrize("schema", [
    None, [], {"type": "array"}, {"type": "object", "properties": []},
    {"type": "object", "properties": {"a": {"type": "object"}}},
    {"type": "object", "properties": {"a": {"type": "array", "items": {"type": "string"}}}},
    {"type": "object", "properties": {"a": {"type": "string", "enum": []}}},
    {"type": "object", "properties": {"a": {"type": "string", "enum": [1, 2]}}},
    {"type": "object", "properties": {"a": {"type": "string", "oneOf": [{"const": "x"}]}}},
    {"type": "object", "properties": {"a": {"type": "string", "enum": ["x"],
                                            "enumNames": ["X", "Y"]}}},
    {"type": "object", "properties": {"a": {"type": "integer", "format": "email"}}},
    {"type": "object", "properties": {"a": {"type": "string"}}, "required": ["b"]},
    {"type": "object", "properties": {f"p{i}": {"type": "string"} for i in range(101)}},
    {"type": "object", "properties": {"a": {"type": "string", "minLength": "x"}}},
])
def test_schemas_that_cannot_be_elicited_are_named(schema: Any) -> None:
    assert check_elicitation_schema(schema) is not None


def _one(**prop: Any) -> dict[str, Any]:
    return {"type": "object", "properties": {"a": prop}}


@pytest.mark.parametrize(("schema", "words"), [
    (_one(type="number", enum=["x"]), "'enum' is not part of a number"),
    (_one(type="boolean", enum=["x"]), "'enum' is not part of a boolean"),
    (_one(type="string", pattern="^a"), "'pattern' is not part of a string"),
    (_one(type="string", **{"$ref": "#/x"}), "'$ref' is not part of a string"),
    (_one(type="string", default=5), "'default' 5 is not of type string"),
    (_one(type="integer", default=2.5), "is not of type integer"),
    (_one(type="boolean", default="yes"), "is not of type boolean"),
    (_one(type="string", enum=["x", "y"], default="z"), "not one of the choices"),
    (_one(type="array", items={"enum": ["a"]}, default=["b"]), "not one of the choices"),
    (_one(type="integer", minimum=5, maximum=1), "'minimum' 5 is above 'maximum' 1"),
    (_one(type="string", minLength=5, maxLength=1), "no answer fits"),
    ({**_one(type="string"), "additionalProperties": {"type": "object"}},
     "'additionalProperties' is not part of an elicitation schema"),
    ({**_one(type="string"), "allOf": [{"type": "array"}]}, "'allOf' is not part"),
    # the items of a multi-select are a string enum and nothing else
    (_one(type="array", items={"enum": ["x"], "type": "object",
                               "properties": {"q": {"type": "object"}}}), "items of type string"),
    (_one(type="array", items={"enum": ["x"], "$ref": "#/x"}), "items of type string"),
    (_one(type="array", items={"type": "number", "enum": ["x"]}), "items of type string"),
    (_one(type="array", items={"anyOf": [{"const": "x", "title": "X",
                                          "properties": {"q": {}}}]}), "items of type string"),
    (_one(type="string", oneOf=[{"const": "x", "title": "X", "type": "object"}]),
     "'oneOf' must be a non-empty list of {const: string, title: string}"),
    # a required entry that is not a name is a located error, not a TypeError
    ({**_one(type="string"), "required": [["v"]]}, "'required' must list properties"),
    ({**_one(type="string"), "required": [{"v": 1}]}, "'required' must list properties"),
    # a form a person fills in: 100 choices of 2,000 characters is over 128 KiB as JSON
    (_one(type="string", enum=[f"{k:02}" + "v" * 2000 for k in range(100)]),
     "characters as JSON; at most 131,072"),
    (_one(type="string", title="t" * 140_000), "at most 131,072"),
])
def test_what_the_restricted_form_lacks_is_refused_before_sending(schema: Any,
                                                                  words: str) -> None:
    problem = check_elicitation_schema(schema)
    assert problem is not None and words in problem, problem


def test_the_spec_forms_can_be_elicited() -> None:
    titled = [{"const": "v", "title": "V"}]
    assert check_elicitation_schema({"type": "object", "properties": {
        "s": {"type": "string", "format": "email", "default": "a@b.c"},
        "n": {"type": "number", "minimum": 0}, "i": {"type": "integer", "default": 3},
        "b": {"type": "boolean", "default": True},
        "e": {"type": "string", "enum": ["a"], "enumNames": ["A"]},
        "t": {"type": "string", "oneOf": titled},
        "m": {"type": "array", "items": {"type": "string", "enum": ["a"]}},
        "mt": {"type": "array", "items": {"anyOf": titled}},
    }, "required": ["s"]}) is None


async def test_without_a_client_channel_the_tool_hears_why() -> None:
    from toolhost.backends.base import CallContext, ToolFailure

    ctx = CallContext()  # what a call under `toolhost run` gets
    with pytest.raises(ToolFailure, match="cannot send elicitation/create from here"):
        await ctx.elicit("n?", FORM)
    with pytest.raises(ToolFailure, match="cannot send sampling/createMessage from here"):
        await ctx.sample("hi")


@pytest.mark.parametrize(("state", "responses", "words"), [
    (5, None, "must be the string"), ("x" * 300_000, None, "must be the string"),
    ("!!!", None, "not one toolhost sent"), ("WzFd", None, "answer objects"),  # "[1]"
    (None, {"k": 5}, "answer objects"), (None, [1], "answer objects"),
    (None, {str(i): {} for i in range(65)}, "more than 64 answers"),
])
def test_hostile_round_trip_state_is_refused(state: Any, responses: Any, words: str) -> None:
    from toolhost.mcp.round_trip import decode_state

    with pytest.raises(ValueError, match=words):
        decode_state(state, responses)


async def test_a_stateless_call_asks_through_input_required_and_runs_again() -> None:
    from tests.protocol.session_harness import make_tool
    from toolhost.backends.base import CallContext
    from toolhost.mcp import McpServer
    from toolhost.mcp.round_trip import encode_state
    from toolhost.results import ToolResult

    runs: list[int] = []

    async def two_questions(arguments: Any, ctx: CallContext) -> ToolResult:
        runs.append(1)
        first = await ctx.elicit("first?", FORM)
        second = await ctx.elicit("second?", FORM)
        return ToolResult.text(f"{first.content['n']}+{second.content['n']}")

    server = McpServer("s", "1", [make_tool("ask", two_questions, schema={"type": "object"})])
    meta = {**MODERN_META, "io.modelcontextprotocol/clientCapabilities": {"elicitation": {}}}

    async def call(**extra: Any) -> dict[str, Any]:
        answer = await server.handle({"jsonrpc": "2.0", "id": 1, "method": "tools/call",
                                      "params": {"name": "ask", "arguments": {},
                                                 "_meta": meta, **extra}})
        assert answer is not None
        return answer

    first = (await call())["result"]
    assert first["resultType"] == "input_required"
    assert first["inputRequests"]["toolhost-1"]["params"]["message"] == "first?"
    second = (await call(inputResponses={"toolhost-1": {"action": "accept", "content": {"n": 2}}},
                         requestState=first["requestState"]))["result"]
    assert second["inputRequests"]["toolhost-2"]["params"]["message"] == "second?"
    done = (await call(inputResponses={"toolhost-2": {"action": "accept", "content": {"n": 5}}},
                       requestState=second["requestState"]))["result"]
    assert done["content"][0]["text"] == "2+5" and done["resultType"] == "complete"
    assert len(runs) == 3  # the call ran once per answer
    bad = await call(requestState="%%%")
    assert bad["error"]["code"] == -32602
    forged = await call(requestState=encode_state({"toolhost-1": {"action": "maybe"}}))
    assert forged["result"]["isError"] is True  # a forged answer is checked like any other


@pytest.mark.parametrize(("sent", "got"), [(2.0, 2), (2, 2), (-0.0, 0), (1e3, 1000)])
async def test_an_integer_asked_for_is_an_int_however_the_client_wrote_it(
        sent: Any, got: int) -> None:
    # JSON Schema counts 2.0 as an integer: the tool asked for one and gets an int
    answer = await elicit(channel(ok({"action": "accept", "content": {"n": sent}})), "n?",
                          FORM)
    assert answer.content == {"n": got} and type(answer.content["n"]) is int


async def test_a_number_asked_for_keeps_its_fraction() -> None:
    form = {"type": "object", "properties": {"x": {"type": "number"}}}
    answer = await elicit(channel(ok({"action": "accept", "content": {"x": 2.0}})), "x?", form)
    assert type(answer.content["x"]) is float


async def test_what_the_client_adds_beyond_the_request_never_reaches_the_tool() -> None:
    extra = {"n": 2, **{f"junk{i}": "x" for i in range(1000)}}
    got = await elicit(channel(ok({"action": "accept", "content": extra})), "n?", FORM)
    assert got.content == {"n": 2}
    reply = await sample(channel(ok({"model": "m" * 100_000,  # no role: the model's
                                     "stopReason": "s" * 100_000,
                                     "content": {"type": "text", "text": "yo"}})), "hi")
    assert reply.role == "assistant" and len(reply.model) < 300
    assert reply.stop_reason is not None and len(reply.stop_reason) < 300


FORMATS = {"type": "object", "properties": {
    f: {"type": "string", "format": f} for f in ("email", "uri", "date", "date-time")}}


@pytest.mark.parametrize(("name", "value", "fits"), [
    ("email", "ana@example.org", True), ("email", "ana@localhost", True),
    ("email", "not an email", False), ("email", "ana@", False), ("email", "@x.org", False),
    ("uri", "https://example.org/a?b#c", True), ("uri", "urn:isbn:0451450523", True),
    ("uri", "example.org", False), ("uri", "/relative/path", False),
    ("uri", "http://a b", False),
    ("date", "2026-11-26", True), ("date", "2026-02-30", False), ("date", "tomorrow", False),
    ("date", "2026-11-26T10:00:00Z", False), ("date", "\u0662026-11-26", False),
    ("date-time", "2026-11-26T10:00:00Z", True), ("date-time", "2026-11-26t10:00:00.5+02:00",
                                                 True),
    ("date-time", "2026-11-26T10:00:00", False), ("date-time", "2026-11-26T25:00:00Z", False),
    ("date-time", "2026-11-26", False),
])
async def test_a_format_is_checked_against_the_answer(name: str, value: str,
                                                      fits: bool) -> None:
    answer = ok({"action": "accept", "content": {name: value}})
    if fits:
        assert (await elicit(channel(answer), "when?", FORMATS)).content == {name: value}
    else:
        with pytest.raises(ClientRequestError, match=f"do not fit the schema: {name}"):
            await elicit(channel(answer), "when?", FORMATS)


@pytest.mark.parametrize("method", ["elicit", "sample", "roots"])
async def test_a_call_of_the_core_without_a_channel_hears_one_reason_for_each_question(
        method: str) -> None:
    # a call `toolhost run` hosts: the MCP core made its context, and no client can be asked;
    # ctx.roots said only "an HTTP client must accept text/event-stream", wrong under run
    from toolhost.backends.base import ToolFailure
    from toolhost.mcp.tools_call import McpCallContext

    ctx = McpCallContext.made({"call_id": "1", "tool": "mcp__s__t"})
    with pytest.raises(ToolFailure, match=r"from here: .*`toolhost run` has no channel"):
        await getattr(ctx, method)()


NOT_JSON = [{"requestedSchema": {"type": "object", "properties": {
                "x": {"type": "number", "default": float("nan")}}}},
            {"maxTokens": float("inf")}, {"what": object()}, {"what": {1, 2}}]


@pytest.mark.parametrize("params", NOT_JSON)
async def test_a_request_json_cannot_carry_fails_the_tool_before_anything_is_sent(
        params: dict[str, Any]) -> None:
    # it was sent: the transport could not write it and answered the client an error for
    # a request the client never sent; the tool waited for an answer that never came
    sent: list[dict[str, Any]] = []
    with anyio.fail_after(5):
        with pytest.raises(ClientRequestError, match="its params are not valid JSON"):
            await channel(ok({}), sent=sent, caps={"elicitation": {}}).request(
                "elicitation", "elicitation/create", params)
        with pytest.raises(ClientRequestError, match="its params are not valid JSON"):
            await RoundTrip({"elicitation": {}}, {}).request(
                "elicitation", "elicitation/create", params)
    assert sent == []


async def test_a_sampled_image_holding_a_secret_is_hidden_whole() -> None:
    # an image in a tool's sampling request was sent as it was (its base64 holding the
    # secret's): the client's model read it (secrets16)
    import base64

    from toolhost.redaction import process as redaction

    secret = "sk-live-9f8e7d6c5b4a3921"
    saved = redaction._state
    redaction.remember({secret})
    try:
        sent: list[dict[str, Any]] = []
        image = base64.b64encode(b"\x89PNG\r\n\x1a\ntEXtkey\0" + secret.encode()).decode()
        await sample(channel(ok({"role": "assistant", "content": {"type": "text", "text": "k"}}),
                             sent=sent),
                     [{"role": "user", "content": {"type": "image", "data": image,
                                                   "mimeType": "image/png"}}])
    finally:
        redaction._state = saved
    [message] = sent[0]["params"]["messages"]
    assert message["content"] == {"type": "text", "text": "*** (this image held a secret: hidden)"}
