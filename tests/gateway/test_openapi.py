"""An OpenAPI document imported as a server: its operations become http tools that reach a
real local service, chosen and reshaped by the config, and every mistake is located."""

from __future__ import annotations

import json
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from toolhost.backends.base import CallContext
from toolhost.compile import compile_tools
from toolhost.config.loader import load_config
from toolhost.errors import ConfigError
from toolhost.results import ToolResult

from .openapi_service import PetService

pytestmark = pytest.mark.anyio
ENV = {"PETS_TOKEN": "tok-s3cret-value-1234", "TOOLHOST_CACHE": ""}


@pytest.fixture
def service() -> Iterator[PetService]:
    with PetService() as running:
        yield running


def write(tmp_path: Path, service: PetService, server: str, *, document: str | None = None,
          extra: str = "") -> Path:
    (tmp_path / "pets.yaml").write_text(document or service.document())
    config = tmp_path / "toolhost.yaml"
    config.write_text(f"toolhost: 1\nservers:\n  pets:\n{server}{extra}")
    return config


def load(config: Path, **env: str) -> Any:
    return load_config(config, environ={**ENV, "TOOLHOST_CACHE": str(config.parent / "cache"),
                                        **env}, layers=False)


def problems_of(config: Path) -> list[str]:
    with pytest.raises(ConfigError) as caught:
        load(config)
    return [str(p) for p in caught.value.problems]


async def call(config: Path, tool: str, arguments: dict[str, Any]) -> ToolResult:
    async with compile_tools(load(config)) as compiled:
        return await compiled.tool("pets", tool).call(arguments, CallContext())


BASIC = "    openapi: {spec: pets.yaml, security: {bearerAuth: '${PETS_TOKEN}'}}\n"


def test_every_supported_operation_becomes_a_tool_with_its_schema(
        tmp_path: Path, service: PetService) -> None:
    config = load(write(tmp_path, service, BASIC))
    tools = config.servers["pets"].tools
    assert sorted(tools) == ["createPet", "deletePet", "listPets", "showPetById"]  # not PNG
    listing = tools["listPets"]
    schema = listing.input_schema
    assert schema is not None and schema["additionalProperties"] is False
    assert schema["properties"]["limit"] == {"type": "integer", "minimum": 1, "maximum": 50}
    assert schema["properties"]["filter_kind"]["enum"] == ["cat", "dog"]  # filter[kind]
    assert "X_Request_Id" in schema["properties"] and "required" not in schema
    assert listing.description == "List the pets"
    assert listing.annotations == {"readOnlyHint": True}
    assert tools["deletePet"].annotations["destructiveHint"] is True
    create = tools["createPet"].input_schema
    assert create is not None and create["required"] == ["body"]
    assert create["properties"]["body"] == {"$ref": "#/$defs/Pet"}
    pet = create["$defs"]["Pet"]
    assert pet["properties"]["tag"]["type"] == ["string", "null"]  # 3.0 nullable
    assert pet["properties"]["friends"]["items"] == {"$ref": "#/$defs/Pet"}  # recursive


async def test_calls_reach_the_service_with_parameters_in_their_places(
        tmp_path: Path, service: PetService) -> None:
    config = write(tmp_path, service, BASIC)
    result = await call(config, "listPets", {"limit": 3, "filter_kind": "cat",
                                             "X_Request_Id": "r-1", "dry_run": True})
    assert not result.is_error, result
    sent = service.requests[-1]
    assert (sent["method"], sent["path"]) == ("GET", "/v1/pets")
    assert sent["query"] == [("limit", "3"), ("filter[kind]", "cat"), ("dry_run", "true")]
    assert sent["headers"]["x-request-id"] == "r-1"
    assert sent["headers"]["authorization"] == "Bearer tok-s3cret-value-1234"

    await call(config, "createPet", {"body": {"name": "rex", "tag": None}})
    assert service.requests[-1]["body"] == {"name": "rex", "tag": None}
    assert service.requests[-1]["method"] == "POST"

    await call(config, "showPetById", {"petId": "a b"})
    assert service.requests[-1]["path"] == "/v1/pets/a%20b"


async def test_arguments_are_checked_and_cannot_leave_the_declared_path(
        tmp_path: Path, service: PetService) -> None:
    config = write(tmp_path, service, BASIC)
    before = len(service.requests)
    for bad in ({"limit": 500}, {"filter_kind": "bird"}, {"nope": 1}):
        assert (await call(config, "listPets", bad)).is_error
    assert (await call(config, "createPet", {"body": {"name": "x" * 21}})).is_error
    for sneaky in ("..", "a/../../admin", "%2e%2e"):
        result = await call(config, "showPetById", {"petId": sneaky})
        assert result.is_error or service.requests[-1]["path"].startswith("/v1/pets/")
    assert all(r["path"].startswith("/v1/pets") for r in service.requests[before:])


