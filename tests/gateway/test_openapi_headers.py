"""Header parameters of an imported document that the model may not fill: framing headers,
credentials (the document's security schemes, the server's headers and auth) and routing
headers are left out of the tool, each with a warning naming the operation and the header, and
the request still carries the server's own values."""

from __future__ import annotations

import json
import logging
from collections.abc import Iterator
from pathlib import Path

import pytest

from .openapi_service import PetService
from .test_openapi import call, load, problems_of, write

pytestmark = pytest.mark.anyio


@pytest.fixture
def service() -> Iterator[PetService]:
    with PetService() as running:
        yield running

REFUSED = ["Host", "host", "Content-Length", "Transfer-Encoding", "Connection", "Keep-Alive",
           "TE", "Trailer", "Upgrade", "Expect", "Proxy-Authorization", "Proxy-Connection",
           "Proxy-Anything", "Cookie", "authorization", "X-Api-Key", "x-api-key",
           "X-Other-Key", "X-Team", "x-team", "X-Forwarded-Host", "X-Forwarded-For",
           "Forwarded", "X-Original-URL", "X-HTTP-Method-Override", "Accept-Encoding",
           "Content-Encoding",
           # as a lenient server reads them: '_' for '-' (CGI, WSGI), case, whitespace, Unicode
           "X_Forwarded_Host", "x_forwarded_for", "X-Forwarded_Proto", "X_Api_Key", "x_api_key",
           "X_Other_Key", "x_team", "X_TEAM", "Proxy_Authorization", "proxy_anything",
           "Content_Length", "TRANSFER_ENCODING", "Host ", " Host", "Ho st", "X-Team\t",
           "\uff28\uff4f\uff53\uff54", "X-\u200bTeam", "\u0425ost".replace("\u0425", "H"),
           "X\uff3fTeam", "forwarded", "cookie_".rstrip("_"), "Cookie ", "X_Original_URL",
           "x_http_method_override", "Accept_Encoding", "Content_Encoding", "Via "]


def document(port: int, names: list[str], *, shared: str = "") -> str:
    params = "".join(f"        - {{name: {json.dumps(n)}, in: header, schema: {{type: string}}}}\n"
                     for n in names)
    return f"""\
openapi: 3.0.3
info: {{title: t, version: "1"}}
servers: [{{url: "http://127.0.0.1:{port}/v1"}}]
components:
  securitySchemes:
    key: {{type: apiKey, in: header, name: X-Api-Key}}
    other: {{type: apiKey, in: header, name: X-Other-Key}}
    bearer: {{type: http, scheme: bearer}}
paths:
  /pets/{{petId}}:
    parameters:
      - {{name: petId, in: path, required: true, schema: {{type: string}}}}
{shared}    post:
      operationId: getPet
      parameters:
        - {{name: X-Request-Id, in: header, schema: {{type: string}}}}
{params}      requestBody:
        content: {{application/json: {{schema: {{type: object}}}}}}
      responses: {{"200": {{description: ok}}}}
"""


SERVER = """\
    openapi: {spec: pets.yaml, security: {key: '${PETS_TOKEN}', bearer: bearer-s3cret-99}}
    headers: {X-Team: core}
"""


@pytest.mark.parametrize("name", REFUSED)
async def test_a_header_the_model_may_not_fill_is_left_out_and_named(
        tmp_path: Path, service: PetService, name: str,
        caplog: pytest.LogCaptureFixture) -> None:
    config = write(tmp_path, service, SERVER,
                   document=document(service.port, [name, "X-Trace"]))
    with caplog.at_level(logging.WARNING, "toolhost.gateway"):
        tools = load(config).servers["pets"].tools
    schema = tools["getPet"].input_schema
    assert schema is not None
    assert sorted(schema["properties"]) == ["X_Request_Id", "X_Trace", "body", "petId"]
    warned = [r.getMessage() for r in caplog.records if "left out" in r.getMessage()]
    if name.lower() != "authorization":  # OpenAPI ignores it by definition: no noise
        assert len(warned) == 1, warned
        assert "pets.yaml:17:11: paths./pets/{petId}.post.parameters[1]" in warned[0]
        assert f"operation 'getPet': header parameter {name!r} is left out" in warned[0]
    result = await call(config, "getPet", {"petId": "1", "X_Trace": "t", "body": {"a": 1}})
    assert not result.is_error, result
    sent = service.requests[-1]["headers"]
    assert sent["host"] == f"127.0.0.1:{service.port}"
    assert sent["x-api-key"] == "tok-s3cret-value-1234"
    assert sent["authorization"] == "Bearer bearer-s3cret-99"
    assert sent["x-team"] == "core" and sent["x-trace"] == "t"
    assert sent["content-length"] == "7" and "transfer-encoding" not in sent
    refused = await call(config, "getPet", {"petId": "1", name.replace("-", "_"): "evil"})
    assert refused.is_error and len(service.requests) == 1


