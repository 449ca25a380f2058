"""A large or hostile OpenAPI document costs bounded time: at most a limited number of
operations is imported (a located problem beyond it), and the structure check, which takes
milliseconds per parameter, is run on the part the chosen operations use for a document past
its budget, or the document is refused (located) when that part too is past it."""

from __future__ import annotations

import json
import time
from pathlib import Path
from typing import Any

import pytest

from toolhost.config.loader import load_config
from toolhost.errors import ConfigError


def write(tmp_path: Path, operations: int, params: int = 0, server: str = "") -> Path:
    paths = {f"/p{i}": {"get": {
        "parameters": [{"name": f"q{j}", "in": "query", "schema": {"type": "string"}}
                       for j in range(params)],
        "responses": {"200": {"description": "ok"}}}} for i in range(operations)}
    (tmp_path / "api.json").write_text(json.dumps({
        "openapi": "3.1.0", "info": {"title": "t", "version": "1"},
        "servers": [{"url": "http://127.0.0.1:1/v1"}], "paths": paths}))
    config = tmp_path / "toolhost.yaml"
    config.write_text(f"toolhost: 1\nservers:\n  api:\n    openapi: api.json\n{server}")
    return config


def load(config: Path) -> list[str]:
    try:
        loaded = load_config(config, environ={"TOOLHOST_CACHE": str(config.parent)},
                             layers=False)
    except ConfigError as exc:
        return [str(p) for p in exc.problems]
    return sorted(loaded.servers["api"].tools)


