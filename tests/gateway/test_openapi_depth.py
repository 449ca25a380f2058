"""Schemas that reach deep through components: each component is converted on its own, so a
chain of them keeps every keyword (before, the depth counted across references and a chain of
25 cut the end of it to "anything": the document's ``maxLength: 3`` there went unchecked,
and an ``allOf`` list became a mapping, refusing the tool)."""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from .openapi_service import PetService
from .test_openapi import call, load, write

pytestmark = pytest.mark.anyio


@pytest.fixture
def service() -> Iterator[PetService]:
    with PetService() as running:
        yield running


def chain(links: int, version: str) -> str:
    """S0 -> S1 -> ... -> S<links>, by turns an object's property and an allOf; the last is a
    string of at most 3 characters."""
    schemas: dict[str, Any] = {}
    for i in range(links):
        following = {"$ref": f"#/components/schemas/S{i + 1}"}
        schemas[f"S{i}"] = {"allOf": [following]} if i % 2 else \
            {"type": "object", "properties": {"x": following}}
    schemas[f"S{links}"] = {"type": "string", "maxLength": 3}
    return json.dumps({
        "openapi": version, "info": {"title": "t", "version": "1"},
        "components": {"schemas": schemas},
        "paths": {"/x": {"post": {"operationId": "deep", "requestBody": {"content": {
            "application/json": {"schema": {"$ref": "#/components/schemas/S0"}}}},
            "responses": {"200": {"description": "ok"}}}}}})


def nested(value: Any, levels: int) -> Any:
    for _ in range(levels):
        value = {"x": value}
    return value


@pytest.mark.parametrize("version", ["3.0.3", "3.1.0"])
@pytest.mark.parametrize("links", [10, 26, 40])
async def test_a_chain_of_components_keeps_its_last_keyword(
        tmp_path: Path, service: PetService, version: str, links: int) -> None:
    config = write(tmp_path, service, f"    openapi: pets.yaml\n    base_url: {service.url}\n",
                   document=chain(links, version))
    schema = load(config).servers["pets"].tools["deep"].input_schema
    assert "nested deeper" not in json.dumps(schema)
    assert schema["$defs"][f"S{links}"] == {"type": "string", "maxLength": 3}
    refused = await call(config, "deep", {"body": nested("long", links // 2)})
    assert refused.is_error and "'long' is too long" in refused.content[0]["text"]
    assert service.requests == []
    sent = await call(config, "deep", {"body": nested("ok", links // 2)})
    assert not sent.is_error
    assert service.requests[-1]["body"] == nested("ok", links // 2)
