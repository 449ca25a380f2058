"""A URL is read as the HTTP client will read it, or refused: whatever toolhost accepts, httpx
sends to the host toolhost thinks it sends to (``toolhost.config.urlcheck``)."""

from __future__ import annotations

from pathlib import Path
from urllib.parse import unquote

import httpx
import pytest
from hypothesis import example, given, settings
from hypothesis import strategies as st

from toolhost.compile import compile_tools
from toolhost.config.loader import load_config
from toolhost.config.urlcheck import authority, url_problem
from toolhost.errors import CompileError, ConfigError

# each goes (or might go) somewhere other than it looks, or fails at every call
AMBIGUOUS = [
    "http://127.0.0.1:18181 @127.0.0.1:18182/",
    "http://127.0.0.1:18181\t@127.0.0.1:18182/",
    "http://a.example\r\n@b.example/",
    "http://a.example\n/",
    "http://a.example\x00/",
    "http://a.example\u200b@b.example/",  # zero-width space
    "http://a.example\u3000@b.example/",  # ideographic space
    " http://a.example/",
    "http://a.example/ ",
    "http://a.example\\@b.example/",
    "http://a.example\\b.example/",
    "http://b.example/x\\y",
    "http://a@b@c.example/",
    "http://u:p@a.example@b.example/",
    "http://a.example%40b.example/",
    "http://a.example%2540b.example/",
    "http://a%2eexample/",
    "http://a.example\uff20b.example/",  # fullwidth @
    "http://a.example\ufe6bb.example/",  # small @
    "http://a.example\uff1a80/",  # fullwidth :
    "http://a.example\uff0fb/",  # fullwidth /
    "http://a\u3002example/",  # ideographic full stop: '.' after IDNA mapping
    "http://a\uff0eexample/",  # fullwidth full stop
    "http://\u0430pple.example/",  # Cyrillic a
    "http://ex\u00e4mple.example/",  # an international name: its xn-- form is asked for
    "http:///x",
    "http://:80/",
    "http://@/",
    "http://u@/",
    "http://[::1/",
    "http://[::1]x/",
    "http://[::1%25eth0]/",
    "http://[not-v6]/",
    "http://127.0.0.199999/",
    "http://xn--/",
    "http://xn--a.example/",
    "http://1.2.3.999/",
    "http://h:99999/",
    "http://h:0/",
    "http://h:8O/",
    "http://h:80:81/",
    "http://a;b.example/",
    "http://a,b.example/",
    "http://a!b.example/",
    "http://u%4@h.example/",
    "http://u p@h.example/",
    "http://u|p@h.example/",
]


@pytest.mark.parametrize("url", AMBIGUOUS)
def test_an_ambiguous_url_is_refused(url: str) -> None:
    problem = url_problem(url)
    assert problem is not None and "\n" not in problem


@pytest.mark.parametrize("url", ["http://u:SECRETPW@a.example@b.example/",
                                 "http://u:SECRET PW@b.example/", "http://u:SECRET%zz@b.example/",
                                 "http://u:SECRET\\PW@b.example/"])
def test_a_refusal_never_quotes_the_password(url: str) -> None:
    problem = url_problem(url)
    assert problem is not None and "SECRET" not in problem


FINE = {
    "http://a.example/": ("a.example", None),
    "https://A.Example:8443/x?y=1#z": ("a.example", 8443),
    "http://127.0.0.1:18181/api": ("127.0.0.1", 18181),
    "http://[::1]:80/": ("::1", 80),
    "http://[2001:DB8::1]/": ("2001:DB8::1", None),
    "http://bot:p%40ss@h.example/": ("h.example", None),
    "http://bot:a:b@h.example/": ("h.example", None),
    "http://h.example:/": ("h.example", None),
    "http://xn--exmple-cua.example/": ("xn--exmple-cua.example", None),
    "http://h_1.example/a b": ("h_1.example", None),
}


@pytest.mark.parametrize(("url", "where"), FINE.items())
def test_a_plain_url_passes_and_its_host_is_httpx_s(url: str, where: tuple[str, int | None]
                                                     ) -> None:
    if " " in url:  # a space in the path is still refused: a URL is written encoded
        assert url_problem(url) is not None
        return
    assert url_problem(url) is None
    found = authority(url)
    assert found is not None and (found.host, found.port) == where
    assert httpx.URL(url).raw_host.decode() == found.host


@pytest.mark.parametrize("url", ["http://u@h.example/", "http://u:p@h.example/",
                                 "http://:@h.example/"])
def test_a_userinfo_is_refused_where_the_caller_says(url: str) -> None:
    assert url_problem(url) is None
    assert "user name or password" in (url_problem(url, userinfo=False) or "")


def test_a_relative_url_is_not_this_module_s_business() -> None:
    assert url_problem("relative/path") is None and authority("issues/{id}") is None


