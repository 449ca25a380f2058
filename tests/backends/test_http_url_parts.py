"""HTTP keeps every URL part: a query written in the url survives, query: entries follow it in
order, values are encoded once, a value never adds a segment, key or fragment. Checked against
a real loopback server that records each raw request line."""

from __future__ import annotations

from typing import Any
from urllib.parse import parse_qsl, unquote, urlsplit

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from toolhost.compile import compile_tools
from toolhost.errors import CompileError

from .test_http import Config, api, http, run

pytestmark = pytest.mark.anyio

HOSTILE = ["", " ", "+", "a b", "a+b", "&", "=", "a&fixed=0", "dry_run=0", "#", "#frag", "?",
           "?x=1", "%", "%20", "%2F", "%2e%2e", "/", "\\", "..", ".", "é", "\u202e", "\r\nX: 1",
           "{{ 7*7 }}", "{v}", "-rf", "--x=1", ";", "'\"", "\x00"[:0] + "\x7f", "a" * 300,
           "@evil.example", "http://evil.example/", "//evil.example"]


def seen_query(server: Any) -> list[tuple[str, str]]:
    (request,) = server.seen
    return parse_qsl(urlsplit(request.path).query, keep_blank_values=True)


async def test_a_literal_query_is_kept_and_query_entries_follow(config: Config,
                                                               server: Any) -> None:
    cfg = config({
        "delete": http(f"{server.url}/api/delete?dry_run=1"),
        "search": http("echo?q={v}&fixed=1", options={"query": {"page": "{{ page }}",
                                                                "tag": "{{ tags }}"}},
                       params={"v": {"type": "string"}, "page": {"type": "integer"},
                               "tags": {"type": "array", "items": {"type": "string"}}},
                       required=("v",)),
    }, defaults=api(server))
    await run(cfg, "delete", {})
    assert [s.path for s in server.seen] == ["/api/delete?dry_run=1"]
    server.seen.clear()
    await run(cfg, "search", {"v": "a&fixed=0#x", "page": 2, "tags": ["x y", ""]})
    assert seen_query(server) == [("q", "a&fixed=0#x"), ("fixed", "1"), ("page", "2"),
                                  ("tag", "x y"), ("tag", "")]
    server.seen.clear()
    await run(cfg, "search", {"v": ""})  # not given: left out; given empty: sent
    assert seen_query(server) == [("q", ""), ("fixed", "1")]


async def test_given_empty_values_are_sent_left_out_ones_are_not(config: Config,
                                                                server: Any) -> None:
    cfg = config({"t": http("echo", options={"query": {"a": "{{ a }}", "b": "x{{ b }}",
                                                       "flag": "{% if f %}1{% endif %}"}},
                            params={"a": {"type": "string"}, "b": {"type": "string"},
                                    "f": {"type": "boolean", "default": False}})},
                 defaults=api(server))
    await run(cfg, "t", {})
    assert seen_query(server) == []
    server.seen.clear()
    await run(cfg, "t", {"a": "", "b": "", "f": True})
    assert seen_query(server) == [("a", ""), ("b", "x"), ("flag", "1")]


def test_fragments_duplicate_keys_and_base_url_queries_are_load_errors(config: Config,
                                                                       server: Any) -> None:
    cfg = config({
        "frag": http(f"{server.url}/api/x#top"),
        "dup": http(f"{server.url}/api/x?a=1", options={"query": {"a": "{{ a }}"}}),
    })
    with pytest.raises(CompileError) as info:
        compile_tools(cfg)
    frag, dup = info.value.problems
    assert frag.key_path == "servers.demo.tools.frag.http.url"
    assert "fragment" in frag.message and "never sent" in frag.message
    assert dup.key_path == "servers.demo.tools.dup.http.query"
    assert "query key 'a' is both in the url and in query:" in dup.message
    based = config({"t": http("x")}, defaults=api(server, ).__class__(
        base_url=f"{server.url}/api/?key=1"))
    with pytest.raises(CompileError) as info:
        compile_tools(based)
    assert "base_url" in info.value.problems[0].message


@pytest.mark.parametrize("value", HOSTILE)
async def test_hostile_values_keep_every_part(config: Config, server: Any, value: str) -> None:
    cfg = config({
        "t": http("echo/{seg}/view?fixed=1&v={v}",
                  options={"query": {"q": "{{ v }}", "keep": "k"}},
                  params={"seg": {"type": "string"}, "v": {"type": "string"}},
                  required=("seg", "v")),
    }, defaults=api(server))
    result = await run(cfg, "t", {"seg": "s", "v": value})
    assert not result.is_error, result
    (request,) = server.seen
    parts = urlsplit(request.path)
    assert parts.path == "/api/echo/s/view"
    assert seen_query(server) == [("fixed", "1"), ("v", value), ("q", value), ("keep", "k")]
    server.seen.clear()
    segment = await run(cfg, "t", {"seg": value, "v": "x"})
    if segment.is_error:  # '', '.', '..', or an encoded slash: refused, nothing sent
        assert segment.text_content.startswith("Refused to send the request")
        assert server.seen == []
        return
    (request,) = server.seen
    path = urlsplit(request.path).path.split("/")
    assert len(path) == 5 and unquote(path[3]) == value
    assert seen_query(server) == [("fixed", "1"), ("v", "x"), ("q", "x"), ("keep", "k")]


@settings(max_examples=40, deadline=None,
          suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(value=st.text(st.characters(codec="utf-8", exclude_characters="\x00"), max_size=40))
def test_property_every_value_arrives_once_at_its_place(config: Config, server: Any,
                                                        value: str) -> None:
    import anyio

    server.seen.clear()
    cfg = config({"t": http("echo/{seg}?lit=1&v={v}", options={"query": {"q": "{{ v }}"}})},
                 defaults=api(server))
    result = anyio.run(run, cfg, "t", {"seg": value, "v": value})
    if result.is_error:
        assert result.text_content.startswith("Refused to send the request")
        assert value in ("", ".", "..") or "/" in value or "\\" in value \
            or "decoded again or normalized" in result.text_content  # test_http_decoded_paths
        assert server.seen == []
    else:
        (request,) = server.seen
        parts = urlsplit(request.path)
        segments = parts.path.split("/")
        assert len(segments) == 4 and unquote(segments[3]) == value
        assert parse_qsl(parts.query, keep_blank_values=True) == \
            [("lit", "1"), ("v", value), ("q", value)]


async def test_an_encoded_slash_the_config_wrote_is_sent_one_from_a_value_is_not(
        config: Config, server: Any) -> None:
    """GitLab's `/projects/group%2Fproject`: the config's own `%2F` is kept (it was refused
    at every call); a value still cannot add one."""
    cfg = config({
        "project": http(f"{server.url}/api/projects/group%2Fproject/issues?state=opened"),
        "file": http(f"{server.url}/api/projects/a%2Fb/files/{{path}}/raw",
                     params={"path": {"type": "string"}}, required=("path",)),
    }, defaults=api(server))
    result = await run(cfg, "project", {})
    assert [s.path for s in server.seen] == ["/api/projects/group%2Fproject/issues?state=opened"]
    assert "Refused" not in (result.text_content or ""), result  # sent (the server 404s)
    server.seen.clear()
    await run(cfg, "file", {"path": "README.md"})
    assert [s.path for s in server.seen] == ["/api/projects/a%2Fb/files/README.md/raw"]
    server.seen.clear()
    refused = await run(cfg, "file", {"path": "../../x"})
    assert refused.is_error and "encoded '/'" in (refused.text_content or ""), refused
    assert not server.seen
