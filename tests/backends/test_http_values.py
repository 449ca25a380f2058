"""Values an http request cannot carry as they are: located errors naming the header or param,
never a raw exception from the HTTP library, and nothing sent. Real local HTTP server."""

from __future__ import annotations

import math
from typing import Any

import pytest

from .test_http import Config, api, http, run

pytestmark = pytest.mark.anyio

SURROGATE = "ok\ud800"


# any JSON value: the schema lets it through, so the request building must cope
ANY = {"v": {"type": ["string", "number", "array", "object", "boolean"], "items": {}},
       "w": {"type": "string"}}


def _tools() -> dict[str, Any]:
    def tool(url: str, **options: Any) -> dict[str, Any]:
        return http(url, options=options, params=ANY, required=("v",))

    return {
        "path": tool("echo/{v}"),
        "query": tool("echo", query={"q": "{{ v }}"}),
        "header": tool("echo", headers={"X-Val": "{{ v }}"}),
        "glued": tool("echo", headers={"X-Val": "id={{ v }}; {{ w }}"}),
        "json": tool("echo", method="POST", json={"v": "{{ v }}"}),
        "form": tool("echo", method="POST", form={"v": "{{ v }}"}),
    }


@pytest.mark.parametrize("value", ["é ü", "日本", "a\x01b", "tab\x7f"])
async def test_a_header_value_must_be_printable_ascii(config: Config, server: Any,
                                                      value: str) -> None:
    cfg = config(_tools(), defaults=api(server))
    result = await run(cfg, "header", {"v": value})
    assert result.is_error and server.seen == []
    bad = next(c for c in value if not " " <= c <= "~")
    assert result.text_content == (
        f"Refused to send the request: the value of header 'X-Val' (from param v) must be "
        f"printable ASCII, and {bad!r} (U+{ord(bad):04X}) is not; encode it in the template "
        "(e.g. '{{ v | urlencode }}') if the server expects that.")
    glued = await run(cfg, "glued", {"v": "x", "w": value})
    assert "header 'X-Val' (from params v, w) must be printable ASCII" in glued.text_content


@pytest.mark.parametrize(("value", "what"), [
    ("a\0b", "contains a NUL character, which a header cannot carry"),
    ("\0", "contains a NUL character, which a header cannot carry"),
    (["a", "b\0"], "contains a NUL character, which a header cannot carry"),
    ("a\r\0b", "contains a NUL character, which a header cannot carry"),
    ("a\nb", "contains a line break"), ("a\rb", "contains a line break"),
    (["a", "b\r\nX-Evil: 1"], "contains a line break"),
])
async def test_a_nul_or_a_line_break_in_a_header_is_said_as_such(
        config: Config, server: Any, value: Any, what: str) -> None:
    cfg = config(_tools(), defaults=api(server))
    result = await run(cfg, "header", {"v": value})
    assert result.is_error and server.seen == []
    assert result.text_content == (
        f"Refused to send the request: the value of header 'X-Val' (from param v) {what}.")
    glued = await run(cfg, "glued", {"v": "x", "w": value if isinstance(value, str) else "\0"})
    assert glued.is_error and "header 'X-Val' (from params v, w) contains" in glued.text_content


async def test_a_list_header_value_is_one_field_joined_by_commas(config: Config,
                                                                 server: Any) -> None:
    cfg = config(_tools(), defaults=api(server))
    joined = await run(cfg, "header", {"v": ["a", "b c", 3]})
    assert joined.structured is not None, joined
    assert joined.structured["headers"]["x-val"] == "a, b c, 3"
    empty = await run(cfg, "header", {"v": []})
    assert empty.structured is not None and "x-val" not in empty.structured["headers"]
    broken = await run(cfg, "header", {"v": ["a", "b\r\nX-Evil: 1"]})
    assert broken.is_error and "contains a line break" in broken.text_content
    assert len(server.seen) == 2


@pytest.mark.parametrize("value", ["  padded\t", " admin", "admin\t", ["a", "b "], "\t"])
async def test_a_header_value_with_edge_blanks_is_refused_not_trimmed(
        config: Config, server: Any, value: Any) -> None:
    # RFC 9110 drops them, so the service got "admin" for " admin": a rule judged another
    # value than the one sent (a deny `equals: admin` met nothing)
    cfg = config(_tools(), defaults=api(server))
    result = await run(cfg, "header", {"v": value})
    assert result.is_error and server.seen == [], result
    assert ("the value of header 'X-Val' (from param v) begins or ends with a blank, which "
            "HTTP drops") in result.text_content
    inner = await run(cfg, "header", {"v": "a  b"})  # blanks inside are the value's own
    assert inner.structured is not None and inner.structured["headers"]["x-val"] == "a  b"
    assert len(server.seen) == 1


@pytest.mark.parametrize("tool", ["path", "query", "header", "json", "form"])
async def test_text_that_is_not_unicode_is_refused_naming_the_param(
        config: Config, server: Any, tool: str) -> None:
    cfg = config(_tools(), defaults=api(server))
    result = await run(cfg, tool, {"v": SURROGATE})
    assert result.is_error and server.seen == []
    if tool == "header":  # the header check sees it first
        assert "header 'X-Val' (from param v) must be printable ASCII" in result.text_content
        return
    assert result.text_content == (
        "Refused to send the request: the value of 'v' is not valid Unicode text (it holds a "
        "lone surrogate, U+D800), so it cannot be sent.")


@pytest.mark.parametrize(("value", "text"), [(1e16, "10000000000000000"),
                                             (-1e-05, "-0.00001"), (2.0, "2")])
async def test_numbers_are_plain_decimals_in_every_part(config: Config, server: Any,
                                                        value: float, text: str) -> None:
    cfg = config(_tools(), defaults=api(server))
    for tool in ("path", "query", "header", "form"):
        result = await run(cfg, tool, {"v": value})
        assert not result.is_error, (tool, result)
    path, query, header, form = server.seen
    assert path.path == f"/api/echo/{text}"
    assert query.path == f"/api/echo?q={text}"
    assert header.headers["x-val"] == text
    assert form.body == f"v={text}".encode()


@pytest.mark.parametrize("tool", ["path", "query", "header", "json", "form"])
@pytest.mark.parametrize("value", [math.inf, -math.inf, math.nan])
async def test_infinity_and_nan_are_refused_in_every_part(config: Config, server: Any,
                                                          tool: str, value: float) -> None:
    cfg = config(_tools(), defaults=api(server))
    result = await run(cfg, tool, {"v": value} if tool != "json" else {"v": [1, value]})
    assert result.is_error and server.seen == []
    said = "holds" if tool == "json" else "is"
    assert result.text_content.startswith(
        f"Refused to send the request: the value of 'v' {said} {value!r}, which is not a "
        "finite number"), result
