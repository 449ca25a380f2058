from __future__ import annotations

import base64
import socket
from collections.abc import Callable
from typing import Any

import pytest

from toolhost.backends.base import CallContext
from toolhost.compile import compile_tools
from toolhost.config.model import HostConfig, ServerDefaults
from toolhost.errors import CompileError
from toolhost.results import ToolResult

Config = Callable[..., HostConfig]


def http(url: str, **extra: Any) -> dict[str, Any]:
    options = {"url": url, **extra.pop("options", {})}
    return {"kind": "http", "options": options, **extra}


def api(server: Any, **defaults: Any) -> ServerDefaults:
    return ServerDefaults(base_url=f"{server.url}/api/", **defaults)


async def run(cfg: HostConfig, tool: str, args: dict[str, Any]) -> ToolResult:
    async with compile_tools(cfg) as compiled:
        return await compiled.tool("demo", tool).call(args, CallContext())


@pytest.mark.anyio
async def test_get_with_path_and_query(config: Config, server: Any) -> None:
    cfg = config({"get": http("echo/{id}", options={"query": {"q": "{{ q }}", "opt": "{{ opt }}"}},
                              params={"id": {"type": "string"}, "q": {"type": "string"},
                                      "opt": {"type": "string"}},
                              required=("id", "q"))},
                 defaults=api(server))
    result = await run(cfg, "get", {"id": "a b+é", "q": "x&y=1 {{ 7*7 }}"})
    assert not result.is_error, result
    assert result.structured is not None
    assert result.structured["path"] == "/api/echo/a%20b%2B%C3%A9"
    assert result.structured["query"] == {"q": ["x&y=1 {{ 7*7 }}"]}  # opt not given: left out


REFUSED = ["..", ".", "a/../../secret", "/secret", "//evil.example/x", "%2e%2e/x", "a\\b", "",
           "http://evil.example", "x/", "..;", "..;jsessionid=x", ".;x"]
HARMLESS = {"@evil.example": "%40evil.example", "evil.example:80": "evil.example%3A80",
            "?x=1#frag": "%3Fx%3D1%23frag", "...": "...",
            "{{ ''.__class__ }}": "%7B%7B%20%27%27.__class__%20%7D%7D"}


@pytest.mark.anyio
@pytest.mark.parametrize("relative", [True, False])
@pytest.mark.parametrize("value", REFUSED)
async def test_escapes_are_refused_without_sending(config: Config, server: Any, value: str,
                                                   relative: bool) -> None:
    url = "echo/{id}" if relative else server.url + "/api/echo/{id}"
    cfg = config({"get": http(url)}, defaults=api(server))
    result = await run(cfg, "get", {"id": value})
    assert result.is_error and result.text_content.startswith("Refused to send the request: ")
    assert server.seen == []  # nothing was fetched at all


@pytest.mark.anyio
@pytest.mark.parametrize(("value", "encoded"), HARMLESS.items())
async def test_odd_values_stay_one_segment_on_the_declared_host(
        config: Config, server: Any, value: str, encoded: str) -> None:
    cfg = config({"get": http("echo/{id}/view")}, defaults=api(server))
    result = await run(cfg, "get", {"id": value})
    assert not result.is_error, result
    assert [s.path for s in server.seen] == [f"/api/echo/{encoded}/view"]


@pytest.mark.anyio
async def test_json_and_form_bodies_and_headers(config: Config, server: Any) -> None:
    cfg = config({
        "post": http("echo", options={"method": "POST", "headers": {"X-Trace": "t-{{ n }}"},
                                      "json": {"n": "{{ n }}", "label": "n={{ n }}",
                                               "tags": "{{ tags }}", "fixed": 1}},
                     params={"n": {"type": "integer"},
                             "tags": {"type": "array", "items": {"type": "string"}}},
                     required=("n", "tags")),
        "form": http("echo", options={"method": "POST", "form": {"a": "{{ a }}"}}),
    }, defaults=api(server, headers={"X-Team": "core"},
                    auth={"type": "bearer", "token": "s3cret"}))
    posted = await run(cfg, "post", {"n": 5, "tags": ["x", "; rm -rf /"]})
    assert posted.structured is not None
    import json
    assert json.loads(posted.structured["body"]) == {"n": 5, "label": "n=5",
                                                     "tags": ["x", "; rm -rf /"], "fixed": 1}
    headers = posted.structured["headers"]
    assert headers["x-trace"] == "t-5" and headers["x-team"] == "core"
    assert headers["authorization"] == "Bearer s3cret"
    form = await run(cfg, "form", {"a": "1&b=2"})
    assert form.structured is not None and form.structured["body"] == "a=1%26b%3D2"


@pytest.mark.anyio
async def test_header_injection_is_refused(config: Config, server: Any) -> None:
    cfg = config({"get": http("echo", options={"headers": {"X-Note": "{{ note }}"}})},
                 defaults=api(server))
    result = await run(cfg, "get", {"note": "a\r\nX-Evil: 1"})
    assert result.is_error and server.seen == []
    assert result.text_content == ("Refused to send the request: the value of header "
                                   "'X-Note' (from param note) contains a line break.")