async def test_selection_renaming_and_fixed_arguments(tmp_path: Path,
                                                      service: PetService) -> None:
    server = BASIC + """\
    include: ["tag:pets", "DELETE /pets/*"]
    exclude: [createPet]
    tools:
      listPets:
        name: list
        description: Our pets
        fixed: {dry_run: true, "filter[kind]": dog}
        defaults: {limit: 5}
        params: {limit: {maximum: 10}}
      deletePet: {annotations: {title: Remove a pet}}
"""
    config = write(tmp_path, service, server)
    tools = load(config).servers["pets"].tools
    assert sorted(tools) == ["deletePet", "list", "showPetById"]
    schema = tools["list"].input_schema
    assert schema is not None and "dry_run" not in schema["properties"]
    assert "filter_kind" not in schema["properties"]
    assert schema["properties"]["limit"] == {"type": "integer", "minimum": 1, "maximum": 10,
                                             "default": 5}
    assert tools["list"].description == "Our pets"
    result = await call(config, "list", {})
    assert not result.is_error, result
    assert service.requests[-1]["query"] == [("limit", "5"), ("filter[kind]", "dog"),
                                             ("dry_run", "true")]
    refused = await call(config, "list", {"dry_run": False})
    assert refused.is_error  # a fixed argument is not the model's to give


async def test_an_api_key_in_the_query_and_secrets_hidden(tmp_path: Path,
                                                          service: PetService) -> None:
    server = "    openapi: {spec: pets.yaml, security: {apiKey: '${PETS_TOKEN}'}}\n"
    config = write(tmp_path, service, server)
    loaded = load(config)
    assert "tok-s3cret-value-1234" not in loaded.redact("key tok-s3cret-value-1234")
    await call(config, "showPetById", {"petId": "7"})
    assert ("api_key", "tok-s3cret-value-1234") in service.requests[-1]["query"]


async def test_a_document_from_a_url_is_fetched_once_and_cached(
        tmp_path: Path, service: PetService, monkeypatch: pytest.MonkeyPatch) -> None:
    # a cache of its own: one in the home directory kept a document fetched by an earlier
    # run from the same port, and this run fetched nothing. The load's environ (load()
    # passes TOOLHOST_CACHE=tmp_path/cache) is where it goes, not the process's.
    monkeypatch.setenv("TOOLHOST_CACHE", str(tmp_path / "not-this-one"))
    server = f"    openapi: {{url: 'http://127.0.0.1:{service.port}/openapi.yaml'}}\n"
    config = write(tmp_path, service, server)
    assert "listPets" in load(config).servers["pets"].tools
    assert "listPets" in load(config).servers["pets"].tools
    assert service.fetched == 1
    assert list((tmp_path / "cache" / "openapi").iterdir())
    assert not (tmp_path / "not-this-one").exists()
    await call(config, "showPetById", {"petId": "1"})
    assert service.requests[-1]["path"] == "/v1/pets/1"


def test_a_secret_with_a_trailing_newline_is_refused_at_load(tmp_path: Path,
                                                             service: PetService) -> None:
    config = write(tmp_path, service, BASIC)
    with pytest.raises(ConfigError) as caught:
        load(config, PETS_TOKEN="tok-from-a-file-1234\n")
    (problem,) = [str(p) for p in caught.value.problems]
    assert "security.bearerAuth: the value contains a line break" in problem
    assert "tok-from-a-file" not in problem  # the secret itself is never shown


@pytest.mark.parametrize(("place", "name", "said"), [
    ("header", "'X Key:'", "names the header 'X Key:', which is not a valid header name"),
    ("cookie", "'a=b; admin'", "names the cookie 'a=b; admin', which is not a valid cookie "
     "name"),
    ("query", "''", "names no query parameter (its 'name' is empty)")])
def test_an_api_key_name_must_be_a_name_of_its_place(tmp_path: Path, service: PetService,
                                                     place: str, name: str, said: str) -> None:
    document = service.document().replace("apiKey: {type: apiKey, in: query, name: api_key}",
                                          f"apiKey: {{type: apiKey, in: {place}, name: {name}}}")
    config = write(tmp_path, service, "    openapi: {spec: pets.yaml, security: "
                   "{apiKey: k-1234567}}\n", document=document)
    assert any(f"security.apiKey: security scheme 'apiKey' {said}" in p
               for p in problems_of(config))


