"""The credentials of an imported document (``openapi.security``): each is sent the way its
scheme says or not at all. Two credentials never share one header or query parameter (the
request would carry both, or one would be lost without a word), an ``http`` scheme other than
basic and bearer is refused rather than sent as a bearer token, the cookies of several
``apiKey`` schemes are all sent, and each operation is sent only the credentials its security
requirement names (none where the document says it needs none)."""

from __future__ import annotations

import sys
from collections.abc import Iterator
from pathlib import Path

import pytest

from toolhost.backends.base import CallContext
from toolhost.compile import compile_tools

from .openapi_service import PetService
from .test_openapi import call, load, problems_of, write

pytestmark = pytest.mark.anyio

SCHEMES = """\
    sid: {type: apiKey, in: cookie, name: sid}
    csrf: {type: apiKey, in: cookie, name: csrf}
    digest: {type: http, scheme: digest}
    negotiate: {type: http, scheme: Negotiate}
    lowAuth: {type: apiKey, in: header, name: authorization}
    key: {type: apiKey, in: header, name: X-Api-Key}
    keyAgain: {type: apiKey, in: header, name: x-api-key}
    oauth: {type: oauth2, flows: {clientCredentials: {tokenUrl: "http://x.example/t", scopes: {}}}}
    apiKey2: {type: apiKey, in: query, name: api_key}
"""


@pytest.fixture
def service() -> Iterator[PetService]:
    with PetService() as running:
        yield running


def document(service: PetService) -> str:
    return service.document().replace("  securitySchemes:\n", "  securitySchemes:\n" + SCHEMES)


ONE, TWO = "first-secret-value", "second-secret-value"
ALREADY = "would send its credential in the"


@pytest.mark.parametrize(("security", "extra", "said"), [
    (f"{{digest: 'user:{ONE}'}}", "",
     "security.digest: security scheme 'digest' is http 'digest', which is not supported"),
    (f"{{negotiate: {ONE}}}", "",
     "security.negotiate: security scheme 'negotiate' is http 'negotiate', which is not "
     "supported"),
    (f"{{lowAuth: {ONE}, bearerAuth: {TWO}}}", "",
     f"security.bearerAuth: security scheme 'bearerAuth' {ALREADY} header 'Authorization', "
     "which security scheme 'lowAuth' already sets"),
    (f"{{oauth: {ONE}, bearerAuth: {TWO}}}", "",
     f"security.bearerAuth: security scheme 'bearerAuth' {ALREADY} header 'Authorization', "
     "which security scheme 'oauth' already sets"),
    (f"{{key: {ONE}, keyAgain: {TWO}}}", "",
     f"security.keyAgain: security scheme 'keyAgain' {ALREADY} header 'x-api-key', which "
     "security scheme 'key' already sets"),
    (f"{{apiKey: {ONE}, apiKey2: {TWO}}}", "",
     f"security.apiKey2: security scheme 'apiKey2' {ALREADY} query parameter 'api_key', "
     "which security scheme 'apiKey' already sets"),
    (f"{{key: {ONE}}}", f"    headers: {{X-API-KEY: {TWO}}}\n",
     f"security.key: security scheme 'key' {ALREADY} header 'X-Api-Key', which the "
     "server's headers: ('X-API-KEY') already sets"),
    (f"{{bearerAuth: {ONE}}}", f"    auth: {{type: bearer, token: {TWO}}}\n",
     f"security.bearerAuth: security scheme 'bearerAuth' {ALREADY} header 'Authorization', "
     "which the server's auth: (bearer) already sets"),
    (f"{{key: 'caf\u00e9-{ONE}'}}", "", "security.key: the value has a character outside "
     "visible ASCII"),
    (f'{{bearerAuth: "{ONE}\\u2028x"}}', "", "security.bearerAuth: the value has a character "
     "outside visible ASCII"),
    (f"{{sid: '{ONE}; admin=1'}}", "", "security.sid: the value has a space, '\"', ',', ';'"),
    (f"{{csrf: '{ONE},x'}}", "", "security.csrf: the value has a space, '\"', ',', ';'"),
])
def test_a_credential_that_cannot_be_sent_as_its_scheme_says_is_located(
        tmp_path: Path, service: PetService, security: str, extra: str, said: str) -> None:
    config = write(tmp_path, service, f"    openapi: {{spec: pets.yaml, security: {security}}}\n",
                   document=document(service), extra=extra)
    problems = problems_of(config)
    assert any(said in p and "toolhost.yaml:" in p for p in problems), problems


