"""A large or hostile OpenAPI document costs bounded time: at most a limited number of
operations is imported (a located problem beyond it), and the structure check, which takes
milliseconds per parameter, is skipped with a warning for a document past its budget."""

from __future__ import annotations

import json
import logging
import time
from pathlib import Path

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


def test_a_document_past_the_check_budget_is_built_unchecked_with_a_warning(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
        caplog: pytest.LogCaptureFixture) -> None:
    config = write(tmp_path, 3, params=2)
    text = (tmp_path / "api.json").read_text().replace('"in": "query"', '"in": "nowhere"', 1)
    (tmp_path / "api.json").write_text(text)
    found = load(config)
    assert len(found) == 1 and "not a valid OpenAPI document" in found[0]  # checked
    monkeypatch.setenv("TOOLHOST_MAX_OPENAPI_CHECK_VALUES", "30")
    with caplog.at_level(logging.WARNING, "toolhost.gateway"):
        assert load(config) == ["get_p0", "get_p1", "get_p2"]  # the bad one is dropped
    warned = [r.getMessage() for r in caplog.records]
    assert any("api.json:1:1: the document's structure was not checked" in w and
               "over the 30 checked" in w for w in warned), warned


def test_many_parameters_load_in_bounded_time(tmp_path: Path) -> None:
    config = write(tmp_path, 300, params=25)  # 7,500 parameters: ~2 ms each to check
    started = time.monotonic()
    assert len(load(config)) == 300
    assert time.monotonic() - started < 10  # (was over 20 s on a quiet machine)
