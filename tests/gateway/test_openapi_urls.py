"""URLs with a userinfo part: a document's server URL that has one is refused (``http://a@b/``
goes to ``b``, with the server's headers), and a password in a config URL is a secret that no
message, log or result shows."""

from __future__ import annotations

import base64
from collections.abc import Iterator
from pathlib import Path

import pytest

from toolhost.backends.base import CallContext
from toolhost.compile import compile_tools
from toolhost.config.loader import load_config
from toolhost.config.url_secrets import url_credentials

from .openapi_service import PetService
from .test_openapi import call, load, problems_of, write

pytestmark = pytest.mark.anyio


@pytest.fixture
def service() -> Iterator[PetService]:
    with PetService() as running:
        yield running


@pytest.mark.parametrize("url", [
    "http://127.0.0.1:{other}@127.0.0.1:{port}/v1",
    "http://user:pa55word@127.0.0.1:{port}/v1",
    "http://{{who}}@127.0.0.1:{port}/v1",
    "http://127.0.0.1:{port}\\\\@127.0.0.1:{other}/v1",
    "HTTP://a@b@127.0.0.1:{port}/v1",
])
async def test_a_document_server_url_with_userinfo_is_refused(
        tmp_path: Path, service: PetService, url: str) -> None:
    with PetService() as other:
        line = next(x for x in service.document().splitlines() if x.startswith("servers:"))
        text = service.document().replace(line, (
            'servers: [{url: "' + url.format(port=service.port, other=other.port)
            + f'", variables: {{who: {{default: "127.0.0.1:{other.port}"}}}}}}]'))
        config = write(tmp_path, service, "    openapi: {spec: pets.yaml}\n"
                       "    headers: {X-Token: team-s3cret-header}\n", document=text)
        found = problems_of(config)
        assert len(found) == 1, found
        assert "pets.yaml:3:" in found[0] and "servers[0].url" in found[0]
        assert any(why in found[0] for why in ("user name or password before the host",
                                                "backslash", "more than one '@'")), found
        assert "pa55word" not in found[0]
        assert other.requests == [] and service.requests == []


@pytest.mark.parametrize("url", [
    "http://127.0.0.1:{port} @127.0.0.1:{other}/v1",
    "http://127.0.0.1:{port}\\t@127.0.0.1:{other}/v1",
    "http://127.0.0.1:{port}%40127.0.0.1:{other}/v1",
    "http://127.0.0.1:{port}\\uff20127.0.0.1:{other}/v1",
    "http://127.0.0.1:{port}\\ufe6b127.0.0.1:{other}/v1",
    "http://127.0.0.1\\uff1a{port}/v1",
    "http://127.0.0.1\\u3002{port}/v1",
    "http://{{who}} @127.0.0.1:{other}/v1",
    "http:///v1",
])
async def test_a_document_server_url_read_two_ways_is_refused(
        tmp_path: Path, service: PetService, url: str) -> None:
    """As httpx reads it: `A @B` sends to B with the server's headers (a user name of `A `);
    whitespace, a `%40` and the lookalikes of '@', ':' and '.' are refused at load, located."""
    with PetService() as other:
        line = next(x for x in service.document().splitlines() if x.startswith("servers:"))
        text = service.document().replace(line, (
            'servers: [{url: "' + url.format(port=service.port, other=other.port)
            + f'", variables: {{who: {{default: "127.0.0.1:{service.port}"}}}}}}]'))
        config = write(tmp_path, service, "    openapi: {spec: pets.yaml}\n"
                       "    headers: {X-Token: team-s3cret-header}\n", document=text)
        found = problems_of(config)
        assert len(found) == 1, found
        assert "pets.yaml:3:" in found[0] and "servers[0].url" in found[0], found
        assert other.requests == [] and service.requests == []


async def test_a_password_in_a_config_url_is_a_secret_everywhere(
        tmp_path: Path, service: PetService) -> None:
    server = (f"    openapi: {{spec: pets.yaml}}\n"
              f"    base_url: 'http://bot:${{PW}}@127.0.0.1:{service.port}/v1'\n")
    config = write(tmp_path, service, server)
    loaded = load(config, PW="Pw5ecret77")
    basic = base64.b64encode(b"bot:Pw5ecret77").decode()
    assert loaded.redact(f"x Pw5ecret77 Basic {basic}").count("Pw5ecret77") == 0
    assert basic not in loaded.redact(f"Basic {basic}")
    async with compile_tools(loaded) as compiled:
        result = await compiled.tool("pets", "listPets").call({}, CallContext())
    assert not result.is_error  # the call itself still carries the credential
    assert service.requests[-1]["headers"]["authorization"] == f"Basic {basic}"


