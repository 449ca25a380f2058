"""A path value that a server reads as '..' or '/' once it decodes the path again or
normalizes it: toolhost encodes a value once (`%2e%2e` is sent as `%252e%252e`), and a server
or proxy that decodes twice (or NFKC-normalizes: `．．` and `‥` are '..', `／` is '/', some
strip blanks and cut at a NUL) walked out of `/api/items/` into `/api/secret`. Such a value is
refused before anything is sent; ordinary values (a percent sign, accents, dots inside a name)
still go. Checked against a real loopback server that records each raw request line."""

from __future__ import annotations

import posixpath
import unicodedata
from typing import Any
from urllib.parse import unquote, urlsplit

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from .test_http import Config, api, http, run

pytestmark = pytest.mark.anyio

MOVING = ["%2e%2e", "%2E%2e", ".%2e", "%2e.", "%252e%252e", "%2e%2e;x", "．．", "\uff0e.",
          "‥", " ..", ".. ", "..\t", "..\u200b", "..%00", "%c0%ae%c0%ae", "%e0%80%ae.",
          "..%2f", "%2fetc", "%5c..", "a／b", "a＼b", "%252f", "%c0%af"]
STILL_SENT = ["100%", "50% off", "é", "a b", "x.y", "...", "v1.2", "%", "%zz", "。。",
              "a%20b", "café"]


def _server_reads(raw_segment: str) -> str:
    """The segment as a server that decodes twice, maps overlong UTF-8 and NFKC reads it."""
    text = unquote(raw_segment)  # the first decoding: the value as the model gave it
    for overlong, char in (("%c0%ae", "."), ("%e0%80%ae", "."), ("%c0%af", "/")):
        text = text.replace(overlong, char).replace(overlong.upper(), char)
    text = unquote(unquote(text))
    return unicodedata.normalize("NFKC", text).split("\0")[0].split(";")[0].strip(
        " \t\u200b")


@pytest.mark.parametrize("value", MOVING)
async def test_a_value_a_server_would_read_as_dot_dot_or_slash_is_refused(
        config: Config, server: Any, value: str) -> None:
    # what the value does without the check: the server's reading leaves /api/items/
    read = _server_reads(value.replace("%", "%25"))  # the value as toolhost encodes it
    assert read in (".", "..") or "/" in read or "\\" in read
    cfg = config({"get": http("echo/{id}/view")}, defaults=api(server))
    result = await run(cfg, "get", {"id": value})
    assert result.is_error and result.text_content.startswith("Refused to send the request")
    assert "decoded again or normalized" in result.text_content
    assert server.seen == []


@pytest.mark.parametrize("value", STILL_SENT)
async def test_ordinary_values_still_go(config: Config, server: Any, value: str) -> None:
    cfg = config({"get": http("echo/{id}/view")}, defaults=api(server))
    result = await run(cfg, "get", {"id": value})
    assert not result.is_error, result
    (request,) = server.seen
    segments = urlsplit(request.path).path.split("/")
    assert segments[:3] == ["", "api", "echo"] and unquote(segments[3]) == value


async def test_the_config_s_own_encoded_slash_still_goes(config: Config, server: Any) -> None:
    cfg = config({"get": http("projects/a%2Fb/files/{path}/raw")}, defaults=api(server))
    result = await run(cfg, "get", {"path": "README.md"})
    assert "Refused" not in result.text_content  # sent (this test server answers 404)
    assert [s.path for s in server.seen] == ["/api/projects/a%2Fb/files/README.md/raw"]


@settings(max_examples=60, deadline=None, derandomize=True,
          suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(value=st.text(st.sampled_from(list(".%25eEcCaA0fF/\\．‥／ ;\u200b")), min_size=1,
                     max_size=8))
def test_property_no_value_sent_is_read_elsewhere(config: Config, server: Any,
                                                  value: str) -> None:
    """Whatever is sent, a double-decoding, NFKC-normalizing server keeps it in /echo/."""
    import anyio

    server.seen.clear()
    cfg = config({"get": http("echo/{id}/view")}, defaults=api(server))
    result = anyio.run(run, cfg, "get", {"id": value})
    if result.is_error:
        assert server.seen == []
        return
    (request,) = server.seen
    raw = urlsplit(request.path).path
    read = "/".join(_server_reads(segment) for segment in raw.split("/"))
    assert posixpath.normpath(read).startswith("/api/echo/"), (value, raw, read)
