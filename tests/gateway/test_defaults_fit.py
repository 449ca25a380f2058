"""A default toolhost would fill in (after the arguments are checked) must fit the reshaped
schema: the config's ``defaults``, or the upstream's (the document's) own default of an
argument ``params`` tightens. ``params: {limit: {maximum: 10}}`` over an upstream default of
20 sent ``limit: 20`` on every call that left it out."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from toolhost.config.model import Origin
from toolhost.gateway.reshape import reshape_tools
from toolhost.gateway.spec import Reshape, UpstreamSpec

SEARCH = {"name": "search", "inputSchema": {"type": "object", "properties": {
    "query": {"type": "string"},
    "limit": {"type": "integer", "default": 20},
    "kind": {"$ref": "#/$defs/Kind", "default": "bug"}},
    "$defs": {"Kind": {"enum": ["bug", "idea"]}}}}
AT = Origin("gw.yaml", 9, 7, "servers.up.tools.search")


@pytest.mark.parametrize(("reshape", "said"), [
    ({"params": {"limit": {"maximum": 10}}},
     "servers.up.tools.search.params.limit: the default of upstream tool 'search' for 'limit' "
     "(20) does not fit the tightened schema (20 is greater than the maximum of 10)"),
    ({"defaults": {"limit": 50}, "params": {"limit": {"maximum": 10}}},
     "servers.up.tools.search.defaults.limit: 50 does not fit the argument's schema (50 is "
     "greater than the maximum of 10)"),
    ({"defaults": {"kind": "chore"}},  # through a $ref of the schema
     "servers.up.tools.search.defaults.kind: 'chore' does not fit the argument's schema "
     "('chore' is not one of ['bug', 'idea'])"),
    ({"defaults": {"limit": 5}, "params": {"limit": {"maximum": 10}}}, ""),  # the docs' own
    ({"params": {"limit": {"minimum": 1}}}, ""),
])
def test_an_imported_tools_default_must_fit(reshape: dict[str, Any], said: str) -> None:
    spec = UpstreamSpec(command=("x",), reshape={"search": Reshape(origin=AT, **reshape)})
    _, problems = reshape_tools(spec, [SEARCH], "up")
    shown = [str(p) for p in problems]
    if not said:
        assert shown == []
        return
    assert len(shown) == 1 and shown[0].startswith(f"gw.yaml:9:7: {said}: a call that "
                                                   "leaves"), shown


def test_an_openapi_operations_default_must_fit(tmp_path: Path) -> None:
    from toolhost.config.loader import load_config
    from toolhost.errors import ConfigError

    doc = {"openapi": "3.1.0", "info": {"title": "t", "version": "1"},
           "servers": [{"url": "http://127.0.0.1:1/v1"}],
           "paths": {"/items": {"get": {"operationId": "list", "parameters": [
               {"name": "limit", "in": "query", "schema": {"type": "integer", "default": 10}},
               {"name": "X-Page", "in": "header", "schema": {"type": "integer"}}],
               "responses": {"200": {"description": "ok"}}}}}}
    (tmp_path / "api.json").write_text(json.dumps(doc))
    config = tmp_path / "toolhost.yaml"
    for tools, key in [("{list: {params: {limit: {maximum: 5}}}}", "params.limit"),
                       ("{list: {defaults: {X-Page: 0}, params: {X-Page: {minimum: 1}}}}",
                        "defaults.X-Page")]:
        config.write_text(f"toolhost: 1\nservers:\n  api:\n    openapi: api.json\n"
                          f"    tools: {tools}\n")
        with pytest.raises(ConfigError) as raised:
            load_config(config, environ={"TOOLHOST_CACHE": str(tmp_path)}, layers=False)
        shown = [str(p) for p in raised.value.problems]
        assert any(f"servers.api.tools.list.{key}: the default of " in s and
                   "does not fit its schema" in s for s in shown), shown
    config.write_text("toolhost: 1\nservers:\n  api:\n    openapi: api.json\n"
                      "    tools: {list: {defaults: {limit: 3}, params: {limit: {maximum: 5}}}}\n")
    load_config(config, environ={"TOOLHOST_CACHE": str(tmp_path)}, layers=False)