def test_the_operations_imported_are_limited(tmp_path: Path,
                                             monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("TOOLHOST_MAX_OPENAPI_OPERATIONS", "20")
    found = load(write(tmp_path, 21))
    assert len(found) == 1 and "toolhost.yaml:4:5: servers.api.openapi: 21 operations" in \
        found[0] and "over the limit of 20" in found[0]
    found = load(write(tmp_path, 50, server="    include: ['/p1*']\n"))
    assert found == ["get_p1", *(f"get_p1{i}" for i in range(10))]
    found = load(write(tmp_path, 50, server="    include: ['/p*']\n"))
    assert len(found) == 1 and "servers.api.include: 50 operations" in found[0]


def test_the_default_limit_refuses_a_hostile_document_quickly(tmp_path: Path) -> None:
    config = write(tmp_path, 5000)
    started = time.monotonic()
    found = load(config)
    assert len(found) == 1 and "5,000 operations" in found[0] and "2,000" in found[0]
    assert time.monotonic() - started < 20  # (was minutes: every operation checked)


def big_document(tmp_path: Path, place: str, server: str = "") -> Path:
    """20 operations (two chosen by ``server``'s include), components reached by $ref,
    and one mistake put at ``place``."""
    paths: dict[str, Any] = {f"/p{i}/{{id}}": {
        "parameters": [{"name": "id", "in": "path", "required": True,
                        "schema": {"type": "string"}}],
        "get": {"operationId": f"op{i}",
                "parameters": [{"$ref": "#/components/parameters/Limit"},
                               {"name": "q", "in": "query", "schema": {"type": "string"}}],
                "responses": {"200": {"description": "ok", "content": {"application/json": {
                    "schema": {"$ref": "#/components/schemas/Item"}}}}}}} for i in range(20)}
    doc: dict[str, Any] = {
        "openapi": "3.1.0", "info": {"title": "t", "version": "1"},
        "servers": [{"url": "http://127.0.0.1:1/v1"}], "paths": paths,
        "components": {
            "parameters": {"Limit": {"name": "limit", "in": "query",
                                     "schema": {"$ref": "#/components/schemas/Count"}}},
            "schemas": {"Item": {"type": "object", "properties": {
                            "tags": {"type": "array", "prefixItems": [
                                {"$ref": "#/components/schemas/Tag"}]},
                            "both": {"$ref": "#/components/schemas/Both/allOf/0"}}},
                        "Count": {"type": "integer"}, "Tag": {"type": "string"},
                        "Both": {"allOf": [{"type": "string"}, {"type": "string"}]},
                        "Unused": {"type": "string"}},
            "securitySchemes": {"k": {"type": "apiKey", "in": "header", "name": "X-Key"}}}}
    wrong = {"in": "nowhere"}
    if place == "chosen":
        paths["/p1/{id}"]["get"]["parameters"][1].update(wrong)
    elif place == "path item":
        paths["/p1/{id}"]["parameters"][0]["required"] = "yes"
    elif place == "component":
        doc["components"]["parameters"]["Limit"].update(wrong)
    elif place == "chain":  # Limit -> Count
        doc["components"]["schemas"]["Count"]["type"] = 5
    elif place == "in a list":  # Item -> tags.prefixItems[0] -> Tag
        doc["components"]["schemas"]["Tag"]["minLength"] = "x"
    elif place == "into a list":  # Item -> Both.allOf[0]
        doc["components"]["schemas"]["Both"]["allOf"][0]["minLength"] = "x"
    elif place == "security":
        doc["components"]["securitySchemes"]["k"]["in"] = "nowhere"
    elif place == "top":
        doc["info"]["version"] = 5
    elif place == "not chosen":
        paths["/p7/{id}"]["get"]["parameters"][1].update(wrong)
    elif place == "unused component":
        doc["components"]["schemas"]["Unused"]["type"] = 5
    (tmp_path / "api.json").write_text(json.dumps(doc, indent=1))
    config = tmp_path / "toolhost.yaml"
    config.write_text("toolhost: 1\nservers:\n  api:\n    openapi: api.json\n"
                      + (server or "    include: [op1, op2]\n"))
    return config


@pytest.mark.parametrize("place", ["chosen", "path item", "component", "chain", "in a list",
                                   "into a list", "security", "top"])
def test_past_the_budget_the_part_the_chosen_operations_use_is_checked(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch, place: str) -> None:
    config = big_document(tmp_path, place)
    monkeypatch.setenv("TOOLHOST_MAX_OPENAPI_CHECK_VALUES", "200")  # the whole: ~600
    found = load(config)
    assert found and all("not a valid OpenAPI document" in f for f in found), found
    assert all(f.startswith(f"{tmp_path / 'api.json'}:") for f in found), found
    monkeypatch.setenv("TOOLHOST_MAX_OPENAPI_CHECK_VALUES", "100000")  # checked whole
    assert any("not a valid OpenAPI document" in f for f in load(config))


@pytest.mark.parametrize("place", ["not chosen", "unused component", ""])
def test_past_the_budget_what_the_chosen_operations_do_not_use_is_not_needed(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch, place: str) -> None:
    config = big_document(tmp_path, place)
    monkeypatch.setenv("TOOLHOST_MAX_OPENAPI_CHECK_VALUES", "200")
    assert load(config) == ["op1", "op2"]


def test_past_the_budget_a_part_too_large_to_check_is_refused_located(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    config = big_document(tmp_path, "not chosen", server="    include: ['op1*']\n")
    monkeypatch.setenv("TOOLHOST_MAX_OPENAPI_CHECK_VALUES", "200")
    found = load(config)
    assert len(found) == 1, found
    assert found[0].startswith(f"{config}:5:5: servers.api.include: the document has ")
    assert "over the 200 openapi-spec-validator checks within seconds, and the 11 " \
        "operations chosen use more than that" in found[0]
    assert "raise TOOLHOST_MAX_OPENAPI_CHECK_VALUES" in found[0]
    config.write_text(config.read_text().replace("    include: ['op1*']\n", ""))
    assert "servers.api.openapi: the document has " in load(config)[0]


def test_many_parameters_load_in_bounded_time(tmp_path: Path) -> None:
    config = write(tmp_path, 300, params=25)  # 7,500 parameters: ~2 ms each to check
    started = time.monotonic()
    found = load(config)  # too many to check: refused, not imported unchecked
    assert len(found) == 1 and "300 operations chosen use more than that" in found[0]
    config.write_text(config.read_text() + "    include: ['/p1', '/p2']\n")
    assert load(config) == ["get_p1", "get_p2"]  # those two checked
    assert time.monotonic() - started < 10  # (was over 20 s on a quiet machine)
