"""A URI template's values are strings; a backed resource's ``params`` may declare them an
integer, a number or a boolean, and the read gets them as such (``num://3`` reads n=3). A URI
whose values the params refuse names no resource: -32002 saying why, never -32603 naming a
hidden tool; a backend that fails is named by the URI read, and a completion function that
fails or answers past the output cap is named by its argument."""

from __future__ import annotations

from typing import Any

import anyio
import pytest

from toolhost.mcp import McpServer

from .mcp_testtools import ask, content_server, read

MODULE = '''\
def show(n: int, on: bool = False) -> str:
    return f"n={n!r} on={on!r}"


def boom(x: str) -> str:
    raise RuntimeError("cannot " + x)


def huge(value: str) -> list[str]:
    return ["v" + "x" * 100_000 + str(i) for i in range(5)]


def broken(value: str) -> list[str]:
    raise ValueError("no list today")
'''
CONFIG = """\
toolhost: 1
servers:
  kb:
    resources:
      num:
        uri: "num://{n}/{on}"
        params: {n: {type: integer, maximum: 5}, on: {type: boolean}}
        python: "templatevalues:show"
      ticket:
        uri: "tickets://{id}"
        params: {id: {type: string, pattern: "^T-[0-9]+$"}}
        command: [echo, "ticket {{ id }}"]
      fail: {uri: "fail://{x}", python: "templatevalues:boom"}
      many:
        uri: "many://{a}/{b}"
        python: "templatevalues:boom"
        complete: {a: "templatevalues:huge", b: "templatevalues:broken"}
"""


@pytest.fixture(scope="module")
def server(tmp_path_factory: pytest.TempPathFactory) -> McpServer:
    return content_server(tmp_path_factory.mktemp("values"), CONFIG,
                          {"templatevalues": MODULE})


@pytest.mark.parametrize(("uri", "text"), [
    ("num://3/true", "n=3 on=True"), ("num://-2/FALSE", "n=-2 on=False"),
    ("tickets://T-7", "ticket T-7"),
])
def test_values_reach_the_backend_as_their_declared_types(server: McpServer, uri: str,
                                                          text: str) -> None:
    assert read(server, uri)["result"]["contents"][0]["text"].strip() == text


@pytest.mark.parametrize(("uri", "words"), [
    ("num://x/true", "'n' must be an integer"),
    ("num://9/true", "greater than the maximum of 5"),
    ("num://1/yes", "'on' must be true or false"),
    ("tickets://X-1", "does not match"),
])
def test_values_the_params_refuse_name_no_resource(server: McpServer, uri: str,
                                                   words: str) -> None:
    error = read(server, uri)["error"]
    assert error["code"] == -32002, error
    assert error["message"].startswith(f"Resource not found: {uri} (") and words in \
        error["message"]
    assert "resource-" not in error["message"]


@pytest.mark.parametrize(("uri", "named"), [
    ("tickets://T-7", True), ("num://3/true", True),
    ("tickets://X-1", False), ("num://9/true", False), ("num://x/true", False),
    ("fail://..%2Fsecret", False), ("fail://a%00b", False), ("fail://%2Fetc", False),
])
def test_a_subscription_names_only_what_a_read_would_take(server: McpServer, uri: str,
                                                           named: bool) -> None:
    # a URI whose values a read refuses names no resource: subscribing to it is -32002 too
    answer = ask(server, "resources/subscribe", {"uri": uri})
    if named:
        assert answer["result"] == {}, answer
    else:
        assert answer["error"]["code"] == -32002, answer


def test_a_failing_backend_is_named_by_the_uri(server: McpServer) -> None:
    error = read(server, "fail://q")["error"]
    assert error["code"] == -32603
    assert error["message"] == "reading fail://q failed: RuntimeError: cannot q"


@pytest.mark.parametrize(("name", "message"), [
    ("a", "the completion values of 'a' are more than 40,000 characters (a completion "
          "function's answer is cut like a tool's: max_output_chars)"),
    ("b", "completing 'b' failed: ValueError: no list today"),
])
def test_a_completion_function_that_fails_is_named_by_its_argument(server: McpServer,
                                                                   name: str,
                                                                   message: str) -> None:
    async def go() -> dict[str, Any]:
        answer = await server.handle({
            "jsonrpc": "2.0", "id": 1, "method": "completion/complete",
            "params": {"ref": {"type": "ref/resource", "uri": "many://{a}/{b}"},
                       "argument": {"name": name, "value": ""}}})
        assert answer is not None
        return answer
    error = anyio.run(go)["error"]
    assert error == {"code": -32603, "message": message}