_PIECES = ["a", "b.example", "127.0.0.1", "[::1]", "[", "]", "@", ":", "80", "99999", "/", "\\",
           "?", "#", "%", "%40", "%2e", " ", "\t", "\n", "\u3000", "\uff20", "\ufe6b", "\uff1a",
           "\uff0f", "\u3002", "\u00e4", "xn--", "_", "~", ";", ",", "!", "=", "$", "'", "&",
           "+", "*", "(", ")", ".", "-", "0"]


@settings(max_examples=2000, deadline=None)
@given(st.sampled_from(["http://", "https://", "HTTP://"]),
       st.lists(st.sampled_from(_PIECES), max_size=12))
@example("http://", ["a", " ", "@", "b.example"])
@example("http://", ["a", "%40", "b.example"])
@example("http://", ["a", "@", "b.example", "@", "127.0.0.1"])
def test_what_is_accepted_goes_where_toolhost_thinks(scheme: str, pieces: list[str]) -> None:
    """For any URL toolhost accepts, httpx parses it without error, to the same host, port
    and userinfo: nothing accepted can send to a host other than the one checked."""
    url = scheme + "".join(pieces)
    if url_problem(url) is not None:
        return
    found = authority(url)
    assert found is not None
    parsed = httpx.URL(url)
    assert parsed.raw_host.decode() == found.host  # what httpx connects to and sends as Host
    assert parsed.host  # and shows (an xn-- name decoded) without an error
    assert parsed.port in (found.port, None)
    assert found.port is None or parsed.port is None or parsed.port == found.port
    assert unquote(parsed.userinfo.decode()) == unquote(found.userinfo or "")


@settings(max_examples=1000, deadline=None)
@given(st.text(max_size=24), st.sampled_from(["", "/x", "?q", "#f"]))
def test_any_authority_text_either_refused_or_read_as_httpx_does(text: str, tail: str) -> None:
    url = f"http://{text}{tail}"
    if url_problem(url) is not None:
        return
    found = authority(url)
    assert found is not None
    assert httpx.URL(url).raw_host.decode() == found.host


# the host part of a config URL, after `http://`; HOST is the server the config names
_CONFIG_VARIANTS = [
    "127.0.0.1:1 @HOST", "127.0.0.1:1\\t@HOST", "bot:${BOT_PW} x@HOST", "a@b@HOST",
    "127.0.0.1:1%40HOST", "127.0.0.1:1\\uff20HOST", "127.0.0.1:1\\ufe6bHOST",
    "HOST\\uff1a80", "127\\u30020.0.1", "HOST\\\\@evil.example", "", ":80",
    "HOST\\u200b", "1.2.3.999",
]


@pytest.mark.parametrize("authority_text", _CONFIG_VARIANTS)
@pytest.mark.parametrize(("servers", "key"), [
    ("  h:\n    base_url: \"http://AUTH/\"\n    tools:\n      e: {http: {url: echo}}\n",
     "servers.h.base_url"),
    ("  h:\n    tools:\n      e: {http: {url: \"http://AUTH/{x}\"}}\n",
     "servers.h.tools.e.http.url"),
    ("  h:\n    tools:\n      e: {http: {url: \"http://AUTH/x\"}}\n",
     "servers.h.tools.e.http.url"),
    ("  m:\n    mcp: {url: \"http://AUTH/mcp\"}\n", "servers.m.mcp.url"),
])
def test_every_config_url_read_two_ways_is_a_located_problem(
        tmp_path: Path, servers: str, key: str, authority_text: str) -> None:
    text = servers.replace("AUTH", authority_text.replace("HOST", "127.0.0.1:9"))
    config = tmp_path / "t.yaml"
    config.write_text(f"toolhost: 1\nservers:\n{text}", encoding="utf-8")
    with pytest.raises((ConfigError, CompileError)) as caught:
        compile_tools(load_config(config, environ={"TOOLHOST_CACHE": str(tmp_path),
                                                   "BOT_PW": "pwVALUE77"}, layers=False))
    problems = [str(p) for p in caught.value.problems]
    assert len(problems) == 1, problems
    assert "t.yaml:" in problems[0] and f"{key}: " in problems[0], problems
    assert "pwVALUE77" not in problems[0] and "\n" not in problems[0]


def test_a_long_userinfo_is_checked_in_memory_of_its_size() -> None:
    # the userinfo pattern kept a regex frame per character: 124 MB for 1 MB
    import tracemalloc

    for info in ("a" * 500_000, "%41" * 170_000, "a" * 500_000 + "^"):
        url = f"http://{info}@example.com/"
        tracemalloc.start()
        try:
            url_problem(url)
            peak = tracemalloc.get_traced_memory()[1]
        finally:
            tracemalloc.stop()
        assert peak < 8 * len(url), peak
    assert url_problem("http://" + "a" * 500_000 + "^@example.com/") is not None
