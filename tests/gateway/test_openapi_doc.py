"""Reading an OpenAPI document: a clean JSON document is parsed by the C json parser and its
positions are made (by the located YAML reader) only when one is read (issue #18)."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

import toolhost.config.yaml_source as yaml_source
from toolhost.config.loader import load_config
from toolhost.errors import ConfigError, Problem
from toolhost.gateway.openapi_doc import read_document


def document(tmp_path: Path, ref: str = "#/components/schemas/Item") -> Path:
    paths = {f"/p{i}": {"get": {
        "operationId": f"op{i}",
        "responses": {"200": {"description": "ok", "content": {"application/json": {
            "schema": {"$ref": ref}}}}}}} for i in range(3)}
    api = tmp_path / "api.json"
    api.write_text(json.dumps({
        "openapi": "3.1.0", "info": {"title": "t", "version": "1"},
        "servers": [{"url": "http://127.0.0.1:1/v1"}], "paths": paths,
        "components": {"schemas": {"Item": {"type": "string"}}}}, indent=2))
    return api


@pytest.fixture
def yaml_reads(monkeypatch: pytest.MonkeyPatch) -> list[str]:
    """The files the located YAML reader builds."""
    files: list[str] = []
    real = yaml_source.build_doc

    def spy(loader: Any, file: str, *args: Any, **kwargs: Any) -> Any:
        files.append(file)
        return real(loader, file, *args, **kwargs)

    monkeypatch.setattr(yaml_source, "build_doc", spy)
    return files


def test_a_clean_json_document_is_read_without_positions_until_one_is_read(
        tmp_path: Path, yaml_reads: list[str]) -> None:
    api = document(tmp_path)
    found: list[Problem] = []
    doc = read_document(str(api), found)
    assert doc is not None and found == [] and yaml_reads == []
    lines = api.read_text().splitlines()
    problem = doc.problem(("paths", "/p1", "get"), "x")  # its place: the one scan
    assert lines[problem.line - 1].strip() == '"get": {'
    assert (problem.file, problem.column, problem.key_path) == (
        str(api), lines[problem.line - 1].index('"get"') + 1, "paths./p1.get")
    assert yaml_reads == [str(api)]


def test_a_tool_from_a_json_document_is_placed_when_its_origin_is_read(
        tmp_path: Path, yaml_reads: list[str]) -> None:
    api = document(tmp_path)
    config = tmp_path / "toolhost.yaml"
    config.write_text("toolhost: 1\nservers:\n  api:\n    openapi: api.json\n")
    loaded = load_config(config, environ={"TOOLHOST_CACHE": str(tmp_path)}, layers=False)
    assert str(api) not in yaml_reads
    origin = loaded.servers["api"].tools["op2"].origin
    line = api.read_text().splitlines()[origin.line - 1]
    assert line.strip() == '"get": {' and origin.key_path == "paths./p2.get"
    assert yaml_reads.count(str(api)) == 1


def test_a_problem_of_a_json_document_is_located_by_the_yaml_reader(tmp_path: Path) -> None:
    api = document(tmp_path, ref="#/components/schemas/Missing")
    config = tmp_path / "toolhost.yaml"
    config.write_text("toolhost: 1\nservers:\n  api:\n    openapi: api.json\n")
    with pytest.raises(ConfigError) as caught:
        load_config(config, environ={"TOOLHOST_CACHE": str(tmp_path)}, layers=False)
    lines = api.read_text().splitlines()
    first = caught.value.problems[0]
    assert "'#/components/schemas/Missing' points at nothing" in first.message
    assert first.key_path == \
        "paths./p0.get.responses.200.content.application/json.schema.$ref"
    assert '"$ref": "#/components/schemas/Missing"' in lines[first.line - 1]
