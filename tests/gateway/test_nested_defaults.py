"""Defaults an upstream declares inside its arguments (``opts.limit``, each item's ``limit``)
are filled in before the rules judge a call and sent with it: the upstream fills them itself
(pydantic does), so a rule on ``opts.limit`` judged ``opts: {}`` and the upstream ran with 50.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import anyio
import pytest

from toolhost.compile.declared import declared_defaults
from toolhost.compile.defaults import fill_defaults

from .conftest import hostile_config

OPTS = {"type": "object", "properties": {"limit": {"type": "integer", "default": 50},
                                         "sort": {"type": "string"}}}
REF = {"$ref": "#/$defs/Opts"}


def _schema(opts: dict[str, Any], **defs: Any) -> dict[str, Any]:
    return {"type": "object", "properties": {"opts": opts, "q": {"type": "string"}},
            "$defs": {"Opts": OPTS, **defs}}


NODE = {"type": "object", "properties": {
    "depth": {"type": "integer", "default": 3},
    "children": {"type": "array", "items": {"$ref": "#/$defs/Node"}}}}

SHAPES = [  # (schema, call, what the rules judge and the upstream is sent)
    (_schema(OPTS), {"opts": {}}, {"opts": {"limit": 50}}),
    (_schema(OPTS), {"opts": {"limit": 5}}, {"opts": {"limit": 5}}),
    (_schema(OPTS), {"q": "x"}, {"q": "x"}),  # no object given, no default of its own
    (_schema({**OPTS, "default": {}}), {}, {"opts": {"limit": 50}}),  # its own default too
    (_schema(REF), {"opts": {"sort": "a"}}, {"opts": {"sort": "a", "limit": 50}}),  # pydantic 2
    (_schema({"allOf": [REF], "default": {"limit": 7}}), {}, {"opts": {"limit": 7}}),  # v1
    (_schema({"anyOf": [REF, {"type": "null"}], "default": None}), {"opts": {}},
     {"opts": {"limit": 50}}),  # Optional[Opts] = None
    (_schema({"anyOf": [REF, {"type": "null"}], "default": None}), {}, {"opts": None}),
    (_schema({"type": "array", "items": REF}), {"opts": [{}, {"limit": 1}]},
     {"opts": [{"limit": 50}, {"limit": 1}]}),
    (_schema({"$ref": "#/$defs/Node"}, Node=NODE),  # recursive: at every level given
     {"opts": {"children": [{"children": [{}]}]}},
     {"opts": {"depth": 3, "children": [{"depth": 3, "children": [{"depth": 3}]}]}}),
    (_schema({"$ref": "#/$defs/A"}, A={"$ref": "#/$defs/A"}), {"opts": {}}, {"opts": {}}),
]


@pytest.mark.parametrize(("schema", "call", "judged"), SHAPES)
def test_defaults_inside_arguments_are_filled_in(schema: dict[str, Any], call: dict[str, Any],
                                                  judged: dict[str, Any]) -> None:
    before = json.dumps(call)
    assert fill_defaults(declared_defaults(schema), call) == judged
    assert json.dumps(call) == before  # (the call itself is left as it came)


def test_a_schema_of_many_references_is_walked_once_per_definition() -> None:
    """Ten definitions, each naming the next ten times: 10**10 paths, 100-odd walks."""
    defs = {f"D{k}": {"type": "object", "properties": {
        **{f"p{j}": {"$ref": f"#/$defs/D{k + 1}"} for j in range(10)},
        "n": {"type": "integer", "default": k}}} for k in range(10)}
    defs["D10"] = {"type": "object"}
    found = declared_defaults({"type": "object", "properties": {"a": {"$ref": "#/$defs/D0"}},
                               "$defs": defs})
    filled = fill_defaults(found, {"a": {"p3": {"p9": {}}}})
    assert filled == {"a": {"n": 0, "p3": {"n": 1, "p9": {"n": 2}}}}


def test_definitions_nested_thousands_deep_and_a_call_as_deep_are_no_recursion_error() -> None:
    """3,000 definitions each inside the last (a hostile upstream's), and a recursive one
    met by a call 5,000 levels deep: read without recursion; the call is filled when it
    gives every default past the fill's depth, refused (FillTooDeep) when one is left."""
    from toolhost.compile.defaults import FillTooDeep

    defs = {f"D{k}": {"type": "object", "properties": {
        "x": {"$ref": f"#/$defs/D{k + 1}"}, "n": {"type": "integer", "default": k}}}
        for k in range(3000)}
    found = declared_defaults({"type": "object", "properties": {"a": {"$ref": "#/$defs/D0"}},
                               "$defs": defs})
    assert fill_defaults(found, {"a": {"x": {"x": {}}}}) == {
        "a": {"n": 0, "x": {"n": 1, "x": {"n": 2}}}}
    given: dict[str, Any] = {"depth": 1}
    for _ in range(5000):
        given = {"depth": 1, "children": [given]}
    left: dict[str, Any] = {}
    for _ in range(5000):
        left = {"depth": 1, "children": [left]}
    node_defaults = declared_defaults(_schema({"$ref": "#/$defs/Node"}, Node=NODE))
    assert fill_defaults(node_defaults, {"opts": given})["opts"] is given
    with pytest.raises(FillTooDeep):
        fill_defaults(node_defaults, {"opts": left})


NESTED_TOOL = json.dumps([{"name": name, "inputSchema": {
    "type": "object", "properties": {"opts": {"$ref": "#/$defs/Opts"}, "q": {"type": "string"}},
    "$defs": {"Opts": OPTS}}} for name in ("find", "tight")])


def test_a_rule_on_a_default_inside_an_argument_judges_what_the_upstream_is_sent(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """A real upstream and host: the policy the CLI's can_use_tool (and serve) asks, and the
    call as the upstream receives it."""
    from toolhost.host import load_host

    monkeypatch.setenv("HOSTILE_TOOLS", NESTED_TOOL)
    config = hostile_config(tmp_path, extra="    tools:\n      tight:\n        params: "
                            "{opts: {properties: {limit: {maximum: 10}}}}\n")
    config.write_text(config.read_text() + "  deny:\n    - tool: mcp__h__find\n"
                      "      when: {opts.limit: {min: 10}}\n")

    async def main() -> None:
        host = load_host(config)

        async def call(name: str, arguments: dict[str, Any]) -> dict[str, Any]:
            answer = await host.servers["h"].handle({
                "jsonrpc": "2.0", "id": 1, "method": "tools/call",
                "params": {"name": name, "arguments": arguments}})
            assert answer is not None
            return dict(answer["result"])

        try:
            for given, behavior in [({"q": "x", "opts": {}}, "deny"),
                                   ({"q": "x", "opts": {"sort": "new"}}, "deny"),
                                   ({"q": "x", "opts": {"limit": 5}}, "allow"),
                                   ({"q": "x"}, "allow")]:
                assert host.policy.decide("mcp__h__find", given).behavior == behavior, given
            said = (await call("find", {"opts": {"sort": "new"}}))["content"][0]["text"]
            assert json.loads(said.split(" with ", 1)[1]) == {"opts": {"sort": "new",
                                                                       "limit": 50}}
            # params allow at most 10, the upstream's own default is 50: it would apply it
            refused = await call("tight", {"opts": {}})
            assert refused["isError"] and "opts.limit: 50 is greater than the maximum of 10" \
                in refused["content"][0]["text"]
            said = (await call("tight", {"opts": {"limit": 5}}))["content"][0]["text"]
            assert said.endswith('{"opts": {"limit": 5}}')
        finally:
            await host.aclose()

    anyio.run(main)


def test_an_openapi_operations_defaults_behind_refs_and_inside_its_body_are_judged(
        tmp_path: Path) -> None:
    """A query parameter whose schema is a component (``$ref``) with a default, and a body
    whose component declares one inside: the service fills both in itself."""
    from toolhost.host import load_host

    doc = {"openapi": "3.0.3", "info": {"title": "t", "version": "1"},
           "servers": [{"url": "http://127.0.0.1:1/v1"}],
           "components": {"schemas": {"Lim": {"type": "integer", "default": 20},
                                      "Body": OPTS}},
           "paths": {"/items": {"post": {
               "operationId": "item",
               "parameters": [{"name": "limit", "in": "query",
                               "schema": {"$ref": "#/components/schemas/Lim"}}],
               "requestBody": {"content": {"application/json": {
                   "schema": {"$ref": "#/components/schemas/Body"}}}},
               "responses": {"200": {"description": "ok"}}}}}}
    (tmp_path / "api.json").write_text(json.dumps(doc))
    config = tmp_path / "toolhost.yaml"
    config.write_text("toolhost: 1\nservers:\n  api:\n    openapi: api.json\npermissions:\n"
                      "  default: allow\n  deny:\n    - tool: mcp__api__item\n"
                      "      when: {limit: {min: 10}}\n    - tool: mcp__api__item\n"
                      "      when: {body.limit: {min: 10}}\n")

    async def main() -> None:
        host = load_host(config)
        try:
            for call, behavior in [({}, "deny"), ({"limit": 5}, "allow"),
                                   ({"limit": 5, "body": {}}, "deny"),
                                   ({"limit": 5, "body": {"limit": 1}}, "allow")]:
                assert host.policy.decide("mcp__api__item", call).behavior == behavior, call
        finally:
            await host.aclose()

    anyio.run(main)


def test_an_openapi_discriminator_names_the_branch_whose_defaults_are_judged(
        tmp_path: Path) -> None:
    """A body that is a ``Cat`` or a ``Dog`` by its ``pet_type`` (the document's
    discriminator, dropped from the inputSchema): each branch's own defaults are judged,
    told apart by the discriminator's value written into the branch."""
    from toolhost.host import load_host

    def pet(lives: int) -> dict[str, Any]:
        return {"type": "object", "required": ["pet_type"], "properties": {
            "pet_type": {"type": "string"}, "lives": {"type": "integer", "default": lives}}}

    doc = {"openapi": "3.0.3", "info": {"title": "t", "version": "1"},
           "servers": [{"url": "http://127.0.0.1:1/v1"}],
           "components": {"schemas": {"Cat": pet(9), "Dog": pet(1)}},
           "paths": {"/pets": {"post": {
               "operationId": "add",
               "requestBody": {"content": {"application/json": {"schema": {
                   "oneOf": [{"$ref": "#/components/schemas/Cat"},
                             {"$ref": "#/components/schemas/Dog"}],
                   "discriminator": {"propertyName": "pet_type", "mapping": {
                       "cat": "#/components/schemas/Cat", "dog": "Dog"}}}}}},
               "responses": {"200": {"description": "ok"}}}}}}
    (tmp_path / "api.json").write_text(json.dumps(doc))
    config = tmp_path / "toolhost.yaml"
    config.write_text("toolhost: 1\nservers:\n  api:\n    openapi: api.json\npermissions:\n"
                      "  default: allow\n  deny:\n    - tool: mcp__api__add\n"
                      "      when: {body.lives: {min: 5}}\n")

    async def main() -> None:
        host = load_host(config)
        try:
            for body, behavior in [({"pet_type": "cat"}, "deny"), ({"pet_type": "dog"}, "allow"),
                                   ({"pet_type": "cat", "lives": 1}, "allow")]:
                assert host.policy.decide("mcp__api__add", {"body": body}).behavior \
                    == behavior, body
        finally:
            await host.aclose()

    anyio.run(main)


BOX_TOOL = json.dumps([{"name": "pack", "inputSchema": {
    "type": "object", "properties": {"box": {"anyOf": [{"$ref": "#/$defs/Small"},
                                                       {"$ref": "#/$defs/Big"}]}},
    "$defs": {"Small": {"type": "object", "properties": {"size": {"default": 1}}},
              "Big": {"type": "object", "properties": {"size": {"default": 10},
                                                       "extra": {"default": "y"}}}}}}])


def test_an_untagged_union_is_judged_in_every_way_and_sent_as_given(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """A real upstream listing ``box: Small | Big`` (no discriminator): the rules judge each
    branch's fill, and an allowed call reaches the upstream with the box as given."""
    from toolhost.host import load_host

    monkeypatch.setenv("HOSTILE_TOOLS", BOX_TOOL)
    config = hostile_config(tmp_path)
    config.write_text(config.read_text() + "  deny:\n    - tool: mcp__h__pack\n"
                      "      when: {box.size: {min: 5}}\n")

    async def main() -> None:
        host = load_host(config)
        try:
            decide = host.policy.decide
            assert decide("mcp__h__pack", {"box": {}}).behavior == "deny"  # a Big: 10
            assert decide("mcp__h__pack", {"box": {"size": 2}}).behavior == "allow"
            answer = await host.servers["h"].handle({
                "jsonrpc": "2.0", "id": 1, "method": "tools/call",
                "params": {"name": "pack", "arguments": {"box": {"size": 2}}}})
            assert answer is not None
            said = answer["result"]["content"][0]["text"]
            assert json.loads(said.split(" with ", 1)[1]) == {"box": {"size": 2}}
        finally:
            await host.aclose()

    anyio.run(main)
