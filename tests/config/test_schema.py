"""schema.json and the loader describe the same grammar."""

from __future__ import annotations

from typing import Any

from jsonschema import Draft202012Validator

from toolhost.config.build_content import PROMPT_KEYS, RESOURCE_KEYS
from toolhost.config.build_servers import ANNOTATION_KEYS, SERVER_KEYS, TOOL_KEYS
from toolhost.config.build_top import PERMISSION_KEYS, RULE_KEYS, RUN_KEYS, SERVE_KEYS
from toolhost.config.loader import TOP_KEYS
from toolhost.config.schema import config_schema, shipped_schema


def _keys(node: dict[str, Any]) -> set[str]:
    return set(node["properties"])


def test_schema_keys_match_the_loader() -> None:
    schema = shipped_schema()
    Draft202012Validator.check_schema(schema)
    defs = schema["$defs"]
    assert _keys(schema) == set(TOP_KEYS)
    assert _keys(defs["server"]) == set(SERVER_KEYS)
    assert _keys(defs["tool"]) == set(TOOL_KEYS)
    assert _keys(defs["resource"]) == set(RESOURCE_KEYS)
    assert _keys(defs["prompt"]) == set(PROMPT_KEYS)
    assert _keys(defs["tool"]["properties"]["annotations"]) == set(ANNOTATION_KEYS)
    assert _keys(defs["permissions"]) == set(PERMISSION_KEYS)
    assert _keys(defs["rule"]["anyOf"][1]) == set(RULE_KEYS)
    assert _keys(schema["properties"]["run"]) == set(RUN_KEYS)
    assert _keys(schema["properties"]["serve"]) == set(SERVE_KEYS)


def test_kinds_are_added(kinds: Any) -> None:
    schema = config_schema(kinds)
    tool = schema["$defs"]["tool"]["properties"]
    assert set(kinds) <= set(tool)
    validator = Draft202012Validator(schema)
    ok = {"toolhost": 1, "servers": {"s": {"tools": {"a": {"python": "m:f"},
                                                     "b": {"http": {"url": "/x"}}}}}}
    assert list(validator.iter_errors(ok)) == []
    bad = {"toolhost": 1, "servers": {"s": {"tools": {"b": {"http": {"ur": "/x"}}}}}}
    assert list(validator.iter_errors(bad))