@pytest.mark.anyio
@pytest.mark.parametrize(("auth", "header", "value"), [
    ({"type": "basic", "username": "u", "password": "p"}, "authorization",
     "Basic " + base64.b64encode(b"u:p").decode()),
    ({"type": "header", "name": "X-Api-Key", "value": "k1"}, "x-api-key", "k1"),
])
async def test_auth_kinds(config: Config, server: Any, auth: dict[str, str], header: str,
                          value: str) -> None:
    cfg = config({"get": http("echo")}, defaults=api(server, auth=auth))
    result = await run(cfg, "get", {})
    assert result.structured is not None
    assert result.structured["headers"][header] == value


@pytest.mark.anyio
async def test_response_mapping(config: Config, server: Any, png: bytes) -> None:
    cfg = config({
        "json": http("json"),
        "pointer": http("json", options={"select": "/data/items/1/name"}),
        "expr": http("json", options={"select": "response.data['items'] | map(attribute='name')"
                                                 " | list"}),
        "missing": http("json", options={"select": "/data/nope"}),
        "text": http("text"), "image": http("image"),
        "big": http("big", options={"max_response_bytes": 1000}),
    }, defaults=api(server))
    full = await run(cfg, "json", {})
    assert full.structured == {"data": {"items": [{"name": "a"}, {"name": "b"}]}}
    assert (await run(cfg, "pointer", {})).to_mcp() == {
        "content": [{"type": "text", "text": "b"}], "isError": False}
    assert (await run(cfg, "expr", {})).structured == {"result": ["a", "b"]}
    missing = await run(cfg, "missing", {})
    assert missing.is_error and "found nothing at 'nope'" in missing.text_content
    assert (await run(cfg, "text", {})).text_content == "plain text é"
    image = (await run(cfg, "image", {})).content[0]
    assert image["type"] == "image" and base64.b64decode(image["data"]) == png
    big = await run(cfg, "big", {})
    assert big.text_content.startswith("x" * 1000 + "\n[toolhost: the response passed 1,000")


@pytest.mark.anyio
async def test_non_2xx_and_redirects(config: Config, server: Any) -> None:
    cfg = config({"status": http("status/{code}"), "redirect": http("redirect")},
                 defaults=api(server))
    result = await run(cfg, "status", {"code": "404"})
    assert result.to_mcp() == {"isError": True, "content": [{"type": "text", "text":
        f"HTTP 404 Not Found from GET {server.url}/api/status/404\nnope: 404"}]}
    redirect = await run(cfg, "redirect", {})
    assert redirect.is_error and "redirect to" in redirect.text_content
    assert [s.path for s in server.seen] == ["/api/status/404", "/api/redirect"]


@pytest.mark.anyio
async def test_retries_idempotent_only(config: Config, server: Any) -> None:
    cfg = config({
        "get": http("flaky/{key}", options={"query": {"fail": "2"}, "backoff": 0.01}),
        "after": http("flaky/{key}", options={"query": {"fail": "1", "code": "429",
                                                        "after": "3600"},
                                              "max_retry_after": 0.01}),
        "post": http("flaky/{key}", options={"method": "POST", "query": {"fail": "1"}}),
        "giveup": http("flaky/{key}", options={"query": {"fail": "9"}, "retries": 1,
                                               "backoff": 0.01}),
    }, defaults=api(server))
    assert (await run(cfg, "get", {"key": "g"})).structured == {"attempts": 3}
    assert (await run(cfg, "after", {"key": "a"})).structured == {"attempts": 2}
    post = await run(cfg, "post", {"key": "p"})
    assert post.is_error and "HTTP 503" in post.text_content and server.attempts["p"] == 1
    giveup = await run(cfg, "giveup", {"key": "x"})
    assert giveup.is_error and server.attempts["x"] == 2


@pytest.mark.anyio
async def test_connect_error_is_a_result(config: Config) -> None:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        port = sock.getsockname()[1]
    cfg = config({"get": http(f"http://127.0.0.1:{port}/x", options={"backoff": 0.01})})
    result = await run(cfg, "get", {})
    assert result.is_error and "Could not connect for GET" in result.text_content


@pytest.mark.anyio
async def test_one_pooled_client_per_server(config: Config, server: Any) -> None:
    cfg = config({"a": http("echo/a"), "b": http("echo/b")}, defaults=api(server))
    async with compile_tools(cfg) as compiled:
        for name in ("a", "b", "a"):
            await compiled.tool("demo", name).call({}, CallContext())
    assert len({s.client_port for s in server.seen}) == 1


def test_compile_errors(config: Config) -> None:
    cfg = config({"host": http("http://{host}/x"),
                  "relative": http("items/{id}"),
                  "scheme": http("file:///etc/passwd"),
                  "port": http("http://127.0.0.1:{port}/x")})
    with pytest.raises(CompileError) as info:
        compile_tools(cfg)
    messages = [p.message for p in info.value.problems]
    assert len(messages) == 4
    assert "scheme, host and port must be written literally" in messages[0]
    assert "relative URL and the server has no base_url" in messages[1]
    assert "must start with http:// or https://" in messages[2]
    assert info.value.problems[0].key_path == "servers.demo.tools.host.http.url"
