"""completion/complete of an argument the prompt or template does not have is -32602 naming
its arguments (the spec's Invalid params, as for an unknown prompt); an argument it has but
no completion is declared for completes to nothing."""

from __future__ import annotations

from typing import Any

import pytest

from toolhost.compile.resource_uri import variables
from toolhost.mcp import McpServer

from .mcp_testtools import MODERN_META, ask, content_server

MODULE = '''\
def greet(name: str, tone: str = "warm") -> str:
    return f"Say hello to {name}, {tone}ly"

def fetch(team: str, id: str) -> str:
    return team + id
'''
CONFIG = """\
toolhost: 1
servers:
  kb:
    resources:
      notes:
        uri: "notes://{team}/{+id}"
        python: "comparguments:fetch"
        complete: {team: [red, blue]}
      readme: {file: kb.yaml, uri: "docs://readme"}
    prompts:
      review:
        arguments: {lang: {required: true, complete: [python, perl]}, style: {}}
        template: "Review {{ lang }} in {{ style }}"
      greet: {python: "comparguments:greet"}
      plain: {template: "Hello"}
"""


@pytest.fixture(scope="module")
def server(tmp_path_factory: pytest.TempPathFactory) -> McpServer:
    return content_server(tmp_path_factory.mktemp("comparguments"), CONFIG,
                          {"comparguments": MODULE})


def complete(server: McpServer, ref: dict[str, Any], argument: str, modern: bool = False
             ) -> dict[str, Any]:
    params: dict[str, Any] = {"ref": ref, "argument": {"name": argument, "value": ""}}
    if modern:
        params["_meta"] = MODERN_META
    return ask(server, "completion/complete", params)


PROMPT = {"type": "ref/prompt", "name": "review"}
TEMPLATE = {"type": "ref/resource", "uri": "notes://{team}/{+id}"}


@pytest.mark.parametrize("modern", [False, True])
@pytest.mark.parametrize(("ref", "argument", "known"), [
    (PROMPT, "language", "lang, style"),
    (PROMPT, "", "lang, style"),
    ({"type": "ref/prompt", "name": "greet"}, "who", "name, tone"),
    ({"type": "ref/prompt", "name": "plain"}, "x", "none"),
    (TEMPLATE, "teams", "id, team"),
    ({"type": "ref/resource", "uri": "NOTES://{team}/{+id}"}, "x", "id, team"),
])
def test_an_argument_the_ref_does_not_have_is_invalid_params(
        server: McpServer, ref: dict[str, Any], argument: str, known: str,
        modern: bool) -> None:
    answer = complete(server, ref, argument, modern)
    assert "error" in answer, answer
    assert answer["error"]["code"] == -32602
    message = answer["error"]["message"]
    assert repr(argument) in message and f"(its arguments: {known})" in message, message


@pytest.mark.parametrize(("ref", "argument", "values"), [
    (PROMPT, "lang", ["python", "perl"]),
    (PROMPT, "style", []),  # declared, nothing to complete it with
    ({"type": "ref/prompt", "name": "greet"}, "tone", []),
    (TEMPLATE, "team", ["red", "blue"]),
    (TEMPLATE, "id", []),
    ({"type": "ref/resource", "uri": "docs://readme"}, "anything", []),  # a static resource
])
def test_an_argument_the_ref_has_completes(server: McpServer, ref: dict[str, Any],
                                           argument: str, values: list[str]) -> None:
    answer = complete(server, ref, argument)
    assert answer["result"]["completion"]["values"] == values, answer


@pytest.mark.parametrize(("template", "names"), [
    ("a://{x}", {"x"}), ("a://{+path}/{#frag}", {"path", "frag"}),
    ("a://{?q,page}{&more}", {"q", "page", "more"}), ("a://{list*}/{name:3}", {"list", "name"}),
    ("a://plain", set()),
])
def test_the_variables_of_a_template(template: str, names: set[str]) -> None:
    assert variables(template) == names
