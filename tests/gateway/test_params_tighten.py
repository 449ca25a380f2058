"""``params:`` over an imported argument may only tighten it (toolhost.gateway.tighten): a
looser bound, an enum value the upstream lacks or another type would show the model (and
toolhost's own check) a schema the upstream does not accept; a located problem names both
values. What tightens, or adds what the upstream left open, is kept."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from toolhost.config.model import Origin
from toolhost.gateway.reshape import reshape_tools
from toolhost.gateway.spec import Reshape, UpstreamSpec

TOOL = {"name": "find", "inputSchema": {"type": "object", "properties": {
    "limit": {"type": "integer", "minimum": 1, "maximum": 100},
    "text": {"type": "string", "maxLength": 50},
    "kind": {"type": "string", "enum": ["bug", "idea"]},
    "score": {"type": "number"}}}}
AT = Origin("gw.yaml", 9, 7, "servers.up.tools.find")

CASES: list[tuple[dict[str, Any], str]] = [
    ({"limit": {"maximum": 1000}}, "params.limit.maximum: params may only tighten upstream "
     "tool 'find''s schema of 'limit': maximum 1000 is looser than the upstream's 100"),
    ({"limit": {"minimum": 0}}, "params.limit.minimum: params may only tighten upstream "
     "tool 'find''s schema of 'limit': minimum 0 is looser than the upstream's 1"),
    ({"text": {"maxLength": 500}}, "maxLength 500 is looser than the upstream's 50"),
    ({"kind": {"enum": ["bug", "chore"]}}, "enum 'chore' is not one of the upstream's "
     "values ('bug', 'idea')"),
    ({"limit": {"type": "string"}}, "type 'string' is not the upstream's type ('integer')"),
    # tightening, or what the upstream left open: kept
    ({"limit": {"maximum": 10, "minimum": 2}}, ""),
    ({"kind": {"enum": ["bug"]}, "text": {"maxLength": 10, "pattern": "^[a-z]+$"}}, ""),
    ({"score": {"type": "integer", "maximum": 5}}, ""),  # integer within number
    ({"limit": {"description": "How many (at most 10)", "maximum": 10}}, ""),
]


@pytest.mark.parametrize(("params", "said"), CASES)
def test_params_over_an_upstream_tool_only_tighten(params: dict[str, Any], said: str) -> None:
    spec = UpstreamSpec(command=("x",), reshape={"find": Reshape(origin=AT, params=params)})
    imported, problems = reshape_tools(spec, [TOOL], "up")
    shown = [str(p) for p in problems]
    if not said:
        assert shown == [] and len(imported) == 1
        props = imported[0].input_schema["properties"]
        assert all(props[k][key] == v for k, p in params.items() for key, v in p.items())
        return
    assert len(shown) == 1 and said in shown[0] and shown[0].startswith("gw.yaml:9:7: "), \
        shown


def test_params_over_an_openapi_parameter_only_tighten(tmp_path: Path) -> None:
    from toolhost.config.loader import load_config
    from toolhost.errors import ConfigError

    doc = {"openapi": "3.1.0", "info": {"title": "t", "version": "1"},
           "servers": [{"url": "http://127.0.0.1:1/v1"}],
           "paths": {"/items": {"get": {"operationId": "list", "parameters": [
               {"name": "limit", "in": "query", "schema": {"type": "integer", "maximum": 50}}],
               "responses": {"200": {"description": "ok"}}}}}}
    (tmp_path / "api.json").write_text(json.dumps(doc))
    config = tmp_path / "toolhost.yaml"
    config.write_text("toolhost: 1\nservers:\n  api:\n    openapi: api.json\n"
                      "    tools: {list: {params: {limit: {maximum: 500}}}}\n")
    with pytest.raises(ConfigError) as raised:
        load_config(config, environ={"TOOLHOST_CACHE": str(tmp_path)}, layers=False)
    shown = [str(p) for p in raised.value.problems]
    assert any("servers.api.tools.list.params.limit.maximum: params may only tighten the "
               "document's schema of 'limit': maximum 500 is looser than the upstream's 50"
               in s for s in shown), shown
    config.write_text("toolhost: 1\nservers:\n  api:\n    openapi: api.json\n"
                      "    tools: {list: {params: {limit: {maximum: 5}}}}\n")
    load_config(config, environ={"TOOLHOST_CACHE": str(tmp_path)}, layers=False)


REFS = {"name": "find", "inputSchema": {
    "type": "object", "properties": {"kind": {"$ref": "#/$defs/Kind"},
                                     "limit": {"$ref": "#/$defs/Lim"}},
    "$defs": {"Kind": {"type": "string", "enum": ["bug", "idea"]},  # a pydantic enum
              "Lim": {"type": "integer", "maximum": 100}}}}


@pytest.mark.parametrize(("params", "said"), [
    ({"kind": {"enum": ["bug", "chore"]}}, "enum 'chore' is not one of the upstream's "
     "values ('bug', 'idea')"),
    ({"limit": {"maximum": 1000}}, "maximum 1000 is looser than the upstream's 100"),
    ({"kind": {"enum": ["bug"]}, "limit": {"maximum": 10}}, ""),
])
def test_params_over_an_argument_behind_a_ref_only_tighten(params: dict[str, Any],
                                                           said: str) -> None:
    """The upstream's bound behind a ``$ref`` (pydantic writes an enum argument so) is the
    one params must not loosen; before, it was not seen, and the model was shown both."""
    spec = UpstreamSpec(command=("x",), reshape={"find": Reshape(origin=AT, params=params)})
    imported, problems = reshape_tools(spec, [REFS], "up")
    shown = [str(p) for p in problems]
    if said:
        assert len(shown) == 1 and said in shown[0], shown
        return
    props = imported[0].input_schema["properties"]
    assert shown == [] and props["kind"] == {"type": "string", "enum": ["bug"]}
    assert props["limit"] == {"type": "integer", "maximum": 10}


def test_params_over_a_component_parameter_only_tighten(tmp_path: Path) -> None:
    from toolhost.config.loader import load_config
    from toolhost.errors import ConfigError

    doc = {"openapi": "3.1.0", "info": {"title": "t", "version": "1"},
           "servers": [{"url": "http://127.0.0.1:1/v1"}],
           "components": {"schemas": {"Status": {"type": "string",
                                                 "enum": ["open", "closed"]}}},
           "paths": {"/items": {"get": {"operationId": "list", "parameters": [
               {"name": "status", "in": "query",
                "schema": {"$ref": "#/components/schemas/Status"}}],
               "responses": {"200": {"description": "ok"}}}}}}
    (tmp_path / "api.json").write_text(json.dumps(doc))
    config = tmp_path / "toolhost.yaml"
    config.write_text("toolhost: 1\nservers:\n  api:\n    openapi: api.json\n"
                      "    tools: {list: {params: {status: {enum: [open, deleted]}}}}\n")
    with pytest.raises(ConfigError) as raised:
        load_config(config, environ={"TOOLHOST_CACHE": str(tmp_path)}, layers=False)
    shown = [str(p) for p in raised.value.problems]
    assert any("params.status.enum: params may only tighten the document's schema of "
               "'status': enum 'deleted' is not one of the upstream's values" in s
               for s in shown), shown
    config.write_text("toolhost: 1\nservers:\n  api:\n    openapi: api.json\n"
                      "    tools: {list: {params: {status: {enum: [open]}}}}\n")
    loaded = load_config(config, environ={"TOOLHOST_CACHE": str(tmp_path)}, layers=False)
    schema = loaded.servers["api"].tools["list"].input_schema
    assert schema["properties"]["status"] == {"type": "string", "enum": ["open"]}


# FastAPI with pydantic v1 and many OpenAPI 3.0 documents wrap a $ref in allOf (its siblings
# were ignored beside a $ref): the bounds and the default sit in the parts
WRAPPED = {"name": "find", "inputSchema": {"type": "object", "properties": {
    "limit": {"allOf": [{"$ref": "#/$defs/Limit"}], "description": "How many"},
    "kind": {"allOf": [{"$ref": "#/$defs/Kind"}, {"enum": ["bug", "idea", "chore"]}]},
    "deep": {"allOf": [{"allOf": [{"type": "integer", "maximum": 7}]}]}},
    "$defs": {"Limit": {"type": "integer", "minimum": 1, "maximum": 100, "default": 20},
              "Kind": {"type": "string", "enum": ["bug", "idea"]}}}}


@pytest.mark.parametrize(("params", "said"), [
    ({"limit": {"maximum": 1000}}, "params.limit.maximum: params may only tighten upstream "
     "tool 'find''s schema of 'limit': maximum 1000 is looser than the upstream's 100"),
    ({"kind": {"enum": ["bug", "chore"]}}, "enum 'chore' is not one of the upstream's values "
     "('bug', 'idea')"),
    ({"deep": {"maximum": 8}}, "maximum 8 is looser than the upstream's 7"),
    ({"limit": {"type": "string"}}, "type 'string' is not the upstream's type ('integer')"),
    ({"limit": {"maximum": 10}}, "params.limit: the default of upstream tool 'find' for "
     "'limit' (20) does not fit the tightened schema (20 is greater than the maximum of 10)"),
    ({"limit": {"maximum": 50, "minimum": 5}, "kind": {"enum": ["idea"]},
      "deep": {"maximum": 3}}, ""),
])
def test_params_over_an_argument_in_allof_parts_only_tighten(params: dict[str, Any],
                                                            said: str) -> None:
    spec = UpstreamSpec(command=("x",), reshape={"find": Reshape(origin=AT, params=params)})
    imported, problems = reshape_tools(spec, [WRAPPED], "up")
    shown = [str(p) for p in problems]
    if not said:
        assert shown == [] and len(imported) == 1
        return
    assert len(shown) == 1 and said in shown[0], shown


def test_params_over_an_openapi_parameter_in_allof_parts_only_tighten(tmp_path: Path) -> None:
    from toolhost.config.loader import load_config
    from toolhost.errors import ConfigError

    doc = {"openapi": "3.0.3", "info": {"title": "t", "version": "1"},
           "servers": [{"url": "http://127.0.0.1:1/v1"}],
           "components": {"schemas": {"Limit": {"type": "integer", "maximum": 100,
                                                "default": 20}}},
           "paths": {"/items": {"get": {"operationId": "list", "parameters": [
               {"name": "limit", "in": "query",
                "schema": {"allOf": [{"$ref": "#/components/schemas/Limit"}]}}],
               "responses": {"200": {"description": "ok"}}}}}}
    (tmp_path / "api.json").write_text(json.dumps(doc))
    config = tmp_path / "toolhost.yaml"
    for tight, said in [("{maximum: 1000}", "servers.api.tools.list.params.limit.maximum: "
                         "params may only tighten the document's schema of 'limit': maximum "
                         "1000 is looser than the upstream's 100"),
                        ("{maximum: 10}", "servers.api.tools.list.params.limit: the default "
                         "of 'limit' (20) does not fit its schema")]:
        config.write_text("toolhost: 1\nservers:\n  api:\n    openapi: api.json\n"
                          f"    tools: {{list: {{params: {{limit: {tight}}}}}}}\n")
        with pytest.raises(ConfigError) as raised:
            load_config(config, environ={"TOOLHOST_CACHE": str(tmp_path)}, layers=False)
        shown = [str(p) for p in raised.value.problems]
        assert any(said in s for s in shown), shown
    config.write_text("toolhost: 1\nservers:\n  api:\n    openapi: api.json\n"
                      "    tools: {list: {params: {limit: {maximum: 50}}}}\n")
    load_config(config, environ={"TOOLHOST_CACHE": str(tmp_path)}, layers=False)


KEYWORDS = {"name": "find", "inputSchema": {"type": "object", "properties": {
    "code": {"type": "string", "pattern": "^[a-z]{1,8}$"},
    "tags": {"type": "array", "items": {"type": "string", "enum": ["a", "b"]},
             "uniqueItems": True},
    "filter": {"type": "object", "properties": {"repo": {"type": "string", "enum": ["ours"]},
                                                "q": {"type": "string", "maxLength": 5}},
               "required": ["repo"]},
    "step": {"type": "integer", "multipleOf": 10},
    "id": {"type": "string", "format": "uuid"},
    "n": {"type": "integer", "allOf": [{"maximum": 5}]},
    "x": {"type": "string", "not": {"const": "admin"}}}}}
UUID = "0b4c5e1e-4b0e-4c7e-9f6a-5b8f5a2f3d11"


# (params, a value the upstream's schema refuses, a value both allow)
@pytest.mark.parametrize(("params", "refused", "kept"), [
    ({"code": {"pattern": "^.*$"}}, {"code": "../../etc"}, {"code": "abc"}),
    ({"tags": {"items": {"type": "string"}}}, {"tags": ["zzz"]}, {"tags": ["a"]}),
    ({"tags": {"uniqueItems": False}}, {"tags": ["a", "a"]}, {"tags": ["a", "b"]}),
    ({"filter": {"properties": {"q": {"maxLength": 3}}}}, {"filter": {"repo": "theirs"}},
     {"filter": {"repo": "ours", "q": "ab"}}),
    ({"filter": {"required": ["q"]}}, {"filter": {"q": "x"}},
     {"filter": {"repo": "ours", "q": "x"}}),
    ({"step": {"multipleOf": 3}}, {"step": 3}, {"step": 30}),
    ({"id": {"format": "email"}}, {"id": "a@b.co"}, None),
    ({"n": {"allOf": [{"minimum": 1}]}}, {"n": 99}, {"n": 2}),
    ({"x": {"not": {"const": "nobody"}}}, {"x": "admin"}, {"x": "me"}),
])
def test_params_never_replace_a_keyword_they_cannot_be_compared_with(
        params: dict[str, Any], refused: dict[str, Any], kept: dict[str, Any] | None) -> None:
    """A keyword ``params`` shares with the upstream's schema that tightening cannot compare
    (a pattern, a format, items, a nested object's properties or required, ...) holds beside
    the upstream's, never instead of it; before, ``pattern: ".*"`` over ``^[a-z]{1,8}$`` (or
    ``items: {type: string}`` over an enum of items) let the model send what the upstream's
    schema refuses, and toolhost's check passed it."""
    from toolhost import regex

    spec = UpstreamSpec(command=("x",), reshape={"find": Reshape(origin=AT, params=params)})
    imported, problems = reshape_tools(spec, [KEYWORDS], "up")
    assert problems == [] and len(imported) == 1
    cls = regex.validator_class()
    check = cls(imported[0].input_schema, format_checker=cls.FORMAT_CHECKER)
    assert not cls(KEYWORDS["inputSchema"], format_checker=cls.FORMAT_CHECKER).is_valid(refused)
    assert not check.is_valid(refused), imported[0].input_schema
    assert kept is None or check.is_valid(kept)