@pytest.mark.parametrize(("server", "document", "expected"), [
    ("    openapi: {spec: missing.yaml}\n", None, "missing.yaml: no such file"),
    ("    openapi: /dev/zero\n", None, ":4:5: servers.pets.openapi: OpenAPI document "
     "/dev/zero: cannot read: not a regular file (an OpenAPI document is a .yaml, .yml or "
     ".json file)"),
    ("    openapi: {spec: /tmp}\n", None, ":4:15: servers.pets.openapi.spec: OpenAPI "
     "document /tmp: cannot read: a directory"),
    ("    openapi: {spec: pets.yaml, url: 'http://x/y'}\n", None,
     "servers.pets.openapi: an OpenAPI server names its document with 'spec'"),
    ("    openapi: {spec: pets.yaml}\n", "swagger: '2.0'\ninfo: {}\n",
     "pets.yaml:1:1: openapi: no 'openapi:' version: toolhost imports OpenAPI 3.x"),
    ("    openapi: {spec: pets.yaml}\n",
     "openapi: 3.0.3\ninfo: {title: t, version: '1'}\npaths:\n  /a:\n    get:\n"
     "      parameters: [{$ref: 'http://169.254.169.254/x#/p'}]\n"
     "      responses: {'200': {description: ok}}\n",
     "pets.yaml:6:21: paths./a.get.parameters[0].$ref: reference "
     "'http://169.254.169.254/x#/p' points outside the document"),
    ("    openapi: {spec: pets.yaml}\n",
     "openapi: 3.0.3\ninfo: {title: t, version: '1'}\npaths:\n  /a:\n    get:\n"
     "      parameters: [{$ref: '#/components/parameters/Nope'}]\n"
     "      responses: {'200': {description: ok}}\n",
     "reference '#/components/parameters/Nope' points at nothing in the document"),
    ("    openapi: {spec: pets.yaml}\n", "openapi: 3.0.3\ninfo: {title: t}\npaths: {}\n",
     "not a valid OpenAPI document: 'version' is a required property"),
    ("    openapi: {spec: pets.yaml}\n    include: [listPetz]\n", None,
     "servers.pets.include[0]: 'listPetz' matches no operation of the document"),
    ("    openapi: {spec: pets.yaml}\n    tools: {listPetz: {name: x}}\n", None,
     "servers.pets.tools.listPetz: the document has no operation 'listPetz'"),
    ("    openapi: {spec: pets.yaml}\n    tools: {listPets: {fixed: {limt: 1}}}\n", None,
     "servers.pets.tools.listPets.fixed.limt: operation 'listPets' has no parameter 'limt'"),
    ("    openapi: {spec: pets.yaml}\n    tools: {createPet: {fixed: {body: {}}}}\n", None,
     "not the body"),
    ("    openapi: {spec: pets.yaml, security: {oauth: an-oauth-token-1234}}\n", None,
     "servers.pets.openapi.security.oauth: the document has no security scheme 'oauth'"),
    ("    openapi: {spec: pets.yaml}\n    mcp: {command: [x]}\n", None, "not both"),
    ("    openapi: {spec: pets.yaml, security: {bearerAuth: \"tok\\nInjected: 1\"}}\n", None,
     "servers.pets.openapi.security.bearerAuth: the value contains a line break"),
    ("    openapi: {spec: pets.yaml, security: {apiKey: \"k\\r\\n\"}}\n", None,
     "servers.pets.openapi.security.apiKey: the value contains a line break"),
    ("    openapi: {spec: pets.yaml, extra: 1}\n", None,
     "servers.pets.openapi.extra: unknown key"),
])
def test_mistakes_are_located(tmp_path: Path, service: PetService, server: str,
                              document: str | None, expected: str) -> None:
    found = problems_of(write(tmp_path, service, server, document=document))
    assert any(expected in p for p in found), found
    assert all("Traceback" not in p for p in found)


