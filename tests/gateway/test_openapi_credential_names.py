"""An imported operation's parameters that a server may read as the query parameter its
credential goes in (``security: {q: {type: apiKey, in: query, name: api_key}}``) are never
the model's: ``api_key[]`` / ``api_key[x]`` (PHP, Rails and Node's ``qs`` read them as
``api_key``, sent after the credential), and a form body's field of that name (PHP's
``$_REQUEST`` and Rails' ``params`` read it over the query's)."""

from __future__ import annotations

import logging
from collections.abc import Iterator
from pathlib import Path

import pytest

from .openapi_service import PetService
from .test_openapi import call, load, write

pytestmark = pytest.mark.anyio

SERVER = "    openapi: {spec: pets.yaml, security: {q: QSEKRIT12}}\n    base_url: BASE\n"


def document(names: list[str]) -> str:
    query = "".join(f"        - {{name: {name!r}, in: query, schema: {{type: string}}}}\n"
                    for name in names)
    form = "".join(f"                {name!r}: {{type: string}}\n" for name in names)
    return f"""\
openapi: 3.0.3
info: {{title: t, version: "1"}}
components:
  securitySchemes:
    q: {{type: apiKey, in: query, name: api_key}}
security: [{{q: []}}]
paths:
  /find:
    get:
      operationId: find
      parameters:
        - {{name: text, in: query, schema: {{type: string}}}}
{query}      responses: {{"200": {{description: ok}}}}
  /form:
    post:
      operationId: form
      requestBody:
        required: true
        content:
          application/x-www-form-urlencoded:
            schema:
              type: object
              properties:
                text: {{type: string}}
{form}      responses: {{"200": {{description: ok}}}}
"""


@pytest.fixture
def service() -> Iterator[PetService]:
    with PetService() as running:
        yield running


NAMES = ["api_key[]", "api_key[x]", "API_KEY[0]", "api.key[]", "api_key[][a]",
         "api_key\uff3b\uff3d", "api_key", "Api-Key"]


@pytest.mark.parametrize("name", NAMES)
async def test_no_spelling_of_the_credentials_name_is_the_models(
        tmp_path: Path, service: PetService, name: str,
        caplog: pytest.LogCaptureFixture) -> None:
    config = write(tmp_path, service, SERVER.replace("BASE", service.url),
                   document=document([name]))
    with caplog.at_level(logging.WARNING, logger="toolhost.gateway"):
        tools = load(config).servers["pets"].tools
    for tool in ("find", "form"):
        assert list(tools[tool].input_schema["properties"]) == ["text"], tool
    said = [r.getMessage() for r in caplog.records]
    for place in ("query", "form"):
        assert any(f"{place} parameter {name!r} is left out: a server may read it as the "
                   "query parameter the server's credential goes in" in line
                   for line in said), (place, said)
    result = await call(config, "find", {"text": "hi"})
    assert not result.is_error
    assert service.requests[-1]["query"] == [("api_key", "QSEKRIT12"), ("text", "hi")]


async def test_other_names_with_brackets_stay_the_models(tmp_path: Path,
                                                         service: PetService) -> None:
    config = write(tmp_path, service, SERVER.replace("BASE", service.url),
                   document=document(["ids[]", "key[api_key]"]))
    tools = load(config).servers["pets"].tools
    assert list(tools["find"].input_schema["properties"]) == ["text", "ids", "key_api_key"]
    result = await call(config, "find", {"text": "hi", "ids": "1"})
    assert not result.is_error
    assert service.requests[-1]["query"] == [("api_key", "QSEKRIT12"), ("text", "hi"),
                                             ("ids[]", "1")]
