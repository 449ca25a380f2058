"""A resource's, a prompt's or a completion's backend that fails answers one line naming
the request as the client made it (``reading t://x failed: ...``, ``prompt 'p' failed:
...``), never the hidden tool behind it (``Tool 'prompt-p' failed``) nor a command's
multi-line text naming nothing; a template value a command cannot take (a NUL, a leading
``-``) names no resource, as any value the params refuse (it was -32603, the server's
fault)."""

from __future__ import annotations

from typing import Any

import anyio
import pytest

from toolhost.mcp import McpServer

from .mcp_testtools import MODERN_META, content_server

MODULE = '''\
def read(id: str) -> str:
    raise ValueError("no ticket " + id)


def prompt() -> str:
    raise RuntimeError("prompt broke")


def values(value: str) -> list[str]:
    raise KeyError("values broke")
'''
CONFIG = """\
toolhost: 1
servers:
  kb:
    resources:
      bad: {uri: "bad://{id}", python: "contentfail:read", complete: {id: "contentfail:values"}}
      fails:
        uri: "fails://{id}"
        command: [sh, -c, 'printf "line one\\\\nline two\\\\n" >&2; exit 3', "{{ id }}"]
      echo: {uri: "echo://{id}", command: [printf, "%s", "{{ id }}"]}
    prompts:
      p: {python: "contentfail:prompt"}
"""


@pytest.fixture(scope="module")
def server(tmp_path_factory: pytest.TempPathFactory) -> McpServer:
    return content_server(tmp_path_factory.mktemp("contentfail"), CONFIG,
                          {"contentfail": MODULE})


CASES = [
    ("resources/read", {"uri": "bad://x"}, -32603, -32603,
     "reading bad://x failed: ValueError: no ticket x"),
    ("resources/read", {"uri": "fails://x"}, -32603, -32603,
     "reading fails://x failed: The command exited with code 3. stderr: line one line two"),
    ("prompts/get", {"name": "p"}, -32603, -32603,
     "prompt 'p' failed: RuntimeError: prompt broke"),
    ("completion/complete", {"ref": {"type": "ref/resource", "uri": "bad://{id}"},
                             "argument": {"name": "id", "value": ""}}, -32603, -32603,
     "completing 'id' failed: KeyError: 'values broke'"),
    ("resources/read", {"uri": "echo://a%00b"}, -32002, -32602,
     "Resource not found: echo://a%00b (the value of 'id' is refused: it holds a NUL)"),
    ("resources/read", {"uri": "echo://-n"}, -32002, -32602,
     "Resource not found: echo://-n (Refused to run the command: the value of 'id' starts "
     "with '-'"),
]


@pytest.mark.parametrize("modern", [False, True], ids=["legacy", "modern"])
@pytest.mark.parametrize(("method", "params", "legacy_code", "modern_code", "message"), CASES)
def test_a_failing_content_backend_answers_one_line_naming_the_request(
        server: McpServer, modern: bool, method: str, params: dict[str, Any],
        legacy_code: int, modern_code: int, message: str) -> None:
    async def go() -> dict[str, Any]:
        extra = {"_meta": MODERN_META} if modern else {}
        answer = await server.handle({"jsonrpc": "2.0", "id": 1, "method": method,
                                      "params": {**params, **extra}})
        assert answer is not None
        return answer
    error = anyio.run(go)["error"]
    assert error["code"] == (modern_code if modern else legacy_code), error
    assert error["message"].startswith(message), error
    assert "\n" not in error["message"] and "Tool '" not in error["message"], error


def test_a_value_a_command_can_take_is_read(server: McpServer) -> None:
    """The not-found above is for values no argv can hold, not for every command read."""
    async def go() -> dict[str, Any]:
        answer = await server.handle({"jsonrpc": "2.0", "id": 1, "method": "resources/read",
                                      "params": {"uri": "echo://ok"}})
        assert answer is not None
        return answer
    assert anyio.run(go)["result"]["contents"][0]["text"] == "ok"
