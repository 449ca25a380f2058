"""A python prompt's function may declare typed parameters; MCP sends every prompt argument
as a string, so ``"3"`` reaches an ``int`` parameter as 3 (a ``bool`` takes true/false, an
``Optional`` an empty string as None), and a string that is not one is the caller's mistake:
-32602 naming the prompt and the argument, never an internal error naming a hidden tool."""

from __future__ import annotations

from typing import Any

import anyio
import pytest

from toolhost.mcp import McpServer

from .mcp_testtools import content_server

MODULE = '''\
from typing import Annotated, Optional

from pydantic import BaseModel, Field


class Point(BaseModel):
    x: int
    y: int


def typed(n: int, x: float = 1.0, flag: bool = False, maybe: Optional[int] = None,
          tags: list[str] = [], small: Annotated[int, Field(le=5)] = 1,
          counts: dict[str, int] = {}, either: int | list[int] = 0,
          ids: Optional[list[int]] = None, at: Optional[Point] = None,
          text: str | list[str] = "") -> str:
    return (f"n={n!r} x={x!r} flag={flag!r} maybe={maybe!r} tags={tags!r} small={small!r} "
            f"counts={counts!r} either={either!r} ids={ids!r} at={at!r} text={text!r}")
'''


@pytest.fixture(scope="module")
def server(tmp_path_factory: pytest.TempPathFactory) -> McpServer:
    return content_server(
        tmp_path_factory.mktemp("typed"),
        "toolhost: 1\nservers:\n  kb:\n    prompts:\n      f: {python: \"typedprompt:typed\"}\n",
        {"typedprompt": MODULE})


def get(server: McpServer, arguments: dict[str, str]) -> dict[str, Any]:
    async def go() -> dict[str, Any]:
        answer = await server.handle({"jsonrpc": "2.0", "id": 1, "method": "prompts/get",
                                      "params": {"name": "f", "arguments": arguments}})
        assert answer is not None
        return answer
    return anyio.run(go)


@pytest.mark.parametrize(("arguments", "text"), [
    ({"n": "3"}, "n=3 x=1.0 flag=False maybe=None tags=[] small=1"),
    ({"n": " -3 ", "x": "2"}, "n=-3 x=2.0"),
    ({"n": "1", "x": "2.5e1", "flag": "TRUE"}, "x=25.0 flag=True"),
    ({"n": "1", "maybe": "7"}, "maybe=7"),
    ({"n": "1", "maybe": ""}, "maybe=None"),
    # an array, an object or a model takes its JSON text (FastMCP's client sends a list
    # argument so); a union without a string converts to the member the text is
    ({"n": "1", "tags": '["a", "b"]'}, "tags=['a', 'b']"),
    ({"n": "1", "counts": ' {"a": 1} '}, "counts={'a': 1}"),
    ({"n": "1", "either": "4"}, "either=4"),
    ({"n": "1", "either": "[4, 5]"}, "either=[4, 5]"),
    ({"n": "1", "ids": "[1]"}, "ids=[1]"),
    ({"n": "1", "ids": ""}, "ids=None"),
    ({"n": "1", "at": '{"x": 1, "y": 2}'}, "at=Point(x=1, y=2)"),
    ({"n": "1", "text": "[1]"}, "text='[1]'"),  # a string is taken as it is
])
def test_string_arguments_reach_typed_parameters(server: McpServer, arguments: dict[str, str],
                                                 text: str) -> None:
    answer = get(server, arguments)
    assert text in answer["result"]["messages"][0]["content"]["text"], answer


@pytest.mark.parametrize(("arguments", "words"), [
    ({"n": "three"}, "argument 'n' must be an integer"),
    ({"n": "3.5"}, "argument 'n' must be an integer"),
    ({"n": "9" * 5000}, "argument 'n' must be an integer"),
    ({"n": "1", "x": "1e400"}, "argument 'x' must be a number"),
    ({"n": "1", "x": "nan"}, "argument 'x' must be a number"),
    ({"n": "1", "flag": "yes"}, "argument 'flag' must be true or false"),
    ({"n": "1", "maybe": "x"}, "argument 'maybe' must be an integer or empty"),
    ({"n": "1", "tags": "a"}, "prompt 'f': tags:"),
    ({"n": "1", "small": "9"}, "prompt 'f': small:"),
    ({"n": "1", "tags": "[1]"}, "prompt 'f': tags.0:"),
    ({"n": "1", "tags": "[NaN]"}, "prompt 'f': tags:"),
    ({"n": "1", "tags": "[" * 300 + "]" * 300}, "prompt 'f': tags:"),  # deeper than a message
    ({"n": "1", "tags": "[" * 100_000}, "prompt 'f': tags:"),
    ({"n": "1", "counts": "[]"}, "prompt 'f': counts:"),
    ({"n": "1", "either": "x"}, "prompt 'f': either:"),
    ({"n": "1", "at": '{"x": 1}'}, "prompt 'f': at"),
])
def test_a_string_that_is_not_the_type_is_invalid_params(server: McpServer,
                                                         arguments: dict[str, str],
                                                         words: str) -> None:
    error = get(server, arguments)["error"]
    assert error["code"] == -32602, error
    assert words in error["message"] and "prompt-f" not in error["message"]
    assert len(error["message"]) < 400


