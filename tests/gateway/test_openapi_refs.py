"""A chain of ``$ref`` in an OpenAPI document that goes round without reaching a node of its
own (``a -> b -> a``, a reference to itself) is one located problem at the reference, found
in one pass over the document (each reference followed once), not the validator's recursion
reported at the document's first line; a recursive schema (a reference inside a schema of
its own) is no cycle."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from toolhost.config.loader import load_config
from toolhost.errors import ConfigError

P = "#/components/parameters/"
S = "#/components/schemas/"
B = "#/components/requestBodies/"


def problems(tmp_path: Path, components: dict[str, Any], use: dict[str, Any]) -> list[str]:
    doc = {"openapi": "3.1.0", "info": {"title": "t", "version": "1"},
           "servers": [{"url": "http://127.0.0.1:1/v1"}], "components": components,
           "paths": {"/a": {"post": {"operationId": "a", **use,
                                     "responses": {"200": {"description": "ok"}}}}}}
    (tmp_path / "api.json").write_text(json.dumps(doc, indent=1))
    config = tmp_path / "toolhost.yaml"
    config.write_text("toolhost: 1\nservers:\n  api:\n    openapi: api.json\n")
    try:
        load_config(config, environ={"TOOLHOST_CACHE": str(tmp_path)}, layers=False)
    except ConfigError as exc:
        return [str(p) for p in exc.problems]
    return []


def param(ref: str) -> dict[str, Any]:
    return {"parameters": [{"$ref": ref}]}


CYCLES = {
    "two parameters": ({"parameters": {"A": {"$ref": P + "B"}, "B": {"$ref": P + "A"}}},
                       param(P + "A"), "A -> " + P + "B -> " + P + "A"),
    "itself": ({"parameters": {"A": {"$ref": P + "A"}}}, param(P + "A"), "A -> " + P + "A"),
    "three schemas": ({"schemas": {"A": {"$ref": S + "B"}, "B": {"$ref": S + "C"},
                                   "C": {"$ref": S + "A"}}},
                      {"requestBody": {"content": {"application/json": {
                          "schema": {"$ref": S + "A"}}}}}, S + "A"),
    "with siblings": ({"schemas": {"A": {"$ref": S + "B", "description": "d"},
                                   "B": {"$ref": S + "A", "type": "object"}}},
                      {"requestBody": {"content": {"application/json": {
                          "schema": {"$ref": S + "A"}}}}}, S + "B"),
    "request bodies": ({"requestBodies": {"A": {"$ref": B + "B"}, "B": {"$ref": B + "A"}}},
                       {"requestBody": {"$ref": B + "A"}}, B + "A"),
    "reached by a chain": ({"parameters": {"X": {"$ref": P + "A"}, "A": {"$ref": P + "B"},
                                           "B": {"$ref": P + "A"}}}, param(P + "X"),
                           P + "A -> " + P + "B"),
}


@pytest.mark.parametrize(("components", "use", "shown"), list(CYCLES.values()),
                         ids=list(CYCLES))
def test_a_cycle_of_references_is_one_located_problem(tmp_path: Path,
                                                      components: dict[str, Any],
                                                      use: dict[str, Any], shown: str) -> None:
    found = [p for p in problems(tmp_path, components, use) if "cycle of references" in p]
    assert len(found) == 1, found
    assert "leads round a cycle of references (" in found[0] and shown in found[0]
    assert ".$ref: reference '#/" in found[0]
    assert not found[0].startswith(f"{tmp_path / 'api.json'}:1:1:")


NOT_CYCLES = {
    "a recursive schema": ({"schemas": {"Node": {"type": "object", "properties": {
        "next": {"$ref": S + "Node"}}}}}, {"requestBody": {"content": {"application/json": {
            "schema": {"$ref": S + "Node"}}}}}),
    "a chain that ends": ({"parameters": {"A": {"$ref": P + "B"}, "B": {"$ref": P + "C"},
                                          "C": {"name": "c", "in": "query"}}},
                          param(P + "A")),
    "two uses of one": ({"parameters": {"C": {"name": "c", "in": "query"}}},
                        {"parameters": [{"$ref": P + "C"}, {"$ref": P + "C"}]}),
}


@pytest.mark.parametrize(("components", "use"), list(NOT_CYCLES.values()), ids=list(NOT_CYCLES))
def test_references_that_reach_something_are_no_cycle(tmp_path: Path,
                                                      components: dict[str, Any],
                                                      use: dict[str, Any]) -> None:
    assert not [p for p in problems(tmp_path, components, use) if "cycle" in p]


def test_many_references_are_followed_once(tmp_path: Path) -> None:
    import time

    n = 3000  # a chain of 3,000 references, each used by an operation's parameter
    chain = {f"A{i}": {"$ref": f"{P}A{i + 1}"} for i in range(n)}
    chain[f"A{n}"] = {"name": "q", "in": "query"}
    started = time.monotonic()
    use = {"parameters": [{"$ref": f"{P}A{i}"} for i in range(0, n, 10)]}
    problems(tmp_path, {"parameters": chain}, use)
    assert time.monotonic() - started < 20


@pytest.mark.parametrize(("version", "refused"), [("3.1.0", True), ("3.0.3", False)])
def test_keywords_beside_a_reference_hold_in_a_31_document(tmp_path: Path, version: str,
                                                           refused: bool) -> None:
    """OpenAPI 3.1 schemas are JSON Schema 2020-12, where keywords beside a ``$ref`` apply
    with it: ``{$ref: Name, maxLength: 5}`` refuses a longer name. They were dropped (only a
    description or title kept), so the model was shown, and toolhost's check passed, what
    the document refuses. (In 3.0 a Reference Object's other keys are ignored: so here.)"""
    from jsonschema import Draft202012Validator

    ok = {"200": {"description": "ok"}}
    doc = {"openapi": version, "info": {"title": "t", "version": "1"},
           "servers": [{"url": "http://127.0.0.1:1/v1"}],
           "components": {"schemas": {"Name": {"type": "string"}}},
           "paths": {"/a": {"post": {
               "operationId": "a", "responses": ok,
               "parameters": [{"name": "name", "in": "query", "required": True,
                               "schema": {"$ref": S + "Name", "maxLength": 5}}],
               "requestBody": {"required": True, "content": {"application/json": {"schema": {
                   "type": "object", "properties": {"tag": {
                       "$ref": S + "Name", "enum": ["bug", "idea"],
                       "description": "the tag"}}}}}}}}}}
    (tmp_path / "api.json").write_text(json.dumps(doc))
    config = tmp_path / "toolhost.yaml"
    config.write_text("toolhost: 1\nservers:\n  api:\n    openapi: api.json\n")
    loaded = load_config(config, environ={"TOOLHOST_CACHE": str(tmp_path)}, layers=False)
    check = Draft202012Validator(loaded.servers["api"].tools["a"].input_schema)
    assert not list(check.iter_errors({"name": "short", "body": {"tag": "bug"}}))
    for wrong in ({"name": "much too long", "body": {"tag": "bug"}},
                  {"name": "short", "body": {"tag": "chore"}}):
        assert bool(list(check.iter_errors(wrong))) is refused, wrong
