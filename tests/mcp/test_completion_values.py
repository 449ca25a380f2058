"""What a completion function returns becomes completion values: a list's strings and
numbers (a None or an object in it is no value); a list too long for max_output_chars gives
the values that arrived whole and ``hasMore`` (never the head of its JSON and the cut note
as two "values"); an object is -32603 saying what a completion function returns."""

from __future__ import annotations

from typing import Any

import pytest

from toolhost.mcp import McpServer

from .mcp_testtools import ask, content_server

MODULE = '''\
def many(value: str) -> list:
    return ["v%d" % i for i in range(200_000)]

def endless(value: str):
    i = 0
    while True:
        yield "g%d" % i
        i += 1

def mixed(value: str) -> list:
    return ["a", None, 3, 2.5, True, {"x": 1}, ["l"]]

def mapping(value: str) -> dict:
    return {"values": ["a"]}

def echo(value: str) -> list:
    return [value]

def fetch(x: str) -> str:
    return x
'''
NAMES = ("many", "endless", "mixed", "mapping", "echo")


@pytest.fixture(scope="module")
def server(tmp_path_factory: pytest.TempPathFactory) -> McpServer:
    config = "toolhost: 1\nservers:\n  kb:\n    resources:\n" + "".join(
        f"      {name}: {{uri: '{name}://{{x}}', python: 'compvalues:fetch', "
        f"complete: {{x: 'compvalues:{name}'}}}}\n" for name in NAMES)
    return content_server(tmp_path_factory.mktemp("compvalues"), config,
                          {"compvalues": MODULE})


def complete(server: McpServer, name: str, value: str = "") -> dict[str, Any]:
    return ask(server, "completion/complete", {
        "ref": {"type": "ref/resource", "uri": f"{name}://{{x}}"},
        "argument": {"name": "x", "value": value}})


@pytest.mark.parametrize("checked", [False, True])
@pytest.mark.parametrize(("name", "prefix", "first"), [
    ("many", "", "v"), ("many", "v1", "v1"), ("endless", "", "g"), ("endless", "g2", "g2")])
def test_values_past_the_output_cap_are_the_whole_ones_and_has_more(
        server: McpServer, name: str, prefix: str, first: str, checked: bool) -> None:
    server.read_visible = (lambda uri: True) if checked else None  # the rules' path too
    completion = complete(server, name, prefix)["result"]["completion"]
    values = completion["values"]
    assert len(values) == 100 and completion["hasMore"] is True and "total" not in completion
    assert all(v.startswith(first) and v[1:].isdigit() for v in values), values[:3]
    assert values == sorted(values, key=lambda v: int(v[1:]))


def test_a_value_is_a_string_or_a_number(server: McpServer) -> None:
    assert complete(server, "mixed")["result"]["completion"] == {
        "values": ["a", "3", "2.5"], "total": 3, "hasMore": False}


def test_an_object_returned_is_an_error_saying_what_to_return(server: McpServer) -> None:
    error = complete(server, "mapping")["error"]
    assert error["code"] == -32603
    assert "a completion function returns a list of strings" in error["message"]


@pytest.mark.parametrize("size", [1000, 1001, 3_000_000])
def test_a_value_to_complete_is_whole_or_refused(server: McpServer, size: int) -> None:
    # cut at 1,000 characters it reached the function with a note of the rest, and the
    # values it gave completed a value nobody typed ("xx…2,999,000 more characters...")
    answer = complete(server, "echo", "x" * size)
    if size <= 1000:
        assert answer["result"]["completion"]["values"] == ["x" * size]
    else:
        assert answer["error"] == {"code": -32602, "message": "Invalid params: the value of "
                                   f"'x' to complete is {size:,} characters; at most 1,000"}


CONTEXT_MODULE = '''\
DOCS = {"red": ["roadmap", "retro"], "blue": ["readme", "budget"]}

def docs(value: str, context: dict[str, str]) -> list[str]:
    return DOCS.get(context.get("team", ""), [])

def plain(value: str) -> list[str]:
    return ["one", "two"]

def fetch(team: str, doc: str) -> str:
    return team + doc
'''
CONTEXT_CONFIG = """\
toolhost: 1
servers:
  kb:
    resources:
      pair:
        uri: "pairs://{team}/{doc}"
        python: ctxcomp:fetch
        complete: {doc: "ctxcomp:docs", team: "ctxcomp:plain"}
    prompts:
      review:
        arguments:
          team: {}
          doc: {complete: "ctxcomp:docs"}
        template: "{{ team }} {{ doc }}"
"""


@pytest.fixture(scope="module")
def context_server(tmp_path_factory: pytest.TempPathFactory) -> McpServer:
    return content_server(tmp_path_factory.mktemp("ctxcomp"), CONTEXT_CONFIG,
                          {"ctxcomp": CONTEXT_MODULE})


@pytest.mark.parametrize("ref", [{"type": "ref/resource", "uri": "pairs://{team}/{doc}"},
                                 {"type": "ref/prompt", "name": "review"}])
def test_a_completion_function_hears_the_arguments_already_filled_in(
        context_server: McpServer, ref: dict[str, str]) -> None:
    server = context_server

    def values(argument: str, value: str, context: Any = None) -> list[str]:
        params: dict[str, Any] = {"ref": ref, "argument": {"name": argument, "value": value}}
        if context is not None:
            params["context"] = context
        answer = ask(server, "completion/complete", params)
        return answer["result"]["completion"]["values"]  # type: ignore[no-any-return]

    assert values("doc", "", {"arguments": {"team": "red"}}) == ["roadmap", "retro"]
    assert values("doc", "b", {"arguments": {"team": "blue"}}) == ["budget"]
    assert values("doc", "") == []  # no context: the function hears {}
    assert values("doc", "", {"arguments": {"team": 5}}) == []  # not a string: left out
    assert values("doc", "", "junk") == []
    if ref["type"] == "ref/resource":  # a function without the parameter: as before
        assert values("team", "", {"arguments": {"doc": "x"}}) == ["one", "two"]