async def test_a_failed_call_never_shows_the_userinfo(tmp_path: Path,
                                                      service: PetService) -> None:
    for password in ("pw", "Pw5ecret77"):  # short ones too: the URL is shown without it
        server = ("    openapi: {spec: pets.yaml}\n"
                  f"    base_url: 'http://bot:{password}@127.0.0.1:1/v1'\n")
        config = write(tmp_path, service, server)
        result = await call(config, "listPets", {})
        assert result.is_error
        assert "http://127.0.0.1:1/v1/pets" in result.text_content, result.text_content
        assert password not in result.text_content and "bot:" not in result.text_content


def test_userinfo_anywhere_in_a_config_is_secret(tmp_path: Path) -> None:
    assert url_credentials({"a": ["psql", "postgres://app:dbpa55@db:5432/x"],
                            "b": {"c": "see https://ghp_tokenvalue1@github.com/o/r"},
                            "d": "http://u:p@h/ and https://k:p%40ss-word@h/",
                            "e": "mailto:x@y http://host/a@b"}, 4) == {
        "dbpa55", "ghp_tokenvalue1", "p%40ss-word", "p@ss-word"}
    config = tmp_path / "toolhost.yaml"
    config.write_text("toolhost: 1\nservers:\n  u:\n    mcp:\n"
                      "      url: 'https://user:${UPSTREAM_PW}@127.0.0.1:1/mcp'\n")
    loaded = load_config(config, environ={"UPSTREAM_PW": "upstream-pw-1"}, layers=False)
    assert loaded.redact("upstream-pw-1") == "***"


@pytest.mark.parametrize("level", ["path", "operation"])
async def test_an_operations_own_server_never_gets_the_request(
        tmp_path: Path, service: PetService, level: str,
        caplog: pytest.LogCaptureFixture) -> None:
    """A document's ``servers`` on a path or an operation would send that operation, with the
    server's credentials, to another host: it goes to the pinned base URL, with a warning."""
    with PetService() as other:
        own = f"servers: [{{url: 'http://127.0.0.1:{other.port}/v1'}}]"
        text = service.document()
        if level == "path":
            text = text.replace("  /pets:\n", f"  /pets:\n    {own}\n", 1)
        else:
            text = text.replace("      operationId: listPets\n",
                                f"      operationId: listPets\n      {own}\n", 1)
        config = write(tmp_path, service, "    openapi: {spec: pets.yaml, security: "
                       "{bearerAuth: 'tok-own-server-1234'}}\n", document=text)
        result = await call(config, "listPets", {})
        assert not result.is_error, result.text_content
        assert other.requests == []
        assert service.requests[-1]["headers"]["authorization"] == "Bearer tok-own-server-1234"
    warned = [r.getMessage() for r in caplog.records if "names its own server" in r.getMessage()]
    # a path's servers are each of its operations' (listPets and createPet)
    assert len(warned) == (2 if level == "path" else 1), caplog.text
    where = "20:16: paths./pets.servers" if level == "path" else "22:18: paths./pets.get.servers"
    assert f"pets.yaml:{where}[0].url: operation 'listPets'" in warned[0], warned
    assert f"toolhost sends it to 'http://127.0.0.1:{service.port}/v1'" in warned[0]


async def test_a_server_variable_is_filled_in_once(tmp_path: Path, service: PetService) -> None:
    """A variable's default is not read again as a template: '{b}' stays '{b}' (OpenAPI
    substitutes once); filled in one variable after another, it took b's value, and with it
    another host."""
    with PetService() as other:
        line = next(x for x in service.document().splitlines() if x.startswith("servers:"))
        text = service.document().replace(line, (
            'servers: [{url: "http://{a}/v1", variables: {a: {default: "{b}"}, '
            f'b: {{default: "127.0.0.1:{other.port}"}}}}}}]'))
        config = write(tmp_path, service, "    openapi: {spec: pets.yaml}\n", document=text)
        found = problems_of(config)
        assert len(found) == 1 and "http://{b}/v1" in found[0], found
        assert other.requests == []
