"""Tool names made from long operationIds stay apart: a name is cut with a hash of the whole
operationId (then, for the wire name's 64 characters, with a hash of that), so two
operationIds alike in their first 64 (or more) characters are two tools, never "two
operations would both be the tool"."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from toolhost.config.loader import load_config


def tools(tmp_path: Path, server: str, ids: list[str]) -> list[str]:
    doc = {"openapi": "3.1.0", "info": {"title": "t", "version": "1"},
           "servers": [{"url": "http://127.0.0.1:1/v1"}],
           "paths": {f"/p{i}": {"get": {"operationId": op,
                                        "responses": {"200": {"description": "ok"}}}}
                     for i, op in enumerate(ids)}}
    (tmp_path / "api.json").write_text(json.dumps(doc))
    config = tmp_path / "toolhost.yaml"
    config.write_text(f"toolhost: 1\nservers:\n  {server}:\n    openapi: api.json\n")
    loaded = load_config(config, environ={"TOOLHOST_CACHE": str(tmp_path)}, layers=False)
    return list(loaded.servers[server].tools)


@pytest.mark.parametrize("server", ["a", "api", "a_much_longer_server_name"])
@pytest.mark.parametrize("shared", [56, 57, 63, 64, 65, 100, 300])
def test_long_operation_ids_alike_at_the_start_are_two_tools(tmp_path: Path, server: str,
                                                             shared: int) -> None:
    ids = ["a" * shared + "X", "a" * shared + "Y", "a" * shared + "-X"]
    names = tools(tmp_path, server, ids)
    assert len(set(names)) == 3, names
    assert all(len(f"mcp__{server}__{n}") <= 64 for n in names), names
    assert tools(tmp_path, server, ids) == names  # the same names every time


@settings(max_examples=25, deadline=None)
@given(stem=st.text(alphabet="abcXYZ09_-", min_size=60, max_size=120),
       tails=st.lists(st.text(alphabet="xyz", min_size=1, max_size=3), min_size=2,
                      max_size=4, unique=True))
def test_any_long_operation_ids_stay_apart(tmp_path_factory: pytest.TempPathFactory,
                                           stem: str, tails: list[str]) -> None:
    stem = stem.strip("_-").replace("__", "_").replace("_-", "_").replace("-_", "-") or "s"
    names = tools(tmp_path_factory.mktemp("n"), "api", [stem + "-" + t for t in tails])
    assert len(set(names)) == len(tails)


def test_parameters_of_one_name_are_told_apart_for_the_model(tmp_path: Path) -> None:
    """A path and a query parameter both named ``id`` are two arguments; the second one's
    description says which it is (before: ``id`` and ``id_2``, nothing to tell them apart)."""
    doc = {"openapi": "3.1.0", "info": {"title": "t", "version": "1"},
           "servers": [{"url": "http://127.0.0.1:1/v1"}],
           "paths": {"/items/{id}": {"get": {"operationId": "item", "parameters": [
               {"name": "id", "in": "path", "required": True, "schema": {"type": "string"}},
               {"name": "id", "in": "query", "description": "A version's id.",
                "schema": {"type": "string"}},
               {"name": "X-Request-Id", "in": "header", "schema": {"type": "string"}}],
               "responses": {"200": {"description": "ok"}}}}}}
    (tmp_path / "api.json").write_text(json.dumps(doc))
    config = tmp_path / "toolhost.yaml"
    config.write_text("toolhost: 1\nservers:\n  api:\n    openapi: api.json\n")
    loaded = load_config(config, environ={"TOOLHOST_CACHE": str(tmp_path)}, layers=False)
    props = loaded.servers["api"].tools["item"].input_schema["properties"]
    assert props["id"] == {"type": "string"}
    assert props["id_2"]["description"] == ("A version's id. The query parameter 'id' "
                                            "(another parameter has its name).")
    assert "description" not in props["X_Request_Id"]  # renamed, but alone: as before


def test_two_operations_of_one_tool_name_are_both_named(tmp_path: Path) -> None:
    """The problem names both operations, and a key to rename one under that can be written
    (before: "two operations would both be the tool 'get_pet' (rename one under
    tools.get pet.name)")."""
    from toolhost.errors import ConfigError

    with pytest.raises(ConfigError) as raised:
        tools(tmp_path, "api", ["get_pet", "get pet"])
    assert [str(p).split(": ", 1)[1] for p in raised.value.problems] == [
        "servers.api: operations 'get_pet' and 'get pet' would both be the tool 'get_pet' "
        "(rename one under tools.\"get pet\".name)"]