@pytest.mark.parametrize(("schema", "params", "said"), [
    ({"type": "string", "const": "safe"}, {"const": "unsafe"},
     "const 'unsafe' is not the upstream's const ('safe')"),
    ({"type": "string", "enum": ["a", "b"]}, {"const": "c"},
     "const 'c' is not one of the upstream's values ('a', 'b')"),
    ({"type": "string", "const": "a"}, {"enum": ["a", "z"]},
     "enum 'z' is not the upstream's const ('a')"),
])
def test_params_const_only_narrows(schema: dict[str, Any], params: dict[str, Any],
                                   said: str) -> None:
    tool = {"name": "find", "inputSchema": {"type": "object", "properties": {"v": schema}}}
    spec = UpstreamSpec(command=("x",), reshape={"find": Reshape(origin=AT,
                                                                 params={"v": params})})
    shown = [str(p) for p in reshape_tools(spec, [tool], "up")[1]]
    assert len(shown) == 1 and said in shown[0], shown


def test_params_over_an_openapi_body_keep_the_document_s_own_properties(
        tmp_path: Path) -> None:
    """``params: {body: {properties: {name: ...}}}`` tightens ``name`` and leaves the
    document's other properties as they are; before, it replaced them, so ``role``'s
    ``enum: [user]`` was gone and ``role: admin`` passed toolhost's check."""
    from toolhost.compile.validators import LazyValidator
    from toolhost.config.loader import load_config

    doc = {"openapi": "3.1.0", "info": {"title": "t", "version": "1"},
           "servers": [{"url": "http://127.0.0.1:1/v1"}],
           "paths": {"/users": {"post": {"operationId": "add", "requestBody": {
               "required": True, "content": {"application/json": {"schema": {
                   "type": "object", "required": ["name"], "properties": {
                       "name": {"type": "string", "maxLength": 50},
                       "role": {"type": "string", "enum": ["user"]}}}}}},
               "responses": {"200": {"description": "ok"}}}}}}
    (tmp_path / "api.json").write_text(json.dumps(doc))
    config = tmp_path / "toolhost.yaml"
    config.write_text("toolhost: 1\nservers:\n  api:\n    openapi: api.json\n    tools: {add: "
                      "{params: {body: {properties: {name: {maxLength: 10}}}}}}\n")
    loaded = load_config(config, environ={"TOOLHOST_CACHE": str(tmp_path)}, layers=False)
    schema = loaded.servers["api"].tools["add"].input_schema
    check = LazyValidator(schema, formats=True)
    assert not check.is_valid({"body": {"name": "me", "role": "admin"}}), schema
    assert not check.is_valid({"body": {"name": "x" * 11}})
    assert check.is_valid({"body": {"name": "me", "role": "user"}})