@pytest.mark.parametrize("document", [
    "a: &a [1]\n" + "".join(f"{chr(98 + i)}: &{chr(98 + i)} [*{chr(97 + i)}, "
                            f"*{chr(97 + i)}, *{chr(97 + i)}, *{chr(97 + i)}]\n"
                            for i in range(20)),
    "openapi: 3.0.3\nx: " + "[" * 5000 + "]" * 5000 + "\n",
    "openapi: 3.0.3\ninfo: {title: t, version: '1'}\npaths:\n  /a/{x}:\n    get:\n"
    "      responses: {'200': {description: ok}}\n",
    "\0\0\0",
    "openapi: 3.1.0\ninfo: {title: t, version: '1'}\npaths: 7\n",
])
def test_hostile_documents_are_one_located_problem(tmp_path: Path, service: PetService,
                                                   document: str) -> None:
    config = write(tmp_path, service, "    openapi: {spec: pets.yaml}\n", document=document)
    try:
        loaded = load(config)
    except ConfigError as exc:
        assert exc.problems and all("pets.yaml" in str(p) or "toolhost.yaml" in str(p)
                                    for p in exc.problems)
    else:  # an operation that cannot be built is left out, not a crash
        assert loaded.servers["pets"].tools == {}


def test_validate_names_what_is_left_out_and_the_example_validates(
        tmp_path: Path, service: PetService) -> None:
    root = Path(__file__).parents[2]
    config = write(tmp_path, service, "    openapi: {spec: pets.yaml}\n",
                   extra="permissions: {default: allow}\n")
    env = {"PATH": "/usr/bin:/bin", "HOME": str(tmp_path), "TOOLHOST_CACHE": str(tmp_path)}
    out = subprocess.run([sys.executable, "-m", "toolhost", "validate", str(config)],
                         capture_output=True, text=True, env=env, cwd=root, timeout=60)
    assert out.returncode == 0, out.stderr
    assert out.stdout.strip().endswith("ok (1 server, 4 tools)")
    left_out = [line for line in out.stderr.splitlines() if "uploadPhoto" in line]
    assert len(left_out) == 1 and f"{tmp_path / 'pets.yaml'}:" in left_out[0]
    assert "is left out: its request body is image/png" in left_out[0]
    example = root / "examples" / "configs" / "gateway-openapi.yaml"
    out = subprocess.run([sys.executable, "-m", "toolhost", "tools", "--json", str(example)],
                         capture_output=True, text=True, env=env, cwd=root, timeout=60)
    assert out.returncode == 0, out.stderr
    tools = json.loads(out.stdout)["servers"][0]["tools"]
    assert sorted(t["name"] for t in tools) == ["create_task", "getTask", "list_tasks"]


def test_names_from_the_document_cannot_become_templates_or_break_limits(
        tmp_path: Path, service: PetService) -> None:
    long_id = "get" + "VeryLong" * 12
    document = f"""\
openapi: 3.1.0
info: {{title: t, version: '1'}}
servers: [{{url: "http://127.0.0.1:{service.port}/v1"}}]
paths:
  /x:
    get:
      operationId: {long_id}
      parameters:
        - {{name: "{{{{ 7*7 }}}}", in: query, schema: {{type: string}}}}
        - {{name: "class", in: query, schema: {{type: string}}}}
        - {{name: "X-Evil\\r\\nInjected", in: header, schema: {{type: string}}}}
      responses: {{'200': {{description: ok}}}}
"""
    config = write(tmp_path, service, "    openapi: {spec: pets.yaml}\n", document=document)
    tools = load(config).servers["pets"].tools
    [(name, tool)] = tools.items()
    assert len(f"mcp__pets__{name}") <= 64 and name.startswith("getVeryLong")
    schema = tool.input_schema
    assert schema is not None and sorted(schema["properties"]) == ["class_", "p_7_7"]
    assert tool.backend.options["query"] == {"{{ 7*7 }}": "{{ p_7_7 }}",
                                             "class": "{{ class_ }}"}
    assert "headers" not in tool.backend.options  # the header name is not a token


def test_an_unresolved_server_url_needs_a_base_url(tmp_path: Path,
                                                   service: PetService) -> None:
    document = ("openapi: 3.1.0\ninfo: {title: t, version: '1'}\n"
                "servers: [{url: 'http://{{host}}/v1'}]\npaths: {}\n")
    config = write(tmp_path, service, "    openapi: {spec: pets.yaml}\n", document=document)
    assert any("no absolute base URL for 'pets'" in p for p in problems_of(config))