async def test_the_cookies_of_several_schemes_are_all_sent(tmp_path: Path,
                                                           service: PetService) -> None:
    config = write(tmp_path, service,
                   "    openapi: {spec: pets.yaml, security: {sid: s1, csrf: c2}}\n",
                   document=document(service))
    result = await call(config, "listPets", {})
    assert not result.is_error, result
    assert service.requests[-1]["headers"]["cookie"] == "sid=s1; csrf=c2"


@pytest.mark.parametrize(("host", "pinned", "warned"), [
    ("localhost", "", True), ("127.0.0.1", "", False), ("localhost", "base_url", False)])
async def test_credentials_sent_to_a_host_a_fetched_document_names_are_warned_of(
        tmp_path: Path, service: PetService, caplog: pytest.LogCaptureFixture,
        monkeypatch: pytest.MonkeyPatch, host: str, pinned: str, warned: bool) -> None:
    monkeypatch.setenv("TOOLHOST_CACHE", str(tmp_path / "cache"))  # the fetch cache reads it
    service_doc = service.document
    service.document = lambda: service_doc().replace(  # type: ignore[method-assign]
        "http://127.0.0.1:", f"http://{host}:")
    base = f"    base_url: http://127.0.0.1:{service.port}/v1\n" if pinned else ""
    config = write(tmp_path, service, f"    openapi: {{url: 'http://127.0.0.1:{service.port}"
                   f"/openapi.yaml', security: {{bearerAuth: {ONE}}}}}\n", extra=base)
    with caplog.at_level("WARNING"):
        result = await call(config, "listPets", {})
    assert not result.is_error, result
    said = [r.getMessage() for r in caplog.records if "(openapi.security) are sent to" in
            r.getMessage()]
    assert bool(said) == warned, said
    if warned:
        assert f"servers[0].url: the credentials of 'pets' (openapi.security) are sent to " \
               f"http://localhost:{service.port}, a host the fetched document names" in said[0]


def _required(document: str, top: str, per_operation: dict[str, str]) -> str:
    """``document`` with a top-level security requirement and some operations' own."""
    for operation, requirement in per_operation.items():
        line = f"      operationId: {operation}\n"
        assert line in document
        document = document.replace(line, f"{line}      security: {requirement}\n")
    return document.replace("paths:\n", f"security: {top}\npaths:\n", 1) if top else document


@pytest.mark.parametrize(("top", "own", "sent"), [
    # an operation's own requirement wins over the document's; [] and [{}] need nothing
    ("[{bearerAuth: []}]", {"listPets": "[]", "showPetById": "[{apiKey: []}]"},
     {"listPets": set(), "showPetById": {"api_key"}, "deletePet": {"authorization"},
      "createPet": {"authorization"}}),
    # the first alternative met is sent; an optional one ({} first) still sends a credential
    ("", {"listPets": "[{}, {apiKey: []}]", "showPetById": "[{oauth: []}, {bearerAuth: []}]",
          "deletePet": "[{bearerAuth: [], apiKey: []}]", "createPet": "[{}]"},
     {"listPets": {"api_key"}, "showPetById": {"authorization"},
      "deletePet": {"authorization", "api_key"}, "createPet": set()}),
    # a document that declares no requirement: every configured credential, as before
    ("", {}, {name: {"authorization", "api_key"}
              for name in ("listPets", "showPetById", "deletePet", "createPet")}),
    # nothing met and no empty alternative: what is configured of it (the service says no)
    ("[{oauth: []}]", {}, {name: set()
                           for name in ("listPets", "showPetById", "deletePet", "createPet")}),
])
async def test_an_operation_is_sent_only_the_credentials_its_requirement_names(
        tmp_path: Path, service: PetService, top: str, own: dict[str, str],
        sent: dict[str, set[str]]) -> None:
    config = write(tmp_path, service, f"    openapi: {{spec: pets.yaml, security: "
                   f"{{bearerAuth: {ONE}, apiKey: {TWO}}}}}\n",
                   document=_required(document(service), top, own))
    arguments = {"listPets": {}, "showPetById": {"petId": "p1"}, "deletePet": {"petId": "p1"},
                 "createPet": {"body": {"name": "Rex"}}}
    async with compile_tools(load(config)) as compiled:
        for tool, expected in sent.items():
            result = await compiled.tool("pets", tool).call(arguments[tool], CallContext())
            assert not result.is_error, (tool, result)
            request = service.requests[-1]
            carried = {"api_key"} & {key for key, _ in request["query"]}
            carried |= {"authorization"} & set(request["headers"])
            assert carried == expected, tool
            if "authorization" in carried:
                assert request["headers"]["authorization"] == f"Bearer {ONE}"
            if "api_key" in carried:
                assert ("api_key", TWO) in request["query"]