@pytest.mark.parametrize(("schema", "reshape", "shown", "said"), [
    (True, Reshape(origin=AT, params={"x": {"maxLength": 5}}), {"maxLength": 5}, ""),
    (True, Reshape(origin=AT, defaults={"x": "a"}), {"default": "a"}, ""),
    (False, Reshape(origin=AT, params={"x": {"maxLength": 5}}),
     {"not": {}, "maxLength": 5}, ""),
    (False, Reshape(origin=AT, defaults={"x": "a"}), {"not": {}, "default": "a"},
     "defaults.x: 'a' does not fit the argument's schema"),
])
def test_params_and_defaults_over_a_boolean_schema(schema: bool, reshape: Reshape,
                                                   shown: dict[str, Any], said: str) -> None:
    """An argument whose schema is JSON Schema's ``true`` (anything) or ``false`` is the
    object it stands for; before, ``params`` or ``defaults`` over it stopped the start with
    'internal error: TypeError: 'bool' object is not iterable'."""
    tool = {"name": "find", "inputSchema": {"type": "object", "properties": {"x": schema}}}
    spec = UpstreamSpec(command=("x",), reshape={"find": reshape})
    imported, problems = reshape_tools(spec, [tool], "up")
    assert imported[0].input_schema["properties"]["x"] == shown
    assert [said in str(p) for p in problems] == ([True] if said else [])
