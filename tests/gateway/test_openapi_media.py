"""A JSON request body is found however the document spells its media type (RFC 9110: case
aside, parameters aside: ``application/json; charset=utf-8``, ``Application/JSON``), and a
``+json`` type (``application/merge-patch+json``, JSON:API's ``application/vnd.api+json``) is
sent as the document names it. Before, an optional body so spelled was dropped without a word
(the tool took no ``body``), a required one left the operation out ("its request body is
Application/JSON (JSON and form bodies are supported)"), and a ``+json`` body went as
``application/json``, which such services refuse (415)."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest

from toolhost.backends.base import CallContext
from toolhost.compile import compile_tools

from .openapi_service import PetService
from .test_openapi import load, write

pytestmark = pytest.mark.anyio

DOCUMENT = """\
openapi: 3.0.3
info: {{title: t, version: "1"}}
servers: [{{url: "http://127.0.0.1:{port}/v1"}}]
paths:
{paths}"""
OPERATION = """\
  /pets/{n}:
    post:
      operationId: op{n}
      requestBody:
        required: {required}
        content:
          text/plain: {{schema: {{type: string}}}}
          "{media}": {{schema: {{type: object, properties: {{name: {{type: string}}}}}}}}
      responses: {{"200": {{description: ok}}}}
"""
CASES = [  # the document's media type, required, the Content-Type that must arrive
    ("application/json; charset=utf-8", "false", "application/json"),
    ("Application/JSON", "true", "application/json"),
    ("application/merge-patch+json", "true", "application/merge-patch+json"),
    ("application/vnd.api+json; ext=bulk", "false", "application/vnd.api+json"),
    ("application/x-www-form-urlencoded; charset=utf-8", "true",
     "application/x-www-form-urlencoded"),
]


@pytest.fixture
def service() -> Iterator[PetService]:
    with PetService() as running:
        yield running


async def test_a_json_body_is_found_and_sent_as_the_document_names_it(
        tmp_path: Path, service: PetService) -> None:
    port = int(service.url.rsplit(":", 1)[1].split("/")[0])
    paths = "".join(OPERATION.format(n=n, required=r, media=m)
                    for n, (m, r, _) in enumerate(CASES))
    config = write(tmp_path, service, "    openapi: pets.yaml\n",
                   document=DOCUMENT.format(port=port, paths=paths))
    loaded = load(config)
    tools = loaded.servers["pets"].tools
    assert sorted(tools) == [f"op{n}" for n in range(len(CASES))]
    async with compile_tools(loaded) as compiled:
        for n, (media, _, arrives) in enumerate(CASES):
            form = media.startswith("application/x-www-form")
            props = tools[f"op{n}"].input_schema["properties"]
            assert list(props) == (["name"] if form else ["body"]), media
            if form:  # (the service reads JSON bodies only: the schema is what changed)
                continue
            result = await compiled.tool("pets", f"op{n}").call(
                {"body": {"name": "rex"}}, CallContext())
            assert not result.is_error, (media, result)
            got = service.requests[-1]
            assert got["headers"]["content-type"].split(";")[0] == arrives, media
            assert got["path"] == f"/v1/pets/{n}"