async def test_path_item_parameters_and_names_by_case_are_one_argument(
        tmp_path: Path, service: PetService, caplog: pytest.LogCaptureFixture) -> None:
    shared = "      - {name: Host, in: header, schema: {type: string}}\n" \
             "      - {name: x-trace, in: header, schema: {type: string}}\n"
    config = write(tmp_path, service, SERVER,
                   document=document(service.port, ["X-TRACE"], shared=shared))
    with caplog.at_level(logging.WARNING, "toolhost.gateway"):
        schema = load(config).servers["pets"].tools["getPet"].input_schema
    assert schema is not None
    assert sorted(schema["properties"]) == ["X_Request_Id", "X_TRACE", "body", "petId"]
    warned = [r.getMessage() for r in caplog.records if "left out" in r.getMessage()]
    assert len(warned) == 1 and "paths./pets/{petId}.parameters[1]" in warned[0]
    result = await call(config, "getPet", {"petId": "1", "X_TRACE": "t"})
    assert not result.is_error, result
    assert service.requests[-1]["headers"]["x-trace"] == "t"


@pytest.mark.parametrize("header", ["Host", "Transfer-Encoding", "content-length",
                                    "Proxy-Authorization", "Connection"])
def test_a_security_scheme_never_puts_the_credential_in_a_framing_header(
        tmp_path: Path, service: PetService, header: str) -> None:
    text = document(service.port, []).replace("name: X-Other-Key", f"name: {header}")
    config = write(tmp_path, service,
                   "    openapi: {spec: pets.yaml, security: {other: '${PETS_TOKEN}'}}\n",
                   document=text)
    found = problems_of(config)
    assert len(found) == 1, found
    assert "toolhost.yaml:4:" in found[0] and "servers.pets.openapi.security.other" in found[0]
    assert f"in the header '{header}'" in found[0] and "tok-s3cret" not in found[0]


QUERY_DOC = """\
openapi: 3.0.3
info: {title: t, version: "1"}
servers: [{url: "http://127.0.0.1:PORT/v1"}]
components:
  securitySchemes:
    q: {type: apiKey, in: query, name: api_key}
    unset: {type: apiKey, in: query, name: token}
paths:
  /items:
    get:
      operationId: items
      parameters:
        - {name: NAME, in: query, schema: {type: string}}
        - {name: q, in: query, schema: {type: string}}
      responses: {"200": {description: ok}}
"""


@pytest.mark.parametrize("name", ["api.key", "api key", "api[key", "API_KEY", "api-key",
                                  " api_key", "api_key", "Api.Key", "\uff41pi_key", "token",
                                  "TOKEN", "to.ken".replace(".", "")])
async def test_a_query_parameter_a_server_reads_as_the_credential_is_left_out(
        tmp_path: Path, service: PetService, name: str,
        caplog: pytest.LogCaptureFixture) -> None:
    text = QUERY_DOC.replace("PORT", str(service.port)).replace("NAME", json.dumps(name))
    config = write(tmp_path, service, "    openapi: {spec: pets.yaml, security: "
                   "{q: QSEKRIT123abc}}\n", document=text)
    with caplog.at_level(logging.WARNING, "toolhost.gateway"):
        schema = load(config).servers["pets"].tools["items"].input_schema
    assert schema is not None and sorted(schema["properties"]) == ["q"]
    warned = [r.getMessage() for r in caplog.records if "left out" in r.getMessage()]
    assert len(warned) == 1 and f"query parameter {name!r} is left out" in warned[0], warned
    assert "pets.yaml:13:11: paths./items.get.parameters[0]" in warned[0]
    result = await call(config, "items", {"q": "x"})
    assert not result.is_error, result
    assert service.requests[-1]["query"] == [("api_key", "QSEKRIT123abc"), ("q", "x")]