def test_an_operation_whose_requirement_the_config_cannot_meet_is_warned_of(
        tmp_path: Path, service: PetService, caplog: pytest.LogCaptureFixture) -> None:
    config = write(tmp_path, service, f"    openapi: {{spec: pets.yaml, security: "
                   f"{{bearerAuth: {ONE}}}}}\n", document=_required(
                       document(service), "", {"deletePet": "[{oauth: []}, {key: [], sid: []}]"}))
    load(config)
    said = [r.getMessage() for r in caplog.records if "deletePet" in r.getMessage()]
    assert len(said) == 1, said
    assert "pets.yaml:" in said[0] and "needs security scheme(s) 'key', 'oauth', 'sid'" \
        in said[0] and "servers.pets.openapi.security" in said[0], said


def test_operations_missing_the_same_schemes_are_warned_of_once(
        tmp_path: Path, service: PetService, caplog: pytest.LogCaptureFixture) -> None:
    config = write(tmp_path, service, f"    openapi: {{spec: pets.yaml, security: "
                   f"{{bearerAuth: {ONE}}}}}\n",
                   document=_required(document(service), "[{oauth: []}]", {}))
    load(config)
    said = [r.getMessage() for r in caplog.records if "security scheme(s)" in r.getMessage()]
    assert len(said) == 1, said  # not one per operation: a large document would flood
    assert "4 operations ('listPets', 'createPet', 'showPetById', ...) need security " \
        "scheme(s) 'oauth'" in said[0], said


@pytest.mark.parametrize(("top", "own", "place"), [
    ("{bearerAuth: []}", {}, ":1: security:"),  # a mapping, not a list
    ("bearerAuth", {}, ":1: security:"),
    ("", {"listPets": "[bearerAuth]", "showPetById": "{apiKey: []}",
          "deletePet": "[{bearerAuth: []}, apiKey]", "createPet": "null"}, ".security:"),
])
async def test_a_malformed_requirement_sends_no_credential(
        tmp_path: Path, service: PetService, caplog: pytest.LogCaptureFixture,
        monkeypatch: pytest.MonkeyPatch, top: str, own: dict[str, str], place: str) -> None:
    """A requirement that is not a list of mappings does not say what the service asks for:
    no credential is sent (it used to be read as "no requirement", so every one was), and a
    located warning says so, once per place. openapi-spec-validator refuses such a document;
    without it (an optional extra) the importer itself must fail closed."""
    monkeypatch.setitem(sys.modules, "openapi_spec_validator", None)  # not installed
    config = write(tmp_path, service, f"    openapi: {{spec: pets.yaml, security: "
                   f"{{bearerAuth: {ONE}, apiKey: {TWO}}}}}\n",
                   document=_required(document(service), top, own))
    arguments = {"listPets": {}, "showPetById": {"petId": "p1"}, "deletePet": {"petId": "p1"},
                 "createPet": {"body": {"name": "Rex"}}}
    async with compile_tools(load(config)) as compiled:
        for tool, args in arguments.items():
            result = await compiled.tool("pets", tool).call(args, CallContext())
            assert not result.is_error, (tool, result)
            request = service.requests[-1]
            assert "authorization" not in request["headers"], tool
            assert not {"api_key"} & {key for key, _ in request["query"]}, tool
    said = [r.getMessage() for r in caplog.records if "is not a list of" in r.getMessage()]
    assert said and all(place in line and "no credential is sent" in line for line in said)
    assert len(said) == (1 if top else 4), said