def test_a_literal_enum_or_bool_parameter_completes_itself(
        tmp_path_factory: pytest.TempPathFactory) -> None:
    server = content_server(
        tmp_path_factory.mktemp("completes"),
        "toolhost: 1\nservers:\n  kb:\n    prompts:\n      p: {python: \"enumprompt:p\"}\n",
        {"enumprompt": "import enum\nfrom typing import Literal\n\n\nclass Size(enum.Enum):\n"
         "    S = 1\n    L = 2\n\n\n"
         "def p(tone: Literal['kind', 'blunt'], size: Size = Size.S, loud: bool = False,\n"
         "      who: str = '') -> str:\n    return f'{tone} {size} {loud} {who}'\n"})

    def complete(name: str, value: str) -> list[str]:
        async def go() -> list[str]:
            answer = await server.handle({
                "jsonrpc": "2.0", "id": 1, "method": "completion/complete",
                "params": {"ref": {"type": "ref/prompt", "name": "p"},
                           "argument": {"name": name, "value": value}}})
            assert answer is not None
            return answer["result"]["completion"]["values"]  # type: ignore[no-any-return]
        return anyio.run(go)

    assert complete("tone", "") == ["kind", "blunt"] and complete("tone", "B") == ["blunt"]
    assert complete("size", "") == ["1", "2"] and complete("loud", "t") == ["true"]
    assert complete("who", "") == []
    got = get_named(server, "p", {"tone": "kind", "size": "2", "loud": "true"})
    assert got["result"]["messages"][0]["content"]["text"] == "kind Size.L True ", got


def get_named(server: McpServer, name: str, arguments: dict[str, str]) -> dict[str, Any]:
    async def go() -> dict[str, Any]:
        answer = await server.handle({"jsonrpc": "2.0", "id": 1, "method": "prompts/get",
                                      "params": {"name": name, "arguments": arguments}})
        assert answer is not None
        return answer
    return anyio.run(go)


CONTENTS = '''\
PNG = b"\\x89PNG\\r\\n\\x1a\\n" + b"\\0" * 20
BLOCKS = {
    "image": {"type": "image", "data": "aGVsbG8=", "mimeType": "image/png"},
    "audio": {"type": "audio", "data": "aGVsbG8=", "mimeType": "audio/wav"},
    "resource": {"type": "resource", "resource": {"uri": "docs://a", "text": "A"}},
    "link": {"type": "resource_link", "uri": "docs://a", "name": "a"},
    "number": 7,
    "weird": {"type": "weird", "data": 1},
    "bad64": {"type": "image", "data": "not base64!!", "mimeType": "image/png"},
    "nomime": {"type": "audio", "data": "aGVsbG8="},
    "list": [{"type": "text", "text": "a"}],
    "none": None,
    "hollow": {"type": "resource", "resource": {"uri": "docs://a"}},
}


def block(kind: str) -> list[dict]:
    return [{"role": "assistant", "content": BLOCKS[kind]}]


def png() -> bytes:
    return PNG


RETURNS = {
    "message": {"role": "assistant", "content": "one"},
    "model": {"role": "user", "content": {"type": "text", "text": "one"}},
    "object": object(),
    "mapping": {"a": 1, "b": 2},
    "system": {"role": "system", "content": "one"},
}


def whole(kind: str):
    return RETURNS[kind]
'''


@pytest.fixture(scope="module")
def contents(tmp_path_factory: pytest.TempPathFactory) -> McpServer:
    return content_server(
        tmp_path_factory.mktemp("contents"),
        "toolhost: 1\nservers:\n  kb:\n    prompts:\n"
        "      f: {python: \"promptblocks:block\"}\n      png: {python: \"promptblocks:png\"}\n"
        "      w: {python: \"promptblocks:whole\"}\n",
        {"promptblocks": CONTENTS})


@pytest.mark.parametrize(("kind", "shown"), [
    ("image", "image"), ("audio", "audio"), ("resource", "resource"),
    ("link", "resource_link"), ("number", "text"),
    ("weird", "type 'weird'"), ("bad64", "not base64"), ("nomime", "without 'mimeType'"),
    ("list", "a list as content"), ("none", "a NoneType"), ("hollow", "embedded resource"),
])
def test_a_message_content_is_one_block_a_client_can_read(contents: McpServer, kind: str,
                                                          shown: str) -> None:
    answer = get(contents, {"kind": kind})
    if "result" in answer:
        assert answer["result"]["messages"][0]["content"]["type"] == shown, answer
    else:
        assert answer["error"]["code"] == -32603 and shown in answer["error"]["message"]


def test_bytes_returned_are_an_image_message(contents: McpServer) -> None:
    async def go() -> dict[str, Any]:
        answer = await contents.handle({"jsonrpc": "2.0", "id": 1, "method": "prompts/get",
                                        "params": {"name": "png"}})
        assert answer is not None
        return answer
    content = anyio.run(go)["result"]["messages"][0]["content"]
    assert content["type"] == "image" and content["mimeType"] == "image/png"


@pytest.mark.parametrize(("kind", "shown"), [
    ("message", "assistant"), ("model", "user"),
    ("object", "it returned '<object object at"), ("mapping", "keys 'a', 'b'"),
    ("system", "role: user|assistant"),
])
def test_a_returned_mapping_is_one_message_or_an_error(contents: McpServer, kind: str,
                                                       shown: str) -> None:
    """One {role, content} mapping is one message; another mapping, or an object written
    out as its repr, is -32603 saying what a prompt returns (never its JSON as a message)."""
    async def go() -> dict[str, Any]:
        answer = await contents.handle({"jsonrpc": "2.0", "id": 1, "method": "prompts/get",
                                        "params": {"name": "w", "arguments": {"kind": kind}}})
        assert answer is not None
        return answer
    answer = anyio.run(go)
    if "result" in answer:
        [message] = answer["result"]["messages"]
        assert message == {"role": shown, "content": {"type": "text", "text": "one"}}
    else:
        assert answer["error"]["code"] == -32603 and shown in answer["error"]["message"]