def test_a_string_names_the_document_and_names_without_operation_ids_are_clean(
        tmp_path: Path, service: PetService, monkeypatch: pytest.MonkeyPatch) -> None:
    document = f"""\
openapi: 3.1.0
info: {{title: t, version: '1'}}
servers: [{{url: "http://127.0.0.1:{service.port}/v1"}}]
paths:
  /pets/{{petId}}/toys:
    get:
      parameters: [{{name: petId, in: path, required: true, schema: {{type: [string, "null"]}}}}]
      responses: {{'200': {{description: ok}}}}
  /pets:
    post:
      operationId: new__pet
      requestBody:
        content: {{application/json: {{schema: {{allOf: [{{type: object}}]}}}}}}
      responses: {{'200': {{description: ok}}}}
"""
    config = write(tmp_path, service, "    openapi: pets.yaml\n", document=document)
    monkeypatch.setitem(sys.modules, "openapi_spec_validator", None)  # not installed
    tools = load(config).servers["pets"].tools
    assert sorted(tools) == ["get_pets_petId_toys", "new_pet"]  # never '__' (ambiguous)


def test_a_document_from_a_url_is_pinned_by_the_lock(tmp_path: Path, service: PetService,
                                                      monkeypatch: pytest.MonkeyPatch) -> None:
    from toolhost.commands.lock import write_for

    cache = tmp_path / "cache"
    monkeypatch.setenv("TOOLHOST_CACHE", str(cache))
    server = f"    openapi: 'http://127.0.0.1:{service.port}/openapi.yaml'\n"
    config = write(tmp_path, service, server, extra="permissions: {default: allow}\n")
    assert any(line.startswith("+ openapi:pets sha256:") for line in write_for(str(config)))
    locked = json.loads((tmp_path / "toolhost.lock").read_text())["sources"]["openapi:pets"]
    assert locked["digest"].startswith("sha256:")
    assert "listPets" in load(config).servers["pets"].tools  # as locked: fine
    [cached] = (cache / "openapi").iterdir()
    cached.write_text(cached.read_text().replace("List the pets", "Delete every pet"))
    assert any("openapi:pets changed since toolhost.lock" in p for p in problems_of(config))
    assert write_for(str(config))[0].startswith("~ openapi:pets")  # reviewed: accepted
    assert load(config).servers["pets"].tools["listPets"].description == "Delete every pet"

    other = tmp_path / "other"
    other.mkdir()
    (other / "toolhost.lock").write_text('{"toolhost_lock": 1, "sources": {}, "plugins": {}}')
    moved = write(other, service, server)
    assert any("openapi:pets is not in toolhost.lock" in p for p in problems_of(moved))


def test_a_default_named_by_the_document_s_name_makes_the_parameter_optional(
        tmp_path: Path, service: PetService) -> None:
    document = f"""\
openapi: 3.1.0
info: {{title: t, version: '1'}}
servers: [{{url: "http://127.0.0.1:{service.port}/v1"}}]
paths:
  /pets:
    get:
      operationId: find
      parameters: [{{name: "pet-kind", in: query, required: true, schema: {{type: string}}}}]
      responses: {{'200': {{description: ok}}}}
"""
    server = "    openapi: {spec: pets.yaml}\n    tools: {find: {defaults: {pet-kind: cat}}}\n"
    tool = load(write(tmp_path, service, server, document=document)).servers["pets"].tools["find"]
    assert tool.input_schema is not None and "required" not in tool.input_schema
    assert tool.input_schema["properties"]["pet_kind"]["default"] == "cat"


def test_a_document_that_dribbles_in_is_given_up_whole(tmp_path: Path, service: PetService,
                                                       monkeypatch: pytest.MonkeyPatch) -> None:
    import socket
    import threading
    import time

    import toolhost.gateway.openapi_doc as openapi_doc

    monkeypatch.setattr(openapi_doc, "FETCH_TIMEOUT", 1.0)
    listener = socket.create_server(("127.0.0.1", 0))
    stop = threading.Event()

    def dribble() -> None:  # a byte every 0.1 s: no single read waits long
        conn, _ = listener.accept()
        with conn:
            conn.sendall(b"HTTP/1.1 200 OK\r\nContent-Length: 100000\r\n\r\n")
            while not stop.wait(0.1):
                try:
                    conn.sendall(b"#")
                except OSError:
                    return

    threading.Thread(target=dribble, daemon=True).start()
    port = listener.getsockname()[1]
    config = write(tmp_path, service, f"    openapi: 'http://127.0.0.1:{port}/openapi.yaml'\n")
    started = time.monotonic()
    try:
        found = problems_of(config)
    finally:
        stop.set()
        listener.close()
    assert time.monotonic() - started < 10
    assert any("cannot fetch the OpenAPI document" in p and "took over 1s" in p for p in found)
