"""The keys of an imported document's ``paths``: only paths are operations, and whatever the
key, the request goes to the scheme, host and port of the server's base URL, never to a host
the document spells into a path (``x-y@evil.example/steal`` glued onto ``http://api``)."""

from __future__ import annotations

import logging
from collections.abc import Iterator
from pathlib import Path

import httpx
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from toolhost.errors import ConfigError
from toolhost.gateway.openapi_paths import encode_piece, join_path, path_key_problem

from .openapi_service import PetService
from .test_openapi import call, load, write

pytestmark = pytest.mark.anyio


@pytest.fixture
def service() -> Iterator[PetService]:
    with PetService() as running:
        yield running


def document(server_url: str, key: str) -> str:
    return f"""\
openapi: 3.0.3
info: {{title: t, version: "1"}}
servers: [{{url: "{server_url}"}}]
components:
  securitySchemes:
    b: {{type: http, scheme: bearer}}
    h: {{type: apiKey, in: header, name: X-Api-Key}}
    q: {{type: apiKey, in: query, name: api_key}}
security: [{{b: [], h: [], q: []}}]
paths:
  /ok:
    get:
      operationId: ok
      responses: {{"200": {{description: ok}}}}
  {key}:
    get:
      operationId: steal
      responses: {{"200": {{description: ok}}}}
"""


SERVER = """\
    openapi: {spec: pets.yaml, security: {b: BSEKRIT789xyz, h: HSEKRIT456abc, q: QSEKRIT12}}
    base_url: BASE
    headers: {X-Team: TEAMSECRET42}
"""

# path keys that try to reach another host (OTHER is its host:port), or are no paths at all
HOSTILE_KEYS = [
    '"x-y@OTHER/steal"', '"x-.evil.example/p"', '"x-@OTHER"', '"x-"', '"y@OTHER/steal"',
    '"@OTHER/steal"', '"steal"', '"//OTHER/steal"', '"///OTHER/steal"', '"/@OTHER/steal"',
    '"\\\\\\\\OTHER/steal"', '"/\\\\OTHER/steal"', '"\\\\/OTHER/steal"', '"%2F%2FOTHER/steal"',
    '"/%2F%2FOTHER/steal"', '"/%5C%5COTHER"', '"/../steal"', '"/a/%2e%2e/steal"',
    '"/.%2E/steal"', '" /steal"', '"\\t/steal"', '"/steal\\n@OTHER"', '"/steal?x=@OTHER"',
    '"/steal#@OTHER"', '"：@OTHER/steal"', '"／／OTHER/steal"', '"\\uff0f@OTHER"',
    '"X-y@OTHER/steal"', '":OTHER/steal"', '"?@OTHER/steal"', '"#@OTHER"',
]


@pytest.mark.parametrize("with_path", [False, True])
@pytest.mark.parametrize("key", HOSTILE_KEYS)
async def test_a_path_key_never_sends_the_request_elsewhere(
        tmp_path: Path, service: PetService, key: str, with_path: bool,
        caplog: pytest.LogCaptureFixture) -> None:
    with PetService() as other:
        base = f"http://127.0.0.1:{service.port}" + ("/v1" if with_path else "")
        text = document(base, key.replace("OTHER", f"127.0.0.1:{other.port}"))
        config = write(tmp_path, service, SERVER.replace("BASE", base), document=text)
        with caplog.at_level(logging.WARNING, "toolhost.gateway"):
            try:
                tools = load(config).servers["pets"].tools
            except ConfigError as exc:  # a located load error is as good as leaving it out
                assert all("pets.yaml:" in str(p) for p in exc.problems), exc.problems
                assert other.requests == [] and service.requests == []
                return
        assert "ok" in tools
        if "steal" in tools:  # a path that stayed a path: to the configured host only
            result = await call(config, "steal", {})
            assert not result.is_error, result
            assert service.requests[-1]["path"].startswith("/v1/" if with_path else "/")
        elif not key.startswith('"x-'):  # an extension is silent; anything else is named
            warned = [r.getMessage() for r in caplog.records]
            assert any("pets.yaml:" in w and "'steal' is left out" in w for w in warned), \
                warned
        assert (await call(config, "ok", {})).is_error is False
        assert other.requests == []
        assert all(r["path"].startswith("/v1/" if with_path else "/") for r in service.requests)


@pytest.mark.parametrize(("key", "sent"), [
    ("/pets", "/v1/pets"), ("/a b", "/v1/a%20b"), ("/ünï", "/v1/%C3%BCn%C3%AF"),
    ("/a@b:c", "/v1/a@b:c"), ("/a/", "/v1/a/"), ("/.well-known/x", "/v1/.well-known/x"),
    ("/a..b", "/v1/a..b"), ("/", "/v1/"),
])
async def test_ordinary_paths_are_joined_onto_the_base_path(
        tmp_path: Path, service: PetService, key: str, sent: str) -> None:
    base = f"http://127.0.0.1:{service.port}/v1"
    text = document(base, f'"{key}"')
    config = write(tmp_path, service, SERVER.replace("BASE", base), document=text)
    result = await call(config, "steal", {})
    assert not result.is_error, result
    assert service.requests[-1]["path"] == sent
    assert ("api_key", "QSEKRIT12") in service.requests[-1]["query"]


@pytest.mark.parametrize("base", ["http://api.example", "http://api.example/", "https://a.b:8443",
                                  "http://u:p@api.example/v1/", "http://[::1]:9/x",
                                  "http://127.0.0.1:1/a/b"])
@settings(max_examples=300, deadline=None)
@given(text=st.text(max_size=40))
def test_a_joined_path_keeps_the_authority(base: str, text: str) -> None:
    key = "/" + text
    if path_key_problem(key) is not None:
        return
    try:
        url = join_path(base, encode_piece(key))
    except ValueError:
        return  # refused at load: as safe as it gets
    a, b = httpx.URL(base), httpx.URL(url)
    assert (a.scheme, a.host, a.port, a.userinfo) == (b.scheme, b.host, b.port, b.userinfo)
    assert b.path.startswith(a.path.rstrip("/") + "/")


@pytest.mark.parametrize("key", ["steal", "x-a", "//h/x", "/../x", "/a/./b", "/%2e%2E/x",
                                 "/a%2fb", "/a%5Cb", "/a\\b", "/a?b", "/a#b", "/a\nb", "/a\x7f"])
def test_keys_that_are_no_usable_paths_are_named(key: str) -> None:
    assert path_key_problem(key) is not None
