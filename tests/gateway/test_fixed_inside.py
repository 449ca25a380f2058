"""A fixed argument an upstream declares somewhere other than the root's ``properties`` (a
root ``$ref``, ``allOf`` parts, an ``anyOf``/``oneOf`` of
argument sets) leaves every place: the model never sees it, and no ``required`` that names it
refuses the call (the fixed value is added after the check). Before, the model was shown the
fixed argument and every call failed ("'repo' is a required property")."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

from toolhost.compile.validators import LazyValidator
from toolhost.config.model import Origin
from toolhost.gateway.reshape import reshape_tools
from toolhost.gateway.spec import Reshape, UpstreamSpec

from .conftest import hostile_config

AT = Origin("gw.yaml", 9, 7, "servers.up.tools.find")
S, INT = {"type": "string"}, {"type": "integer"}
SCHEMAS: dict[str, dict[str, Any]] = {
    "root $ref": {"$ref": "#/$defs/Args", "$defs": {"Args": {
        "type": "object", "properties": {"repo": S, "q": S, "limit": {**INT, "default": 20}},
        "required": ["repo", "q"], "additionalProperties": False}}},
    "root $ref, definitions": {"$ref": "#/definitions/Args", "definitions": {"Args": {
        "type": "object", "properties": {"repo": S, "q": S, "limit": INT},
        "required": ["repo", "q"]}}, "$schema": "http://json-schema.org/draft-07/schema#"},
    "allOf": {"type": "object", "allOf": [
        {"properties": {"repo": S}, "required": ["repo"]}, {"$ref": "#/$defs/Q"}],
        "$defs": {"Q": {"properties": {"q": S}, "required": ["q"]}}},
    "anyOf of required": {"type": "object", "properties": {"repo": S, "q": S, "owner": S},
                          "anyOf": [{"required": ["repo"]}, {"required": ["owner"]}],
                          "required": ["q"]},
    "oneOf": {"type": "object", "oneOf": [
        {"properties": {"repo": S, "q": S}, "required": ["repo", "q"]},
        {"properties": {"id": INT}, "required": ["id"]}]},
    "property by $ref": {"type": "object", "properties": {"repo": {"$ref": "#/$defs/R"},
                                                          "q": S},
                         "required": ["repo", "q"], "$defs": {"R": S}},
}


def _names(schema: Any) -> set[str]:
    """Every property name and required entry anywhere in a schema."""
    found: set[str] = set()
    if isinstance(schema, dict):
        props = schema.get("properties")
        if isinstance(props, dict):
            found |= set(props)
        if isinstance(schema.get("required"), list):
            found |= set(schema["required"])
        for value in schema.values():
            found |= _names(value)
    elif isinstance(schema, list):
        for value in schema:
            found |= _names(value)
    return found


@pytest.mark.parametrize("shape", list(SCHEMAS))
def test_a_fixed_argument_leaves_every_place_the_upstream_declares_it(shape: str) -> None:
    spec = UpstreamSpec(command=("x",), reshape={
        "find": Reshape(origin=AT, fixed={"repo": "acme/app"})})
    imported, problems = reshape_tools(
        spec, [{"name": "find", "inputSchema": SCHEMAS[shape]}], "up")
    assert problems == [] and len(imported) == 1
    schema = imported[0].input_schema
    assert "repo" not in _names(schema), json.dumps(schema)
    check = LazyValidator(schema, formats=True)
    assert [e.message for e in check.iter_errors({"q": "flaky"})] == []
    # what the upstream asks for is still asked of the model
    assert list(check.iter_errors({})) != []


def test_defaults_and_params_reach_the_arguments_behind_a_root_ref() -> None:
    spec = UpstreamSpec(command=("x",), reshape={"find": Reshape(
        origin=AT, fixed={"repo": "acme/app"}, defaults={"limit": 5},
        params={"limit": {"maximum": 10}})})
    imported, problems = reshape_tools(
        spec, [{"name": "find", "inputSchema": SCHEMAS["root $ref"]}], "up")
    assert [str(p) for p in problems] == []
    schema = imported[0].input_schema
    assert schema["properties"]["limit"] == {**INT, "default": 5, "maximum": 10}
    assert schema["required"] == ["q"] and "$defs" not in schema
    check = LazyValidator(schema, formats=True)
    assert list(check.iter_errors({"q": "x", "limit": 11})) != []
    assert list(check.iter_errors({"q": "x", "repo": "evil/x"})) != []  # closed, as upstream


def test_a_recursive_definition_the_root_names_is_kept_for_its_other_uses() -> None:
    tree = {"$ref": "#/$defs/Node", "$defs": {"Node": {
        "type": "object", "properties": {"name": S, "kids": {
            "type": "array", "items": {"$ref": "#/$defs/Node"}}}, "required": ["name"]}}}
    imported, problems = reshape_tools(
        UpstreamSpec(command=("x",)), [{"name": "find", "inputSchema": tree}], "up")
    schema = imported[0].input_schema
    assert problems == [] and schema["properties"]["name"] == S and "Node" in schema["$defs"]
    check = LazyValidator(schema, formats=True)
    assert list(check.iter_errors({"name": "a", "kids": [{"name": "b"}]})) == []
    assert list(check.iter_errors({"name": "a", "kids": [{}]})) != []


def test_a_root_ref_beside_keys_of_its_own_is_left_as_the_upstream_wrote_it() -> None:
    # both apply (JSON Schema 2020-12): writing one over the other would drop a constraint
    both = {"$ref": "#/$defs/A", "properties": {"x": S}, "required": ["x"],
            "$defs": {"A": {"type": "object", "properties": {"y": S}, "required": ["y"]}}}
    imported, _ = reshape_tools(
        UpstreamSpec(command=("x",)), [{"name": "find", "inputSchema": both}], "up")
    check = LazyValidator(imported[0].input_schema, formats=True)
    assert list(check.iter_errors({"x": "a"})) != [] and list(check.iter_errors({"y": "a"}))
    assert list(check.iter_errors({"x": "a", "y": "b"})) == []


ARGS = {"type": "object", "properties": {"repository": S, "q": S}, "required": ["q"]}


@pytest.mark.parametrize(("schema", "refused"), [
    (ARGS, True),  # open (no additionalProperties), and `repo` is not among its arguments
    ({"type": "object", "allOf": [{"properties": {"repository": S}}, {"$ref": "#/$defs/Q"}],
      "$defs": {"Q": {"properties": {"q": S}}}}, True),
    ({**ARGS, "additionalProperties": True}, False),  # it takes any key on purpose
    ({**ARGS, "additionalProperties": S}, False),
    ({**ARGS, "patternProperties": {"^r": S}}, False),
    ({"type": "object"}, False),  # declares no arguments: free-form
    ({"$ref": "#/$defs/A", "properties": {"q": S}, "$defs": {"A": {"properties": {
        "repo": S}}}}, False),  # a root $ref beside keys of its own: left, unknown
])
@pytest.mark.parametrize("changed", [False, True])
def test_a_fixed_argument_the_upstream_does_not_declare_is_refused(
        schema: dict[str, Any], refused: bool, changed: bool) -> None:
    """A fixed ``repo`` over a tool that declares ``repository``: its open schema let it
    through, the upstream ignored it and read the model's ``repository`` instead. In a list
    changed while serving (the upstream renamed the argument) the problem withdraws the
    server's tools (toolhost.gateway.refresh), as any reshaping that no longer fits."""
    spec = UpstreamSpec(command=("x",), reshape={
        "find": Reshape(origin=AT, fixed={"repo": "acme/app"})})
    _, problems = reshape_tools(spec, [{"name": "find", "inputSchema": schema}], "up",
                                missing_ok=changed)
    said = [str(p) for p in problems]
    if not refused:
        assert said == []
        return
    assert len(said) == 1 and "fixed argument 'repo': upstream tool 'find' of 'up' does not " \
        "declare it (it declares q, repository)" in said[0], said


def test_a_start_with_a_fixed_argument_the_upstream_does_not_declare_stops_located(
        tmp_path: Path) -> None:
    tools = [{"name": "find", "inputSchema": ARGS}]
    config = hostile_config(tmp_path, extra="    tools:\n      find:\n        fixed: "
                                             "{repo: acme/app}\n")
    done = subprocess.run([sys.executable, "-m", "toolhost", "tools", str(config)],
                          capture_output=True, text=True, timeout=120,
                          env={**os.environ, "HOSTILE_TOOLS": json.dumps(tools)})
    assert done.returncode != 0 and "servers.h.tools.find.fixed.repo: fixed argument 'repo'" \
        in done.stderr and "does not declare it" in done.stderr, done.stderr
